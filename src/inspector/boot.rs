//! The bootloader and its private channel: how every Node process of a traced command tree tells
//! tracer where its inspector listens.
//!
//! tracer makes a folder only its user can enter (0700) with `boot.js` in it, and a pair of
//! connected datagram sockets: it reads one end; the other is inherited by the command (at a high
//! descriptor number) and by everything it starts. The command gets `NODE_OPTIONS="--\inspect-publish-uid=stderr"
//! --require …/boot.js` and `TRACER_BOOT=FD:INODE:FOLDER`. In each Node process (whatever started
//! it: a shell, npm, a test runner, `fork`, `spawn(process.execPath, …)`), the bootloader opens
//! the inspector on 127.0.0.1 with a random port, sends one JSON report (one datagram: reports
//! never interleave, and no partial one can spoil another) and waits for tracer to release it.
//!
//! The kernel states who sent each report (`SCM_CREDENTIALS`, in tracer's PID namespace): a report
//! is taken only from the process it names (in the audit's sandbox, the pid the process has there),
//! and attached to only when that process runs a Node executable, was started with this channel in
//! its environment, and itself holds the listening port (`Verifier`). The socket has no name: no
//! process outside the tree can write to it or read reports off it, and nothing is read from a
//! shared stderr. So no code under trace can make tracer connect to a port of its choice, or speak
//! for another process.

use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::Duration;

use crate::process::{find, listening, node_options, unix};
use serde::Deserialize;

/// The prefix of the folder tracer writes its bootloader into for a run (`boot.js`, in a fresh
/// folder of the memory-backed or temporary directory).
pub const BOOT_FOLDER_PREFIX: &str = "tracer-boot-";
/// The bootloader, preloaded into every Node process of the tree.
/// Its two files (`bootloader/boot.js`, then the console capture, `bootloader/console.js`) are one
/// closure.
pub const BOOT_JS: &str = concat!(
    include_str!("bootloader/boot.js"),
    include_str!("bootloader/console.js"),
);
/// The binding through which the bootloader sends console calls in batches (see
/// `Driver::capture_console_in_batches`); added to the program's main context only, taken and
/// deleted by the bootloader before the program's first line.
pub const CONSOLE_BINDING: &str = "__tracerConsole";
/// The folder in the run's folder that holds `boot.js`.
const BOOT_SUBFOLDER: &str = "node_modules";
/// The environment variable naming the channel (`FD:INODE:FOLDER`).
pub const CHANNEL_ENV: &str = "TRACER_BOOT";
/// The longest report read; a longer datagram is cut there and then fails to parse (the
/// bootloader writes at most 4000 bytes, so only a forged one can be longer).
const MAX_LINE: usize = 8192;
/// The lowest descriptor number the command gets the channel at: above any a program's `stdio`
/// array would give its children.
const CHANNEL_FD_FLOOR: libc::c_int = 100;

/// What one process said on the channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelReport {
    pub pid: u32,
    pub ppid: u32,
    /// `process.argv` (at most 16 items of 200 characters).
    pub argv: Vec<String>,
    /// `process.execArgv`, Node's own flags (at most 8 items of 200 characters).
    pub exec_argv: Vec<String>,
    /// Node's `process.version`, as the bootloader reported it with its URL (at most
    /// `MAX_VERSION` characters, else none).
    pub version: Option<String>,
    /// With a URL: Node will tell the client when it starts to wait for the release
    /// (`NodeRuntime.waitingForDebugger`, Node 20.12 and 21.7 on), and the bootloader works on
    /// until then (see `Driver::start`).
    pub announces: bool,
    /// With a URL: its own flags (`process.execArgv`) load code before its script (`--import`,
    /// `--require`, `--loader`): the script may run transformed.
    pub loader: bool,
    pub says: Says,
    /// With an exit: the user's CommonJS modules its module cache held (absolute paths outside
    /// `node_modules`, as many as the report holds).
    pub modules: Vec<String>,
    /// Why the report is not believed, when it is not: it names another process than the one the
    /// kernel says sent it. Such a report is listed, never acted on.
    pub refused: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Says {
    /// Its inspector listens at this `ws://127.0.0.1:PORT/…` URL and it waits to be released.
    Listening(String),
    /// A package manager's own process (npm, npx, pnpm, yarn, corepack): not traced.
    Launcher,
    /// It is exiting with this code.
    Exit(i32),
    /// It could not open an inspector (why, in a sentence with Node's words), or its own
    /// `--inspect` flag had opened one: not traced, not waiting.
    Untraced(String),
}

