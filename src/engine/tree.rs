//! The traced process tree: every Node process that reports through the bootloader's channel gets
//! a track; it is checked (`boot::Channel::verify`), attached, traced on a thread of its own and
//! released; launchers are listed, not traced; and whatever of the tree is still running when the
//! run ends is stopped, in the program's process group or out of it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::inspector::boot::{ChannelReport, Says, Verifier};
use crate::inspector::cdp::{Cdp, Incoming};
use crate::inspector::driver::{Driver, Limits, NoPauses};
use crate::process::exit_status::{Ended, PidWatch};
use crate::trace::capture::Capture;
use crate::trace::event::{Clock, Event, EventSender, Kind};
use crate::trace::mapper::Mapper;
use crate::trace::redact::Redactor;
use crate::trace::runner_workers::runner_worker;
use crate::trace::session::{MAX_MODULES, Process};

/// How many processes besides the program are traced; later ones are released at once, untraced,
/// and listed with a note.
pub const MAX_TRACED: usize = 64;
/// How many processes are listed in the session; later ones are traced all the same and counted.
pub const MAX_LISTED: usize = 1000;
/// How many processes the tree remembers before it forgets those that are gone.
const MAX_REMEMBERED: usize = 100_000;

/// What the tree tells the thread that waits for the program's own process (the command tracer
/// started), and what `crate::process::group::notify_exit` does.
#[derive(Debug)]
pub enum RootSignal {
    /// The program is Node and its inspector listens at `url` (checked): attach to it.
    /// `announces`: see `boot::ChannelReport::announces`.
    Listening { url: String, announces: bool },
    /// The program is a launcher (npm, pnpm, yarn: a package manager's own Node process): only
    /// the Node processes it starts are traced, as for a command that is not Node.
    Launcher,
    /// The program's process ended.
    Ended,
}

/// What the tree needs to know to trace a process.
pub struct TreeConfig {
    /// The pid of the command tracer started: its report goes to the caller, which traces it.
    pub root_pid: u32,
    pub verifier: Verifier,
    pub workspace: PathBuf,
    /// The program's working folder: a process's own is listed only where it differs.
    pub cwd: PathBuf,
    pub events: EventSender,
    pub clock: Clock,
    pub redactor: Redactor,
    /// Enable the `Debugger` domain in each process (script events, a loader's source maps).
    pub debugger: bool,
    /// Record each process's `script` events (`--scripts`), as the program's are.
    pub script_events: bool,
    /// Console calls in batches through the bootloader (`Driver::capture_console_in_batches`).
    pub console_batches: bool,
}

#[derive(Default)]
struct Shared {
    processes: Mutex<Vec<Process>>,
    /// The listed processes (but the program, tracer's own child), watched from when they
    /// reported, for how they ended.
    watches: Mutex<HashMap<u32, PidWatch>>,
    /// The processes tracer signalled itself (`signal_all`).
    stopped: Mutex<HashSet<u32>>,
    unlisted: AtomicUsize,
    threads: Mutex<Vec<Watched>>,
    node_version: Mutex<Option<String>>,
    /// Whether a traced process's `NodeWorker.enable` was answered.
    workers: std::sync::atomic::AtomicBool,
    /// Whether the run is ending (`stop_leftovers`): a process that reports from then on is
    /// stopped, not traced. Held by the dispatcher from a report's check to its listing, so that
    /// no process is released after the leftovers were stopped.
    ending: Mutex<bool>,
}

/// The tree being traced. `start` it with the channel's reports; `processes` when it is over.
pub struct Tree {
    shared: Arc<Shared>,
    dispatcher: Option<Watched>,
}

