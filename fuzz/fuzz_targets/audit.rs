//! Fuzz target: the audit of a conformance case, as `tracer check` reads it
//! (`tracer::fuzzing::audit`), against the rest of the committed matching case (`fuzz/case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../case.rs"]
mod case;

fuzz_target!(|data: &[u8]| {
    tracer::fuzzing::audit(&case::CASE, data);
});