#[derive(Deserialize)]
struct Line {
    pid: u32,
    #[serde(default)]
    ppid: u32,
    #[serde(default)]
    argv: Vec<String>,
    #[serde(default, rename = "execArgv")]
    exec_argv: Vec<String>,
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
    #[serde(default)]
    loader: bool,
    #[serde(default)]
    modules: Vec<String>,
}

/// The longest `process.version` kept from a report (`v20.20.2`; a build's own suffix fits).
const MAX_VERSION: usize = 64;

/// The report one datagram holds.
fn parse(line: &[u8]) -> Option<ChannelReport> {
    let line: Line = serde_json::from_slice(line).ok()?;
    let says = match (line.url, line.launcher, line.exit, line.untraced) {
        (Some(url), ..) => Says::Listening(url),
        (None, true, ..) => Says::Launcher,
        (None, false, Some(code), _) => Says::Exit(code),
        (None, false, None, Some(why)) => Says::Untraced(why),
        _ => return None,
    };
    Some(ChannelReport {
        pid: line.pid,
        ppid: line.ppid,
        argv: line.argv,
        exec_argv: line.exec_argv,
        version: line
            .version
            .filter(|v| v.len() <= MAX_VERSION && v.starts_with('v')),
        announces: line.announces && matches!(says, Says::Listening(_)),
        loader: line.loader && matches!(says, Says::Listening(_)),
        modules: if matches!(says, Says::Exit(_)) {
            line.modules
        } else {
            Vec::new()
        },
        says,
        refused: None,
    })
}

/// The private folder, the bootloader in it and the channel. Dropping it removes the folder.
pub struct Channel {
    dir: tempfile::TempDir,
    boot: PathBuf,
    /// Who made the folder (`owner_stamp`), for `sweep_stale`.
    owner: PathBuf,
    /// tracer's end, with `SO_PASSCRED` on.
    reading: OwnedFd,
    /// The command's end, close-on-exec here (the spawn passes it on).
    sending: OwnedFd,
    /// `FD:INODE:FOLDER`, the value of `TRACER_BOOT`.
    name: String,
    stop: Arc<AtomicBool>,
}

