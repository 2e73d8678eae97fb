//! What a test's code printed where its runner replaced the console (jest's test environment,
//! vitest's workers), read back from the runner's report: jest's `● Console` blocks (the method,
//! the text and the call site it prints) and vitest's `stdout | FILE > TEST` blocks (the stream,
//! the file and the test). The console calls themselves never reach tracer there: these are
//! claims read from text, and each event's note says so.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::trace::event::{Event, Kind};
use crate::trace::folders::Folders;
use crate::trace::mapper::{self, Mapper};
use crate::trace::session::{Process, process_running};
use crate::trace::values::strip_ansi;

/// The most console calls read back from one run's reports.
const MAX_CALLS: usize = 1000;
/// The most lines of one call's text.
const MAX_TEXT_LINES: usize = 50;

/// jest: `FAIL test/a.test.js` / `PASS test/a.test.js` (the file the blocks after it are of).
static JEST_FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:FAIL|PASS)\s+(\S+)").expect("regex"));
/// jest: `    console.log`, a block's heading in a `● Console` section (a file's calls, printed
/// with its result), or `  console.log`, printed as the call is made (one test file, or
/// `--verbose`), before the `FAIL`/`PASS` line of the file it ran in.
static JEST_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(  |    )console\.(log|info|debug|warn|error|trace|dir|table|group|assert|count|time|timeLog|timeEnd)$")
        .expect("regex")
});
/// vitest: `stdout | test/a.test.js > suite > test` (or `stderr | …`).
static VITEST_CALL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(stdout|stderr) \| (\S+)(?: > (.+))?$").expect("regex"));

/// The console calls the runners' reports in `events` (the program's output) show, as `console`
/// events placed on the track of the process that ran their file (none for the program), stamped
/// with the time their report was printed.
pub fn runner_console(events: &[Event], cwd: &Path, processes: &[Process]) -> Vec<Event> {
    // A package's lines a workspace runner relayed are read as its own; the events made keep
    // the worker of the line as printed.
    let relayed = super::relay::unrelayed(events);
    let (lines, printed_by): (Vec<(&Event, String)>, Vec<Option<&String>>) = relayed
        .iter()
        .zip(events)
        .filter(|(e, _)| e.kind == Kind::Output)
        .filter_map(|(e, original)| {
            Some((
                (e, strip_ansi(e.value.as_deref()?).into_owned()),
                original.worker.as_ref(),
            ))
        })
        .unzip();
    let mut mapper = Mapper::new(cwd.to_owned());
    let folders = Folders::of(cwd, processes);
    // Which process ran each file, found once per file (it reads the whole event log).
    let mut placed: HashMap<String, Option<String>> = HashMap::new();
    let mut running = |file: &str| {
        placed
            .entry(file.to_owned())
            .or_insert_with(|| process_running(processes, events, cwd, file))
            .clone()
    };
    // The file each line's next `FAIL`/`PASS` heading names: a call jest prints as it is made
    // comes before its file's result.
    let mut next_file: Vec<Option<&str>> = vec![None; lines.len()];
    let mut coming = None;
    for (at, (_, text)) in lines.iter().enumerate().rev() {
        if let Some(file) = JEST_FILE.captures(text) {
            coming = file.get(1).map(|f| f.as_str());
        }
        next_file[at] = coming;
    }
    let mut found = Vec::new();
    let mut jest_file: Option<String> = None;
    let mut at = 0;
    while at < lines.len() && found.len() < MAX_CALLS {
        let (event, text) = &lines[at];
        if let Some(file) = JEST_FILE.captures(text) {
            jest_file = Some(file[1].to_owned());
        }
        if let Some(call) = JEST_CALL.captures(text) {
            let heading = call[1].len();
            // The text (2 spaces further in) up to the first blank line; then a code frame (for
            // warn and error) and the call site, `at NAME (FILE:LINE:COLUMN)`, as far in as the
            // text. A code frame's marked line (`    > 4 | …` in a section) is 2 spaces less in.
            let (text_in, marked) = (
                " ".repeat(heading + 2),
                format!("{}> ", " ".repeat(heading)),
            );
            let block: Vec<&str> = lines[at + 1..]
                .iter()
                .map(|(_, l)| l.as_str())
                .take_while(|l| l.is_empty() || l.starts_with(&text_in) || l.starts_with(&marked))
                .collect();
            let site_line = block
                .iter()
                .rev()
                .find(|l| l.trim_start().starts_with("at "));
            // A section's call belongs to the file whose result it is under; a call printed as
            // made, to the file whose result comes next, and only with the site jest prints after
            // it (two spaces and `console.log` alone could be anyone's output).
            let file = if heading == 4 {
                jest_file.clone()
            } else {
                site_line.and(next_file[at]).map(str::to_owned)
            };
            let Some(file) = file else {
                at += 1;
                continue;
            };
            let message: Vec<&str> = block
                .iter()
                .take_while(|l| !l.trim().is_empty())
                .take(MAX_TEXT_LINES)
                .map(|l| &l[heading + 2..])
                .collect();
            let site = site_line.and_then(|l| {
                mapper::printed_stack_frames(l.trim(), &folders)
                    .into_iter()
                    .next()
            });
            let mut call = call_event(
                (event, printed_by[at]),
                &call[2],
                message.join("\n"),
                "jest",
                &file,
                &folders,
                &mut running,
            );
            // A section comes with its file's result, after all its tests ran.
            call.printed_later = heading == 4;
            if let Some(site) = site {
                let (site, note) = mapper.printed(&site);
                call.at(&site);
                if let Some(note) = note {
                    call.note = Some(format!("{}; {note}", call.note.unwrap_or_default()));
                }
            }
            found.push(call);
            at += 1 + block.len();
            continue;
        }
        if let Some(heading) = VITEST_CALL.captures(text) {
            let message: Vec<&str> = lines[at + 1..]
                .iter()
                .map(|(_, l)| l.as_str())
                .take_while(|l| !l.trim().is_empty())
                .take(MAX_TEXT_LINES)
                .collect();
            let method = if &heading[1] == "stderr" {
                "error"
            } else {
                "log"
            };
            let mut call = call_event(
                (event, printed_by[at]),
                method,
                message.join("\n"),
                "vitest",
                &heading[2],
                &folders,
                &mut running,
            );
            if let (Some(test), Some(note)) = (heading.get(3), call.note.as_mut()) {
                note.push_str(&format!("; printed in the test `{}`", test.as_str()));
                call.test_name = Some(test.as_str().to_owned());
            }
            at += 1 + message.len();
            found.push(call);
            continue;
        }
        at += 1;
    }
    found
}

/// A console event read from the report line `printed` (with the worker of the line as printed).
fn call_event(
    (printed, printed_by): (&Event, Option<&String>),
    method: &str,
    text: String,
    runner: &str,
    file: &str,
    folders: &Folders,
    running: &mut dyn FnMut(&str) -> Option<String>,
) -> Event {
    let mut event = Event::new(Kind::Console, printed.ts, format!("console.{method}"));
    event.level = Some(method.to_owned());
    event.value = Some(text);
    // The runner printed the file relative to its own folder.
    let path = folders
        .file(Path::new(file))
        .unwrap_or_else(|| folders.run().join(file))
        .to_string_lossy()
        .into_owned();
    event.worker = running(&path)
        .filter(|p| p != "program")
        .or_else(|| printed_by.cloned());
    event.test_file = Some(path);
    event.note = Some(format!(
        "read from {runner}'s report of {file} (output event {}): {runner} replaced the console where the test ran, so the call itself was not seen",
        printed.id
    ));
    event
}
