//! The tracing engine: runs a Node program (or a command) under the inspector and traces it, end
//! to end, for `tracer run`, the audit, `verify` and `capabilities` alike.
//!
//! `plan` (what to run) -> `supervise` (launch -> pumps + cdp driver -> capture -> event stream
//! -> sinks; the process `tree`; one teardown) -> here: the session, the evidence chain, the
//! summary, and an exit code that says how the run went. It takes a `Config`, never the command
//! line's types.

mod plan;
pub mod pumps;
mod supervise;
pub mod tree;

use plan::plan;
use supervise::{Feed, Joined, RunResult, Started, now, signal_name, start, trace};

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self};
use std::time::Duration;

use anyhow::{Context, Result};

use crate::error::TracerError;
use crate::exit;
use crate::inspector::driver::Ending;
use crate::output::human::{self, Styles};
use crate::output::ndjson::{EventsFile, StdoutStream};
use crate::output::store::Store;
use crate::output::{self, Sinks};
use crate::trace::event::{Clock, Event, Kind};
use crate::trace::evidence::{self, Evidence};
use crate::trace::mapper::Mapper;
use crate::trace::redact::Redactor;
use crate::trace::session::{Capabilities, EventLog, RunOptions, Session, Status};

/// How many events may wait between the producers and the sinks before producers wait too.
const STREAM_BOUND: usize = 8192;

/// How long a program that was asked to stop gets before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// How long Node gets to exit after the debugger disconnects.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// How long the program's pipes get to end after it exited (its descendants may hold them).
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// `TRACER_CONSOLE_CAPTURE=inspector`: every console call reported by the inspector itself, as
/// before the bootloader captured the console (for comparison; `scripts/bench.sh` part 2).
pub const CONSOLE_CAPTURE_ENV: &str = "TRACER_CONSOLE_CAPTURE";

/// One traced run, as the engine takes it (the command line's `tracer run`, the audit, `verify`
/// and `capabilities` each make one; no clap type reaches the engine).
#[derive(Debug, Default)]
pub struct Config {
    /// A JavaScript file, a package folder, or a command (`npm`, `node`, a script).
    pub target: PathBuf,
    /// Arguments for the program or the command.
    pub args: Vec<OsString>,
    /// The events go to stdout as NDJSON; the program's own stdout is recorded, not passed on.
    pub ndjson: bool,
    /// The program's own stdout is passed on to tracer's stderr: tracer's stdout carries a report
    /// of its own (`tracer audit --format json`).
    pub stdout_to_stderr: bool,
    /// Record `script` events too (the Debugger domain).
    pub scripts: bool,
    /// Stop the program after this many seconds (exit code 124); positive and finite.
    pub timeout: Option<f64>,
    /// How long a JavaScript target's Node gets to report its inspector.
    pub attach_timeout: f64,
    /// The folder holding `sessions/` and `latest`.
    pub out: PathBuf,
    /// How many sessions to keep in `out`.
    pub keep: usize,
    /// How many events to keep in memory and in the session.
    pub max_events: usize,
    /// The Node executable (else `TRACER_NODE`, else `node` on `PATH`).
    pub node: Option<PathBuf>,
    /// The folder the target and `cwd` must be inside.
    pub workspace: Option<PathBuf>,
    /// The program's working directory.
    pub cwd: Option<PathBuf>,
    /// The program's own exit code instead of tracer's.
    pub program_exit_code: bool,
    /// Patterns whose matches are redacted in stored values.
    pub redact: Vec<String>,
    /// Redact the well-known token shapes too.
    pub default_redact: bool,
    /// No summary on stderr.
    pub quiet: bool,
    /// The session this run re-runs (`tracer verify`).
    pub verifies: Option<String>,
    /// What the audit adds.
    pub extras: Extras,
}

