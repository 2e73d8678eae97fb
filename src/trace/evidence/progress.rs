//! Where a failed test's events lie for a runner that prints one mark per test as it ends and
//! names no test until its report (jasmine's `.`/`F`, @hapi/lab's `.`/`x`, mocha's dot reporter's
//! `․`/`!`, uvu's `•`/`✘` with its `(1 / 2)` count): between the mark before the test's own failure mark and that mark, read from where the
//! process's console calls fall among the marks on its stdout.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use crate::trace::event::{Event, Kind, Stream};
use crate::trace::values::strip_ansi;

/// A mark of a test that passed, was skipped or is pending (`.` jasmine and lab, `․` mocha's dot,
/// `•` uvu, `*` jasmine's pending, `-` lab's skipped, `,` mocha's pending).
const OTHER_MARKS: &[char] = &['.', '․', '•', '*', '-', ','];
/// A mark of a test that failed (`F` jasmine, `x` lab, `!` mocha's dot, `✘` uvu).
const FAIL_MARKS: &[char] = &['F', 'x', '!', '✘'];

/// uvu's count after a file's marks (`  (1 / 2)`: passed of all), which ends their line.
static COUNT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\(\d+ / \d+\)[ \t]*(?:\n|$)").expect("regex"));

/// A failure mark on the program's stdout: how many of the process's printed console calls came
/// before it, and how many came before the mark printed just before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FailMark {
    since: usize,
    until: usize,
}

/// The window of the `index`th of `count` failed tests, all run by `process` (`None`: the program's
/// own process), as `test_window` gives one: after the last console call before the test began,
/// before the first after it ended (else `report`). `None` unless the program's stdout holds
/// exactly `count` failure marks on lines of marks and the process's console calls alone, every
/// such call (`console.log`, `info`, `debug`) found there in the order it was made.
pub(super) fn progress_window<'a>(
    events: &'a [Event],
    report: &'a Event,
    index: usize,
    count: usize,
    process: &str,
) -> Option<(u64, &'a Event)> {
    let printed: Vec<(&Event, Cow<str>)> = events
        .iter()
        .filter(|e| {
            e.kind == Kind::Console
                && super::process_of(e.worker.as_deref()) == process
                && matches!(
                    e.detail.as_str(),
                    "console.log" | "console.info" | "console.debug"
                )
        })
        .map(|e| Some((e, strip_ansi(e.value.as_deref()?))))
        .collect::<Option<_>>()?;
    if printed.iter().any(|(e, _)| e.truncated) {
        return None;
    }
    let stdout: Vec<Cow<str>> = events
        .iter()
        .filter(|e| e.kind == Kind::Output && e.stream == Some(Stream::Stdout))
        .map(|e| strip_ansi(e.value.as_deref().unwrap_or("")))
        .collect();
    let texts: Vec<&str> = printed.iter().map(|(_, t)| t.as_ref()).collect();
    let marks = fail_marks(&stdout.join("\n"), &texts)?;
    if marks.len() != count {
        return None;
    }
    let mark = marks.get(index)?;
    let after = mark.since.checked_sub(1).map_or(0, |i| printed[i].0.id);
    let before = match (printed.get(mark.until), mark.until.checked_sub(1)) {
        (Some((first_after, _)), _) => *first_after,
        // The last test's window ends with the report, or with the window's last console call
        // where its batch arrived after the report (the event after it is the bound).
        (None, Some(last)) if printed[last].0.id >= report.id => events
            .iter()
            .find(|e| e.id > printed[last].0.id)
            .unwrap_or(report),
        (None, _) => report,
    };
    Some((after, before))
}

