//! `tracer run`: run a Node program under the inspector and trace it, end to end.
//!
//! launch -> pumps + cdp driver -> capture -> event stream -> sinks; then the session, the
//! evidence chain, the summary, and an exit code that says how the run went.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::cli::{ExitCodeMode, GlobalArgs, RunArgs};
use crate::error::TracerError;
use crate::exit;
use crate::inspector::boot::Channel;
use crate::inspector::cdp::Cdp;
use crate::inspector::driver::{Driver, Ending, Limits, Probed};
use crate::inspector::launch::{self, Launch};
use crate::inspector::pumps::{self, StderrTail};
use crate::inspector::tree::{RootSignal, Tree, TreeConfig};
use crate::output::human::{self, Styles};
use crate::output::ndjson::{EventsFile, StdoutStream};
use crate::output::store::Store;
use crate::output::{self, Sinks, annotations};
use crate::process::watchdog::Watchdog;
use crate::process::{find, group, node_options};
use crate::trace::capture::Capture;
use crate::trace::event::{Clock, Event, EventSender, Kind};
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

/// Where and what to run, checked before anything is spawned.
struct Plan {
    workspace: PathBuf,
    /// The JavaScript file Node runs (`tracer run app.js`, `tracer run .`); none for a command.
    target: Option<PathBuf>,
    /// What tracer starts: Node, or the command.
    program: PathBuf,
    /// Its arguments: for Node, the shebang's flags, the target and the program's arguments.
    argv: Vec<OsString>,
    cwd: PathBuf,
    node: PathBuf,
}

impl Plan {
    /// What the session names as the target: the file, or the command as it was found.
    fn target_name(&self) -> String {
        self.target
            .as_ref()
            .unwrap_or(&self.program)
            .display()
            .to_string()
    }
}

/// What `TARGET` turned out to be.
enum Target {
    /// A file Node runs, with the flags of its `#!` line (`#!/usr/bin/env -S node --flag`).
    Script {
        file: PathBuf,
        node_flags: Vec<OsString>,
    },
    /// An executable that is not a Node script: a shell script, npm, node itself.
    Command(PathBuf),
}

fn plan(args: &RunArgs) -> Result<Plan> {
    let here = std::env::current_dir().context("reading the current directory")?;
    let workspace_arg = args.workspace.clone().unwrap_or_else(|| here.clone());
    let workspace = workspace_arg.canonicalize().map_err(|e| {
        TracerError::usage(format!(
            "workspace {} cannot be used: {e}",
            workspace_arg.display()
        ))
    })?;
    let cwd_arg = args.cwd.clone().unwrap_or(here);
    let cwd = cwd_arg.canonicalize().map_err(|e| {
        TracerError::usage(format!("--cwd {} cannot be used: {e}", cwd_arg.display()))
    })?;
    let target = resolve_target(&args.target, &workspace)?;
    if let Target::Script { file, .. } = &target
        && !file.starts_with(&workspace)
    {
        return Err(TracerError::usage(format!(
            "target {} is outside the workspace {}: move it inside, or pass --workspace DIR",
            file.display(),
            workspace.display()
        ))
        .into());
    }
    if !cwd.starts_with(&workspace) {
        return Err(TracerError::usage(format!(
            "working directory {} is outside the workspace {}: move it inside, or pass --workspace DIR",
            cwd.display(),
            workspace.display()
        ))
        .into());
    }
    let node = find::find_node(args.node.as_deref())?;
    let (target, program, argv) = match target {
        Target::Script { file, node_flags } => {
            let mut argv = node_flags;
            argv.push(file.clone().into_os_string());
            argv.extend(args.args.iter().cloned());
            (Some(file), node.clone(), argv)
        }
        Target::Command(program) => (None, program, args.args.clone()),
    };
    Ok(Plan {
        workspace,
        target,
        program,
        argv,
        cwd,
        node,
    })
}

