//! Starting the traced command: finding executables, building its command line and environment,
//! spawning it in its own process group, and stopping that group.
//!
//! The command gets no inspector flag of its own: every Node process in its tree opens its
//! inspector on 127.0.0.1 with a random port through the bootloader (`crate::inspector::boot`),
//! and every `--inspect*` flag a user left in `NODE_OPTIONS` is removed so nothing can widen it.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::TracerError;
use crate::inspector::spawn::{self, Program};

/// Everything needed to start the command.
pub struct Launch<'a> {
    /// The executable: Node, or the command given after `--`.
    pub program: &'a Path,
    /// Its arguments (for Node: its own flags, the target, the program's arguments).
    pub args: &'a [OsString],
    pub cwd: &'a Path,
    pub session_id: &'a str,
    /// More environment variables (the bootloader's `NODE_OPTIONS` and channel, the audit's).
    pub env: &'a [(String, String)],
    /// Run the command and all its descendants under the no-send guard (`crate::guard`).
    pub no_send: bool,
    /// Pass the tracer's stdin straight to the child (false: a pipe the caller feeds).
    pub inherit_stdin: bool,
    /// Put the command in Landlock's scopes (`crate::sandbox::scope`: no signal, abstract socket
    /// or trace out of its tree), where the kernel has them.
    pub scoped: bool,
    /// The bootloader channel's end the command inherits (close-on-exec in tracer).
    pub channel_fd: Option<std::os::fd::RawFd>,
    /// Run the command in the audit's sandbox (`crate::sandbox`), with these folders hidden; it
    /// becomes this process's `sandbox::current()`.
    pub sandbox: Option<&'a [PathBuf]>,
}

/// How to look for an executable and what to say when it is missing.
pub struct Wanted<'a> {
    /// What it is, in messages (`Node`, `Chromium`).
    pub what: &'a str,
    /// Where an explicit request comes from (`--node or TRACER_NODE`).
    pub source: &'a str,
    /// The names tried on `PATH` when nothing was requested, in order.
    pub defaults: &'a [&'a str],
    /// What the user can do about it (`install Node.js (20 or newer)`).
    pub hint: &'a str,
}

/// An executable: `requested` (a path, or a name looked up on `PATH`), else the first of
/// `wanted.defaults` on `PATH`. A missing one is "could not trace" (exit 4) with what to do.
pub fn find_executable(
    requested: Option<&Path>,
    wanted: &Wanted<'_>,
) -> Result<PathBuf, TracerError> {
    let Wanted {
        what,
        source,
        defaults,
        hint,
    } = wanted;
    if let Some(path) = requested {
        if path.components().count() > 1 {
            return if path.is_file() {
                Ok(path.to_owned())
            } else {
                Err(TracerError::cannot_trace(format!(
                    "{what} not found at {} (from {source}): point it at a {what} executable, or {hint}",
                    path.display()
                )))
            };
        }
        return search_path(path.as_os_str()).ok_or_else(|| {
            TracerError::cannot_trace(format!(
                "`{}` (from {source}) is not on PATH: give a full path, or {hint}",
                path.display()
            ))
        });
    }
    defaults
        .iter()
        .find_map(|name| search_path(OsStr::new(name)))
        .ok_or_else(|| {
            TracerError::cannot_trace(format!(
                "{what} not found: no {} on PATH. {}{}, or pass {source}",
                defaults.join(", "),
                hint[..1].to_uppercase(),
                &hint[1..]
            ))
        })
}

/// The Node executable: `--node`/`TRACER_NODE` when given, else `node` on `PATH`.
pub fn find_node(requested: Option<&Path>) -> Result<PathBuf, TracerError> {
    find_executable(
        requested,
        &Wanted {
            what: "Node",
            source: "--node or TRACER_NODE",
            defaults: &["node"],
            hint: "install Node.js (20 or newer)",
        },
    )
}

/// The first executable file called `name` in a folder of `PATH`.
pub fn search_path(name: &OsStr) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| spawn::executable(candidate))
}

