//! The audit's sandbox: the audited command runs in user, PID, mount, network and IPC namespaces
//! of its own, made by tracer's own helper process (`helper`), so that it cannot see out of them.
//!
//! Inside, the program has the uid and gid it has outside, loopback and no other interface (a TUN
//! device, an abstract UNIX socket or a route of the host's is out of reach), its own `/proc` (no
//! process of tracer's is in it, so none can be signalled, traced or have its memory opened), and
//! an empty read-only file system over each folder tracer hides (the state folder with the
//! audit's key and the tool's own recording). The no-send guard (`crate::guard`) runs as well and
//! counts every attempt; the sandbox is what makes the tool itself unreachable.
//!
//! What it owns: the helper's command line, the handshake that tells tracer the program's pid,
//! the sockets tracer asks the helper for (the inspectors listen in the sandbox's network
//! namespace, which tracer's own sockets cannot reach), and the pid a process of tracer's view has
//! in the sandbox (what its report on the bootloader's channel must name).
//!
//! What it must not do: decide anything about the audit (the audit records what was in force), or
//! run the user's code before the program's own `exec`.

pub mod helper;
pub mod scope;
mod wire;

use crate::process::group;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The first argument that makes `tracer` the sandbox's helper instead of the command line tool.
pub const HELPER_ARG: &str = "__sandbox";

/// The namespaces the sandbox is made of, as the audit lists them.
pub const NAMESPACES: [&str; 5] = ["user", "pid", "mount", "network", "ipc"];

/// Whether the kernel lets this process make the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capability {
    pub available: bool,
    /// Why not, when not available.
    pub reason: Option<String>,
}

/// Makes the whole sandbox once, with nothing run in it: available only if every step worked.
pub fn capability() -> Capability {
    let outcome = (|| -> io::Result<()> {
        let (command, pending) = command(&[], None)?;
        let mut command = command;
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        pending.pass_to(&mut command);
        let mut child = command.spawn()?;
        let started = pending.started(Duration::from_secs(10));
        let status = child.wait()?;
        started?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "the sandbox's check ended with {status}"
            )))
        }
    })();
    match outcome {
        Ok(()) => Capability {
            available: true,
            reason: None,
        },
        Err(e) => Capability {
            available: false,
            reason: Some(e.to_string()),
        },
    }
}

/// A command that runs `program` (with `args`) in the sandbox, hiding the folders `hide`; `None`
/// for `program` makes the helper's check (`probe`). Set its environment, folder and pipes, then
/// call `Pending::pass_to` after every other `pre_exec` step, spawn it, and call
/// `Pending::started` with the spawn done.
pub fn command(
    hide: &[PathBuf],
    program: Option<(&Path, &[OsString])>,
) -> io::Result<(Command, Pending)> {
    let exe = std::env::current_exe()?;
    let (ours, theirs) = crate::process::unix::pair(libc::SOCK_SEQPACKET)?;
    let mut command = Command::new(exe);
    command
        .arg(HELPER_ARG)
        .arg("--control")
        .arg(theirs.as_raw_fd().to_string());
    for path in hide {
        command.arg("--hide").arg(path);
    }
    match program {
        Some((program, args)) => {
            command.arg("--").arg(program).args(args);
        }
        None => {
            command.arg("--check");
        }
    }
    Ok((command, Pending { ours, theirs }))
}

/// The sandbox between `command` and the spawn.
pub struct Pending {
    ours: OwnedFd,
    theirs: OwnedFd,
}

impl Pending {
    /// Lets the helper keep its end of the control socket across `exec` (the last `pre_exec`
    /// step: an earlier one may mark every inherited descriptor close-on-exec).
    pub fn pass_to(&self, command: &mut Command) {
        group::inherit(command, self.theirs.as_raw_fd());
    }

