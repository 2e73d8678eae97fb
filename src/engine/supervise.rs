//! Starting, driving and stopping the traced program: the bootloader's channel, the spawn under
//! the watchdog, the wait for the program's report, the attach, the process tree, and the one
//! teardown every way out goes through.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::plan::Plan;
use super::pumps::{self, StderrTail};
use super::{CONSOLE_CAPTURE_ENV, Config, DRAIN_GRACE, EXIT_GRACE, Extras, STOP_GRACE};
use crate::engine::tree::{RootSignal, Tree, TreeConfig};
use crate::error::TracerError;
use crate::inspector::boot::Channel;
use crate::inspector::cdp::Cdp;
use crate::inspector::driver::{Driver, Ending, Limits, Probed};
use crate::inspector::launch::{self, Launch};
use crate::probe::node::NodeProbe;
use crate::process::watchdog::Watchdog;
use crate::process::{group, node_options};
use crate::trace::capture::Capture;
use crate::trace::event::{Clock, EventSender};
use crate::trace::mapper::Mapper;
use crate::trace::redact::Redactor;

/// A thread that is waited for when this goes out of scope, on every path: tracer never exits
/// in the middle of its work (retention halfway through removing a folder).
pub(super) struct Joined(pub(super) Option<std::thread::JoinHandle<()>>);

impl Drop for Joined {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take() {
            let _ = thread.join();
        }
    }
}

/// What the traced run produced, whether or not it ended cleanly.
#[derive(Default)]
pub(super) struct RunResult {
    pub(super) status: Option<ExitStatus>,
    pub(super) ending: Option<Ending>,
    pub(super) probed: Probed,
    pub(super) attached: bool,
    pub(super) pid: Option<u32>,
    pub(super) tail: StderrTail,
    /// The no-send guard, when one was asked for; finished once the program is gone.
    pub(super) guard: Option<crate::guard::Guard>,
    pub(super) node_probe: Option<crate::probe::node::NodeReport>,
    /// The tree's tracks, as the bootloader's channel reported them.
    pub(super) processes: Vec<crate::trace::session::Process>,
    /// Told goodbye once the tree is done; reaped when this is dropped, by then long gone.
    pub(super) watchdog: Option<Watchdog>,
    /// When the program's inspector connection closed without Node saying the program had
    /// finished (ms on the run's clock): the program closed its inspector (`inspector.close()`),
    /// or was killed; nothing it did after was captured.
    pub(super) connection_closed_at: Option<f64>,
}

/// Where a run's captured events go: the stream, its clock, and the flag that says the tracer's
/// stdout lost its reader. The stream's sending half is the run's: `trace` drops it (and every
/// clone) once the program is gone, which ends the stream.
pub(super) struct Feed<'a> {
    pub(super) events: EventSender,
    pub(super) clock: Clock,
    pub(super) stdout_gone: Arc<AtomicBool>,
    /// What the tree's process list (its `argv`) goes through, as every stored value does.
    pub(super) redactor: &'a Redactor,
}

/// The program, spawned with the bootloader's channel open, before anything else of the run is
/// set up: what `execute` does next (the session's first write, the event stream) runs while Node
/// starts.
pub(super) struct Started {
    pub(super) channel: Channel,
    pub(super) reader: std::thread::JoinHandle<()>,
    pub(super) reports: Receiver<crate::inspector::boot::ChannelReport>,
    pub(super) child: crate::process::spawn::Program,
    pub(super) guard: Option<crate::guard::Guard>,
    /// Kills the group if the tracer itself is killed; says goodbye when dropped.
    pub(super) watchdog: Option<Watchdog>,
    /// The `NODE_OPTIONS` tracer was given.
    pub(super) user_options: Option<String>,
}

impl Started {
    /// Ends the program when the run cannot go on before it was attached to.
    pub(super) fn abandon(mut self) {
        group::stop_group(self.child.id(), libc::SIGKILL, STOP_GRACE);
        let _ = self.child.wait();
        self.channel.close();
        let _ = self.reader.join();
    }
}

