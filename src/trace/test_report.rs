//! What a test runner printed about its first failing test: the test's name, the assertion's
//! message and the assertion's site in the user's code, read from the report's text. Formats
//! read: TAP (`node --test` when its output is not a terminal; node-tap's), `node --test`'s spec reporter,
//! mocha's, jest's, jasmine's, ava's and vitest's default reporters. A claim read from text, never the runtime's: the evidence
//! says so.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::trace::event::{Event, Frame, Kind, Stream};
use crate::trace::mapper;
use crate::trace::values::strip_ansi;

/// The most lines of a failing test's block read for its message and site.
const BLOCK_LINES: usize = 200;

/// A failing test as its runner reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunnerFailure {
    /// The test's name as printed (`add › adds two and two`).
    pub name: String,
    /// The first line of the failure's message (`AssertionError [ERR_ASSERTION]: …`).
    pub message: String,
    /// The assertion's site: the first frame of the failure's stack in the user's own code, else
    /// the test's declaration (`location:` in TAP).
    pub frame: Option<Frame>,
    /// The output event of the heading line.
    pub event_id: u64,
    pub stream: Stream,
}

/// How a heading line names a failing test, by format.
enum Heading {
    /// `not ok 2 - adds two and two` (TAP; `# TODO`/`# SKIP` ones are no failure).
    Tap(String),
    /// `✖ adds two and two (1.3ms)` (node's spec reporter), `✕ …` (jest's listing).
    Cross(String),
    /// `  1) add` (mocha's failure list; the name goes on on the lines ending in `:`).
    Numbered(String),
    /// `  ● add › adds two and two` (jest).
    Bullet(String),
    /// ` FAIL  test/add.test.js > add > adds two and two`, ` FAIL  test/x.test.js [ test/x.test.js ]`
    /// (vitest: a test, a file that failed to load).
    Fail(String),
    /// `  ✘ [fail]: add › adds two and two` (ava's listing; its report follows under the test's
    /// name, after a `─` rule).
    Ava(String),
    /// A line that never belongs to a failure's text and names none: a passing test (`✓ adds`,
    /// `✔ adds`), a skipped one (`↓ adds`), a file's line in vitest's listing (`❯ test/a.test.js
    /// (2 tests | 1 failed)`), vitest's rules (`⎯⎯⎯ Failed Tests 1 ⎯⎯⎯`) and the headings of what a
    /// test printed (`stderr | test/a.test.js > adds`, jest's `● Console`).
    Listing,
}

impl Heading {
    fn read(line: &str) -> Option<Heading> {
        static TAP: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(
                r"^\s*not ok \d+(?: - (?P<name>.*?))?\s*(?P<directive>#\s*(?i:todo|skip)\b.*)?$",
            )
            .expect("valid regex")
        });
        static CROSS: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^\s*[✖✕×] (?P<name>.+?)(?: \([\d.]+ ?m?s\))?$").expect("valid regex")
        });
        static NUMBERED: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"^\s*\d+\) (?P<name>.+)$").expect("valid regex"));
        static BULLET: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"^\s*● (?P<name>.+)$").expect("valid regex"));
        static FAIL: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^\s*FAIL\s+(?P<file>\S+)\s+(?:> (?P<name>.+?)|\[ .+ \])\s*$")
                .expect("valid regex")
        });
        static AVA: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^\s*✘ \[fail\]: (?P<name>.+?)(?: Error thrown in test)?$")
                .expect("valid regex")
        });
        static LISTING: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^\s*(?:[✓✔↓] |❯ \S+ \(\d+ tests?\b|⎯)|^(?:stdout|stderr) \| \S")
                .expect("valid regex")
        });
        if let Some(caps) = TAP.captures(line) {
            if caps.name("directive").is_some() {
                return None;
            }
            return Some(Heading::Tap(
                caps.name("name").map_or("", |m| m.as_str()).to_owned(),
            ));
        }
        if let Some(caps) = CROSS.captures(line) {
            let name = caps["name"].to_owned();
            // `✖ failing tests:`: the spec reporter's summary, not a test.
            return (!name.ends_with(':')).then_some(Heading::Cross(name));
        }
        if let Some(caps) = BULLET.captures(line) {
            // `● Console`: what a test file's tests printed, under a heading of jest's own.
            if caps["name"].trim() == "Console" {
                return Some(Heading::Listing);
            }
            return Some(Heading::Bullet(caps["name"].to_owned()));
        }
        if let Some(caps) = FAIL.captures(line) {
            let name = caps
                .name("name")
                .unwrap_or_else(|| caps.name("file").expect("in the regex"));
            return Some(Heading::Fail(name.as_str().to_owned()));
        }
        if let Some(caps) = AVA.captures(line) {
            return Some(Heading::Ava(caps["name"].to_owned()));
        }
        if LISTING.is_match(line) {
            return Some(Heading::Listing);
        }
        NUMBERED
            .captures(line)
            .map(|caps| Heading::Numbered(caps["name"].to_owned()))
    }

    fn name(&self) -> &str {
        match self {
            Heading::Tap(n)
            | Heading::Cross(n)
            | Heading::Numbered(n)
            | Heading::Bullet(n)
            | Heading::Fail(n)
            | Heading::Ava(n) => n,
            Heading::Listing => "",
        }
    }
}

