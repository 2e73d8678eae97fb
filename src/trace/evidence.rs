//! The failure evidence chain (`evidence.json`): the failure, the closest prior events, the thrown
//! value, the input, a confidence and a caveat that is never dropped.
//!
//! Format (top-level keys snake_case, nested objects camelCase; `null` when the run did not fail):
//!
//! Built only when the program's own exit says it failed (non-zero, or a signal). The failure is the
//! main thread's last uncaught exception, else a worker's or a forked child's, else the exit.
//!
//! - `failure`: `{kind: "exception"|"exit", eventId, ts, message, file?, line?, column?, sourceLine?,
//!   generated?, worker?, userFrame?, exitCode?, signal?, stderrTail?, note?}`. The site is the first frame
//!   that is not Node's own; when it lies in `node_modules` or outside the workspace, `userFrame` names
//!   the first frame in the user's own code.
//! - `immediate_cause`: the closest prior `console` or `script` event (`output` events only echo
//!   console calls) of the process that failed, or `null`; the closest of the program's own code
//!   when there is one (see [`chain`]; `chain_note` says what was left out for it).
//! - `previous_state_transitions`: up to 10 earlier console/script events, closest first, the
//!   program's own preferred to a runner's or a library's.
//!   Identical consecutive events (same kind, detail, value, position and worker: a heartbeat
//!   logged five times) are one step with `repeats` (5); its `eventId` and `ts` are the latest's.
//! - `failure.stderrTail` (an exit without an exception): the session's stderr tail with terminal
//!   escape sequences (colours) removed; [`tail_summary`] puts its message lines first. A runtime
//!   that aborted (`FATAL ERROR: … heap out of memory`) gives the failure its reason, and no site.
//! - `failure.causes` (an uncaught exception): its `cause` chain as Node printed it on stderr;
//!   `failure.errors`, the errors an `AggregateError` holds, the same way.
//! - `failure.thrownAt` (an uncaught exception): where it was thrown, when that is not its site.
//! - `originating_value`: the thrown value as rendered (the error's stack text), or `null`.
//! - `relevant_input`: `{target, args, cwd}`.
//! - `confidence`: `high` (the failure is mapped to a user source file and the immediate cause is in
//!   the same file), `medium` (mapped, but the cause is elsewhere or missing, or may have run after
//!   the throw: see [`later_in_a_function_thrown_through`]), `low` (no position).
//!   A position marked unmapped (transformed code with no known source map) is no position.
//!   When no exception was thrown and the program printed an error with a position
//!   (`file(line,col)`, `file:line:col`, or its own frame in printed stack text), that is the
//!   failure's site, with a `note` quoting the line; such a site gives `medium` at most.
//! - `confidence_basis`: the rule that gave the confidence, in a sentence.
//! - `caveat`: the fixed sentence [`CAVEAT`].

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::trace::event::{Event, Frame, Kind, Position};
use crate::trace::folders::Folders;
use crate::trace::mapper;
use crate::trace::redact::Redactor;
use crate::trace::session::{EVIDENCE_CONTEXT, Session};
use crate::trace::test_report;
use crate::trace::values::{cap, strip_ansi};

mod causes;
pub use causes::Cause;
mod fatal;
mod import_site;
mod progress;
mod tap_echo;

/// Said with every evidence chain, whatever its confidence.
pub const CAVEAT: &str = "This chain orders captured events by time and shows the closest events before the failure: that is correlation, not proof of cause.";

/// The longest source line quoted.
const SOURCE_LINE_LIMIT: usize = 300;
/// The largest source file read for a line of it (a source map can name any path).
const MAX_SOURCE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    High,
    Medium,
    Low,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    pub failure: Failure,
    pub immediate_cause: Option<Step>,
    pub previous_state_transitions: Vec<Step>,
    /// How the chain was chosen when the program's own code was preferred to a runner's or a
    /// library's lines (`chain`), with how many of those were left out (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_note: Option<String>,
    pub originating_value: Option<String>,
    pub relevant_input: RelevantInput,
    pub confidence: Confidence,
    /// What the confidence was based on, in a sentence (the rule that gave it).
    #[serde(default)]
    pub confidence_basis: String,
    pub caveat: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Failure {
    pub kind: Kind,
    pub event_id: u64,
    pub ts: f64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_line: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<Position>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_frame: Option<Frame>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The first failing test a test runner reported, for an exit without an uncaught exception
    /// (read from the runner's report: a claim, not the runtime's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<FailedTest>,
    /// Every failing test the runners reported, in the order of their reports, the first one
    /// leading (it is `test`, where the failure is an exit); beside an uncaught exception that is
    /// the failure, every one the run reported (additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<FailedTest>,
    /// The Node processes of the traced tree, besides the program, that failed: ended with a
    /// code other than 0 or by a signal tracer did not send (`4242 child 1: node test/a.test.js ·
    /// exited with 1`; the session's `processes[].exitCode` and `signal`, from the kernel, else
    /// `exitingWith`). Launchers (npm, `sh -c`) are left out: they pass their child's code on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_processes: Vec<String>,
    /// Every error line with a position the program printed, when it printed more than one and
    /// no test runner's report was read (a compiler's, a linter's, a bundler's: `main.ts(2,7):
    /// error TS2322: …`), in the order printed, the first one the failure's; at most
    /// `PRINTED_ERRORS` (additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub printed_errors: Vec<PrintedError>,
    /// The uncaught error's `cause` chain, nearest first, as Node printed it on stderr (at most
    /// `causes::MAX_CAUSES`; additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<Cause>,
    /// How many printed error lines past `PRINTED_ERRORS` were left out (additive).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub printed_errors_dropped: usize,
    /// The errors an uncaught `AggregateError` holds, as Node printed them (`[errors]: [`), each
    /// where it was made (at most `causes::MAX_CAUSES`; additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Cause>,
    /// Where the uncaught exception was thrown, when that is not its site (the exception event's
    /// `thrownAt`; additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thrown_at: Option<Position>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The most printed errors the evidence lists (`Failure::printed_errors`).
pub const PRINTED_ERRORS: usize = 50;

/// An error line the program printed, with the position it names, mapped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PrintedError {
    /// The line as printed (colours removed, capped).
    pub message: String,
    pub file: String,
    /// Absent when the position could not be mapped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// A failing test as its runner reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FailedTest {
    /// The test's name as printed (`add › adds two and two`).
    pub name: String,
    /// The first line of its failure's message.
    pub message: String,
    /// Its assertion's site, mapped (additive; absent when the report gave none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The process that ran its file: the `worker` of that process's events (`child 2`), or
    /// `program` (additive; absent when no process of the tree names the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
    /// Its own chain: the closest console and script events of that process (and of its file,
    /// where the runner says which file printed what) before its runner reported it, the
    /// program's own code first, its immediate cause leading; at most 3 (additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<Step>,
}

/// One event of the chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Step {
    pub event_id: u64,
    pub ts: f64,
    pub kind: Kind,
    pub detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_line: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    /// How many identical consecutive events this step stands for, when more than one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<u32>,
    /// Its runner named the test this step was printed in, and it is the test the chain is for.
    #[serde(skip)]
    pub named: bool,
    /// Its time is when its runner printed it, after its file's tests all ran (see
    /// [`Event::printed_later`]).
    #[serde(skip)]
    pub printed_later: bool,
}

