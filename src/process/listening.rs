//! Which sockets listen on a loopback port, and whether a given process holds one: the kernel's
//! table of listening TCP sockets, asked through `sock_diag` netlink, with `/proc/net/tcp` as the
//! fallback (and `/proc/PID/net/tcp` for a process in another network namespace).
//!
//! Reading `/proc/net/tcp` walks every bucket of the kernel's table of established connections
//! (about 1.5 ms on the 2-core test machine, on the path from a process's report to tracer's
//! attach); a `sock_diag` dump asked for listening sockets only walks the listening table (a few
//! microseconds). The request is one fixed message and the answer a list of fixed records, so it is
//! written here on `libc` rather than with a netlink crate (those bring an async runtime or a
//! code generator for this one call).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

/// `SOCK_DIAG_BY_FAMILY` (`linux/sock_diag.h`).
const SOCK_DIAG_BY_FAMILY: u16 = 20;
/// `NLMSG_ERROR` and `NLMSG_DONE` (`linux/netlink.h`).
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_DUMP: u16 = 0x300;
/// `TCP_LISTEN` (`net/tcp_states.h`).
const TCP_LISTEN: u8 = 10;
/// The length of `struct nlmsghdr`, and of `struct inet_diag_msg` up to its `idiag_inode`.
const HEADER: usize = 16;
const DIAG_MSG: usize = 72;

/// The inodes of the sockets listening on 127.0.0.1:`port`.
pub fn inodes(port: u16) -> Vec<u64> {
    match diag_inodes(port) {
        Ok(inodes) => inodes,
        Err(_) => proc_inodes(port),
    }
}

fn diag_inodes(port: u16) -> io::Result<Vec<u64>> {
    // SAFETY: socket(2) with constant arguments; the descriptor is owned at once.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            libc::NETLINK_SOCK_DIAG,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by socket(2) and nothing else owns it.
    let socket = unsafe { OwnedFd::from_raw_fd(fd) };
    let request = request();
    // SAFETY: a zeroed sockaddr_nl is the kernel's address (pid 0, no groups).
    let mut kernel: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    kernel.nl_family = libc::AF_NETLINK as libc::sa_family_t;
    // SAFETY: sendto(2) on our socket with a live buffer and address of the sizes given.
    let sent = unsafe {
        libc::sendto(
            socket.as_raw_fd(),
            request.as_ptr().cast(),
            request.len(),
            0,
            (&raw const kernel).cast(),
            size_of::<libc::sockaddr_nl>() as libc::socklen_t,
        )
    };
    if sent != request.len() as isize {
        return Err(io::Error::last_os_error());
    }
    let mut inodes = Vec::new();
    // Not zeroed (that took 8 page faults on the way to the attach): recv fills what is read.
    let mut buffer: Vec<u8> = Vec::with_capacity(32 * 1024);
    loop {
        // SAFETY: recv(2) into the buffer's capacity; only the `n` bytes it wrote are then used.
        let n = unsafe {
            libc::recv(
                socket.as_raw_fd(),
                buffer.as_mut_ptr().cast(),
                buffer.capacity(),
                0,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        // SAFETY: recv wrote these `n` bytes (n > 0 and at most the capacity).
        unsafe { buffer.set_len(n as usize) };
        if read_answer(&buffer, port, &mut inodes)? {
            return Ok(inodes);
        }
    }
}

/// `struct nlmsghdr` then `struct inet_diag_req_v2`: IPv4 TCP sockets in the listening state.
fn request() -> Vec<u8> {
    let length = HEADER + 56;
    let mut message = Vec::with_capacity(length);
    message.extend_from_slice(&(length as u32).to_ne_bytes());
    message.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    message.extend_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
    message.extend_from_slice(&1u32.to_ne_bytes()); // sequence number
    message.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel assigns it
    message.push(libc::AF_INET as u8);
    message.push(libc::IPPROTO_TCP as u8);
    message.push(0); // no extensions
    message.push(0);
    message.extend_from_slice(&(1u32 << TCP_LISTEN).to_ne_bytes());
    message.resize(length, 0); // the socket id: any
    message
}

/// Reads one datagram of the dump into `inodes`; true once the dump is complete.
fn read_answer(mut data: &[u8], port: u16, inodes: &mut Vec<u64>) -> io::Result<bool> {
    while data.len() >= HEADER {
        let length = u32::from_ne_bytes(data[0..4].try_into().expect("4 bytes")) as usize;
        let kind = u16::from_ne_bytes(data[4..6].try_into().expect("2 bytes"));
        if length < HEADER || length > data.len() {
            return Err(io::ErrorKind::InvalidData.into());
        }
        match kind {
            NLMSG_DONE => return Ok(true),
            NLMSG_ERROR => return Err(io::ErrorKind::Other.into()),
            SOCK_DIAG_BY_FAMILY if length >= HEADER + DIAG_MSG => {
                let msg = &data[HEADER..length];
                // idiag_family, idiag_state; the id's source port (network order) and address.
                let source_port = u16::from_be_bytes([msg[4], msg[5]]);
                let loopback = msg[8..12] == [127, 0, 0, 1];
                if msg[0] == libc::AF_INET as u8
                    && msg[1] == TCP_LISTEN
                    && source_port == port
                    && loopback
                {
                    let inode = u32::from_ne_bytes(msg[68..72].try_into().expect("4 bytes"));
                    inodes.push(u64::from(inode));
                }
            }
            _ => {}
        }
        // Messages are aligned to 4 bytes.
        let next = (length + 3) & !3;
        data = data.get(next..).unwrap_or_default();
    }
    Ok(false)
}

/// The same from `/proc/net/tcp` (where netlink is not allowed).
fn proc_inodes(port: u16) -> Vec<u64> {
    table_inodes("/proc/net/tcp", port)
}

/// The inodes of the sockets listening on 127.0.0.1:`port` in the network namespace of process
/// `pid` (`/proc/PID/net/tcp`), which need not be tracer's.
pub fn inodes_of(pid: u32, port: u16) -> Vec<u64> {
    table_inodes(&format!("/proc/{pid}/net/tcp"), port)
}

fn table_inodes(path: &str, port: u16) -> Vec<u64> {
    let Ok(table) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    // sl local_address rem_address st ... inode: 127.0.0.1 is 0100007F, LISTEN is 0A.
    let wanted = format!("0100007F:{port:04X}");
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.get(1) == Some(&wanted.as_str()) && fields.get(3) == Some(&"0A"))
                .then(|| fields.get(9).and_then(|inode| inode.parse().ok()))
                .flatten()
        })
        .collect()
}