impl Tree {
    /// Handles `reports` on a thread of its own until the channel closes. The program's own
    /// report (pid `root_pid`) goes to `root`: its URL once checked, for the caller to attach, or
    /// that it is a launcher.
    pub fn start(
        reports: Receiver<ChannelReport>,
        config: TreeConfig,
        root: Sender<RootSignal>,
    ) -> Tree {
        let shared = Arc::new(Shared::default());
        let dispatcher = {
            let shared = Arc::clone(&shared);
            Watched::spawn(move || dispatch(reports, &config, &root, shared))
        };
        Tree {
            shared,
            dispatcher: Some(dispatcher),
        }
    }

    /// `process.version` as the first traced process reported it.
    pub fn node_version(&self) -> Option<String> {
        lock(&self.shared.node_version).clone()
    }

    /// Whether worker tracing was probed and answered in a traced process.
    pub fn workers_probed(&self) -> bool {
        self.shared.workers.load(Ordering::Relaxed)
    }

    /// Whether any process besides the program was attached.
    pub fn attached_any(&self) -> bool {
        lock(&self.shared.processes)
            .iter()
            .any(|p| p.role == "child" && p.note.is_none())
    }

    /// Sends `signal` to every listed process that is still one this run started.
    pub fn signal_all(&self, verifier: &Verifier, signal: i32) {
        for process in lock(&self.shared.processes).iter() {
            if verifier.started_under(process.pid)
                && let Ok(pid) = i32::try_from(process.pid)
            {
                lock(&self.shared.stopped).insert(process.pid);
                // SAFETY: kill(2) on a pid checked just above; no memory is touched.
                unsafe {
                    libc::kill(pid, signal);
                }
            }
        }
    }

    /// Stops every listed process still running (SIGTERM, `grace`, SIGKILL): a child that left
    /// the program's process group (`setsid`, `detached: true`) does not outlive the run either.
    pub fn stop_leftovers(&self, verifier: &Verifier, grace: Duration) {
        *lock(&self.shared.ending) = true;
        let alive = || {
            lock(&self.shared.processes)
                .iter()
                .any(|p| verifier.started_under(p.pid) && !is_zombie(p.pid))
        };
        if !alive() {
            return;
        }
        self.signal_all(verifier, libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && alive() {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.signal_all(verifier, libc::SIGKILL);
    }

    /// Waits (at most `grace`) for the tracing threads, then hands over the tracks.
    pub fn finish(mut self, grace: Duration) -> Vec<Process> {
        let deadline = Instant::now() + grace;
        if let Some(dispatcher) = self.dispatcher.take() {
            dispatcher.wait_until_finished(deadline);
        }
        let threads = std::mem::take(&mut *lock(&self.shared.threads));
        for thread in threads {
            thread.wait_until_finished(deadline);
        }
        let mut processes = std::mem::take(&mut *lock(&self.shared.processes));
        let mut watches = std::mem::take(&mut *lock(&self.shared.watches));
        let stopped = lock(&self.shared.stopped);
        for process in &mut processes {
            match watches.remove(&process.pid).and_then(|w| w.ended()) {
                Some(Ended::Code(code)) => process.exit_code = Some(code),
                Some(Ended::Signal(signal)) => {
                    process.signal = Some(super::supervise::signal_name(signal));
                    process.stopped_by_tracer = stopped.contains(&process.pid);
                }
                None => {}
            }
        }
        drop(stopped);
        let unlisted = self.shared.unlisted.load(Ordering::Relaxed);
        if unlisted > 0
            && let Some(last) = processes.last_mut()
        {
            last.note = Some(format!(
                "{unlisted} more processes reported after this one: traced, not listed (at most {MAX_LISTED} are)"
            ));
        }
        processes
    }
}

/// A thread whose end can be waited for with a deadline, without polling: the thread holds the
/// sending half of a channel, which is dropped when it ends (returning or panicking).
struct Watched {
    handle: JoinHandle<()>,
    ended: mpsc::Receiver<()>,
}

impl Watched {
    fn spawn(work: impl FnOnce() + Send + 'static) -> Watched {
        let (ending, ended) = mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            let _ending = ending;
            work();
        });
        Watched { handle, ended }
    }