/// The first failing test the program's output (before event `before`) reports with a message,
/// with the assertion's site when a frame of the user's own code is printed with it.
pub fn first_failed(
    events: &[Event],
    before: u64,
    cwd: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Option<RunnerFailure> {
    all_failed(events, before, cwd, is_own_code)
        .into_iter()
        .next()
}

/// A failing test as the run knows it: the runner's report, its assertion's site mapped (with the
/// mapper's note), and the process that ran its file (`program` for the program itself).
#[derive(Debug, Clone)]
pub struct Reported {
    pub test: RunnerFailure,
    pub site: Option<Frame>,
    pub note: Option<String>,
    pub process: Option<String>,
}

/// Every failing test reported before event `before` ([`all_failed`]), placed: its site mapped
/// and the process that ran its file found among `processes`.
pub fn reported(
    events: &[Event],
    before: u64,
    cwd: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
    processes: &[crate::trace::session::Process],
) -> Vec<Reported> {
    let mut mapper = mapper::Mapper::new(cwd.to_owned());
    all_failed(events, before, cwd, is_own_code)
        .into_iter()
        .map(|test| {
            let (site, note) = match &test.frame {
                Some(frame) => {
                    let (site, note) = mapper.printed(frame);
                    (Some(site), note)
                }
                None => (None, None),
            };
            let process = site
                .as_ref()
                .and_then(|f| crate::trace::session::process_running(processes, cwd, &f.file));
            Reported {
                test,
                site,
                note,
                process,
            }
        })
        .collect()
}

/// The `test` events of a run (one per failed test, `status: "failed"`): what the runners'
/// reports in the program's output say, read once the program has ended, each with its assertion's
/// site and the process that ran its file (`worker`; none for the program); stamped `ts`.
pub fn test_events(
    events: &[Event],
    cwd: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
    processes: &[crate::trace::session::Process],
    ts: f64,
) -> Vec<Event> {
    reported(events, u64::MAX, cwd, is_own_code, processes)
        .into_iter()
        .map(|r| {
            let mut event = Event::new(Kind::Test, ts, r.test.name);
            event.status = Some("failed".to_owned());
            event.error_message = Some(r.test.message);
            if let Some(site) = &r.site {
                event.at(site);
            }
            event.note = r.note;
            event.worker = r.process.filter(|p| p != "program");
            event
        })
        .collect()
}

/// Every failing test the runners reported before event `before`, in the order of their reports,
/// each once (a runner that lists its failures again in a summary reports the same name and
/// message twice: the first report stands).
pub fn all_failed(
    events: &[Event],
    before: u64,
    cwd: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Vec<RunnerFailure> {
    let mut found: Vec<RunnerFailure> = Vec::new();
    let mut add = |test: RunnerFailure| {
        if !found
            .iter()
            .any(|t| t.name == test.name && t.message == test.message)
        {
            found.push(test);
        }
    };
    let lines: Vec<(&Event, String)> = events
        .iter()
        .filter(|e| e.kind == Kind::Output && e.id < before)
        .filter_map(|e| Some((e, strip_ansi(e.value.as_deref()?).into_owned())))
        .collect();
    for (at, (event, text)) in lines.iter().enumerate() {
        let Some(heading) = Heading::read(text) else {
            continue;
        };
        if let Heading::Listing = heading {
            continue;
        }
        if let Heading::Ava(name) = &heading {
            if let Some(test) = read_ava(&lines, at, name.trim(), cwd, is_own_code) {
                add(test);
            }
            continue;
        }
        let block: Vec<&str> = lines[at + 1..]
            .iter()
            .map(|(_, t)| t.as_str())
            .take_while(|t| Heading::read(t).is_none())
            .take(BLOCK_LINES)
            .collect();
        if matches!(heading, Heading::Cross(_))
            && block
                .iter()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| l.trim_start().starts_with('→'))
        {
            // vitest's listing (`× adds 6ms`, then `→ expected 4 to be 5`): the failure is reported
            // again later, with its frames, under `FAIL`; that report is the one read.
            continue;
        }
        let mut name = heading.name().trim().to_owned();
        let mut body = &block[..];
        let jasmine = matches!(heading, Heading::Numbered(_))
            && block.first().is_some_and(|l| l.trim() == "Message:");
        if jasmine {
            // jasmine's failure list: `1) total takes ten percent off` then `  Message:`, the
            // message, `  Stack:` and its frames.
            body = &block[1..];
        } else if let Heading::Numbered(_) = heading {
            // mocha's failure list: `  1) add` then `       adds two and two:`, the name's last
            // part ending in `:` (its progress listing, `    1) adds two and two`, has none).
            let parts = block
                .iter()
                .take_while(|l| !l.trim().is_empty() && l.trim_end().ends_with(':'))
                .count();
            if parts == 0 && !name.ends_with(':') {
                continue;
            }
            for part in &block[..parts] {
                name.push_str(" › ");
                name.push_str(part.trim());
            }
            name = name.trim_end_matches(':').to_owned();
            body = &block[parts..];
        }
        let (message, frame) = match heading {
            Heading::Tap(_) => {
                let tap = read_tap_block(body, cwd, is_own_code);
                match (tap.message, tap.assertion) {
                    (Some(message), _) => (Some(message), tap.site),
                    (None, Some(comparison)) => {
                        // node-tap: a failed assertion (`not ok 1 - should be equal`) in the
                        // test its `# Subtest:` line names; its YAML has no `error:`.
                        let indent = indentation(text);
                        if let Some(test) = lines[..at].iter().rev().find_map(|(_, l)| {
                            let subtest = l.trim_start().strip_prefix("# Subtest: ")?;
                            (indentation(l) < indent).then(|| subtest.trim().to_owned())
                        }) {
                            name = test;
                        }
                        let assertion = match heading.name().trim() {
                            "" => "not ok",
                            named => named,
                        };
                        (Some(format!("{assertion}{comparison}")), tap.site)
                    }
                    (None, None) => (None, None),
                }
            }
            _ => read_text_block(body, cwd, is_own_code),
        };
        let Some(message) = message else {
            // A heading without a message is a listing line (`1) adds …`, `✕ adds …`): the
            // report with the message comes later.
            continue;
        };
        add(RunnerFailure {
            name,
            message,
            frame,
            event_id: event.id,
            stream: event.stream.unwrap_or(Stream::Stdout),
        });
    }
    found
}

/// ava's report of the failing test `name`, listed at line `at`: the lines after the `─` rule
/// that starts with the test's name, up to the next failing test's name or rule. Its message is
/// its first line that is neither the test file's `file:line` nor a line of the code excerpt
/// (`   4: test(…`), with a thrown error's own line after `Error thrown in test:` and a one-line
/// `Difference` as `actual …, expected …`; its site the first frame in the user's own code, ava's
/// `› file://test/a.test.js:4:49` included.
fn read_ava(
    lines: &[(&Event, String)],
    at: usize,
    name: &str,
    cwd: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Option<RunnerFailure> {
    static CODE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\d+:(?: |$)|^\S+:\d+$").expect("valid regex"));
    let names: Vec<String> = lines
        .iter()
        .filter_map(|(_, l)| match Heading::read(l) {
            Some(Heading::Ava(n)) => Some(n.trim().to_owned()),
            _ => None,
        })
        .collect();
    let start = at + 1 + lines[at + 1..].iter().position(|(_, l)| l.trim() == name)?;
    let block: Vec<&str> = lines[start + 1..]
        .iter()
        .map(|(_, l)| l.as_str())
        .take_while(|l| !names.iter().any(|n| l.trim() == n) && !l.trim().starts_with('─'))
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
        if let Some(frame) = mapper::printed_stack_frames(&frame_text, cwd)
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
                if m == "Error thrown in test:"
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
        name: name.to_owned(),
        message,
        frame: site,
        event_id: event.id,
        stream: event.stream.unwrap_or(Stream::Stdout),
    })
}

