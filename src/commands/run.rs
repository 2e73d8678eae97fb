//! `tracer run`: run a Node program under the inspector and trace it, end to end.
//!
//! launch -> pumps + cdp driver -> capture -> event stream -> sinks; then the session, the
//! evidence chain, the summary, and an exit code that says how the run went.

use std::io::{IsTerminal, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::cli::{ExitCodeMode, GlobalArgs, RunArgs};
use crate::error::TracerError;
use crate::exit;
use crate::inspector::cdp::Cdp;
use crate::inspector::driver::{Driver, Ending, Limits, Probed};
use crate::inspector::launch::{self, Launch};
use crate::inspector::pumps::{self, StderrTail, UrlReports};
use crate::output::human::{self, Styles};
use crate::output::ndjson::{EventsFile, StdoutStream};
use crate::output::store::Store;
use crate::output::{self, Sinks, annotations};
use crate::trace::capture::Capture;
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

/// Where and what to run, checked before anything is spawned.
struct Plan {
    workspace: PathBuf,
    target: PathBuf,
    cwd: PathBuf,
    node: PathBuf,
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
    let target = args.target.canonicalize().map_err(|_| {
        TracerError::usage(format!(
            "target {} not found: give the path of a JavaScript file to run",
            args.target.display()
        ))
    })?;
    if !target.is_file() {
        return Err(
            TracerError::usage(format!("target {} is not a file", args.target.display())).into(),
        );
    }
    let cwd_arg = args.cwd.clone().unwrap_or(here);
    let cwd = cwd_arg.canonicalize().map_err(|e| {
        TracerError::usage(format!("--cwd {} cannot be used: {e}", cwd_arg.display()))
    })?;
    for (what, path) in [("target", &target), ("working directory", &cwd)] {
        if !path.starts_with(&workspace) {
            return Err(TracerError::usage(format!(
                "{what} {} is outside the workspace {}: move it inside, or pass --workspace DIR",
                path.display(),
                workspace.display()
            ))
            .into());
        }
    }
    let node = launch::find_node(args.node.as_deref())?;
    Ok(Plan {
        workspace,
        target,
        cwd,
        node,
    })
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
}

pub fn run(args: RunArgs, global: &GlobalArgs, styles: &Styles) -> Result<u8> {
    let traced = execute(&args, &Extras::default(), global, styles, None)?;
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
    let plan = plan(args)?;
    if args.timeout.is_some_and(|t| !(t > 0.0 && t.is_finite())) {
        return Err(TracerError::usage("--timeout must be a positive number of seconds").into());
    }
    let redactor = Redactor::new(!args.no_default_redact, &args.redact)?;
    let store = Store::new(&args.store.out);
    let id = store.create()?;
    let stop = Arc::new(AtomicUsize::new(0));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_usize(signal, Arc::clone(&stop), signal as usize)
            .context("installing signal handlers")?;
    }

    let mut session = Session {
        id: id.clone(),
        status: Status::Running,
        runtime: "node".into(),
        target: plan.target.display().to_string(),
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
        }),
        verifies,
        events: Vec::new(),
    };
    store.write_json(&id, "session.json", &session)?;

    let clock = Clock::start();
    let (events, stream) = mpsc::sync_channel::<Event>(STREAM_BOUND);
    // Set when the tracer's stdout loses its reader (`| head -1`); the program's stdout is then
    // closed too.
    let stdout_gone = Arc::new(AtomicBool::new(false));
    let sinks = Sinks {
        stdout: args
            .ndjson
            .then(|| StdoutStream::new(Arc::clone(&stdout_gone))),
        events_file: Some(EventsFile::new(store.events_file(&id)?, args.max_events)),
        log: EventLog::new(args.max_events),
        redactor: redactor.clone(),
        default_redaction: !args.no_default_redact,
    };
    let fan_out = output::fan_out(stream, sinks);

    let feed = Feed {
        events: &events,
        clock,
        stdout_gone: Arc::clone(&stdout_gone),
    };
    let outcome = trace(&plan, args, extras, &id, feed, &stop);
    let (mut run, error) = match outcome {
        Ok(run) => (run, None),
        Err(failed) => {
            let (run, error) = *failed;
            (run, Some(error))
        }
    };
    let network_attempts = run.guard.take().map(crate::guard::Guard::finish);

    // The exit event is always the last one: the sinks stop at it.
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
    }
    let _ = events.send(exit_event);
    drop(events);
    let log = fan_out
        .join()
        .unwrap_or_else(|_| EventLog::new(args.max_events));

    session.exception_count = log.exceptions();
    let (kept, dropped) = log.finish();
    session.event_count = kept.len() as u64;
    session.dropped_events = dropped;
    session.events = kept;
    session.stderr_tail = run.tail.text();
    session.pid = run.pid;
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
    let mapper = Mapper::new(plan.workspace.clone());
    let evidence = match session.status {
        // Stopped by the user or unable to trace: not a failure of the program.
        Status::Error | Status::Stopped => None,
        _ => evidence::build(&session, &|file| mapper.is_own_code(file), &redactor),
    };
    store.write_json(&id, "session.json", &session)?;
    store.write_json(&id, "evidence.json", &evidence)?;
    store.finish(&id)?;
    store.retain(args.keep.max(1));

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
}