impl Step {
    /// Whether `event` repeats what this step says (kind, detail, level, value, position, worker).
    fn repeated_by(&self, event: &Event) -> bool {
        self.kind == event.kind
            && self.detail == event.detail
            && self.level == event.level
            && self.value.as_deref() == event.value.as_deref().map(|v| strip_ansi(v)).as_deref()
            && self.file == event.file
            && self.line == event.line
            && self.column == event.column
            && self.worker == event.worker
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RelevantInput {
    pub target: String,
    pub args: Vec<String>,
    pub cwd: String,
}

/// Builds the chain for a finished session; `None` when the run did not fail.
/// `is_own_code` says whether a file is the user's (inside the workspace, not in `node_modules`).
/// Quoted source lines go through `redactor` (the events already did).
pub fn build(
    session: &Session,
    is_own_code: &dyn Fn(&str) -> bool,
    redactor: &Redactor,
) -> Option<Evidence> {
    let source_line =
        |position: &Position| source_line(position).map(|line| redactor.apply(&line).into_owned());
    let events = &session.events;
    // The verdict is the program's own exit: a worker's or a child's error it handled is no failure.
    if !session.failed() {
        return None;
    }
    // The program's own uncaught exception explains its exit best; else a worker's or a child's
    // (a worker's unhandled error is recorded once, in the worker) in the program's own code;
    // else the tests the runner said failed; else any other exception; else the exit itself.
    let folders = Folders::of(Path::new(&session.cwd), &session.processes);
    let exceptions = || events.iter().rev().filter(|e| e.kind == Kind::Exception);
    let exit = events.iter().rev().find(|e| e.kind == Kind::Exit);
    let failure_event = exceptions()
        .find(|e| e.worker.is_none())
        .or_else(|| exceptions().find(|e| e.file.as_deref().is_some_and(is_own_code)))
        .or_else(|| {
            // A child's error nowhere in the program's code (a tool's helper process, whose
            // output nobody reads: c8's watchdog, `node -e …`) explains the exit less than the
            // tests the runner reported failing.
            let other = exceptions().next()?;
            let runner_said = exit.is_some_and(|exit| {
                !test_report::all_failed(events, exit.id, &folders, is_own_code).is_empty()
            });
            (!runner_said).then_some(other)
        })
        .or(exit)?;
    let mut failure = Failure {
        kind: failure_event.kind,
        event_id: failure_event.id,
        ts: failure_event.ts,
        message: failure_event
            .error_message
            .clone()
            .unwrap_or_else(|| failure_event.detail.clone()),
        file: failure_event.file.clone(),
        line: failure_event.line,
        column: failure_event.column,
        source_line: failure_event.position().as_ref().and_then(source_line),
        generated: failure_event.generated.clone(),
        worker: failure_event.worker.clone(),
        user_frame: None,
        exit_code: None,
        signal: None,
        stderr_tail: None,
        note: failure_event.note.clone(),
        test: None,
        tests: Vec::new(),
        printed_errors: Vec::new(),
        printed_errors_dropped: 0,
        causes: Vec::new(),
        failed_processes: failed_processes(session),
        errors: Vec::new(),
        thrown_at: failure_event.thrown_at.clone(),
    };
    if failure_event.kind == Kind::Exception {
        let message = failure.message.lines().next().unwrap_or_default();
        let tail = strip_ansi(&session.stderr_tail);
        failure.causes = causes::read(&tail, message, workspace_of(session), is_own_code);
        failure.errors = causes::held(&tail, message, workspace_of(session), is_own_code);
    }
    if failure.file.is_none() && failure_event.kind == Kind::Exception {
        // A worker's error reaches the main thread without a usable position; Node prints its
        // stack text on stderr, whose first user frame is the site. Only the frames printed right
        // under the error's own message are its: an error without frames of its own (the
        // `AggregateError` of `Promise.any`) prints the errors it holds, and theirs, below it.
        let tail = strip_ansi(&session.stderr_tail);
        let message = failure.message.lines().next().unwrap_or_default();
        if let Some(frame) = mapper::mapped_stack_text_frames(
            own_printed_frames(&tail, message),
            workspace_of(session),
        )
        .into_iter()
        .next()
        {
            failure.file = Some(frame.file.clone());
            failure.line = Some(frame.line);
            failure.column = Some(frame.column);
            failure.source_line = source_line(&frame.position());
            failure.note = Some("position read from the error's stack text on stderr".to_owned());
        }
    }
    if failure.file.is_none()
        && failure_event.kind == Kind::Exception
        && let Some((name, line, column)) = failure_event
            .value
            .as_deref()
            .and_then(eval_position)
            // A worker's error, re-thrown in the main thread without its stack: Node printed it.
            .or_else(|| eval_position(&strip_ansi(&session.stderr_tail)))
    {
        // Code given on the command line (`node -e`, `-p`) has no file: its position is said as
        // Node says it, with its line from the command's own argument where one holds the code.
        // So has the code a worker was given as text (`new Worker(code, { eval: true })`), whose
        // text tracer does not have.
        failure.file = Some(name.to_owned());
        failure.line = Some(line);
        failure.column = Some(column);
        if name == EVAL {
            failure.source_line = eval_code(session, failure_event.worker.as_deref())
                .and_then(|code| code.lines().nth(line.saturating_sub(1) as usize))
                .map(|text| redactor.apply(text).into_owned());
            failure.note = Some(
                "the code given on the command line (`node -e` or `-p`), which has no file: [eval] is Node's name for it".to_owned(),
            );
        } else {
            failure.note = Some(
                "the code a worker was given as text (`new Worker(code, { eval: true })`), which has no file: [worker eval] is Node's name for it".to_owned(),
            );
        }
    }
    let mut printed = None;
    // Node aborted the process (it printed why, or where in JavaScript).
    let mut aborted = false;
    // Why the site is `medium` at most, when it was read from text rather than reported.
    let mut site_from_text: Option<&str> = None;
    if failure.file.is_none()
        && failure_event.kind == Kind::Exception
        && let Some(site) = import_site::find(&failure.message)
    {
        // An ES module import Node could not resolve: the error names the importing file only.
        failure.source_line = source_line(&Position {
            file: site.file.clone(),
            line: site.line,
            column: site.column,
        });
        failure.file = Some(site.file);
        failure.line = Some(site.line);
        failure.column = Some(site.column);
        failure.note = Some(
            "position found by reading the importing file Node's error names for the specifier (the error names no line)"
                .to_owned(),
        );
        site_from_text = Some(
            "medium at most: the site is where the importing file names the module Node could not resolve, found by reading that file (Node's error names no line)",
        );
    }
    // Every failed test the runners reported: before the exit that is the failure, or in the
    // whole run beside an exception that is (a test file that throws as it loads does not hide
    // another file's failed test).
    let tests = test_report::reported(
        events,
        match failure_event.kind {
            Kind::Exit => failure_event.id,
            _ => u64::MAX,
        },
        Path::new(&session.cwd),
        is_own_code,
        &session.processes,
    );
    // Where each failed test's report was printed (its heading's output event), and its own file.
    let test_reports: Vec<u64> = tests.iter().map(|r| r.test.event_id).collect();
    let test_files: Vec<Option<String>> = tests.iter().map(|r| r.test_file.clone()).collect();
    failure.tests = tests
        .iter()
        .map(|r| FailedTest {
            name: cap(r.test.name.clone(), SOURCE_LINE_LIMIT).0,
            message: cap(r.test.message.clone(), SOURCE_LINE_LIMIT).0,
            file: r.site.as_ref().map(|f| f.file.clone()),
            line: r.site.as_ref().filter(|f| !f.unmapped).map(|f| f.line),
            column: r.site.as_ref().filter(|f| !f.unmapped).map(|f| f.column),
            process: r.process.clone(),
            chain: Vec::new(),
        })
        .collect();
    if failure_event.kind == Kind::Exit {
        failure.exit_code = session.exit_code;
        failure.signal = session.signal.clone();
        failure.stderr_tail = Some(strip_ansi(&session.stderr_tail).into_owned());
        // No exception: what the program printed explains its exit (a test runner's report of
        // its first failing test; a compiler's error line); its first error with a position is
        // the site.
        let test = tests.into_iter().next();
        let from_test = test.as_ref().and_then(|r| {
            Some(Printed {
                frame: r.site.clone()?,
                note: r.note.clone(),
                text: format!("test `{}` failed: {}", r.test.name, r.test.message),
                stream: match r.test.stream {
                    crate::trace::event::Stream::Stderr => "stderr",
                    crate::trace::event::Stream::Stdout => "stdout",
                },
                event_id: r.test.event_id,
            })
        });
        if test.is_some() {
            failure.test = failure.tests.first().cloned();
        }
        if from_test.is_none() {
            (failure.printed_errors, failure.printed_errors_dropped) =
                printed_errors(events, failure_event.id, &folders);
        }
        // A runtime that aborted (a heap out of memory) said why on stderr, with no JavaScript
        // error and no position: that line, not an error printed earlier, is why it ended.
        let reason = from_test
            .is_none()
            .then(|| fatal::reason(failure.stderr_tail.as_deref().unwrap_or_default()))
            .flatten();
        // Where it aborted, when Node printed the JavaScript stack (`process.abort()`).
        let abort_site = from_test
            .is_none()
            .then(|| fatal::js_stack_text(failure.stderr_tail.as_deref().unwrap_or_default()))
            .flatten()
            .and_then(|text| {
                let frames = mapper::mapped_stack_text_frames(&text, workspace_of(session));
                let own = frames
                    .iter()
                    .position(|f| is_own_code(&f.file))
                    .unwrap_or(0);
                frames.into_iter().nth(own)
            });
        if let Some(reason) = &reason {
            failure.message = format!(
                "{}: {}",
                failure.message,
                cap(reason.clone(), SOURCE_LINE_LIMIT).0
            );
            failure.note = Some(
                "the reason Node printed on stderr as it aborted; it printed no JavaScript stack, so the failure has no position"
                    .to_owned(),
            );
        }
        if let Some(frame) = &abort_site {
            failure.file = Some(frame.file.clone());
            if frame.unmapped {
                failure.generated = Some(frame.position());
            } else {
                failure.line = Some(frame.line);
                failure.column = Some(frame.column);
                failure.generated = frame.generated.clone();
                failure.source_line = source_line(&frame.position());
            }
            failure.note = Some(match reason {
                Some(_) => "the reason Node printed on stderr as it aborted; the position read from the JavaScript stack it printed then".to_owned(),
                None => "position read from the JavaScript stack Node printed on stderr as it aborted".to_owned(),
            });
        }
        aborted = reason.is_some();
        if abort_site.is_some() {
            site_from_text = Some(
                "medium at most: the runtime reported no uncaught exception; the site is read from the JavaScript stack Node printed on stderr as it aborted (text), not a position the inspector reported",
            );
        }
        if let Some(found) = from_test.or_else(|| {
            (reason.is_none() && abort_site.is_none())
                .then(|| printed_failure(events, failure_event.id, &folders, is_own_code))
                .flatten()
        }) {
            let text = strip_ansi(&found.text).into_owned();
            failure.message = format!(
                "{}: {}",
                failure.message,
                cap(text.clone(), SOURCE_LINE_LIMIT).0
            );
            failure.file = Some(found.frame.file.clone());
            failure.user_frame = None;
            if found.frame.unmapped {
                failure.line = None;
                failure.column = None;
                failure.generated = Some(found.frame.position());
            } else {
                failure.line = Some(found.frame.line);
                failure.column = Some(found.frame.column);
                failure.generated = found.frame.generated.clone();
                failure.source_line = source_line(&found.frame.position());
            }
            let said = format!(
                "position read from the program's {} (output event {}): {}",
                found.stream,
                found.event_id,
                cap(text, SOURCE_LINE_LIMIT).0
            );
            failure.note = Some(match found.note.clone() {
                Some(map_note) => format!("{said}; {map_note}"),
                None => said,
            });
            printed = Some(found);
        } else if let Some(r) = test
            .as_ref()
            .filter(|_| reason.is_none() && abort_site.is_none())
        {
            // A failed test its runner printed no site for (ava's `Uncaught exception in
            // test/cart.test.ts`, a file that did not load) is still why the run failed.
            failure.message = format!(
                "{}: {}",
                failure.message,
                cap(
                    format!("test `{}` failed: {}", r.test.name, r.test.message),
                    SOURCE_LINE_LIMIT
                )
                .0
            );
        }
    }
    if failure.file.as_deref().is_some_and(|f| !is_own_code(f)) {
        failure.user_frame = failure_event
            .call_stack
            .iter()
            .find(|f| is_own_code(&f.file))
            .cloned();
        if failure.user_frame.is_none()
            && failure_event.kind == Kind::Exception
            && let Some(frame) = user_frame_on_stderr(
                &failure,
                &session.stderr_tail,
                workspace_of(session),
                is_own_code,
            )
        {
            // The captured stack was cut short (an error-like object's preview elides the middle
            // of its stack); Node printed the whole stack text on stderr.
            failure.user_frame = Some(frame);
            let note = "userFrame read from the error's stack text on stderr";
            failure.note = Some(match failure.note.take() {
                Some(earlier) => format!("{earlier}; {note}"),
                None => note.to_owned(),
            });
        }
    }

    // The process that failed: the exception's, or the one that ran the first failed test's file.
    // The chain is made of its events (and its threads'); with none known, of every process's.
    let failing_process = if failure_event.kind == Kind::Exception {
        Some(process_of(failure_event.worker.as_deref()))
    } else {
        failure.test.as_ref().and_then(|t| t.process.clone())
    };
    let failing_file = failure
        .test
        .as_ref()
        .and_then(|_| test_files.first().cloned().flatten());
    let own = |step: &Step| step.line.is_some() && step.file.as_deref().is_some_and(is_own_code);
    // A failed test's events: those before its runner listed it, after the test listed before it
    // (`test_window`), where the runner lists its tests as they end (mocha's spec reporter runs
    // every file in one process).
    let marks = progress::Marks::read(events, &failure.tests);
    // A failed test placed nowhere: neither its process nor its window is known.
    let mut unplaced = false;
    let (after, before) = match (&failure.test, test_reports.first()) {
        (Some(test), Some(report)) if failure_event.kind == Kind::Exit => events
            .iter()
            .find(|e| e.id == *report)
            .map_or((0, failure_event), |report| {
                let window = failed_test_window(events, report, &failure.tests, 0, marks.as_ref());
                unplaced = window.is_none() && test.process.is_none();
                window.unwrap_or((0, report))
            }),
        _ => (0, failure_event),
    };
    // Each failed test's window: placed by its runner's listing or marks, or all before its report.
    let windows: Vec<Option<(bool, (u64, &Event))>> = test_reports
        .iter()
        .take(failure.tests.len())
        .enumerate()
        .map(|(index, reported_at)| {
            let report = events.iter().find(|e| e.id == *reported_at)?;
            let window = failed_test_window(events, report, &failure.tests, index, marks.as_ref());
            Some((window.is_some(), window.unwrap_or((0, report))))
        })
        .collect();
    // A failed test placed nowhere in a process and file where another failed test is placed
    // nowhere too, and reported with it after their process's events (none falls between the
    // two reports: node's TAP of a file arrives once its process ran every test; node-tap's,
    // streamed, reports a test before the next one's events): the events before their reports
    // are both tests', in an order that says nothing of which made which.
    let unplaced_report = |i: usize| match windows.get(i) {
        Some(Some((false, (_, report)))) => Some(*report),
        _ => None,
    };
    let shares_with = |i: usize| -> Option<String> {
        let report = unplaced_report(i)?;
        let process = failure.tests[i].process.as_deref()?;
        (0..failure.tests.len())
            .find(|&j| {
                let Some(other) = unplaced_report(j).filter(|_| j != i) else {
                    return false;
                };
                let (from, to) = if report.ts <= other.ts {
                    (report.ts, other.ts)
                } else {
                    (other.ts, report.ts)
                };
                failure.tests[j].process.as_deref() == Some(process)
                    && test_files.get(j) == test_files.get(i)
                    && !events.iter().any(|e| {
                        matches!(e.kind, Kind::Console | Kind::Script)
                            && process_of(e.worker.as_deref()) == process
                            && e.ts > from
                            && e.ts < to
                    })
            })
            .map(|j| failure.tests[j].name.clone())
    };
    let shared: Vec<Option<String>> = (0..failure.tests.len()).map(shares_with).collect();
    let first_test = failure.test.as_ref().map(|t| t.name.clone());
    // With no failing process known and no failed test (a runner's worker that ran a failed test
    // can end with 0), a process that ended with 0 beside one that failed is no lead: its last
    // line ("cache: ok") is not why the run failed.
    let succeeded = if failing_process.is_none() && failure.tests.is_empty() {
        succeeded_processes(session)
    } else {
        Vec::new()
    };
    let others = Others::of(
        &failure.tests,
        &test_files,
        first_test.as_deref().unwrap_or(""),
    );
    let steps = steps_of(
        events,
        after,
        before,
        (
            failing_process.as_deref(),
            failing_file.as_deref(),
            first_test.as_deref(),
        ),
        (&succeeded, &others),
        &source_line,
    );
    let others: Vec<Others> = failure
        .tests
        .iter()
        .map(|t| Others::of(&failure.tests, &test_files, &t.name))
        .collect();
    let unplaced = unplaced.then(|| unplaced_among(&steps, &own)).flatten();
    let (immediate_cause, previous_state_transitions, chain_note) = match &unplaced {
        // Several processes ran tests and nothing says which ran this one, nor when: the closest
        // event is as likely another test's, so none is named the cause.
        Some(processes) => {
            let earlier = steps.into_iter().take(EVIDENCE_CONTEXT).collect();
            (None, earlier, Some(unplaced_note(processes)))
        }
        None => ordered_chain(
            steps,
            &own,
            first_test
                .as_ref()
                .and(shared.first().cloned().flatten())
                .as_deref(),
        ),
    };
    let chain_note = match succeeded.as_slice() {
        [] => chain_note,
        left_out => {
            let note = format!(
                "the events of {} that ended with 0 are left out ({})",
                if left_out.len() == 1 {
                    "a process"
                } else {
                    "processes"
                },
                left_out.join(", ")
            );
            Some(match chain_note {
                Some(earlier) => format!("{earlier}; {note}"),
                None => note,
            })
        }
    };
    // A run that failed with no test named, where a runner was told to write its report to a
    // file: the failed tests are named there, and the note says where.
    let files = report_files(session);
    let chain_note = match files.as_slice() {
        [] => chain_note,
        _ if !failure.tests.is_empty() || failure_event.kind != Kind::Exit => chain_note,
        files => {
            let note = format!(
                "the test runner wrote its report to {} (`--test-reporter-destination`), which \
                 tracer does not read: the failed tests are named there",
                files.join(", ")
            );
            Some(match chain_note {
                Some(earlier) => format!("{earlier}; {note}"),
                None => note,
            })
        }
    };
    // Each failed test's own chain: of the process that ran its file (and of its file), before
    // its runner reported it.
    for (index, ((test, window), test_file)) in failure
        .tests
        .iter_mut()
        .zip(windows)
        .zip(&test_files)
        .enumerate()
    {
        let Some((placed, (after, before))) = window else {
            continue;
        };
        let steps = steps_of(
            events,
            after,
            before,
            (
                test.process.as_deref(),
                test_file.as_deref(),
                Some(test.name.as_str()),
            ),
            (&[], &others[index]),
            &source_line,
        );
        if !placed && test.process.is_none() && unplaced_among(&steps, &own).is_some() {
            // As for the failure's own chain: no event of it is known to be the test's.
            continue;
        }
        let (cause, earlier, note) = ordered_chain(steps, &own, shared[index].as_deref());
        if cause.is_none() && note.is_some() {
            // No event is known to be the test's: a chain of them would lead with another's.
            continue;
        }
        test.chain = cause
            .into_iter()
            .chain(earlier.into_iter().take(TEST_CHAIN - 1))
            .collect();
    }
    if failure.test.is_some() {
        failure.test = failure.tests.first().cloned();
    }
    // Only positions count: a file whose position could not be mapped (unmapped) is no site.
    let failure_files: Vec<&str> = failure
        .file
        .as_deref()
        .filter(|_| failure.line.is_some())
        .into_iter()
        .chain(
            failure
                .user_frame
                .as_ref()
                .filter(|f| !f.unmapped)
                .map(|f| f.file.as_str()),
        )
        .collect();
    let cause_in_failure_file = immediate_cause
        .as_ref()
        .filter(|c| c.line.is_some())
        .and_then(|c| c.file.as_deref())
        .is_some_and(|f| failure_files.contains(&f));
    let (confidence, confidence_basis) = match (&printed, failure_files.is_empty()) {
        (_, true) if aborted => (
            Confidence::Low,
            "low: Node aborted the process and printed no JavaScript position".to_owned(),
        ),
        (None, false) if site_from_text.is_some() => (
            Confidence::Medium,
            site_from_text.unwrap_or_default().to_owned(),
        ),
        (_, true) if failure_event.kind == Kind::Exit => (
            Confidence::Low,
            "low: the program exited without an uncaught exception and printed no error with a position that could be read".to_owned(),
        ),
        (_, true) => (
            Confidence::Low,
            "low: the failure has no source position that could be mapped".to_owned(),
        ),
        (Some(found), false) => (
            Confidence::Medium,
            format!(
                "medium at most: the runtime reported no uncaught exception (a test runner or an `uncaughtException` handler may have caught it); the site is a position the program printed on its {} (a compiler's, linter's or test runner's claim, read from text), not one the runtime reported",
                found.stream
            ),
        ),
        (None, false) if cause_in_failure_file => (
            Confidence::High,
            "high: the failure is mapped to a user source file and the immediate cause is in the same file".to_owned(),
        ),
        (None, false) => (
            Confidence::Medium,
            "medium: the failure is mapped to a source file, but the immediate cause is in another file or missing".to_owned(),
        ),
    };
    let (confidence, confidence_basis) = match (confidence, immediate_cause.as_ref()) {
        (Confidence::High, Some(cause)) if failure_event.kind == Kind::Exception => {
            match later_in_a_function_thrown_through(cause, events, failure_event) {
                Some(why) => (Confidence::Medium, why),
                None => (confidence, confidence_basis),
            }
        }
        _ => (confidence, confidence_basis),
    };
    // The program closed its inspector before it ended: what it did after is not in the trace,
    // and the closest event captured may not be the closest it made.
    let closed = session.processes.iter().find(|p| {
        p.role == "program"
            && p.note
                .as_deref()
                .is_some_and(|n| n.starts_with(crate::trace::session::INSPECTOR_CLOSED))
    });
    let (confidence, confidence_basis) = match closed {
        Some(process) if failing_process.as_deref().is_none_or(|p| p == PROGRAM) => (
            Confidence::Low,
            format!("low: {}", process.note.as_deref().unwrap_or_default()),
        ),
        _ => (confidence, confidence_basis),
    };

    Some(Evidence {
        originating_value: (failure_event.kind == Kind::Exception)
            .then(|| failure_event.value.clone())
            .flatten(),
        failure,
        immediate_cause,
        previous_state_transitions,
        chain_note,
        relevant_input: RelevantInput {
            target: session.target.clone(),
            args: session.args.clone(),
            cwd: session.cwd.clone(),
        },
        confidence,
        confidence_basis,
        caveat: CAVEAT.to_owned(),
    })
}

/// Why `cause` may have run after the exception was thrown, when it was made in a function the
/// exception's stack passes through, at a later line than the stack's frame there: a `finally`
/// or `catch` block runs after the throw and before the runtime reports the exception, and
/// nothing of the two events' times tells them apart (a later line also runs first in an earlier
/// pass of a loop, so this lowers the confidence rather than dropping the step).
fn later_in_a_function_thrown_through(
    cause: &Step,
    events: &[Event],
    exception: &Event,
) -> Option<String> {
    let made_in = events
        .iter()
        .find(|e| e.id == cause.event_id)?
        .call_stack
        .first()?;
    let (file, line) = (cause.file.as_deref()?, cause.line?);
    let through = exception.call_stack.iter().find(|f| {
        !f.unmapped && f.file == file && f.function_name == made_in.function_name && f.line < line
    })?;
    let function = match through.function_name.as_str() {
        "" => "top-level code".to_owned(),
        name => format!("`{name}`"),
    };
    Some(format!(
        "medium: the failure is mapped to a user source file, but the immediate cause was made in {function} at line {line}, after the line the error passed through there ({}): it may have run after the throw (a `finally` or `catch` block) rather than before it",
        through.line
    ))
}

/// An error line with a position that the program printed before it exited.
struct Printed {
    frame: Frame,
    note: Option<String>,
    text: String,
    stream: &'static str,
    event_id: u64,
}

/// Words that make a printed position an error rather than a mention.
const ERROR_WORDS: [&str; 5] = ["error", "fail", "assert", "exception", "✗"];

/// Whether a printed line says it is an error (`ERROR_WORDS`).
fn is_error(text: &str) -> bool {
    let lower = text.to_lowercase();
    ERROR_WORDS.iter().any(|w| lower.contains(w))
}

/// The output lines before event `before` that name a position: `file:line:col`-style lines,
/// and eslint's "stylish" report (a line that is a file's path, then `  1:7  error  …` lines
/// under it).
fn printed_positions<'a>(
    events: &'a [Event],
    before: u64,
    folders: &Folders,
) -> Vec<(&'a Event, &'a str, Frame)> {
    let mut heading: Option<String> = None;
    events
        .iter()
        .filter(|e| e.kind == Kind::Output && e.id < before)
        .filter_map(|e| Some((e, e.value.as_deref()?)))
        .filter_map(|(e, text)| {
            if let Some(frame) = mapper::printed_position(text, folders) {
                return Some((e, text, frame));
            }
            if let Some(file) = mapper::printed_file_heading(text, folders) {
                heading = Some(file);
                return None;
            }
            let frame = mapper::printed_line_column(text, heading.as_deref()?)?;
            Some((e, text, frame))
        })
        .collect()
}

/// Every printed error line with a position before event `before`, mapped, when there are two or
/// more (one is the failure itself); at most `PRINTED_ERRORS`, with the count of the rest.
fn printed_errors(events: &[Event], before: u64, folders: &Folders) -> (Vec<PrintedError>, usize) {
    let errors: Vec<(&Event, &str, Frame)> = printed_positions(events, before, folders)
        .into_iter()
        .filter(|(_, text, _)| is_error(text))
        .collect();
    if errors.len() < 2 {
        return (Vec::new(), 0);
    }
    let mut mapper = mapper::Mapper::new(folders.run().to_owned());
    let dropped = errors.len().saturating_sub(PRINTED_ERRORS);
    let listed = errors
        .into_iter()
        .take(PRINTED_ERRORS)
        .map(|(_, text, frame)| {
            let (frame, _) = mapper.printed(&frame);
            PrintedError {
                message: cap(strip_ansi(text).trim().to_owned(), SOURCE_LINE_LIMIT).0,
                file: frame.file.clone(),
                line: (!frame.unmapped).then_some(frame.line),
                column: (!frame.unmapped).then_some(frame.column),
            }
        })
        .collect();
    (listed, dropped)
}

/// The program's first printed error with a position (`file(line,col)`, `file:line:col`), else its
/// first printed position, else the first of the user's own frames in printed stack text; mapped
/// like any other position (source maps, the file on disk).
fn printed_failure(
    events: &[Event],
    before: u64,
    folders: &Folders,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Option<Printed> {
    let output = || {
        events
            .iter()
            .filter(move |e| e.kind == Kind::Output && e.id < before)
            .filter_map(|e| Some((e, e.value.as_deref()?)))
    };
    let positioned = printed_positions(events, before, folders);
    let (event, text, frame) = positioned
        .iter()
        .find(|(_, text, _)| is_error(text))
        .or_else(|| positioned.first())
        .cloned()
        .or_else(|| {
            // A test runner's report: stack text whose first own frame is the site, described by
            // the last error line before it (`AssertionError [ERR_ASSERTION]: …`), else the last
            // line that is not a frame.
            let (mut error_line, mut last_line): (Option<&str>, Option<&str>) = (None, None);
            output().find_map(|(e, text)| {
                let frame = mapper::printed_stack_frames(text, folders)
                    .into_iter()
                    .next();
                match frame {
                    Some(frame) if is_own_code(&frame.file) => {
                        Some((e, error_line.or(last_line).unwrap_or(text), frame))
                    }
                    Some(_) => None,
                    None => {
                        if is_error(text) {
                            error_line = Some(text);
                        } else if !text.trim().is_empty() {
                            last_line = Some(text);
                        }
                        None
                    }
                }
            })
        })?;
    // A position printed on a line of its own under the error it belongs to (esbuild's
    // `✘ [ERROR] Could not resolve "./x"`, then `    src/main.js:5:23:`): the error line says
    // what failed, the position only where.
    let text = if is_error(text) {
        // webpack's heading (`ERROR in ./src/main.js 5:0-26`) says where; the line under it says
        // what (`Module not found: Error: Can't resolve './missing' in …`).
        let heading = text.trim();
        let under = (heading.starts_with("ERROR in ") || heading.starts_with("WARNING in "))
            .then(|| {
                output()
                    .filter(|(e, _)| e.id > event.id && e.id <= event.id + 3)
                    .map(|(_, t)| t.trim())
                    .find(|t| !t.is_empty())
            })
            .flatten();
        match under {
            Some(under) => format!("{heading}: {under}"),
            None => heading.to_owned(),
        }
    } else {
        output()
            .filter(|(e, _)| e.id < event.id && e.id + 8 >= event.id && e.stream == event.stream)
            .rfind(|(_, t)| is_error(t))
            .map_or_else(
                || text.trim().to_owned(),
                |(_, error)| format!("{} ({})", error.trim(), text.trim().trim_end_matches(':')),
            )
    };
    let (frame, note) = mapper::Mapper::new(folders.run().to_owned()).printed(&frame);
    Some(Printed {
        frame,
        note,
        text,
        stream: match event.stream {
            Some(crate::trace::event::Stream::Stderr) => "stderr",
            _ => "stdout",
        },
        event_id: event.id,
    })
}

/// How the evidence names the program's own process (whose events carry no `worker`).
const PROGRAM: &str = "program";

/// How much later than it was written an output line can be read, in milliseconds: two events'
/// times closer than this do not order them (see [`steps_of`]).
const ARRIVAL_SLACK_MS: f64 = 5.0;

/// The console and script events between events `after` and `before` of `process` (its threads'
/// too; every process's when none is known), closest first, identical consecutive ones folded
/// into one step; at most `CHAIN_SCAN`. Between is by time where the times tell: a process's
/// console calls reach tracer in batches, after output printed later (node-tap's report of a test
/// arrived before the call its test made last), and each keeps the time it was made. A console call read back from a
/// runner's report (`test_file`: streamed once the program has ended) counts as before when it
/// was printed before `before`; one printed under another test file than `file` (the failed
/// test's own: jest runs several files in one process), or in another test than `test` where the
/// runner says which, is left out.
fn steps_of(
    events: &[Event],
    after: u64,
    before: &Event,
    (process, file, test): (Option<&str>, Option<&str>, Option<&str>),
    (succeeded, others): (&[&str], &Others),
    source_line: &dyn Fn(&Position) -> Option<String>,
) -> Vec<Step> {
    // Earlier than `other`: seen first, unless its time says it was made after; or made clearly
    // before it was seen. An output line's time is when tracer read it, a little after it was
    // written (a reporter's `console.log("")` written just after a mark it printed can have a
    // time before the mark's), so a time counts only when it is earlier by more than that.
    let earlier = |e: &Event, other: &Event| {
        (e.id < other.id && e.ts <= other.ts + ARRIVAL_SLACK_MS)
            || e.ts + ARRIVAL_SLACK_MS < other.ts
    };
    let start = (after > 0)
        .then(|| events.iter().find(|e| e.id == after))
        .flatten();
    let moved_on = test
        .zip(process)
        .and_then(|(test, process)| moved_on(events, test, process));
    // A test of a process whose thread is not known, where two or more threads of it ran and
    // another failed test is there too (ava without the `Debugger` domain, which says which
    // thread ran which file): a thread's calls may be the other test's, and are no step of this
    // one (ava's `one › adds big` once had the other file's thread's `mul called 3 4`).
    let threads_unknown = process.is_some_and(|p| {
        !is_thread(p)
            && (!others.files.is_empty() || !others.threads.is_empty())
            && threads_of(events, p) >= 2
    });
    // Closest first in the order events reached tracer: a process's calls arrive in the order
    // they were made, which their times (read from a batch's clock) do not always keep.
    let candidates = events
        .iter()
        .rev()
        .filter(|e| {
            matches!(e.kind, Kind::Console | Kind::Script)
                && start.is_none_or(|start| earlier(start, e))
                && (earlier(e, before) || (e.test_file.is_some() && e.ts <= before.ts))
        })
        .filter(|e| process.is_none_or(|p| ran_in(e.worker.as_deref(), p)))
        .filter(|e| !succeeded.contains(&process_of(e.worker.as_deref()).as_str()))
        // A thread that ran another failed test's file (ava's worker threads), or a call made in
        // that file, is that test's.
        .filter(|e| !others.made(e))
        .filter(|e| !threads_unknown || !e.worker.as_deref().is_some_and(is_thread))
        .filter(|e| !is_node_warning(e))
        .filter(|e| match (e.test_file.as_deref(), file) {
            (Some(printed_under), Some(file)) => printed_under == file,
            _ => true,
        })
        // A call its runner says another test printed, or another test's own code made, is that
        // test's.
        .filter(|e| match (e.test_name.as_deref(), test) {
            (Some(made_in), Some(test)) => same_test(made_in, test),
            _ => true,
        })
        .filter(|e| moved_on.is_none_or(|cut| e.id < cut));
    let mut steps: Vec<Step> = Vec::new();
    for event in candidates {
        if let Some(last) = steps.last_mut()
            && last.repeated_by(event)
        {
            last.repeats = Some(last.repeats.unwrap_or(1).saturating_add(1));
        } else if steps.len() >= CHAIN_SCAN {
            break;
        } else {
            let mut made = step(event, source_line);
            // Named by the runner's report, which names every call it lists (a call the
            // bootloader saw made in a test is named only when the test's synchronous code made
            // it: one after an `await` is not, and stays a step).
            made.named = event.test_file.is_some()
                && event
                    .test_name
                    .as_deref()
                    .zip(test)
                    .is_some_and(|(made_in, test)| same_test(made_in, test));
            steps.push(made);
        }
    }
    steps
}

/// Whether two names of a test are the same test: equal, or one the other's last parts
/// (`node --test` reports a test by its own name, `outer > inner > adds` by its suites').
fn same_test(a: &str, b: &str) -> bool {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    long == short
        || [" > ", " › "].iter().any(|sep| {
            long.strip_suffix(short)
                .is_some_and(|rest| rest.ends_with(sep))
        })
}

/// Where `process` had moved on from `test`: its first call made in another test's own code after
/// the last one made in this test's (`Event::test_name`, seen by the bootloader as `node:test`
/// ran them). A file's tests run one at a time, so the calls from there on (`console.log` after an
/// `await`, which names no test) are a later test's; `None` where no call names this test.
fn moved_on(events: &[Event], test: &str, process: &str) -> Option<u64> {
    let in_process = |e: &&Event| {
        e.kind == Kind::Console && e.test_file.is_none() && ran_in(e.worker.as_deref(), process)
    };
    let own = |e: &&Event| e.test_name.as_deref().is_some_and(|n| same_test(n, test));
    let other = |e: &&Event| e.test_name.as_deref().is_some_and(|n| !same_test(n, test));
    let first_own = events.iter().filter(in_process).find(own)?.id;
    let last_own = events.iter().filter(in_process).rfind(own)?.id;
    // Tests run concurrently (`{ concurrency: true }`): their calls interleave, and no call says
    // where this test ended.
    if events
        .iter()
        .filter(in_process)
        .any(|e| e.id > first_own && e.id < last_own && other(&e))
    {
        return None;
    }
    events
        .iter()
        .filter(in_process)
        .filter(|e| e.id > last_own)
        .find(other)
        .map(|e| e.id)
}

/// Node's own warning, which it prints through `console.error` with no call site of the program's
/// (`(node:4242) ExperimentalWarning: VM Modules is an experimental feature…`, a coded
/// `[DEP0040] DeprecationWarning`): no step of a chain. A program's own `process.emitWarning`
/// (`Warning: …`) stays one.
fn is_node_warning(event: &Event) -> bool {
    static WARNING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\(node:\d+\) (?:ExperimentalWarning|\[DEP\d+\] DeprecationWarning|UnhandledPromiseRejectionWarning|PromiseRejectionHandledWarning): ")
            .expect("regex")
    });
    event.kind == Kind::Console
        && event.file.is_none()
        && event.value.as_deref().is_some_and(|v| WARNING.is_match(v))
}

