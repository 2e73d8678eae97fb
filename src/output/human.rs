//! Human output on stderr: the end-of-run summary and the evidence chain.

use std::io::Write;
use std::path::Path;

use crate::output::code_frame;
pub use crate::output::style::{ColorWhen, Styles, display_path};
use crate::trace::event::Kind;
use crate::trace::evidence::{Evidence, Step};
use crate::trace::session::{Session, Status};
use crate::trace::values::strip_ansi;

/// The most failed processes the summary lists (a runner that forks without end under
/// `--timeout` can leave hundreds; the evidence keeps them all).
const SUMMARY_PROCESSES: usize = 8;
/// The most failed tests the summary lists one line each (the evidence keeps them all).
const SUMMARY_TESTS: usize = 30;

/// Prints the end-of-run summary, and the evidence chain when the run failed, on stderr.
pub fn summary(styles: &Styles, session: &Session, evidence: Option<&Evidence>, dir: &Path) {
    let mut err = std::io::stderr().lock();
    let _ = write_summary(&mut err, styles, session, evidence, dir);
}

fn write_summary(
    out: &mut impl Write,
    s: &Styles,
    session: &Session,
    evidence: Option<&Evidence>,
    dir: &Path,
) -> std::io::Result<()> {
    let (word, style) = match session.status {
        Status::Exited => ("ok", s.success),
        Status::Failed => ("failed", s.error),
        Status::Stopped => ("stopped", s.warning),
        Status::Timeout => ("timed out", s.warning),
        Status::Error => ("could not trace", s.error),
        Status::Running => ("running", s.warning),
    };
    let ending = match (session.exit_code, &session.signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by {signal}"),
        (None, None) => "no exit code".to_owned(),
    };
    writeln!(out)?;
    writeln!(
        out,
        "{} {} · {} · {} events · {} exception{}{} · {} dropped",
        s.heading.style("tracer:"),
        style.style(word),
        ending,
        session.event_count,
        session.exception_count,
        if session.exception_count == 1 {
            ""
        } else {
            "s"
        },
        // A worker's or a child's error the program handled or outlived.
        if session.exception_count > 0 && !session.failed() {
            " (not fatal: the program's own exit is the verdict)"
        } else {
            ""
        },
        session.dropped_events
    )?;
    writeln!(out, "  {} {}", s.dim.style("session"), dir.display())?;
    // A process whose own `--inspect` flag kept tracer out (the bootloader's note says so): the
    // user's to fix, and invisible in a run that passes.
    for process in session
        .processes
        .iter()
        .filter(|p| p.role == "untraced")
        .filter(|p| {
            p.note
                .as_deref()
                .is_some_and(|n| n.starts_with("not traced: its own "))
        })
    {
        writeln!(
            out,
            "  {} process {} ({}) was {}",
            s.warning.style("warning:"),
            process.pid,
            std::iter::once("node")
                .chain(process.exec_argv.iter().map(String::as_str))
                .chain(process.argv.iter().skip(1).map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            process.note.as_deref().unwrap_or_default()
        )?;
    }
    // The program closed its inspector: the trace stops there, in a run that passes too.
    for process in session.processes.iter().filter(|p| {
        p.note
            .as_deref()
            .is_some_and(|n| n.starts_with(crate::trace::session::INSPECTOR_CLOSED))
    }) {
        writeln!(
            out,
            "  {} process {}: {}",
            s.warning.style("warning:"),
            process.pid,
            process.note.as_deref().unwrap_or_default()
        )?;
    }
    let Some(evidence) = evidence else {
        return Ok(());
    };
    let failure = &evidence.failure;
    writeln!(out)?;
    writeln!(out, "{} {}", s.error.style("failure"), failure.message)?;
    if let (Some(file), Some(line), Some(column)) = (&failure.file, failure.line, failure.column) {
        code_frame(out, s, file, line, column, failure.source_line.as_deref())?;
    } else if let Some(file) = &failure.file {
        unmapped_frame(out, s, file)?;
    }
    if let Some(note) = failure
        .note
        .as_deref()
        .filter(|n| n.contains(crate::trace::mapper::STALE_BUILD))
    {
        writeln!(out, "  {} {note}", s.warning.style("warning:"))?;
    }
    if let Some(frame) = &failure.user_frame {
        labelled_position(out, s, "in your code:", &frame.position())?;
    }
    if let Some(at) = &failure.thrown_at {
        // The site is where the error was made; Node's own report points at the `throw`.
        labelled_position(out, s, "thrown at", at)?;
    }
    // The error's `cause` chain, nearest first, and the errors an `AggregateError` holds, each
    // where it was made.
    for cause in &failure.causes {
        labelled_error(out, s, "caused by", cause)?;
    }
    for held in &failure.errors {
        labelled_error(out, s, "holds", held)?;
    }
    for process in failure.failed_processes.iter().take(SUMMARY_PROCESSES) {
        writeln!(out, "  {} {process}", s.dim.style("process:"))?;
    }
    if let Some(more) = failure
        .failed_processes
        .len()
        .checked_sub(SUMMARY_PROCESSES)
        && more > 0
    {
        writeln!(
            out,
            "  {} {more} more failed processes: `tracer evidence latest | jq '.failure.failedProcesses'`",
            s.dim.style("…")
        )?;
    }
    // Every failed test, one line each, before the chain (which is the first one's).
    if failure.tests.len() > 1 {
        writeln!(
            out,
            "  {} {}",
            s.dim.style("failed tests:"),
            failure.tests.len()
        )?;
        for test in failure.tests.iter().take(SUMMARY_TESTS) {
            writeln!(out, "    {}", failed_test_line(s, test))?;
        }
        if let Some(more) = failure.tests.len().checked_sub(SUMMARY_TESTS)
            && more > 0
        {
            writeln!(
                out,
                "    {} {more} more: `tracer evidence latest | jq '.failure.tests[].name'`",
                s.dim.style("…")
            )?;
        }
    }
    // Every error the program printed with a position (a compiler's), one line each.
    if !failure.printed_errors.is_empty() {
        let dropped = match failure.printed_errors_dropped {
            0 => String::new(),
            n => format!(" ({n} more not listed)"),
        };
        writeln!(
            out,
            "  {} {}{dropped}",
            s.dim.style("errors printed:"),
            failure.printed_errors.len() + failure.printed_errors_dropped
        )?;
        for error in &failure.printed_errors {
            let site = match (error.line, error.column) {
                (Some(line), Some(column)) => {
                    format!("{}:{line}:{column}", display_path(&error.file))
                }
                _ => display_path(&error.file),
            };
            writeln!(
                out,
                "    {} {}  {}",
                s.error.style("✗"),
                error.message,
                s.location.style(site)
            )?;
        }
    }
    if let Some(tail) = failure
        .stderr_tail
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        // After several failed tests the tail is the end of the whole output (the last test's
        // lines, most often), not the first failure's: said so, so that it is not read as the
        // frames of the test named first.
        let heading = if failure.tests.len() > 1 {
            "stderr ended with (the end of the output, after every failed test above):"
        } else {
            "stderr ended with:"
        };
        writeln!(out, "  {}", s.dim.style(heading))?;
        for line in crate::trace::evidence::tail_summary(tail, 8) {
            writeln!(out, "    {line}")?;
        }
    }
    match &evidence.immediate_cause {
        Some(cause) => {
            writeln!(
                out,
                "{} {}",
                s.heading.style("immediate cause"),
                step_title(cause)
            )?;
            step_frame(out, s, cause)?;
        }
        // Events were captured, but none is known to be the failure's (the note says why).
        None if !evidence.previous_state_transitions.is_empty() => writeln!(
            out,
            "{} none named (see the note below)",
            s.heading.style("immediate cause")
        )?,
        None => writeln!(out, "{} none captured", s.heading.style("immediate cause"))?,
    }
    if !evidence.previous_state_transitions.is_empty() {
        writeln!(out, "{}", s.heading.style("earlier, closest first"))?;
        for step in evidence.previous_state_transitions.iter().take(5) {
            let place = match (&step.file, step.line) {
                (Some(file), Some(line)) => format!("{}:{line}", display_path(file)),
                (Some(file), None) => display_path(file),
                _ => String::new(),
            };
            writeln!(out, "  {}  {}", step_title(step), s.location.style(place))?;
        }
    }
    if let Some(note) = &evidence.chain_note {
        writeln!(out, "  {}", s.dim.style(note))?;
    }
    let confidence = serde_json::to_value(evidence.confidence).unwrap_or_default();
    writeln!(
        out,
        "{} {}",
        s.heading.style("confidence"),
        confidence.as_str().unwrap_or("")
    )?;
    if !evidence.confidence_basis.is_empty() {
        writeln!(out, "  {}", s.dim.style(&evidence.confidence_basis))?;
    }
    writeln!(out, "{}", s.dim.style(&evidence.caveat))?;
    Ok(())
}