/// `TARGET`: a JavaScript file; a package folder (its `main`); an executable file whose `#!` line
/// does not name Node (a shell script, a `.bin` shim), or that lies outside the workspace
/// (`/usr/bin/npm`, as `tracer verify` gives it again: run as it is, its Node traced all the same);
/// else a command on `PATH` (`npm`, `node`).
fn resolve_target(given: &Path, workspace: &Path) -> Result<Target> {
    if let Ok(path) = given.canonicalize() {
        if path.is_dir() {
            return package_main(&path, given).map(|file| Target::Script {
                file,
                node_flags: Vec::new(),
            });
        }
        if path.is_file() {
            return Ok(match shebang(&path) {
                Shebang::Node(_) if !path.starts_with(workspace) && is_executable(&path) => {
                    Target::Command(path)
                }
                Shebang::Node(node_flags) => Target::Script {
                    file: path,
                    node_flags,
                },
                Shebang::Other if is_executable(&path) => Target::Command(path),
                Shebang::Other | Shebang::None => Target::Script {
                    file: path,
                    node_flags: Vec::new(),
                },
            });
        }
    }
    let name = given.as_os_str();
    if given.components().count() == 1
        && !name.to_string_lossy().starts_with('-')
        && let Some(found) = find::search_path(name)
    {
        return Ok(Target::Command(found));
    }
    let shown = given.display();
    let hint = if name.to_string_lossy().starts_with('-') {
        format!(
            "`{shown}` is a flag, not a target: for Node's own flags, run `tracer run [OPTIONS] -- node {shown} …`"
        )
    } else {
        format!(
            "target {shown} not found: give a JavaScript file, a package folder, or a command on PATH (`tracer run -- npm test`)"
        )
    };
    Err(TracerError::usage(hint).into())
}

/// A package folder's entry: `main` in its `package.json`, else `index.js`.
fn package_main(dir: &Path, given: &Path) -> Result<PathBuf> {
    let manifest = dir.join("package.json");
    let main = match crate::files::read_capped(&manifest, 1 << 20) {
        Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
            .map_err(|e| {
                TracerError::usage(format!(
                    "{}: not valid JSON ({e}): fix it, or give the program's file instead of the folder",
                    manifest.display()
                ))
            })?
            .get("main")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
        Err(_) => None,
    };
    let entry = main.unwrap_or_else(|| "index.js".to_owned());
    let candidates = [
        dir.join(&entry),
        dir.join(format!("{entry}.js")),
        dir.join(&entry).join("index.js"),
    ];
    candidates
        .iter()
        .find(|c| c.is_file())
        .and_then(|c| c.canonicalize().ok())
        .ok_or_else(|| {
            TracerError::usage(format!(
                "{} is a folder and its entry `{entry}` (package.json's `main`, else index.js) is not a file: give the program's file",
                given.display()
            ))
            .into()
        })
}

enum Shebang {
    /// `#!…node [flags]`: the flags.
    Node(Vec<OsString>),
    /// `#!` naming another interpreter.
    Other,
    None,
}