/// A line of a runner's listing of its tests as they end: `✔ adds` (mocha, node's spec), `✓`,
/// `✕`, `✖`, `×`, `1) adds` (mocha's failed one).
static LISTING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:[✓✔✕✖×√]|\d+\))\s+\S").expect("regex"));

/// Where the `index`th of the failed `tests` has its own events: as its runner's listing of its
/// tests as they end bounds them (`test_window`), else as its runner's `marks` of them do (one
/// process running every test, read once for all); `None` when neither does (then all before its
/// `report` is all that is known).
fn failed_test_window<'a>(
    events: &'a [Event],
    report: &'a Event,
    tests: &[FailedTest],
    index: usize,
    marks: Option<&progress::Marks<'a>>,
) -> Option<(u64, &'a Event)> {
    let test = &tests[index];
    test_window(events, report, &test.name, test.process.as_deref())
        .or_else(|| marks?.window(events, report, index))
}

/// For a failed test its report places nowhere (neither its process nor its window is known):
/// the processes its candidate `steps` were made in, when there are several (then none of them is
/// known to be the test's).
fn unplaced_among(steps: &[Step], own: &dyn Fn(&Step) -> bool) -> Option<Vec<String>> {
    let processes = processes_of(steps, own);
    (processes.len() > 1).then_some(processes)
}

