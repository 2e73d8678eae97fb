//! The exit-code contract: every code `tracer` can return, named once, documented in the README.
//!
//! Scripts and CI jobs branch on these numbers, so they never change meaning.

/// The program ran and succeeded (exit 0, no uncaught exception); for `check`, the case matched.
pub const SUCCESS: u8 = 0;
/// The traced program failed: an uncaught exception or a non-zero exit. Evidence was written.
pub const PROGRAM_FAILED: u8 = 1;
/// Usage error or bad input: bad flags, a target outside the workspace, a missing file, an unknown session.
pub const USAGE: u8 = 2;
/// Not conformant: the conformance check found a blocking condition or a P0/P1 finding.
pub const NOT_CONFORMANT: u8 = 3;
/// `tracer` could not trace: no Node, no inspector URL, the attach failed.
pub const CANNOT_TRACE: u8 = 4;
/// `--timeout` was hit and the program was stopped.
pub const TIMEOUT: u8 = 124;
/// Interrupted by Ctrl-C (128 + SIGINT).
pub const INTERRUPTED: u8 = 130;
/// Stopped by SIGTERM (128 + SIGTERM).
pub const TERMINATED: u8 = 143;

/// The shell's convention for a process ended by signal `n`: 128 + n.
pub fn for_signal(signal: i32) -> u8 {
    128u8.saturating_add(u8::try_from(signal).unwrap_or(127))
}
