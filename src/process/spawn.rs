//! Starting the traced command's root process without copying the tracer: a `vfork`-style clone
//! (the tracer waits until the child has called `exec`) that puts the child in its own process
//! group, gives it the death signal (`PR_SET_PDEATHSIG`), connects its pipes and execs it.
//!
//! `std::process::Command` does the same with a `pre_exec` step, but such a step forces a full
//! `fork`: the tracer's page tables are copied, and the tracer then takes a copy-on-write fault on
//! every page it writes until the child has exec'd (the `spawned` phase of `TRACER_TIMINGS=1`
//! measures the difference: docs/performance.md). This is what glibc's `posix_spawn` does
//! (`CLONE_VM | CLONE_VFORK`, every signal blocked around the clone, handlers reset in the child),
//! plus the two steps it cannot do: the death signal, and the check that the tracer did not die
//! before it was set.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, ExitStatus};
use std::sync::atomic::{AtomicI32, Ordering};

/// What to start.
pub struct Spec<'a> {
    /// The executable: a path (relative ones are taken from `cwd`, as `exec` after `chdir` takes
    /// them), or a name looked up on the `PATH` of `env`.
    pub program: &'a Path,
    /// The program's `argv[0]`, where it is not `program` (a shell passes the name it was given,
    /// `node`, not the path it found).
    pub argv0: Option<&'a std::ffi::OsStr>,
    pub args: &'a [OsString],
    pub cwd: &'a Path,
    /// The whole environment, in order.
    pub env: Vec<(OsString, OsString)>,
    /// Pass the tracer's stdin to the child (false: a pipe, in `Program::stdin`).
    pub inherit_stdin: bool,
    /// A descriptor of the tracer's (close-on-exec) the child keeps across `exec`.
    pub inherit_fd: Option<RawFd>,
}

/// A started process: its pid, the tracer's ends of its pipes, and its status once reaped.
pub struct Program {
    pid: u32,
    /// Set when `std::process::Command` started it (the no-send guard's `pre_exec` steps): it is
    /// then waited for through std.
    std_child: Option<Child>,
    status: Option<ExitStatus>,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    pub stderr: Option<ChildStderr>,
}

impl Program {
    /// A process `std::process::Command` started, its pipes taken out.
    pub fn from_std(mut child: Child) -> Program {
        Program {
            pid: child.id(),
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
            std_child: Some(child),
            status: None,
        }
    }

    pub fn id(&self) -> u32 {
        self.pid
    }

