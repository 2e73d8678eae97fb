//! Fuzz target: `tracer-trace/v1` shards (split at NUL bytes) through the raw-trace reader and the
//! contract builder (`tracer::fuzzing::raw_trace`).
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

static DIR: LazyLock<tempfile::TempDir> =
    LazyLock::new(|| tempfile::tempdir().expect("a temporary folder"));

fuzz_target!(|data: &[u8]| tracer::fuzzing::raw_trace(data, DIR.path()));
