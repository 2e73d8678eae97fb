//! The watchdog: a process that outlives a tracer killed without warning (SIGKILL, a crash) just
//! long enough to kill what the run started.
//!
//! It is a clone of the tracer that shares its memory (`CLONE_VM`, not a thread: its own process,
//! file table and signal handlers), on a stack of its own, and makes its system calls itself (raw
//! `syscall` instructions, no libc: libc would write `errno`, which is the tracer's own thread's).
//! A `fork` would do the same work, but the tracer would then take a copy-on-write fault, with a
//! TLB shootdown across the CPUs its threads run on, for every page it writes for the rest of the
//! run, on the paths between the report and the reap and after the program's exit (the figures:
//! docs/performance.md). What it reads (the program's group, the marker, the paths it removes) is copied where
//! the tracer never frees it, and its stack is never unmapped: one watchdog per run, so that is
//! bounded (a few hundred bytes, and the stack's few touched pages).

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use crate::process::spawn;

/// The watchdog's stack: `kill_marked`'s buffers (40 KiB) and its frames. Reserved, not
/// committed: only the pages it touches are ever allocated.
const STACK: usize = 256 * 1024;

/// A guardian that outlives the tracer: if the tracer dies without saying goodbye (SIGKILL, a
/// crash), it kills the program's whole process group, and every process whose environment holds
/// `marker` (the bootloader's `TRACER_BOOT=…`: a child that left the group with `setsid` or
/// `detached: true`), so descendants do not outlive the run either. `PR_SET_PDEATHSIG` alone
/// reaches only the direct child. Then it removes what the tracer would have removed at its end
/// (the bootloader's files and folder). Dropping it says goodbye: the watchdog then exits.
pub struct Watchdog {
    goodbye: Option<OwnedFd>,
    /// Its pid: a child of the tracer, reaped when this is dropped.
    pid: libc::pid_t,
}

/// What the watchdog reads: made before the clone, never changed or freed after it (leaked).
struct Plan {
    pgid: libc::pid_t,
    read_end: libc::c_int,
    marker: &'static [u8],
    /// Paths to remove, in order, each followed by a NUL; a folder is removed as a folder.
    leftovers: &'static [u8],
}

impl Watchdog {
    /// Starts the guardian for the process group `pgid` (and the processes marked `marker`),
    /// which removes `leftovers` (files, then their folder) once it has killed them.
    pub fn start(
        pgid: u32,
        marker: Option<&[u8]>,
        leftovers: &[&std::path::Path],
    ) -> io::Result<Watchdog> {
        use std::os::unix::ffi::OsStrExt;
        let mut paths = Vec::new();
        for path in leftovers {
            let bytes = path.as_os_str().as_bytes();
            if bytes.contains(&0) {
                return Err(io::Error::other("a path holds a NUL byte"));
            }
            paths.extend_from_slice(bytes);
            paths.push(0);
        }
        let (reading, goodbye) = spawn::pipe()?;
        // SAFETY: an anonymous private mapping of STACK bytes, checked below; it is never
        // unmapped, because the watchdog may run on it after the tracer is gone.
        let region = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if region == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let plan: &'static Plan = Box::leak(Box::new(Plan {
            pgid: pgid as libc::pid_t,
            read_end: reading.as_raw_fd(),
            marker: Box::leak(marker.unwrap_or_default().into()),
            leftovers: Box::leak(paths.into_boxed_slice()),
        }));
        // SAFETY: the stack and the plan live as long as the process (leaked, above); the
        // watchdog touches only its stack and reads only `plan`, with raw system calls.
        let pid = unsafe {
            spawn::clone_on(
                region.cast(),
                STACK,
                watch,
                libc::CLONE_VM | libc::SIGCHLD,
                std::ptr::from_ref(plan).cast_mut().cast(),
            )?
        };
        drop(reading);
        Ok(Watchdog {
            goodbye: Some(goodbye),
            pid,
        })
    }

    /// Tells the watchdog that the tracer is done: it exits without doing anything.
    pub fn goodbye(&mut self) {
        if let Some(fd) = self.goodbye.take() {
            let file = std::fs::File::from(fd);
            let _ = io::Write::write_all(&mut &file, b"d");
        }
    }
}

