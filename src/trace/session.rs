//! The session: one run's summary and kept events (`session.json`), and the bounded log that
//! decides which events are kept when a program produces more than `--max-events`.
//!
//! `session.json` fields (camelCase): `id`, `status` (`running` while the run lasts, then `exited`,
//! `failed`, `stopped`, `timeout` or `error`), `runtime`, `target`, `args`, `cwd`, `pid`,
//! `startedAt`, `endedAt`, `exitCode`, `signal`, `eventCount` (events kept in `events`),
//! `exceptionCount` (every uncaught exception seen), `droppedEvents` (events seen but not kept),
//! `capabilities`, `stderrTail`, `error` (why the tool could not trace, for status `error`), `events`;
//! and, when present, `options` (the run options a re-run reuses) and `verifies` (the id of the
//! session this run re-ran with `tracer verify`).

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::trace::event::{Event, Kind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The run is in progress (or the tracer was killed before it could finish the session).
    Running,
    /// The program exited 0 with no uncaught exception.
    Exited,
    /// The program threw an uncaught exception or exited non-zero.
    Failed,
    /// The tracer was interrupted (Ctrl-C, SIGTERM) and stopped the program.
    Stopped,
    /// `--timeout` passed and the program was stopped.
    Timeout,
    /// The tool could not trace the program.
    Error,
}

