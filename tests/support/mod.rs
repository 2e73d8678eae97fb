//! The test harness: a fluent builder that runs the real `tracer` binary against real `node` in a
//! fresh temporary workspace, with an environment cleared of everything that changes behaviour.
//!
//! ```ignore
//! let out = Tracer::new().fixture("throws.js").args(["run", "throws.js"]).run();
//! out.assert_code(1);
//! let evidence = out.evidence().unwrap();
//! ```
//!
//! Layout of one test's temporary folder: `ROOT/work` is the workspace and the tracer's current
//! directory (so session files land in `ROOT/work/.tracer`), `ROOT/outside` is a folder outside it.
//! Every path is canonical, so it compares equal to what the tracer reports.

#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tracer::trace::event::{Event, Kind};
use tracer::trace::evidence::Evidence;
use tracer::trace::session::Session;

/// How long any one tracer invocation may take before the harness kills it and fails the test.
/// A safety net against hangs, not a timing assertion.
pub const WATCHDOG: Duration = Duration::from_secs(90);

/// Every file under `dir`, however deep.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Waits (up to the harness watchdog) until `condition` holds.
pub fn eventually(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + WATCHDOG;
    while !condition() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Environment variables that change how `tracer` or `node` behave; never inherited.
/// (The environment is cleared anyway; this list documents what matters.)
pub const BEHAVIOUR_ENV: &[&str] = &[
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TERM",
    "NODE_OPTIONS",
    "NODE_PATH",
    "NODE_DEBUG",
    "TRACER_NODE",
    "TRACER_DEBUG_CDP",
    "TRACER_NO_DEBUGGER",
    "TRACER_SESSION",
    "GITHUB_ACTIONS",
    "CI",
];

/// `program` with the environment every tracer run in the tests gets: cleared but for `PATH` and
/// `HOME`. A program run without tracer, to compare with, is run this way too: a `CI` or
/// `FORCE_COLOR` inherited by one run and not the other changes what test runners print.
pub fn in_a_cleared_environment(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    command.env_clear();
    for key in ["PATH", "HOME"] {
        if let Some(value) = std::env::var_os(key) {
            command.env(key, value);
        }
    }
    command
}

/// The folder with the committed fixtures.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

/// One test's temporary folders; removed when the last handle goes.
pub struct Workspace {
    _temp: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
    outside: PathBuf,
}

impl Workspace {
    fn new() -> Arc<Workspace> {
        let temp = tempfile::Builder::new()
            .prefix("tracer-test-")
            .tempdir()
            .expect("creating a temp dir");
        let root = temp.path().canonicalize().expect("canonical temp dir");
        let work = root.join("work");
        let outside = root.join("outside");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        Arc::new(Workspace {
            _temp: temp,
            root,
            work,
            outside,
        })
    }
}

/// Builds one invocation of `tracer`.
pub struct Tracer {
    ws: Arc<Workspace>,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    stdin: Option<Vec<u8>>,
    current_dir: Option<PathBuf>,
}

impl Default for Tracer {
    fn default() -> Self {
        Self::new()
    }
}

impl Tracer {
    /// A new invocation in a new, empty workspace.
    pub fn new() -> Self {
        Tracer {
            ws: Workspace::new(),
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
            current_dir: None,
        }
    }

    /// A new invocation in the workspace of a tracer that is still running.
    pub fn in_workspace_of(running: &Running) -> Self {
        Self::in_workspace(Arc::clone(&running.ws))
    }

    /// A new invocation in the same workspace as `other` (to run two tracers side by side).
    pub fn in_workspace_of_tracer(other: &Tracer) -> Self {
        Self::in_workspace(Arc::clone(&other.ws))
    }

    fn in_workspace(ws: Arc<Workspace>) -> Self {
        Tracer {
            ws,
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
            current_dir: None,
        }
    }

    /// The workspace (the tracer's current directory), canonical.
    pub fn workspace(&self) -> &Path {
        &self.ws.work
    }

    /// A folder outside the workspace, canonical.
    pub fn outside(&self) -> &Path {
        &self.ws.outside
    }

    /// Writes `contents` to `path` inside the workspace, creating folders.
    pub fn file(self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Self {
        write(&self.ws.work.join(path), contents.as_ref());
        self
    }

    /// Copies `tests/fixtures/NAME` to the same relative path in the workspace.
    pub fn fixture(self, name: &str) -> Self {
        self.fixture_as(name, name)
    }

    /// Copies `tests/fixtures/NAME` to `dest` (relative to the workspace).
    pub fn fixture_as(self, name: &str, dest: impl AsRef<Path>) -> Self {
        let contents =
            std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"));
        self.file(dest, contents)
    }

    /// Copies `tests/fixtures/NAME` into the folder outside the workspace.
    pub fn outside_fixture(self, name: &str) -> Self {
        let contents =
            std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"));
        write(&self.ws.outside.join(name), &contents);
        self
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Bytes to pipe into the tracer's stdin (default: /dev/null).
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.stdin = Some(bytes.as_ref().to_owned());
        self
    }

    /// Runs the tracer from `dir` (relative to the workspace) instead of the workspace itself.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.current_dir = Some(self.ws.work.join(dir));
        self
    }

    fn command(&self) -> Command {
        let mut command = in_a_cleared_environment(env!("CARGO_BIN_EXE_tracer"));
        // The audit's key: one per workspace, never the user's own state directory.
        command.env("TRACER_STATE_DIR", self.ws.work.join(".tracer-state"));
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command
            .args(&self.args)
            .current_dir(self.current_dir.as_deref().unwrap_or(&self.ws.work))
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Starts the tracer and returns at once; the caller reads its stdout and signals it.
    pub fn spawn(self) -> Running {
        let mut child = self.command().spawn().expect("starting the tracer binary");
        if let Some(bytes) = self.stdin.clone() {
            let mut pipe = child.stdin.take().unwrap();
            std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let stderr = drain(child.stderr.take().unwrap());
        Running {
            child,
            ws: self.ws,
            stdout: Some(stdout),
            stdout_rest: None,
            stdout_head: Vec::new(),
            stderr,
        }
    }

    /// Runs the tracer to its end (killing it after [`WATCHDOG`]) and returns what it did.
    pub fn run(self) -> Output {
        let mut running = self.spawn();
        let rest = drain(running.stdout.take().unwrap());
        running.stdout_rest = Some(rest);
        running.wait()
    }
}

/// A tracer that is running.
pub struct Running {
    child: Child,
    ws: Arc<Workspace>,
    stdout: Option<BufReader<ChildStdout>>,
    stdout_rest: Option<JoinHandle<Vec<u8>>>,
    stdout_head: Vec<u8>,
    stderr: JoinHandle<Vec<u8>>,
}

impl Running {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Reads stdout lines until one contains `needle`; returns that line. Panics at EOF.
    pub fn wait_for_stdout_line(&mut self, needle: &str) -> String {
        let reader = self.stdout.as_mut().expect("stdout already handed over");
        loop {
            let mut line = String::new();
            let n = reader
                .read_line(&mut line)
                .expect("reading the tracer's stdout");
            assert!(
                n > 0,
                "the tracer's stdout ended before a line containing {needle:?}"
            );
            self.stdout_head.extend_from_slice(line.as_bytes());
            if line.contains(needle) {
                return line;
            }
        }
    }

    /// Reads one stdout line, then closes the read end of the pipe (like `| head -1`).
    pub fn read_one_line_and_close_stdout(&mut self) -> String {
        let mut reader = self.stdout.take().expect("stdout already handed over");
        let mut line = String::new();
        reader
            .read_line(&mut line)
            .expect("reading the tracer's stdout");
        drop(reader);
        self.stdout_head.extend_from_slice(line.as_bytes());
        line
    }

    /// Waits until the running session's live `events.ndjson` holds an event matching `wanted`
    /// (that is, the tracer has captured it), and returns it.
    pub fn wait_for_captured_event(&self, wanted: impl Fn(&Event) -> bool) -> Event {
        let sessions = self.ws.work.join(".tracer").join("sessions");
        let deadline = Instant::now() + WATCHDOG;
        loop {
            for entry in std::fs::read_dir(&sessions).into_iter().flatten().flatten() {
                let text =
                    std::fs::read_to_string(entry.path().join("events.ndjson")).unwrap_or_default();
                let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
                if let Some(event) = parse_ndjson(complete).into_iter().find(|e| wanted(e)) {
                    return event;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the event never appeared in events.ndjson"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Sends `signal` to the tracer process (not its program).
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid; touches no memory.
        let rc = unsafe { libc::kill(self.child.id() as i32, signal) };
        assert_eq!(rc, 0, "signalling the tracer");
    }

    /// Waits for the tracer to exit (killing it after [`WATCHDOG`]).
    pub fn wait(mut self) -> Output {
        if self.stdout_rest.is_none()
            && let Some(stdout) = self.stdout.take()
        {
            self.stdout_rest = Some(drain(stdout));
        }
        let deadline = Instant::now() + WATCHDOG;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("waiting for the tracer") {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                kill_sessions_programs(&self.ws.work);
                panic!("the tracer did not finish within {WATCHDOG:?}: it hung");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut stdout = std::mem::take(&mut self.stdout_head);
        if let Some(rest) = self.stdout_rest.take() {
            stdout.extend(rest.join().unwrap());
        }
        let stderr = self.stderr.join().unwrap();
        Output {
            ws: self.ws,
            status,
            stdout,
            stderr,
        }
    }
}

/// What one tracer invocation did, and the workspace it ran in.
pub struct Output {
    ws: Arc<Workspace>,
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Output {
    /// The tracer's exit code; panics (showing stderr) if it was killed by a signal.
    pub fn code(&self) -> i32 {
        self.status
            .code()
            .unwrap_or_else(|| panic!("the tracer was killed: {:?}\n{}", self.status, self.dump()))
    }

    /// The exit code, or the signal that killed the tracer.
    pub fn code_or_signal(&self) -> Result<i32, i32> {
        use std::os::unix::process::ExitStatusExt;
        self.status
            .code()
            .ok_or_else(|| self.status.signal().unwrap_or(0))
    }

    /// Asserts the exit code, showing stdout and stderr when it differs.
    #[track_caller]
    pub fn assert_code(&self, expected: i32) -> &Self {
        assert_eq!(
            self.code(),
            expected,
            "unexpected exit code\n{}",
            self.dump()
        );
        self
    }

    /// Stdout and stderr for failure messages (stdout shortened).
    pub fn dump(&self) -> String {
        let stdout = self.stdout();
        let stdout: String = stdout.chars().take(3000).collect();
        format!(
            "--- stdout ---\n{stdout}\n--- stderr ---\n{}",
            self.stderr()
        )
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stdout_bytes(&self) -> &[u8] {
        &self.stdout
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// A new invocation in the same workspace (to `show`, `list`, … what this run wrote).
    pub fn tracer(&self) -> Tracer {
        Tracer::in_workspace(Arc::clone(&self.ws))
    }

    pub fn workspace(&self) -> &Path {
        &self.ws.work
    }

    pub fn outside(&self) -> &Path {
        &self.ws.outside
    }

    /// `.tracer` in the workspace.
    pub fn out_dir(&self) -> PathBuf {
        self.ws.work.join(".tracer")
    }

    /// Session ids on disk, sorted (oldest first).
    pub fn session_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = match std::fs::read_dir(self.out_dir().join("sessions")) {
            Ok(entries) => entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(_) => Vec::new(),
        };
        ids.sort();
        ids
    }

    /// The id `.tracer/latest` names.
    pub fn latest_id(&self) -> String {
        latest_in(&self.out_dir()).unwrap_or_else(|e| panic!("{e}\n{}", self.dump()))
    }

    /// The latest session's folder.
    pub fn session_dir(&self) -> PathBuf {
        self.out_dir().join("sessions").join(self.latest_id())
    }

    /// The latest `session.json`, parsed strictly.
    pub fn session(&self) -> Session {
        parse_file(&self.session_dir().join("session.json"))
    }

    /// The latest `evidence.json`, parsed strictly (`None` for `null`).
    pub fn evidence(&self) -> Option<Evidence> {
        parse_file(&self.session_dir().join("evidence.json"))
    }

    /// The events kept in the latest `session.json`.
    pub fn events(&self) -> Vec<Event> {
        self.session().events
    }

    /// The events of the latest `events.ndjson`, each line parsed strictly.
    pub fn events_file(&self) -> Vec<Event> {
        let path = self.session_dir().join("events.ndjson");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        parse_ndjson(&text)
    }

    /// The tracer's stdout as NDJSON events (`--ndjson`), each line parsed strictly.
    pub fn stdout_events(&self) -> Vec<Event> {
        parse_ndjson(&self.stdout())
    }
}

/// Parses NDJSON text into events, failing on any line that is not one.
pub fn parse_ndjson(text: &str) -> Vec<Event> {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("line {} is not an event ({e}): {line:.300}", i + 1))
        })
        .collect()
}

/// The session id `OUT/latest` names: a link to `sessions/<id>`.
pub fn latest_in(out_dir: &Path) -> Result<String, String> {
    let latest = out_dir.join("latest");
    let target = std::fs::read_link(&latest)
        .map_err(|e| format!("reading the link {}: {e}", latest.display()))?;
    let id = target
        .strip_prefix("sessions")
        .ok()
        .and_then(|id| id.to_str())
        .filter(|id| !id.is_empty() && !id.contains('/'))
        .ok_or_else(|| format!("{} points at {}", latest.display(), target.display()))?;
    Ok(id.to_owned())
}

pub fn parse_file<T: serde::de::DeserializeOwned>(path: &Path) -> T {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("parsing {} ({e}):\n{text:.2000}", path.display()))
}

/// The events of `kind`.
pub fn of_kind(events: &[Event], kind: Kind) -> Vec<&Event> {
    events.iter().filter(|e| e.kind == kind).collect()
}

/// The values of the output events of `stream` ("stdout" / "stderr"), in order.
pub fn output_lines(events: &[Event], stream: tracer::trace::event::Stream) -> Vec<String> {
    events
        .iter()
        .filter(|e| e.kind == Kind::Output && e.stream == Some(stream))
        .map(|e| e.value.clone().unwrap_or_default())
        .collect()
}

/// Every file path an event names, in its position, its generated position and its call stack.
pub fn event_paths(event: &Event) -> Vec<String> {
    let mut paths: Vec<String> = event.file.iter().cloned().collect();
    paths.extend(event.generated.iter().map(|g| g.file.clone()));
    for frame in &event.call_stack {
        paths.push(frame.file.clone());
        paths.extend(frame.generated.iter().map(|g| g.file.clone()));
    }
    paths
}

/// Every file path the evidence names as a position (failure, user frame, chain steps).
pub fn evidence_paths(evidence: &Evidence) -> Vec<String> {
    let failure = &evidence.failure;
    let mut paths: Vec<String> = failure.file.iter().cloned().collect();
    paths.extend(failure.generated.iter().map(|g| g.file.clone()));
    if let Some(frame) = &failure.user_frame {
        paths.push(frame.file.clone());
        paths.extend(frame.generated.iter().map(|g| g.file.clone()));
    }
    for step in evidence
        .immediate_cause
        .iter()
        .chain(&evidence.previous_state_transitions)
    {
        paths.extend(step.file.iter().cloned());
    }
    paths
}

fn write(path: &Path, contents: &[u8]) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, contents).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

fn drain(mut reader: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = reader.read_to_end(&mut bytes);
        bytes
    })
}

/// Processes of the group `pgid` that are alive (not zombies), from `/proc`.
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    let mut live = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some((state, pgrp)) = proc_stat(pid)
            && pgrp == pgid
            && !matches!(state, 'Z' | 'X')
        {
            live.push(pid);
        }
    }
    live
}