/// Makes the bootloader's channel and spawns the program under it.
pub(super) fn start(plan: &Plan, extras: &Extras, id: &str) -> Result<Started> {
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
        argv0: Some(plan.argv0.as_os_str()),
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
pub(super) fn trace(
    started: Started,
    plan: &Plan,
    config: &Config,
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
    let pump_threads = vec![
        pumps::pump_stdout(
            child.stdout.take().expect("piped stdout"),
            match (config.ndjson, config.stdout_to_stderr) {
                (true, _) => pumps::Passthrough::Off,
                (false, true) => pumps::Passthrough::Stderr,
                (false, false) => pumps::Passthrough::Stdout,
            },
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
    let extras = &config.extras;
    let debugger = config.scripts || extras.node_probe.is_some() || loader;
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
            // As the kernel names it, to compare with each process's.
            cwd: plan.cwd.canonicalize().unwrap_or_else(|_| plan.cwd.clone()),
            events: events.clone(),
            clock,
            redactor: redactor.clone(),
            debugger: config.scripts || loader,
            script_events: config.scripts,
            console_batches,
        },
        root_tx,
    );

    // Every way out of the run goes through here, once: the program stopped (with `first_signal`
    // first, when given) and reaped; nothing the command started left, in its process group or
    // out of it; the pipes drained; the channel closed; the tree finished (`before_finish` reads
    // it first).
    let wind_down = |result: &mut RunResult,
                     child: &mut crate::process::spawn::Program,
                     first_signal: Option<i32>,
                     tree: Tree,
                     before_finish: &dyn Fn(&Tree, &mut RunResult)| {
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
        pumps::finish(pump_threads, DRAIN_GRACE);
        crate::timings::mark("program exited, group stopped, pipes drained");
        channel.close();
        let _ = reader.join();
        before_finish(&tree, result);
        result.processes = tree.finish(DRAIN_GRACE);
        crate::timings::mark("tree finished");
    };
    let deadline = config
        .timeout
        .map(|t| Instant::now() + Duration::from_secs_f64(t));
    // A script run by Node must report within --attach-timeout; a command may never start Node.
    let attach_deadline = plan
        .target
        .is_some()
        .then(|| Instant::now() + Duration::from_secs_f64(config.attach_timeout.max(0.1)));

    crate::inspector::cdp::warm_up();
    let ended = match wait_for_root(&root_signals, &mut child, attach_deadline, deadline, stop) {
        Ok(ended) => ended,
        Err(e) => {
            wind_down(
                &mut result,
                &mut child,
                Some(libc::SIGKILL),
                tree,
                &|_, _| {},
            );
            let tail = result.tail.text();
            let e = if tail.trim().is_empty() {
                e
            } else {
                e.context(format!(
                    "the program's stderr ended with:\n{}",
                    tail.trim_end()
                ))
            };
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
            result.ending = Some(ending);
            wind_down(
                &mut result,
                &mut child,
                first_signal,
                tree,
                &|tree, result| {
                    result.attached = tree.attached_any();
                    result.probed.node_version = tree.node_version();
                    result.probed.workers = tree.workers_probed();
                },
            );
            return Ok(result);
        }
    };
    let mut cdp = match Cdp::connect(&url) {
        Ok(cdp) => cdp,
        Err(e) => {
            wind_down(
                &mut result,
                &mut child,
                Some(libc::SIGKILL),
                tree,
                &|_, _| {},
            );
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
    .with_script_events(config.scripts);
    let mut node_probe = None;
    let skip_pauses = extras.node_probe.is_none();
    let read = Driver::<NodeProbe>::start(
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
            driver.set_pause_handler(NodeProbe::new(request.clone()));
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
        node_probe = driver.take_pause_handler().map(NodeProbe::finish);
        Ok((ending, driver.probed().clone()))
    });
    result.node_probe = node_probe;
    crate::timings::mark("program finished");
    cdp.close();
    crate::timings::mark("inspector connection closed");
    // Nothing more is captured: the stream ends once the pumps and the tree are done with it.
    drop(capture);
    drop(events);
    let (first_signal, outcome) = match read {
        Ok((ending, probed)) => {
            if ending == Ending::Closed {
                result.connection_closed_at = Some(clock.ms());
            }
            result.ending = Some(ending);
            result.probed = probed;
            (None, None)
        }
        Err(e) => (Some(libc::SIGTERM), Some(e)),
    };
    wind_down(&mut result, &mut child, first_signal, tree, &|_, _| {});
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
pub(super) enum RootWait {
    /// The program is Node and its inspector listens at `url` (checked); `announces`: see
    /// `boot::ChannelReport::announces`.
    Listening { url: String, announces: bool },
    /// The command ended (or was stopped) without being a Node process itself.
    Ended(Ending),
}

/// Waits for the program's own report on the bootloader's channel, or for the command to end.
/// `attach_deadline` (a script Node runs): it must report by then, unless it reports that it is a
/// launcher (a package manager's own Node process, run as a script: `node_modules/.bin/pnpm`),
/// which is then waited for as a command that is not Node.
pub(super) fn wait_for_root(
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
pub(super) fn forward_stdin(mut pipe: std::process::ChildStdin) {
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

pub(super) fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// `SIGTERM` for 15, and so on.
pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
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
        libc::SIGSYS => "SIGSYS",
        _ => return format!("signal {signal}"),
    };
    name.to_owned()
}