/// The processes `steps` were made in, the program's own code's where any step is (a runner's
/// coordinator printing through its console is no test's), in order of first sight.
fn processes_of(steps: &[Step], own: &dyn Fn(&Step) -> bool) -> Vec<String> {
    let any_own = steps.iter().any(own);
    let mut processes: Vec<String> = Vec::new();
    for step in steps.iter().filter(|s| !any_own || own(s)) {
        let process = process_of(step.worker.as_deref());
        if !processes.contains(&process) {
            processes.push(process);
        }
    }
    processes
}

/// Why a failed test's chain names no immediate cause: its runner ran tests in `processes`.
fn unplaced_note(processes: &[String]) -> String {
    let mut sorted = processes.to_vec();
    sorted.sort();
    format!(
        "the runner ran tests in {} processes ({}) and its report says neither which ran this test \
         nor when it began: no event is named its immediate cause; the steps listed are every \
         process's, closest to the report first, and may be other tests'",
        sorted.len(),
        sorted.join(", ")
    )
}

/// Where a failed test's own events lie, for a runner that lists each test as it ends: after the
/// listing line before its own (exclusive), before its own (`report`, the report's heading, when
/// the runner listed none). A listing another process than the test's (`process`) printed bounds
/// the test's events only from above (mocha's `--parallel`: a worker runs a whole file before the
/// main process lists any of its tests, so the listing before the test's own says nothing of when
/// it began).
fn test_window<'a>(
    events: &'a [Event],
    report: &'a Event,
    name: &str,
    process: Option<&str>,
) -> Option<(u64, &'a Event)> {
    let leaf = name
        .rsplit(" › ")
        .next()
        .and_then(|n| n.rsplit(" > ").next())
        .unwrap_or(name)
        .trim();
    if leaf.is_empty() {
        return None;
    }
    if let Some(window) = tap_console_window(events, leaf)
        .or_else(|| tap_result_window(events, leaf))
        .or_else(|| process.and_then(|p| tap_echo::window(events, report, leaf, p)))
    {
        return Some(window);
    }
    // The runner prints its listing through its console (mocha) or on its stdout. A listing of
    // console calls is the bound where there is one: the tests' console calls (the chain's steps)
    // come on the same channel, in the order they were made, where the program's output comes on
    // another, in an order of its own. Else the later of the two is the bound.
    let mut window: Option<(u64, &Event)> = None;
    for kind in [Kind::Console, Kind::Output] {
        if kind == Kind::Output && window.is_some() {
            break;
        }
        // The console's listing is taken in the order of its calls, whenever its batches arrived
        // (after the report's line of output, at times): its first line naming the test is the
        // listing's, made as the test ended, before the report (printed through the console too).
        // A listing line is one line: a console call of several is a report's entry (mocha's
        // `  1) total` with the test's name, message and stack under it), printed once every test
        // has ended (its dot reporter lists no test as it ends).
        let listed = |e: &Event| {
            e.kind == kind
                && (kind == Kind::Console || e.id < report.id)
                && e.value.as_deref().is_some_and(|v| {
                    let v = strip_ansi(v);
                    LISTING.is_match(&v) && !v.trim_end().contains('\n')
                })
        };
        let Some(own) = events.iter().find(|e| {
            listed(e)
                && e.value
                    .as_deref()
                    .is_some_and(|v| strip_ansi(v).contains(leaf))
        }) else {
            continue;
        };
        let after = events
            .iter()
            .filter(|e| e.id < own.id && listed(e))
            .map(|e| e.id)
            .next_back()
            .unwrap_or(0);
        if process.is_some_and(|p| process_of(own.worker.as_deref()) != p) {
            return Some((0, own));
        }
        window = Some(match window {
            Some((other_after, other)) if other.id > own.id => (other_after.max(after), other),
            Some((other_after, _)) => (other_after.max(after), own),
            None => (after, own),
        });
    }
    window
}