/// Whether process `pid` is alive (exists and is not a zombie).
pub fn alive(pid: u32) -> bool {
    proc_stat(pid).is_some_and(|(state, _)| !matches!(state, 'Z' | 'X'))
}

/// `(state, process group)` of `pid` from `/proc/PID/stat`.
fn proc_stat(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// Asserts that neither the program's process group nor the extra `pids` has a live process.
/// A SIGKILL already sent takes a moment to land, so this waits up to a few seconds for them to go
/// (a tolerance for asynchronous teardown, not a timing assertion), then kills any survivor so one
/// failing test does not leave processes behind.
#[track_caller]
pub fn assert_nothing_left_running(pgid: u32, pids: &[u32]) {
    let deadline = Instant::now() + Duration::from_secs(5);
    let survivors = loop {
        let mut survivors = live_group_members(pgid);
        let extra: Vec<u32> = pids
            .iter()
            .copied()
            .filter(|&p| alive(p) && !survivors.contains(&p))
            .collect();
        survivors.extend(extra);
        if survivors.is_empty() || Instant::now() >= deadline {
            break survivors;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    for &pid in &survivors {
        // SAFETY: kill(2) on a pid we just saw in the program's group; no memory is touched.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    assert!(
        survivors.is_empty(),
        "processes of the traced program outlived the tracer: {survivors:?}"
    );
}

/// Last resort after a hang: kill the program groups the workspace's sessions name.
fn kill_sessions_programs(work: &Path) {
    let sessions = work.join(".tracer").join("sessions");
    for entry in std::fs::read_dir(sessions).into_iter().flatten().flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path().join("session.json")) else {
            continue;
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        if let Some(pid) = value.get("pid").and_then(serde_json::Value::as_u64) {
            // SAFETY: kill(2) on a process group; no memory is touched.
            unsafe { libc::kill(-(pid as i32), libc::SIGKILL) };
        }
    }
}

/// `examples/EXAMPLE`'s `files` (paths inside it) copied into a temporary folder, with its
/// `node_modules` linked in; `None` (the test skipped, saying so) when a package of `needs` is
/// not installed there (`.ci/run` installs them: `npm ci` in the example).
pub fn example_copy(
    example: &str,
    files: &[&str],
    needs: &[&str],
    test: &str,
) -> Option<tempfile::TempDir> {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(example);
    let modules = from.join("node_modules");
    if let Some(missing) = needs.iter().find(|package| !modules.join(package).is_dir()) {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: needs {} (`npm ci` in examples/{example})",
            modules.join(missing).display()
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from.join(file), &to).unwrap();
    }
    std::os::unix::fs::symlink(&modules, dir.path().join("node_modules")).unwrap();
    Some(dir)
}

/// `tracer ARGS...` run in `dir` as it is (no workspace of its own), colour off: for tests that lay
/// out a case folder themselves.
pub fn tracer_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracer"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env("TERM", "dumb")
        .output()
        .expect("running tracer")
}

/// `tracer audit` of a case folder's entry, as the examples lay it out (`case/result/final.js`).
pub const AUDIT_CASE: [&str; 5] = [
    "audit",
    "--case-dir",
    "case",
    "--entry",
    "case/result/final.js",
];

/// The pids `forever.js` (a fixture) prints on its line containing `pids`: its own and its
/// `sleep` grandchild's.
pub fn program_pids(line: &str) -> (u32, u32) {
    let mut words = line.split_whitespace().skip_while(|w| *w != "pids").skip(1);
    let mut next = || {
        words
            .next()
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("no pids in {line:?}"))
    };
    (next(), next())
}
pub mod browser;