impl Channel {
    /// Makes the folder (0700, in [`parent`]), the bootloader and the sockets; in the temporary
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
        sweep_stale(parent);
        let dir = tempfile::Builder::new()
            .prefix(BOOT_FOLDER_PREFIX)
            .tempdir_in(parent)?;
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )?;
        // Named before the bootloader is written: a folder without it is never swept.
        let owner = dir.path().join(OWNER_FILE);
        std::fs::write(&owner, owner_stamp(std::process::id()).unwrap_or_default())?;
        // Under a `node_modules` folder: coverage tools leave such files out (Node's test runner,
        // c8, nyc, jest, vitest), so the bootloader is never a row of the program's coverage.
        std::fs::create_dir(dir.path().join(BOOT_SUBFOLDER))?;
        let boot = dir.path().join(BOOT_SUBFOLDER).join("boot.js");
        std::fs::write(&boot, BOOT_JS.as_bytes())?;
        let (reading, sending) = unix::pair(libc::SOCK_DGRAM)?;
        unix::pass_credentials(&reading)?;
        let sending = above_floor(sending);
        let inode = std::fs::metadata(format!("/proc/self/fd/{}", sending.as_raw_fd()))
            .map(|m| std::os::unix::fs::MetadataExt::ino(&m))?;
        let name = format!(
            "{}:{inode}:{}",
            sending.as_raw_fd(),
            dir.path().to_string_lossy()
        );
        Ok(Channel {
            dir,
            boot,
            owner,
            reading,
            sending,
            name,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The descriptor the command must inherit (it is close-on-exec in tracer): the spawn clears
    /// that flag in the child.
    pub fn command_end(&self) -> RawFd {
        self.sending.as_raw_fd()
    }

    /// What dropping the channel removes, in the order to remove it: the bootloader, its folder,
    /// the owner's stamp, their folder (the watchdog removes them if tracer dies without dropping
    /// it; the next run's `sweep_stale` if the watchdog was killed first).
    pub fn leftovers(&self) -> [&Path; 4] {
        [
            &self.boot,
            self.boot.parent().unwrap_or(self.dir.path()),
            &self.owner,
            self.dir.path(),
        ]
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
            node_options::quote_node_option(&self.boot.to_string_lossy())
        );
        let kept = user
            .map(node_options::strip_inspect_options)
            .unwrap_or_default();
        if !kept.is_empty() {
            options.push(' ');
            options.push_str(&kept);
        }
        vec![
            (CHANNEL_ENV.to_owned(), self.name.clone()),
            ("NODE_OPTIONS".to_owned(), options),
        ]
    }

    /// tracer's end, for reading: `Reader::listen` starts the thread. Apart so that the program can
    /// be spawned in between: a thread starting while tracer forks made the fork 0.5–1 ms slower.
    pub fn open_reader(&self) -> io::Result<Reader> {
        Ok(Reader {
            socket: self.reading.try_clone()?,
            stop: Arc::clone(&self.stop),
        })
    }

    /// Ends the reading thread: the flag, then an empty datagram on tracer's own copy of the
    /// command's end that wakes it at once (it is no report).
    pub fn close(&self) {
        self.stop.store(true, Ordering::Relaxed);
        // SAFETY: a zero-length send on a socket we own; MSG_DONTWAIT: never waits on a full queue.
        unsafe {
            libc::send(
                self.sending.as_raw_fd(),
                std::ptr::null(),
                0,
                libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
            )
        };
    }

    /// What checks a report against this channel.
    pub fn verifier(&self) -> Verifier {
        Verifier {
            wanted: format!("{CHANNEL_ENV}={}", self.name),
            nodes: Vec::new(),
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

/// The file in a bootloader folder that names the tracer that made it (`owner_stamp`).
const OWNER_FILE: &str = "owner";

/// Who made a bootloader folder: the PID namespace, the pid and the start time (in clock ticks
/// since boot, `/proc/PID/stat`) of process `pid`, so that a pid used again is not taken for it.
fn owner_stamp(pid: u32) -> Option<String> {
    let ns = std::fs::metadata(format!("/proc/{pid}/ns/pid"))
        .map(|m| std::os::unix::fs::MetadataExt::ino(&m))
        .ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) can hold anything: the fields after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 1..];
    let start = rest.split_whitespace().nth(19)?;
    Some(format!("{ns} {pid} {start}\n"))
}

/// Removes the bootloader folders in `parent` whose tracer is gone without removing its own: one
/// killed together with its watchdog (a program can do that under `tracer run`, as the same
/// user). Only a folder of this user holding nothing but what tracer writes (`node_modules/boot.js`
/// and the owner's stamp), whose stamp names a process of this PID namespace that no longer runs (or a pid
/// now another process's): a folder of a running tracer, of another namespace, or with anything
/// else in it is left alone.
fn sweep_stale(parent: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let Some(own_ns) = owner_stamp(std::process::id())
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
    else {
        return;
    };
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(BOOT_FOLDER_PREFIX))
        {
            continue;
        }
        let folder = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&folder) else {
            continue;
        };
        if !meta.is_dir() || meta.uid() != uid {
            continue;
        }
        let Ok(stamp) = std::fs::read_to_string(folder.join(OWNER_FILE)) else {
            continue;
        };
        let mut fields = stamp.split_whitespace();
        let (Some(ns), Some(pid), Some(_)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if ns != own_ns || owner_stamp(pid).as_deref() == Some(stamp.as_str()) {
            continue;
        }
        let Ok(inside) = std::fs::read_dir(&folder) else {
            continue;
        };
        let sub = folder.join(BOOT_SUBFOLDER);
        let only_ours = inside.flatten().all(|e| {
            let name = e.file_name();
            (name == OWNER_FILE && e.file_type().is_ok_and(|t| t.is_file()))
                || (name == BOOT_SUBFOLDER
                    && e.file_type().is_ok_and(|t| t.is_dir())
                    && std::fs::read_dir(&sub).is_ok_and(|inside| {
                        inside.flatten().all(|e| {
                            e.file_name() == "boot.js" && e.file_type().is_ok_and(|t| t.is_file())
                        })
                    }))
        });
        if only_ours {
            let _ = std::fs::remove_file(sub.join("boot.js"));
            let _ = std::fs::remove_dir(&sub);
            let _ = std::fs::remove_file(folder.join(OWNER_FILE));
            let _ = std::fs::remove_dir(&folder);
        }
    }
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
    /// The Node executables a reporting process may run (device and inode): the one tracer
    /// starts, and `node` on `PATH` (what a command's scripts start).
    nodes: Vec<(u64, u64)>,
}

impl Verifier {
    /// `TRACER_BOOT=…` as it is in the environment of every process of the run.
    pub fn marker(&self) -> &[u8] {
        self.wanted.as_bytes()
    }