/// Where a run's captured events go: the stream, its clock, and the flag that says the tracer's
/// stdout lost its reader.
struct Feed<'a> {
    events: &'a SyncSender<Event>,
    clock: Clock,
    stdout_gone: Arc<AtomicBool>,
}

/// Spawns, attaches, drives and stops the program. On error the partial result comes back too, so
/// nothing already captured is lost.
fn trace(
    plan: &Plan,
    args: &RunArgs,
    extras: &Extras,
    id: &str,
    feed: Feed<'_>,
    stop: &AtomicUsize,
) -> std::result::Result<RunResult, Box<(RunResult, anyhow::Error)>> {
    let Feed {
        events,
        clock,
        stdout_gone,
    } = feed;
    let mut result = RunResult::default();
    let stdin_is_terminal = std::io::stdin().is_terminal();
    let launch = Launch {
        node: &plan.node,
        target: &plan.target,
        args: &args.args,
        cwd: &plan.cwd,
        session_id: id,
        env: &extras.env,
        no_send: extras.no_send,
        inherit_stdin: !stdin_is_terminal,
    };
    let (mut child, guard) = match launch::spawn(&launch) {
        Ok(spawned) => spawned,
        Err(e) => return Err(Box::new((result, e.into()))),
    };
    result.guard = guard;
    let pgid = child.id();
    result.pid = Some(pgid);
    // Kills the group if the tracer itself is killed; says goodbye when this function returns.
    let _watchdog = launch::Watchdog::start(pgid).ok();
    if let Some(stdin) = child.stdin.take() {
        forward_stdin(stdin);
    }
    let (program_url_tx, program_url) = mpsc::channel();
    let (children_tx, children_urls) = mpsc::channel();
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
            UrlReports {
                program: program_url_tx,
                children: children_tx,
            },
            result.tail.clone(),
        ),
    ];

    let mut finish =
        |result: &mut RunResult, child: &mut std::process::Child, first_signal: Option<i32>| {
            if let Some(signal) = first_signal {
                launch::stop_group(pgid, signal, STOP_GRACE);
            }
            result.status = match launch::wait_for(child, EXIT_GRACE) {
                Ok(Some(status)) => Some(status),
                _ => {
                    launch::stop_group(pgid, libc::SIGKILL, STOP_GRACE);
                    child.wait().ok()
                }
            };
            // Nothing the program started outlives the run.
            launch::stop_group(pgid, libc::SIGTERM, Duration::from_millis(500));
            pumps::finish(std::mem::take(&mut pump_threads), DRAIN_GRACE);
        };

    let attach_deadline = Instant::now() + Duration::from_secs_f64(args.attach_timeout.max(0.1));
    let url = match wait_for_url(&program_url, &mut child, attach_deadline, stop) {
        Ok(url) => url,
        Err(e) => {
            finish(&mut result, &mut child, Some(libc::SIGKILL));
            let tail = result.tail.text();
            let e = if tail.trim().is_empty() {
                e
            } else {
                e.context(format!("Node's stderr ended with:\n{}", tail.trim_end()))
            };
            return Err(Box::new((result, e)));
        }
    };
    let mut cdp = match Cdp::connect(&url) {
        Ok(cdp) => cdp,
        Err(e) => {
            finish(&mut result, &mut child, Some(libc::SIGKILL));
            let e = e.context("attaching to the inspector failed");
            return Err(Box::new((
                result,
                TracerError::cannot_trace(format!("{e:#}")).into(),
            )));
        }
    };
    result.attached = true;
    release_children(
        children_urls,
        url.clone(),
        plan.workspace.clone(),
        events.clone(),
        clock,
        // Under the no-send guard, a URL a child printed is attached to only when the port is a
        // listener of the program's own tree.
        extras.no_send.then_some(pgid),
    );

    let deadline = args
        .timeout
        .map(|t| Instant::now() + Duration::from_secs_f64(t));
    let mut capture = Capture::new(
        Mapper::new(plan.workspace.clone()),
        events.clone(),
        clock,
        None,
    )
    .with_script_events(args.scripts);
    // The Debugger domain costs ~30 ms at start-up (V8 in debug mode): paid only when script
    // events are asked for, or when the tool needs pauses (the audit's probe).
    // It is also paid when a loader may have transformed the code (`--import tsx`, a `.ts`
    // target): the runtime's `scriptParsed` carries the source maps the loader registered.
    let node_options = std::env::var("NODE_OPTIONS").ok();
    let debugger = args.scripts
        || extras.node_probe.is_some()
        || launch::loader_likely(&plan.target, node_options.as_deref());
    let mut node_probe = None;
    let skip_pauses = extras.node_probe.is_none();
    let read = Driver::start(&mut cdp, debugger, skip_pauses).and_then(|mut driver| {
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
            launch::signal_group(pgid, signal);
            let limits = Limits {
                deadline: Some(Instant::now() + STOP_GRACE),
                stop: Some(stop),
            };
            match driver.read_until(&mut cdp, &mut capture, &limits)? {
                Ending::Finished | Ending::Closed => {}
                Ending::TimedOut | Ending::Signalled(_) => {
                    launch::signal_group(pgid, libc::SIGKILL);
                }
            }
        }
        node_probe = driver.take_node_probe();
        Ok((ending, driver.probed().clone()))
    });
    result.node_probe = node_probe;
    cdp.close();
    match read {
        Ok((ending, probed)) => {
            result.ending = Some(ending);
            result.probed = probed;
            finish(&mut result, &mut child, None);
        }
        Err(e) => {
            finish(&mut result, &mut child, Some(libc::SIGTERM));
            return Err(Box::new((result, e)));
        }
    }
    Ok(result)
}

