//! Fuzz target: a source map file, loaded the three ways the tracer finds one and looked up through
//! the mapper (`tracer::fuzzing::source_map`).
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

static DIR: LazyLock<tempfile::TempDir> =
    LazyLock::new(|| tempfile::tempdir().expect("a temporary folder"));

fuzz_target!(|data: &[u8]| tracer::fuzzing::source_map(data, DIR.path()));
