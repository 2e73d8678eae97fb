//! `tracer verify [ID]`: runs a session's target again with the same arguments, working directory,
//! Node and run options (workspace, timeout, event cap), as a new session that names the one it
//! verifies (`verifies`), and compares the two failures.
//!
//! Exit 0 when the original failure (same kind, same message, same mapped site) no longer occurs
//! and the program succeeded; 1 when it still fails, saying whether it is the same failure or a new
//! one. A re-run that timed out or was interrupted keeps its own code (124, 130, 143): it says
//! nothing about the failure. The verdict is human output on stderr; the program's output passes
//! through as in `tracer run`.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use crate::cli::{GlobalArgs, VerifyArgs};
use crate::engine;
use crate::error::TracerError;
use crate::exit;
use crate::output::human::{Styles, display_path};
use crate::output::store::Store;
use crate::process::stdin;
use crate::trace::evidence::{Evidence, Failure};
use crate::trace::rerun::{Verdict, compare};
use crate::trace::session::{Session, Status};

/// `tracer run`'s defaults, for sessions written before runs recorded their options.
const DEFAULT_ATTACH_TIMEOUT: f64 = 15.0;
const DEFAULT_MAX_EVENTS: usize = 10_000;

pub fn verify(args: VerifyArgs, global: &GlobalArgs, styles: &Styles) -> Result<u8> {
    let store = Store::new(&args.session.store.out);
    let id = store.resolve(&args.session.id)?;
    let original = store.load(&id)?;
    if original.status == Status::Running {
        return Err(TracerError::usage(format!(
            "session {id} has not finished (status running): wait for it, or verify another"
        ))
        .into());
    }
    // The program is given this command's standard input: a run that had input on its own (a
    // pipe, a file) and gets none now could pass for fixed only because it read nothing.
    let had = original.options.as_ref().and_then(|o| o.stdin.as_deref());
    let now = crate::process::stdin::kind();
    if let Some(had) = had.filter(|had| stdin::carries_input(had))
        && !stdin::carries_input(now)
    {
        let from = if had == "file" { "a file" } else { "a pipe" };
        return Err(TracerError::usage(format!(
            "session {id}'s program had its standard input from {from}, and `tracer verify` runs it again with its own, which is {}: give it the same input (`… | tracer verify {id}`, or `< FILE`), or a failure that came of that input would pass for fixed",
            if now == "terminal" { "a terminal" } else { "empty" }
        ))
        .into());
    }
    let original_evidence: Option<Evidence> =
        crate::files::read_json(&store.dir(&id).join("evidence.json"))?;

    let mut config = rerun(&original, &args);
    config.quiet = global.quiet;
    config.verifies = Some(id.clone());
    let traced = engine::execute(&config, styles)?;
    let verdict = compare(
        original_evidence.as_ref(),
        &traced.session,
        traced.evidence.as_ref(),
    );
    if !global.quiet {
        let mut err = std::io::stderr().lock();
        let _ = report(&mut err, styles, &id, &traced.session.id, &verdict);
    }
    Ok(match verdict {
        Verdict::Unfinished(_) => traced.code,
        Verdict::Fixed { .. } => exit::SUCCESS,
        Verdict::Same(_) | Verdict::New { .. } => exit::PROGRAM_FAILED,
    })
}

/// The run that repeats the original one.
fn rerun(original: &Session, args: &VerifyArgs) -> engine::Config {
    let options = original.options.as_ref();
    let node = &original.capabilities.node_path;
    engine::Config {
        // A name on PATH (`npm`) is found as a command again, not as the file its link names
        // (`npm-cli.js`, which would run as a JavaScript target); a path is the recorded one.
        target: PathBuf::from(
            options
                .and_then(|o| o.given_target.as_deref())
                .filter(|given| !given.contains('/'))
                .unwrap_or(&original.target),
        ),
        args: original.args.iter().map(OsString::from).collect(),
        scripts: options.is_some_and(|o| o.scripts),
        timeout: args.timeout.or(options.and_then(|o| o.timeout)),
        attach_timeout: options.map_or(DEFAULT_ATTACH_TIMEOUT, |o| o.attach_timeout),
        out: args.session.store.out.clone(),
        keep: args.keep,
        max_events: options.map_or(DEFAULT_MAX_EVENTS, |o| o.max_events),
        node: (!node.is_empty()).then(|| PathBuf::from(node)),
        workspace: options.map(|o| PathBuf::from(&o.workspace)),
        cwd: Some(PathBuf::from(&original.cwd)),
        default_redact: true,
        ..engine::Config::default()
    }
}

fn describe(failure: &Failure) -> String {
    let site = match (&failure.file, failure.line, failure.column) {
        (Some(file), Some(line), Some(column)) => {
            format!(" at {}:{line}:{column}", display_path(file))
        }
        (Some(file), _, _) => format!(" in {}", display_path(file)),
        _ => String::new(),
    };
    format!("{}{site}", failure.message)
}

fn report(
    out: &mut impl Write,
    s: &Styles,
    original: &str,
    rerun: &str,
    verdict: &Verdict,
) -> std::io::Result<()> {
    writeln!(out)?;
    match verdict {
        Verdict::Fixed { was } => {
            writeln!(
                out,
                "{} {}: the program succeeded",
                s.heading.style("verify:"),
                s.success.style("fixed")
            )?;
            match was {
                Some(was) => writeln!(
                    out,
                    "  the original failure no longer occurs: {}",
                    describe(was)
                )?,
                None => writeln!(out, "  the original run did not fail either")?,
            }
        }
        Verdict::Same(now) => {
            writeln!(
                out,
                "{} {}: the same failure",
                s.heading.style("verify:"),
                s.error.style("still failing")
            )?;
            writeln!(out, "  {}", describe(now))?;
        }
        Verdict::New { was, now } => {
            writeln!(
                out,
                "{} {}: a new failure",
                s.heading.style("verify:"),
                s.error.style("still failing")
            )?;
            match was {
                Some(was) => writeln!(out, "  was: {}", describe(was))?,
                None => writeln!(out, "  was: no failure")?,
            }
            match now {
                Some(now) => writeln!(out, "  now: {}", describe(now))?,
                None => writeln!(out, "  now: the program failed (no evidence was written)")?,
            }
        }
        Verdict::Unfinished(how) => {
            writeln!(
                out,
                "{} {}: the re-run {how}, so it says nothing about the failure",
                s.heading.style("verify:"),
                s.warning.style("no verdict")
            )?;
        }
    }
    writeln!(
        out,
        "  {}",
        s.dim.style(format!("session {rerun} verifies {original}"))
    )
}
