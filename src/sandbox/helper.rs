//! The sandbox's own processes: tracer's binary started again as `tracer __sandbox`, which puts
//! the audited command in namespaces of its own and stays beside it.
//!
//! Three processes, each tracer's own code until the last `exec`:
//!
//! - the **keeper**, tracer's child: makes a user namespace (the same uid and gid inside), then a
//!   mount, network, IPC and PID namespace; hides what tracer asked (an empty read-only file
//!   system over each folder); brings up loopback (the network namespace has nothing else);
//!   forks the init; tells tracer the program's pid; then hands tracer, on request, TCP sockets
//!   made in the sandbox's network namespace (the only way tracer reaches the inspectors in it),
//!   and exits as the program exited. It is in tracer's PID namespace, out of the sandbox's sight
//!   (so it stays dumpable: the no-send guard, whose filter it runs under, reads its memory when it
//!   passes tracer a socket).
//! - the **init**, pid 1 of the sandbox: mounts the sandbox's own `/proc`, forks the program,
//!   reaps every orphan, and tells the keeper how the program ended. When it exits the kernel
//!   kills whatever is left in the namespace, so nothing of the audited tree outlives it. A
//!   process of the namespace cannot signal it (pid 1 gets only the signals it handles) nor read
//!   its memory (it is not dumpable).
//! - the **program**: in a second user namespace and a second mount namespace, so the mounts
//!   made above are locked (the program, even as root inside, cannot unmount what hides tracer's
//!   files) and it has no capability over the network or PID namespace; then `exec`.
//!
//! What it must not do: run anything of the user's before the program's `exec`, or leave the
//! program running when the keeper or tracer is gone (each process dies with its parent).

use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

use super::wire;
use crate::process::unix;

/// What the keeper was asked to do.
struct Request {
    control: RawFd,
    hide: Vec<OsString>,
    /// Set everything up, then exit 0 instead of starting the program (`sandbox::capability`).
    check: bool,
    command: Vec<OsString>,
}

fn parse(args: &[OsString]) -> Option<Request> {
    let mut request = Request {
        control: -1,
        hide: Vec::new(),
        check: false,
        command: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--control") => request.control = args.next()?.to_str()?.parse().ok()?,
            Some("--hide") => request.hide.push(args.next()?.clone()),
            Some("--check") => request.check = true,
            Some("--") => {
                request.command = args.cloned().collect();
                break;
            }
            _ => return None,
        }
    }
    (request.control >= 0 && (request.check || !request.command.is_empty())).then_some(request)
}

/// The keeper's `main` (`tracer __sandbox --control FD [--hide PATH]... [--check] -- COMMAND`).
pub fn main(args: &[OsString]) -> ExitCode {
    let Some(request) = parse(args) else {
        eprintln!("tracer: __sandbox is tracer's own helper; it is not meant to be run by hand");
        return ExitCode::from(crate::exit::USAGE);
    };
    // SAFETY: the descriptor was passed by tracer for this process to own.
    let control = unsafe { OwnedFd::from_raw_fd(request.control) };
    set_cloexec(control.as_raw_fd());
    match keep(&request, &control) {
        Ok(never) => match never {},
        Err(e) => {
            let _ = wire::send(control.as_raw_fd(), &wire::Message::Failed(e), None);
            ExitCode::from(crate::exit::CANNOT_TRACE)
        }
    }
}

enum Never {}

fn keep(request: &Request, control: &OwnedFd) -> Result<Never, String> {
    // Its name (and the init's, a copy) says what it is wherever it is seen.
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
    unsafe { libc::prctl(libc::PR_SET_NAME, c"tracer-sandbox".as_ptr(), 0, 0, 0) };
    // SAFETY: getters without preconditions.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    enter_user_namespace(uid, gid).map_err(|e| format!("a user namespace was refused: {e}"))?;
    unshare(libc::CLONE_NEWNS | libc::CLONE_NEWNET | libc::CLONE_NEWIPC | libc::CLONE_NEWPID)
        .map_err(|e| format!("mount, network, IPC and PID namespaces were refused: {e}"))?;
    mount(None, "/", None, libc::MS_REC | libc::MS_PRIVATE, None)
        .map_err(|e| format!("the mounts could not be made private: {e}"))?;
    for path in &request.hide {
        hide(path).map_err(|e| format!("{} could not be hidden: {e}", path.to_string_lossy()))?;
    }
    loopback_up().map_err(|e| format!("loopback could not be brought up: {e}"))?;
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
        // The keeper and the init outlive the program: a signal tracer sends the group is the
        // program's to act on. A handler (not SIG_IGN) so the program's `exec` resets it.
        // SAFETY: installs a handler that does nothing.
        unsafe { libc::signal(signal, ignore as *const () as libc::sighandler_t) };
    }
    let (pid_in, pid_out) = unix::pair(libc::SOCK_SEQPACKET).map_err(|e| e.to_string())?;
    unix::pass_credentials(&pid_in).map_err(|e| e.to_string())?;
    let (status_in, status_out) = unix::pair(libc::SOCK_SEQPACKET).map_err(|e| e.to_string())?;
    // SAFETY: fork in a process with one thread (nothing has started another); the child only
    // runs `init`, which ends in `_exit`.
    let init = unsafe { libc::fork() };
    if init < 0 {
        return Err(format!("fork: {}", io::Error::last_os_error()));
    }
    if init == 0 {
        drop(pid_in);
        drop(status_in);
        init_main(request, pid_out, status_out);
    }
    drop(pid_out);
    drop(status_out);
    // The program's pid as tracer sees it: the kernel writes the sender's credentials into the
    // message, translated into this (tracer's) PID namespace.
    let program = match wire::receive(pid_in.as_raw_fd(), 10_000) {
        Ok((wire::Message::Started(_), Some(pid))) => pid,
        Ok((wire::Message::Failed(why), _)) => return Err(why),
        Ok(_) => return Err("the sandbox's program did not say it started".to_owned()),
        Err(e) => return Err(format!("the sandbox's program did not start: {e}")),
    };
    if request.check {
        let _ = wire::send(control.as_raw_fd(), &wire::Message::Started(program), None);
        let status = wait_init(init, &status_in);
        std::process::exit(if status == Some(0) { 0 } else { 1 });
    }
    wire::send(control.as_raw_fd(), &wire::Message::Started(program), None)
        .map_err(|e| format!("tracer could not be told the program's pid: {e}"))?;
    // One thread only: a process that made a PID namespace can start no thread. Requests from
    // tracer are answered until the init says how the program ended (or is gone).
    serve(control.as_raw_fd(), &status_in);
    let status = wait_init(init, &status_in);
    mirror(status)
}