/// `console.log "heartbeat" ×5`: the step's detail, worker, value (escape sequences removed, at
/// most 120 characters) and how many identical events it stands for.
fn step_title(step: &Step) -> String {
    let value = strip_ansi(step.value.as_deref().unwrap_or(""));
    let value: String = value.chars().take(120).collect();
    let repeats = step.repeats.map(|n| format!(" ×{n}")).unwrap_or_default();
    let worker = step
        .worker
        .as_deref()
        .map(|w| format!(" [{w}]"))
        .unwrap_or_default();
    if value.is_empty() {
        format!("{}{worker}{repeats}", step.detail)
    } else {
        format!("{}{worker} {value:?}{repeats}", step.detail)
    }
}

/// Where a step of the chain is: its code frame, its unmapped file, or a script's file.
fn step_frame(out: &mut impl Write, s: &Styles, step: &Step) -> std::io::Result<()> {
    if let (Some(file), Some(line), Some(column)) = (&step.file, step.line, step.column) {
        code_frame(out, s, file, line, column, step.source_line.as_deref())?;
    } else if let Some(file) = &step.file {
        // A script's event names its file and no position: nothing was left unmapped.
        if step.kind == Kind::Script {
            code_frame::file_heading(out, s, file)?;
        } else {
            unmapped_frame(out, s, file)?;
        }
    }
    Ok(())
}

