//! UNIX sockets between tracer and the processes it starts: a connected pair, the sender's
//! credentials asked for, and one message read with what the kernel attached to it (the sender's
//! pid, `SCM_CREDENTIALS`; a passed descriptor, `SCM_RIGHTS`).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A connected pair of UNIX sockets of `kind` (`SOCK_DGRAM`, `SOCK_SEQPACKET`), close-on-exec.
pub fn pair(kind: libc::c_int) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds: [RawFd; 2] = [0; 2];
    // SAFETY: socketpair fills the two descriptors, which are owned at once.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            kind | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both were just made.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Asks the kernel to attach each sender's credentials to what `socket` receives (`SO_PASSCRED`).
pub fn pass_credentials(socket: &OwnedFd) -> io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: setsockopt with a valid int option on a socket we own.
    if unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PASSCRED,
            (&on as *const libc::c_int).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// One message as received.
#[derive(Debug)]
pub struct Received {
    /// Its length in the buffer given (0: the other end closed, on a connected socket).
    pub len: usize,
    /// The sender's pid in this process's PID namespace, when the kernel attached it.
    pub sender: Option<u32>,
    /// A descriptor passed with it.
    pub fd: Option<OwnedFd>,
}

/// Receives one message into `buffer` (`flags`: `MSG_DONTWAIT` or 0); `None` when there is
/// nothing to read now or the call was interrupted.
pub fn receive(
    socket: RawFd,
    buffer: &mut [u8],
    flags: libc::c_int,
) -> io::Result<Option<Received>> {
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.len(),
    };
    let mut control = [0u64; 16];
    // SAFETY: a zeroed msghdr pointing at buffers that outlive the call; the control messages
    // the kernel wrote are walked with the CMSG macros within `msg_controllen`.
    unsafe {
        let mut header: libc::msghdr = std::mem::zeroed();
        header.msg_iov = &mut iov;
        header.msg_iovlen = 1;
        header.msg_control = control.as_mut_ptr().cast();
        header.msg_controllen = size_of_val(&control);
        let n = libc::recvmsg(socket, &mut header, flags | libc::MSG_CMSG_CLOEXEC);
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
                _ => Err(e),
            };
        }
        let mut received = Received {
            len: n as usize,
            sender: None,
            fd: None,
        };
        let mut cmsg = libc::CMSG_FIRSTHDR(&header);
        while !cmsg.is_null() {
            match ((*cmsg).cmsg_level, (*cmsg).cmsg_type) {
                (libc::SOL_SOCKET, libc::SCM_CREDENTIALS) => {
                    let creds =
                        std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::ucred>());
                    received.sender = u32::try_from(creds.pid).ok().filter(|&p| p > 0);
                }
                (libc::SOL_SOCKET, libc::SCM_RIGHTS) => {
                    let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>());
                    received.fd = Some(OwnedFd::from_raw_fd(fd));
                }
                _ => {}
            }
            cmsg = libc::CMSG_NXTHDR(&header, cmsg);
        }
        Ok(Some(received))
    }
}