    /// The same verifier, taking `node` (besides `node` on `PATH`) as a Node executable.
    pub fn with_node(mut self, node: &Path) -> Verifier {
        let identity = |path: &Path| {
            std::fs::metadata(path).ok().map(|m| {
                (
                    std::os::unix::fs::MetadataExt::dev(&m),
                    std::os::unix::fs::MetadataExt::ino(&m),
                )
            })
        };
        let on_path = find::search_path(std::ffi::OsStr::new("node"));
        self.nodes = [Some(node), on_path.as_deref()]
            .into_iter()
            .flatten()
            .filter_map(identity)
            .collect();
        self
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
    /// port `pid` itself listens on, in a process running Node and started under this channel.
    pub fn verify(&self, pid: u32, url: &str) -> Result<SocketAddr, String> {
        if !self.started_under(pid) {
            return Err(format!(
                "process {pid} was not started by this run (its environment does not name the channel)"
            ));
        }
        self.runs_node(pid)?;
        Self::verify_program(pid, url)
    }

    /// Whether `pid` runs one of the Node executables (any, when none is known).
    fn runs_node(&self, pid: u32) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Ok(());
        }
        let exe = std::fs::metadata(format!("/proc/{pid}/exe"))
            .map_err(|e| format!("process {pid}'s executable cannot be read ({e})"))?;
        let identity = (
            std::os::unix::fs::MetadataExt::dev(&exe),
            std::os::unix::fs::MetadataExt::ino(&exe),
        );
        if self.nodes.contains(&identity) {
            Ok(())
        } else {
            let path = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
            Err(format!(
                "process {pid} runs {}, not the Node tracer starts or `node` on PATH",
                path.display()
            ))
        }
    }

    /// `verify` for the program itself: tracer's own child, not yet reaped (so its pid cannot
    /// have been reused), started with the channel in its environment by tracer. Only the URL
    /// and the port are checked (its environment is not read again on the path to the attach).
    pub fn verify_program(pid: u32, url: &str) -> Result<SocketAddr, String> {
        let address = crate::inspector::cdp::loopback_address(url).map_err(|e| format!("{e:#}"))?;
        if !listening::process_listens_on(pid, address.port(), crate::sandbox::current().is_some())
        {
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
    socket: OwnedFd,
    stop: Arc<AtomicBool>,
}

impl Reader {
    /// Reads reports on a thread of its own and sends each to `reports`, until the channel's
    /// `close`: each with the pid of the process that sent it (tracer's), or refused.
    pub fn listen(self, reports: Sender<ChannelReport>) -> std::thread::JoinHandle<()> {
        let Reader { socket, stop } = self;
        std::thread::spawn(move || {
            let mut buffer = vec![0u8; MAX_LINE];
            loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                match receive(&socket, &mut buffer) {
                    Ok(Some((len, sender))) => {
                        let text = &buffer[..len];
                        let text = text.strip_suffix(b"\n").unwrap_or(text);
                        if let Some(report) = parse(text).map(|r| from_sender(r, sender))
                            && reports.send(report).is_err()
                        {
                            return;
                        }
                    }
                    Ok(None) => wait_readable(&socket, Duration::from_millis(20)),
                    Err(_) => return,
                }
            }
        })
    }
}

/// One datagram and its sender's pid; `None` when nothing is waiting. A descriptor sent along is
/// never kept (it is closed as the message is dropped).
fn receive(socket: &OwnedFd, buffer: &mut [u8]) -> io::Result<Option<(usize, Option<u32>)>> {
    Ok(
        unix::receive(socket.as_raw_fd(), buffer, libc::MSG_DONTWAIT)?
            .map(|message| (message.len, message.sender)),
    )
}

/// The report as tracer takes it: its pid the sender's (in tracer's PID namespace) and its parent
/// the sender's parent, or refused when it names another process than the one that sent it.
fn from_sender(mut report: ChannelReport, sender: Option<u32>) -> ChannelReport {
    let Some(sender) = sender else {
        report.refused = Some("the kernel did not say who sent it".to_owned());
        return report;
    };
    // The pid the sender has where it runs: tracer's, or the sandbox's.
    let own = match crate::sandbox::current() {
        Some(sandbox) => sandbox.inner_pid(sender),
        None => Some(sender),
    };
    if own != Some(report.pid) {
        report.refused = Some(format!(
            "it names process {} but process {sender} sent it",
            report.pid
        ));
    }
    report.pid = sender;
    report.ppid = parent_of(sender).unwrap_or(0);
    report
}

/// The parent of `pid`, from `/proc/PID/stat`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// `fd` moved to a number of at least `CHANNEL_FD_FLOOR` (close-on-exec), or left where it is when
/// the limit on descriptors is lower.
fn above_floor(fd: OwnedFd) -> OwnedFd {
    // SAFETY: F_DUPFD_CLOEXEC on a descriptor we own; the new one is owned at once.
    let moved = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, CHANNEL_FD_FLOOR) };
    if moved < 0 {
        return fd;
    }
    // SAFETY: just made.
    unsafe { OwnedFd::from_raw_fd(moved) }
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.close();
    }
}

