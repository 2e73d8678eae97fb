//! ava's default reporter: a failing test's block after its `─` rule.

use std::sync::LazyLock;

use regex::Regex;

use super::*;
use crate::trace::event::{Event, Stream};

/// ava's report of the failing test `name`, listed at line `at`: the lines after the `─` rule
/// that starts with the test's title (see [`title`]), up to the next failing test's title or rule. Its message is
/// its first line that is neither the test file's `file:line` nor a line of the code excerpt
/// (`   4: test(…`), with a thrown error's own line after `Error thrown in test:` and a one-line
/// `Difference` as `actual …, expected …`; its site the first frame in the user's own code, ava's
/// `› file://test/a.test.js:4:49` included.
pub(super) fn read_ava(
    lines: &[(&Event, String)],
    at: usize,
    name: &str,
    folders: &Folders,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Option<RunnerFailure> {
    static CODE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\d+:(?: |$)|^\S+:\d+$").expect("valid regex"));
    let after = &lines[at + 1..];
    let names: Vec<&str> = lines
        .iter()
        .filter_map(|(_, l)| match Heading::read(l) {
            Some(Heading::Ava(listed)) => title(after, listed.trim()).map(|(_, t)| t),
            _ => None,
        })
        .collect();
    let (offset, name) = title(after, name)?;
    let start = at + 1 + offset;
    let report = lines[start].0;
    let block: Vec<&str> = lines[start + 1..]
        .iter()
        .filter(|(e, _)| e.stream == report.stream && e.worker == report.worker)
        .map(|(_, l)| l.as_str())
        .take_while(|l| !names.iter().any(|n| l.trim() == *n) && !l.trim().starts_with('─'))
        .take(BLOCK_LINES)
        .collect();
    let mut message: Option<String> = None;
    let mut site = None;
    let mut diff: Vec<&str> = Vec::new();
    let mut diff_other = false;
    for line in &block {
        let trimmed = line.trim();
        if trimmed.is_empty() || CODE.is_match(trimmed) {
            continue;
        }
        let frame_text = match trimmed.strip_prefix("› ") {
            Some(at) => format!(
                "at {}",
                at.strip_prefix("file://")
                    .filter(|p| !p.starts_with('/'))
                    .unwrap_or(at)
            ),
            None => trimmed.to_owned(),
        };
        if let Some(frame) = mapper::printed_stack_frames(&frame_text, folders)
            .into_iter()
            .next()
        {
            if is_own_code(&frame.file) {
                site = Some(frame);
                break;
            }
            continue;
        }
        match &message {
            None => message = Some(trimmed.to_owned()),
            Some(m)
                if (m == "Error thrown in test:"
                    || m == "Rejected promise returned by test. Reason:")
                    && trimmed.contains("Error")
                    && !trimmed.ends_with('{') =>
            {
                message = Some(format!("{m} {trimmed}"));
            }
            Some(m) if m.starts_with("Difference") => {
                if trimmed.starts_with("- ") || trimmed.starts_with("+ ") {
                    diff.push(trimmed);
                } else {
                    // A structure's difference (`{`, `a: 1,` …) is left as ava printed it.
                    diff_other = true;
                }
            }
            _ => {}
        }
    }
    let mut message = message?;
    if let [actual, expected] = diff.as_slice()
        && !diff_other
        && message.starts_with("Difference (- actual, + expected)")
        && actual.starts_with("- ")
        && expected.starts_with("+ ")
    {
        message = format!(
            "{message} actual {}, expected {}",
            &actual[2..],
            &expected[2..]
        );
    }
    let (event, _) = lines[start];
    Some(RunnerFailure {
        declared: None,
        name: name.to_owned(),
        message,
        frame: site,
        event_id: event.id,
        stream: event.stream.unwrap_or(Stream::Stdout),
    })
}

/// Where the report of the test listed as `listed` starts in `lines`, and the test's title: the
/// listing prints the title, then the failure's message if it has one (`async rejects Rejected
/// promise returned by test`, `throws Error thrown in test`), and the report is headed by the title
/// alone. The line equal to the listing, else the longest that the listing starts with, then a
/// space.
fn title<'l>(lines: &'l [(&Event, String)], listed: &str) -> Option<(usize, &'l str)> {
    if let Some(at) = lines.iter().position(|(_, l)| l.trim() == listed) {
        return Some((at, lines[at].1.trim()));
    }
    lines
        .iter()
        .enumerate()
        .map(|(at, (_, l))| (at, l.trim()))
        .filter(|(_, t)| {
            !t.is_empty()
                && listed
                    .strip_prefix(t)
                    .is_some_and(|rest| rest.starts_with(' '))
        })
        .max_by_key(|(at, t)| (t.len(), std::cmp::Reverse(*at)))
}
