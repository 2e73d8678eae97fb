//! Where a failed test's events lie for node-tap, whose report echoes a test file's console output
//! where it was printed: a test's lines come after the result of the test before it and before its
//! own `# Subtest:` block, which node-tap prints as the test ends.
//!
//! node-tap runs a file in a process of its own and prints the file's block as one subtest: for
//! each of its tests, the lines the test printed (at the tests' indentation), then the test's
//! `# Subtest: NAME` block, closed by its `ok`/`not ok` line. The process's console calls reach
//! tracer on another channel than the runner's output, and a later test's can arrive before an
//! earlier test's report; their order on that channel is the order they were made. So the k-th
//! echoed line is the process's k-th printed console line, and the echoes before a test's block
//! and after the result before it are the test's own calls.

use crate::trace::event::{Event, Kind, Stream};
use crate::trace::values::strip_ansi;

/// How far before its report a failed test's `# Subtest:` heading is looked for.
const HEADING_SCAN: usize = 400;

/// The window of the failed test `leaf` run by `process` and reported at `report` (the `not ok`
/// read as its report, inside or at its `# Subtest:` block), as `test_window` gives one: after the
/// process's last console call before the test began, before its first after the test's own
/// (else `report`). None unless every console line the process printed on stdout is echoed in
/// its file's block, in the order made (a runner that prints them elsewhere or otherwise, such as
/// `node --test`'s `# text` comments, gives none).
pub(super) fn window<'a>(
    events: &'a [Event],
    report: &'a Event,
    leaf: &str,
    process: &str,
) -> Option<(u64, &'a Event)> {
    let stdout: Vec<(&Event, String)> = events
        .iter()
        .filter(|e| e.kind == Kind::Output && e.stream == Some(Stream::Stdout))
        .filter_map(|e| Some((e, strip_ansi(e.value.as_deref()?).into_owned())))
        .flat_map(|(e, text)| {
            text.lines()
                .map(|l| (e, l.trim_end().to_owned()))
                .collect::<Vec<_>>()
        })
        .collect();
    let reported = stdout.iter().position(|(e, _)| e.id == report.id)?;
    let heading_text = format!("# Subtest: {leaf}");
    let heading = (reported.saturating_sub(HEADING_SCAN)..=reported)
        .rev()
        .find(|&i| stdout[i].1.trim() == heading_text)?;
    let indent = indentation(&stdout[heading].1);
    if indent == 0 {
        return None;
    }
    // The file's block: from its own `# Subtest:` (further left) to its closing line.
    let file_start = (0..heading).rev().find(|&i| {
        let line = &stdout[i].1;
        !line.trim().is_empty() && indentation(line) < indent
    })?;
    if !stdout[file_start].1.trim().starts_with("# Subtest: ") {
        return None;
    }
    let file_end = (heading..stdout.len())
        .find(|&i| {
            let line = &stdout[i].1;
            !line.trim().is_empty() && indentation(line) < indent
        })
        .unwrap_or(stdout.len());
    // The result before the test's block (a line at the tests' indentation): the test began
    // after it, or with the file.
    let began = (file_start + 1..heading)
        .rev()
        .find(|&i| is_result(&stdout[i].1, indent))
        .unwrap_or(file_start);
    let echo = |i: &usize| is_echo(&stdout[*i].1, indent);
    let before_test = (file_start + 1..began).filter(echo).count();
    let own = (began + 1..heading).filter(echo).count();
    let echoed: Vec<&str> = (file_start + 1..file_end)
        .filter(echo)
        .map(|i| &stdout[i].1[indent..])
        .collect();
    // The process's console calls that print on stdout, in the order made, line by line.
    let printed: Vec<&Event> = events
        .iter()
        .filter(|e| {
            e.kind == Kind::Console
                && super::process_of(e.worker.as_deref()) == process
                && matches!(
                    e.detail.as_str(),
                    "console.log" | "console.info" | "console.debug"
                )
        })
        .collect();
    if printed.iter().any(|e| e.truncated || e.value.is_none()) {
        return None;
    }
    let mut lines: Vec<(usize, String)> = Vec::new();
    for (at, event) in printed.iter().enumerate() {
        let text = strip_ansi(event.value.as_deref().unwrap_or(""));
        lines.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| (at, l.trim_end().to_owned())),
        );
    }
    if lines.len() != echoed.len() || lines.iter().zip(&echoed).any(|((_, l), e)| l != e) {
        return None;
    }
    // The calls before the test's and the test's own: a call whose lines straddle the two says
    // nothing of where the test began.
    let calls_through = |count: usize| -> Option<usize> {
        match count {
            0 => Some(0),
            n if lines.get(n).is_some_and(|(at, _)| *at == lines[n - 1].0) => None,
            n => Some(lines[n - 1].0 + 1),
        }
    };
    let since = calls_through(before_test)?;
    let until = calls_through(before_test + own)?;
    Some(super::progress::between_calls(
        events, report, &printed, since, until,
    ))
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A test's result at the tests' indentation: `ok 1 - name # time=…`, `not ok 2 - name …`.
fn is_result(line: &str, indent: usize) -> bool {
    indentation(line) == indent && {
        let text = line.trim_start();
        text.starts_with("ok ") || text.starts_with("not ok ")
    }
}

/// A line the file's process printed, echoed at the tests' indentation: anything there that is
/// not TAP's own (a result, a `# comment` or heading, a plan).
fn is_echo(line: &str, indent: usize) -> bool {
    if indentation(line) != indent || line.trim().is_empty() {
        return false;
    }
    let text = line.trim_start();
    !(is_result(line, indent) || text.starts_with('#') || text.starts_with("1.."))
}