    /// Joins the thread if it ends by `deadline`; else leaves it (it holds nothing the run
    /// needs, and the process exit ends it).
    fn wait_until_finished(self, deadline: Instant) {
        let left = deadline.saturating_duration_since(Instant::now());
        if let Err(mpsc::RecvTimeoutError::Disconnected) = self.ended.recv_timeout(left) {
            let _ = self.handle.join();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

fn dispatch(
    reports: Receiver<ChannelReport>,
    config: &TreeConfig,
    root: &Sender<RootSignal>,
    shared: Arc<Shared>,
) {
    let mut traced = 0usize;
    let mut labels: HashMap<u32, Option<String>> = HashMap::new();
    for report in reports {
        if labels.len() >= MAX_REMEMBERED {
            // Memory stays bounded however many processes come and go: a process that is gone
            // can report no more (and its pid may be reused).
            labels.retain(|pid, _| Path::new(&format!("/proc/{pid}")).exists());
        }
        // The program's parent is tracer: it has no ancestors to list.
        if !matches!(report.says, Says::Exit(_)) && report.pid != config.root_pid {
            list_ancestors(&report, config, &shared, &mut labels);
        }
        let argv: Vec<String> = report
            .argv
            .iter()
            .map(|a| config.redactor.apply(a).into_owned())
            .collect();
        let mut process = Process {
            pid: report.pid,
            ppid: report.ppid,
            argv: argv.clone(),
            exec_argv: report
                .exec_argv
                .iter()
                .map(|a| config.redactor.apply(a).into_owned())
                .collect(),
            role: "child".into(),
            label: None,
            ts: config.clock.ms(),
            exiting_with: None,
            exit_code: None,
            signal: None,
            stopped_by_tracer: false,
            note: None,
            modules: Vec::new(),
            cwd: working_folder(report.pid)
                .filter(|folder| *folder != config.cwd)
                .map(|folder| {
                    config
                        .redactor
                        .apply(&folder.to_string_lossy())
                        .into_owned()
                }),
            cwd_at_exit: None,
        };
        if let Some(why) = &report.refused {
            // Another process's report: listed, never acted on.
            let note = format!("not attached: the report was refused: {why}");
            let mut event = Event::new(
                Kind::Context,
                config.clock.ms(),
                "a report on the bootloader's channel was refused",
            );
            event.note = Some(note.clone());
            let _ = config.events.send(Box::new(event));
            process.role = "refused".into();
            process.note = Some(note);
            list(&shared, process);
            continue;
        }
        if !matches!(report.says, Says::Exit(_)) && labels.contains_key(&report.pid) {
            // One report per process: its bootloader's, which runs before any of its code. A
            // second one can only come from the program itself.
            let mut event = Event::new(
                Kind::Context,
                config.clock.ms(),
                format!(
                    "a second report for process {} on the bootloader's channel was ignored",
                    report.pid
                ),
            );
            event.note =
                Some("only the first report of a process, its bootloader's, is attached to".into());
            let _ = config.events.send(Box::new(event));
            continue;
        }
        let ending = lock(&shared.ending);
        match report.says {
            Says::Exit(code) => {
                // Only a process that reported before, still one of this run's.
                let Some(label) = labels.get(&report.pid) else {
                    continue;
                };
                if let Some(listed) = lock(&shared.processes)
                    .iter_mut()
                    .find(|p| p.pid == report.pid)
                {
                    listed.exiting_with = Some(code);
                    // Node waits for tracer before it exits: the process is still there.
                    let started_in = listed
                        .cwd
                        .clone()
                        .unwrap_or_else(|| config.cwd.display().to_string());
                    listed.cwd_at_exit = working_folder(report.pid)
                        .map(|folder| {
                            config
                                .redactor
                                .apply(&folder.to_string_lossy())
                                .into_owned()
                        })
                        .filter(|folder| *folder != started_in);
                    listed.modules = report
                        .modules
                        .iter()
                        .filter(|m| Path::new(m).starts_with(&config.workspace))
                        .take(MAX_MODULES)
                        .map(|m| config.redactor.apply(m).into_owned())
                        .collect();
                }
                if label.is_some() {
                    let mut event = Event::new(
                        Kind::Context,
                        config.clock.ms(),
                        format!("process {} exiting with code {code}", report.pid),
                    );
                    event.worker.clone_from(label);
                    let _ = config.events.send(Box::new(event));
                }
                continue;
            }
            Says::Untraced(why) => {
                if !config.verifier.started_under(report.pid) {
                    continue;
                }
                process.role = "untraced".into();
                process.note = Some(why);
                labels.insert(report.pid, None);
            }
            Says::Launcher => {
                if report.pid == config.root_pid {
                    let _ = root.send(RootSignal::Launcher);
                } else if !config.verifier.started_under(report.pid) {
                    continue;
                }
                process.role = "launcher".into();
                let mut event = Event::new(
                    Kind::Context,
                    config.clock.ms(),
                    format!("launcher {} (not traced): {}", report.pid, argv.join(" ")),
                );
                event.worker = Some(format!("launcher {}", report.pid));
                let _ = config.events.send(Box::new(event));
                labels.insert(report.pid, None);
            }
            Says::Listening(url) => {
                let checked = if report.pid == config.root_pid {
                    Verifier::verify_program(report.pid, &url)
                } else {
                    config.verifier.verify(report.pid, &url)
                };
                if let Err(why) = checked {
                    labels.insert(report.pid, None);
                    process.note = Some(format!("not attached: {why}"));
                    let mut event = Event::new(
                        Kind::Context,
                        config.clock.ms(),
                        "a report on the bootloader's channel was not attached to",
                    );
                    event.note = process.note.clone();
                    let _ = config.events.send(Box::new(event));
                } else if report.pid == config.root_pid {
                    process.role = "program".into();
                    labels.insert(report.pid, None);
                    lock(&shared.node_version).clone_from(&report.version);
                    let _ = root.send(RootSignal::Listening {
                        url,
                        announces: report.announces,
                    });
                } else if *ending {
                    // Started as the run ends (a detached child whose parent has exited): it
                    // waits for tracer before its first line, and would outlive the run.
                    process.note = Some(
                        "reported as the run was ending: stopped before its first line".into(),
                    );
                    labels.insert(report.pid, None);
                    lock(&shared.stopped).insert(report.pid);
                    if let Ok(pid) = i32::try_from(report.pid) {
                        // SAFETY: kill(2) on a pid `verify` checked just above; no memory is
                        // touched.
                        unsafe {
                            libc::kill(pid, libc::SIGKILL);
                        }
                    }
                } else if traced >= MAX_TRACED {
                    process.note = Some(format!(
                        "released untraced: more than {MAX_TRACED} processes besides the program"
                    ));
                    labels.insert(report.pid, None);
                    release_untraced(url, report.announces);
                } else {
                    traced += 1;
                    let label = format!("child {traced}");
                    process.label = Some(label.clone());
                    labels.insert(report.pid, Some(label.clone()));
                    let mut event = Event::new(
                        Kind::Context,
                        config.clock.ms(),
                        format!("process {} started: {}", report.pid, argv.join(" ")),
                    );
                    event.worker = Some(label.clone());
                    let _ = config.events.send(Box::new(event));
                    let runner_worker = runner_worker(&argv);
                    let loader = report.loader || transformed_script(&argv);
                    let thread = trace_child(
                        url,
                        report.version,
                        report.announces,
                        label,
                        Domains {
                            runner_worker,
                            loader,
                        },
                        config,
                        Arc::clone(&shared),
                    );
                    lock(&shared.threads).push(thread);
                }
            }
        }
        list(&shared, process);
        drop(ending);
    }
}

fn list(shared: &Shared, process: Process) {
    let mut processes = lock(&shared.processes);
    if processes.len() < MAX_LISTED {
        // Watched from now, while it waits for tracer (or, an ancestor, while its descendant
        // does): the program is tracer's own child, and a refused report names no process of
        // the tree.
        if process.role != "program"
            && process.role != "refused"
            && let Some(watch) = PidWatch::open(process.pid)
        {
            lock(&shared.watches).insert(process.pid, watch);
        }
        processes.push(process);
    } else {
        shared.unlisted.fetch_add(1, Ordering::Relaxed);
    }
}

/// Lists the processes between a reporting process and the part of the tree already known that
/// are not Node (a shell, `make`): launchers, read from `/proc` while the reporting process waits
/// (its ancestors are alive then), each only when it was started with this run's channel in its
/// environment.
fn list_ancestors(
    report: &ChannelReport,
    config: &TreeConfig,
    shared: &Shared,
    labels: &mut HashMap<u32, Option<String>>,
) {
    let mut found = Vec::new();
    let mut pid = report.ppid;
    // A bound: a chain of shells deeper than this is listed in part.
    for _ in 0..16 {
        if pid <= 1 || labels.contains_key(&pid) || !config.verifier.started_under(pid) {
            break;
        }
        let Some((ppid, argv)) = proc_process(pid) else {
            break;
        };
        found.push(Process {
            pid,
            ppid,
            argv: argv
                .iter()
                .map(|a| config.redactor.apply(a).into_owned())
                .collect(),
            role: "launcher".into(),
            label: None,
            ts: config.clock.ms(),
            note: Some("not a Node process: listed, not traced".into()),
            ..Process::default()
        });
        labels.insert(pid, None);
        pid = ppid;
    }
    for process in found.into_iter().rev() {
        list(shared, process);
    }
}

/// Whether `argv` runs a script Node does not run as it is (`app.ts`, `app.jsx`): something
/// transforms it.
fn transformed_script(argv: &[String]) -> bool {
    argv.get(1)
        .is_some_and(|script| !crate::trace::mapper::node_runs_as_is(std::path::Path::new(script)))
}

/// Why a process of the tree needs the Debugger domain (~30 ms of start-up, and V8's hash of
/// every script it parses), beyond the run's own reasons (`TreeConfig::debugger`).
struct Domains {
    /// A test runner's worker ([`runner_worker`]): the test files it parses are how it is
    /// told.
    runner_worker: bool,
    /// Its script may run transformed by a loader of its own (`ChannelReport::loader`,
    /// [`transformed_script`]): `scriptParsed` carries the source map the loader made.
    loader: bool,
}

/// The parent pid and the arguments (at most 16, each at most 200 characters) of `pid`.
fn proc_process(pid: u32) -> Option<(u32, Vec<String>)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let ppid = stat
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    let cmdline = crate::files::read_capped(
        std::path::Path::new(&format!("/proc/{pid}/cmdline")),
        64 * 1024,
    )
    .ok()?;
    let argv = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .take(16)
        .map(|a| String::from_utf8_lossy(a).chars().take(200).collect())
        .collect();
    Some((ppid, argv))
}

/// The working folder of process `pid`, as the kernel says (it has just reported, and waits to be
/// released or is exiting: it is still there).
fn working_folder(pid: u32) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/cwd")).ok()
}

/// Attaches to one process of the tree and traces it until its end, its events tagged `label`.
fn trace_child(
    url: String,
    version: Option<String>,
    announces: bool,
    label: String,
    domains: Domains,
    config: &TreeConfig,
    shared: Arc<Shared>,
) -> Watched {
    let events = config.events.clone();
    let workspace = config.workspace.clone();
    let clock = config.clock;
    let runner_worker = domains.runner_worker;
    let debugger = config.debugger || runner_worker || domains.loader;
    let console_batches = config.console_batches;
    let script_events = config.script_events;
    Watched::spawn(move || {
        let mut cdp = match Cdp::connect(&url) {
            Ok(cdp) => cdp,
            Err(e) => {
                // Never silent: the process waits for a debugger until the run ends (then it is
                // stopped with the rest of the tree).
                let mut event = Event::new(
                    Kind::Context,
                    clock.ms(),
                    "could not attach to a process of the tree",
                );
                event.worker = Some(label);
                event.note = Some(format!(
                    "{e:#}; it waits for a debugger until the run ends, when it is stopped"
                ));
                let _ = events.send(Box::new(event));
                return;
            }
        };
        let mut capture = Capture::new(Mapper::new(workspace), events, clock, Some(label))
            .with_script_events(script_events)
            .with_own_script_events(runner_worker);
        let never = Limits {
            deadline: None,
            stop: None,
        };
        if let Ok(mut driver) =
            Driver::<NoPauses>::start(&mut cdp, debugger, true, version, announces)
        {
            // A connection that cannot take the request fails the read below as well.
            if console_batches {
                let _ = driver.capture_console_in_batches(&mut cdp);
            }
            let _ = driver.read_until(&mut cdp, &mut capture, &never);
            let mut version = lock(&shared.node_version);
            if version.is_none() {
                version.clone_from(&driver.probed().node_version);
            }
            if driver.probed().workers {
                shared.workers.store(true, Ordering::Relaxed);
            }
        }
        cdp.close();
    })
}

/// Releases a process without tracing it: `Runtime.runIfWaitingForDebugger`, its answer, close.
/// With `announces` (`boot::ChannelReport::announces`), once Node says it waits.
fn release_untraced(url: String, announces: bool) {
    std::thread::spawn(move || {
        let Ok(mut cdp) = Cdp::connect(&url) else {
            return;
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        // Reads until `done` says so, the connection ends or the deadline passes.
        let read_until = |cdp: &mut Cdp, done: &dyn Fn(&Incoming) -> bool| {
            while Instant::now() < deadline {
                match cdp.read() {
                    Ok(Incoming::Closed) | Err(_) => return,
                    Ok(incoming) if done(&incoming) => return,
                    _ => {}
                }
            }
        };
        // Released once Node waits, or could not say so in time.
        if announces && let Ok(id) = cdp.send("NodeRuntime.enable", json!({})) {
            read_until(&mut cdp, &|incoming| match incoming {
                Incoming::Event { method, .. } => method == "NodeRuntime.waitingForDebugger",
                // A Node that cannot announce its wait.
                Incoming::Response {
                    id: answered,
                    result,
                } => *answered == id && result.is_err(),
                _ => false,
            });
        }
        if let Ok(id) = cdp.send("Runtime.runIfWaitingForDebugger", json!({})) {
            read_until(
                &mut cdp,
                &|incoming| matches!(incoming, Incoming::Response { id: answered, .. } if *answered == id),
            );
        }
        cdp.close();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watched_thread_is_joined_when_it_ends_and_left_when_it_does_not_by_the_deadline() {
        let (tx, rx) = mpsc::channel();
        let quick = Watched::spawn(move || tx.send(1).unwrap());
        quick.wait_until_finished(Instant::now() + Duration::from_secs(60));
        // Joined: its work is done when the wait returns.
        assert_eq!(rx.try_recv(), Ok(1));
        // A thread that panics ends too.
        let panicking = Watched::spawn(|| panic!("on purpose"));
        panicking.wait_until_finished(Instant::now() + Duration::from_secs(60));
        let (release, held) = mpsc::channel::<()>();
        let stuck = Watched::spawn(move || {
            let _ = held.recv();
        });
        // Returns at the deadline, the thread still running (the test would hang otherwise).
        stuck.wait_until_finished(Instant::now() + Duration::from_millis(20));
        drop(release);
    }
}
