//! What a test runner printed about each failing test: the test's name, the assertion's message
//! and the assertion's site in the user's code, read from the report's text. Formats
//! read: TAP (`node --test` when its output is not a terminal; node-tap's; tape's), `node --test`'s spec reporter,
//! mocha's, jest's, jasmine's, ava's, uvu's and vitest's default reporters, QUnit's TAP,
//! cucumber-js's failure list. A claim read from text, never the runtime's: the evidence
//! says so.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::trace::event::{Event, Frame, Kind, Stream};
use crate::trace::folders::Folders;
use crate::trace::mapper;
use crate::trace::values::{screen_lines, strip_ansi};

mod ava;
mod console;
mod cucumber;
pub mod relay;
mod tap;
mod text;

pub use console::runner_console;

use ava::read_ava;
use cucumber::read_cucumber;
use tap::read_tap_block;
use text::read_text_block;

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
    /// Where the test is declared, as the report says besides the failure's stack (TAP's
    /// `location:`), else the outermost frame of the user's own code in that stack (the test's
    /// function, in a text report): the file whose process ran the test, and under which its
    /// runner printed its console calls, where the site is in another of the user's files.
    pub declared: Option<Frame>,
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
    /// `  ✘ [fail]: add › adds two and two` (ava's listing: the test's title, then the failure's
    /// message if it has one; its report follows under the title, after a `─` rule).
    Ava(String),
    /// `  FAIL  "adds two and two"` (uvu: the message, its `++`/`--` diff and the stack under it).
    Uvu(String),
    /// `  Uncaught exception in test/cart.test.ts` (ava: a test file that threw outside its tests,
    /// or failed to load; `Unhandled rejection in …` alike): the error under it.
    Uncaught(String),
    /// A line that never belongs to a failure's text and names none: a passing test (`✓ adds`,
    /// `✔ adds`), a skipped one (`↓ adds`), a file's line in vitest's listing (`❯ test/a.test.js
    /// (2 tests | 1 failed)`) and a failed test's (`× adds 6ms`), vitest's rules (`⎯⎯⎯ Failed
    /// Tests 1 ⎯⎯⎯`) and summary (`Test Files  1 failed (1)`), and the headings of what a test
    /// printed (`stderr | test/a.test.js > adds`, jest's `● Console`).
    Listing,
}

impl Heading {
    fn read(line: &str) -> Option<Heading> {
        static TAP: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(
                r"^\s*not ok \d+(?:\s+(?:- )?(?P<name>.*?))?\s*(?P<directive>#\s*(?i:todo|skip)\b.*)?$",
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
        static AVA: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"^\s*✘ \[fail\]: (?P<name>.+)$").expect("valid regex"));
        static LISTING: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(concat!(
                r"^\s*(?:[✓✔↓] |❯ \S+ \(\d+ tests?\b|⎯)|^(?:stdout|stderr) \| \S",
                // vitest's summary (`Test Files  2 failed (2)`).
                r"|^\s*(?:Test Files|Tests|Start at|Duration)  ",
            ))
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
        // vitest's listing of a failed test with its time (`× adds 6ms`; vitest 4 prints no `→`
        // message under it): its report comes later, under `FAIL`.
        static VITEST_LISTED: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"^\s*× .+ \d+m?s$").expect("valid regex"));
        if VITEST_LISTED.is_match(line) {
            return Some(Heading::Listing);
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
        static UNCAUGHT: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^\s*(?P<name>(?:Uncaught exception|Unhandled rejection) in \S+)\s*$")
                .expect("valid regex")
        });
        if let Some(caps) = UNCAUGHT.captures(line) {
            return Some(Heading::Uncaught(caps["name"].to_owned()));
        }
        static UVU: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r#"^\s*FAIL\s+"(?P<name>.+)"\s*$"#).expect("valid regex"));
        if let Some(caps) = UVU.captures(line) {
            return Some(Heading::Uvu(caps["name"].to_owned()));
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
            | Heading::Ava(n)
            | Heading::Uvu(n)
            | Heading::Uncaught(n) => n,
            Heading::Listing => "",
        }
    }
}