/// What this run could do, as probed during the run; nothing is assumed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Capabilities {
    /// `process.version` as the inspected runtime reported it.
    pub node_version: Option<String>,
    pub node_path: String,
    /// The inspector attached.
    pub inspector: bool,
    /// Script events and runtime-reported source-map URLs (the `Debugger` domain answered).
    pub scripts: bool,
    /// Positions are resolved through source maps (runtime-reported or the file's own comment).
    pub source_mapping: bool,
    /// Worker threads are released and traced (the `NodeWorker` domain answered).
    pub workers: bool,
    /// Every Node process the command starts (forked, spawned, through a shell or a package
    /// manager) reports to tracer through the bootloader and is traced as its own track.
    pub forked_children: bool,
    /// How a session can be replayed: `timeline`, stepping through captured events. Nothing more.
    pub replay: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Session {
    pub id: String,
    pub status: Status,
    pub runtime: String,
    pub target: String,
    pub args: Vec<String>,
    pub cwd: String,
    pub pid: Option<u32>,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    pub event_count: u64,
    pub exception_count: u64,
    pub dropped_events: u64,
    pub capabilities: Capabilities,
    #[serde(default)]
    pub stderr_tail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The options of `tracer run` that change what a re-run does (`tracer verify` reuses them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<RunOptions>,
    /// The id of the session this run verifies (`tracer verify`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verifies: Option<String>,
    /// Every process of the command's tree that reported through the bootloader, in the order
    /// they reported (the program first when it is Node): one track each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<Process>,
    pub events: Vec<Event>,
}

impl Process {
    /// Whether it ended badly on its own: a code other than 0 (the kernel's, else the one its
    /// `exit` listeners saw), or a signal of a crash (`SIGSEGV`, `SIGABRT`, …) or of a time limit
    /// (`SIGALRM`: node-tap ends a test process past its `--timeout` so; `SIGXCPU`). A process
    /// stopped by another (`SIGTERM`, `SIGKILL`, `SIGINT`: a test runner ending its pool of
    /// workers, tracer at the end of the run) did not fail.
    pub fn failed(&self) -> bool {
        const CRASHES: [&str; 9] = [
            "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGSYS", "SIGTRAP", "SIGALRM",
            "SIGXCPU",
        ];
        match (self.exit_code, &self.signal) {
            (Some(code), _) => code != 0,
            (None, Some(signal)) => !self.stopped_by_tracer && CRASHES.contains(&signal.as_str()),
            (None, None) => self.exiting_with.is_some_and(|c| c != 0),
        }
    }

    /// `4242 child 1: node test/a.test.js · exiting with 1`, paths shown relative to `cwd`, on one
    /// line (see [`one_line_word`]).
    pub fn describe(&self, cwd: &str) -> String {
        // Node's own flags where they were given: after the executable, before the script.
        let words = self
            .argv
            .iter()
            .take(1)
            .chain(&self.exec_argv)
            .chain(self.argv.iter().skip(1));
        let argv: Vec<String> = words
            .enumerate()
            .map(|(i, a)| {
                if i == 0 {
                    return std::path::Path::new(a)
                        .file_name()
                        .and_then(|n| n.to_str())
                        .unwrap_or(a)
                        .to_owned();
                }
                one_line_word(
                    std::path::Path::new(a)
                        .strip_prefix(cwd)
                        .ok()
                        .and_then(|p| p.to_str())
                        .unwrap_or(a),
                )
            })
            .collect();
        let mut text = format!(
            "{} {}: {}",
            self.pid,
            self.label.as_deref().unwrap_or(&self.role),
            argv.join(" ")
        );
        match (self.exit_code, &self.signal, self.exiting_with) {
            (Some(code), _, _) => text.push_str(&format!(" · exited with {code}")),
            (None, Some(signal), _) if self.stopped_by_tracer => {
                text.push_str(&format!(
                    " · stopped by tracer ({signal}) at the end of the run"
                ));
            }
            (None, Some(signal), _) => text.push_str(&format!(" · killed by {signal}")),
            (None, None, Some(code)) => text.push_str(&format!(" · exiting with {code}")),
            (None, None, None) => {}
        }
        if let Some(note) = &self.note {
            text.push_str(&format!(" · {note}"));
        }
        text
    }
}

/// How a process's `note` begins where its inspector connection closed before it ended: the
/// program closed its inspector (`inspector.close()`), and nothing it did after was captured (the
/// evidence then names no cause with confidence).
pub const INSPECTOR_CLOSED: &str = "its inspector connection closed";

/// One process of the traced tree.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Process {
    pub pid: u32,
    /// Its parent's pid when it reported.
    pub ppid: u32,
    /// `process.argv` (at most 16 items, each at most 200 characters; redacted like any value).
    pub argv: Vec<String>,
    /// Node's own flags, `process.execArgv` (`--require x`, `--test`; at most 8 items of 200
    /// characters, redacted like any value), which `argv` leaves out (additive; absent when none,
    /// and for a process listed from `/proc`, whose `argv` holds them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exec_argv: Vec<String>,
    /// `program` (the command tracer started, when it is Node), `child` (a Node process it
    /// started, traced), `launcher` (npm's, npx's, pnpm's, yarn's or corepack's own process, or a
    /// process that is not Node between two of the tree, such as npm's `sh -c`: listed, not
    /// traced), `untraced` (a Node process made without an inspector, such as the
    /// one `node --test` runs its files from: reported, not traced; `note` says why).
    pub role: String,
    /// The `worker` of this process's events (`child 1`, …); none for the program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Milliseconds since the run started, when it reported.
    pub ts: f64,
    /// The code Node passed to its `exit` listeners as its exit began: what it was exiting with
    /// then. A later listener can still change the code the process ends with (mocha and jest
    /// do): `exit_code` is the final one. None when it ended otherwise (a signal,
    /// `process.reallyExit`) or was still running when the run ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exiting_with: Option<i32>,
    /// The code it ended with, as the kernel told it (a pidfd taken when it reported; see
    /// `process::exit_status`; the program's, the run's own: tracer is its parent): final, after
    /// every `exit` listener. None when it did not exit
    /// (see `signal`), or when the kernel could not tell (before Linux 6.15, once its parent had
    /// reaped it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it (`SIGSEGV`), as the kernel told it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// It was still running when the run ended, and tracer stopped it (its `signal` is tracer's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped_by_tracer: bool,
    /// Why it was not traced, when it was not (a report that failed the check, the cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The CommonJS modules of the workspace its module cache held as its exit began (absolute
    /// paths outside `node_modules`, as many as the bootloader's exit report holds, at most
    /// [`MAX_MODULES`]): which process ran a test file where no argument says (additive; absent
    /// when none, or when it did not exit through its `exit` listeners).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<String>,
    /// Its working folder when it reported (the kernel's `/proc/PID/cwd`, never the process's own
    /// word), where it is not the run's: the folder its relative paths start from (`npm test
    /// --workspaces` runs each package's runner in the package's folder, and mocha prints
    /// `lib/x.js:4:15` from there). Additive; absent when it is the run's or could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Its working folder as its exit began (`/proc/PID/cwd` at its exit report), where the
    /// process had moved from the one it started in (`process.chdir`): the folder a relative path
    /// it printed late starts from, as likely as the first. Additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd_at_exit: Option<String>,
}

