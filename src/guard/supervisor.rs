//! The supervisor: the thread that answers the filter's user notifications.
//!
//! For each notification it reads the destination the caller passed (from `/proc/TID/mem`,
//! checking with `SECCOMP_IOCTL_NOTIF_ID_VALID` that the caller is still the same blocked task),
//! decides, answers, and records refused attempts. It never sends anything itself and never
//! blocks a caller for longer than one read of its memory: when it stops, the listener closes and
//! the kernel fails any call still waiting (`ENOSYS`).

use std::fs::File;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::Attempt;

/// `sizeof(struct msghdr)` and `sizeof(struct mmsghdr)` on 64-bit Linux.
const MSGHDR_SIZE: usize = 56;
const MMSGHDR_SIZE: usize = 64;
/// The kernel handles at most `UIO_MAXIOV` messages per `sendmmsg`.
const MAX_MMSG: usize = 1024;
/// `sizeof(struct sockaddr_storage)`: the kernel never reads more of an address.
const SOCKADDR_MAX: usize = 128;

/// What to answer a notification.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Let the kernel run the call (`SECCOMP_USER_NOTIF_FLAG_CONTINUE`).
    Continue,
    /// Fail the call with this errno and record these destinations.
    Refuse(i32, Vec<Destination>),
    /// A system call of another ABI (i386's `int 0x80`): record it and kill the process, whose
    /// calls the filter cannot read by this ABI's numbers.
    Kill(Vec<Destination>),
}

/// A destination read from the caller's memory.
#[derive(Debug, PartialEq, Eq, Clone)]
pub struct Destination {
    pub family: String,
    pub address: String,
    pub port: u16,
}

/// Runs until `stop` becomes readable or hangs up (its write end dropped), or until no task uses
/// the filter any more.
pub fn run(listener: OwnedFd, stop: OwnedFd, attempts: Arc<Mutex<Vec<Attempt>>>) {
    loop {
        let mut fds = [
            libc::pollfd {
                fd: listener.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: stop.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: poll on two valid descriptors in a stack array.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
        if n < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if fds[0].revents & libc::POLLIN != 0 {
            handle_one(&listener, &attempts);
            continue;
        }
        if fds[1].revents != 0 || fds[0].revents & (libc::POLLHUP | libc::POLLERR) != 0 {
            return;
        }
    }
}

fn handle_one(listener: &OwnedFd, attempts: &Mutex<Vec<Attempt>>) {
    // Zeroed before every receive: the kernel refuses a non-zero buffer (EINVAL).
    // SAFETY: seccomp_notif is plain data; all-zero is a valid value.
    let mut notif: libc::seccomp_notif = unsafe { std::mem::zeroed() };
    // SAFETY: the ioctl fills the struct we pass.
    let rc = unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_RECV,
            &mut notif as *mut libc::seccomp_notif,
        )
    };
    if rc != 0 {
        // ENOENT: the caller went away (killed, or its call interrupted) before we received it.
        return;
    }
    let verdict = match Caller::open(listener, &notif) {
        Ok(caller) => decide(&notif.data, &caller),
        // The task is gone: whatever we answer is dropped.
        Err(None) => Verdict::Refuse(libc::EPERM, Vec::new()),
        // Its memory cannot be read (permissions): fail closed, and say so in the record.
        Err(Some(error)) => Verdict::Refuse(
            libc::EPERM,
            vec![Destination {
                family: "unknown".to_owned(),
                address: format!("unreadable: {error}"),
                port: 0,
            }],
        ),
    };
    // Record only what a still-blocked caller really asked: a call interrupted and restarted by a
    // signal comes back as a new notification and is counted then.
    if let Verdict::Refuse(_, destinations) | Verdict::Kill(destinations) = &verdict
        && !destinations.is_empty()
        && id_valid(listener, notif.id)
    {
        let (pid, process) = process_of(notif.pid);
        let syscall = if matches!(verdict, Verdict::Kill(_)) {
            abi_name(notif.data.arch)
        } else {
            syscall_name(notif.data.nr)
        };
        let mut attempts = attempts.lock().unwrap_or_else(|e| e.into_inner());
        for d in destinations {
            attempts.push(Attempt {
                syscall: syscall.to_owned(),
                family: d.family.clone(),
                address: d.address.clone(),
                port: d.port,
                pid,
                process: process.clone(),
            });
        }
        drop(attempts);
        if matches!(verdict, Verdict::Kill(_))
            && let Ok(pid) = i32::try_from(pid)
        {
            // SAFETY: kill(2) of the caller's thread group, which is still blocked in this
            // notification (checked just above), so its pid is its own.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    respond(listener, notif.id, &verdict);
}

fn respond(listener: &OwnedFd, id: u64, verdict: &Verdict) {
    let (error, flags) = match verdict {
        Verdict::Continue => (0, libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32),
        Verdict::Refuse(errno, _) => (-errno, 0),
        Verdict::Kill(_) => (-libc::ENOSYS, 0),
    };
    let mut resp = libc::seccomp_notif_resp {
        id,
        val: 0,
        error,
        flags,
    };
    // SAFETY: the ioctl reads the struct we pass. ENOENT (the caller is gone) needs no handling.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SEND,
            &mut resp as *mut libc::seccomp_notif_resp,
        );
    }
}