/// Waits for the program's inspector URL on its stderr.
fn wait_for_url(
    urls: &Receiver<String>,
    child: &mut std::process::Child,
    deadline: Instant,
    stop: &AtomicUsize,
) -> Result<String> {
    loop {
        match urls.recv_timeout(Duration::from_millis(5)) {
            Ok(url) => {
                crate::inspector::cdp::loopback_address(&url)
                    .map_err(|e| TracerError::cannot_trace(format!("{e:#}")))?;
                return Ok(url);
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(TracerError::cannot_trace(
                    "Node closed its stderr without printing an inspector URL: is it a working Node.js 20+?",
                )
                .into());
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let Ok(Some(status)) = child.try_wait() {
            // The URL may still be in the pipe.
            if let Ok(url) = urls.recv_timeout(Duration::from_millis(200)) {
                return Ok(url);
            }
            return Err(TracerError::cannot_trace(format!(
                "Node exited ({status}) before its inspector started: check --node and NODE_OPTIONS"
            ))
            .into());
        }
        if stop.load(std::sync::atomic::Ordering::Relaxed) != 0 {
            return Err(
                TracerError::cannot_trace("interrupted before the inspector started").into(),
            );
        }
        if Instant::now() >= deadline {
            return Err(TracerError::cannot_trace(
                "Node printed no inspector URL in time (see --attach-timeout): is it a working Node.js 20+?",
            )
            .into());
        }
    }
}

/// Forked Node children inherit `--inspect-brk` and wait for a debugger; each one that prints its
/// URL on the shared stderr is attached, traced as `child N` and released.
fn release_children(
    urls: Receiver<String>,
    program_url: String,
    workspace: PathBuf,
    events: SyncSender<Event>,
    clock: Clock,
    own_listeners_of: Option<u32>,
) {
    std::thread::spawn(move || {
        // A program can print a fake `Debugger listening on …` line; its own inspector's URL is
        // never attached twice, and under the guard only a port the tree listens on is.
        let children = urls
            .into_iter()
            .filter(|url| *url != program_url)
            .filter(|url| {
                own_listeners_of.is_none_or(|pgid| {
                    crate::inspector::cdp::loopback_address(url)
                        .is_ok_and(|addr| launch::group_listens_on(pgid, addr.port()))
                })
            });
        // Numbered in the order they attach: a URL that cannot be attached (a fake line, a
        // refused host) takes no number.
        let attached = Arc::new(AtomicUsize::new(0));
        for url in children {
            let events = events.clone();
            let workspace = workspace.clone();
            let attached = Arc::clone(&attached);
            std::thread::spawn(move || {
                let Ok(mut cdp) = Cdp::connect(&url) else {
                    return;
                };
                let n = attached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let label = format!("child {}", n + 1);
                let mut capture = Capture::new(Mapper::new(workspace), events, clock, Some(label))
                    .with_script_events(false);
                let never = Limits {
                    deadline: None,
                    stop: None,
                };
                if let Ok(mut driver) = Driver::start(&mut cdp, false, true) {
                    let _ = driver.read_until(&mut cdp, &mut capture, &never);
                }
                cdp.close();
            });
        }
    });
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