/// The most modules a process's entry lists ([`Process::modules`]).
pub const MAX_MODULES: usize = 200;

/// The traced process that ran `file` (a test file), as its events' `worker` names it (`program`
/// for the program itself): the one whose script it is, else the first whose arguments name it
/// (`node --test` runs each file in a process of its own; `tap test/a.test.js` runs it in a child),
/// else the first whose `script` events parsed it (a runner's worker, [`RUNNER_WORKERS`]), else the
/// one process whose module cache held it as it exited ([`Process::modules`]), else the one
/// process that made console calls in it, else the only Node process of the run that can have
/// run it (a runner that runs its files in its own process: mocha, jest in band; a runner's worker
/// whose own scripts were recorded, none of them this file, did not), when there is one. None when
/// it cannot be told (the test report then tries the process whose console printed the test's
/// report line: `test_report::printed_by`).
///
/// [`RUNNER_WORKERS`]: crate::trace::runner_workers
pub fn process_running(
    processes: &[Process],
    events: &[Event],
    cwd: &Path,
    file: &str,
) -> Option<String> {
    let absolute_in = |folder: &Path, arg: &str| {
        let arg = Path::new(arg);
        if arg.is_absolute() {
            arg.to_owned()
        } else {
            folder.join(arg)
        }
    };
    let absolute = |arg: &str| absolute_in(cwd, arg);
    let file = absolute(file);
    // A process's arguments start from its own folder (a workspace's runner in its package's).
    let names =
        |p: &Process, arg: &str| absolute_in(p.cwd.as_deref().map_or(cwd, Path::new), arg) == file;
    let label = |p: &Process| p.label.clone().unwrap_or_else(|| "program".to_owned());
    let node = || {
        processes
            .iter()
            .filter(|p| p.role == "program" || p.role == "child")
    };
    // The process whose script it is.
    if let Some(script) = node().find(|p| p.argv.get(1).is_some_and(|a| names(p, a))) {
        return Some(label(script));
    }
    // A process that parsed it or loaded it, before one that only names it: `tap test/a.test.js`
    // names the file its child runs, and `jasmine --parallel spec/a.spec.js` names every file in
    // its coordinator and in each of its workers (`cluster` gives them its arguments).
    if let Some(parsed) = events
        .iter()
        .find(|e| e.kind == Kind::Script && e.file.as_deref().is_some_and(|f| absolute(f) == file))
    {
        return Some(
            parsed
                .worker
                .clone()
                .unwrap_or_else(|| "program".to_owned()),
        );
    }
    // A process whose module cache held the file as it exited loaded it; named only when one
    // did.
    let mut loaded = node().filter(|p| p.modules.iter().any(|m| Path::new(m) == file));
    if let (Some(only), None) = (loaded.next(), loaded.next()) {
        return Some(label(only));
    }
    if let Some(named) = node().find(|p| p.argv.iter().skip(1).any(|a| names(p, a))) {
        return Some(label(named));
    }
    // A process that made console calls in the file ran it; named only when one did (a library
    // file several workers load names none, and the test's own file decides).
    let callers: std::collections::BTreeSet<&str> = events
        .iter()
        .filter(|e| {
            e.kind == Kind::Console && e.file.as_deref().is_some_and(|f| absolute(f) == file)
        })
        .map(|e| e.worker.as_deref().unwrap_or("program"))
        .collect();
    if callers.len() == 1 {
        return callers.into_iter().next().map(str::to_owned);
    }
    // A runner's worker records the `script` events of the user's files it parses, and this file
    // is not among them: it did not run it (c8 or nyc start mocha beside a watchdog; jest in band
    // starts coverage workers). Told only when every event was kept and the worker was attached.
    let every_event_kept = events
        .first()
        .zip(events.last())
        .is_none_or(|(first, last)| last.id.checked_sub(first.id) == Some(events.len() as u64 - 1));
    let unattached = |p: &Process| {
        events.iter().any(|e| {
            e.kind == Kind::Context
                && e.worker == p.label
                && e.detail.starts_with("could not attach")
        })
    };
    let did_not_run = |p: &Process| {
        every_event_kept && crate::trace::runner_workers::runner_worker(&p.argv) && !unattached(p)
    };
    let untraced = processes.iter().any(|p| p.role == "untraced");
    let mut can_have = node().filter(|p| !did_not_run(p));
    match (can_have.next(), can_have.next(), untraced) {
        (Some(only), None, false) => Some(label(only)),
        _ => None,
    }
}