/// The file's `#!` line: whether it runs Node, and with which flags.
fn shebang(file: &Path) -> Shebang {
    let Ok(mut opened) = crate::files::open_regular(file) else {
        return Shebang::None;
    };
    let mut head = [0u8; 512];
    let n = opened.read(&mut head).unwrap_or(0);
    let Some(line) = head[..n].strip_prefix(b"#!") else {
        return Shebang::None;
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let words: Vec<&str> = line.split_whitespace().collect();
    let is_node = |w: &&str| {
        let base = w.rsplit('/').next().unwrap_or(w);
        base == "node" || base == "nodejs"
    };
    match words.iter().position(is_node) {
        Some(at) => Shebang::Node(
            words[at + 1..]
                .iter()
                .take_while(|w| w.starts_with('-'))
                .map(OsString::from)
                .collect(),
        ),
        None => Shebang::Other,
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

/// What another command adds to a run (the audit: its environment variables).
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

pub fn run(args: RunArgs, global: &GlobalArgs, styles: &Styles) -> Result<u8> {
    let traced = execute(&args, &Extras::default(), global, styles, None);
    crate::timings::mark("summary printed");
    crate::timings::print();
    let traced = traced?;
    if let Some(format) = annotations::wanted(args.annotations) {
        annotations::print(format, traced.evidence.as_ref(), args.ndjson);
    }
    Ok(traced.code)
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

/// Traces one run end to end and writes its session. `extras` are what another command adds (the
/// audit's environment); `verifies` links the new session to the one it re-runs (`tracer verify`).
pub fn execute(
    args: &RunArgs,
    extras: &Extras,
    global: &GlobalArgs,
    styles: &Styles,
    verifies: Option<String>,
) -> Result<Traced> {
    crate::timings::mark("command line read");
    let plan = plan(args)?;
    crate::timings::mark("target and node found");
    if args.timeout.is_some_and(|t| !(t > 0.0 && t.is_finite())) {
        return Err(TracerError::usage("--timeout must be a positive number of seconds").into());
    }
    let redactor = Redactor::new(!args.no_default_redact, &args.redact)?;
    crate::timings::mark("options checked");
    let store = Store::new(&args.store.out);
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
        }),
        verifies,
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
        default_redaction: !args.no_default_redact,
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
        Ok(started) => trace(started, &plan, args, extras, feed, &stop),
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

    if !global.quiet {
        human::summary(styles, &session, evidence.as_ref(), &store.dir(&id));
    }
    if let Some(error) = error {
        return Err(error);
    }
    let code = match (session.status, run.ending) {
        (Status::Timeout, _) => exit::TIMEOUT,
        (Status::Stopped, Some(Ending::Signalled(signal))) => exit::for_signal(signal),
        _ if args.exit_code == ExitCodeMode::Child => match (session.exit_code, run.status) {
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

/// A thread that is waited for when this goes out of scope, on every path: tracer never exits
/// in the middle of its work (retention halfway through removing a folder).
struct Joined(Option<std::thread::JoinHandle<()>>);

impl Drop for Joined {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take() {
            let _ = thread.join();
        }
    }
}

/// What the traced run produced, whether or not it ended cleanly.
#[derive(Default)]
struct RunResult {
    status: Option<ExitStatus>,
    ending: Option<Ending>,
    probed: Probed,
    attached: bool,
    pid: Option<u32>,
    tail: StderrTail,
    /// The no-send guard, when one was asked for; finished once the program is gone.
    guard: Option<crate::guard::Guard>,
    node_probe: Option<crate::probe::node::NodeReport>,
    /// The tree's tracks, as the bootloader's channel reported them.
    processes: Vec<crate::trace::session::Process>,
    /// Told goodbye once the tree is done; reaped when this is dropped, by then long gone.
    watchdog: Option<Watchdog>,
}

/// Where a run's captured events go: the stream, its clock, and the flag that says the tracer's
/// stdout lost its reader. The stream's sending half is the run's: `trace` drops it (and every
/// clone) once the program is gone, which ends the stream.
struct Feed<'a> {
    events: EventSender,
    clock: Clock,
    stdout_gone: Arc<AtomicBool>,
    /// What the tree's process list (its `argv`) goes through, as every stored value does.
    redactor: &'a Redactor,
}

/// The program, spawned with the bootloader's channel open, before anything else of the run is
/// set up: what `execute` does next (the session's first write, the event stream) runs while Node
/// starts.
struct Started {
    channel: Channel,
    reader: std::thread::JoinHandle<()>,
    reports: Receiver<crate::inspector::boot::Report>,
    child: crate::process::spawn::Program,
    guard: Option<crate::guard::Guard>,
    /// Kills the group if the tracer itself is killed; says goodbye when dropped.
    watchdog: Option<Watchdog>,
    /// The `NODE_OPTIONS` tracer was given.
    user_options: Option<String>,
}

impl Started {
    /// Ends the program when the run cannot go on before it was attached to.
    fn abandon(mut self) {
        group::stop_group(self.child.id(), libc::SIGKILL, STOP_GRACE);
        let _ = self.child.wait();
        self.channel.close();
        let _ = self.reader.join();
    }
}

/// Makes the bootloader's channel and spawns the program under it.
fn start(plan: &Plan, extras: &Extras, id: &str) -> Result<Started> {
    let channel = Channel::create().map_err(|e| {
        TracerError::cannot_trace(format!(
            "could not make the bootloader's private folder {e}"
        ))
    })?;
    crate::timings::mark("bootloader's channel made");
    let user_options = std::env::var("NODE_OPTIONS").ok();
    let mut env = channel.env(user_options.as_deref());
    env.extend(extras.env.iter().cloned());
    let stdin_is_terminal = std::io::stdin().is_terminal();
    let launch = Launch {
        program: &plan.program,
        args: &plan.argv,
        cwd: &plan.cwd,
        session_id: id,
        env: &env,
        no_send: extras.no_send,
        inherit_stdin: !stdin_is_terminal,
        sandbox: extras.sandbox.as_deref(),
        channel_fd: Some(channel.command_end()),
        scoped: extras.scoped,
    };
    let (report_tx, reports) = mpsc::channel();
    let reader = channel.open_reader().map_err(|e| {
        TracerError::cannot_trace(format!("could not open the bootloader's channel: {e}"))
    })?;
    crate::timings::mark("channel opened");
    let (child, guard) = launch::spawn(&launch)?;
    crate::timings::mark("spawned");
    // Its thread starts once the program is spawned (the program reports tens of milliseconds
    // later at the earliest; the channel is open, so its bootloader finds a reader).
    let reader = reader.listen(report_tx);
    let watchdog = Watchdog::start(
        child.id(),
        Some(channel.verifier().marker()),
        &channel.leftovers(),
    )
    .ok();
    Ok(Started {
        channel,
        reader,
        reports,
        child,
        guard,
        watchdog,
        user_options,
    })
}

/// Attaches to, drives and stops the program `start` spawned. On error the partial result comes
/// back too, so nothing already captured is lost.
fn trace(
    started: Started,
    plan: &Plan,
    args: &RunArgs,
    extras: &Extras,
    feed: Feed<'_>,
    stop: &AtomicUsize,
) -> std::result::Result<RunResult, Box<(RunResult, anyhow::Error)>> {
    let Feed {
        events,
        clock,
        stdout_gone,
        redactor,
    } = feed;
    let Started {
        channel,
        reader,
        reports,
        mut child,
        guard,
        mut watchdog,
        user_options,
    } = started;
    let mut result = RunResult::default();
    let verifier = channel.verifier().with_node(&plan.node);
    result.guard = guard;
    let pgid = child.id();
    result.pid = Some(pgid);
    if let Some(stdin) = child.stdin.take() {
        forward_stdin(stdin);
    }
    let mut pump_threads = vec![
        pumps::pump_stdout(
            child.stdout.take().expect("piped stdout"),
            !args.ndjson,
            events.clone(),
            clock,
            stdout_gone,
        ),
        pumps::pump_stderr(
            child.stderr.take().expect("piped stderr"),
            true,
            events.clone(),
            clock,
            result.tail.clone(),
        ),
    ];
    // The Debugger domain costs ~30 ms at start-up (V8 in debug mode): paid only when script
    // events are asked for, or when the tool needs pauses (the audit's probe).
    // It is also paid when a loader may have transformed the code (`--import tsx`, a `.ts`
    // target): the runtime's `scriptParsed` carries the source maps the loader registered.
    let loader = node_options::loader_likely(
        plan.target.as_deref().unwrap_or(Path::new("command.js")),
        user_options.as_deref(),
    );
    let debugger = args.scripts || extras.node_probe.is_some() || loader;
    // Console calls in batches through the bootloader, unless the audit's probe measures the
    // program (its realms stay exactly Node's) or TRACER_CONSOLE_CAPTURE=inspector asks for the
    // inspector's own reports (one protocol message per call; see docs/performance.md).
    let console_batches = extras.node_probe.is_none()
        && std::env::var_os(CONSOLE_CAPTURE_ENV).is_none_or(|v| v != "inspector");
    let (root_tx, root_signals) = mpsc::channel();
    // The root's end wakes the wait for its report at once (`RootSignal::Ended`), not at the
    // wait's next tick.
    let ended_tx = root_tx.clone();
    group::notify_exit(pgid, move || {
        let _ = ended_tx.send(RootSignal::Ended);
    });
    let tree = Tree::start(
        reports,
        TreeConfig {
            // In a sandbox, the program is the sandbox's, not tracer's child (the helper).
            root_pid: crate::sandbox::current().map_or(pgid, crate::sandbox::Sandbox::program),
            verifier: verifier.clone(),
            workspace: plan.workspace.clone(),
            events: events.clone(),
            clock,
            redactor: redactor.clone(),
            debugger: args.scripts || loader,
            console_batches,
        },
        root_tx,
    );

    let mut finish = |result: &mut RunResult,
                      child: &mut crate::process::spawn::Program,
                      first_signal: Option<i32>| {
        if let Some(signal) = first_signal {
            tree.signal_all(&verifier, signal);
            group::stop_group(pgid, signal, STOP_GRACE);
        }
        result.status = match group::wait_for(child, EXIT_GRACE) {
            Ok(Some(status)) => Some(status),
            _ => {
                group::stop_group(pgid, libc::SIGKILL, STOP_GRACE);
                child.wait().ok()
            }
        };
        crate::timings::mark("program reaped");
        // Nothing the command started outlives the run, in its process group or out of it.
        group::stop_group(pgid, libc::SIGTERM, Duration::from_millis(500));
        tree.stop_leftovers(&verifier, Duration::from_millis(500));
        crate::timings::mark("group and tree stopped");
        pumps::finish(std::mem::take(&mut pump_threads), DRAIN_GRACE);
    };
    let deadline = args
        .timeout
        .map(|t| Instant::now() + Duration::from_secs_f64(t));
    // A script run by Node must report within --attach-timeout; a command may never start Node.
    let attach_deadline = plan
        .target
        .is_some()
        .then(|| Instant::now() + Duration::from_secs_f64(args.attach_timeout.max(0.1)));

    crate::inspector::cdp::warm_up();
    let ended = match wait_for_root(&root_signals, &mut child, attach_deadline, deadline, stop) {
        Ok(ended) => ended,
        Err(e) => {
            finish(&mut result, &mut child, Some(libc::SIGKILL));
            let tail = result.tail.text();
            let e = if tail.trim().is_empty() {
                e
            } else {
                e.context(format!(
                    "the program's stderr ended with:\n{}",
                    tail.trim_end()
                ))
            };
            channel.close();
            let _ = reader.join();
            result.processes = tree.finish(DRAIN_GRACE);
            return Err(Box::new((result, e)));
        }
    };
    crate::timings::mark("program reported");
    let (url, announces) = match ended {
        RootWait::Listening { url, announces } => (url, announces),
        RootWait::Ended(ending) => {
            // The command is not a Node process itself (a shell, npm): its Node processes are
            // the tree's; this thread only sees it end.
            let first_signal = match ending {
                Ending::TimedOut => Some(libc::SIGTERM),
                Ending::Signalled(signal) => Some(signal),
                Ending::Finished | Ending::Closed => None,
            };
            finish(&mut result, &mut child, first_signal);
            result.ending = Some(ending);
            channel.close();
            let _ = reader.join();
            result.attached = tree.attached_any();
            result.probed.node_version = tree.node_version();
            result.probed.workers = tree.workers_probed();
            result.processes = tree.finish(DRAIN_GRACE);
            return Ok(result);
        }
    };
    let mut cdp = match Cdp::connect(&url) {
        Ok(cdp) => cdp,
        Err(e) => {
            finish(&mut result, &mut child, Some(libc::SIGKILL));
            channel.close();
            let _ = reader.join();
            result.processes = tree.finish(DRAIN_GRACE);
            let e = e.context("attaching to the inspector failed");
            return Err(Box::new((
                result,
                TracerError::cannot_trace(format!("{e:#}")).into(),
            )));
        }
    };
    result.attached = true;
    crate::timings::mark("attached");

    let mut capture = Capture::new(
        Mapper::new(plan.workspace.clone()),
        events.clone(),
        clock,
        None,
    )
    .with_script_events(args.scripts);
    let mut node_probe = None;
    let skip_pauses = extras.node_probe.is_none();
    let read = Driver::start(
        &mut cdp,
        debugger,
        skip_pauses,
        tree.node_version(),
        announces,
    )
    .and_then(|mut driver| {
        if console_batches {
            driver.capture_console_in_batches(&mut cdp)?;
        }
        if let Some(request) = &extras.node_probe {
            driver.set_node_probe(crate::probe::node::NodeProbe::new(request.clone()));
        }
        let limits = Limits {
            deadline,
            stop: Some(stop),
        };
        let ending = driver.read_until(&mut cdp, &mut capture, &limits)?;
        if let Some(signal) = match ending {
            Ending::TimedOut => Some(libc::SIGTERM),
            Ending::Signalled(signal) => Some(signal),
            Ending::Finished | Ending::Closed => None,
        } {
            // Ask the program to stop and keep capturing while it winds down; a second signal to
            // the tracer, or the end of the grace period, kills it.
            stop.store(0, std::sync::atomic::Ordering::Relaxed);
            group::signal_group(pgid, signal);
            tree.signal_all(&verifier, signal);
            let limits = Limits {
                deadline: Some(Instant::now() + STOP_GRACE),
                stop: Some(stop),
            };
            match driver.read_until(&mut cdp, &mut capture, &limits)? {
                Ending::Finished | Ending::Closed => {}
                Ending::TimedOut | Ending::Signalled(_) => {
                    group::signal_group(pgid, libc::SIGKILL);
                }
            }
        }
        node_probe = driver.take_node_probe();
        Ok((ending, driver.probed().clone()))
    });
    result.node_probe = node_probe;
    crate::timings::mark("program finished");
    cdp.close();
    crate::timings::mark("inspector connection closed");
    // Nothing more is captured: the stream ends once the pumps and the tree are done with it.
    drop(capture);
    drop(events);
    let outcome = match read {
        Ok((ending, probed)) => {
            result.ending = Some(ending);
            result.probed = probed;
            finish(&mut result, &mut child, None);
            None
        }
        Err(e) => {
            finish(&mut result, &mut child, Some(libc::SIGTERM));
            Some(e)
        }
    };
    crate::timings::mark("program exited, group stopped, pipes drained");
    channel.close();
    let _ = reader.join();
    result.processes = tree.finish(DRAIN_GRACE);
    crate::timings::mark("tree finished");
    // Nothing of the run is left to guard: the watchdog exits now, and is reaped with the result.
    if let Some(watchdog) = watchdog.as_mut() {
        watchdog.goodbye();
    }
    result.watchdog = watchdog;
    // The channel's folder, in memory where it can be (`boot::parent`), is removed here, on this
    // thread: removing it in memory costs less than starting a thread to do it beside the
    // session's writes (figures: docs/performance.md).
    drop(channel);
    match outcome {
        None => Ok(result),
        Some(e) => Err(Box::new((result, e))),
    }
}

/// How waiting for the program's own report ended.
enum RootWait {
    /// The program is Node and its inspector listens at `url` (checked); `announces`: see
    /// `boot::Report::announces`.
    Listening { url: String, announces: bool },
    /// The command ended (or was stopped) without being a Node process itself.
    Ended(Ending),
}

/// Waits for the program's own report on the bootloader's channel, or for the command to end.
/// `attach_deadline` (a script Node runs): it must report by then, unless it reports that it is a
/// launcher (a package manager's own Node process, run as a script: `node_modules/.bin/pnpm`),
/// which is then waited for as a command that is not Node.
fn wait_for_root(
    signals: &Receiver<RootSignal>,
    child: &mut crate::process::spawn::Program,
    mut attach_deadline: Option<Instant>,
    deadline: Option<Instant>,
    stop: &AtomicUsize,
) -> Result<RootWait> {
    loop {
        match signals.recv_timeout(Duration::from_millis(5)) {
            Ok(RootSignal::Listening { url, announces }) => {
                return Ok(RootWait::Listening { url, announces });
            }
            Ok(RootSignal::Launcher) => attach_deadline = None,
            // The command ended (`group::notify_exit`): seen below.
            Ok(RootSignal::Ended) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(TracerError::cannot_trace(
                    "the bootloader's channel closed before the program reported",
                )
                .into());
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let Ok(Some(status)) = child.try_wait() {
            // A Node program that reported waits to be released: it cannot have exited since.
            for signal in signals.try_iter() {
                match signal {
                    RootSignal::Listening { url, announces } => {
                        return Ok(RootWait::Listening { url, announces });
                    }
                    RootSignal::Launcher => attach_deadline = None,
                    RootSignal::Ended => {}
                }
            }
            if attach_deadline.is_some() {
                return Err(TracerError::cannot_trace(format!(
                    "Node exited ({status}) before its inspector started: check --node and NODE_OPTIONS"
                ))
                .into());
            }
            return Ok(RootWait::Ended(Ending::Closed));
        }
        let signal = stop.load(std::sync::atomic::Ordering::Relaxed);
        if signal != 0 {
            if attach_deadline.is_some() {
                return Err(
                    TracerError::cannot_trace("interrupted before the inspector started").into(),
                );
            }
            return Ok(RootWait::Ended(Ending::Signalled(signal as i32)));
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(RootWait::Ended(Ending::TimedOut));
        }
        if attach_deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(TracerError::cannot_trace(
                "Node's inspector did not report in time (see --attach-timeout): is it a working Node.js 20+, and does NODE_OPTIONS reach it?",
            )
            .into());
        }
    }
}

/// Copies a terminal stdin to the program's stdin pipe. (The program runs in its own process group,
/// so it must not read the terminal itself.)
fn forward_stdin(mut pipe: std::process::ChildStdin) {
    std::thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        let mut stdin = std::io::stdin();
        while let Ok(n) = stdin.read(&mut buffer) {
            if n == 0 || pipe.write_all(&buffer[..n]).is_err() {
                break;
            }
        }
    });
}

fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// `SIGTERM` for 15, and so on.
pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGUSR2 => "SIGUSR2",
        _ => return format!("signal {signal}"),
    };
    name.to_owned()
}
