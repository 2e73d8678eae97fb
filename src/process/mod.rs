//! Operating-system plumbing for the processes tracer starts, with no inspector or CDP in it:
//! `spawn` starts a process without copying the tracer, `group` is its process group and its steps
//! before `exec`, `watchdog` kills what a run started if tracer dies without warning, `listening`
//! finds which process holds a loopback port, `find` finds executables, `node_options` is
//! `NODE_OPTIONS` as Node reads it, `unix` the UNIX sockets tracer speaks to its processes on,
//! `exit_status` how a process tracer did not start ended, and `stdin` what tracer's own standard
//! input is.

pub mod exit_status;
pub mod find;
pub mod group;
pub mod listening;
pub mod node_options;
pub mod spawn;
pub mod stdin;
pub mod unix;
pub mod watchdog;