/// What the audit adds to a run.
#[derive(Debug, Default)]
pub struct Extras {
    /// Set in the program's environment, after `TRACER_SESSION`.
    pub env: Vec<(String, String)>,
    /// Run under the no-send guard; the attempts it refused come back in `Traced::network_attempts`.
    pub no_send: bool,
    /// Record the program's host-API accesses with the probe in every realm it creates (the audit
    /// only: it costs a pause per script); the report comes back in `Traced::node_probe`.
    pub node_probe: Option<crate::probe::node::NodeRequest>,
    /// Run the program in the audit's sandbox (`crate::sandbox`), hiding these folders from it.
    pub sandbox: Option<Vec<PathBuf>>,
    /// Put the program in Landlock's scopes (`crate::sandbox::scope`).
    pub scoped: bool,
}

/// What one traced run produced: the exit code `tracer run` returns, the session and the evidence
/// as written.
pub struct Traced {
    pub code: u8,
    pub session: Session,
    pub evidence: Option<Evidence>,
    /// What the no-send guard refused, when the run had one.
    pub network_attempts: Option<Vec<crate::guard::Attempt>>,
    /// What the probe recorded, when it was asked for.
    pub node_probe: Option<crate::probe::node::NodeReport>,
}

/// Traces one run end to end, writes its session and, unless `config.quiet`, prints its summary.
pub fn execute(config: &Config, styles: &Styles) -> Result<Traced> {
    let args = config;
    let extras = &config.extras;
    crate::timings::mark("command line read");
    let plan = plan(args)?;
    crate::timings::mark("target and node found");
    if args.timeout.is_some_and(|t| !(t > 0.0 && t.is_finite())) {
        return Err(TracerError::usage("--timeout must be a positive number of seconds").into());
    }
    let redactor = Redactor::new(args.default_redact, &args.redact)?;
    crate::timings::mark("options checked");
    let store = Store::new(&args.out);
    let stop = Arc::new(AtomicUsize::new(0));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_usize(signal, Arc::clone(&stop), signal as usize)
            .context("installing signal handlers")?;
    }
    // A setup step that fails now ends the program too (it waits for the tracer's release).
    let abandon = |started: Result<Started>| {
        if let Ok(started) = started {
            started.abandon();
        }
    };
    // The program first: the rest of the setup runs while Node starts. Its
    // session's id is in its environment, so the id is chosen first and its folder made right
    // after the spawn. Should another run have taken that id meanwhile (the same millisecond and
    // salt), the program, still held by its bootloader before any of its code, is stopped and
    // started again under an id claimed first.
    let clock = Clock::start();
    let id = store.propose(0);
    let mut started = start(&plan, extras, &id);
    let id = match store.claim(&id) {
        Ok(true) => id,
        Ok(false) => {
            abandon(started);
            let id = store.create()?;
            started = start(&plan, extras, &id);
            id
        }
        Err(e) => {
            abandon(started);
            return Err(e);
        }
    };
    crate::timings::mark("session's folder made");

    let mut session = Session {
        id: id.clone(),
        status: Status::Running,
        runtime: "node".into(),
        target: plan.target_name(),
        args: args
            .args
            .iter()
            .map(|a| redactor.apply(&a.to_string_lossy()).into_owned())
            .collect(),
        cwd: plan.cwd.display().to_string(),
        pid: None,
        started_at: now(),
        ended_at: None,
        exit_code: None,
        signal: None,
        event_count: 0,
        exception_count: 0,
        dropped_events: 0,
        capabilities: Capabilities {
            node_path: plan.node.display().to_string(),
            replay: "timeline".into(),
            ..Capabilities::default()
        },
        stderr_tail: String::new(),
        error: None,
        options: Some(RunOptions {
            workspace: plan.workspace.display().to_string(),
            timeout: args.timeout,
            attach_timeout: args.attach_timeout,
            max_events: args.max_events,
            scripts: args.scripts,
            given_target: Some(args.target.to_string_lossy().into_owned()),
            stdin: Some(crate::process::stdin::kind().to_owned()),
        }),
        verifies: args.verifies.clone(),
        processes: Vec::new(),
        events: Vec::new(),
    };
    if let Err(e) = store.write_json(&id, "session.json", &session) {
        abandon(started);
        return Err(e);
    }
    crate::timings::mark("session started on disk");
    // Retention (`--keep`) runs while Node starts, off the path to the program's first line and
    // to the summary; the run's own session is never among what it removes.
    let retention = {
        let (store, id, keep) = (store.clone(), id.clone(), args.keep.max(1));
        Joined(Some(std::thread::spawn(move || store.retain(keep, &id))))
    };

    let events_file = match store.events_file(&id) {
        Ok(file) => file,
        Err(e) => {
            abandon(started);
            return Err(e);
        }
    };
    let (events, stream) = mpsc::sync_channel::<Box<Event>>(STREAM_BOUND);
    // Set when the tracer's stdout loses its reader (`| head -1`) while it carries the program's
    // own output; the program's stdout is then closed too.
    let stdout_gone = Arc::new(AtomicBool::new(false));
    // Set when the `--ndjson` stream's reader goes away: the stream stops there, and nothing else
    // does (the program's output is events then, not what the reader read).
    let stream_cut = Arc::new(AtomicBool::new(false));
    let sinks = Sinks {
        stdout: args
            .ndjson
            .then(|| StdoutStream::new(Arc::clone(&stream_cut))),
        events_file: Some(EventsFile::new(events_file, args.max_events)),
        log: EventLog::new(args.max_events),
        redactor: redactor.clone(),
        default_redaction: args.default_redact,
    };
    let fan_out = output::fan_out(stream, sinks);
    crate::timings::mark("event stream started");

    let feed = Feed {
        events,
        clock,
        stdout_gone: Arc::clone(&stdout_gone),
        redactor: &redactor,
    };
    let outcome = match started {
        Ok(started) => trace(started, &plan, args, feed, &stop),
        Err(e) => {
            drop(feed);
            Err(Box::new((RunResult::default(), e)))
        }
    };
    crate::timings::mark("traced");
    let (mut run, error) = match outcome {
        Ok(run) => (run, None),
        Err(failed) => {
            let (run, error) = *failed;
            (run, Some(error))
        }
    };
    let network_attempts = run.guard.take().map(crate::guard::Guard::finish);

    // The exit event is always the last one: the sinks get it once the stream has ended (every
    // sender was dropped in `trace`, so the fan-out's thread is done or about to be).
    let mut exit_event = Event::new(Kind::Exit, clock.ms(), "exit");
    if let Some(status) = run.status {
        session.exit_code = status.code();
        session.signal = status.signal().map(signal_name);
        exit_event.detail = match (status.code(), status.signal()) {
            (Some(code), _) => format!("exited with code {code}"),
            (None, Some(n)) => format!("killed by {}", signal_name(n)),
            _ => "exited".into(),
        };
    }
    if let (Some(Ending::TimedOut), Some(timeout)) = (run.ending, args.timeout) {
        exit_event.detail = format!("timed out after {timeout}s, stopped: {}", exit_event.detail);
    }
    exit_event.exit_code = session.exit_code;
    exit_event.signal = session.signal.clone();
    if stdout_gone.load(Ordering::Relaxed) {
        exit_event.note = Some(
            "stdout's reader went away, so the program's stdout was closed too (its writes then fail with EPIPE, as without tracer)"
                .into(),
        );
    } else if stream_cut.load(Ordering::Relaxed) {
        exit_event.note = Some(
            "the --ndjson stream's reader went away, so the stream stopped there; the program ran on, and the session on disk has every event"
                .into(),
        );
    }
    let mapper = Mapper::new(plan.workspace.clone());
    let log = match fan_out.join() {
        Ok(mut fan_out) => {
            // The failed tests the runners reported: events of the stream, before the exit. Read
            // only when the program failed (a run that passed has none), so that a passing run's
            // path from its exit to the summary reads nothing more.
            if exit_event.exit_code.is_some_and(|code| code != 0) {
                let kept: Vec<Event> = fan_out.log().events().cloned().collect();
                let tests = crate::trace::test_report::test_events(
                    &kept,
                    &plan.cwd,
                    &|file| mapper.is_own_code(file),
                    &run.processes,
                    exit_event.ts,
                );
                // What the tests printed where the runner replaced the console (jest, vitest):
                // before the failed tests, as the runner printed it before its failures.
                let printed =
                    crate::trace::test_report::runner_console(&kept, &plan.cwd, &run.processes);
                fan_out.deliver_after(printed);
                fan_out.deliver_after(tests);
            }
            fan_out.finish(exit_event)
        }
        Err(_) => EventLog::new(args.max_events),
    };

    session.exception_count = log.exceptions();
    let (kept, dropped) = log.finish();
    session.event_count = kept.len() as u64;
    session.dropped_events = dropped;
    session.events = kept;
    session.stderr_tail = run.tail.text();
    session.pid = run.pid;
    session.processes = std::mem::take(&mut run.processes);
    // The program is tracer's own child: how it ended is the run's (the tree watches only the
    // processes it did not start).
    if let Some(program) = session.processes.iter_mut().find(|p| p.role == "program") {
        program.exit_code = session.exit_code;
        program.signal.clone_from(&session.signal);
        program.stopped_by_tracer = program.signal.is_some()
            && matches!(run.ending, Some(Ending::TimedOut | Ending::Signalled(_)));
        // Node that ends with a code waits for the debugger to disconnect first: a connection
        // that closed before is the program's doing, and what it did after is not in the trace.
        if let Some(at) = run
            .connection_closed_at
            .filter(|_| program.signal.is_none())
        {
            program.note = Some(format!(
                "{} at {at:.0} ms, before the program ended (it closed its inspector: `inspector.close()`): its console calls, exceptions and scripts after that were not captured",
                crate::trace::session::INSPECTOR_CLOSED
            ));
        }
    }
    session.ended_at = Some(now());
    session.capabilities.node_version = run.probed.node_version.clone();
    session.capabilities.inspector = run.attached;
    session.capabilities.scripts = run.probed.debugger;
    session.capabilities.source_mapping = run.attached;
    session.capabilities.workers = run.probed.workers;
    session.capabilities.forked_children = run.attached;
    session.status = match (&error, run.ending) {
        (Some(_), _) => Status::Error,
        (None, Some(Ending::TimedOut)) => Status::Timeout,
        (None, Some(Ending::Signalled(_))) => Status::Stopped,
        _ if session.failed() => Status::Failed,
        _ => Status::Exited,
    };
    session.error = error.as_ref().map(|e| format!("{e:#}"));

    redactor.apply_mut(&mut session.stderr_tail);
    let evidence = match session.status {
        // Stopped by the user or unable to trace: not a failure of the program.
        Status::Error | Status::Stopped => None,
        _ => evidence::build(&session, &|file| mapper.is_own_code(file), &redactor),
    };
    store.write_json(&id, "session.json", &session)?;
    store.write_json(&id, "evidence.json", &evidence)?;
    store.finish(&id)?;
    crate::timings::mark("session and evidence written");
    drop(retention);
    crate::timings::mark("retention done");

    if !args.quiet {
        human::summary(styles, &session, evidence.as_ref(), &store.dir(&id));
    }
    if let Some(error) = error {
        return Err(error);
    }
    let code = match (session.status, run.ending) {
        (Status::Timeout, _) => exit::TIMEOUT,
        (Status::Stopped, Some(Ending::Signalled(signal))) => exit::for_signal(signal),
        _ if args.program_exit_code => match (session.exit_code, run.status) {
            (Some(code), _) => u8::try_from(code & 0xff).unwrap_or(exit::PROGRAM_FAILED),
            (None, Some(status)) => exit::for_signal(status.signal().unwrap_or(0)),
            (None, None) => exit::PROGRAM_FAILED,
        },
        (Status::Failed, _) => exit::PROGRAM_FAILED,
        _ => exit::SUCCESS,
    };
    Ok(Traced {
        code,
        session,
        evidence,
        network_attempts,
        node_probe: run.node_probe,
    })
}
