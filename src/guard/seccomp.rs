//! The no-send seccomp filter: the classic-BPF program, the code that installs it in a child
//! between `fork` and `exec`, and the pidfd calls that take its listener.
//!
//! Everything that runs in the child (`install_in_child`) is async-signal-safe: raw system calls
//! on memory prepared in the parent, no allocation, no lock. The filter itself decides only what
//! BPF can see (the system call number and its integer arguments); anything that needs the
//! caller's memory (a destination address) is handed to the supervisor as a user notification.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// `AUDIT_ARCH_X86_64` (`EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE`): the only ABI the
/// filter lets through. `None` where the filter has not been written for the architecture.
#[cfg(target_arch = "x86_64")]
pub const AUDIT_ARCH: Option<u32> = Some(0xC000_003E);
#[cfg(not(target_arch = "x86_64"))]
pub const AUDIT_ARCH: Option<u32> = None;

/// System calls of the x32 ABI carry this bit in their number on an x86_64 kernel.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

// Offsets into `struct seccomp_data { int nr; __u32 arch; __u64 ip; __u64 args[6]; }`.
const OFFSET_NR: u32 = 0;
const OFFSET_ARCH: u32 = 4;
const fn arg_low(n: u32) -> u32 {
    16 + 8 * n
}
const fn arg_high(n: u32) -> u32 {
    16 + 8 * n + 4
}

const fn ret_errno(errno: i32) -> u32 {
    libc::SECCOMP_RET_ERRNO | (errno as u32 & libc::SECCOMP_RET_DATA)
}

/// One instruction of the program before jump offsets are resolved.
#[derive(Clone, Copy)]
enum Op {
    /// Load the 32-bit word at this offset of `seccomp_data` into the accumulator.
    Load(u32),
    /// `if acc == k goto then else goto otherwise` (labels, forward only).
    JumpEq(u32, Label, Label),
    /// `if acc >= k goto then else goto otherwise`.
    JumpGe(u32, Label, Label),
    /// `acc &= k`.
    And(u32),
    /// Return this action.
    Return(u32),
    /// Marks where a label points; emits nothing.
    Here(Label),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    Next,
    Allow,
    Notify,
    Enosys,
    Eperm,
    SendtoCheck,
    SendtoHigh,
    SocketCheck,
    SocketType,
    IoctlCheck,
}

/// `TUNSETIFF` (`_IOW('T', 202, int)`): the ioctl that attaches a `/dev/net/tun` descriptor to a
/// TUN or TAP interface, through which `write` sends raw packets (no address, no `connect`).
/// The kernel reads an ioctl's request as an `unsigned int`, so only the low word is compared.
pub const TUNSETIFF: u32 = 0x4004_54ca;