    /// Its exit status if it has exited (reaping it), else `None`.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.reap(libc::WNOHANG)
    }

    /// Waits for it to exit and reaps it.
    pub fn wait(&mut self) -> io::Result<ExitStatus> {
        self.reap(0)
            .map(|status| status.expect("waitpid without WNOHANG returns a status"))
    }

    fn reap(&mut self, flags: libc::c_int) -> io::Result<Option<ExitStatus>> {
        if let Some(child) = self.std_child.as_mut() {
            return if flags == 0 {
                child.wait().map(Some)
            } else {
                child.try_wait()
            };
        }
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        let mut status: libc::c_int = 0;
        loop {
            // SAFETY: waitpid on our own child, writing into a local.
            let pid = unsafe { libc::waitpid(self.pid as libc::pid_t, &mut status, flags) };
            if pid == 0 {
                return Ok(None);
            }
            if pid > 0 {
                let status = ExitStatus::from_raw(status);
                self.status = Some(status);
                return Ok(Some(status));
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// What the child reads between the clone and `exec`: everything is made by the tracer before the
/// clone, so the child allocates nothing and takes no lock (it shares the tracer's memory).
struct ChildPlan {
    path: CString,
    argv: Vec<*const libc::c_char>,
    /// `/bin/sh PATH ARGS…`, for a file `exec` refuses as not a binary (`ENOEXEC`), as `execvp`
    /// runs it.
    sh_argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    cwd: CString,
    /// -1: inherited.
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    /// A descriptor kept across `exec` (-1: none).
    keep: RawFd,
    parent: libc::pid_t,
    /// The `errno` of the step that failed, written by the child before it exits.
    error: AtomicI32,
}

/// The child's stack: only system calls run on it.
const CHILD_STACK: usize = 64 * 1024;

/// Starts `spec`: own process group, the death signal, stdout and stderr piped (and stdin unless
/// inherited). Returns once the child has exec'd; an error if it could not (the file is not
/// there, not executable, the folder is gone), with the child reaped.
pub fn start(spec: &Spec<'_>) -> io::Result<Program> {
    let path = resolve(spec)?;
    let c = |bytes: &[u8]| {
        CString::new(bytes).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "an argument or variable holds a NUL byte",
            )
        })
    };
    let path = c(path.as_os_str().as_bytes())?;
    let mut args = vec![c(spec
        .argv0
        .unwrap_or(spec.program.as_os_str())
        .as_bytes())?];
    for arg in spec.args {
        args.push(c(arg.as_bytes())?);
    }
    let sh = c(b"/bin/sh")?;
    let env = spec
        .env
        .iter()
        .map(|(k, v)| {
            let mut entry = k.as_bytes().to_vec();
            entry.push(b'=');
            entry.extend_from_slice(v.as_bytes());
            c(&entry)
        })
        .collect::<io::Result<Vec<_>>>()?;
    let cwd = c(spec.cwd.as_os_str().as_bytes())?;
    let null = std::ptr::null::<libc::c_char>();
    let argv: Vec<_> = args.iter().map(|a| a.as_ptr()).chain([null]).collect();
    let sh_argv: Vec<_> = [sh.as_ptr(), path.as_ptr()]
        .into_iter()
        .chain(args.iter().skip(1).map(|a| a.as_ptr()))
        .chain([null])
        .collect();
    let envp: Vec<_> = env.iter().map(|e| e.as_ptr()).chain([null]).collect();

    let stdin = if spec.inherit_stdin {
        None
    } else {
        Some(pipe()?)
    };
    let stdout = pipe()?;
    let stderr = pipe()?;
    let plan = ChildPlan {
        path,
        argv,
        sh_argv,
        envp,
        cwd,
        stdin: stdin.as_ref().map_or(-1, |(read, _)| read.as_raw_fd()),
        stdout: stdout.1.as_raw_fd(),
        stderr: stderr.1.as_raw_fd(),
        keep: spec.inherit_fd.unwrap_or(-1),
        // SAFETY: getpid has no preconditions.
        parent: unsafe { libc::getpid() },
        error: AtomicI32::new(0),
    };
    // Not zeroed: the child writes only the little it uses (zeroing it took 16 page faults).
    let mut stack: Vec<std::mem::MaybeUninit<u8>> = Vec::with_capacity(CHILD_STACK);
    // SAFETY: the stack is ours and outlives the child's use of it (with CLONE_VFORK the clone
    // returns only once the child has exec'd or exited); `plan` likewise. The child resets the
    // tracer's handlers before it unblocks any signal.
    let pid = unsafe {
        clone_on(
            stack.as_mut_ptr().cast(),
            CHILD_STACK,
            child_main,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (&raw const plan).cast_mut().cast(),
        )?
    };
    drop(stack);
    let mut program = Program {
        pid: pid as u32,
        std_child: None,
        status: None,
        stdin: stdin.map(|(_, write)| ChildStdin::from(write)),
        stdout: Some(ChildStdout::from(stdout.0)),
        stderr: Some(ChildStderr::from(stderr.0)),
    };
    let error = plan.error.load(Ordering::SeqCst);
    if error != 0 {
        let _ = program.wait();
        return Err(io::Error::from_raw_os_error(error));
    }
    Ok(program)
}

/// Clones this process to run `entry(arg)` on the stack of `len` bytes at `stack`, every signal
/// blocked around the clone so that no handler of the tracer's runs in the child before it has
/// reset them (the child starts with them all blocked). Returns the child's pid.
///
/// # Safety
/// `stack` and what `arg` points to must stay valid as long as the child uses them, and `entry`
/// must do only what is safe in a clone sharing (with `CLONE_VM`) or copying the tracer's memory.
pub unsafe fn clone_on(
    stack: *mut u8,
    len: usize,
    entry: extern "C" fn(*mut libc::c_void) -> libc::c_int,
    flags: libc::c_int,
    arg: *mut libc::c_void,
) -> io::Result<libc::pid_t> {
    // SAFETY: the caller's promises above; the mask is restored whatever the clone did.
    unsafe {
        let top = stack.add(len);
        let top = top.sub(top as usize % 16);
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let pid = libc::clone(entry, top.cast(), flags, arg);
        let error = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 { Err(error) } else { Ok(pid) }
    }
}