/// Where a failed test's own events lie for a runner that prints its TAP through the console
/// (tape): after the test's `# name` line, before the first `not ok` after it, on that channel,
/// where the test's own console calls come in the order they were made.
fn tap_console_window<'a>(events: &'a [Event], leaf: &str) -> Option<(u64, &'a Event)> {
    let console = |e: &&Event| e.kind == Kind::Console;
    let text = |e: &Event| e.value.as_deref().map(|v| strip_ansi(v).trim().to_owned());
    let start = events
        .iter()
        .filter(console)
        .find(|e| text(e).is_some_and(|t| t.strip_prefix("# ") == Some(leaf)))?;
    let end = events
        .iter()
        .filter(console)
        .filter(|e| e.id > start.id && e.worker == start.worker)
        .find(|e| text(e).is_some_and(|t| t.starts_with("not ok ")))?;
    Some((start.id, end))
}

/// Where a failed test's own events lie for a runner that prints a TAP result per test through
/// the console (QUnit's `ok 1 price > adds`, `not ok 2 price > discounts …` and its block, one
/// call each): after the result line before the test's own `not ok`, before that one, on that
/// channel, where the test's own console calls come in the order they were made.
fn tap_result_window<'a>(events: &'a [Event], leaf: &str) -> Option<(u64, &'a Event)> {
    static RESULT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^(?:not )?ok \d+\b|^TAP version \d+$").expect("regex"));
    let first_line = |e: &Event| {
        let text = strip_ansi(e.value.as_deref()?);
        Some(text.lines().next().unwrap_or("").trim_end().to_owned())
    };
    let console = || events.iter().filter(|e| e.kind == Kind::Console);
    let named = format!(" {leaf}");
    let end = console().find(|e| {
        first_line(e)
            .is_some_and(|l| l.starts_with("not ok ") && RESULT.is_match(&l) && l.ends_with(&named))
    })?;
    let start = console()
        .filter(|e| e.id < end.id && e.worker == end.worker)
        .rfind(|e| first_line(e).is_some_and(|l| RESULT.is_match(&l)))
        .map_or(0, |e| e.id);
    Some((start, end))
}

/// The most steps of a failed test's own chain (`FailedTest::chain`).
const TEST_CHAIN: usize = 3;

/// How many earlier steps the chain looks at to find the program's own code.
const CHAIN_SCAN: usize = 200;

/// [`chain`], where the order of `steps` says which is closest to the failure. It does not where
/// the closest is a call its runner printed after its file's tests all ran, or (`shared_with`)
/// where another failed test's events are among them in no known order: then no step is named
/// the immediate cause, the steps are listed closest to the report first, and the note says why.
/// Where its runner named the test some steps were printed in, those steps are the chain.
fn ordered_chain(
    mut steps: Vec<Step>,
    own: &dyn Fn(&Step) -> bool,
    shared_with: Option<&str>,
) -> (Option<Step>, Vec<Step>, Option<String>) {
    if steps.iter().any(|s| s.named) {
        steps.retain(|s| s.named);
        return chain(steps, own);
    }
    let closest = steps.iter().find(|s| own(s)).or(steps.first());
    let why = match (closest, shared_with) {
        (Some(step), _) if step.printed_later => Some(
            "the runner printed this file's console calls together, after its tests ran (jest's \
             `● Console` section): when each call was made, and in which test, is not known, so \
             none is named the immediate cause; the steps listed are the file's calls, the last \
             printed first"
                .to_owned(),
        ),
        (Some(_), Some(other)) => Some(format!(
            "the runner reported this test and `{other}` after both ran in one process, and \
             nothing marks where either began: the events closest to the report may be the other \
             test's, so none is named the immediate cause; the steps listed are that process's, \
             closest to the report first"
        )),
        _ => None,
    };
    match why {
        Some(note) => (
            None,
            steps.into_iter().take(EVIDENCE_CONTEXT).collect(),
            Some(note),
        ),
        None => chain(steps, own),
    }
}

/// The chain from `steps` (closest first): where any is the program's own code (`own`: a position
/// in the workspace, not in `node_modules`), the immediate cause is the closest such step (a
/// runner's or a library's lines after it, such as a reporter printing the failure, are left
/// out), and the earlier steps are the closest of the program's own, then of the rest, up to
/// `EVIDENCE_CONTEXT`, still in the order of time. Else the closest steps, as they come. With a
/// note saying so when anything was left out for the program's own code.
fn chain(
    steps: Vec<Step>,
    own: &dyn Fn(&Step) -> bool,
) -> (Option<Step>, Vec<Step>, Option<String>) {
    let Some(first_own) = steps.iter().position(own) else {
        let mut steps = steps.into_iter();
        let cause = steps.next();
        return (cause, steps.take(EVIDENCE_CONTEXT).collect(), None);
    };
    let earlier = &steps[first_own + 1..];
    let own_earlier = earlier.iter().filter(|s| own(s)).count();
    let others_room = EVIDENCE_CONTEXT.saturating_sub(own_earlier);
    let mut others_taken = 0;
    let mut own_taken = 0;
    let mut kept = vec![false; earlier.len()];
    for (i, step) in earlier.iter().enumerate() {
        if own(step) {
            if own_taken < EVIDENCE_CONTEXT {
                kept[i] = true;
                own_taken += 1;
            }
        } else if others_taken < others_room {
            kept[i] = true;
            others_taken += 1;
        }
    }
    let others_left = earlier.len() - own_earlier - others_taken;
    let later = first_own;
    let note = (later > 0 || others_left > 0).then(|| {
        let mut parts = Vec::new();
        if later > 0 {
            parts.push(format!(
                "{later} later step{} of a runner or a library (`node_modules`, outside the workspace) left out: the immediate cause is the program's own code closest to the failure",
                if later == 1 { "" } else { "s" }
            ));
        }
        if others_left > 0 {
            parts.push(format!(
                "{others_left} earlier step{} of a runner or a library left out for the program's own",
                if others_left == 1 { "" } else { "s" }
            ));
        }
        parts.join("; ")
    });
    let mut steps = steps.into_iter().skip(first_own);
    let cause = steps.next();
    let previous = steps
        .zip(kept)
        .filter_map(|(step, kept)| kept.then_some(step))
        .collect();
    (cause, previous, note)
}

/// The process an event's `worker` belongs to: `child 2` for `child 2` and `child 2 worker 1`,
/// [`PROGRAM`] for none and for a worker thread of the program (`worker 1`).
/// Whether an event of `worker` was made in `process`: a process (`child 1`, with its threads),
/// or one thread of it (`child 1 worker 2`, where a runner ran a test file in a worker thread).
fn ran_in(worker: Option<&str>, process: &str) -> bool {
    if is_thread(process) {
        worker == Some(process)
    } else {
        process_of(worker) == process
    }
}

/// Whether `worker` names a worker thread (`worker 1`, `child 1 worker 2`), not a process.
fn is_thread(worker: &str) -> bool {
    worker.starts_with("worker ") || worker.contains(" worker ")
}

/// How many worker threads of `process` the events name (each thread's start is an event).
fn threads_of(events: &[Event], process: &str) -> usize {
    let mut threads: Vec<&str> = events
        .iter()
        .filter_map(|e| e.worker.as_deref())
        .filter(|w| is_thread(w) && ran_in(Some(w), process))
        .collect();
    threads.sort_unstable();
    threads.dedup();
    threads.len()
}

/// The threads (`child 1 worker 2`) that ran the files of failed tests other than `test`.
fn threads_of_others<'a>(tests: &'a [FailedTest], test: &str) -> Vec<&'a str> {
    tests
        .iter()
        .filter(|t| t.name != test)
        .filter_map(|t| t.process.as_deref())
        .filter(|p| is_thread(p))
        .collect()
}

/// What is another failed test's, and so no step of `test`'s: the threads that ran another
/// failed test's file (ava's worker threads), and the other failed tests' own files, other than
/// `test`'s (`test_files`, one per test): a call made in a test file is that file's tests' (a
/// `jasmine --parallel` worker loads two files, then runs their specs, one printing nothing).
#[derive(Debug, Default)]
struct Others {
    threads: Vec<String>,
    files: Vec<String>,
}

impl Others {
    fn of(tests: &[FailedTest], test_files: &[Option<String>], test: &str) -> Others {
        let own = tests
            .iter()
            .position(|t| t.name == test)
            .and_then(|i| test_files.get(i).cloned().flatten());
        let mut files: Vec<String> = tests
            .iter()
            .zip(test_files)
            .filter(|(t, _)| t.name != test)
            .filter_map(|(_, f)| f.clone())
            .filter(|f| own.as_ref() != Some(f))
            .collect();
        files.sort();
        files.dedup();
        Others {
            threads: threads_of_others(tests, test)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            files,
        }
    }

    /// Whether `event` is another failed test's.
    fn made(&self, event: &Event) -> bool {
        event
            .worker
            .as_deref()
            .is_some_and(|w| self.threads.iter().any(|t| t == w))
            || event
                .file
                .as_deref()
                .is_some_and(|f| self.files.iter().any(|o| o == f))
    }
}

fn process_of(worker: Option<&str>) -> String {
    match worker {
        None => PROGRAM.to_owned(),
        Some(w) if w.starts_with("worker ") => PROGRAM.to_owned(),
        Some(w) => w.split(" worker ").next().unwrap_or(w).to_owned(),
    }
}

/// The first frame of a stack text in code given on the command line (`    at f ([eval]:1:21)`,
/// `    at [eval]:2:3`) or to a worker as text (`    at [worker eval]:4:16`): Node's name for
/// that code, the line and the column.
fn eval_position(stack: &str) -> Option<(&'static str, u32, u32)> {
    static FRAME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^\s+at (?:.*\()?\[(worker )?eval\]:(\d+):(\d+)\)?$").expect("regex")
    });
    let caps = FRAME.captures(stack)?;
    let name = if caps.get(1).is_some() {
        WORKER_EVAL
    } else {
        EVAL
    };
    Some((name, caps[2].parse().ok()?, caps[3].parse().ok()?))
}

/// Node's names for code without a file: given on the command line, given to a worker as text.
const EVAL: &str = "[eval]";
const WORKER_EVAL: &str = "[worker eval]";