fn id_valid(listener: &OwnedFd, id: u64) -> bool {
    let mut id = id;
    // SAFETY: the ioctl reads the u64 we pass.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_ID_VALID,
            &mut id as *mut u64,
        ) == 0
    }
}

/// The blocked caller's memory, opened and checked to belong to the task that made the call
/// (a recycled thread id would fail `NOTIF_ID_VALID`).
pub struct Caller {
    mem: File,
    /// `/proc/PID` of the caller.
    proc: PathBuf,
}

impl Caller {
    /// `Err(None)`: the caller is gone; `Err(Some(error))`: it is there but cannot be read.
    fn open(listener: &OwnedFd, notif: &libc::seccomp_notif) -> Result<Caller, Option<io::Error>> {
        let mem = File::open(format!("/proc/{}/mem", notif.pid));
        if !id_valid(listener, notif.id) {
            return Err(None);
        }
        mem.map(|mem| Caller {
            mem,
            proc: PathBuf::from(format!("/proc/{}", notif.pid)),
        })
        .map_err(Some)
    }

    #[cfg(test)]
    pub fn of_self() -> Caller {
        Caller {
            mem: File::open("/proc/self/mem").expect("open /proc/self/mem"),
            proc: PathBuf::from("/proc/self"),
        }
    }

    /// Reads exactly `len` bytes at `address` of the caller.
    fn read(&self, address: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        self.mem.read_exact_at(&mut buf, address)?;
        Ok(buf)
    }

    /// Whether `path` is no socket file the caller could reach outside its network namespace:
    /// there is none at `path` (as the caller sees the file system), or a socket of the caller's
    /// network namespace (`/proc/PID/net/unix`) is bound to it, as it was given to `bind` or, for
    /// a relative one, from the caller's folder. In the audit's sandbox that is a socket of the
    /// sandbox's; outside it, of the host's.
    fn namespace_binds(&self, path: &str) -> bool {
        let absolute = (!path.starts_with('/'))
            .then(|| std::fs::read_link(self.proc.join("cwd")).ok())
            .flatten()
            .map(|cwd| cwd.join(path).to_string_lossy().into_owned());
        // No socket file there (glibc's try of nscd's socket, say): the call fails on its own.
        let seen = self
            .proc
            .join("root")
            .join(absolute.as_deref().unwrap_or(path).trim_start_matches('/'));
        if !std::fs::symlink_metadata(seen)
            .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()))
        {
            return true;
        }
        // Num RefCount Protocol Flags Type St Inode Path
        std::fs::read_to_string(self.proc.join("net/unix")).is_ok_and(|table| {
            table.lines().skip(1).any(|line| {
                let bound = line.split_whitespace().nth(7);
                bound == Some(path) || (absolute.is_some() && bound == absolute.as_deref())
            })
        })
    }
}