extern "C" fn ignore(_: libc::c_int) {}

/// Answers tracer's requests for sockets until `status_in` has something to say (the init's
/// report of the program's end, or its end).
fn serve(control: RawFd, status_in: &OwnedFd) {
    let mut control_open = true;
    loop {
        let mut polls = [
            libc::pollfd {
                fd: status_in.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: if control_open { control } else { -1 },
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two pollfds we own.
        let ready = unsafe { libc::poll(polls.as_mut_ptr(), 2, -1) };
        if ready < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if polls[0].revents != 0 {
            return;
        }
        if polls[1].revents == 0 {
            continue;
        }
        match wire::receive(control, 0) {
            Ok((wire::Message::WantSocket, _)) => {
                // SAFETY: socket(2) with constant arguments; owned at once.
                let fd = unsafe {
                    libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0)
                };
                if fd < 0 {
                    let why = io::Error::last_os_error().to_string();
                    let _ = wire::send(control, &wire::Message::Failed(why), None);
                    continue;
                }
                // SAFETY: just made, owned here.
                let socket = unsafe { OwnedFd::from_raw_fd(fd) };
                let _ = wire::send(control, &wire::Message::Socket, Some(socket.as_raw_fd()));
            }
            Ok(_) => {}
            Err(_) => control_open = false,
        }
    }
}

/// The program's wait status, as the init reported it; `None` if the init died without saying.
fn wait_init(init: libc::pid_t, status_in: &OwnedFd) -> Option<i32> {
    let mut raw = 0;
    loop {
        // SAFETY: waits for our own child.
        let r = unsafe { libc::waitpid(init, &mut raw, 0) };
        if r == init || (r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR)) {
            break;
        }
    }
    match wire::receive(status_in.as_raw_fd(), 0) {
        Ok((wire::Message::Exited(status), _)) => Some(status),
        _ => None,
    }
}

/// Ends the keeper as the program ended: its exit code, or its signal.
fn mirror(status: Option<i32>) -> ! {
    let Some(status) = status else {
        std::process::exit(i32::from(crate::exit::CANNOT_TRACE));
    };
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: the default action for `signal`, unblocked, then raised on this process.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::kill(libc::getpid(), signal);
        }
        std::process::exit(128 + signal);
    }
    std::process::exit(libc::WEXITSTATUS(status));
}

/// Pid 1 of the sandbox. Never returns.
fn init_main(request: &Request, pid_out: OwnedFd, status_out: OwnedFd) -> ! {
    let fail = |why: String| -> ! {
        let _ = wire::send(pid_out.as_raw_fd(), &wire::Message::Failed(why), None);
        // SAFETY: ends this process at once.
        unsafe { libc::_exit(1) }
    };
    // SAFETY: prctl with integer arguments; getppid has no preconditions.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    if let Err(e) = mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        None,
    ) {
        fail(format!("the sandbox's /proc could not be mounted: {e}"));
    }
    // SAFETY: fork in a process with one thread; the child only runs `program_main`.
    let program = unsafe { libc::fork() };
    if program < 0 {
        fail(format!("fork: {}", io::Error::last_os_error()));
    }
    if program == 0 {
        drop(status_out);
        program_main(request, pid_out);
    }
    drop(pid_out);
    loop {
        let mut raw = 0;
        // SAFETY: reaps any child of this process (pid 1 adopts every orphan of the namespace).
        let pid = unsafe { libc::waitpid(-1, &mut raw, 0) };
        if pid == program {
            let _ = wire::send(status_out.as_raw_fd(), &wire::Message::Exited(raw), None);
            // SAFETY: ends pid 1, and with it every process left in the namespace.
            unsafe { libc::_exit(0) }
        }
        if pid < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            // SAFETY: as above.
            unsafe { libc::_exit(0) }
        }
    }
}

