//! cucumber-js's failure list: a failed scenario's block after its `1) Scenario: name # file:line`
//! heading, its steps listed with `✔`/`✖` and the failed step's error under its `✖` line.

use std::sync::LazyLock;

use regex::Regex;

use super::*;
use crate::trace::event::{Event, Stream};

/// `1) Scenario: discounts 100 by ten percent # features/price.feature:6` (and `Scenario
/// Outline:`): the scenario's name.
static SCENARIO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*\d+\) Scenario(?: Outline)?: (?P<name>.+?)(?: # \S+:\d+)?$")
        .expect("valid regex")
});

/// cucumber's summary (`4 scenarios (2 failed, 2 passed)`), which ends the last block.
static SUMMARY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d+ scenarios? \(").expect("valid regex"));

/// A step's line in a scenario's block (`✔ When I discount 100 # features/…:6`; `✖` failed, `-`
/// skipped, `?` undefined, `↷`/`ℹ` others).
static STEP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*[✔✖?↷ℹ-] \S").expect("valid regex"));

/// The failed scenario whose heading is line `at` of `lines`, and the index of the first line
/// after its block (the next scenario's heading, or the summary's `4 scenarios (…)`); `None`
/// when the line is no cucumber heading. Its message is the failed step's error (read as any text
/// reporter's block), its site the error's first frame in the user's own code.
pub(super) fn read_cucumber(
    lines: &[(&Event, String)],
    at: usize,
    folders: &Folders,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Option<(RunnerFailure, usize)> {
    let (heading, text) = &lines[at];
    let name = SCENARIO.captures(text)?["name"].to_owned();
    let mut end = at + 1;
    let mut block: Vec<&str> = Vec::new();
    while let Some((event, line)) = lines.get(end) {
        if SCENARIO.is_match(line) || SUMMARY.is_match(line) {
            break;
        }
        if event.stream == heading.stream
            && event.worker == heading.worker
            && block.len() < BLOCK_LINES
        {
            block.push(line);
        }
        end += 1;
    }
    let failed = block
        .iter()
        .position(|l| l.trim_start().starts_with("✖ "))?;
    let step = block[failed].trim_start().trim_start_matches("✖ ");
    let step = step.split(" # ").next().unwrap_or(step).trim();
    let error: Vec<&str> = block[failed + 1..]
        .iter()
        .copied()
        .take_while(|l| !STEP.is_match(l))
        .collect();
    let (message, frame, _) = read_text_block(&error, folders, is_own_code);
    Some((
        RunnerFailure {
            declared: None,
            name,
            message: message.unwrap_or_else(|| format!("step failed: {step}")),
            frame,
            event_id: heading.id,
            stream: heading.stream.unwrap_or(Stream::Stdout),
        },
        end,
    ))
}