/// The options of a run that a re-run must repeat to be the same run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunOptions {
    /// The workspace the target and the working directory had to be inside (canonical).
    pub workspace: String,
    /// `--timeout` in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// `--attach-timeout` in seconds.
    pub attach_timeout: f64,
    /// `--max-events`.
    pub max_events: usize,
    /// `--scripts`.
    #[serde(default)]
    pub scripts: bool,
    /// The target as it was given (`npm`, a name on `PATH`, where `target` is the file it named:
    /// `/usr/bin/npm`), for a re-run to find it the same way (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given_target: Option<String>,
    /// What the run's standard input was: `terminal`, `null`, `pipe`, `file` or `other`
    /// (additive; absent in a session written before it was kept). A re-run is given its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
}

impl Session {
    /// The process tree as indented lines, parents before their children (`4242 child 1: node
    /// test/a.test.js · exiting with 1`); empty when no process besides the program reported.
    pub fn process_tree(&self) -> Vec<String> {
        if self.processes.iter().all(|p| p.role == "program") {
            return Vec::new();
        }
        let listed: std::collections::HashSet<u32> = self.processes.iter().map(|p| p.pid).collect();
        let mut lines = Vec::new();
        let mut stack: Vec<(&Process, usize)> = self
            .processes
            .iter()
            .filter(|p| !listed.contains(&p.ppid) || p.ppid == p.pid)
            .rev()
            .map(|p| (p, 0))
            .collect();
        let mut seen = std::collections::HashSet::new();
        while let Some((process, depth)) = stack.pop() {
            if !seen.insert(process.pid) {
                continue;
            }
            lines.push(format!(
                "{}{}",
                "  ".repeat(depth),
                process.describe(&self.cwd)
            ));
            for child in self
                .processes
                .iter()
                .filter(|c| c.ppid == process.pid && c.pid != process.pid)
                .rev()
            {
                stack.push((child, depth + 1));
            }
        }
        lines
    }

    /// Whether the run failed in a way `last-failed` looks for: the program's own exit says so (a
    /// non-zero code, or a signal). An uncaught error in a worker or a forked child that the
    /// program handled or outlived is an event, not the verdict; only when the exit code is
    /// unknown does an exception count.
    pub fn failed(&self) -> bool {
        match self.exit_code {
            Some(code) => code != 0,
            None => self.signal.is_some() || self.exception_count > 0,
        }
    }
}

/// How many console or script events before the last exception the log always keeps.
pub const EVIDENCE_CONTEXT: usize = 10;