/// The code a process was given with `-e`/`--eval`/`-p`/`--print` (the program's own, for `worker`
/// none; a child's by its label).
fn eval_code<'a>(session: &'a Session, worker: Option<&str>) -> Option<&'a str> {
    let argv: Vec<&str> = match process_of(worker) {
        label if label == PROGRAM => session.args.iter().map(String::as_str).collect(),
        label => session
            .processes
            .iter()
            .find(|p| p.label.as_deref() == Some(label.as_str()))
            .map(|p| {
                p.exec_argv
                    .iter()
                    .chain(&p.argv)
                    .map(String::as_str)
                    .collect()
            })?,
    };
    argv.windows(2)
        .find(|pair| matches!(pair[0], "-e" | "--eval" | "-p" | "--print"))
        .map(|pair| pair[1])
}

/// The labels of the traced child processes that ended with 0 where another traced child failed;
/// none where none failed (the program's own failure alone may come of what they printed).
fn succeeded_processes(session: &Session) -> Vec<&str> {
    let traced = || {
        session
            .processes
            .iter()
            .filter(|p| p.role == "child" && p.label.is_some())
    };
    if !traced().any(|p| p.failed()) {
        return Vec::new();
    }
    traced()
        .filter(|p| p.exit_code == Some(0))
        .filter_map(|p| p.label.as_deref())
        .collect()
}

/// The files the run's `node --test` was told to write a report to
/// (`--test-reporter-destination=out.xml`; `stdout` and `stderr` are the output tracer reads).
fn report_files(session: &Session) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for process in &session.processes {
        let args: Vec<&str> = process
            .exec_argv
            .iter()
            .chain(&process.argv)
            .map(String::as_str)
            .collect();
        for (i, arg) in args.iter().enumerate() {
            let file = match arg.strip_prefix("--test-reporter-destination") {
                Some(value) if value.starts_with('=') => Some(&value[1..]),
                Some("") => args.get(i + 1).copied(),
                _ => None,
            };
            if let Some(file) = file.filter(|f| !matches!(*f, "stdout" | "stderr" | ""))
                && !files.iter().any(|known| known == file)
            {
                files.push(file.to_owned());
            }
        }
    }
    files
}

/// The traced Node processes that failed, then the untraced ones (such as the runner `node
/// --test` runs its files from, which fails when one of them does).
fn failed_processes(session: &Session) -> Vec<String> {
    let mut failed: Vec<&crate::trace::session::Process> = session
        .processes
        .iter()
        .filter(|p| (p.role == "child" || p.role == "untraced") && p.failed())
        .collect();
    // Stable: each group in the order the processes reported.
    failed.sort_by_key(|p| p.role != "child");
    failed.iter().map(|p| p.describe(&session.cwd)).collect()
}

/// The run's workspace (its working directory for a session written before the option was kept).
fn workspace_of(session: &Session) -> &Path {
    Path::new(
        session
            .options
            .as_ref()
            .map_or(session.cwd.as_str(), |o| o.workspace.as_str()),
    )
}

/// The first frame of the user's own code below the failure's site in the last stack text on
/// stderr that passes through that site (file and line); `None` when stderr has no such stack.
/// The stack frames printed right under the last line of `tail` that starts with `message`
/// (or `[message]`, as Node prints an error whose stack is its message alone): the `at` lines that
/// follow it, up to the first that is not one; empty when none follow or the message is not there.
fn own_printed_frames<'a>(tail: &'a str, message: &str) -> &'a str {
    if message.is_empty() {
        return "";
    }
    let bracketed = format!("[{message}]");
    let mut found = None;
    let mut offset = 0;
    for line in tail.split_inclusive('\n') {
        let start = line.trim_start();
        if start.starts_with(message) || start.starts_with(&bracketed) {
            found = Some(offset + line.len());
        }
        offset += line.len();
    }
    let Some(from) = found else {
        return "";
    };
    let rest = &tail[from..];
    let mut end = 0;
    for line in rest.split_inclusive('\n') {
        if !line.trim_start().starts_with("at ") {
            break;
        }
        end += line.len();
    }
    &rest[..end]
}