/// The filter, as classic BPF over `seccomp_data`:
///
/// - another architecture (i386 `int 0x80`, ...): user notification (the supervisor records it
///   and kills the process); x32 numbers: `ENOSYS`;
/// - `connect`, `sendmsg`, `sendmmsg`, and `sendto` with a non-null destination: user
///   notification (the supervisor reads the address and answers);
/// - `io_uring_setup`: `ENOSYS` (io_uring requests do not pass through seccomp);
/// - `socket` for any family but `AF_UNIX`, `AF_INET`, `AF_INET6`, `AF_NETLINK`:
///   `EAFNOSUPPORT` (packet, vsock, ... sockets can send without a destination address);
///   an `AF_INET`/`AF_INET6` socket of any type but `SOCK_STREAM`, `SOCK_DGRAM` and
///   `SOCK_SEQPACKET` (`SOCK_RAW`, and `SOCK_PACKET`, which the kernel makes a packet socket that
///   sends on an interface whatever the address says): user notification, refused and recorded;
/// - `ptrace`, `process_vm_writev`, `pidfd_getfd`: `EPERM` (no borrowing a socket from, or
///   steering, a process outside the filter);
/// - `ioctl(fd, TUNSETIFF, …)`: user notification, refused and recorded (a TUN interface sends
///   whatever is written to it);
/// - everything else: allowed.
pub fn program(arch: u32) -> Vec<libc::sock_filter> {
    use Label::*;
    use Op::*;
    let nr = |n: libc::c_long| n as u32;
    let ops = [
        Load(OFFSET_ARCH),
        JumpEq(arch, Next, Notify),
        Load(OFFSET_NR),
        JumpGe(X32_SYSCALL_BIT, Enosys, Next),
        JumpEq(nr(libc::SYS_connect), Notify, Next),
        JumpEq(nr(libc::SYS_sendmsg), Notify, Next),
        JumpEq(nr(libc::SYS_sendmmsg), Notify, Next),
        JumpEq(nr(libc::SYS_sendto), SendtoCheck, Next),
        JumpEq(nr(libc::SYS_socket), SocketCheck, Next),
        JumpEq(nr(libc::SYS_io_uring_setup), Enosys, Next),
        JumpEq(nr(libc::SYS_ptrace), Eperm, Next),
        JumpEq(nr(libc::SYS_process_vm_writev), Eperm, Next),
        JumpEq(nr(libc::SYS_pidfd_getfd), Eperm, Next),
        JumpEq(nr(libc::SYS_ioctl), IoctlCheck, Next),
        Return(libc::SECCOMP_RET_ALLOW),
        // ioctl(fd, request, …): only TUNSETIFF matters.
        Here(IoctlCheck),
        Load(arg_low(1)),
        JumpEq(TUNSETIFF, Notify, Allow),
        // sendto(fd, buf, len, flags, dest_addr, addrlen): only a non-null dest_addr matters.
        Here(SendtoCheck),
        Load(arg_low(4)),
        JumpEq(0, SendtoHigh, Notify),
        Here(SendtoHigh),
        Load(arg_high(4)),
        JumpEq(0, Allow, Notify),
        // socket(domain, type, protocol): `domain` is an int, the low word of args[0].
        Here(SocketCheck),
        Load(arg_low(0)),
        JumpEq(libc::AF_UNIX as u32, Allow, Next),
        JumpEq(libc::AF_INET as u32, SocketType, Next),
        JumpEq(libc::AF_INET6 as u32, SocketType, Next),
        JumpEq(libc::AF_NETLINK as u32, Allow, Next),
        Return(ret_errno(libc::EAFNOSUPPORT)),
        // The type without SOCK_NONBLOCK and SOCK_CLOEXEC (the kernel's SOCK_TYPE_MASK).
        Here(SocketType),
        Load(arg_low(1)),
        And(0xf),
        JumpEq(libc::SOCK_STREAM as u32, Allow, Next),
        JumpEq(libc::SOCK_DGRAM as u32, Allow, Next),
        JumpEq(libc::SOCK_SEQPACKET as u32, Allow, Notify),
        Here(Allow),
        Return(libc::SECCOMP_RET_ALLOW),
        Here(Notify),
        Return(libc::SECCOMP_RET_USER_NOTIF),
        Here(Enosys),
        Return(ret_errno(libc::ENOSYS)),
        Here(Eperm),
        Return(ret_errno(libc::EPERM)),
    ];
    assemble(&ops)
}

fn assemble(ops: &[Op]) -> Vec<libc::sock_filter> {
    // Index of each emitted instruction, and where each label lands.
    let mut position = 0usize;
    let mut labels = Vec::new();
    for op in ops {
        match op {
            Op::Here(label) => labels.push((*label, position)),
            _ => position += 1,
        }
    }
    let target = |label: Label, at: usize| -> u8 {
        if label == Label::Next {
            return 0;
        }
        let (_, to) = labels
            .iter()
            .find(|(l, _)| *l == label)
            .unwrap_or_else(|| panic!("seccomp filter: label {label:?} is never placed"));
        let offset = to
            .checked_sub(at + 1)
            .unwrap_or_else(|| panic!("seccomp filter: backward jump to {label:?}"));
        u8::try_from(offset).expect("seccomp filter: jump too far")
    };
    let mut out = Vec::new();
    for op in ops {
        let at = out.len();
        let insn = match *op {
            Op::Here(_) => continue,
            Op::Load(offset) => stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset),
            Op::JumpEq(k, then, otherwise) => jump(
                libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
                k,
                target(then, at),
                target(otherwise, at),
            ),
            Op::And(k) => stmt(libc::BPF_ALU | libc::BPF_AND | libc::BPF_K, k),
            Op::JumpGe(k, then, otherwise) => jump(
                libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K,
                k,
                target(then, at),
                target(otherwise, at),
            ),
            Op::Return(action) => stmt(libc::BPF_RET | libc::BPF_K, action),
        };
        out.push(insn);
    }
    out
}