/// The decision for one call, from its arguments and the caller's memory.
pub fn decide(data: &libc::seccomp_data, caller: &Caller) -> Verdict {
    if super::seccomp::AUDIT_ARCH.is_some_and(|native| data.arch != native) {
        return Verdict::Kill(vec![Destination {
            family: "abi".to_owned(),
            address: format!("(system call {} of the ABI 0x{:08x})", data.nr, data.arch),
            port: 0,
        }]);
    }
    let nr = data.nr as libc::c_long;
    let args = data.args;
    let is_connect = nr == libc::SYS_connect;
    let names: Result<(Vec<(u64, u64)>, bool), i32> = match nr {
        libc::SYS_connect => Ok((vec![(args[1], args[2])], false)),
        libc::SYS_sendto => Ok((vec![(args[4], args[5])], false)),
        libc::SYS_sendmsg => read_msghdrs(caller, args[1], 1, MSGHDR_SIZE),
        libc::SYS_sendmmsg => {
            let count = (args[2] as u32 as usize).min(MAX_MMSG);
            read_msghdrs(caller, args[1], count, MMSGHDR_SIZE)
        }
        // An IP socket of a raw or packet type (the filter lets the others through).
        libc::SYS_socket => {
            let family = if args[0] as i32 == libc::AF_INET6 {
                "ipv6"
            } else {
                "ipv4"
            };
            let kind = match args[1] as i32 & 0xf {
                libc::SOCK_RAW => "raw".to_owned(),
                10 => "packet".to_owned(),
                n => format!("type {n}"),
            };
            return Verdict::Refuse(
                libc::EPERM,
                vec![Destination {
                    family: family.to_owned(),
                    address: format!("({kind} socket)"),
                    port: 0,
                }],
            );
        }
        // `/dev/net/tun` attached to an interface (the filter notifies only TUNSETIFF).
        libc::SYS_ioctl => {
            return Verdict::Refuse(
                libc::EPERM,
                vec![Destination {
                    family: "tun".to_owned(),
                    address: "(TUN/TAP interface)".to_owned(),
                    port: 0,
                }],
            );
        }
        // The filter notifies nothing else; refuse rather than guess.
        _ => Err(libc::EPERM),
    };
    let names = match names {
        Ok(names) => names,
        Err(errno) => return Verdict::Refuse(errno, Vec::new()),
    };
    let (names, cut) = names;
    // A header or an address that cannot be read fails the call as the kernel would (EFAULT,
    // EINVAL), and what the readable ones name is recorded all the same: a `sendmmsg` whose
    // second header is unmapped still counts the first one's destination.
    let mut failed = cut.then_some(libc::EFAULT);
    let mut refused = Vec::new();
    for (pointer, len) in names {
        // No destination (a connected socket): any connect on it was already refused or was to an
        // allowed family, so the call goes where that connect went.
        if pointer == 0 || (!is_connect && len == 0) {
            continue;
        }
        let len = len as u32 as usize;
        if len < 2 {
            failed.get_or_insert(libc::EINVAL);
            continue;
        }
        let bytes = match caller.read(pointer, len.min(SOCKADDR_MAX)) {
            Ok(bytes) => bytes,
            // Unmapped memory: the kernel would fail the call the same way.
            Err(_) => {
                failed.get_or_insert(libc::EFAULT);
                continue;
            }
        };
        match classify(&bytes, is_connect) {
            None => {
                if let Some(path) = unix_path(&bytes)
                    && !caller.namespace_binds(&path)
                {
                    // A socket file no socket of the caller's network namespace is bound to: in
                    // the sandbox, a daemon outside it, which could send for the caller or pass
                    // it a socket connected outside.
                    refused.push(Destination {
                        family: "unix-outside".to_owned(),
                        address: path,
                        port: 0,
                    });
                }
            }
            Some(destination) => refused.push(destination),
        }
    }
    if let Some(errno) = failed {
        return Verdict::Refuse(errno, refused);
    }
    if refused.is_empty() {
        Verdict::Continue
    } else {
        Verdict::Refuse(libc::EPERM, refused)
    }
}

/// `(msg_name, msg_namelen)` of the `count` headers of `stride` bytes at `address` that can be
/// read, in order, and whether a header could not be (the ones after it are not read).
fn read_msghdrs(
    caller: &Caller,
    address: u64,
    count: usize,
    stride: usize,
) -> Result<(Vec<(u64, u64)>, bool), i32> {
    let mut names = Vec::new();
    for k in 0..count {
        let Ok(header) = caller.read(address + (k * stride) as u64, stride) else {
            return if names.is_empty() {
                Err(libc::EFAULT)
            } else {
                Ok((names, true))
            };
        };
        let name = u64::from_ne_bytes(header[0..8].try_into().expect("8 bytes"));
        let len = u32::from_ne_bytes(header[8..12].try_into().expect("4 bytes"));
        names.push((name, u64::from(len)));
    }
    Ok((names, false))
}

/// The path of an `AF_UNIX` address named by a path (not abstract, not unnamed).
fn unix_path(sockaddr: &[u8]) -> Option<String> {
    let family = i32::from(u16::from_ne_bytes([sockaddr[0], sockaddr[1]]));
    let path = sockaddr.get(2..)?;
    if family != libc::AF_UNIX || path.first().is_none_or(|&b| b == 0) {
        return None;
    }
    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    Some(String::from_utf8_lossy(&path[..end]).into_owned())
}