/// Keeps at most `max` events: the first half, the most recent ones, and always the last exception
/// with the console and script events just before it (what the evidence chain needs).
pub struct EventLog {
    max: usize,
    head: Vec<Event>,
    tail: VecDeque<Event>,
    /// The last exception and its context, kept whatever else is dropped.
    pinned: BTreeMap<u64, Event>,
    recent_context: VecDeque<Event>,
    seen: u64,
    exceptions: u64,
}

impl EventLog {
    pub fn new(max: usize) -> Self {
        let max = max.max(2);
        EventLog {
            max,
            head: Vec::new(),
            tail: VecDeque::new(),
            pinned: BTreeMap::new(),
            recent_context: VecDeque::new(),
            seen: 0,
            exceptions: 0,
        }
    }

    pub fn push(&mut self, event: Event) {
        self.seen += 1;
        match event.kind {
            Kind::Exception => {
                self.exceptions += 1;
                self.pinned.clear();
                for context in &self.recent_context {
                    self.pinned.insert(context.id, context.clone());
                }
                self.pinned.insert(event.id, event.clone());
            }
            Kind::Console | Kind::Script => {
                if self.recent_context.len() == EVIDENCE_CONTEXT {
                    self.recent_context.pop_front();
                }
                self.recent_context.push_back(event.clone());
            }
            _ => {}
        }
        if self.head.len() < self.max / 2 {
            self.head.push(event);
        } else {
            self.tail.push_back(event);
            if self.tail.len() > self.max - self.max / 2 {
                self.tail.pop_front();
            }
        }
    }

    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The events kept so far, in id order (the start of the run, then its most recent end).
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.head.iter().chain(self.tail.iter())
    }

    pub fn exceptions(&self) -> u64 {
        self.exceptions
    }

    /// The kept events in id order (at most `max`), and how many were dropped. The last exception,
    /// the last event (the exit) and as much of the exception's context as fits come first; the
    /// rest of the room goes to the start of the run and then to its end.
    pub fn finish(self) -> (Vec<Event>, u64) {
        let mut kept: BTreeMap<u64, Event> = BTreeMap::new();
        // The exception is the newest pinned event; its context follows, closest first.
        let mut pinned = self.pinned.into_values().rev();
        if let Some(exception) = pinned.next() {
            kept.insert(exception.id, exception);
        }
        let mut tail = self.tail;
        if let Some(last) = tail.pop_back() {
            kept.insert(last.id, last);
        }
        for event in pinned {
            if kept.len() >= self.max {
                break;
            }
            kept.insert(event.id, event);
        }
        let mut room = self.max.saturating_sub(kept.len());
        let mut head = self
            .head
            .into_iter()
            .filter(|e| !kept.contains_key(&e.id))
            .collect::<VecDeque<_>>();
        let head_share = if tail.is_empty() { room } else { room / 2 };
        for event in head.drain(..head_share.min(head.len())) {
            kept.insert(event.id, event);
            room -= 1;
        }
        for event in tail.into_iter().rev() {
            if room == 0 {
                break;
            }
            if let std::collections::btree_map::Entry::Vacant(slot) = kept.entry(event.id) {
                slot.insert(event);
                room -= 1;
            }
        }
        for event in head.into_iter().take(room) {
            kept.insert(event.id, event);
        }
        let events: Vec<Event> = kept.into_values().collect();
        let dropped = self.seen - events.len() as u64;
        (events, dropped)
    }
}

/// The most characters of one argument a process's description shows.
const WORD_SHOWN: usize = 60;

