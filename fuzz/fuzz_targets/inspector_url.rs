//! Fuzz target: the program's stderr, through the stderr pump that finds the inspector's
//! `Debugger listening on ws://…` lines, and each URL through the loopback check
//! (`tracer::fuzzing::inspector_stderr`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tracer::fuzzing::inspector_stderr(data));