/// The first failing test the program's output (before event `before`) reports with a message,
/// with the assertion's site when a frame of the user's own code is printed with it.
pub fn first_failed(
    events: &[Event],
    before: u64,
    folders: &Folders,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Option<RunnerFailure> {
    all_failed(events, before, folders, is_own_code)
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
    /// The test's own file (`RunnerFailure::declared`), else the site's.
    pub test_file: Option<String>,
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
    let printers = std::cell::OnceCell::new();
    all_failed(events, before, &Folders::of(cwd, processes), is_own_code)
        .into_iter()
        .map(|test| {
            let (site, note) = match &test.frame {
                Some(frame) => {
                    let (site, note) = mapper.printed(frame);
                    (Some(site), note)
                }
                None => (None, None),
            };
            let running =
                |f: &Frame| crate::trace::session::process_running(processes, events, cwd, &f.file);
            let declared = test.declared.as_ref().map(|d| mapper.printed(d).0);
            // The file that ran is the one the runner printed where a map took the site to
            // another (`node --test dist/test/` of `tsc`'s output, mapped to `test/*.ts`).
            let process = [
                site.as_ref(),
                declared.as_ref(),
                test.frame.as_ref(),
                test.declared.as_ref(),
            ]
            .into_iter()
            .flatten()
            .find_map(running)
            .or_else(|| {
                printers
                    .get_or_init(|| Printers::of(events))
                    .of_heading(events, test.event_id)
            });
            let test_file = declared.or_else(|| site.clone()).map(|f| f.file);
            let mut test = test;
            let mut site = site;
            let mut note = note;
            // `node --test` reports a file that failed as it loaded as a test named by the file,
            // "test failed" at its first line: the process's own uncaught exception says why.
            if test.message == "test failed"
                && let Some(thrown) = process.as_deref().and_then(|p| uncaught_in(events, p))
            {
                test.message = thrown
                    .error_message
                    .clone()
                    .or_else(|| {
                        thrown
                            .value
                            .as_deref()
                            .and_then(|v| v.lines().next())
                            .map(str::to_owned)
                    })
                    .unwrap_or(test.message);
                if let (Some(file), Some(line)) = (&thrown.file, thrown.line) {
                    site = Some(Frame {
                        function_name: String::new(),
                        file: file.clone(),
                        line,
                        column: thrown.column.unwrap_or(1),
                        generated: None,
                        unmapped: false,
                    });
                    note = None;
                }
            }
            Reported {
                test,
                site,
                note,
                process,
                test_file,
            }
        })
        .collect()
}

/// The first uncaught exception of `process` (a `worker` label, `program` for the program's own),
/// in its main thread.
fn uncaught_in<'a>(events: &'a [Event], process: &str) -> Option<&'a Event> {
    events
        .iter()
        .find(|e| e.kind == Kind::Exception && e.worker.as_deref().unwrap_or("program") == process)
}

/// Which process's console printed each line the run's console calls printed (trimmed, without
/// colours): a runner that reports through `console.log` in the process that ran the test (mocha,
/// whose process no argument names, whose ES module files are in no module cache, and whose
/// stack paths start from its own folder). None for a line several processes printed.
struct Printers(HashMap<String, Option<String>>);

impl Printers {
    fn of(events: &[Event]) -> Printers {
        let mut lines: HashMap<String, Option<String>> = HashMap::new();
        for event in events.iter().filter(|e| e.kind == Kind::Console) {
            let Some(value) = event.value.as_deref() else {
                continue;
            };
            let process = event.worker.as_deref().unwrap_or("program");
            for line in strip_ansi(value).lines().map(str::trim) {
                if line.is_empty() {
                    continue;
                }
                lines
                    .entry(line.to_owned())
                    .and_modify(|p| {
                        if p.as_deref() != Some(process) {
                            *p = None;
                        }
                    })
                    .or_insert_with(|| Some(process.to_owned()));
            }
        }
        Printers(lines)
    }