/// `NODE_OPTIONS` without any `--inspect*` or `--debug*` flag (and their separate values), read
/// the way Node reads the variable (double quotes group, a backslash inside them escapes the next
/// character, `_` and `-` are the same in a flag's name), so no spelling of such a flag survives.
pub fn strip_inspect_options(options: &str) -> String {
    let mut kept = Vec::new();
    let mut skip_value = false;
    for token in node_options_words(options) {
        if skip_value {
            skip_value = false;
            if !token.starts_with('-') {
                continue;
            }
        }
        let flag = token.trim_start_matches('-').replace('_', "-");
        if token.starts_with("--") && (flag.starts_with("inspect") || flag.starts_with("debug")) {
            skip_value = !token.contains('=') && flag.ends_with("port");
            continue;
        }
        kept.push(quote_node_option(&token));
    }
    kept.join(" ")
}

/// The words of a `NODE_OPTIONS` value, as Node splits them.
fn node_options_words(options: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_quotes = false;
    let mut started = false;
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_quotes => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            '"' => {
                in_quotes = !in_quotes;
                started = true;
            }
            c if c.is_whitespace() && !in_quotes => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    words
}

/// A word for `NODE_OPTIONS`: as it is when it holds no space, quote or backslash, else in double
/// quotes with `"` and `\` escaped (Node's own rule for that variable).
pub fn quote_node_option(value: &str) -> String {
    if !value.is_empty()
        && !value
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\\')
    {
        return value.to_owned();
    }
    let mut quoted = String::from("\"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

/// Whether the code that runs may not be the files on disk: a loader in `NODE_OPTIONS`
/// (`--import`, `--require`/`-r`, `--loader`, `--experimental-loader`) or a target Node does not
/// run as it is (anything but `.js`, `.mjs`, `.cjs`: `.ts`, `.tsx`, `.jsx`, …). The `Debugger`
/// domain is then worth its start-up cost: its `scriptParsed` events carry the source maps such a
/// loader hands the runtime, which the file on disk does not have.
pub fn loader_likely(target: &Path, node_options: Option<&str>) -> bool {
    let plain_js = target
        .extension()
        .and_then(OsStr::to_str)
        .is_some_and(|e| matches!(e, "js" | "mjs" | "cjs"));
    let loader = node_options.is_some_and(|options| {
        options.split_whitespace().any(|token| {
            let flag = token.split('=').next().unwrap_or(token);
            matches!(
                flag,
                "--import" | "--require" | "-r" | "--loader" | "--experimental-loader"
            )
        })
    });
    !plain_js || loader
}

/// Spawns the command: own process group, killed if the tracer dies (`PR_SET_PDEATHSIG`), stdout
/// and stderr piped to the pumps, `TRACER_SESSION` and `launch.env` set. A `NODE_OPTIONS` the
/// caller does not set is removed.
pub fn spawn(launch: &Launch<'_>) -> Result<(Program, Option<crate::guard::Guard>), TracerError> {
    let could_not_start = |e: io::Error| {
        TracerError::cannot_trace(format!(
            "could not start {}: {e}. Check that it is a working executable (for Node, pass --node PATH)",
            launch.program.display()
        ))
    };
    let mut set = vec![(
        OsString::from("TRACER_SESSION"),
        OsString::from(launch.session_id),
    )];
    set.extend(
        launch
            .env
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    // Without the no-send guard, nothing needs a step of tracer's own code in the child beyond
    // what `spawn::start` does, which does not copy the tracer.
    let (child, guard, sandbox) = if launch.no_send || launch.sandbox.is_some() || launch.scoped {
        let (mut command, sandbox) = match launch.sandbox {
            Some(hide) => {
                let (command, pending) = crate::sandbox::command(
                    hide,
                    Some((launch.program, launch.args)),
                )
                .map_err(|e| {
                    TracerError::cannot_trace(format!("the sandbox could not be prepared: {e}"))
                })?;
                (command, Some(pending))
            }
            None => {
                let mut command = Command::new(launch.program);
                command.args(launch.args);
                (command, None)
            }
        };
        command
            .current_dir(launch.cwd)
            .env_remove("NODE_OPTIONS")
            .envs(set.iter().map(|(k, v)| (k, v)))
            .stdin(if launch.inherit_stdin {
                Stdio::inherit()
            } else {
                Stdio::piped()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        die_with_parent(&mut command);
        close_inherited_on_exec(&mut command);
        let handle = launch
            .no_send
            .then(|| crate::guard::install(&mut command))
            .transpose()
            .map_err(|e| {
                TracerError::cannot_trace(format!("the no-send guard could not be prepared: {e}"))
            })?;
        if launch.scoped {
            crate::sandbox::scope::restrict(&mut command);
        }
        if let Some(fd) = launch.channel_fd {
            inherit(&mut command, fd);
        }
        if let Some(pending) = &sandbox {
            pending.pass_to(&mut command);
        }
        let child = command.spawn().map_err(could_not_start)?;
        (Program::from_std(child), handle, sandbox)
    } else {
        let child = spawn::start(&spawn::Spec {
            program: launch.program,
            args: launch.args,
            cwd: launch.cwd,
            env: spawn::environment(&["NODE_OPTIONS"], &set),
            inherit_stdin: launch.inherit_stdin,
            inherit_fd: launch.channel_fd,
        })
        .map_err(could_not_start)?;
        (child, None, None)
    };
    if let Some(stdout) = child.stdout.as_ref() {
        enlarge_pipe(stdout);
    }
    if let Some(stderr) = child.stderr.as_ref() {
        enlarge_pipe(stderr);
    }
    let guard = match guard.map(|handle| handle.start(child.id())).transpose() {
        Ok(guard) => guard,
        Err(e) => {
            let _ = signal_group(child.id(), libc::SIGKILL);
            return Err(TracerError::cannot_trace(format!(
                "the no-send guard could not start: {e}"
            )));
        }
    };
    if let Some(pending) = sandbox {
        let started = pending
            .started(Duration::from_secs(10))
            .map_err(|e| TracerError::cannot_trace(format!("the sandbox could not be made: {e}")))
            .and_then(|sandbox| {
                crate::sandbox::set_current(sandbox).map_err(|_| {
                    TracerError::cannot_trace("one tracer process makes one sandbox".to_owned())
                })
            });
        if let Err(e) = started {
            let _ = signal_group(child.id(), libc::SIGKILL);
            return Err(e);
        }
    }
    Ok((child, guard))
}

/// The pipe size asked for the program's stdout and stderr: Linux's default limit for an
/// unprivileged process (`/proc/sys/fs/pipe-max-size`).
const PIPE_SIZE: libc::c_int = 1 << 20;

/// Gives a pipe room for 1 MiB instead of 64 KiB. Node writes to a full pipe asynchronously,
/// queueing in memory, and loses what is queued when it dies of an uncaught exception; the more
/// the pipe holds while the tracer's reader waits for a core, the less often that happens. A
/// refusal (a lower limit) leaves the pipe as it was.
fn enlarge_pipe(pipe: &impl std::os::fd::AsRawFd) {
    // SAFETY: fcntl(F_SETPIPE_SZ) on a descriptor we own; no memory is passed.
    unsafe {
        libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_SIZE);
    }
}

/// Lets the child keep `fd` across `exec` (a step after any that marks inherited descriptors
/// close-on-exec).
pub fn inherit(command: &mut Command, fd: std::os::fd::RawFd) {
    // SAFETY: fcntl only, async-signal-safe, on a descriptor the child inherited.
    unsafe {
        command.pre_exec(move || {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Makes the child die with the tracer: `PR_SET_PDEATHSIG` (kept across `exec`), and exit at once
/// if the tracer already died between `fork` and the `prctl`.
pub fn die_with_parent(command: &mut Command) {
    let parent = std::process::id();
    // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) between fork and exec.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() as u32 != parent {
                libc::_exit(137);
            }
            Ok(())
        });
    }
}

/// Makes every descriptor the child would inherit beyond stdin, stdout and stderr close at `exec`
/// (`close_range(3, ~0, CLOSE_RANGE_CLOEXEC)`, else `fcntl(FD_CLOEXEC)` on each): a socket
/// `tracer`'s own parent left open (`exec 7<>/dev/tcp/…`) never reaches a program under the no-send
/// guard, which could write to it without any `connect`. The descriptors this step's own process
/// needs until `exec` (the guard's handshake, std's) stay usable until then.
pub fn close_inherited_on_exec(command: &mut Command) {
    // SAFETY: only async-signal-safe calls (syscall, getrlimit, fcntl) between fork and exec.
    unsafe {
        command.pre_exec(|| {
            const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
            if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC) == 0 {
                return Ok(());
            }
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
                limit.rlim_cur.min(1 << 20) as i32
            } else {
                1024
            };
            for fd in 3..top {
                let flags = libc::fcntl(fd, libc::F_GETFD);
                if flags >= 0 {
                    libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
                }
            }
            Ok(())
        });
    }
}

/// Sends `signal` to every process in the group `pgid`. Returns false when the group is empty.
pub fn signal_group(pgid: u32, signal: i32) -> bool {
    let Ok(pgid) = i32::try_from(pgid) else {
        return false;
    };
    // SAFETY: kill(2) with a negative pid addresses a process group; no memory is touched.
    unsafe { libc::kill(-pgid, signal) == 0 }
}

/// Whether any process of the group `pgid` is still alive. A zombie (exited, not yet reaped by
/// its parent) is not alive: `kill(-pgid, 0)` still finds it, and where the reaper of orphans
/// does not reap (some containers' PID 1), it stays found forever.
pub fn group_alive(pgid: u32) -> bool {
    signal_group(pgid, 0) && group_has_live_member(pgid)
}

/// Whether `/proc` lists a process of group `pgid` that is not a zombie; true when `/proc`
/// cannot be read (nothing is then known to be gone).
fn group_has_live_member(pgid: u32) -> bool {
    let Ok(members) = group_members(pgid) else {
        return true;
    };
    !members.is_empty()
}

/// The live (not zombie) processes of group `pgid`, from `/proc`.
fn group_members(pgid: u32) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so fields are
        // counted from the last ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let group = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
        if group == Some(pgid) && state != Some("Z") {
            members.push(entry.path());
        }
    }
    Ok(members)
}

