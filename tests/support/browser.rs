//! Helpers of the tests that record in real Chromium: finding the browser (or skipping, saying so),
//! recording a page into a case, and reading the trace back.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::support::tracer_in;

/// The pages `tracer record` is tried on.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/record");

/// The browser `tracer record` would use, or `None` (the test is then skipped).
pub fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("TRACER_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    tracer::record::browser::CANDIDATES.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// [`chromium`], or `None` after saying on stderr that `test` is skipped (written straight to
/// stderr, past the test harness's capture, so the skip is seen).
pub fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    let browser = chromium();
    if browser.is_none() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED record::{test}: no Chromium (set TRACER_CHROMIUM or `apt-get install chromium`)"
        );
    }
    browser
}

/// `tracer record` of `root/page.html` into `root/case` with `browser`; it must succeed.
pub fn record_page(root: &Path, browser: &str) -> Output {
    record_target(root, browser, "page.html")
}

/// `tracer record` of `page` (a file under `root`, or a URL) into `root/case` with `browser`; it
/// must succeed.
pub fn record_target(root: &Path, browser: &str, page: &str) -> Output {
    let recorded = record_with(root, browser, &["--timeout", "60", page]);
    check(&recorded, "tracer record");
    recorded
}

/// `tracer record --case-dir case --baseline-id b1 --browser BROWSER ARGS...` in `root`, however
/// it ends.
pub fn record_with(root: &Path, browser: &str, args: &[&str]) -> Output {
    let mut all = vec![
        "record",
        "--case-dir",
        "case",
        "--baseline-id",
        "b1",
        "--browser",
        browser,
    ];
    all.extend_from_slice(args);
    tracer_in(root, &all)
}

pub fn check(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({:?}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

pub fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

pub fn find<'a>(accesses: &'a [Value], api: &str, access_type: &str) -> &'a Value {
    accesses
        .iter()
        .find(|a| a["api"] == api && a["accessType"] == access_type)
        .unwrap_or_else(|| panic!("no {access_type} of {api} in {accesses:#?}"))
}
