//! The kernel-level no-send guard: a seccomp filter installed in a child before `exec`, inherited
//! by every descendant, that hands each `connect`, `sendto` (with a destination), `sendmsg` and
//! `sendmmsg` to a supervisor thread in the tracer. The supervisor refuses (`EPERM`) and records
//! every IPv4 or IPv6 destination, loopback included, and lets `AF_UNIX` and `AF_NETLINK`
//! calls go on.
//!
//! What it owns: the filter ([`seccomp`]), the handshake that gives the tracer the filter's
//! listener, the supervisor ([`supervisor`]) and the list of [`Attempt`]s. Callers use
//! [`capability`], [`install`], [`GuardHandle::start`] and [`Guard::finish`].
//!
//! What it must not do: send anything itself, or let a filtered call through when it cannot tell
//! where it goes (unreadable memory, an unknown family: refused). It must never leave a child
//! waiting on it: when the guard stops, its listener closes and the kernel fails every filtered call
//! (`ENOSYS`), so the tree stays cut off and nothing hangs.
//!
//! **A guard, not a sandbox.** The supervisor reads a destination from the caller's memory and
//! then lets an allowed call continue; another thread of the caller can rewrite that memory in
//! between, so a program written to defeat the guard can race it. `AF_UNIX` stays open, so a
//! program can ask a local daemon (a resolver, a container engine, D-Bus) to send for it.
//! Connections opened *to* the tree (the inspector's, accepted by Node) carry data both ways:
//! only outbound destinations are refused. See `docs/no-send.md`.
//!
//! The listener reaches the tracer through `pidfd_open` + `pidfd_getfd` while the child waits in
//! `pre_exec` (a close-on-exec pipe handshake), never through `SCM_RIGHTS`; the child closes its
//! own copy before `exec`, so the traced program never holds it and cannot answer its own
//! notifications.

mod seccomp;
mod supervisor;

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// One refused attempt to reach the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// `connect`, `sendto`, `sendmsg`, `sendmmsg`, `socket` (an IP socket of a raw or packet
    /// type, refused when it is made), `ioctl` (a TUN interface), or `i386` / `foreign-abi` (a
    /// system call of another ABI: the process is killed).
    pub syscall: String,
    /// `ipv4` or `ipv6`; rarely `unspec` (an `AF_UNSPEC` destination in a send, which an IPv4
    /// UDP socket reads as IPv4), `other(N)` (an address family that is neither IP, Unix nor
    /// netlink) or `unknown` (the caller's memory could not be read; the call was refused).
    pub family: String,
    /// The destination address as text (`127.0.0.1`, `::1`); empty when it has none.
    pub address: String,
    pub port: u16,
    /// The process (thread group id) that made the call.
    pub pid: u32,
    /// Its `/proc/PID/comm` (may be empty when it exited before it could be read).
    pub process: String,
}

/// Whether the kernel lets this process install the guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capability {
    pub available: bool,
    /// Why not, when not available.
    pub reason: Option<String>,
}

/// What the kernel allows here, found by installing the filter in a throwaway child, fetching its
/// listener and having the child try a loopback `connect` to a port this probe holds: available
/// only if that connect was refused, recorded, and never arrived.
pub fn capability() -> Capability {
    match try_capability() {
        Ok(()) => Capability {
            available: true,
            reason: None,
        },
        Err(reason) => Capability {
            available: false,
            reason: Some(reason),
        },
    }
}

/// Prepares `command` so that the child and every descendant run under the no-send filter.
///
/// Adds a `pre_exec` step (after any already added) that installs the filter and waits until the
/// tracer holds its listener; if the tracer cannot take it, the spawn fails instead of running the
/// program unguarded. Spawn the command once, then call [`GuardHandle::start`] with its pid.
/// A command that is never spawned leaves one idle thread until the command is dropped.
pub fn install(command: &mut Command) -> io::Result<GuardHandle> {
    let (prepared, handle) = prepare()?;
    // SAFETY: `enter` makes only async-signal-safe system calls on memory prepared here.
    unsafe {
        command.pre_exec(move || prepared.enter());
    }
    Ok(handle)
}

/// A command's guard, between `install` and the spawn.
pub struct GuardHandle {
    fetched: mpsc::Receiver<io::Result<(u32, OwnedFd)>>,
}

impl GuardHandle {
    /// Call right after a successful spawn with the child's pid: takes the listener fetched (with
    /// `pidfd_open` + `pidfd_getfd`) while the child waited before `exec`, and starts the
    /// supervisor thread.
    pub fn start(self, child_pid: u32) -> io::Result<Guard> {
        // After a successful spawn the listener is already here (it was sent before the child
        // was released to exec): no waiting.
        let fetched = self.fetched.try_recv().ok();
        start_supervisor(fetched, child_pid)
    }
}

fn start_supervisor(
    fetched: Option<io::Result<(u32, OwnedFd)>>,
    child_pid: u32,
) -> io::Result<Guard> {
    let (pid, listener) = match fetched {
        Some(result) => result?,
        None => {
            return Err(io::Error::other(
                "no-send guard: the child never handed over its seccomp listener \
                 (was the prepared command spawned, and only once?)",
            ));
        }
    };
    if pid != child_pid {
        return Err(io::Error::other(format!(
            "no-send guard: the listener came from pid {pid}, not from the child {child_pid}"
        )));
    }
    let (stop_read, stop_write) = seccomp::pipe()?;
    let attempts = Arc::new(Mutex::new(Vec::new()));
    let shared = Arc::clone(&attempts);
    let thread = std::thread::Builder::new()
        .name("tracer-guard".into())
        .spawn(move || supervisor::run(listener, stop_read, shared))?;
    Ok(Guard {
        attempts,
        stop: Some(stop_write),
        thread: Some(thread),
    })
}

