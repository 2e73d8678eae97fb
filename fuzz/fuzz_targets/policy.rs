//! Fuzz target: the policy file of a conformance case, as `tracer contract build` and `tracer
//! check` read it (`tracer::fuzzing::policy`), in the committed matching case (`fuzz/case`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../case.rs"]
mod case;

fuzz_target!(|data: &[u8]| {
    tracer::fuzzing::policy(&case::CASE, data, &case::CASE.path().join(case::TRACE));
});