fn user_frame_on_stderr(
    failure: &Failure,
    stderr_tail: &str,
    workspace: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Option<Frame> {
    let (file, line) = (failure.file.as_deref()?, failure.line?);
    let frames = mapper::mapped_stack_text_frames(stderr_tail, workspace);
    let site = frames
        .iter()
        .rposition(|f| f.file == file && f.line == line)?;
    frames[site..]
        .iter()
        .find(|f| is_own_code(&f.file))
        .cloned()
}

fn step(event: &Event, source_line: &dyn Fn(&Position) -> Option<String>) -> Step {
    Step {
        event_id: event.id,
        ts: event.ts,
        kind: event.kind,
        detail: event.detail.clone(),
        level: event.level.clone(),
        // As a terminal shows it: a runner's colours (uvu's `\x1b[33m20\x1b[39m`) are no part
        // of what the program said. The event keeps the bytes as they were printed.
        value: event.value.as_deref().map(|v| strip_ansi(v).into_owned()),
        file: event.file.clone(),
        line: event.line,
        column: event.column,
        source_line: event.position().as_ref().and_then(source_line),
        worker: event.worker.clone(),
        repeats: None,
        named: false,
        printed_later: event.printed_later,
    }
}

/// The lines of a stderr tail worth showing, message first: when it ends with stack text, the
/// error's message line(s) above the last run of `at …` frames, then the first `FRAMES_SHOWN`
/// frames (and how many more there were), then what followed them; otherwise its last lines.
/// Terminal escape sequences are removed.
pub fn tail_summary(tail: &str, max_lines: usize) -> Vec<String> {
    const FRAMES_SHOWN: usize = 3;
    const MESSAGE_LINES: usize = 4;
    let plain = strip_ansi(tail);
    let lines: Vec<&str> = plain.trim_end().lines().collect();
    // The JavaScript stack Node prints as it aborts numbers its frames (`1: f (file:1:2)`).
    let abort_stack = lines
        .iter()
        .rposition(|l| l.trim() == fatal::JS_STACK_BANNER);
    let is_js_frame_at = |i: usize| {
        let line = lines[i];
        (line.trim_start().starts_with("at ") && line.starts_with(char::is_whitespace))
            || abort_stack.is_some_and(|banner| i > banner && fatal::is_numbered_frame(line))
    };
    let is_frame_at = |i: usize| is_js_frame_at(i) || fatal::is_native_frame(lines[i]);
    let last_lines = |lines: &[&str]| -> Vec<String> {
        lines[lines.len().saturating_sub(max_lines)..]
            .iter()
            .map(|l| (*l).to_owned())
            .collect()
    };
    let Some(run_end) = (0..lines.len()).rposition(is_frame_at) else {
        return last_lines(&lines);
    };
    let run_start = (0..run_end)
        .rposition(|i| !is_frame_at(i))
        .map_or(0, |i| i + 1);
    // The message: the lines right above the frames, up to a blank line. Above a native stack
    // (a fatal error's), after the banners between them (`----- Native stack trace -----`, V8's
    // `#` lines); above an aborting process's JavaScript stack, its banner.
    let message = match abort_stack.filter(|&banner| run_start > banner) {
        Some(banner) => &lines[banner..=banner],
        None => {
            let message_end = if is_js_frame_at(run_end) {
                run_start
            } else {
                let banner = |l: &str| {
                    let l = l.trim();
                    l.is_empty()
                        || l.starts_with("-----")
                        || l == "#"
                        || l.starts_with("#FailureMessage")
                };
                lines[..run_start]
                    .iter()
                    .rposition(|l| !banner(l))
                    .map_or(0, |i| i + 1)
            };
            let message_start = lines[..message_end]
                .iter()
                .rposition(|l| l.trim().is_empty() || l.trim() == "#")
                .map_or(0, |i| i + 1)
                .max(message_end.saturating_sub(MESSAGE_LINES));
            &lines[message_start..message_end]
        }
    };
    if message.is_empty() {
        return last_lines(&lines);
    }
    let frames = &lines[run_start..=run_end];
    let mut out: Vec<String> = message.iter().map(|l| (*l).to_owned()).collect();
    if is_js_frame_at(run_end) {
        out.extend(frames.iter().take(FRAMES_SHOWN).map(|l| (*l).to_owned()));
        if frames.len() > FRAMES_SHOWN {
            out.push(format!(
                "    … {} more frame{}",
                frames.len() - FRAMES_SHOWN,
                if frames.len() - FRAMES_SHOWN == 1 {
                    ""
                } else {
                    "s"
                }
            ));
        }
    } else {
        // Addresses in Node's own binary: nothing of the program's.
        out.push(format!(
            "    … {} frame{} of Node's native stack",
            frames.len(),
            if frames.len() == 1 { "" } else { "s" }
        ));
    }
    let after: Vec<&str> = lines[run_end + 1..]
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let room = max_lines.saturating_sub(out.len()).max(1);
    out.extend(
        after[after.len().saturating_sub(room)..]
            .iter()
            .map(|l| (*l).to_owned()),
    );
    out
}

/// The text of line `position.line` (1-based) of `position.file`, trimmed and capped.
pub fn source_line(position: &Position) -> Option<String> {
    let bytes = crate::files::read_capped(Path::new(&position.file), MAX_SOURCE_BYTES).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let line = text.lines().nth(position.line.checked_sub(1)? as usize)?;
    Some(cap(line.trim_end().to_owned(), SOURCE_LINE_LIMIT).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(id: u64, file: &str) -> Step {
        Step {
            event_id: id,
            ts: id as f64,
            kind: Kind::Console,
            detail: "console.log".into(),
            level: Some("log".into()),
            value: Some(format!("{id}")),
            file: Some(file.into()),
            line: Some(1),
            column: Some(1),
            source_line: None,
            worker: None,
            repeats: None,
            named: false,
            printed_later: false,
        }
    }

    /// The evidence of a recorded session (`tests/fixtures/sessions/NAME`, its paths moved to
    /// `/work/PROJECT`), built in a folder that stands for the project, where each of `files` is
    /// on disk (40 lines: a site the report prints is checked against its file).
    fn recorded_with(name: &str, project: &str, files: &[&str]) -> Evidence {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sessions")
            .join(name);
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(project);
        for file in files {
            let file = root.join(file);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, format!("{}\n", "/".repeat(60)).repeat(40)).unwrap();
        }
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace(&format!("/work/{project}"), &root.display().to_string());
        let session: Session = serde_json::from_str(&text).unwrap();
        let own = |f: &str| Path::new(f).starts_with(&root) && !f.contains("node_modules");
        build(&session, &own, &crate::trace::redact::Redactor::none()).unwrap()
    }

    fn recorded(name: &str, project: &str) -> Evidence {
        recorded_with(name, project, &[])
    }

    /// A recorded `tracer run -- npm test` of cucumber-js 10 `--parallel 2`: scenarios `adding
    /// pears` (throws in its `When` step, after logging `adding 3 pears`) and `pricing figs` (its
    /// `Then` step logs `total 3`, then fails).
    fn cucumber_parallel(name: &str) -> Evidence {
        recorded(name, "cucumber")
    }

    #[test]
    fn a_test_s_console_lines_its_runner_printed_count_when_the_failure_is_in_another_file() {
        // jest 29 + ts-jest and vitest 4, recorded: `test/cart.test.ts` calls `total` (src/cart.ts),
        // which calls `discountFor` (src/pricing.ts), which logs `looking up discount TWENTY` and
        // throws. The runner prints the line under the test's file; the failure's site is
        // src/pricing.ts, and the line was once left out as another file's (the chain took
        // vitest's script events, jest's none).
        for (name, project) in [
            ("jest_site_in_src.json", "jest"),
            ("vitest_site_in_src.json", "vitest"),
        ] {
            let files = ["src/pricing.ts", "src/cart.ts", "test/cart.test.ts"];
            let evidence = recorded_with(name, project, &files);
            let site = evidence.failure.tests[0].file.as_deref().unwrap_or("");
            assert!(site.ends_with("src/pricing.ts"), "{name}: {site}");
            let cause = cause_of(&evidence);
            assert_eq!(cause, Some("looking up discount TWENTY"), "{name}");
            let lead = evidence.failure.tests[0].chain.first();
            assert_eq!(
                lead.and_then(|s| s.value.as_deref()),
                Some("looking up discount TWENTY"),
                "{name}"
            );
        }
    }

    #[test]
    fn a_process_s_calls_stay_in_the_order_it_made_them_whatever_their_times() {
        // The README's example once listed `parsing order apples` before `accepted apples 3`: a
        // batch's times do not always keep the order of its calls, which arrive in that order.
        let mut events: Vec<Event> = [1.0, 3.0, 2.0, 4.0]
            .into_iter()
            .enumerate()
            .map(|(i, ts)| {
                let mut e = Event::new(Kind::Console, ts, "console.log");
                e.id = i as u64 + 1;
                e.value = Some(format!("call {}", i + 1));
                e
            })
            .collect();
        let mut failure = Event::new(Kind::Exception, 5.0, "Uncaught");
        failure.id = 5;
        events.push(failure.clone());
        let steps = all_steps_before(&events, &failure);
        let values: Vec<&str> = steps.iter().filter_map(|s| s.value.as_deref()).collect();
        assert_eq!(values, ["call 4", "call 3", "call 2", "call 1"]);
    }

    /// Every process's steps before `before`, no window, test or process asked for.
    fn all_steps_before(events: &[Event], before: &Event) -> Vec<Step> {
        steps_of(
            events,
            0,
            before,
            (None, None, None),
            (&[], &Others::default()),
            &|_| None,
        )
    }

    /// A step's value is what the program said, without the colours a runner turned on (uvu's
    /// `applying discount to \x1b[33m20\x1b[39m`), where the event keeps the bytes printed; two
    /// such calls are still one step repeated.
    #[test]
    fn a_step_s_value_has_no_colours() {
        let events: Vec<Event> = (1..=2)
            .map(|id| {
                let mut e = Event::new(Kind::Console, id as f64, "console.log");
                e.id = id;
                e.value = Some("applying discount to \x1b[33m20\x1b[39m".into());
                e
            })
            .collect();
        let mut report = Event::new(Kind::Output, 9.0, "stdout");
        report.id = 9;
        let steps = all_steps_before(&events, &report);
        assert_eq!(steps.len(), 1, "{steps:#?}");
        assert_eq!(steps[0].value.as_deref(), Some("applying discount to 20"));
        assert_eq!(steps[0].repeats, Some(2));
    }

    /// A `jasmine --parallel` worker loads two spec files, then runs their specs: a failed spec
    /// that printed nothing has none of the other failed spec's file's steps (it once had its
    /// line), and a step made elsewhere (the library both call) stays.
    #[test]
    fn a_step_made_in_another_failed_test_s_file_is_that_test_s() {
        let made_in = [
            "/w/spec/cart.spec.js",
            "/w/lib/shared.js",
            "/w/spec/cart.spec.js",
        ];
        let mut events: Vec<Event> = made_in
            .into_iter()
            .enumerate()
            .map(|(i, file)| {
                let mut e = Event::new(Kind::Console, i as f64, "console.log");
                e.id = i as u64 + 1;
                e.value = Some(format!("call {}", i + 1));
                e.worker = Some("child 2".into());
                e.file = Some(file.into());
                e
            })
            .collect();
        let mut report = Event::new(Kind::Output, 9.0, "stdout");
        report.id = 9;
        events.push(report.clone());
        let tests: Vec<FailedTest> = ["cart fails", "fetch fails"]
            .into_iter()
            .map(|name| FailedTest {
                name: name.into(),
                message: String::new(),
                file: None,
                line: None,
                column: None,
                process: Some("child 2".into()),
                chain: Vec::new(),
            })
            .collect();
        let files = [
            Some("/w/spec/cart.spec.js".to_owned()),
            Some("/w/spec/fetch.spec.js".to_owned()),
        ];
        let values = |test: &str| -> Vec<String> {
            steps_of(
                &events,
                0,
                &report,
                (Some("child 2"), None, Some(test)),
                (&[], &Others::of(&tests, &files, test)),
                &|_| None,
            )
            .into_iter()
            .filter_map(|s| s.value)
            .collect()
        };
        assert_eq!(values("fetch fails"), ["call 2"]);
        assert_eq!(values("cart fails"), ["call 3", "call 2", "call 1"]);
    }

    /// ava runs each test file in a worker thread of one process: a test run by one thread
    /// (`child 1 worker 1`) has that thread's calls as its steps (it had none: a thread is no
    /// process), and a test of that process whose thread is not known has none of a thread that
    /// ran another failed test's file (it once had the other test's lines).
    #[test]
    fn a_test_run_in_a_worker_thread_has_that_thread_s_calls() {
        let mut events: Vec<Event> = ["child 1 worker 1", "child 1", "child 1 worker 1"]
            .into_iter()
            .enumerate()
            .map(|(i, worker)| {
                let mut e = Event::new(Kind::Console, i as f64, "console.log");
                e.id = i as u64 + 1;
                e.value = Some(format!("call {}", i + 1));
                e.worker = Some(worker.into());
                e
            })
            .collect();
        let mut report = Event::new(Kind::Output, 9.0, "stdout");
        report.id = 9;
        events.push(report.clone());
        let values = |process: &str, others: &[&str]| -> Vec<String> {
            steps_of(
                &events,
                0,
                &report,
                (Some(process), None, None),
                (
                    &[],
                    &Others {
                        threads: others.iter().map(|t| (*t).to_owned()).collect(),
                        files: Vec::new(),
                    },
                ),
                &|_| None,
            )
            .into_iter()
            .filter_map(|s| s.value)
            .collect()
        };
        assert_eq!(values("child 1 worker 1", &[]), ["call 3", "call 1"]);
        assert_eq!(values("child 1", &["child 1 worker 1"]), ["call 2"]);
        assert_eq!(values("child 1", &[]), ["call 3", "call 2", "call 1"]);
        // Two threads made calls, and another failed test's file is known but not the thread
        // that ran it: a thread's calls may be that test's.
        let mut other = Event::new(Kind::Console, 4.0, "console.log");
        other.id = 4;
        other.value = Some("call 4".into());
        other.worker = Some("child 1 worker 2".into());
        events.insert(3, other);
        let unknown = steps_of(
            &events,
            0,
            &report,
            (Some("child 1"), None, None),
            (
                &[],
                &Others {
                    threads: Vec::new(),
                    files: vec!["two.test.js".into()],
                },
            ),
            &|_| None,
        );
        let unknown: Vec<_> = unknown.into_iter().filter_map(|s| s.value).collect();
        assert_eq!(unknown, ["call 2"]);
    }

    /// Two failed tests, neither with a chain, the failure's naming no cause, its note saying
    /// `why`: the values of the steps it lists instead.
    fn no_cause_named<'a>(evidence: &'a Evidence, why: &str) -> Vec<&'a str> {
        assert_eq!(evidence.failure.tests.len(), 2, "{evidence:#?}");
        assert!(evidence.immediate_cause.is_none(), "{evidence:#?}");
        let note = evidence.chain_note.as_deref().unwrap_or_default();
        assert!(note.contains(why), "{note}");
        for test in &evidence.failure.tests {
            assert!(test.chain.is_empty(), "{test:#?}");
        }
        evidence
            .previous_state_transitions
            .iter()
            .filter_map(|s| s.value.as_deref())
            .collect()
    }

    /// The value of the evidence's immediate cause.
    fn cause_of(evidence: &Evidence) -> Option<&str> {
        evidence
            .immediate_cause
            .as_ref()
            .and_then(|c| c.value.as_deref())
    }

    /// The values of a failed test's chain, its cause first.
    fn chain_values(test: &FailedTest) -> Vec<&str> {
        test.chain
            .iter()
            .filter_map(|s| s.value.as_deref())
            .collect()
    }

    #[test]
    fn jest_s_console_section_names_no_test_s_cause() {
        // jest 30 with `--coverage`, recorded: `__tests__/schedule.test.js` has two failed tests
        // and a passing one after them, whose `parsed slot { hours: 18, minutes: 5 }` was once
        // both failed tests' immediate cause. jest printed the file's calls in its `● Console`
        // section, after the file's tests ran.
        let evidence = recorded_with(
            "jest_console_section.json",
            "jestcov",
            &["src/schedule.js", "__tests__/schedule.test.js"],
        );
        let listed = no_cause_named(&evidence, "● Console");
        assert!(
            listed.contains(&"counting days 2024-03-01 2024-03-07"),
            "{listed:?}"
        );
    }

    #[test]
    fn two_tests_reported_after_they_ran_in_one_process_name_no_cause() {
        // `node --test` (in an npm workspace), recorded: its TAP reports `gross of a reduced line`
        // and `tax at a zero rate` after the file's process ran all four tests; the second's
        // `tax for 50 at zero` was once the first's immediate cause.
        let evidence = recorded_with(
            "node_test_shared.json",
            "workspaces",
            &[
                "packages/beta/src/invoice.js",
                "packages/beta/test/invoice.test.js",
            ],
        );
        let listed = no_cause_named(&evidence, "`tax at a zero rate`");
        assert!(listed.contains(&"tax for 100 at reduced"), "{listed:?}");
    }

    #[test]
    fn vitest_s_lines_are_the_chain_of_the_test_it_printed_them_in() {
        // vitest 4 with `--coverage`, recorded: each block's heading names its test; a passing
        // test's `entry credit 3`, printed last, was once both failed tests' immediate cause.
        let evidence = recorded_with(
            "vitest_named_blocks.json",
            "vitestcov",
            &["src/ledger.js", "test/ledger.test.js"],
        );
        let tests = &evidence.failure.tests;
        assert_eq!(tests.len(), 2, "{evidence:#?}");
        assert_eq!(chain_values(&tests[0]), ["entry credit 10\nentry debit 4"]);
        assert_eq!(chain_values(&tests[1]), ["parsing amount \"ten\""]);
        assert_eq!(cause_of(&evidence), Some("entry credit 10\nentry debit 4"));
    }

    #[test]
    fn a_console_call_that_reached_tracer_after_the_report_is_placed_by_its_time() {
        // node-tap 21, recorded: `restocks every item by the amount` logged `restocking pear from
        // 2` last, but its process's batch of console calls reached tracer after tap's report of
        // the test; the chain once left it out (and gave it to the next test).
        let evidence = recorded_with(
            "tap_late_batch.json",
            "tap",
            &["lib/inventory.js", "test/inventory.test.js"],
        );
        let tests = &evidence.failure.tests;
        assert!(tests[0].name.contains("restocks every item"), "{tests:#?}");
        assert_eq!(
            chain_values(&tests[0])[..2],
            ["restocking pear from 2", "restocking apple from 3"]
        );
        assert_eq!(cause_of(&evidence), Some("restocking pear from 2"));
    }

    #[test]
    fn node_tap_s_echoed_lines_place_each_test_s_calls() {
        // node-tap 21, recorded: `test/b.test.js` runs `passes first` (logs `zero`), `first
        // fails` (logs `first says hi` and `two\nlines`), `second throws` (logs `second says hi`);
        // `test/c.test.js` runs `c fails` (logs `c says hi`), then `c passes` (logs `c later`).
        // The two failed tests of one file were once "reported together" (no event of their
        // process between the reports): neither had a chain, and without the second's log the
        // first lost its own line. tap echoes each test's lines before its block.
        let evidence = recorded_with(
            "tap_echoed_lines.json",
            "tapecho",
            &["test/b.test.js", "test/c.test.js"],
        );
        let tests = &evidence.failure.tests;
        assert_eq!(tests.len(), 3, "{tests:#?}");
        assert_eq!(chain_values(&tests[0]), ["two\nlines", "first says hi"]);
        assert_eq!(chain_values(&tests[1]), ["second says hi"]);
        assert_eq!(chain_values(&tests[2]), ["c says hi"]);
        assert_eq!(cause_of(&evidence), Some("two\nlines"));
        assert_eq!(evidence.chain_note, None);
    }

    #[test]
    fn a_failed_test_its_runner_printed_no_site_for_is_still_why_the_run_failed() {
        // ava 6 with worker threads, recorded: its `--import=tsx` never reached them, so the test
        // file did not load; ava printed `Uncaught exception in test/cart.test.ts` and the error,
        // with no frame of the user's. The failure was once "exited with code 1" alone.
        let evidence = recorded("ava_uncaught.json", "ava");
        let message = &evidence.failure.message;
        assert!(
            message.starts_with("exited with code 1: test `Uncaught exception in test/cart.test.ts` failed: TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension \".ts\" for "),
            "{message}"
        );
        assert_eq!(evidence.failure.line, None);
        assert_eq!(evidence.confidence, Confidence::Low);
    }

    #[test]
    fn a_test_its_report_does_not_place_among_several_processes_has_no_cause_named() {
        // Both workers ran scenarios, each loads every step file, and the coordinator's report and
        // marks say neither which ran `adding pears` (child 3) nor when: its closest console call
        // (`total 3`, child 2's `pricing figs`) was once named its immediate cause.
        let evidence = cucumber_parallel("cucumber_parallel.json");
        let names: Vec<&str> = evidence
            .failure
            .tests
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["adding pears", "pricing figs"]);
        assert_eq!(evidence.immediate_cause, None);
        let note = evidence.chain_note.as_deref().unwrap_or("");
        assert!(note.contains("2 processes (child 2, child 3)"), "{note}");
        let listed: Vec<&str> = evidence
            .previous_state_transitions
            .iter()
            .filter_map(|s| s.value.as_deref())
            .collect();
        assert!(listed.contains(&"adding 3 pears"), "{listed:?}");
        assert!(evidence.failure.tests.iter().all(|t| t.chain.is_empty()));
    }

    #[test]
    fn a_test_run_by_the_one_worker_that_printed_is_placed_by_the_coordinator_s_marks() {
        // One worker ran every scenario: its console calls fall among the coordinator's step marks
        // on stdout, which place each scenario (the closest call, `total 3`, once led both).
        let evidence = cucumber_parallel("cucumber_parallel_one_worker.json");
        let cause = cause_of(&evidence);
        assert_eq!(cause, Some("adding 3 pears"));
        let leads: Vec<Option<&str>> = evidence
            .failure
            .tests
            .iter()
            .map(|t| t.chain.first().and_then(|s| s.value.as_deref()))
            .collect();
        assert_eq!(leads, [Some("adding 3 pears"), Some("total 3")]);
    }

    #[test]
    fn the_chain_prefers_the_program_s_own_code_and_keeps_the_order_of_time() {
        let own = |s: &Step| !s.file.as_deref().unwrap_or("").contains("node_modules");
        let reporter = "/w/node_modules/mocha/lib/reporters/base.js";
        // Closest first: the reporter printed the failure after the program's last line.
        let mut steps = vec![at(20, reporter), at(19, reporter), at(18, "/w/lib/cart.js")];
        steps.extend((0..12).map(|i| {
            at(
                17 - i,
                if i % 2 == 0 {
                    "/w/lib/cart.js"
                } else {
                    reporter
                },
            )
        }));
        let (cause, earlier, note) = chain(steps, &own);
        assert_eq!(cause.unwrap().event_id, 18);
        let ids: Vec<u64> = earlier.iter().map(|s| s.event_id).collect();
        // The program's six and the four closest of the reporter's, closest first.
        assert_eq!(ids, [17, 16, 15, 14, 13, 12, 11, 10, 9, 7]);
        let note = note.unwrap();
        assert!(
            note.starts_with("2 later steps of a runner or a library"),
            "{note}"
        );
        assert!(
            note.contains("2 earlier steps of a runner or a library left out"),
            "{note}"
        );
    }

    /// mocha prints its listing through its console: the test's console calls and the listing come
    /// on one channel, the program's output on another. Whichever arrives first, the window is the
    /// console's (it once ended at the output's listing line, and the test's console calls were
    /// before it or after the report).
    #[test]
    fn a_test_s_window_is_its_console_listing_s_when_the_output_comes_later() {
        let console = |id, value| event(id, Kind::Console, value);
        let output = |id, value| event(id, Kind::Output, value);
        let events = [
            console(1, "  1) takes ten percent off with TEN"),
            console(2, "  stock"),
            console(3, "stock after the order {\"apples\":1}"),
            console(4, "    2) an urgent order takes its items once"),
            output(5, "  1) takes ten percent off with TEN"),
            output(6, "  stock"),
            output(7, "stock after the order {\"apples\":1}"),
            output(8, "    2) an urgent order takes its items once"),
            output(9, "  2) stock"),
        ];
        let name = "stock › an urgent order takes its items once";
        let (after, before) = test_window(&events, &events[8], name, None).unwrap();
        assert_eq!((after, before.id), (1, 4));
        // The console's batch after the report's line, the report printed through the console
        // as well (its ts is no guide: a batch's calls are timed by their age in it).
        let printed_report = console(
            10,
            "  2) stock\n       an urgent order takes its items once:",
        );
        let late: Vec<Event> = events[4..]
            .iter()
            .chain(&events[..4])
            .chain([&printed_report])
            .enumerate()
            .map(|(i, e)| Event {
                id: i as u64 + 1,
                ..e.clone()
            })
            .collect();
        let report = late.iter().find(|e| e.ts == 9.0).unwrap();
        let (after, before) = test_window(&late, report, name, None).unwrap();
        assert_eq!(
            (after, before.value.as_deref()),
            (6, Some("    2) an urgent order takes its items once"))
        );
    }

    /// An event of `kind` numbered `id` (and timed by it) with `value`.
    fn event(id: u64, kind: Kind, value: &str) -> Event {
        let mut e = Event::new(kind, id as f64, "x");
        e.id = id;
        e.value = Some(value.to_owned());
        e
    }

    /// Node prints its own warnings through `console.error`, with no call site of the program's:
    /// they are no steps of a chain (jest's ESM `ExperimentalWarning` was one, with a blank site).
    #[test]
    fn node_s_own_warnings_are_no_steps_of_a_chain() {
        let mut call = event(1, Kind::Console, "parsing row 2");
        call.file = Some("/w/lib/rows.js".into());
        let experimental = event(
            2,
            Kind::Console,
            "(node:4242) ExperimentalWarning: VM Modules is an experimental feature and might change at any time",
        );
        let deprecated = event(
            3,
            Kind::Console,
            "(node:4242) [DEP0040] DeprecationWarning: The `punycode` module is deprecated.",
        );
        let own = event(4, Kind::Console, "(node:4242) Warning: cache is cold");
        // `--unhandled-rejections=warn-with-error-code`'s report of a rejection.
        let rejection = event(
            5,
            Kind::Console,
            "(node:4242) UnhandledPromiseRejectionWarning: Error: user 7 not found",
        );
        let failure = event(6, Kind::Exception, "Error: boom");
        let events = [
            call,
            experimental,
            deprecated,
            own,
            rejection,
            failure.clone(),
        ];
        let steps = all_steps_before(&events, &failure);
        let ids: Vec<u64> = steps.iter().map(|s| s.event_id).collect();
        assert_eq!(ids, [4, 1]);
    }

    /// tape prints its TAP through the console: a test's window is from its `# name` line to the
    /// first `not ok` after it there, whenever the output's copy of the report arrived (once the
    /// whole window before the report's output line, with the next test's console call in it).
    #[test]
    fn a_test_s_window_is_between_its_tap_lines_when_tape_prints_them_through_the_console() {
        let console = |id, value| event(id, Kind::Console, value);
        let events = [
            console(1, "# discounts 100 by ten percent"),
            console(2, "PRICE-LOG discounting 100"),
            console(3, "not ok 2 should be strictly equal"),
            console(4, "# reserves two of five"),
            console(5, "STOCK-LOG reserving 5"),
            console(6, "not ok 4 should be strictly equal"),
            event(7, Kind::Output, "not ok 2 should be strictly equal"),
            event(8, Kind::Output, "not ok 4 should be strictly equal"),
        ];
        let (after, before) =
            test_window(&events, &events[6], "discounts 100 by ten percent", None).unwrap();
        assert_eq!((after, before.id), (1, 3));
        let (after, before) =
            test_window(&events, &events[7], "reserves two of five", None).unwrap();
        assert_eq!((after, before.id), (4, 6));
    }

    #[test]
    fn without_any_of_the_program_s_own_code_the_chain_is_the_closest_steps() {
        let own = |_: &Step| false;
        let steps: Vec<Step> = (0..15)
            .map(|i| at(15 - i, "/w/node_modules/x.js"))
            .collect();
        let (cause, earlier, note) = chain(steps, &own);
        assert_eq!(cause.unwrap().event_id, 15);
        assert_eq!(earlier.len(), EVIDENCE_CONTEXT);
        assert_eq!(earlier[0].event_id, 14);
        assert_eq!(note, None);
    }

    #[test]
    fn a_tail_ending_in_stack_text_shows_its_message_first() {
        let tail = "noise\n\n\x1b[31mError: config missing \"port\"\x1b[39m\n    at load (/w/a.js:4:9)\n    at a (/w/a.js:5:3)\n    at b (/w/a.js:6:3)\n    at c (/w/a.js:7:3)\n    at d (/w/a.js:8:3)\n\nNode.js v20.20.2\n";
        assert_eq!(
            tail_summary(tail, 8),
            [
                "Error: config missing \"port\"",
                "    at load (/w/a.js:4:9)",
                "    at a (/w/a.js:5:3)",
                "    at b (/w/a.js:6:3)",
                "    … 2 more frames",
                "Node.js v20.20.2",
            ]
        );
    }

    #[test]
    fn a_fatal_error_s_tail_shows_its_reason_not_its_native_frames() {
        let tail = "\n<--- Last few GCs --->\n\n[7:0x22]   121 ms: Mark-Compact 31.5 (48.2) -> 31.5 (64.2) MB\n\n<--- JS stacktrace --->\n\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n----- Native stack trace -----\n\n 1: 0xb78db3 node::OOMErrorHandler() [node]\n 2: 0xee8300 v8::Utils::ReportOOMFailure() [node]\n 3: 0x195e476  [node]\n";
        assert_eq!(
            tail_summary(tail, 8),
            [
                "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
                "    … 3 frames of Node's native stack",
            ]
        );
        let v8 = "#\n# Fatal error in , line 0\n# Check failed: x.\n#\n#\n#\n#FailureMessage Object: 0x7ffd\n----- Native stack trace -----\n\n 1: 0xb78db3 node::DumpBacktrace() [node]\n";
        let abort = "----- Native stack trace -----\n\n 1: 0xd3a3c0  [node]\n\n----- JavaScript stack trace -----\n\n1: stop (/w/stop.js:3:11)\n2: /w/stop.js:5:1\n3: Module._compile (node:internal/modules/cjs/loader:1521:14)\n4: Module.load (node:internal/modules/cjs/loader:1266:32)\n\n\n";
        assert_eq!(
            tail_summary(abort, 8),
            [
                "----- JavaScript stack trace -----",
                "1: stop (/w/stop.js:3:11)",
                "2: /w/stop.js:5:1",
                "3: Module._compile (node:internal/modules/cjs/loader:1521:14)",
                "    … 1 more frame",
            ]
        );
        assert_eq!(
            tail_summary(v8, 8),
            [
                "# Fatal error in , line 0",
                "# Check failed: x.",
                "    … 1 frame of Node's native stack",
            ]
        );
    }

    #[test]
    fn a_tail_without_frames_is_its_last_lines() {
        let tail = "a\nb\nc\n\x1b[1md\x1b[0m\n";
        assert_eq!(tail_summary(tail, 2), ["c", "d"]);
    }
}