impl Drop for Watchdog {
    /// Says goodbye if that is not done yet and reaps the watchdog, so that no zombie is left for
    /// init to collect (an init that reaps late, as this VM's does, showed them piling up). Said
    /// goodbye to earlier, it has exited by now; the wait is bounded all the same.
    fn drop(&mut self) {
        self.goodbye();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        loop {
            // SAFETY: waits, without blocking, for this process's own child.
            let reaped = unsafe { libc::waitpid(self.pid, std::ptr::null_mut(), libc::WNOHANG) };
            if reaped != 0 || std::time::Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }
}

/// The watchdog itself: waits for the goodbye, or for its pipe's end, which means the tracer died.
extern "C" fn watch(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the leaked `Plan`; only raw system calls on this stack's buffers follow.
    unsafe {
        let plan = &*(arg as *const Plan);
        // The tracer's handlers are not the watchdog's; Ctrl-C and SIGTERM meant for the run
        // must not end it.
        for signal in 1..=64 {
            if signal == libc::SIGKILL || signal == libc::SIGSTOP {
                continue;
            }
            let ignored = signal == libc::SIGINT || signal == libc::SIGTERM;
            set_signal(
                signal,
                if ignored {
                    libc::SIG_IGN
                } else {
                    libc::SIG_DFL
                },
            );
        }
        let none = 0u64;
        sys(
            libc::SYS_rt_sigprocmask,
            [libc::SIG_SETMASK as usize, (&raw const none) as usize, 0, 8],
        );
        if plan.read_end != 0 {
            sys(libc::SYS_dup3, [plan.read_end as usize, 0, 0, 0]);
        }
        // Hold nothing of the tracer's: an inherited inspector socket would keep Node waiting
        // for a debugger that is gone.
        sys(libc::SYS_close_range, [1, u32::MAX as usize, 0, 0]);
        sys(libc::SYS_setpgid, [0, 0, 0, 0]);
        let mut byte = 0u8;
        let read = loop {
            let n = sys(libc::SYS_read, [0, (&raw mut byte) as usize, 1, 0]);
            if n != -(libc::EINTR as isize) {
                break n;
            }
        };
        if read <= 0 {
            sys(
                libc::SYS_kill,
                [(-plan.pgid) as isize as usize, libc::SIGKILL as usize, 0, 0],
            );
            if !plan.marker.is_empty() {
                kill_marked(plan.marker);
            }
            for path in plan.leftovers.split_inclusive(|&b| b == 0) {
                let at = libc::AT_FDCWD as isize as usize;
                let removed = sys(libc::SYS_unlinkat, [at, path.as_ptr() as usize, 0, 0]);
                if removed == -(libc::EISDIR as isize) {
                    let folder = libc::AT_REMOVEDIR as usize;
                    sys(libc::SYS_unlinkat, [at, path.as_ptr() as usize, folder, 0]);
                }
            }
        }
        sys(libc::SYS_exit_group, [0, 0, 0, 0]);
        0
    }
}

/// The kernel's `struct sigaction` (x86_64 and aarch64 alike), for SIG_IGN and SIG_DFL only.
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: u64,
    restorer: usize,
    mask: u64,
}

/// Sets `signal`'s disposition to `handler` (SIG_IGN or SIG_DFL).
///
/// # Safety
/// A raw system call on a stack value.
unsafe fn set_signal(signal: libc::c_int, handler: libc::sighandler_t) {
    let action = KernelSigaction {
        handler,
        flags: 0,
        restorer: 0,
        mask: 0,
    };
    // SAFETY: rt_sigaction reads `action` (its size is the kernel's) and writes nothing back.
    unsafe {
        sys(
            libc::SYS_rt_sigaction,
            [signal as usize, (&raw const action) as usize, 0, 8],
        );
    }
}

