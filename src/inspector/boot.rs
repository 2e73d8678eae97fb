//! The bootloader and its private channel: how every Node process of a traced command tree tells
//! tracer where its inspector listens.
//!
//! tracer makes a folder only its user can enter (0700), writes `boot.js` and a FIFO there, and
//! gives the command `NODE_OPTIONS="--\inspect-publish-uid=stderr" --require …/boot.js` and
//! `TRACER_BOOT=…/channel`. In each Node process (whatever started it: a shell, npm, a test runner,
//! `fork`, `spawn(process.execPath, …)`), the bootloader opens the inspector on 127.0.0.1 with a
//! random port, writes one JSON line to the FIFO, and waits for tracer to release it. Nothing is
//! read from a shared stderr: a program cannot hide a child, and a report is attached to only when
//! the process it names holds that listening port and was started with this channel in its
//! environment (`verify`), so no code under trace can make tracer connect to a port of its choice.

use std::io::{self, Read};
use std::net::SocketAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::Duration;

use serde::Deserialize;

/// The bootloader, preloaded into every Node process of the tree.
pub const BOOT_JS: &str = include_str!("boot.js");
/// The binding through which the bootloader sends console calls in batches (see
/// `Driver::capture_console_in_batches`); added to the program's main context only, taken and
/// deleted by the bootloader before the program's first line.
pub const CONSOLE_BINDING: &str = "__tracerConsole";
/// The environment variable naming the channel (the FIFO).
pub const CHANNEL_ENV: &str = "TRACER_BOOT";
/// The longest report line read; a longer one is skipped (the bootloader writes at most 4000
/// bytes, so only a forged one can be longer).
const MAX_LINE: usize = 8192;

/// What one process said on the channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub pid: u32,
    pub ppid: u32,
    /// `process.argv` (at most 16 items of 200 characters).
    pub argv: Vec<String>,
    /// Node's `process.version`, as the bootloader reported it with its URL (at most
    /// `MAX_VERSION` characters, else none).
    pub version: Option<String>,
    /// With a URL: Node will tell the client when it starts to wait for the release
    /// (`NodeRuntime.waitingForDebugger`, Node 20.12 and 21.7 on), and the bootloader works on
    /// until then (see `Driver::start`).
    pub announces: bool,
    pub says: Says,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Says {
    /// Its inspector listens at this `ws://127.0.0.1:PORT/…` URL and it waits to be released.
    Listening(String),
    /// A package manager's own process (npm, npx, pnpm, yarn, corepack): not traced.
    Launcher,
    /// It is exiting with this code.
    Exit(i32),
    /// It could not open an inspector (why, as Node said): not traced, not waiting.
    Untraced(String),
}

#[derive(Deserialize)]
struct Line {
    pid: u32,
    #[serde(default)]
    ppid: u32,
    #[serde(default)]
    argv: Vec<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    launcher: bool,
    #[serde(default)]
    exit: Option<i32>,
    #[serde(default)]
    untraced: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    announces: bool,
}

/// The longest `process.version` kept from a report (`v20.20.2`; a build's own suffix fits).
const MAX_VERSION: usize = 64;

/// The report a line holds. A line another process began without ending it (a partial write such
/// as `{"pid":`, which the bootloader never makes: its reports are one write each) runs into the
/// report after it: the report is then the last whole JSON object the line ends with, so that a
/// stray partial line costs no process its trace.
fn parse(line: &[u8]) -> Option<Report> {
    parse_one(line).or_else(|| {
        line.iter()
            .enumerate()
            .skip(1)
            .filter(|&(_, &b)| b == b'{')
            .find_map(|(at, _)| parse_one(&line[at..]))
    })
}

