//! Where a failed test's events lie for a runner that prints one mark per test as it ends and
//! names no test until its report (jasmine's `.`/`F`, @hapi/lab's `.`/`x`, mocha's dot reporter's
//! `․`/`!`, uvu's `•`/`✘` with its `(1 / 2)` count, cucumber-js's per step): between the mark
//! before the test's own failure mark and that mark, read from where the process's console calls
//! fall among the marks on its stdout.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::FailedTest;
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

/// A mark on the program's stdout: whether it is a failure's, and how many of the process's
/// printed console calls came before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    fail: bool,
    placed: usize,
}

/// A run's marks, read once for all its failed tests.
pub(super) struct Marks<'a> {
    /// The process's console calls that print on stdout (`console.log`, `info`, `debug`).
    printed: Vec<&'a Event>,
    /// The program's stdout lines.
    stdout: Vec<&'a Event>,
    marks: Vec<Mark>,
    /// The failure marks' places in `marks`, one per failed test.
    fails: Vec<usize>,
}

impl<'a> Marks<'a> {
    /// The marks of `events` for `tests`, all run by one process (a test of no known process
    /// counts as that one's where only that one prints): `None` unless the program's
    /// stdout holds exactly as many failure marks as there are tests, on lines of marks and the
    /// process's console calls alone, every such call found there in the order it was made. When
    /// no test's process is known (cucumber-js `--parallel`: each worker loads every step file,
    /// and the report and its marks are the coordinator's), the one process whose console calls
    /// print on stdout, if only one does: its calls come before the marks of the steps that made
    /// them (a worker prints before it tells the coordinator the step ended), so the same reading
    /// holds.
    pub(super) fn read(events: &'a [Event], tests: &[FailedTest]) -> Option<Marks<'a>> {
        let prints = |e: &Event| {
            e.kind == Kind::Console
                && matches!(
                    e.detail.as_str(),
                    "console.log" | "console.info" | "console.debug"
                )
        };
        tests.first()?;
        let known: Vec<&String> = tests.iter().filter_map(|t| t.process.as_ref()).collect();
        if known.windows(2).any(|pair| pair[0] != pair[1]) {
            return None;
        }
        // A test its report gives no file of (jasmine's timed-out spec: no frame) has no process
        // known: it is the others' only where that process is the one whose console prints.
        let process = match known.first() {
            Some(process) if tests.iter().all(|t| t.process.is_some()) => (*process).clone(),
            known => {
                let mut printing = events
                    .iter()
                    .filter(|e| prints(e))
                    .map(|e| super::process_of(e.worker.as_deref()));
                let first = printing.next()?;
                if printing.any(|p| p != first) || known.is_some_and(|p| **p != first) {
                    return None;
                }
                first
            }
        };
        let printed: Vec<&Event> = events
            .iter()
            .filter(|e| prints(e) && super::process_of(e.worker.as_deref()) == process)
            .collect();
        if printed.iter().any(|e| e.truncated || e.value.is_none()) {
            return None;
        }
        let texts: Vec<Cow<str>> = printed
            .iter()
            .map(|e| strip_ansi(e.value.as_deref().unwrap_or("")))
            .collect();
        let stdout: Vec<&Event> = events
            .iter()
            .filter(|e| e.kind == Kind::Output && e.stream == Some(Stream::Stdout))
            .collect();
        let text: Vec<Cow<str>> = stdout
            .iter()
            .map(|e| strip_ansi(e.value.as_deref().unwrap_or("")))
            .collect();
        let texts: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
        let marks = marks(&text.join("\n"), &texts)?;
        let fails: Vec<usize> = (0..marks.len()).filter(|&i| marks[i].fail).collect();
        (fails.len() == tests.len()).then_some(Marks {
            printed,
            stdout,
            marks,
            fails,
        })
    }

    /// The window of the `index`th failed test, reported at `report`, as `test_window` gives one:
    /// after the last console call before the test began, before the first after it ended (else
    /// `report`). Where a mark is a step's (cucumber's progress: its report lists the scenario's
    /// steps, `✔` passed before the `✖` failed one), the test began with its first step.
    pub(super) fn window(
        &self,
        events: &'a [Event],
        report: &'a Event,
        index: usize,
    ) -> Option<(u64, &'a Event)> {
        let (printed, marks) = (&self.printed, &self.marks);
        let at = *self.fails.get(index)?;
        let first = at.checked_sub(steps_before(&self.stdout, report))?;
        let since = first.checked_sub(1).map_or(0, |i| marks[i].placed);
        let until = marks[at].placed;
        Some(between_calls(events, report, printed, since, until))
    }
}

/// The window of a test whose own calls are a process's `since`th up to its `until`th printed
/// console calls (`printed`, in the order made), as `test_window` gives one: after the call
/// before them, before the first after them; the last test's window ends with the report, or
/// with its last call where that call's batch arrived after the report (the event after it is
/// the bound).
pub(super) fn between_calls<'a>(
    events: &'a [Event],
    report: &'a Event,
    printed: &[&'a Event],
    since: usize,
    until: usize,
) -> (u64, &'a Event) {
    let after = since.checked_sub(1).map_or(0, |i| printed[i].id);
    let before = match (printed.get(until), until.checked_sub(1)) {
        (Some(first_after), _) => *first_after,
        (None, Some(last)) if printed[last].id >= report.id => events
            .iter()
            .find(|e| e.id > printed[last].id)
            .unwrap_or(report),
        (None, _) => report,
    };
    (after, before)
}

/// How many marks before its failure mark a failed test's own are: the steps its report lists as
/// passed before the failed one (cucumber's `1) Scenario: …`, then `✔ When …` and `✖ Then …`),
/// else none (a mark is a test's).
fn steps_before(stdout: &[&Event], report: &Event) -> usize {
    static SCENARIO: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*\d+\) Scenario(?: Outline)?: ").expect("regex"));
    let line = |e: &&Event| {
        strip_ansi(e.value.as_deref().unwrap_or(""))
            .trim()
            .to_owned()
    };
    if !SCENARIO.is_match(&line(&report)) {
        return 0;
    }
    stdout
        .iter()
        .filter(|e| e.id > report.id && e.worker == report.worker)
        .map(line)
        .take_while(|l| !l.starts_with("✖ "))
        .filter(|l| l.starts_with("✔ "))
        .count()
}