/// Whether process `pid` holds the socket listening on 127.0.0.1:`port`: the listening socket's
/// inode in `/proc/net/tcp`, among the process's open descriptors. An inspector URL is attached to
/// only when this holds: the tool, which runs outside the no-send guard, must never connect
/// somewhere because the code under trace said so.
pub fn process_listens_on(pid: u32, port: u16) -> bool {
    holds_any(
        &Path::new("/proc").join(pid.to_string()),
        &listening_inodes(pid, port),
    )
}

/// `socket:[INODE]` of every socket listening on 127.0.0.1:`port`, in the network namespace of
/// `pid` when the run has a sandbox (whose loopback is not tracer's).
fn listening_inodes(pid: u32, port: u16) -> Vec<String> {
    let inodes = if crate::sandbox::current().is_some() {
        crate::inspector::listening::inodes_of(pid, port)
    } else {
        crate::inspector::listening::inodes(port)
    };
    inodes
        .into_iter()
        .map(|inode| format!("socket:[{inode}]"))
        .collect()
}

/// Whether the process at `/proc/PID` has one of `inodes` open. Its descriptors are looked at
/// from the highest down: a socket Node's inspector opened is among its last (half the time of
/// reading every link, on the path from a report to the attach).
fn holds_any(process: &Path, inodes: &[String]) -> bool {
    if inodes.is_empty() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(process.join("fd")) else {
        return false;
    };
    let mut fds: Vec<(u64, PathBuf)> = entries
        .flatten()
        .map(|fd| {
            let number = fd.file_name().to_str().and_then(|n| n.parse().ok());
            (number.unwrap_or(0), fd.path())
        })
        .collect();
    fds.sort_unstable_by_key(|fd| std::cmp::Reverse(fd.0));
    fds.iter().any(|(_, fd)| {
        std::fs::read_link(fd)
            .is_ok_and(|target| inodes.iter().any(|i| target.as_os_str() == i.as_str()))
    })
}