/// An argument as a process's one-line description shows it: its line breaks and other control
/// characters escaped (`\n`: c8's watchdog is `node -e` and a 20-line script), cut to
/// [`WORD_SHOWN`] characters with `…`.
fn one_line_word(word: &str) -> String {
    let mut out = String::new();
    for (count, c) in word.chars().enumerate() {
        if count == WORD_SHOWN {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: u64, kind: Kind) -> Event {
        let mut e = Event::new(kind, id as f64, "x");
        e.id = id;
        e
    }

    #[test]
    fn a_process_s_description_is_one_line_whatever_its_arguments() {
        let process: Process = serde_json::from_value(serde_json::json!({
            "pid": 13273, "ppid": 13272, "argv": ["/usr/bin/node", "13272"],
            "execArgv": ["-e", "\nconst pid = parseInt(process.argv[1], 10)\nprocess.title = 'node (foreground-child watchdog pid=' + pid + ')'\n"],
            "role": "child", "label": "child 3", "ts": 1.0, "exitCode": 1
        }))
        .unwrap();
        let said = process.describe("/w");
        assert!(!said.contains('\n'), "{said}");
        assert_eq!(
            said,
            "13273 child 3: node -e \\nconst pid = parseInt(process.argv[1], 10)\\nprocess.title = '… 13272 · exited with 1"
        );
    }

    #[test]
    fn a_flood_keeps_the_cap_and_the_evidence() {
        let mut log = EventLog::new(100);
        let mut id = 0;
        let mut next = |kind| {
            id += 1;
            event(id, kind)
        };
        for _ in 0..5_000 {
            log.push(next(Kind::Output));
        }
        for _ in 0..3 {
            log.push(next(Kind::Console));
        }
        log.push(next(Kind::Exception)); // id 5004
        for _ in 0..5_000 {
            log.push(next(Kind::Output));
        }
        log.push(next(Kind::Exit));
        let (events, dropped) = log.finish();
        assert_eq!(events.len(), 100);
        assert_eq!(dropped, 10_005 - 100);
        assert!(events.windows(2).all(|w| w[0].id < w[1].id));
        assert_eq!(events.iter().filter(|e| e.kind == Kind::Console).count(), 3);
        assert!(
            events
                .iter()
                .any(|e| e.id == 5004 && e.kind == Kind::Exception)
        );
        assert_eq!(events.last().unwrap().kind, Kind::Exit);
        assert_eq!(events[0].id, 1);
    }

    #[test]
    fn a_tiny_cap_is_still_a_maximum_and_keeps_the_exception_and_exit() {
        for max in [2usize, 5, 15] {
            let mut log = EventLog::new(max);
            let mut id = 0;
            let mut next = |kind| {
                id += 1;
                event(id, kind)
            };
            for _ in 0..50 {
                log.push(next(Kind::Console));
            }
            log.push(next(Kind::Exception));
            log.push(next(Kind::Output));
            log.push(next(Kind::Exit));
            let (events, dropped) = log.finish();
            assert_eq!(events.len(), max, "max {max}");
            assert_eq!(dropped, 53 - max as u64);
            assert!(events.iter().any(|e| e.kind == Kind::Exception));
            assert_eq!(events.last().unwrap().kind, Kind::Exit);
        }
    }

    #[test]
    fn nothing_is_dropped_under_the_cap() {
        let mut log = EventLog::new(100);
        for id in 1..=50 {
            log.push(event(id, Kind::Console));
        }
        let (events, dropped) = log.finish();
        assert_eq!((events.len(), dropped), (50, 0));
    }

    /// A process ended by a crash's or a time limit's signal failed (node-tap ends a test file
    /// past its `--timeout` with `SIGALRM`: it was once not listed); one a runner or tracer
    /// stopped did not.
    #[test]
    fn a_crash_or_a_time_limit_fails_a_process_and_a_stop_does_not() {
        let ended_by = |signal: &str, stopped_by_tracer: bool| Process {
            signal: Some(signal.into()),
            stopped_by_tracer,
            ..Process::default()
        };
        for signal in ["SIGSEGV", "SIGABRT", "SIGALRM", "SIGXCPU"] {
            assert!(ended_by(signal, false).failed(), "{signal}");
        }
        for signal in ["SIGTERM", "SIGKILL", "SIGINT"] {
            assert!(!ended_by(signal, false).failed(), "{signal}");
        }
        assert!(!ended_by("SIGALRM", true).failed());
    }

    /// `tap test/a.test.js`: the CLI names the file, its child runs it; the child ran it.
    #[test]
    fn the_process_running_a_file_is_the_one_whose_script_it_is() {
        let process = |label: &str, argv: &[&str]| Process {
            role: "child".into(),
            label: Some(label.into()),
            argv: argv.iter().map(|a| a.to_string()).collect(),
            ..Process::default()
        };
        let cwd = Path::new("/w");
        let processes = [
            process(
                "child 1",
                &["node", "/w/node_modules/.bin/tap", "test/a.test.js"],
            ),
            process("child 2", &["node", "/w/test/a.test.js"]),
        ];
        assert_eq!(
            process_running(&processes, &[], cwd, "test/a.test.js").as_deref(),
            Some("child 2")
        );
        // A runner that runs the files it names in its own process (jest in band).
        assert_eq!(
            process_running(&processes[..1], &[], cwd, "test/a.test.js").as_deref(),
            Some("child 1")
        );
    }

    /// Where no argument names the file: the one process whose module cache held it, else the
    /// one that made console calls in it, else the one that can have run it (a runner's worker
    /// whose own scripts were recorded, none of them this file, did not; unless it was never
    /// attached, or events were dropped).
    #[test]
    fn the_process_running_a_file_no_argument_names_is_told_by_what_it_did() {
        let process = |label: &str, script: &str| Process {
            role: "child".into(),
            label: Some(label.into()),
            argv: vec!["node".into(), script.into()],
            ..Process::default()
        };
        let cwd = Path::new("/w");
        let mut mocha = process("child 2", "/w/node_modules/.bin/mocha");
        let beside = [
            process("child 1", "/w/node_modules/.bin/c8"),
            process("child 3", "-"),
        ];
        let running = |processes: &[Process], events: &[Event]| {
            process_running(processes, events, cwd, "test/a.test.js")
        };
        let all = |mocha: &Process| [beside[0].clone(), mocha.clone(), beside[1].clone()];
        assert_eq!(running(&all(&mocha), &[]), None);
        mocha.modules = vec!["/w/test/a.test.js".into()];
        assert_eq!(running(&all(&mocha), &[]).as_deref(), Some("child 2"));
        // Two held it: neither is named.
        let mut both = beside[1].clone();
        both.modules = mocha.modules.clone();
        assert_eq!(running(&[mocha.clone(), both], &[]), None);
        mocha.modules.clear();
        let call = |worker: &str, id: u64| {
            let mut event = Event::new(Kind::Console, 1.0, "console.log");
            event.id = id;
            event.file = Some("/w/test/a.test.js".into());
            event.worker = Some(worker.into());
            event
        };
        assert_eq!(
            running(&all(&mocha), &[call("child 2", 1)]).as_deref(),
            Some("child 2")
        );
        assert_eq!(
            running(&all(&mocha), &[call("child 2", 1), call("child 3", 2)]),
            None
        );
        // jest in band beside its coverage workers.
        let jest = process("child 1", "/w/node_modules/.bin/jest");
        let worker = |label: &str| {
            process(
                label,
                "/w/node_modules/jest-worker/build/workers/processChild.js",
            )
        };
        let tree = [jest, worker("child 2"), worker("child 3")];
        let other = |id: u64| Event {
            id,
            ..Event::new(Kind::Output, 1.0, "a line")
        };
        assert_eq!(
            running(&tree, &[other(1), other(2)]).as_deref(),
            Some("child 1")
        );
        // A worker tracer could not attach to recorded nothing: it may have run it.
        let mut unattached = Event::new(
            Kind::Context,
            1.0,
            "could not attach to a process of the tree",
        );
        unattached.id = 2;
        unattached.worker = Some("child 3".into());
        assert_eq!(running(&tree, &[other(1), unattached]), None);
        // Events were dropped (ids 1 and 5 kept): a worker's script event may be among them.
        assert_eq!(running(&tree, &[other(1), other(5)]), None);
    }
}