/// What a TAP failure's YAML block says.
struct TapBlock {
    /// `error:` (inline, or `|-` with the message under it).
    message: Option<String>,
    /// The first frame of `stack:` in the user's own code (frames are `Fn (file:line:col)`,
    /// without `at`), else `location:` (where the test is declared; node --test) or `at:`
    /// (`fileName`, `lineNumber`, `columnNumber`; node-tap).
    site: Option<Frame>,
    /// node-tap's failed assertion (`compare:`, `diff:`, `at:`, no `error:`): what its `diff:`
    /// says when it is one line against one (` (expected 18, actual 16.2)`), else empty.
    assertion: Option<String>,
}

fn read_tap_block(block: &[&str], cwd: &Path, is_own_code: &dyn Fn(&str) -> bool) -> TapBlock {
    let mut message = None;
    let mut site = None;
    let mut location = None;
    let mut assertion = false;
    let mut at: [Option<String>; 3] = [None, None, None];
    let mut diff: Vec<&str> = Vec::new();
    let mut section = "";
    let mut extended = false;
    // The block's keys are at the indentation of its `---`: a deeper line is a value's text (a
    // `source:` excerpt can hold `error: 'x'`), never a key.
    let mut key_indent: Option<usize> = None;
    for line in block {
        let trimmed = line.trim();
        if trimmed == "..." {
            break;
        }
        if trimmed == "---" && key_indent.is_none() {
            key_indent = Some(indentation(line));
            continue;
        }
        if key_indent.is_none_or(|indent| indentation(line) == indent)
            && let Some((key, value)) = trimmed.split_once(':')
            && !key.contains(' ')
            && matches!(
                key,
                "error"
                    | "stack"
                    | "location"
                    | "failureType"
                    | "code"
                    | "name"
                    | "at"
                    | "diff"
                    | "compare"
                    | "source"
            )
        {
            let value = value.trim();
            section = key;
            match key {
                "error" if !value.starts_with('|') && !value.is_empty() => {
                    message = Some(unquote(value).to_owned());
                }
                "location" => {
                    let at = unquote(value);
                    location = mapper::printed_stack_frames(&format!("at {at}"), cwd)
                        .into_iter()
                        .next();
                }
                "failureType" if unquote(value) == "subtestsFailed" => {
                    // A suite whose tests failed: its tests were reported before it.
                    return TapBlock {
                        message: None,
                        site: None,
                        assertion: None,
                    };
                }
                "at" | "diff" | "compare" => assertion = true,
                _ => {}
            }
            continue;
        }
        match section {
            "error" if message.is_none() && !trimmed.is_empty() => {
                message = Some(trimmed.to_owned());
            }
            // A message that announces what follows (`Expected values to be strictly equal:`):
            // its next line holds the values the runner compared (`2 !== 3`).
            "error" if !trimmed.is_empty() && !extended => {
                if let Some(text) = message.as_mut().filter(|t| announces(t)) {
                    text.push(' ');
                    text.push_str(trimmed);
                    extended = true;
                }
            }
            "stack" if site.is_none() => {
                let frame_text = if trimmed.starts_with("at ") {
                    trimmed.to_owned()
                } else {
                    format!("at {trimmed}")
                };
                site = mapper::printed_stack_frames(&frame_text, cwd)
                    .into_iter()
                    .find(|f| is_own_code(&f.file));
            }
            "at" => {
                if let Some((key, value)) = trimmed.split_once(": ") {
                    let slot = match key {
                        "fileName" => 0,
                        "lineNumber" => 1,
                        "columnNumber" => 2,
                        _ => continue,
                    };
                    at[slot] = Some(unquote(value.trim()).to_owned());
                }
            }
            "diff" if !trimmed.is_empty() => diff.push(trimmed),
            _ => {}
        }
    }
    if location.is_none()
        && let [Some(file), Some(line), Some(column)] = &at
    {
        location = mapper::printed_stack_frames(&format!("at {file}:{line}:{column}"), cwd)
            .into_iter()
            .next();
    }
    let assertion = (assertion && message.is_none()).then(|| match diff.as_slice() {
        ["--- expected", "+++ actual", hunk, expected, actual]
            if hunk.starts_with("@@") && expected.starts_with('-') && actual.starts_with('+') =>
        {
            format!(" (expected {}, actual {})", &expected[1..], &actual[1..])
        }
        _ => String::new(),
    });
    TapBlock {
        message,
        site: site.or(location),
        assertion,
    }
}