/// SIGKILLs every process whose `/proc/PID/environ` holds `marker` as one of its entries. Raw
/// system calls and stack buffers only.
///
/// # Safety
/// Runs in the watchdog: no allocation, no lock, no libc.
unsafe fn kill_marked(marker: &[u8]) {
    // SAFETY: openat/getdents64/read/close/kill on buffers of this frame.
    unsafe {
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
        let proc_dir = sys(
            libc::SYS_openat,
            [
                libc::AT_FDCWD as isize as usize,
                c"/proc".as_ptr() as usize,
                flags as usize,
                0,
            ],
        );
        if proc_dir < 0 {
            return;
        }
        let me = sys(libc::SYS_getpid, [0; 4]);
        let mut entries = [0u8; 8192];
        let mut environ = [0u8; 32768];
        loop {
            let n = sys(
                libc::SYS_getdents64,
                [
                    proc_dir as usize,
                    entries.as_mut_ptr() as usize,
                    entries.len(),
                    0,
                ],
            );
            if n <= 0 {
                break;
            }
            let mut offset = 0usize;
            while let Some(record) = entries.get(offset..n as usize) {
                // struct linux_dirent64 { u64 d_ino; i64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
                let (Some(&low), Some(&high)) = (record.get(16), record.get(17)) else {
                    break;
                };
                let length = u16::from_ne_bytes([low, high]) as usize;
                if length == 0 {
                    break;
                }
                offset += length;
                let name = record.get(19..length.min(record.len())).unwrap_or_default();
                let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
                if name.is_empty() || name.len() > 9 || !name.iter().all(u8::is_ascii_digit) {
                    continue;
                }
                let mut pid: isize = 0;
                for &digit in name {
                    pid = pid * 10 + isize::from(digit - b'0');
                }
                if pid == me {
                    continue;
                }
                // "/proc/" + pid + "/environ" + NUL, on the stack.
                let mut path = [0u8; 32];
                for (at, &b) in b"/proc/".iter().chain(name).chain(b"/environ").enumerate() {
                    path[at] = b;
                }
                let fd = sys(
                    libc::SYS_openat,
                    [
                        libc::AT_FDCWD as isize as usize,
                        path.as_ptr() as usize,
                        (libc::O_RDONLY | libc::O_CLOEXEC) as usize,
                        0,
                    ],
                );
                if fd < 0 {
                    continue;
                }
                let mut filled = 0usize;
                while filled < environ.len() {
                    let got = sys(
                        libc::SYS_read,
                        [
                            fd as usize,
                            environ[filled..].as_mut_ptr() as usize,
                            environ.len() - filled,
                            0,
                        ],
                    );
                    if got <= 0 {
                        break;
                    }
                    filled += got as usize;
                }
                sys(libc::SYS_close, [fd as usize, 0, 0, 0]);
                if environ[..filled]
                    .split(|&b| b == 0)
                    .any(|entry| entry == marker)
                {
                    sys(libc::SYS_kill, [pid as usize, libc::SIGKILL as usize, 0, 0]);
                }
            }
        }
        sys(libc::SYS_close, [proc_dir as usize, 0, 0, 0]);
    }
}

/// A system call made directly: its result, or `-errno`. Nothing is written anywhere else.
///
/// # Safety
/// Whatever the call itself requires of its arguments.
unsafe fn sys(number: libc::c_long, [a, b, c, d]: [usize; 4]) -> isize {
    let result: isize;
    // SAFETY: the Linux x86_64 system call convention; the kernel clobbers rcx and r11.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::asm!(
            "syscall",
            inlateout("rax") number as isize => result,
            in("rdi") a,
            in("rsi") b,
            in("rdx") c,
            in("r10") d,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    // SAFETY: the Linux aarch64 system call convention (number in x8, result in x0).
    #[cfg(target_arch = "aarch64")]
    unsafe {
        std::arch::asm!(
            "svc 0",
            in("x8") number,
            inlateout("x0") a as isize => result,
            in("x1") b,
            in("x2") c,
            in("x3") d,
            options(nostack),
        );
    }
    result
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("the watchdog's system calls are written for x86_64 and aarch64 only");

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::time::{Duration, Instant};

    /// Whether a process `pid` is still running (not gone, not a zombie).
    fn running(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(") ")
                .next()
                .is_some_and(|s| !s.starts_with('Z'))
        })
    }

    #[test]
    fn the_watchdog_kills_the_group_and_cleans_up_only_when_its_tracer_dies() {
        use std::os::unix::process::CommandExt;
        for goodbye in [true, false] {
            let mut child = std::process::Command::new("sleep")
                .arg("30")
                .process_group(0)
                .spawn()
                .unwrap();
            let folder = tempfile::tempdir().unwrap();
            let file = folder.path().join("boot.js");
            std::fs::write(&file, "x").unwrap();
            let mut watchdog =
                Watchdog::start(child.id(), None, &[file.as_path(), folder.path()]).unwrap();
            let pid = watchdog.pid;
            if goodbye {
                // Said goodbye to and reaped: not even a zombie is left.
                drop(watchdog);
                assert!(!Path::new(&format!("/proc/{pid}")).exists());
            } else {
                // The tracer's end of the pipe closed without a goodbye, as when it dies.
                drop(watchdog.goodbye.take());
                let mut status = 0;
                // SAFETY: waits for our own child.
                assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
                assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
                // Reaped here: its pid may be another test's child by the time it is dropped.
                std::mem::forget(watchdog);
            }
            let deadline = Instant::now() + Duration::from_secs(5);
            while running(child.id()) && Instant::now() < deadline && !goodbye {
                std::thread::sleep(Duration::from_millis(5));
            }
            assert_eq!(running(child.id()), goodbye, "goodbye: {goodbye}");
            assert_eq!(file.exists(), goodbye, "goodbye: {goodbye}");
            assert_eq!(folder.path().exists(), goodbye, "goodbye: {goodbye}");
            let _ = child.kill();
            child.wait().unwrap();
        }
    }
}