/// The marks of `stdout` (its lines joined), where `printed` are the texts the process's console
/// calls printed there, in order. A line counts when, its console texts taken out, it holds marks
/// and spaces alone. `None` when a console text is not where the order puts it.
fn marks(stdout: &str, printed: &[&str]) -> Option<Vec<Mark>> {
    let mut marks = Vec::new();
    let mut line: Vec<Mark> = Vec::new();
    let mut line_holds_marks_alone = true;
    let mut placed = 0;
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
                }
                line.clear();
                line_holds_marks_alone = true;
            }
            ' ' => {}
            '(' if line_holds_marks_alone && COUNT.is_match(&format!("({rest}")) => {
                // The count ends the line: its newline comes next.
                rest = &rest[rest.find('\n').unwrap_or(rest.len())..];
            }
            c if line_holds_marks_alone
                && (FAIL_MARKS.contains(&c) || OTHER_MARKS.contains(&c)) =>
            {
                line.push(Mark {
                    fail: FAIL_MARKS.contains(&c),
                    placed,
                });
            }
            _ => line_holds_marks_alone = false,
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

    /// The marks read, each as `F` or `.` and the console calls placed before it (`F1`).
    fn read(stdout: &str, printed: &[&str]) -> Option<String> {
        let marks = marks(stdout, printed)?;
        let shown: Vec<String> = marks
            .iter()
            .map(|m| format!("{}{}", if m.fail { 'F' } else { '.' }, m.placed))
            .collect();
        Some(shown.join(" "))
    }

    /// jasmine: `Started`, then a mark per spec with each spec's console output where it was
    /// printed, then the report.
    #[test]
    fn a_mark_is_read_with_the_console_calls_before_it() {
        let stdout = "> test\nStarted\n.PRICE-LOG discounting 100\nF.STOCK-LOG reserving 5\nF\n\nFailures:\n1) price discounts 100 by ten percent";
        let printed = ["PRICE-LOG discounting 100", "STOCK-LOG reserving 5"];
        assert_eq!(read(stdout, &printed).as_deref(), Some(".0 F1 .1 F2"));
    }

    /// A console line of several lines is read as one text; a line of prose with an `x` in it
    /// holds no mark.
    #[test]
    fn marks_are_read_on_lines_of_marks_alone() {
        let stdout = "  x\nfixing the box\n  .a\nb\n!.";
        assert_eq!(read(stdout, &["a\nb"]).as_deref(), Some("F0 .0 F1 .1"));
    }

    /// uvu: a file's name, its marks with its tests' console output, its count, its failures.
    #[test]
    fn uvu_s_count_ends_a_line_of_marks() {
        let stdout = "price.test.js\n• PRICE-LOG discounting 100\n✘   (1 / 2)\n\n  FAIL  \"discounts\"\nstock.test.js\n• STOCK-LOG reserving 5\n✘   (1 / 2)\n";
        let printed = ["PRICE-LOG discounting 100", "STOCK-LOG reserving 5"];
        assert_eq!(read(stdout, &printed).as_deref(), Some(".0 F1 .1 F2"));
    }

    /// A console text printed otherwise than recorded (or not on stdout) leaves no window.
    #[test]
    fn a_console_text_not_found_in_order_gives_no_marks() {
        assert_eq!(read(".F\nsecond\nfirst\n", &["first", "second"]), None);
    }

    /// Events numbered (and timed) in order: `Output` a stdout line, else a `console.log` of
    /// `child 1`.
    fn numbered(specs: &[(Kind, &str)]) -> Vec<Event> {
        specs
            .iter()
            .enumerate()
            .map(|(i, (kind, value))| {
                let mut e = Event::new(*kind, (i + 1) as f64, "x");
                e.id = i as u64 + 1;
                e.value = Some((*value).to_owned());
                if *kind == Kind::Output {
                    e.stream = Some(Stream::Stdout);
                } else {
                    e.detail = "console.log".into();
                    e.worker = Some("child 1".into());
                }
                e
            })
            .collect()
    }

    /// A failed test of `process`, as the report reads it.
    fn failed(name: &str, process: Option<&str>) -> FailedTest {
        FailedTest {
            name: name.into(),
            message: "failed".into(),
            file: None,
            line: None,
            column: None,
            process: process.map(str::to_owned),
            chain: Vec::new(),
        }
    }

    /// jasmine's timed-out spec is reported with no frame, so no process is known to have run it:
    /// the marks still place every failed test where the one process printing ran them all (they
    /// were once read for none, and every chain was the run's last lines: a later spec's, in
    /// another file).
    #[test]
    fn a_failed_test_of_no_known_process_is_the_printing_process_s() {
        let events = numbered(&[
            (Kind::Output, "Started"),
            (Kind::Console, "applying discount TEN to 20"),
            (Kind::Output, ".applying discount TEN to 20"),
            (Kind::Output, "FF"),
            (Kind::Console, "reserving 1 plum"),
            (Kind::Output, ".reserving 1 plum"),
            (Kind::Output, "F"),
        ]);
        let tests = [
            failed("cart takes ten percent off", Some("child 1")),
            failed("quote answers within the deadline", None),
            failed("stock refuses an unknown item", Some("child 1")),
        ];
        let marks = Marks::read(&events, &tests).expect("marks");
        assert_eq!(marks.fails.len(), 3);
        // Two processes named: no reading.
        let other = [
            failed("cart takes ten percent off", Some("child 1")),
            failed("stock refuses an unknown item", Some("child 2")),
        ];
        assert!(Marks::read(&events, &other).is_none());
    }

    /// cucumber: a mark per step; a failed scenario's window begins with its first step (the
    /// steps its report lists as passed before the failed one), where its `When` step logged.
    #[test]
    fn a_scenario_s_window_begins_with_its_first_step() {
        let events = numbered(&[
            (Kind::Console, "PRICE-LOG discounting 100"),
            (Kind::Output, "..PRICE-LOG discounting 100"),
            (Kind::Console, "STOCK-LOG reserving 5"),
            (Kind::Output, ".F..STOCK-LOG reserving 5"),
            (Kind::Output, ".F"),
            (
                Kind::Output,
                "1) Scenario: discounts 100 by ten percent # features/price.feature:6",
            ),
            (
                Kind::Output,
                "   ✔ When I discount 100 # features/step_definitions/price.steps.js:6",
            ),
            (
                Kind::Output,
                "   ✖ Then the result is 90 # features/step_definitions/stock.steps.js:10",
            ),
            (
                Kind::Output,
                "2) Scenario: reserves two of five # features/stock.feature:6",
            ),
            (
                Kind::Output,
                "   ✔ When I reserve 5 # features/step_definitions/stock.steps.js:7",
            ),
            (
                Kind::Output,
                "   ✖ Then the result is 3 # features/step_definitions/stock.steps.js:10",
            ),
        ]);
        let tests = [failed("", Some("child 1")), failed("", Some("child 1"))];
        let marks = Marks::read(&events, &tests).unwrap();
        let window = |index: usize, report: usize| {
            let (after, before) = marks.window(&events, &events[report], index).unwrap();
            (after, before.id)
        };
        // After nothing, before the other scenario's log; after the first log, before its report.
        assert_eq!(window(0, 5), (0, 3));
        assert_eq!(window(1, 8), (1, 9));
    }
}