/// Whether process `pid` holds the socket listening on 127.0.0.1:`port`: the listening socket's
/// inode among the process's open descriptors. `elsewhere`: the process is in another network
/// namespace than tracer's (the audit's sandbox), whose table is read through its `/proc`. An
/// inspector URL is attached to only when this holds: the tool, which runs outside the no-send
/// guard, must never connect somewhere because the code under trace said so.
pub fn process_listens_on(pid: u32, port: u16, elsewhere: bool) -> bool {
    let inodes: Vec<String> = if elsewhere {
        inodes_of(pid, port)
    } else {
        inodes(port)
    }
    .into_iter()
    .map(|inode| format!("socket:[{inode}]"))
    .collect();
    holds_any(&Path::new("/proc").join(pid.to_string()), &inodes)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listening_loopback_socket_is_found_by_both_ways_and_a_closed_one_by_neither() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let by_diag = diag_inodes(port).unwrap();
        assert_eq!(by_diag.len(), 1, "{by_diag:?}");
        assert_eq!(by_diag, proc_inodes(port));
        // The inode is the one the socket's descriptor links to.
        let link = std::fs::read_link(format!("/proc/self/fd/{}", listener.as_raw_fd())).unwrap();
        assert_eq!(link.to_string_lossy(), format!("socket:[{}]", by_diag[0]));
        // A connection to it is not a listening socket.
        let _client = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        assert_eq!(diag_inodes(port).unwrap().len(), 1);
        drop(listener);
        assert!(inodes(port).is_empty());
    }

    #[test]
    fn an_answer_of_other_ports_families_and_states_gives_nothing() {
        let record = |family: u8, state: u8, port: u16, address: [u8; 4], inode: u32| {
            let mut msg = vec![0u8; HEADER + DIAG_MSG];
            msg[0..4].copy_from_slice(&((HEADER + DIAG_MSG) as u32).to_ne_bytes());
            msg[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
            let body = &mut msg[HEADER..];
            body[0] = family;
            body[1] = state;
            body[4..6].copy_from_slice(&port.to_be_bytes());
            body[8..12].copy_from_slice(&address);
            body[68..72].copy_from_slice(&inode.to_ne_bytes());
            msg
        };
        let mut data = Vec::new();
        data.extend(record(
            libc::AF_INET as u8,
            TCP_LISTEN,
            9229,
            [127, 0, 0, 1],
            7,
        ));
        data.extend(record(
            libc::AF_INET as u8,
            TCP_LISTEN,
            9230,
            [127, 0, 0, 1],
            8,
        ));
        data.extend(record(
            libc::AF_INET as u8,
            TCP_LISTEN,
            9229,
            [0, 0, 0, 0],
            9,
        ));
        data.extend(record(libc::AF_INET as u8, 1, 9229, [127, 0, 0, 1], 10));
        let mut inodes = Vec::new();
        assert!(!read_answer(&data, 9229, &mut inodes).unwrap());
        assert_eq!(inodes, [7]);
        let mut done = vec![0u8; HEADER];
        done[0..4].copy_from_slice(&(HEADER as u32).to_ne_bytes());
        done[4..6].copy_from_slice(&NLMSG_DONE.to_ne_bytes());
        assert!(read_answer(&done, 9229, &mut inodes).unwrap());
        // A record longer than the datagram is an error, not a read past its end.
        let mut short = record(libc::AF_INET as u8, TCP_LISTEN, 9229, [127, 0, 0, 1], 7);
        short.truncate(40);
        assert!(read_answer(&short, 9229, &mut Vec::new()).is_err());
    }
}