/// A running supervisor. Dropping it stops the supervisor too.
pub struct Guard {
    attempts: Arc<Mutex<Vec<Attempt>>>,
    stop: Option<OwnedFd>,
    thread: Option<JoinHandle<()>>,
}

impl Guard {
    /// Attempts seen so far (blocked and recorded).
    pub fn attempts(&self) -> Vec<Attempt> {
        self.attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Stops the supervisor (call it after the child exited) and returns every attempt. Any
    /// descendant still running is left under the filter with no supervisor: its filtered calls
    /// fail with `ENOSYS`.
    pub fn finish(mut self) -> Vec<Attempt> {
        self.stop();
        self.attempts()
    }

    fn stop(&mut self) {
        // Closing the write end wakes the supervisor's poll (POLLHUP on the read end).
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The child's side of the handshake, moved into `pre_exec`.
struct Prepared {
    filter: Vec<libc::sock_filter>,
    /// Write end: the child sends its pid and listener number.
    ready: OwnedFd,
    /// Read end: the tracer answers 1 once it holds the listener.
    ack: OwnedFd,
}

impl Prepared {
    /// Runs in the child between fork and exec; async-signal-safe.
    fn enter(&self) -> io::Result<()> {
        // A child of a tracer made non-dumpable (the audit) is not dumpable either until its
        // `exec`, and an unprivileged tracer could not take the listener from it
        // (`pidfd_getfd` needs the access `ptrace` would). Nothing of the audited code runs yet:
        // this is tracer's own copy, and `exec` replaces its memory.
        // SAFETY: prctl with integer arguments, on this process only; async-signal-safe.
        unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0) };
        // SAFETY: the filter lives as long as `self`; both pipe ends are open.
        unsafe {
            seccomp::install_in_child(
                self.filter.as_ptr(),
                self.filter.len() as u16,
                self.ready.as_raw_fd(),
                self.ack.as_raw_fd(),
            )
        }
    }
}

/// The filter, the pipes, and a thread that waits for the child's pid and listener number,
/// takes the listener with `pidfd_getfd`, hands it to the [`GuardHandle`] and releases the child.
fn prepare() -> io::Result<(Prepared, GuardHandle)> {
    let Some(arch) = seccomp::AUDIT_ARCH else {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "no-send guard: the seccomp filter is written for x86_64 only",
        ));
    };
    let filter = seccomp::program(arch);
    let (ready_read, ready_write) = seccomp::pipe()?;
    let (ack_read, ack_write) = seccomp::pipe()?;
    let (sender, fetched) = mpsc::channel();
    std::thread::Builder::new()
        .name("tracer-guard-fetch".into())
        .spawn(move || {
            let result = fetch_listener(ready_read);
            let ok = result.is_ok();
            // Hand the listener over before releasing the child: once the spawn returns, `start`
            // finds it without waiting.
            let _ = sender.send(result);
            let _ = File::from(ack_write).write_all(&[u8::from(ok)]);
        })?;
    Ok((
        Prepared {
            filter,
            ready: ready_write,
            ack: ack_read,
        },
        GuardHandle { fetched },
    ))
}

fn fetch_listener(ready: OwnedFd) -> io::Result<(u32, OwnedFd)> {
    let mut message = [0u8; 8];
    File::from(ready).read_exact(&mut message)?;
    let pid = u32::from_ne_bytes(message[..4].try_into().expect("4 bytes"));
    let fd = i32::from_ne_bytes(message[4..].try_into().expect("4 bytes"));
    let pidfd = seccomp::pidfd_open(pid)?;
    let listener = seccomp::pidfd_getfd(&pidfd, fd)?;
    Ok((pid, listener))
}

fn try_capability() -> Result<(), String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("could not open a loopback port for the probe: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("probe: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let (prepared, handle) = prepare().map_err(|e| e.to_string())?;
    let target = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes([127, 0, 0, 1]),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: the child makes only async-signal-safe system calls and leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(format!("probe: fork: {}", io::Error::last_os_error()));
    }
    if pid == 0 {
        // SAFETY: in the forked child; raw system calls on stack memory, then _exit.
        unsafe {
            let code = match prepared.enter() {
                Err(e) => 10 + e.raw_os_error().unwrap_or(0).min(245),
                Ok(()) => {
                    let s = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
                    let rc = libc::connect(
                        s,
                        (&target as *const libc::sockaddr_in).cast(),
                        size_of::<libc::sockaddr_in>() as libc::socklen_t,
                    );
                    if rc == -1 && *libc::__errno_location() == libc::EPERM {
                        0
                    } else {
                        1
                    }
                }
            };
            libc::_exit(code);
        }
    }
    drop(prepared);
    // The forked child may not have reached the handshake yet: wait for the fetcher, which ends
    // either with the listener or when the child closes its end of the pipe.
    let guard = start_supervisor(handle.fetched.recv().ok(), pid as u32);
    let mut status = 0;
    // SAFETY: waiting for the child we forked.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    let guard = guard.map_err(|e| format!("the kernel refused: {e}"))?;
    let attempts = guard.finish();
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    match code {
        0 => {}
        1 => return Err("a filtered connect was not refused".into()),
        c if c >= 10 => {
            return Err(format!(
                "the kernel refused the filter: {}",
                io::Error::from_raw_os_error(c - 10)
            ));
        }
        c => return Err(format!("the probe child ended abnormally ({c})")),
    }
    if listener.accept().is_ok() {
        return Err("a refused connect still arrived".into());
    }
    if !attempts.iter().any(|a| a.port == port) {
        return Err("a refused connect was not recorded".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
