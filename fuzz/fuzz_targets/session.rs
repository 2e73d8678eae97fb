//! Fuzz target: a session folder (`session.json`, NUL, `evidence.json`) as `show`, `evidence`,
//! `export`, `replay` and `verify` read it back (`tracer::fuzzing::session_files`).
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

static OUT: LazyLock<tempfile::TempDir> =
    LazyLock::new(|| tempfile::tempdir().expect("a temporary folder"));

fuzz_target!(|data: &[u8]| tracer::fuzzing::session_files(data, OUT.path()));