    /// After the spawn: the helper's answer, the program's pid (tracer's view of it) or why the
    /// sandbox could not be made.
    pub fn started(self, limit: Duration) -> io::Result<Sandbox> {
        let Pending { ours, theirs } = self;
        drop(theirs);
        let limit = i32::try_from(limit.as_millis()).unwrap_or(i32::MAX);
        match wire::receive(ours.as_raw_fd(), limit) {
            Ok((wire::Message::Started(pid), _)) => Ok(Sandbox {
                pid_namespace: std::fs::read_link(format!("/proc/{pid}/ns/pid")).ok(),
                program: pid,
                control: Mutex::new(ours),
            }),
            Ok((wire::Message::Failed(why), _)) => Err(io::Error::other(why)),
            Ok((other, _)) => Err(io::Error::other(format!(
                "the sandbox's helper answered {other:?}"
            ))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(io::Error::other(
                "the sandbox's helper ended before it was ready",
            )),
            Err(e) => Err(e),
        }
    }
}

/// A sandbox whose program runs.
#[derive(Debug)]
pub struct Sandbox {
    /// The program's pid, in tracer's PID namespace.
    program: u32,
    /// `/proc/PROGRAM/ns/pid`: what every process of the sandbox shares.
    pid_namespace: Option<PathBuf>,
    control: Mutex<OwnedFd>,
}

static CURRENT: OnceLock<Sandbox> = OnceLock::new();

/// Makes `sandbox` the one this run's inspector connections and reports go through (a tracer
/// process runs one audit). Refused if one is already in place.
pub fn set_current(sandbox: Sandbox) -> Result<(), Sandbox> {
    CURRENT.set(sandbox)
}

/// The sandbox of this run, when it has one.
pub fn current() -> Option<&'static Sandbox> {
    CURRENT.get()
}

impl Sandbox {
    /// The program's pid, as tracer sees it.
    pub fn program(&self) -> u32 {
        self.program
    }

    /// A TCP connection to `address` (a loopback one) in the sandbox's network namespace,
    /// through a socket the helper made there.
    pub fn connect(&self, address: std::net::SocketAddr) -> io::Result<std::net::TcpStream> {
        let std::net::SocketAddr::V4(v4) = address else {
            return Err(io::Error::other("only 127.0.0.1 is reached in the sandbox"));
        };
        let socket = {
            let control = self.control.lock().unwrap_or_else(|e| e.into_inner());
            wire::send(control.as_raw_fd(), &wire::Message::WantSocket, None)?;
            match wire::receive_with_fd(control.as_raw_fd(), 5_000)? {
                (wire::Message::Socket, _, Some(fd)) => fd,
                (wire::Message::Failed(why), ..) => return Err(io::Error::other(why)),
                _ => return Err(io::Error::other("the sandbox's helper sent no socket")),
            }
        };
        let to = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: v4.port().to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(*v4.ip()).to_be(),
            },
            sin_zero: [0; 8],
        };
        loop {
            // SAFETY: connect on a socket we own with a sockaddr_in that outlives the call.
            let r = unsafe {
                libc::connect(
                    socket.as_raw_fd(),
                    (&to as *const libc::sockaddr_in).cast(),
                    size_of::<libc::sockaddr_in>() as libc::socklen_t,
                )
            };
            if r == 0 {
                return Ok(std::net::TcpStream::from(socket));
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    /// The pid that tracer's process `host` has in the sandbox (its `process.pid`); `None` when
    /// it is no process of this sandbox (or of a PID namespace the program made itself).
    pub fn inner_pid(&self, host: u32) -> Option<u32> {
        let namespace = self.pid_namespace.as_ref()?;
        let status = std::fs::read_to_string(format!("/proc/{host}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("NSpid:"))?;
        let levels: Vec<&str> = line["NSpid:".len()..].split_whitespace().collect();
        let same = std::fs::read_link(format!("/proc/{host}/ns/pid"))
            .ok()
            .as_ref()
            == Some(namespace);
        (levels.len() == 2 && same)
            .then(|| levels[1].parse().ok())
            .flatten()
    }
}

/// Whether `args` (the whole command line) asks for the helper.
pub fn is_helper(args: &[OsString]) -> bool {
    args.get(1).map(OsString::as_os_str) == Some(OsStr::new(HELPER_ARG))
}