/// The file to exec: `spec.program` when it names a path, else the first executable file of that
/// name in the folders of the `PATH` of `spec.env` (relative folders taken from `spec.cwd`).
fn resolve(spec: &Spec<'_>) -> io::Result<PathBuf> {
    let program = spec.program.as_os_str();
    if program.as_bytes().contains(&b'/') {
        return Ok(spec.program.to_owned());
    }
    let path = spec
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map_or_else(|| OsString::from("/bin:/usr/bin"), |(_, v)| v.clone());
    std::env::split_paths(&path)
        .map(|dir| spec.cwd.join(dir).join(program))
        .find(|candidate| executable(candidate))
        .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
}

/// Whether `path` is a regular file with an execute bit.
pub fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A pipe, both ends closed on `exec`: (read, write).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills two descriptors we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both were just returned to us and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The child, between the clone and `exec`: system calls only, on its own stack, reading the plan.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `ChildPlan`, alive and unchanged until this child execs or
    // exits (the parent is suspended until then). Only async-signal-safe calls follow.
    unsafe {
        let plan = &*(arg as *const ChildPlan);
        let fail = |plan: &ChildPlan| -> ! {
            plan.error
                .store(*libc::__errno_location(), Ordering::SeqCst);
            libc::_exit(127)
        };
        // The tracer's handlers are not the child's (their code is the tracer's memory); SIGPIPE,
        // which the Rust runtime ignores, is the default again (as std's spawn makes it); what
        // the tracer's own parent ignored stays ignored.
        for signal in 1..=libc::SIGRTMAX() {
            if signal == libc::SIGKILL || signal == libc::SIGSTOP {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut action) != 0 {
                continue;
            }
            let handled =
                action.sa_sigaction != libc::SIG_IGN && action.sa_sigaction != libc::SIG_DFL;
            let ignored_pipe = signal == libc::SIGPIPE && action.sa_sigaction == libc::SIG_IGN;
            if handled || ignored_pipe {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        if libc::setpgid(0, 0) != 0 {
            fail(plan);
        }
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            fail(plan);
        }
        // The tracer died before the death signal was set: nothing would ever stop this child.
        if libc::getppid() != plan.parent {
            libc::_exit(137);
        }
        for (fd, target) in [(plan.stdin, 0), (plan.stdout, 1), (plan.stderr, 2)] {
            if fd < 0 {
                continue;
            }
            let moved = if fd == target {
                libc::fcntl(fd, libc::F_SETFD, 0)
            } else {
                libc::dup2(fd, target)
            };
            if moved < 0 {
                fail(plan);
            }
        }
        if plan.keep >= 0 && libc::fcntl(plan.keep, libc::F_SETFD, 0) < 0 {
            fail(plan);
        }
        if libc::chdir(plan.cwd.as_ptr()) != 0 {
            fail(plan);
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        libc::execve(plan.path.as_ptr(), plan.argv.as_ptr(), plan.envp.as_ptr());
        if *libc::__errno_location() == libc::ENOEXEC {
            libc::execve(plan.sh_argv[0], plan.sh_argv.as_ptr(), plan.envp.as_ptr());
        }
        fail(plan)
    }
}

/// The environment a spawned command gets: the tracer's, less the names in `remove`, with `set`
/// applied in order (a name already there keeps its place and takes the new value).
pub fn environment(remove: &[&str], set: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(k, _)| !remove.iter().any(|r| OsStr::new(r) == k))
        .collect();
    for (k, v) in set {
        match env.iter_mut().find(|(name, _)| name == k) {
            Some(entry) => entry.1 = v.clone(),
            None => env.push((k.clone(), v.clone())),
        }
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn spec<'a>(program: &'a Path, args: &'a [OsString], cwd: &'a Path) -> Spec<'a> {
        Spec {
            program,
            argv0: None,
            args,
            cwd,
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            inherit_stdin: false,
            inherit_fd: None,
        }
    }

    fn output(program: &mut Program) -> String {
        let mut text = String::new();
        program
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    }

    fn words(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_child_gets_its_folder_its_environment_its_arguments_and_its_stdin() {
        let folder = tempfile::tempdir().unwrap();
        let args = words(&[
            "-c",
            "pwd; echo \"$ONE|$#|$1\"; env | sort; cat",
            "sh",
            "a b",
        ]);
        let mut s = spec(Path::new("sh"), &args, folder.path());
        s.env.push(("ONE".into(), "1".into()));
        let mut program = start(&s).unwrap();
        let mut stdin = program.stdin.take().unwrap();
        stdin.write_all(b"from stdin\n").unwrap();
        drop(stdin);
        let text = output(&mut program);
        assert!(program.wait().unwrap().success());
        let folder = folder.path().canonicalize().unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], folder.to_str().unwrap());
        assert_eq!(lines[1], "1|1|a b");
        // Nothing of the test's own environment: exactly what the spec holds (sh adds PWD, SHLVL, _).
        let env: Vec<&str> = lines[2..lines.len() - 1]
            .iter()
            .copied()
            .filter(|l| !l.starts_with("PWD=") && !l.starts_with("SHLVL=") && !l.starts_with("_="))
            .collect();
        assert_eq!(env, ["ONE=1", "PATH=/usr/bin:/bin"]);
        assert_eq!(lines[lines.len() - 1], "from stdin");
    }

    #[test]
    fn the_child_leads_its_own_process_group_with_no_signal_blocked_and_sigpipe_at_its_default() {
        let here = std::env::current_dir().unwrap();
        let args = words(&["5"]);
        let mut program = start(&spec(Path::new("sleep"), &args, &here)).unwrap();
        let pid = program.id() as libc::pid_t;
        // SAFETY: getpgid on a pid; no memory is passed.
        assert_eq!(unsafe { libc::getpgid(pid) }, pid);
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let mask = |name: &str| {
            let line = status.lines().find(|l| l.starts_with(name)).unwrap();
            u64::from_str_radix(line[name.len()..].trim(), 16).unwrap()
        };
        assert_eq!(mask("SigBlk:"), 0, "{status}");
        assert_eq!(mask("SigIgn:") & (1 << (libc::SIGPIPE - 1)), 0, "{status}");
        // SAFETY: kill on our own child.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        assert_eq!(program.wait().unwrap().signal(), Some(libc::SIGKILL));
        // Reaped once: asking again gives the same status.
        assert_eq!(
            program.try_wait().unwrap().unwrap().signal(),
            Some(libc::SIGKILL)
        );
    }

    #[test]
    fn the_child_dies_with_the_tracer_through_its_death_signal() {
        // PR_GET_PDEATHSIG (2), read by the child itself.
        let here = std::env::current_dir().unwrap();
        let args = words(&[
            "-c",
            "import ctypes; v = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(v)); print(v.value)",
        ]);
        let mut program = start(&spec(Path::new("python3"), &args, &here)).unwrap();
        let text = output(&mut program);
        assert!(program.wait().unwrap().success());
        assert_eq!(text.trim(), libc::SIGKILL.to_string());
    }

    #[test]
    fn a_file_that_is_not_a_binary_is_run_by_the_shell_as_execvp_runs_it() {
        let folder = tempfile::tempdir().unwrap();
        let script = folder.path().join("no-shebang");
        std::fs::write(&script, "echo \"shell ran $0 with $1\"\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let args = words(&["x"]);
        // A test running beside this one may fork while the file is still open for writing
        // (exec then says ETXTBSY); that is the test's race, not the spawn's.
        let mut attempts = 0;
        let mut program = loop {
            match start(&spec(Path::new("./no-shebang"), &args, folder.path())) {
                Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && attempts < 50 => {
                    attempts += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                started => break started.unwrap(),
            }
        };
        let text = output(&mut program);
        assert!(program.wait().unwrap().success());
        assert_eq!(text.trim(), "shell ran ./no-shebang with x");
    }

    #[test]
    fn what_cannot_be_started_is_an_error_naming_why() {
        let folder = tempfile::tempdir().unwrap();
        let missing = start(&spec(Path::new("no-such-program-here"), &[], folder.path()));
        assert_eq!(missing.err().unwrap().raw_os_error(), Some(libc::ENOENT));
        let not_executable = folder.path().join("data.txt");
        std::fs::write(&not_executable, "x").unwrap();
        let refused = start(&spec(&not_executable, &[], folder.path()));
        assert_eq!(refused.err().unwrap().raw_os_error(), Some(libc::EACCES));
        let gone = folder.path().join("gone");
        let no_folder = start(&spec(Path::new("/bin/true"), &[], &gone));
        assert_eq!(no_folder.err().unwrap().raw_os_error(), Some(libc::ENOENT));
    }
}