/// How many spaces a line starts with.
fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A failure's text under its heading: the message is its first line that is not blank, the site
/// the first frame in the user's own code (`at …`; vitest's `❯ fn file:line:col`).
fn read_text_block(
    block: &[&str],
    cwd: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
) -> (Option<String>, Option<Frame>) {
    let mut message = None;
    let mut site = None;
    let mut extended = false;
    for line in block {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let frames = match trimmed.strip_prefix("❯ ") {
            Some(frame) => mapper::printed_stack_frames(&vitest_frame(frame), cwd),
            None => mapper::printed_stack_frames(trimmed, cwd),
        };
        if let Some(frame) = frames.first() {
            if is_own_code(&frame.file) {
                site = Some(frame.clone());
                break;
            }
            continue;
        }
        if trimmed.starts_with('>') || trimmed.starts_with('|') {
            continue;
        }
        match &mut message {
            None => message = Some(trimmed.to_owned()),
            // A message that announces what follows (`Expected values to be strictly equal:`):
            // its next line holds the values the runner compared (`2 !== 3`).
            Some(text) if announces(text) && !extended => {
                text.push(' ');
                text.push_str(trimmed);
                extended = true;
            }
            Some(_) => {}
        }
    }
    (message, site)
}

/// Whether a failure's message line announces the lines after it (node's assert:
/// `Expected values to be strictly equal:`), and has not taken them in yet.
fn announces(text: &str) -> bool {
    text.ends_with(':')
}