fn parse_one(line: &[u8]) -> Option<Report> {
    let line: Line = serde_json::from_slice(line).ok()?;
    let says = match (line.url, line.launcher, line.exit, line.untraced) {
        (Some(url), ..) => Says::Listening(url),
        (None, true, ..) => Says::Launcher,
        (None, false, Some(code), _) => Says::Exit(code),
        (None, false, None, Some(why)) => Says::Untraced(why),
        _ => return None,
    };
    Some(Report {
        pid: line.pid,
        ppid: line.ppid,
        argv: line.argv,
        version: line
            .version
            .filter(|v| v.len() <= MAX_VERSION && v.starts_with('v')),
        announces: line.announces && matches!(says, Says::Listening(_)),
        says,
    })
}

/// The private folder, the bootloader in it and the channel. Dropping it removes the folder.
pub struct Channel {
    dir: tempfile::TempDir,
    fifo: PathBuf,
    boot: PathBuf,
    stop: Arc<AtomicBool>,
    /// The FIFO as tracer opened it (a descriptor, never its path again: a link put in its place
    /// is never written through), to wake the reading thread at the end.
    waker: std::sync::Mutex<Option<std::fs::File>>,
}

impl Channel {
    /// Makes the folder (0700, in [`parent`]), the bootloader and the FIFO; in the temporary
    /// directory when that fails in memory (a full `/dev/shm`: 64 MiB in a Docker container).
    pub fn create() -> io::Result<Channel> {
        let named = |folder: &Path, e: io::Error| {
            io::Error::new(e.kind(), format!("in {}: {e}", folder.display()))
        };
        let parent = parent();
        Channel::create_in(&parent).or_else(|e| {
            let fallback = std::env::temp_dir();
            if fallback == parent {
                return Err(named(&parent, e));
            }
            Channel::create_in(&fallback).map_err(|e| named(&fallback, e))
        })
    }

    fn create_in(parent: &Path) -> io::Result<Channel> {
        let dir = tempfile::Builder::new()
            .prefix(crate::trace::mapper::BOOT_FOLDER_PREFIX)
            .tempdir_in(parent)?;
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )?;
        let boot = dir.path().join("boot.js");
        std::fs::write(&boot, BOOT_JS.as_bytes())?;
        let fifo = dir.path().join("channel");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes())
            .map_err(|_| io::Error::other("the channel's path holds a NUL byte"))?;
        // SAFETY: mkfifo with a valid NUL-terminated path; no memory is kept.
        if unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Channel {
            dir,
            fifo,
            boot,
            stop: Arc::new(AtomicBool::new(false)),
            waker: std::sync::Mutex::new(None),
        })
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// What dropping the channel removes, in the order to remove it: the FIFO, the bootloader,
    /// their folder (the watchdog removes them if tracer dies without dropping it).
    pub fn leftovers(&self) -> [&Path; 3] {
        [&self.fifo, &self.boot, self.dir.path()]
    }

    /// The environment the command gets: `TRACER_BOOT`, and `NODE_OPTIONS` with the bootloader
    /// first and every `--inspect*`/`--debug*` flag of `user` removed.
    pub fn env(&self, user: Option<&str>) -> Vec<(String, String)> {
        // `--inspect-publish-uid=stderr`: the session's UUID is not served over HTTP
        // (`/json/list`), so knowing the port is not enough to attach. Written with an escape
        // (`"--\inspect…"`, which Node's parser of this variable reads as `--inspect…`) so that
        // a tool looking for a debugger flag in NODE_OPTIONS (Node's own test runner: it then
        // runs its files one at a time, with a warning) finds none.
        let mut options = format!(
            "\"--\\inspect-publish-uid=stderr\" --require {}",
            crate::inspector::launch::quote_node_option(&self.boot.to_string_lossy())
        );
        let kept = user
            .map(crate::inspector::launch::strip_inspect_options)
            .unwrap_or_default();
        if !kept.is_empty() {
            options.push(' ');
            options.push_str(&kept);
        }
        vec![
            (
                CHANNEL_ENV.to_owned(),
                self.fifo.to_string_lossy().into_owned(),
            ),
            ("NODE_OPTIONS".to_owned(), options),
        ]
    }

    /// Opens the channel for reading (from then on a bootloader's non-blocking open finds a
    /// reader); `Reader::listen` starts the thread. Apart so that the program can be spawned in
    /// between: a thread starting while tracer forks made the fork 0.5–1 ms slower.
    pub fn open_reader(&self) -> io::Result<Reader> {
        // Read and write: the FIFO then always has a writer, so a read never sees its end between
        // two processes' reports, and a bootloader's non-blocking open always finds a reader.
        // Never through a link (O_NOFOLLOW), and only the FIFO tracer made.
        let fifo = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOFOLLOW)
            .open(&self.fifo)?;
        {
            use std::os::unix::fs::FileTypeExt;
            if !fifo.metadata()?.file_type().is_fifo() {
                return Err(io::Error::other(format!(
                    "{} is not the channel tracer made (not a FIFO)",
                    self.fifo.display()
                )));
            }
        }
        *self.waker.lock().unwrap_or_else(|e| e.into_inner()) = fifo.try_clone().ok();
        Ok(Reader {
            fifo,
            stop: Arc::clone(&self.stop),
        })
    }

    /// Ends the reading thread: the flag, then an empty line that wakes it.
    pub fn close(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(fifo) = self
            .waker
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            let _ = std::io::Write::write_all(fifo, b"\n");
        }
    }

    /// What checks a report against this channel.
    pub fn verifier(&self) -> Verifier {
        Verifier {
            wanted: format!("{CHANNEL_ENV}={}", self.fifo.to_string_lossy()),
        }
    }
}