/// `  label message  file:line:column`, an error named under the failure (its position where
/// one was read).
fn labelled_error(
    out: &mut impl Write,
    s: &Styles,
    label: &str,
    error: &crate::trace::evidence::Cause,
) -> std::io::Result<()> {
    let at = match (&error.file, error.line, error.column) {
        (Some(file), Some(line), Some(column)) => format!(
            "  {}",
            s.location
                .style(format!("{}:{line}:{column}", display_path(file)))
        ),
        _ => String::new(),
    };
    writeln!(out, "  {} {}{at}", s.dim.style(label), error.message)
}

/// `  label file:line:column`, a position named under the failure.
fn labelled_position(
    out: &mut impl Write,
    s: &Styles,
    label: &str,
    at: &crate::trace::event::Position,
) -> std::io::Result<()> {
    writeln!(
        out,
        "  {} {}",
        s.dim.style(label),
        s.location.style(format!(
            "{}:{}:{}",
            display_path(&at.file),
            at.line,
            at.column
        ))
    )
}

/// A file without a position: the runtime's position did not fit it (see the event's note).
fn unmapped_frame(out: &mut impl Write, s: &Styles, file: &str) -> std::io::Result<()> {
    writeln!(
        out,
        "  {} {} {}",
        s.dim.style("-->"),
        s.location.style(display_path(file)),
        s.dim.style(
            "(position unmapped: the code that ran was transformed and no source map was known)"
        )
    )
}

fn code_frame(
    out: &mut impl Write,
    s: &Styles,
    file: &str,
    line: u32,
    column: u32,
    source: Option<&str>,
) -> std::io::Result<()> {
    code_frame::heading(out, s, file, line, column)?;
    match source {
        Some(source) => code_frame::lines(out, s, line, &[source], (line, column), false),
        None => Ok(()),
    }
}

/// A failed test on one line: `✗ name: message  file:line (child 1)`.
pub fn failed_test_line(s: &Styles, test: &crate::trace::evidence::FailedTest) -> String {
    let site = match (&test.file, test.line) {
        (Some(file), Some(line)) => format!("  {}:{line}", display_path(file)),
        (Some(file), None) => format!("  {}", display_path(file)),
        _ => String::new(),
    };
    let process = test
        .process
        .as_deref()
        .map(|p| format!(" ({p})"))
        .unwrap_or_default();
    format!(
        "{} {}: {}{}{process}",
        s.error.style("✗"),
        test.name,
        test.message,
        s.location.style(site)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(kind: Kind, file: &str) -> Step {
        Step {
            event_id: 1,
            ts: 1.0,
            kind,
            detail: "script parsed".into(),
            level: None,
            value: None,
            file: Some(file.into()),
            line: None,
            column: None,
            source_line: None,
            worker: None,
            repeats: None,
            named: false,
            printed_later: false,
        }
    }

    fn frame_of(step: &Step) -> String {
        let mut out = Vec::new();
        step_frame(&mut out, &Styles::default(), step).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_script_step_names_its_file_and_no_unmapped_position() {
        // A script's event has no position to map: it was once shown as one left unmapped.
        let shown = frame_of(&at(Kind::Script, "/nonexistent/src/pricing.ts"));
        assert!(shown.contains("src/pricing.ts"), "{shown}");
        assert!(!shown.contains("unmapped"), "{shown}");
        let shown = frame_of(&at(Kind::Console, "/nonexistent/src/pricing.ts"));
        assert!(shown.contains("position unmapped"), "{shown}");
    }
}