/// `None` for a destination that may go ahead (`AF_UNIX`, `AF_NETLINK`, and `AF_UNSPEC` for
/// `connect`, which only dissolves an association); the destination to refuse otherwise.
///
/// `AF_UNSPEC` in `sendto`/`sendmsg` is refused: an IPv4 UDP socket reads it as `AF_INET`.
fn classify(sockaddr: &[u8], is_connect: bool) -> Option<Destination> {
    let family = i32::from(u16::from_ne_bytes([sockaddr[0], sockaddr[1]]));
    let port = || {
        sockaddr
            .get(2..4)
            .map_or(0, |p| u16::from_be_bytes([p[0], p[1]]))
    };
    let ipv4 = || {
        sockaddr.get(4..8).map_or_else(
            || "?".to_owned(),
            |a| Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string(),
        )
    };
    match family {
        // An abstract address (`\0name`) belongs to the network namespace, not to a file: a local
        // forwarder listening there can carry data out, so it is refused as a destination.
        libc::AF_UNIX if sockaddr.len() > 2 && sockaddr[2] == 0 => Some(Destination {
            family: "unix-abstract".to_owned(),
            address: format!(
                "@{}",
                String::from_utf8_lossy(&sockaddr[3..]).trim_end_matches('\0')
            ),
            port: 0,
        }),
        libc::AF_UNIX | libc::AF_NETLINK => None,
        libc::AF_UNSPEC if is_connect => None,
        libc::AF_UNSPEC => Some(Destination {
            family: "unspec".to_owned(),
            address: ipv4(),
            port: port(),
        }),
        libc::AF_INET => Some(Destination {
            family: "ipv4".to_owned(),
            address: ipv4(),
            port: port(),
        }),
        libc::AF_INET6 => Some(Destination {
            family: "ipv6".to_owned(),
            address: sockaddr.get(8..24).map_or_else(
                || "?".to_owned(),
                |a| {
                    let octets: [u8; 16] = a.try_into().expect("16 bytes");
                    Ipv6Addr::from(octets).to_string()
                },
            ),
            port: port(),
        }),
        other => Some(Destination {
            family: format!("other({other})"),
            address: String::new(),
            port: 0,
        }),
    }
}

/// What a system call of another ABI is recorded as: `i386` (`AUDIT_ARCH_I386`), else
/// `foreign-abi`.
fn abi_name(arch: u32) -> &'static str {
    if arch == 0x4000_0003 {
        "i386"
    } else {
        "foreign-abi"
    }
}

fn syscall_name(nr: i32) -> &'static str {
    match nr as libc::c_long {
        libc::SYS_socket => "socket",
        libc::SYS_connect => "connect",
        libc::SYS_sendto => "sendto",
        libc::SYS_sendmsg => "sendmsg",
        libc::SYS_sendmmsg => "sendmmsg",
        libc::SYS_ioctl => "ioctl",
        _ => "unknown",
    }
}