fn wait_readable(socket: &OwnedFd, limit: Duration) {
    let mut poll = libc::pollfd {
        fd: socket.as_raw_fd(),
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
    #[test]
    fn only_a_folder_whose_tracer_is_gone_is_swept() {
        let parent = tempfile::tempdir().unwrap();
        let folder = |name: &str, stamp: &str| {
            let dir = parent.path().join(format!("{BOOT_FOLDER_PREFIX}{name}"));
            std::fs::create_dir_all(dir.join(BOOT_SUBFOLDER)).unwrap();
            std::fs::write(dir.join(BOOT_SUBFOLDER).join("boot.js"), "//").unwrap();
            std::fs::write(dir.join(OWNER_FILE), stamp).unwrap();
            dir
        };
        let alive = owner_stamp(std::process::id()).unwrap();
        let ns = alive.split_whitespace().next().unwrap();
        let running = folder("running", &alive);
        // A pid of this namespace that no process has: pid_max is at most 2^22.
        let gone = folder("gone", &format!("{ns} 4194305 1\n"));
        let reused = folder("reused", &format!("{ns} {} 1\n", std::process::id()));
        let elsewhere = folder("elsewhere", "1 4194305 1\n");
        let holding_more = folder("more", &format!("{ns} 4194305 1\n"));
        std::fs::write(holding_more.join(BOOT_SUBFOLDER).join("x.js"), "//").unwrap();
        sweep_stale(parent.path());
        assert!(
            holding_more.exists(),
            "something tracer did not write is in it"
        );
        assert!(running.exists(), "its tracer runs");
        assert!(!gone.exists());
        assert!(!reused.exists(), "its pid is now another process's");
        assert!(elsewhere.exists(), "another PID namespace's");
    }

    use super::*;

    #[test]
    fn the_bootloader_takes_the_console_binding_tracer_adds() {
        // Taken from the global and deleted before the program's first line.
        assert!(BOOT_JS.contains(&format!("const send = globalThis.{CONSOLE_BINDING};")));
        assert!(BOOT_JS.contains(&format!("delete globalThis.{CONSOLE_BINDING};")));
        // A batch starts with its count, which the driver reads without parsing it.
        assert!(BOOT_JS.contains("{ count: calls.length, calls, sent }"));
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
        assert!(
            parse(br#"{"pid":"#).is_none(),
            "a partial report is one datagram of its own"
        );
    }

    /// Writes `text` on the channel's command end, as a process of the tree would.
    fn say(channel: &Channel, text: &str) {
        // SAFETY: writes a buffer that outlives the call to a descriptor the channel owns.
        let n = unsafe { libc::write(channel.command_end(), text.as_ptr().cast(), text.len()) };
        assert_eq!(n, text.len() as isize);
    }

    #[test]
    fn a_report_is_taken_only_from_the_process_it_names() {
        let channel = Channel::create().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = channel.open_reader().unwrap().listen(tx);
        let me = std::process::id();
        say(
            &channel,
            &format!("{{\"pid\":{me},\"ppid\":1,\"url\":\"ws://127.0.0.1:1/a\"}}\n"),
        );
        let own = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(own.refused, None);
        assert_eq!(own.pid, me);
        // The parent is the sender's, whatever the report said.
        assert_eq!(own.ppid, std::os::unix::process::parent_id());
        // This process speaking for pid 1: refused, and named by who sent it.
        say(&channel, "{\"pid\":1,\"url\":\"ws://127.0.0.1:1/b\"}");
        let forged = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(forged.pid, me);
        assert_eq!(
            forged.refused.as_deref(),
            Some(format!("it names process 1 but process {me} sent it").as_str())
        );
        channel.close();
        reader.join().unwrap();
    }

    #[test]
    fn a_path_with_spaces_is_quoted_for_node_options() {
        use node_options::quote_node_option;
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
        let name = &env.iter().find(|(k, _)| k == CHANNEL_ENV).unwrap().1;
        assert!(
            name.starts_with(&format!("{}:", channel.command_end())),
            "{name}"
        );
        let me = std::process::id();
        say(
            &channel,
            &format!("{{\"pid\":{me},\"url\":\"ws://127.0.0.1:1/a\"}}"),
        );
        let report = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(report.pid, me);
        // This process was not started with this channel in its environment.
        let verifier = channel.verifier();
        assert!(verifier.verify(me, "ws://127.0.0.1:1/a").is_err());
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
