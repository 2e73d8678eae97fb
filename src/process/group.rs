//! A started command's process group and its steps before `exec`: the death signal, descriptors
//! closed or kept across `exec`, signalling and stopping the group, and waiting for a child with a
//! pidfd.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use crate::process::spawn::Program;

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
}