    /// The one process whose console printed `line` (a line of output), if one did.
    fn of_line(&self, line: &str) -> Option<&str> {
        self.0.get(strip_ansi(line).trim())?.as_deref()
    }

    /// The one process whose console printed the report line `heading` (an output event's id).
    fn of_heading(&self, events: &[Event], heading: u64) -> Option<String> {
        let line = events
            .iter()
            .find(|e| e.id == heading)
            .and_then(|e| e.value.as_deref())?;
        self.of_line(line).map(str::to_owned)
    }
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
    folders: &Folders,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Vec<RunnerFailure> {
    let events = relay::unrelayed(events);
    let mut found: Vec<RunnerFailure> = Vec::new();
    let mut add = |test: RunnerFailure| {
        if !found
            .iter()
            .any(|t| t.name == test.name && t.message == test.message)
        {
            found.push(test);
        }
    };
    // A reporter that redraws its lines in place (faucet) is read as a terminal shows it.
    let lines: Vec<(&Event, String)> = events
        .iter()
        .filter(|e| e.kind == Kind::Output && e.id < before)
        .filter_map(|e| Some((e, screen_lines(e.value.as_deref()?))))
        .flat_map(|(e, lines)| lines.into_iter().map(move |line| (e, line)))
        .collect();
    // Where some process ran in a folder of its own, the one that printed a report reads its
    // relative paths from its folder: the process of the output, else the one whose console
    // printed the heading.
    let printers = folders.differ().then(|| Printers::of(&events));
    let run_folders = folders;
    // The lines a report read so far spans (cucumber's scenario block, whose step lines are
    // headings of their own).
    let mut read_up_to = 0;
    for (at, (event, text)) in lines.iter().enumerate() {
        if at < read_up_to {
            continue;
        }
        let Some(heading) = Heading::read(text) else {
            continue;
        };
        if let Heading::Listing = heading {
            continue;
        }
        let printed_by;
        let folders = match &printers {
            Some(printers) => {
                let printer = event.worker.as_deref().or_else(|| printers.of_line(text));
                printed_by = run_folders.printed_by(printer);
                &printed_by
            }
            None => run_folders,
        };
        if let Heading::Numbered(_) = heading
            && let Some((test, end)) = read_cucumber(&lines, at, folders, is_own_code)
        {
            add(test);
            read_up_to = end;
            continue;
        }
        if let Heading::Ava(name) = &heading {
            if let Some(test) = read_ava(&lines, at, name.trim(), folders, is_own_code) {
                add(test);
            }
            continue;
        }
        // The heading's own stream of its own process: vitest prints its failures on stderr and
        // its summary on stdout, and the two interleave as they arrive.
        let block: Vec<&str> = lines[at + 1..]
            .iter()
            .filter(|(e, _)| e.stream == event.stream && e.worker == event.worker)
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
        // tap-spec's recap of the failures it listed (`Failed Tests: There was 1 failure`, each
        // test's name and `✖ assertion` again, without their details): read once, above.
        if lines[..at].iter().any(|(e, l)| {
            e.worker == event.worker
                && e.stream == event.stream
                && l.trim_start().starts_with("Failed Tests: There ")
        }) {
            continue;
        }
        if let Some(test) = read_tap_spec(
            &lines[..at],
            event,
            text,
            &heading,
            &block,
            folders,
            is_own_code,
        ) {
            add(test);
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
        if let Heading::Tap(_) = heading
            && summarizes_failed_subtests(&lines[..at], event, indentation(text))
        {
            // node-tap's test whose assertions failed (`not ok 1 - adds # time=3ms` after its
            // `# Subtest: adds` and the failed `not ok`s inside it): those were the failures.
            continue;
        }
        let declared;
        let (message, frame) = match heading {
            Heading::Tap(_) => {
                let tap = read_tap_block(body, folders, is_own_code);
                declared = tap.declared;
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
                        } else if let Some(test) = tape_test(&lines[..at], event, indent) {
                            // tape: the test is the `# name` comment its assertions follow.
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
            Heading::Uncaught(_) => {
                // ava prints the file's `file:line` and a code excerpt (`   2: const cfg = …`)
                // above the error: the line is the site (ava prints no column), the error the
                // message (it once was `test/a.test.js:2`, and the SyntaxError was lost).
                let (site_line, rest) = ava_excerpt(body);
                let (message, site, outermost) = read_text_block(&rest, folders, is_own_code);
                declared = outermost;
                let printed = site_line.and_then(|place| {
                    mapper::printed_stack_frames(&format!("at {place}:1"), folders)
                        .into_iter()
                        .next()
                        .filter(|f| is_own_code(&f.file))
                });
                (message, site.or(printed))
            }
            _ => {
                let (message, site, outermost) = read_text_block(body, folders, is_own_code);
                declared = outermost;
                (message, site)
            }
        };
        let Some(message) = message else {
            // A heading without a message is a listing line (`1) adds …`, `✕ adds …`): the
            // report with the message comes later.
            continue;
        };
        // node-tap's `timeout!` (its block has `expired:` alone): the site is the `at:` of the
        // `not ok` that closes the test it expired in.
        let frame = match (frame, &heading) {
            (None, Heading::Tap(_)) => closing_site(
                &lines[at + 1..],
                event,
                indentation(text),
                &name,
                folders,
                is_own_code,
            ),
            (frame, _) => frame,
        };
        add(RunnerFailure {
            name,
            message,
            frame,
            declared,
            event_id: event.id,
            stream: event.stream.unwrap_or(Stream::Stdout),
        });
    }
    found
}

/// ava's block under `Uncaught exception in …`: the `file:line` it printed first (if any) and
/// the lines past it and its code excerpt (`   2: const cfg = …`), up to ava's next `✘` line or
/// `─` rule (the next test's report, whose frames are that test's).
fn ava_excerpt<'b>(body: &[&'b str]) -> (Option<&'b str>, Vec<&'b str>) {
    static PLACE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\S+:\d+$").expect("valid regex"));
    static EXCERPT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\d+:(?: |$)").expect("valid regex"));
    let mut place = None;
    let mut rest = Vec::new();
    for line in body {
        let trimmed = line.trim();
        if trimmed.starts_with('✘') || trimmed.starts_with('─') {
            break;
        }
        if place.is_none()
            && rest.iter().all(|l: &&str| l.trim().is_empty())
            && PLACE.is_match(trimmed)
        {
            place = Some(trimmed);
        } else if !(place.is_some() && EXCERPT.is_match(trimmed)) {
            rest.push(*line);
        }
    }
    (place, rest)
}

/// tape's TAP through tap-spec (`tape test/*.js | tap-spec`): a failed assertion `✖ should be
/// strictly equal` under its test's name (the line before it, further left), then a rule of dashes
/// and tape's YAML keys (`expected:`, `actual:`, `at:`). Read as tape's own report is: the test by
/// its name, the assertion with both values, its site.
fn read_tap_spec(
    before: &[(&Event, String)],
    event: &Event,
    text: &str,
    heading: &Heading,
    block: &[&str],
    folders: &Folders,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Option<RunnerFailure> {
    let Heading::Cross(assertion) = heading else {
        return None;
    };
    let (rule, rest) = block.split_first()?;
    let rule = rule.trim();
    if rule.len() < 10 || !rule.chars().all(|c| c == '-') {
        return None;
    }
    let indent = indentation(text);
    let name = before.iter().rev().find_map(|(e, line)| {
        (e.worker == event.worker
            && e.stream == event.stream
            && !line.trim().is_empty()
            && indentation(line) < indent)
            .then(|| line.trim().to_owned())
    })?;
    let yaml: Vec<&str> = std::iter::once("  ---")
        .chain(rest.iter().copied())
        .collect();
    let tap = tap::read_tap_block(&yaml, folders, is_own_code);
    Some(RunnerFailure {
        name,
        message: format!("{}{}", assertion.trim(), tap.assertion.unwrap_or_default()),
        frame: tap.site,
        declared: tap.declared,
        event_id: event.id,
        stream: event.stream.unwrap_or(Stream::Stdout),
    })
}

/// The site of the TAP `not ok` after a failure at `indent` (of `event`'s stream) that closes its
/// test `name` (`not ok 1 - name # time=315ms`, further left): its block's `at:`.
fn closing_site(
    after: &[(&Event, String)],
    event: &Event,
    indent: usize,
    name: &str,
    folders: &Folders,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Option<Frame> {
    let ours = |e: &&Event| e.worker == event.worker && e.stream == event.stream;
    let mut lines = after
        .iter()
        .filter(|(e, _)| ours(e))
        .map(|(_, l)| l.as_str());
    while let Some(line) = lines.next() {
        if line.trim().is_empty() || indentation(line) >= indent {
            continue;
        }
        let Some(Heading::Tap(closed)) = Heading::read(line) else {
            return None;
        };
        let closed = closed.split(" # ").next().unwrap_or("").trim();
        if closed != name {
            return None;
        }
        let at = indentation(line);
        let block: Vec<&str> = lines
            .take_while(|l| l.trim().is_empty() || indentation(l) > at)
            .take(BLOCK_LINES)
            .collect();
        return tap::read_tap_block(&block, folders, is_own_code).site;
    }
    None
}

/// Whether a TAP `not ok` at `indent` (of `event`'s process) closes a test in which a deeper
/// `not ok` was reported: the lines back to its `# Subtest:` at the same indentation hold one.
fn summarizes_failed_subtests(before: &[(&Event, String)], event: &Event, indent: usize) -> bool {
    for (e, line) in before.iter().rev() {
        if e.worker != event.worker || e.stream != event.stream || line.trim().is_empty() {
            continue;
        }
        let at = indentation(line);
        if at < indent || (at == indent && line.trim_start().starts_with("# Subtest:")) {
            return false;
        }
        if at > indent && matches!(Heading::read(line), Some(Heading::Tap(_))) {
            return true;
        }
    }
    false
}

/// tape's name of the test whose assertion failed at `indent` (of `event`'s stream): the nearest
/// `# name` comment before it at that indentation or less (faucet indents the assertions under it),
/// over the lines its test printed, back to the previous test's `# name` (TAP's own `# tests 4`
/// counts are not names).
fn tape_test(before: &[(&Event, String)], event: &Event, indent: usize) -> Option<String> {
    for (e, line) in before.iter().rev() {
        if e.worker != event.worker || e.stream != event.stream {
            continue;
        }
        let Some(comment) = line
            .trim_start()
            .strip_prefix("# ")
            .filter(|_| indentation(line) <= indent)
        else {
            continue;
        };
        let name = comment.trim();
        let count = name.split_once(' ').is_some_and(|(word, n)| {
            matches!(word, "tests" | "pass" | "fail" | "ok" | "skip" | "todo")
                && n.trim().parse::<u64>().is_ok()
        });
        if name.is_empty() || count || name.starts_with("Subtest:") {
            return None;
        }
        return Some(name.to_owned());
    }
    None
}

/// Whether a failure's message line announces the lines after it (node's assert:
/// `Expected values to be strictly equal:`), and has not taken them in yet.
fn announces(text: &str) -> bool {
    text.ends_with(':')
}

fn unquote(value: &str) -> &str {
    value
        .strip_prefix('\'')
        .and_then(|v| v.strip_suffix('\''))
        .or_else(|| value.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
        .unwrap_or(value)
}

/// How many spaces a line starts with.
fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

#[cfg(test)]
mod tests;