/// The failure marks of `stdout` (its lines joined), where `printed` are the texts the process's
/// console calls printed there, in order. A line counts when, its console texts taken out, it holds
/// marks and spaces alone. `None` when a console text is not where the order puts it.
fn fail_marks(stdout: &str, printed: &[&str]) -> Option<Vec<FailMark>> {
    let mut marks = Vec::new();
    let mut line: Vec<FailMark> = Vec::new();
    let mut line_holds_marks_alone = true;
    let mut placed = 0;
    let mut since = 0;
    // What `since` was where the line began: a line that turns out to be prose takes back its marks.
    let mut since_at_line = 0;
    let mut rest = stdout;
    loop {
        // A console call that printed nothing but its newline says nothing of where it was.
        while printed.get(placed).is_some_and(|t| t.is_empty()) {
            placed += 1;
        }
        if let Some(text) = printed.get(placed)
            && let Some(after) = rest.strip_prefix(text)
        {
            rest = after;
            placed += 1;
            continue;
        }
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        rest = chars.as_str();
        match c {
            '\n' => {
                if line_holds_marks_alone {
                    marks.append(&mut line);
                } else {
                    since = since_at_line;
                }
                line.clear();
                line_holds_marks_alone = true;
                since_at_line = since;
            }
            ' ' => {}
            '(' if line_holds_marks_alone && COUNT.is_match(&format!("({rest}")) => {
                // The count ends the line: its newline comes next.
                rest = &rest[rest.find('\n').unwrap_or(rest.len())..];
            }
            c if line_holds_marks_alone && FAIL_MARKS.contains(&c) => {
                line.push(FailMark {
                    since,
                    until: placed,
                });
                since = placed;
            }
            c if line_holds_marks_alone && OTHER_MARKS.contains(&c) => since = placed,
            _ if line_holds_marks_alone => {
                line_holds_marks_alone = false;
                since = since_at_line;
            }
            _ => {}
        }
    }
    if line_holds_marks_alone {
        marks.append(&mut line);
    }
    (placed == printed.len()).then_some(marks)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// jasmine: `Started`, then a mark per spec with each spec's console output where it was
    /// printed, then the report.
    #[test]
    fn each_failure_mark_is_bounded_by_the_mark_before_it() {
        let stdout = "> test\nStarted\n.PRICE-LOG discounting 100\nF.STOCK-LOG reserving 5\nF\n\nFailures:\n1) price discounts 100 by ten percent";
        let marks = fail_marks(
            stdout,
            &["PRICE-LOG discounting 100", "STOCK-LOG reserving 5"],
        );
        assert_eq!(
            marks,
            Some(vec![
                FailMark { since: 0, until: 1 },
                FailMark { since: 1, until: 2 }
            ])
        );
    }

    /// A spec that logged nothing has an empty window; a console line of several lines is read as
    /// one text; a line of prose with an `x` in it holds no mark.
    #[test]
    fn marks_are_read_on_lines_of_marks_alone() {
        let stdout = "  x\nfixing the box\n  .a\nb\n!.";
        let marks = fail_marks(stdout, &["a\nb"]);
        assert_eq!(
            marks,
            Some(vec![
                FailMark { since: 0, until: 0 },
                FailMark { since: 0, until: 1 }
            ])
        );
    }

    /// uvu: a file's name, its marks with its tests' console output, its count, its failures.
    #[test]
    fn uvu_s_count_ends_a_line_of_marks() {
        let stdout = "price.test.js\n• PRICE-LOG discounting 100\n✘   (1 / 2)\n\n  FAIL  \"discounts\"\nstock.test.js\n• STOCK-LOG reserving 5\n✘   (1 / 2)\n";
        let marks = fail_marks(
            stdout,
            &["PRICE-LOG discounting 100", "STOCK-LOG reserving 5"],
        );
        assert_eq!(
            marks,
            Some(vec![
                FailMark { since: 0, until: 1 },
                FailMark { since: 1, until: 2 }
            ])
        );
    }

    /// A console text printed otherwise than recorded (or not on stdout) leaves no window.
    #[test]
    fn a_console_text_not_found_in_order_gives_no_marks() {
        assert_eq!(
            fail_marks(".F\nsecond\nfirst\n", &["first", "second"]),
            None
        );
    }
}