/// Where the bootloader's folder is made: `$TMPDIR` when it is set; else `$XDG_RUNTIME_DIR` (the
/// user's own folder for FIFOs and the like, 0700) when it is one; else `/dev/shm` when it is a
/// memory file system anyone may create in, as `/tmp` is (sticky, 1777); else `/tmp`. A folder
/// in memory is made and removed faster than on a disk's file system, and the removal is on the
/// path from the program's exit to tracer's.
pub fn parent() -> PathBuf {
    if std::env::var_os("TMPDIR").is_some() {
        return std::env::temp_dir();
    }
    let private = |path: &Path| {
        std::fs::symlink_metadata(path).is_ok_and(|m| {
            use std::os::unix::fs::MetadataExt;
            // SAFETY: getuid has no preconditions.
            m.is_dir() && m.uid() == unsafe { libc::getuid() } && m.mode() & 0o777 == 0o700
        })
    };
    if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from) {
        if runtime.is_absolute() && private(&runtime) {
            return runtime;
        }
    }
    let shm = Path::new("/dev/shm");
    let shared_like_tmp = std::fs::symlink_metadata(shm).is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.is_dir() && m.mode() & 0o7777 == 0o1777
    });
    if shared_like_tmp && in_memory(shm) {
        return shm.to_owned();
    }
    std::env::temp_dir()
}

/// Whether `path` is on a memory file system (tmpfs).
fn in_memory(path: &Path) -> bool {
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: statfs fills the zeroed struct it is given from a valid NUL-terminated path.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    (unsafe { libc::statfs(c_path.as_ptr(), &mut fs) }) == 0 && fs.f_type == libc::TMPFS_MAGIC
}

/// Checks that a report comes from a process of this run, about its own inspector.
#[derive(Debug, Clone)]
pub struct Verifier {
    /// `TRACER_BOOT=…` as it is in the environment of every process the run started.
    wanted: String,
}

impl Verifier {
    /// `TRACER_BOOT=…` as it is in the environment of every process of the run.
    pub fn marker(&self) -> &[u8] {
        self.wanted.as_bytes()
    }

