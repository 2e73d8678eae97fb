//! Landlock's scopes for the audited tree: from its `exec` on, no process of it can signal a
//! process outside it (tracer, its watchdog), connect to an abstract UNIX socket made outside it,
//! or trace one (Landlock never lets a domain trace out of itself, so `/proc/PID/mem` of tracer
//! does not open, even for root). A second layer under the namespaces, and the one that holds
//! where namespaces are refused.
//!
//! Written on raw system calls, not with the `landlock` crate: the step runs in the child between
//! `fork` and `exec` of a multi-threaded tracer, where only async-signal-safe calls are allowed
//! (the crate allocates).

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// `LANDLOCK_CREATE_RULESET_VERSION` (`linux/landlock.h`).
const CREATE_RULESET_VERSION: u32 = 1;
/// `LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET` and `LANDLOCK_SCOPE_SIGNAL`: Landlock ABI 6 (Linux 6.12).
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;
const SCOPES_ABI: i64 = 6;

/// `struct landlock_ruleset_attr` of ABI 6: no file system or network rights handled, scopes only.
#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

/// The scopes, as the audit names them, when this kernel has them.
pub fn available() -> Option<Vec<String>> {
    // SAFETY: the version query takes no attribute (null, size 0).
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    (abi >= SCOPES_ABI).then(|| vec!["signal".to_owned(), "abstract-unix-socket".to_owned()])
}

/// Adds a `pre_exec` step that puts the child in a Landlock domain with the scopes. The spawn
/// fails if the kernel has them and refuses to apply them; without them (an older kernel) the
/// step does nothing, and `available` says so.
pub fn restrict(command: &mut Command) {
    let wanted = available().is_some();
    // SAFETY: prctl and the Landlock system calls on a stack struct, and close: async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            if !wanted {
                return Ok(());
            }
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            let attr = RulesetAttr {
                handled_access_fs: 0,
                handled_access_net: 0,
                scoped: SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET,
            };
            let fd = libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr as *const RulesetAttr,
                size_of::<RulesetAttr>(),
                0u32,
            );
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            let restricted =
                libc::syscall(libc::SYS_landlock_restrict_self, fd as libc::c_int, 0u32);
            let error = io::Error::last_os_error();
            libc::close(fd as libc::c_int);
            if restricted != 0 {
                return Err(error);
            }
            Ok(())
        });
    }
}