/// The program, between the init's fork and its `exec`. Never returns.
fn program_main(request: &Request, pid_out: OwnedFd) -> ! {
    let fail = |why: String| -> ! {
        let _ = wire::send(pid_out.as_raw_fd(), &wire::Message::Failed(why), None);
        // SAFETY: ends this process at once.
        unsafe { libc::_exit(127) }
    };
    // Dumpable again (the init is not), as the program will be after its `exec`: its `/proc`
    // files must be its own to write its maps.
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0);
    }
    // SAFETY: getters without preconditions.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    // A user namespace of its own, then a mount namespace of its own: every mount copied from
    // the keeper's namespace (owned by a more privileged user namespace) is locked here.
    if let Err(e) = enter_user_namespace(uid, gid) {
        fail(format!("the program's user namespace was refused: {e}"));
    }
    if let Err(e) = unshare(libc::CLONE_NEWNS) {
        fail(format!("the program's mount namespace was refused: {e}"));
    }
    // SAFETY: the default action for SIGPIPE (Rust's runtime ignores it, and an ignored signal
    // stays ignored across `exec`).
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    if let Err(e) = wire::send(pid_out.as_raw_fd(), &wire::Message::Started(0), None) {
        fail(format!(
            "the keeper could not be told the program started: {e}"
        ));
    }
    drop(pid_out);
    if request.check {
        // SAFETY: ends this process at once.
        unsafe { libc::_exit(0) }
    }
    let args: Vec<CString> = request
        .command
        .iter()
        .filter_map(|a| CString::new(a.as_bytes()).ok())
        .collect();
    let mut argv: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
    // SAFETY: a NUL-terminated argv of valid C strings that outlive the call.
    unsafe { libc::execvp(argv[0], argv.as_ptr()) };
    let e = io::Error::last_os_error();
    eprintln!(
        "tracer: could not start {}: {e}",
        request.command[0].to_string_lossy()
    );
    // SAFETY: ends this process at once.
    unsafe { libc::_exit(127) }
}

/// A new user namespace in which this process has the uid and gid it had (and every capability).
fn enter_user_namespace(uid: libc::uid_t, gid: libc::gid_t) -> io::Result<()> {
    unshare(libc::CLONE_NEWUSER)?;
    std::fs::write("/proc/self/setgroups", "deny")?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    Ok(())
}

fn unshare(flags: libc::c_int) -> io::Result<()> {
    // SAFETY: unshare takes flags only.
    if unsafe { libc::unshare(flags) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn mount(
    source: Option<&str>,
    target: impl AsRef<std::ffi::OsStr>,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> io::Result<()> {
    let c = |s: &str| CString::new(s).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput));
    let source = source.map(c).transpose()?;
    let target = CString::new(target.as_ref().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let fstype = fstype.map(c).transpose()?;
    let data = data.map(c).transpose()?;
    let ptr = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    // SAFETY: NUL-terminated strings (or null) that outlive the call.
    let r = unsafe {
        libc::mount(
            ptr(&source),
            target.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// An empty, read-only file system over the folder `path` (nothing when it does not exist).
fn hide(path: &OsString) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => mount(
            Some("tracer-hidden"),
            path,
            Some("tmpfs"),
            libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            Some("size=4k,mode=0555"),
        ),
        Ok(_) => mount(
            Some("/dev/null"),
            path,
            None,
            libc::MS_BIND | libc::MS_RDONLY,
            None,
        ),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// `ip link set lo up`, in the new network namespace.
fn loopback_up() -> io::Result<()> {
    // SAFETY: socket(2) with constant arguments; owned at once.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: just made, owned here.
    let socket = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: a zeroed ifreq with the interface's name; the ioctls read and write only it.
    unsafe {
        let mut request: libc::ifreq = std::mem::zeroed();
        for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo") {
            *slot = *byte as libc::c_char;
        }
        if libc::ioctl(socket.as_raw_fd(), libc::SIOCGIFFLAGS, &mut request) < 0 {
            return Err(io::Error::last_os_error());
        }
        request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
        if libc::ioctl(socket.as_raw_fd(), libc::SIOCSIFFLAGS, &request) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

fn set_cloexec(fd: RawFd) {
    // SAFETY: fcntl on a descriptor this process owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helper_s_arguments_are_read_or_refused() {
        let words = |s: &str| s.split(' ').map(OsString::from).collect::<Vec<_>>();
        let r = parse(&words("--control 5 --hide /a --hide /b -- node x.js")).unwrap();
        assert_eq!(r.control, 5);
        assert_eq!(r.hide, words("/a /b"));
        assert_eq!(r.command, words("node x.js"));
        assert!(parse(&words("--control 5 --check")).unwrap().check);
        assert!(parse(&words("--hide /a -- node")).is_none(), "no control");
        assert!(parse(&words("--control 5")).is_none(), "no command");
        assert!(parse(&words("--bogus")).is_none());
    }
}
