//! Fuzz target: the contract of a conformance case, as `tracer check` and `tracer audit` read it
//! (`tracer::fuzzing::contract`), against the rest of the committed matching case (`fuzz/case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../case.rs"]
mod case;

fuzz_target!(|data: &[u8]| {
    tracer::fuzzing::contract(&case::CASE, data);
});
