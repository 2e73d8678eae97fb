//! Starting the traced command: its command line and environment, in its own process group, under
//! the no-send guard, in the audit's sandbox and Landlock's scopes when asked; the process
//! plumbing itself is `crate::process`.
//!
//! The command gets no inspector flag of its own: every Node process in its tree opens its
//! inspector on 127.0.0.1 with a random port through the bootloader (`crate::inspector::boot`),
//! and every `--inspect*` flag a user left in `NODE_OPTIONS` is removed so nothing can widen it.

use std::ffi::OsString;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::error::TracerError;
use crate::process::group;
use crate::process::spawn::{self, Program};
use group::{close_inherited_on_exec, die_with_parent, inherit, signal_group};

/// Everything needed to start the command.
pub struct Launch<'a> {
    /// The executable: Node, or the command given after `--`.
    pub program: &'a Path,
    /// Its `argv[0]`, where it is not `program`: the name it was given or found by (`node`).
    pub argv0: Option<&'a std::ffi::OsStr>,
    /// Its arguments (for Node: its own flags, the target, the program's arguments).
    pub args: &'a [OsString],
    pub cwd: &'a Path,
    pub session_id: &'a str,
    /// More environment variables (the bootloader's `NODE_OPTIONS` and channel, the audit's).
    pub env: &'a [(String, String)],
    /// Run the command and all its descendants under the no-send guard (`crate::guard`).
    pub no_send: bool,
    /// Pass the tracer's stdin straight to the child (false: a pipe the caller feeds).
    pub inherit_stdin: bool,
    /// Put the command in Landlock's scopes (`crate::sandbox::scope`: no signal, abstract socket
    /// or trace out of its tree), where the kernel has them.
    pub scoped: bool,
    /// The bootloader channel's end the command inherits (close-on-exec in tracer).
    pub channel_fd: Option<std::os::fd::RawFd>,
    /// Run the command in the audit's sandbox (`crate::sandbox`), with these folders hidden; it
    /// becomes this process's `sandbox::current()`.
    pub sandbox: Option<&'a [PathBuf]>,
}
/// Spawns the command: own process group, killed if the tracer dies (`PR_SET_PDEATHSIG`), stdout
/// and stderr piped to the pumps, `TRACER_SESSION` and `launch.env` set. A `NODE_OPTIONS` the
/// caller does not set is removed.
pub fn spawn(launch: &Launch<'_>) -> Result<(Program, Option<crate::guard::Guard>), TracerError> {
    let could_not_start = |e: io::Error| {
        TracerError::cannot_trace(format!(
            "could not start {}: {e}. Check that it is a working executable (for Node, pass --node PATH)",
            launch.program.display()
        ))
    };
    let mut set = vec![(
        OsString::from("TRACER_SESSION"),
        OsString::from(launch.session_id),
    )];
    set.extend(
        launch
            .env
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    // Without the no-send guard, nothing needs a step of tracer's own code in the child beyond
    // what `spawn::start` does, which does not copy the tracer.
    let (child, guard, sandbox) = if launch.no_send || launch.sandbox.is_some() || launch.scoped {
        let (mut command, sandbox) = match launch.sandbox {
            Some(hide) => {
                let (command, pending) = crate::sandbox::command(
                    hide,
                    Some((launch.program, launch.args)),
                )
                .map_err(|e| {
                    TracerError::cannot_trace(format!("the sandbox could not be prepared: {e}"))
                })?;
                (command, Some(pending))
            }
            None => {
                let mut command = Command::new(launch.program);
                if let Some(argv0) = launch.argv0 {
                    std::os::unix::process::CommandExt::arg0(&mut command, argv0);
                }
                command.args(launch.args);
                (command, None)
            }
        };
        command
            .current_dir(launch.cwd)
            .env_remove("NODE_OPTIONS")
            .envs(set.iter().map(|(k, v)| (k, v)))
            .stdin(if launch.inherit_stdin {
                Stdio::inherit()
            } else {
                Stdio::piped()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        die_with_parent(&mut command);
        close_inherited_on_exec(&mut command);
        let handle = launch
            .no_send
            .then(|| crate::guard::install(&mut command))
            .transpose()
            .map_err(|e| {
                TracerError::cannot_trace(format!("the no-send guard could not be prepared: {e}"))
            })?;
        if launch.scoped {
            crate::sandbox::scope::restrict(&mut command);
        }
        if let Some(fd) = launch.channel_fd {
            inherit(&mut command, fd);
        }
        if let Some(pending) = &sandbox {
            pending.pass_to(&mut command);
        }
        let child = command.spawn().map_err(could_not_start)?;
        (Program::from_std(child), handle, sandbox)
    } else {
        let child = spawn::start(&spawn::Spec {
            program: launch.program,
            argv0: launch.argv0,
            args: launch.args,
            cwd: launch.cwd,
            env: spawn::environment(&["NODE_OPTIONS"], &set),
            inherit_stdin: launch.inherit_stdin,
            inherit_fd: launch.channel_fd,
        })
        .map_err(could_not_start)?;
        (child, None, None)
    };
    if let Some(stdout) = child.stdout.as_ref() {
        enlarge_pipe(stdout);
    }
    if let Some(stderr) = child.stderr.as_ref() {
        enlarge_pipe(stderr);
    }
    let guard = match guard.map(|handle| handle.start(child.id())).transpose() {
        Ok(guard) => guard,
        Err(e) => {
            let _ = signal_group(child.id(), libc::SIGKILL);
            return Err(TracerError::cannot_trace(format!(
                "the no-send guard could not start: {e}"
            )));
        }
    };
    if let Some(pending) = sandbox {
        let started = pending
            .started(Duration::from_secs(10))
            .map_err(|e| TracerError::cannot_trace(format!("the sandbox could not be made: {e}")))
            .and_then(|sandbox| {
                crate::sandbox::set_current(sandbox).map_err(|_| {
                    TracerError::cannot_trace("one tracer process makes one sandbox".to_owned())
                })
            });
        if let Err(e) = started {
            let _ = signal_group(child.id(), libc::SIGKILL);
            return Err(e);
        }
    }
    Ok((child, guard))
}
/// The pipe size asked for the program's stdout and stderr: Linux's default limit for an
/// unprivileged process (`/proc/sys/fs/pipe-max-size`).
const PIPE_SIZE: libc::c_int = 1 << 20;
/// Gives a pipe room for 1 MiB instead of 64 KiB. Node writes to a full pipe asynchronously,
/// queueing in memory, and loses what is queued when it dies of an uncaught exception; the more
/// the pipe holds while the tracer's reader waits for a core, the less often that happens. A
/// refusal (a lower limit) leaves the pipe as it was.
fn enlarge_pipe(pipe: &impl std::os::fd::AsRawFd) {
    // SAFETY: fcntl(F_SETPIPE_SZ) on a descriptor we own; no memory is passed.
    unsafe {
        libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_SIZE);
    }
}