/// Ends the group: `first` (SIGTERM or SIGINT) to every process, `grace` to leave, then SIGKILL.
pub fn stop_group(pgid: u32, first: i32, grace: Duration) {
    if !signal_group(pgid, first) {
        return;
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if !group_alive(pgid) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    signal_group(pgid, libc::SIGKILL);
}

/// A child process `wait_for` can wait for: one std started, or `spawn`'s.
pub trait Reapable {
    fn pid(&self) -> u32;
    /// Its exit status if it has exited (reaping it), else `None`.
    fn reap_if_exited(&mut self) -> io::Result<Option<std::process::ExitStatus>>;
}

impl Reapable for Child {
    fn pid(&self) -> u32 {
        self.id()
    }
    fn reap_if_exited(&mut self) -> io::Result<Option<std::process::ExitStatus>> {
        self.try_wait()
    }
}

impl Reapable for Program {
    fn pid(&self) -> u32 {
        self.id()
    }
    fn reap_if_exited(&mut self) -> io::Result<Option<std::process::ExitStatus>> {
        self.try_wait()
    }
}

/// Waits for `child` to exit for at most `limit`; `None` if it is still running.
pub fn wait_for(
    child: &mut impl Reapable,
    limit: Duration,
) -> io::Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + limit;
    // Woken the moment it exits (a pidfd is readable then); polled where there is none.
    let pidfd = pidfd_open(child.pid());
    loop {
        if let Some(status) = child.reap_if_exited()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        match &pidfd {
            Some(fd) => {
                let wait = (deadline - now).as_millis().clamp(1, 1000) as libc::c_int;
                let mut poll = libc::pollfd {
                    fd: std::os::fd::AsRawFd::as_raw_fd(fd),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd for the duration of the call.
                unsafe { libc::poll(&mut poll, 1, wait) };
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
}

/// Calls `then` when process `pid` exits (without reaping it), from a thread that ends then;
/// nothing where the kernel has no pidfd (the waiter's own timeout covers it).
pub fn notify_exit(pid: u32, then: impl FnOnce() + Send + 'static) {
    let Some(fd) = pidfd_open(pid) else {
        return;
    };
    std::thread::spawn(move || {
        let mut poll = libc::pollfd {
            fd: std::os::fd::AsRawFd::as_raw_fd(&fd),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call; -1: until it is readable.
        while unsafe { libc::poll(&mut poll, 1, -1) } < 0
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
        then();
    });
}

/// A descriptor that becomes readable when process `pid` exits (`pidfd_open`, Linux 5.3); `None`
/// where the kernel has none.
fn pidfd_open(pid: u32) -> Option<std::os::fd::OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: the descriptor was just returned to us and is owned by nobody else.
    Some(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd as std::os::fd::RawFd) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_whose_only_member_is_a_zombie_is_gone() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let pgid = child.id();
        assert!(group_alive(pgid));
        signal_group(pgid, libc::SIGKILL);
        // Not reaped yet: the killed child is a zombie of this test, which `kill(-pgid, 0)`
        // still finds.
        let deadline = Instant::now() + Duration::from_secs(10);
        while group_has_live_member(pgid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(signal_group(pgid, 0), "the zombie is still in the group");
        assert!(!group_alive(pgid));
        child.wait().unwrap();
    }

    #[test]
    fn a_loader_or_a_target_node_does_not_run_as_it_is_is_noticed() {
        let js = Path::new("/w/app.js");
        assert!(!loader_likely(js, None));
        assert!(!loader_likely(js, Some("--max-old-space-size=100")));
        assert!(loader_likely(js, Some("--import tsx")));
        assert!(loader_likely(js, Some("--require=ts-node/register")));
        assert!(loader_likely(js, Some("-r @babel/register")));
        assert!(loader_likely(Path::new("/w/main.ts"), None));
        assert!(!loader_likely(Path::new("/w/main.mjs"), None));
    }

    #[test]
    fn strips_every_inspect_flag_and_keeps_the_rest() {
        assert_eq!(strip_inspect_options("--inspect"), "");
        assert_eq!(
            strip_inspect_options(
                "--max-old-space-size=100 --inspect=0.0.0.0:9229 --inspect-brk --trace-warnings"
            ),
            "--max-old-space-size=100 --trace-warnings"
        );
        assert_eq!(
            strip_inspect_options("--inspect-port 0.0.0.0:1 --no-warnings"),
            "--no-warnings"
        );
        assert_eq!(
            strip_inspect_options("--inspect-publish-uid=http --debug-port=1"),
            ""
        );
        // Every spelling Node reads as an inspector flag.
        assert_eq!(
            strip_inspect_options(
                r#""--\inspect=0.0.0.0:9229" --inspect_brk "--max-old-space-size=64""#
            ),
            "--max-old-space-size=64"
        );
        assert_eq!(
            strip_inspect_options(r#"--require "/a b/x.js""#),
            r#"--require "/a b/x.js""#
        );
    }
}
