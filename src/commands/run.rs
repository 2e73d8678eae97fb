//! `tracer run`: the command line's run, handed to the engine; then the CI annotations.

use anyhow::Result;

use crate::cli::{ExitCodeMode, GlobalArgs, RunArgs};
use crate::engine::{self, Config};
use crate::output::annotations;
use crate::output::human::Styles;

pub fn run(args: RunArgs, global: &GlobalArgs, styles: &Styles) -> Result<u8> {
    let traced = engine::execute(&config(&args, global), styles);
    crate::timings::mark("summary printed");
    crate::timings::print();
    let traced = traced?;
    if let Some(format) = annotations::wanted(args.annotations.map(Into::into)) {
        annotations::print(format, traced.evidence.as_ref(), args.ndjson);
    }
    Ok(traced.code)
}

/// The engine's configuration of a `tracer run` command line.
pub fn config(args: &RunArgs, global: &GlobalArgs) -> Config {
    Config {
        target: args.target.clone(),
        args: args.args.clone(),
        ndjson: args.ndjson,
        stdout_to_stderr: false,
        scripts: args.scripts,
        timeout: args.timeout,
        attach_timeout: args.attach_timeout,
        out: args.store.out.clone(),
        keep: args.keep,
        max_events: args.max_events,
        node: args.node.clone(),
        workspace: args.workspace.clone(),
        cwd: args.cwd.clone(),
        program_exit_code: args.exit_code == ExitCodeMode::Child,
        redact: args.redact.clone(),
        default_redact: !args.no_default_redact,
        quiet: global.quiet,
        verifies: None,
        extras: engine::Extras::default(),
    }
}