    /// Whether `pid` was started with this channel in its environment.
    pub fn started_under(&self, pid: u32) -> bool {
        std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
            environ
                .split(|&b| b == 0)
                .any(|entry| entry == self.wanted.as_bytes())
        })
    }

    /// The address tracer may connect to for `url`, reported by `pid`: only a 127.0.0.1 URL whose
    /// port `pid` itself listens on, in a process started under this channel.
    pub fn verify(&self, pid: u32, url: &str) -> Result<SocketAddr, String> {
        if !self.started_under(pid) {
            return Err(format!(
                "process {pid} was not started by this run (its environment does not name the channel)"
            ));
        }
        Self::verify_program(pid, url)
    }

    /// `verify` for the program itself: tracer's own child, not yet reaped (so its pid cannot
    /// have been reused), started with the channel in its environment by tracer. Only the URL
    /// and the port are checked (its environment is not read again on the path to the attach).
    pub fn verify_program(pid: u32, url: &str) -> Result<SocketAddr, String> {
        let address = crate::inspector::cdp::loopback_address(url).map_err(|e| format!("{e:#}"))?;
        if !crate::inspector::launch::process_listens_on(pid, address.port()) {
            return Err(format!(
                "process {pid} does not listen on 127.0.0.1:{}",
                address.port()
            ));
        }
        Ok(address)
    }
}

/// The channel, open for reading: `listen` reads it on a thread of its own.
pub struct Reader {
    fifo: std::fs::File,
    stop: Arc<AtomicBool>,
}

impl Reader {
    /// Reads reports on a thread of its own and sends each to `reports`, until the channel's
    /// `close`.
    pub fn listen(self, reports: Sender<Report>) -> std::thread::JoinHandle<()> {
        let Reader { mut fifo, stop } = self;
        std::thread::spawn(move || {
            let mut pending: Vec<u8> = Vec::new();
            let mut buffer = [0u8; 8192];
            let mut skipping = false;
            loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let n = match fifo.read(&mut buffer) {
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        wait_readable(&fifo, Duration::from_millis(20));
                        continue;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => return,
                };
                for &byte in &buffer[..n] {
                    if byte == b'\n' {
                        if !skipping
                            && let Some(report) = parse(&pending).map(in_tracer_s_pids)
                            && reports.send(report).is_err()
                        {
                            return;
                        }
                        pending.clear();
                        skipping = false;
                    } else if pending.len() < MAX_LINE {
                        pending.push(byte);
                    } else {
                        skipping = true;
                    }
                }
            }
        })
    }
}

/// The report with its pids as tracer sees them: a process in the audit's sandbox reports the
/// pids of the sandbox's PID namespace. One that names no process of the sandbox gets pid 0,
/// which no check accepts.
fn in_tracer_s_pids(mut report: Report) -> Report {
    if let Some(sandbox) = crate::sandbox::current() {
        report.pid = sandbox.host_pid(report.pid).unwrap_or(0);
        report.ppid = sandbox.host_pid(report.ppid).unwrap_or(0);
    }
    report
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.close();
    }
}

