//! Fuzz target: inspector (CDP) messages, one per line, through the parser and the driver's routing
//! into the capture (`tracer::fuzzing::cdp_messages`).
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

static WORKSPACE: LazyLock<tempfile::TempDir> =
    LazyLock::new(|| tempfile::tempdir().expect("a temporary folder"));

fuzz_target!(|data: &[u8]| tracer::fuzzing::cdp_messages(data, WORKSPACE.path()));
