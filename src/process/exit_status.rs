//! How a process that is not tracer's child ended, as the kernel tells it: a pidfd taken while it
//! runs, asked once it is gone.
//!
//! tracer cannot `wait` for a process another one started (a test runner's worker, the `node` a
//! shell runs). Node's `exit` listeners see the code the process is exiting with when its exit
//! begins, and a later listener or `process.exit` can still change it (mocha and jest do). The
//! kernel knows the code it ended with: while it is a zombie, in `/proc/PID/stat`; once its
//! parent has reaped it, through the pidfd (`PIDFD_GET_INFO` with `PIDFD_INFO_EXIT`, Linux 6.15
//! and later). Where neither can be had (an older kernel, a parent that reaped it before tracer
//! asked), the answer is "not known", never a guess.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
}

/// A process watched from the time it was known to run.
#[derive(Debug)]
pub struct PidWatch {
    pid: u32,
    fd: OwnedFd,
}

/// `PIDFD_GET_INFO`: `_IOWR(PIDFS_IOCTL_MAGIC (0xFF), 11, struct pidfd_info)` for the first
/// version of the structure (64 bytes), which the kernel accepts from any later one.
const PIDFD_GET_INFO: libc::c_ulong = (3 << 30) | (64 << 16) | (0xFF << 8) | 11;
/// Ask for (and, in the answer's mask, have) the exit status.
const PIDFD_INFO_EXIT: u64 = 1 << 3;

/// `struct pidfd_info`, version 0 (`include/uapi/linux/pidfd.h`).
#[repr(C)]
#[derive(Default)]
struct PidfdInfo {
    mask: u64,
    cgroupid: u64,
    pid: u32,
    tgid: u32,
    ppid: u32,
    ruid: u32,
    rgid: u32,
    euid: u32,
    egid: u32,
    suid: u32,
    sgid: u32,
    fsuid: u32,
    fsgid: u32,
    exit_code: i32,
}

impl PidWatch {
    /// Watches `pid`, which must be running now (a process that just reported and waits for
    /// tracer); None where pidfds are not available.
    pub fn open(pid: u32) -> Option<PidWatch> {
        let pid_t = libc::pid_t::try_from(pid).ok()?;
        // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid_t, 0) };
        if fd < 0 {
            return None;
        }
        // SAFETY: a descriptor just made, owned from here.
        let fd = unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) };
        Some(PidWatch { pid, fd })
    }

    /// How it ended: None while it runs, or when the kernel cannot tell any more.
    pub fn ended(&self) -> Option<Ended> {
        if let Some(status) = self.reaped_status() {
            return Some(decode(status));
        }
        if !self.has_exited() {
            return None;
        }
        // Exited but not reaped yet (or a kernel without `PIDFD_INFO_EXIT`): a zombie keeps its
        // status in `/proc/PID/stat`, and its pid cannot be given to another process until then.
        zombie_status(self.pid).map(decode)
    }

    fn reaped_status(&self) -> Option<i32> {
        let mut info = PidfdInfo {
            mask: PIDFD_INFO_EXIT,
            ..PidfdInfo::default()
        };
        // SAFETY: the ioctl writes at most the 64 bytes of `info`, which it is given.
        let done = unsafe { libc::ioctl(self.fd.as_raw_fd(), PIDFD_GET_INFO, &mut info) };
        (done == 0 && info.mask & PIDFD_INFO_EXIT != 0).then_some(info.exit_code)
    }

    /// A pidfd is readable once its process has exited.
    fn has_exited(&self) -> bool {
        let mut poll = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd we own, no waiting.
        let ready = unsafe { libc::poll(&mut poll, 1, 0) };
        ready == 1 && poll.revents & libc::POLLIN != 0
    }
}

/// The wait status a zombie `pid` left (`/proc/PID/stat`, field 52), if it is one.
fn zombie_status(pid: u32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name (field 2, which can hold anything): field 3 first.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    if fields.next()? != "Z" {
        return None;
    }
    fields.nth(48)?.parse().ok()
}

/// A wait status as `wait(2)` gives it.
fn decode(status: i32) -> Ended {
    if libc::WIFSIGNALED(status) {
        Ended::Signal(libc::WTERMSIG(status))
    } else {
        Ended::Code(libc::WEXITSTATUS(status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    /// The pid of the one child of `parent`, once it has one.
    fn child_of(parent: u32) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let children =
                std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
                    .unwrap_or_default();
            if let Some(pid) = children.split_whitespace().next() {
                return pid.parse().unwrap();
            }
            assert!(Instant::now() < deadline, "no child of {parent}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn wait_for(watch: &PidWatch) -> Option<Ended> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(ended) = watch.ended() {
                return Some(ended);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        None
    }

    /// A shell whose child (not tracer's) exits with 7 once `gate` exists; the shell then reaps
    /// it (`reaps`) or never does (it becomes `sleep`, which waits for nobody).
    fn shell_with_a_child(gate: &std::path::Path, reaps: bool) -> (std::process::Child, u32) {
        let child = format!(
            "sh -c 'while [ ! -e {} ]; do sleep 0.01; done; exit 7' & {}",
            gate.display(),
            if reaps { "wait" } else { "exec sleep 60" }
        );
        let shell = Command::new("sh")
            .args(["-c", &child])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let grandchild = child_of(shell.id());
        (shell, grandchild)
    }

    /// Whether this kernel keeps the status of a reaped process for its pidfds (6.15 and later).
    fn keeps_reaped_status() -> bool {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let mut parts = release
            .trim()
            .split(['.', '-'])
            .map(|p| p.parse::<u32>().unwrap_or(0));
        (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (6, 15)
    }

    #[test]
    fn a_grandchild_s_code_is_known_after_its_parent_reaped_it() {
        let dir = tempfile::tempdir().unwrap();
        let gate = dir.path().join("gate");
        let (mut shell, grandchild) = shell_with_a_child(&gate, true);
        let watch = PidWatch::open(grandchild).expect("pidfd_open");
        assert_eq!(watch.ended(), None, "it runs");
        std::fs::write(&gate, "").unwrap();
        shell.wait().unwrap();
        if keeps_reaped_status() {
            assert_eq!(watch.ended(), Some(Ended::Code(7)), "after it was reaped");
        }
    }

    #[test]
    fn a_zombie_s_code_is_known_while_its_parent_has_not_reaped_it() {
        let dir = tempfile::tempdir().unwrap();
        let gate = dir.path().join("gate");
        let (mut shell, grandchild) = shell_with_a_child(&gate, false);
        let watch = PidWatch::open(grandchild).expect("pidfd_open");
        assert_eq!(watch.ended(), None, "it runs");
        std::fs::write(&gate, "").unwrap();
        assert_eq!(wait_for(&watch), Some(Ended::Code(7)));
        let _ = shell.kill();
        let _ = shell.wait();
    }

    #[test]
    fn a_signal_is_told_apart_from_a_code() {
        assert_eq!(decode(7 << 8), Ended::Code(7));
        assert_eq!(decode(libc::SIGKILL), Ended::Signal(libc::SIGKILL));
        assert_eq!(decode(0), Ended::Code(0));
    }
}