fn wait_readable(file: &std::fs::File, limit: Duration) {
    use std::os::fd::AsRawFd;
    let mut poll = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd we own, a bounded timeout.
    unsafe {
        libc::poll(&mut poll, 1, limit.as_millis() as libc::c_int);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bootloader_takes_the_console_binding_tracer_adds() {
        // Taken from the global and deleted before the program's first line.
        assert!(BOOT_JS.contains(&format!("const send = globalThis.{CONSOLE_BINDING};")));
        assert!(BOOT_JS.contains(&format!("delete globalThis.{CONSOLE_BINDING};")));
        // A batch starts with its count, which the driver reads without parsing it.
        assert!(BOOT_JS.contains("{ count: calls.length, calls }"));
    }

    #[test]
    fn reports_are_read_as_the_bootloader_writes_them() {
        let report = parse(
            br#"{"pid":7,"ppid":3,"argv":["/usr/bin/node","/w/a.js"],"url":"ws://127.0.0.1:9/x"}"#,
        )
        .unwrap();
        assert_eq!(report.pid, 7);
        assert_eq!(report.ppid, 3);
        assert_eq!(report.says, Says::Listening("ws://127.0.0.1:9/x".into()));
        assert_eq!(report.version, None);
        let with_version = parse(br#"{"pid":7,"url":"ws://127.0.0.1:9/x","version":"v20.20.2"}"#);
        assert_eq!(with_version.unwrap().version.as_deref(), Some("v20.20.2"));
        // Not a version: not kept (it would be the session's capabilities).
        let odd = parse(br#"{"pid":7,"url":"ws://127.0.0.1:9/x","version":"20; rm"}"#);
        assert_eq!(odd.unwrap().version, None);
        // Node announces its wait: only with a URL; absent, it does not.
        assert!(!report.announces);
        let announced = parse(br#"{"pid":7,"url":"ws://127.0.0.1:9/x","announces":true}"#);
        assert!(announced.unwrap().announces);
        let launcher = parse(br#"{"pid":7,"launcher":true,"announces":true}"#).unwrap();
        assert!(!launcher.announces);
        assert_eq!(
            parse(br#"{"pid":8,"launcher":true}"#).unwrap().says,
            Says::Launcher
        );
        assert_eq!(parse(br#"{"pid":8,"exit":3}"#).unwrap().says, Says::Exit(3));
        assert!(parse(br#"{"pid":8}"#).is_none());
        assert!(parse(b"not json").is_none());
        // Another process's partial line ran into a report: the report still reads.
        let spoiled = parse(br#"{"pid":{"pid":9,"url":"ws://127.0.0.1:9/y"}"#).unwrap();
        assert_eq!(
            (spoiled.pid, spoiled.says),
            (9, Says::Listening("ws://127.0.0.1:9/y".into()))
        );
    }

    #[test]
    fn the_channel_is_never_written_through_a_link_put_in_its_place() {
        let channel = Channel::create().unwrap();
        let (tx, _rx) = std::sync::mpsc::channel();
        let reader = channel.open_reader().unwrap().listen(tx);
        let victim = tempfile::NamedTempFile::new().unwrap();
        std::fs::remove_file(&channel.fifo).unwrap();
        std::os::unix::fs::symlink(victim.path(), &channel.fifo).unwrap();
        channel.close();
        reader.join().unwrap();
        assert_eq!(
            std::fs::read(victim.path()).unwrap(),
            b"",
            "nothing written through the link"
        );
        // A link there before the reader opens is refused.
        let again = Channel::create().unwrap();
        std::fs::remove_file(&again.fifo).unwrap();
        std::os::unix::fs::symlink(victim.path(), &again.fifo).unwrap();
        assert!(again.open_reader().is_err());
    }

    #[test]
    fn a_path_with_spaces_is_quoted_for_node_options() {
        use crate::inspector::launch::quote_node_option;
        assert_eq!(quote_node_option("/tmp/a/boot.js"), "/tmp/a/boot.js");
        assert_eq!(
            quote_node_option("/tmp/a b/boot.js"),
            "\"/tmp/a b/boot.js\""
        );
        assert_eq!(quote_node_option("/tmp/a\"b"), "\"/tmp/a\\\"b\"");
    }

    #[test]
    fn the_channel_carries_reports_and_refuses_a_process_it_did_not_start() {
        let channel = Channel::create().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = channel.open_reader().unwrap().listen(tx);
        let env = channel.env(Some("--inspect=0.0.0.0:9229 --max-old-space-size=64"));
        let options = &env.iter().find(|(k, _)| k == "NODE_OPTIONS").unwrap().1;
        assert!(
            options.starts_with("\"--\\inspect-publish-uid=stderr\" --require "),
            "{options}"
        );
        assert!(!options.contains("--inspect"), "{options}");
        assert!(options.ends_with(" --max-old-space-size=64"), "{options}");
        assert!(!options.contains("0.0.0.0"));
        let fifo = &env.iter().find(|(k, _)| k == CHANNEL_ENV).unwrap().1;
        std::fs::write(fifo, b"{\"pid\":1,\"url\":\"ws://127.0.0.1:1/a\"}\n").unwrap();
        let report = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(report.pid, 1);
        // pid 1 was not started with this channel in its environment.
        let verifier = channel.verifier();
        assert!(verifier.verify(1, "ws://127.0.0.1:1/a").is_err());
        assert!(!verifier.started_under(std::process::id()));
        assert!(
            verifier
                .verify(std::process::id(), "ws://10.0.0.1:1/a")
                .is_err()
        );
        channel.close();
        reader.join().unwrap();
    }
}