fn stmt(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

/// Runs in the child between `fork` and `exec` (async-signal-safe: raw system calls only).
///
/// Sets `PR_SET_NO_NEW_PRIVS`, installs `filter` with a new listener, tells the tracer our pid
/// and the listener's number on `ready`, then waits on `ack` until the tracer has taken the
/// listener with `pidfd_getfd` (byte 1) or refused (anything else, or end of file). The child's
/// own copy of the listener is closed before returning, so the program never holds it.
///
/// # Safety
/// `filter` must point to `len` valid instructions; `ready` and `ack` must be open pipe ends.
pub unsafe fn install_in_child(
    filter: *const libc::sock_filter,
    len: u16,
    ready: RawFd,
    ack: RawFd,
) -> io::Result<()> {
    // SAFETY: plain system calls on integers and on memory the caller vouches for.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        let program = libc::sock_fprog {
            len,
            filter: filter as *mut libc::sock_filter,
        };
        let listener = libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &program as *const libc::sock_fprog,
        );
        if listener < 0 {
            return Err(io::Error::last_os_error());
        }
        let listener = listener as RawFd;
        let mut message = [0u8; 8];
        message[..4].copy_from_slice(&(libc::getpid() as u32).to_ne_bytes());
        message[4..].copy_from_slice(&(listener as u32).to_ne_bytes());
        // A tracer that went away must fail the spawn, not kill the child with SIGPIPE (which
        // `Command::spawn` would mistake for a successful exec).
        let previous = libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        let result = handshake(&message, ready, ack);
        libc::signal(libc::SIGPIPE, previous);
        libc::close(listener);
        result
    }
}

/// # Safety
/// `ready` and `ack` must be open pipe ends.
unsafe fn handshake(message: &[u8; 8], ready: RawFd, ack: RawFd) -> io::Result<()> {
    // SAFETY: write/read on caller-provided descriptors into stack buffers.
    unsafe {
        // 8 bytes is below PIPE_BUF: one write, all or nothing.
        loop {
            let n = libc::write(ready, message.as_ptr().cast(), message.len());
            if n == message.len() as isize {
                break;
            }
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            return Err(io::Error::from_raw_os_error(libc::EPIPE));
        }
        let mut byte = 0u8;
        loop {
            let n = libc::read(ack, (&mut byte as *mut u8).cast(), 1);
            if n == 1 && byte == 1 {
                return Ok(());
            }
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            // The tracer could not take the listener: never exec without a supervisor.
            return Err(io::Error::from_raw_os_error(libc::ECONNREFUSED));
        }
    }
}

/// `pidfd_open(pid, 0)`.
pub fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    // SAFETY: a system call on integers; a non-negative result is a new descriptor we own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0u32) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// `pidfd_getfd(pidfd, target_fd, 0)`: a duplicate (close-on-exec) of another process's fd.
pub fn pidfd_getfd(pidfd: &OwnedFd, target_fd: RawFd) -> io::Result<OwnedFd> {
    use std::os::fd::AsRawFd;
    // SAFETY: a system call on integers; a non-negative result is a new descriptor we own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), target_fd, 0u32) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// A close-on-exec pipe: (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created for us.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_program_jumps_stay_inside_and_every_path_returns() {
        let program = program(0xC000_003E);
        assert!(program.len() < 64);
        let ret = (libc::BPF_RET | libc::BPF_K) as u16;
        assert_eq!(program.last().map(|i| i.code), Some(ret));
        for (at, insn) in program.iter().enumerate() {
            if insn.code & 0x07 == libc::BPF_JMP as u16 {
                assert!(at + 1 + (insn.jt as usize) < program.len());
                assert!(at + 1 + (insn.jf as usize) < program.len());
            }
        }
    }
}