/// The process (thread group) a thread id belongs to, and its `comm`.
fn process_of(tid: u32) -> (u32, String) {
    let pid = std::fs::read_to_string(format!("/proc/{tid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("Tgid:"))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(tid);
    let process = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|comm| comm.trim_end_matches('\n').to_owned())
        .unwrap_or_default();
    (pid, process)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sockaddr_in(ip: [u8; 4], port: u16) -> Vec<u8> {
        let mut b = vec![0u8; 16];
        b[0..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        b[2..4].copy_from_slice(&port.to_be_bytes());
        b[4..8].copy_from_slice(&ip);
        b
    }

    fn data(nr: libc::c_long, args: [u64; 6]) -> libc::seccomp_data {
        libc::seccomp_data {
            nr: nr as i32,
            arch: crate::guard::seccomp::AUDIT_ARCH.unwrap_or(0),
            instruction_pointer: 0,
            args,
        }
    }

    /// A `sendmmsg` of two headers whose second lies in unmapped memory: the call fails as the
    /// kernel would fail it (`EFAULT`), and the first header's destination is counted all the same.
    #[test]
    fn a_sendmmsg_cut_short_by_unmapped_memory_still_counts_what_it_names() {
        let caller = Caller::of_self();
        let v4 = sockaddr_in([10, 9, 8, 7], 443);
        // SAFETY: a private anonymous mapping of two pages, the second unmapped again (memory the
        // tracer reads through /proc/PID/mem ignores protections: only unmapped memory fails); the
        // first header is written at the end of the first page, so the second one is unmapped.
        let (page, region) = unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
            let region = libc::mmap(
                std::ptr::null_mut(),
                2 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(region, libc::MAP_FAILED);
            libc::munmap(region.cast::<u8>().add(page).cast(), page);
            (page, region.cast::<u8>())
        };
        // SAFETY: the first header (name pointer, then its length) lies inside the first page.
        let first = unsafe {
            let first = region.add(page - MMSGHDR_SIZE);
            std::ptr::write_unaligned(first.cast::<u64>(), v4.as_ptr() as u64);
            std::ptr::write_unaligned(first.add(8).cast::<u32>(), 16);
            first
        };
        let verdict = decide(
            &data(libc::SYS_sendmmsg, [3, first as u64, 2, 0, 0, 0]),
            &caller,
        );
        // SAFETY: the first page of the mapping made above, no longer used.
        unsafe { libc::munmap(region.cast(), page) };
        assert_eq!(
            verdict,
            Verdict::Refuse(
                libc::EFAULT,
                vec![Destination {
                    family: "ipv4".into(),
                    address: "10.9.8.7".into(),
                    port: 443
                }]
            )
        );
    }

    #[test]
    fn guard_decides_from_the_address_family() {
        let caller = Caller::of_self();
        let v4 = sockaddr_in([10, 1, 2, 3], 8080);
        let verdict = decide(
            &data(libc::SYS_connect, [3, v4.as_ptr() as u64, 16, 0, 0, 0]),
            &caller,
        );
        assert_eq!(
            verdict,
            Verdict::Refuse(
                libc::EPERM,
                vec![Destination {
                    family: "ipv4".into(),
                    address: "10.1.2.3".into(),
                    port: 8080
                }]
            )
        );

        let mut unix = [0u8; 20];
        unix[0..2].copy_from_slice(&(libc::AF_UNIX as u16).to_ne_bytes());
        unix[2..8].copy_from_slice(b"/tmp/s");
        let verdict = decide(
            &data(libc::SYS_connect, [3, unix.as_ptr() as u64, 20, 0, 0, 0]),
            &caller,
        );
        assert_eq!(verdict, Verdict::Continue);
        // An abstract name (a NUL first byte) is a destination of the network namespace.
        let mut abstract_unix = [0u8; 8];
        abstract_unix[0..2].copy_from_slice(&(libc::AF_UNIX as u16).to_ne_bytes());
        abstract_unix[3..8].copy_from_slice(b"relay");
        let verdict = decide(
            &data(
                libc::SYS_connect,
                [3, abstract_unix.as_ptr() as u64, 8, 0, 0, 0],
            ),
            &caller,
        );
        assert_eq!(
            verdict,
            Verdict::Refuse(
                libc::EPERM,
                vec![Destination {
                    family: "unix-abstract".into(),
                    address: "@relay".into(),
                    port: 0
                }]
            )
        );

        // AF_UNSPEC: a disconnect for connect, an IPv4 destination for sendto.
        let unspec = sockaddr_in([1, 1, 1, 1], 53)
            .iter()
            .enumerate()
            .map(|(i, b)| if i < 2 { 0 } else { *b })
            .collect::<Vec<_>>();
        let verdict = decide(
            &data(libc::SYS_connect, [3, unspec.as_ptr() as u64, 16, 0, 0, 0]),
            &caller,
        );
        assert_eq!(verdict, Verdict::Continue);
        let verdict = decide(
            &data(libc::SYS_sendto, [3, 0, 0, 0, unspec.as_ptr() as u64, 16]),
            &caller,
        );
        assert!(matches!(verdict, Verdict::Refuse(libc::EPERM, ref d) if d[0].family == "unspec"));
    }

    #[test]
    fn guard_reads_every_name_of_a_sendmmsg() {
        let caller = Caller::of_self();
        let a = sockaddr_in([127, 0, 0, 1], 9);
        let mut headers = [0u8; 2 * MMSGHDR_SIZE];
        // First message without a name (connected), second to 127.0.0.1:9.
        headers[MMSGHDR_SIZE..MMSGHDR_SIZE + 8].copy_from_slice(&(a.as_ptr() as u64).to_ne_bytes());
        headers[MMSGHDR_SIZE + 8..MMSGHDR_SIZE + 12].copy_from_slice(&16u32.to_ne_bytes());
        let verdict = decide(
            &data(libc::SYS_sendmmsg, [3, headers.as_ptr() as u64, 2, 0, 0, 0]),
            &caller,
        );
        assert!(
            matches!(verdict, Verdict::Refuse(libc::EPERM, ref d) if d.len() == 1 && d[0].port == 9)
        );
        // An unreadable header fails the call as the kernel would.
        let verdict = decide(&data(libc::SYS_sendmsg, [3, 8, 0, 0, 0, 0]), &caller);
        assert_eq!(verdict, Verdict::Refuse(libc::EFAULT, Vec::new()));
    }
}
