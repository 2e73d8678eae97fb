//! The messages between tracer and the sandbox's keeper, and between the keeper and its init and
//! program: one message per datagram (or sequenced packet), a descriptor passed with
//! `SCM_RIGHTS`, and the sender's pid as the kernel states it (`SCM_CREDENTIALS`).

use std::io;
use std::os::fd::{OwnedFd, RawFd};

use crate::process::unix;

/// One message.
#[derive(Debug, PartialEq, Eq)]
pub enum Message {
    /// The program started (its pid, as the receiver sees it, is in the credentials; the keeper
    /// tells tracer the pid itself).
    Started(u32),
    /// Something could not be done: why.
    Failed(String),
    /// tracer asks for a TCP socket made in the sandbox's network namespace.
    WantSocket,
    /// The socket asked for, as the passed descriptor.
    Socket,
    /// The program ended with this wait status.
    Exited(i32),
}

impl Message {
    fn encode(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        match self {
            Message::Started(pid) => {
                bytes.push(b'P');
                bytes.extend_from_slice(&pid.to_le_bytes());
            }
            Message::Failed(why) => {
                bytes.push(b'E');
                bytes.extend_from_slice(&why.as_bytes()[..why.len().min(2000)]);
            }
            Message::WantSocket => bytes.push(b'W'),
            Message::Socket => bytes.push(b'S'),
            Message::Exited(status) => {
                bytes.push(b'X');
                bytes.extend_from_slice(&status.to_le_bytes());
            }
        }
        bytes
    }

    fn decode(bytes: &[u8]) -> Option<Message> {
        let four = || bytes.get(1..5).and_then(|b| <[u8; 4]>::try_from(b).ok());
        Some(match bytes.first()? {
            b'P' => Message::Started(u32::from_le_bytes(four()?)),
            b'E' => Message::Failed(String::from_utf8_lossy(&bytes[1..]).into_owned()),
            b'W' => Message::WantSocket,
            b'S' => Message::Socket,
            b'X' => Message::Exited(i32::from_le_bytes(four()?)),
            _ => return None,
        })
    }
}

/// Sends `message` on `socket`, with `fd` passed along when given. Without one it is a plain
/// `write` (one message on these sockets), which the no-send guard does not stop to look at: a
/// sender that is not dumpable (the init) would otherwise have its message refused, its memory
/// being unreadable to an unprivileged tracer.
pub fn send(socket: RawFd, message: &Message, fd: Option<RawFd>) -> io::Result<()> {
    let bytes = message.encode();
    if fd.is_none() {
        // SAFETY: writes `bytes`, which outlives the call.
        let written = unsafe { libc::write(socket, bytes.as_ptr().cast(), bytes.len()) };
        return if written < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        };
    }
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // Room for one control message holding one descriptor.
    let mut control = [0u64; 4];
    // SAFETY: a zeroed msghdr pointing at `iov` and `control`, which outlive the call; the
    // control message is written inside `control`, whose size CMSG_SPACE(4) does not exceed.
    let sent = unsafe {
        let mut header: libc::msghdr = std::mem::zeroed();
        header.msg_iov = &mut iov;
        header.msg_iovlen = 1;
        if let Some(fd) = fd {
            header.msg_control = control.as_mut_ptr().cast();
            header.msg_controllen = libc::CMSG_SPACE(size_of::<RawFd>() as u32) as usize;
            let cmsg = libc::CMSG_FIRSTHDR(&header);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(size_of::<RawFd>() as u32) as usize;
            std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
        }
        libc::sendmsg(socket, &header, libc::MSG_NOSIGNAL)
    };
    if sent < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// What one `receive` got: the message, and the sender's pid when the kernel attached it.
pub type Received = (Message, Option<u32>);

/// Receives one message on `socket`, waiting at most `timeout_ms` (-1: no limit). The sender's pid
/// comes back when the socket has `SO_PASSCRED` on.
pub fn receive(socket: RawFd, timeout_ms: i32) -> io::Result<Received> {
    let (message, pid, _) = receive_with_fd(socket, timeout_ms)?;
    Ok((message, pid))
}

/// `receive`, and the descriptor passed with the message, if any.
pub fn receive_with_fd(
    socket: RawFd,
    timeout_ms: i32,
) -> io::Result<(Message, Option<u32>, Option<OwnedFd>)> {
    let mut poll = libc::pollfd {
        fd: socket,
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one pollfd we own.
        let ready = unsafe { libc::poll(&mut poll, 1, timeout_ms) };
        if ready > 0 {
            break;
        }
        if ready == 0 {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "no answer in time"));
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let mut bytes = [0u8; 2048];
    let received = loop {
        if let Some(received) = unix::receive(socket, &mut bytes, 0)? {
            break received;
        }
    };
    if received.len == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the other end closed",
        ));
    }
    let message = Message::decode(&bytes[..received.len])
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "an unknown message"))?;
    Ok((message, received.sender, received.fd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_reads_back_as_it_was_written() {
        for message in [
            Message::Started(4242),
            Message::Failed("refused: no".into()),
            Message::WantSocket,
            Message::Socket,
            Message::Exited(256),
        ] {
            assert_eq!(Message::decode(&message.encode()), Some(message));
        }
        assert_eq!(Message::decode(b""), None);
        assert_eq!(Message::decode(b"P12"), None, "a pid cut short");
    }
}