/// Vitest's frame (`Module.add src/add.js:2:25`, `test/a.test.js:4:21`) as V8 prints one.
fn vitest_frame(frame: &str) -> String {
    match frame.rsplit_once(' ') {
        Some((function, location)) => format!("at {function} ({location})"),
        None => format!("at {frame}"),
    }
}

fn unquote(value: &str) -> &str {
    value
        .strip_prefix('\'')
        .and_then(|v| v.strip_suffix('\''))
        .or_else(|| value.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
        .unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(lines: &[&str]) -> Vec<Event> {
        lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let mut event = Event::new(Kind::Output, i as f64, "stdout");
                event.id = i as u64 + 1;
                event.stream = Some(Stream::Stdout);
                event.value = Some((*line).to_owned());
                event
            })
            .collect()
    }

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("test")).unwrap();
        std::fs::write(dir.path().join("test/add.test.js"), "x\n".repeat(10)).unwrap();
        dir
    }

    fn read(dir: &Path, lines: &[&str]) -> RunnerFailure {
        let own = |f: &str| !f.contains("node_modules") && !f.starts_with("node:");
        first_failed(&output(lines), u64::MAX, dir, &own).expect("a failing test")
    }

    /// The test's site is in `file`, at `line` and `column` (1-based, as printed).
    #[track_caller]
    fn assert_site(test: &RunnerFailure, file: &str, line: u32, column: u32) {
        let frame = test.frame.as_ref().expect("a site");
        assert!(frame.file.ends_with(file), "{frame:?}");
        assert_eq!((frame.line, frame.column), (line, column));
    }

    #[test]
    fn node_test_s_tap_report() {
        let dir = workspace();
        let file = dir.path().join("test/add.test.js");
        let location = format!("  location: '{}:5:1'", file.display());
        let stack = format!("    TestContext.<anonymous> ({}:5:41)", file.display());
        let test = read(
            dir.path(),
            &[
                "TAP version 13",
                "# Subtest: adds two and two",
                "not ok 2 - adds two and two",
                "  ---",
                &location,
                "  failureType: 'testCodeFailure'",
                "  error: |-",
                "    Expected values to be strictly equal:",
                "    5 !== 4",
                "  stack: |-",
                "    Test.runInAsyncScope (node:async_hooks:206:9)",
                &stack,
                "  ...",
                "1..2",
            ],
        );
        assert_eq!(test.name, "adds two and two");
        // The values the assertion compared are part of the message.
        assert_eq!(
            test.message,
            "Expected values to be strictly equal: 5 !== 4"
        );
        let frame = test.frame.unwrap();
        assert_eq!((frame.line, frame.column), (5, 41));
        assert_eq!(test.event_id, 3);
    }

    /// node-tap 21 (TAP 14, subtests indented): a failed assertion has no `error:`; the test is
    /// the `# Subtest:` around it, the site its `stack:` (else its `at:`).
    #[test]
    fn node_tap_s_report() {
        let dir = workspace();
        let lines = [
            "TAP version 14",
            "1..1",
            "# Subtest: test/add.test.js",
            "    # Subtest: adds one and two",
            "        ok 1 - should be equal",
            "        1..1",
            "    ok 1 - adds one and two # time=7.536ms",
            "    ",
            "    # Subtest: takes ten percent off with TEN",
            "        not ok 1 - should be equal",
            "          ---",
            "          compare: ===",
            "          at:",
            "            fileName: test/add.test.js",
            "            lineNumber: 4",
            "            columnNumber: 57",
            "            typeName: Test",
            "          stack: |",
            "            Test.<anonymous> (test/add.test.js:4:57)",
            "          source: >",
            "            t.test('takes ten percent off with TEN', async t => { t.equal(total(x), 18); });",
            "            error: 'a line of the excerpt, not a key',",
            "          diff: |",
            "            --- expected",
            "            +++ actual",
            "            @@ -1,1 +1,1 @@",
            "            -18",
            "            +16.2",
            "          ...",
            "        ",
            "        1..1",
            "    not ok 2 - takes ten percent off with TEN # time=23.994ms",
            "      ---",
            "      at:",
            "        fileName: test/add.test.js",
            "        lineNumber: 4",
            "        columnNumber: 3",
            "        isToplevel: true",
            "      ...",
        ];
        let test = read(dir.path(), &lines);
        assert_eq!(test.name, "takes ten percent off with TEN");
        assert_eq!(test.message, "should be equal (expected 18, actual 16.2)");
        assert_site(&test, "test/add.test.js", 4, 57);
        // Without `stack:`, `at:` is the site; without a one-line diff, the assertion alone.
        let bare: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.contains("Test.<anonymous>") && !l.contains("+16.2"))
            .collect();
        let test = read(dir.path(), &bare);
        assert_eq!(test.message, "should be equal");
        assert_eq!(test.frame.map(|f| (f.line, f.column)), Some((4, 57)));
    }

    #[test]
    fn a_skipped_or_todo_test_and_a_failed_suite_are_no_failing_test() {
        let dir = workspace();
        let own = |_: &str| true;
        let lines = [
            "not ok 1 - later # TODO",
            "not ok 2 - suite",
            "  ---",
            "  failureType: 'subtestsFailed'",
            "  error: '1 subtest failed'",
            "  ...",
        ];
        assert!(first_failed(&output(&lines), u64::MAX, dir.path(), &own).is_none());
    }

    #[test]
    fn mocha_s_report() {
        let dir = workspace();
        let test = read(
            dir.path(),
            &[
                "  add",
                "    ✔ adds one and two",
                "    1) adds two and two",
                "",
                "  1 passing (20ms)",
                "  1 failing",
                "",
                "  1) add",
                "       adds two and two:",
                "",
                "      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
                "",
                "5 !== 4",
                "      at Context.<anonymous> (test/add.test.js:6:12)",
                "      at process.processImmediate (node:internal/timers:483:21)",
            ],
        );
        assert_eq!(test.name, "add › adds two and two");
        assert_eq!(
            test.message,
            "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 5 !== 4"
        );
        assert_site(&test, "test/add.test.js", 6, 12);
    }

    /// ava 6's default reporter: the listing (`✘ [fail]: …`), then each failing test's report
    /// under its name.
    #[test]
    fn ava_s_report() {
        let dir = workspace();
        let thrown = format!(
            "      at file://{}/test/add.test.js:2:28",
            dir.path().display()
        );
        let lines = [
            "  ✔ add › adds one and two",
            "  ✘ [fail]: add › adds two and two",
            "  ✘ [fail]: add › throws Error thrown in test",
            "  ✘ [fail]: add › deep",
            "  ─",
            "",
            "  add › adds two and two",
            "",
            "  test/add.test.js:4",
            "",
            "   3: test('adds one and two', t => { t.is(add(1, 2), 3); });",
            "   4: test('adds two and two', t => { t.is(add(2, 2), 5); });",
            "   5:                                                                           ",
            "",
            "  Difference (- actual, + expected):",
            "",
            "  - 4",
            "  + 5",
            "",
            "  › file://test/add.test.js:4:39",
            "",
            "  add › throws",
            "",
            "  Error thrown in test:",
            "",
            "  SyntaxError {",
            "    message: 'Expected property name or \\'}\\' in JSON at position 1',",
            "  }",
            "",
            "  SyntaxError: Expected property name or '}' in JSON at position 1",
            "      at JSON.parse (<anonymous>)",
            &thrown,
            "",
            "  add › deep",
            "",
            "  test/add.test.js:6",
            "",
            "  Difference (- actual, + expected):",
            "",
            "    {",
            "  -   a: 2,",
            "  +   a: 3,",
            "    }",
            "",
            "  ─",
            "",
            "  3 tests failed",
        ];
        let test = read(dir.path(), &lines);
        assert_eq!(test.name, "add › adds two and two");
        assert_eq!(
            test.message,
            "Difference (- actual, + expected): actual 4, expected 5"
        );
        assert_site(&test, "test/add.test.js", 4, 39);
        assert_eq!(test.event_id, 7);
        // The second: a thrown error's own line; its site the test's frame in its stack.
        let second: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.contains("adds two and two"))
            .collect();
        let test = read(dir.path(), &second);
        assert_eq!(test.name, "add › throws");
        assert_eq!(
            test.message,
            "Error thrown in test: SyntaxError: Expected property name or '}' in JSON at position 1"
        );
        assert_site(&test, "test/add.test.js", 2, 28);
        // The third: a structure's difference stays as printed; no site is printed with it.
        let third: Vec<&str> = second
            .iter()
            .copied()
            .filter(|l| !l.contains("throws"))
            .collect();
        let test = read(dir.path(), &third);
        assert_eq!(
            (test.name.as_str(), test.message.as_str()),
            ("add › deep", "Difference (- actual, + expected):")
        );
        assert_eq!(test.frame, None);
    }

    /// jasmine 5's default reporter: `Message:` is no part of the test's name.
    #[test]
    fn jasmine_s_report() {
        let dir = workspace();
        let file = dir.path().join("test/add.test.js");
        let frame = format!(
            "        at UserContext.<anonymous> (file://{}:4:99)",
            file.display()
        );
        let test = read(
            dir.path(),
            &[
                "Randomized with seed 91623",
                "Started",
                ".F",
                "",
                "Failures:",
                "1) total takes ten percent off with TEN",
                "  Message:",
                "    Expected 16.2 to be 18.",
                "  Stack:",
                "        at <Jasmine>",
                &frame,
                "        at <Jasmine>",
                "",
                "2 specs, 1 failure",
            ],
        );
        assert_eq!(test.name, "total takes ten percent off with TEN");
        assert_eq!(test.message, "Expected 16.2 to be 18.");
        assert_site(&test, "test/add.test.js", 4, 99);
    }

    /// jest's `● Console` section (what a file's tests printed, when it runs in a worker) comes
    /// before its failures and names no test.
    #[test]
    fn jest_s_console_section_is_no_failing_test() {
        let dir = workspace();
        let test = read(
            dir.path(),
            &[
                "FAIL test/add.test.js",
                "  ● Console",
                "",
                "    console.log",
                "      about to call",
                "",
                "      at Object.log (test/add.test.js:4:13)",
                "",
                "  ● third › logs then throws",
                "",
                "    SyntaxError: Expected property name or '}' in JSON at position 1",
                "        at JSON.parse (<anonymous>)",
                "",
                "    > 5 |     JSON.parse('{');",
                "        |          ^",
                "",
                "      at Object.parse (test/add.test.js:5:10)",
            ],
        );
        assert_eq!(test.name, "third › logs then throws");
        assert!(test.message.starts_with("SyntaxError"), "{test:?}");
        assert_site(&test, "test/add.test.js", 5, 10);
    }

    #[test]
    fn jest_s_report() {
        let dir = workspace();
        let test = read(
            dir.path(),
            &[
                "FAIL test/add.test.js",
                "  add",
                "    ✓ adds one and two (1 ms)",
                "    ✕ adds two and two (2 ms)",
                "",
                "  ● add › adds two and two",
                "",
                "    expect(received).toBe(expected) // Object.is equality",
                "",
                "    Expected: 4",
                "    > 6 |     expect(add(2, 2)).toBe(4);",
                "        |                       ^",
                "      at Object.toBe (test/add.test.js:6:23)",
            ],
        );
        assert_eq!(test.name, "add › adds two and two");
        assert_eq!(
            test.message,
            "expect(received).toBe(expected) // Object.is equality"
        );
        assert_eq!(test.frame.unwrap().column, 23);
    }

    /// Vitest 2's default reporter, as `npx vitest run` printed it (stdout and stderr in order):
    /// the listing (`×` and `→`) is passed over for the report with the frames.
    #[test]
    fn vitest_s_report() {
        let dir = workspace();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/add.js"), "x\n".repeat(4)).unwrap();
        let listing = [
            " RUN  v2.1.9 /tmp/vt",
            "stdout | test/add.test.js > add > adds one and two",
            "adding",
            " ❯ test/add.test.js (3 tests | 2 failed) 13ms",
            "   ✓ add > adds one and two 1ms",
            "   × add > adds two and two 9ms",
            "stderr | test/add.test.js > add > adds two and two",
            "about to fail",
            "     → expected 4 to be 5 // Object.is equality",
            "   × add > throws 1ms",
            "     → a is null",
            "",
            "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯",
            "",
        ];
        let first = [
            " FAIL  test/add.test.js > add > adds two and two",
            "AssertionError: expected 4 to be 5 // Object.is equality",
            "",
            "- Expected",
            "+ Received",
            "",
            " ❯ test/add.test.js:4:21",
            "      4|   expect(add(2, 2)).toBe(5);",
            "       |                     ^",
            "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/2]⎯",
        ];
        let second = [
            " FAIL  test/add.test.js > add > throws",
            "TypeError: a is null",
            " ❯ loadAndTransform node_modules/vite/dist/node/chunks/dep.js:51969:17",
            " ❯ Module.add src/add.js:2:25",
            "      2|   if (a === null) throw new TypeError('a is null');",
            " ❯ test/add.test.js:7:3",
        ];
        let all: Vec<&str> = listing
            .iter()
            .chain(&first)
            .chain(&second)
            .copied()
            .collect();
        let test = read(dir.path(), &all);
        assert_eq!(test.name, "add > adds two and two");
        assert_eq!(
            test.message,
            "AssertionError: expected 4 to be 5 // Object.is equality"
        );
        assert_site(&test, "test/add.test.js", 4, 21);
        assert_eq!(test.event_id, listing.len() as u64 + 1);
        // The second failure's site is the first frame in the user's own code (a function).
        let only_second: Vec<&str> = listing.iter().chain(&second).copied().collect();
        let test = read(dir.path(), &only_second);
        assert_eq!(
            (test.name.as_str(), test.message.as_str()),
            ("add > throws", "TypeError: a is null")
        );
        let frame = test.frame.unwrap();
        assert!(frame.file.ends_with("src/add.js"), "{frame:?}");
        assert_eq!(
            (frame.function_name.as_str(), frame.line, frame.column),
            ("Module.add", 2, 25)
        );
        // A file that failed to load is named by its path; its frames are vite's, not the user's.
        let suite = read(
            dir.path(),
            &[
                " FAIL  test/add.test.js [ test/add.test.js ]",
                "Error: Failed to load url ../src/missing.js (resolved id: ../src/missing.js). Does the file exist?",
                " ❯ loadAndTransform node_modules/vite/dist/node/chunks/dep.js:51969:17",
            ],
        );
        assert_eq!(suite.name, "test/add.test.js");
        assert!(
            suite.message.starts_with("Error: Failed to load url"),
            "{suite:?}"
        );
        assert_eq!(suite.frame, None);
        // Jest's file line is no test.
        let own = |_: &str| true;
        assert!(
            first_failed(
                &output(&["FAIL test/add.test.js", "  ✓ adds (1 ms)"]),
                u64::MAX,
                dir.path(),
                &own
            )
            .is_none()
        );
    }

    #[test]
    fn node_test_s_spec_report() {
        let dir = workspace();
        let file = dir.path().join("test/add.test.js");
        let frame = format!("      at TestContext.<anonymous> ({}:5:41)", file.display());
        let test = read(
            dir.path(),
            &[
                "✔ adds one and two (1.27ms)",
                "✖ adds two and two (1.36315ms)",
                "  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
                "  ",
                "  5 !== 4",
                &frame,
                "✖ failing tests:",
            ],
        );
        assert_eq!(test.name, "adds two and two");
        assert!(test.message.starts_with("AssertionError"), "{test:?}");
        assert_eq!(test.frame.unwrap().line, 5);
    }
}
