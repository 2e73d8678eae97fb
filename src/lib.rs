//! `tracer`: the library behind the binary. `run` parses the command line and dispatches to one
//! function per subcommand under `commands/`.
//!
//! Layers, each importing only from the ones below it (no two modules import each other):
//!
//! - `cli` (the only clap user) and `commands` (one thin file per subcommand) on top;
//! - `audit` (an environment's entry run in the sandbox, the sealed audit), `capabilities` (what
//!   this build and this Node can do, probed), `record` (Chromium);
//! - `engine` (a traced run: plan, supervise, the process tree, the pumps; its own `Config`);
//! - `probe` (the access recorder, in a page or a Node realm), `output` (human, ndjson, store,
//!   annotations);
//! - `trace` (capture -> mapper -> events, evidence), `conformance` (contract, audit format,
//!   check: from files alone);
//! - `inspector` (the bootloader, the CDP client, the driver with its `Observer` and
//!   `PauseHandler` hooks);
//! - `guard` (no-send), `sandbox` (the audit's namespaces and Landlock scopes), `process` (spawn,
//!   process groups, watchdog, listening sockets), `files`, `error`, `exit`, `pacing`, `timings`.
//!
//! Data flows one way: inspector -> trace -> output.

pub mod audit;
pub mod capabilities;
pub mod cli;
pub mod commands;
pub mod conformance;
pub mod engine;
pub mod error;
pub mod exit;
pub mod files;
#[doc(hidden)]
pub mod fuzzing;
pub mod guard;
pub mod inspector;
pub mod output;
pub mod pacing;
pub mod probe;
pub mod process;
pub mod record;
pub mod sandbox;
pub mod timings;
pub mod trace;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::output::human::Styles;

/// Parses `args` and runs the command; returns the process exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    // tracer's own helper for an audit's sandbox, before anything else of tracer runs in it.
    if sandbox::is_helper(&args) {
        return sandbox::helper::main(&args[2..]);
    }
    timings::start();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help and version on stdout (exit 0) and usage errors on stderr (exit 2).
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() {
                exit::USAGE
            } else {
                exit::SUCCESS
            });
        }
    };
    let styles = Styles::for_stderr(cli.global.color.into());
    // `run`, `audit`, `verify` and `record` stop what they started and finish their files on
    // Ctrl-C themselves (130); every other command only reads and writes files.
    if !matches!(
        cli.command,
        Command::Run(_) | Command::Audit(_) | Command::Verify(_) | Command::Record(_)
    ) {
        output::store::exit_on_interrupt();
    }
    let result = match cli.command {
        Command::Run(args) => commands::run::run(args, &cli.global, &styles),
        Command::Show(args) => commands::show::show(args),
        Command::Evidence(args) => commands::show::evidence(args),
        Command::List(args) => commands::list::list(args, &styles),
        Command::Contract(cli::ContractCommand::Build(args)) => {
            commands::contract::build(args, &cli.global, &styles)
        }
        Command::Audit(args) => commands::audit::audit(args, &cli.global, &styles),
        Command::Check(args) => commands::check::check(args, &cli.global, &styles),
        Command::Replay(args) => commands::replay::replay(args, &cli.global),
        Command::Verify(args) => commands::verify::verify(args, &cli.global, &styles),
        Command::Export(args) => commands::export::export(args),
        Command::Schema(args) => commands::schema::schema(args),
        Command::Completions(args) => commands::completions::completions(args),
        Command::Man(args) => commands::completions::man(args),
        Command::Capabilities(args) => commands::capabilities::capabilities(args),
        Command::Record(args) => commands::record::record(args, &cli.global, &styles),
    };
    // A Ctrl-C whose command finished before the signal's thread could end it is still a Ctrl-C.
    if let Some(code) = output::store::interrupted() {
        return ExitCode::from(code);
    }
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            let code = error::exit_code_of(&err);
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "{}", styles.error.style("error: "));
            let _ = writeln!(stderr, "{err}");
            for cause in err.chain().skip(1) {
                let _ = writeln!(stderr, "  caused by: {cause}");
            }
            ExitCode::from(code)
        }
    }
}
