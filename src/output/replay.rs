//! The replay viewer (`tracer replay`): steps through a session's captured events on their
//! timeline, each with its time, kind and value and, when it has a position, the source line
//! with two lines of context either side, read from the file (the original `.ts` when a source map
//! resolved the position).
//!
//! This is a timeline of what was captured, nothing more: no time travel, no variable inspection,
//! no re-execution. On a terminal (stdin and stdout) it is interactive with plain keys read a line
//! at a time (`n`/Enter next, `p` previous, `f` the failure, a number to go to that event, `q`
//! quit); otherwise it prints the whole timeline. Everything goes to stdout: it is the command's
//! result.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;

use regex::Regex;

use crate::output::code_frame;
use crate::output::human::{Styles, display_path, failed_test_line};
use crate::trace::event::{Event, Kind, Position};
use crate::trace::evidence::Evidence;
use crate::trace::session::Session;
use crate::trace::values::cap;
use crate::trace::values::strip_ansi;

/// Lines of source shown before and after an event's line.
const CONTEXT_LINES: u32 = 2;
/// The longest source line shown.
const SOURCE_LINE_LIMIT: usize = 200;
/// The largest source file read to show its lines (a session names any path).
const MAX_SOURCE_BYTES: u64 = 64 * 1024 * 1024;
/// Lines of a multi-line value (a stack) shown.
const VALUE_LINES: usize = 12;

/// The events a replay shows, and what it knows about the failure.
pub struct Replay<'a> {
    session: &'a Session,
    evidence: Option<&'a Evidence>,
    shown: Vec<&'a Event>,
    filtered: bool,
    /// Digits of the largest event id, so the columns line up.
    id_width: usize,
    sources: std::cell::RefCell<HashMap<String, Option<Source>>>,
}

struct Source {
    lines: Vec<String>,
    changed_after_run: bool,
}

impl<'a> Replay<'a> {
    pub fn new(
        session: &'a Session,
        evidence: Option<&'a Evidence>,
        kinds: &[Kind],
        grep: Option<&Regex>,
    ) -> Self {
        let shown: Vec<&Event> = session
            .events
            .iter()
            .filter(|e| kinds.is_empty() || kinds.contains(&e.kind))
            .filter(|e| grep.is_none_or(|re| matches(re, e)))
            .collect();
        Replay {
            session,
            evidence,
            shown,
            filtered: !kinds.is_empty() || grep.is_some(),
            id_width: session.events.last().map_or(1, |e| e.id.to_string().len()),
            sources: Default::default(),
        }
    }

    /// The id of the failure's event, from the evidence chain.
    fn failure_id(&self) -> Option<u64> {
        self.evidence.map(|e| e.failure.event_id)
    }

    fn header(&self, s: &Styles, out: &mut impl Write) -> std::io::Result<()> {
        let session = self.session;
        let status = serde_json::to_value(session.status).unwrap_or_default();
        writeln!(
            out,
            "{} session {} ({}) · {}",
            s.heading.style("replay:"),
            session.id,
            status.as_str().unwrap_or(""),
            display_path(&session.target)
        )?;
        let mut counts = format!(
            "{} of {} captured events shown",
            self.shown.len(),
            session.events.len()
        );
        if session.dropped_events > 0 {
            counts.push_str(&format!(
                "; {} more were captured but not kept (--max-events)",
                session.dropped_events
            ));
        }
        writeln!(out, "  {counts}")?;
        let tree = session.process_tree();
        if !tree.is_empty() {
            writeln!(
                out,
                "  processes (events of each are tagged with its label):"
            )?;
            for line in tree {
                writeln!(out, "    {line}")?;
            }
        }
        // Every failed test, one line each, before the timeline (each is a `test` event in it).
        let tests = self.evidence.map_or(&[][..], |e| &e.failure.tests[..]);
        if !tests.is_empty() {
            writeln!(out, "  failed tests: {}", tests.len())?;
            for test in tests {
                writeln!(out, "    {}", failed_test_line(s, test))?;
            }
        }
        writeln!(
            out,
            "  {}",
            s.dim.style(
                "A timeline of the events captured during the run: no time travel, no variable inspection."
            )
        )?;
        Ok(())
    }

    /// Prints every shown event (not on a terminal).
    pub fn print_all(&self, s: &Styles, out: &mut impl Write) -> std::io::Result<()> {
        self.header(s, out)?;
        if self.shown.is_empty() {
            return self.nothing_shown(out);
        }
        for event in &self.shown {
            writeln!(out)?;
            self.render(s, event, out)?;
        }
        Ok(())
    }

    fn nothing_shown(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(
            out,
            "  no captured event {}",
            if self.filtered {
                "matches --kind/--grep"
            } else {
                "in this session"
            }
        )
    }

    /// The interactive stepper: reads one command per line from `input` until `q` or the end.
    pub fn step_through(
        &self,
        s: &Styles,
        input: &mut impl BufRead,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        self.header(s, out)?;
        if self.shown.is_empty() {
            return self.nothing_shown(out);
        }
        writeln!(out, "  {}", s.dim.style(KEYS))?;
        let last = self.shown.len() - 1;
        let mut at = 0usize;
        let mut show = true;
        loop {
            if show {
                writeln!(out)?;
                write!(
                    out,
                    "{} ",
                    s.dim.style(format!("[{}/{}]", at + 1, last + 1))
                )?;
                self.render(s, self.shown[at], out)?;
            }
            show = false;
            write!(out, "{} ", s.dim.style("replay>"))?;
            out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(out)?;
                return Ok(());
            }
            match line.trim() {
                "" | "n" => {
                    if at < last {
                        at += 1;
                        show = true;
                    } else {
                        writeln!(out, "  the last captured event: p previous, q quit")?;
                    }
                }
                "p" => {
                    if at > 0 {
                        at -= 1;
                        show = true;
                    } else {
                        writeln!(out, "  the first captured event: n next, q quit")?;
                    }
                }
                "f" => match self.failure_id() {
                    None => writeln!(out, "  this run did not fail: there is no failure to show")?,
                    Some(id) => match self.shown.iter().position(|e| e.id == id) {
                        Some(index) => {
                            at = index;
                            show = true;
                        }
                        None => writeln!(
                            out,
                            "  the failure is event #{id}, which --kind/--grep hide"
                        )?,
                    },
                },
                "q" => return Ok(()),
                "?" | "h" | "help" => writeln!(out, "  {KEYS}")?,
                other => match other.trim_start_matches('#').parse::<u64>() {
                    Ok(id) => match self.shown.iter().position(|e| e.id == id) {
                        Some(index) => {
                            at = index;
                            show = true;
                        }
                        None => writeln!(out, "  event #{id} is not among the events shown")?,
                    },
                    Err(_) => writeln!(out, "  unknown key `{other}`: {KEYS}")?,
                },
            }
        }
    }

    /// One event: its time, kind, detail, value, and source with context.
    fn render(&self, s: &Styles, event: &Event, out: &mut impl Write) -> std::io::Result<()> {
        let is_failure = self.failure_id() == Some(event.id);
        let worker = event
            .worker
            .as_deref()
            .map(|w| format!(" [{w}]"))
            .unwrap_or_default();
        let kind_style = match event.kind {
            Kind::Exception => s.error,
            Kind::Exit if is_failure => s.error,
            _ => s.heading,
        };
        write!(
            out,
            "#{:<width$} {} {} {}{worker}",
            event.id,
            s.dim.style(format!("{:>10.3} ms", event.ts)),
            kind_style.style(format!("{:<9}", event.kind.as_str())),
            strip_ansi(&event.detail),
            width = self.id_width
        )?;
        if is_failure {
            write!(out, "  {}", s.error.style("<- the failure"))?;
        }
        writeln!(out)?;
        // The program's own text is shown as text: its terminal escapes (a runner's colours, a
        // hyperlink) are never sent to the terminal replaying it.
        if let Some(message) = &event.error_message {
            writeln!(out, "  {} {}", s.dim.style("message"), strip_ansi(message))?;
        }
        if let Some(value) = &event.value {
            let value = strip_ansi(value);
            let lines: Vec<&str> = value.lines().collect();
            match lines.as_slice() {
                [one] => writeln!(out, "  {} {one}", s.dim.style("value"))?,
                _ => {
                    writeln!(out, "  {}", s.dim.style("value"))?;
                    for line in lines.iter().take(VALUE_LINES) {
                        writeln!(out, "    {line}")?;
                    }
                    if lines.len() > VALUE_LINES {
                        writeln!(out, "    … {} more lines", lines.len() - VALUE_LINES)?;
                    }
                }
            }
        }
        if let Some(note) = &event.note {
            writeln!(out, "  {} {note}", s.dim.style("note"))?;
        }
        let (position, from_stderr) = match event.position() {
            Some(position) => (Some(position), false),
            None if is_failure => (self.failure_position(), true),
            None => (None, false),
        };
        if let Some(position) = position {
            if from_stderr {
                writeln!(
                    out,
                    "  {}",
                    s.dim
                        .style("position from the error's stack text on stderr")
                )?;
            }
            self.source_frame(s, &position, out)?;
            if let Some(generated) = &event.generated {
                writeln!(
                    out,
                    "  {} {}:{}:{}",
                    s.dim.style("generated"),
                    display_path(&generated.file),
                    generated.line,
                    generated.column
                )?;
            }
        } else if let Some(file) = &event.file {
            code_frame::file_heading(out, s, file)?;
        }
        Ok(())
    }

    fn failure_position(&self) -> Option<Position> {
        let failure = &self.evidence?.failure;
        Some(Position {
            file: failure.file.clone()?,
            line: failure.line?,
            column: failure.column?,
        })
    }

    /// `--> file:line:column` and the source lines around it, read from the file now.
    fn source_frame(
        &self,
        s: &Styles,
        position: &Position,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        code_frame::heading(out, s, &position.file, position.line, position.column)?;
        let mut sources = self.sources.borrow_mut();
        let source = sources
            .entry(position.file.clone())
            .or_insert_with(|| read_source(&position.file, &self.session.started_at));
        let Some(source) = source else {
            writeln!(
                out,
                "  {}",
                s.dim.style("(the source file cannot be read now)")
            )?;
            return Ok(());
        };
        if source.changed_after_run {
            writeln!(
                out,
                "  {}",
                s.warning
                    .style("(the file changed after the run: these lines may not be what ran)")
            )?;
        }
        let first = position.line.saturating_sub(CONTEXT_LINES).max(1);
        let last = position.line.saturating_add(CONTEXT_LINES);
        let shown: Vec<String> = (first..=last)
            .map_while(|number| source.lines.get(number as usize - 1))
            .map(|text| cap(text.trim_end().to_owned(), SOURCE_LINE_LIMIT).0)
            .collect();
        let shown: Vec<&str> = shown.iter().map(String::as_str).collect();
        code_frame::lines(
            out,
            s,
            first,
            &shown,
            (position.line, position.column),
            true,
        )?;
        Ok(())
    }
}

const KEYS: &str = "keys: n or Enter next, p previous, f the failure, NUMBER event #NUMBER, q quit";

fn matches(re: &Regex, event: &Event) -> bool {
    [
        Some(event.detail.as_str()),
        event.value.as_deref(),
        event.error_message.as_deref(),
        event.file.as_deref(),
        event.level.as_deref(),
        event.worker.as_deref(),
    ]
    .into_iter()
    .flatten()
    .any(|text| re.is_match(text))
}

fn read_source(file: &str, started_at: &str) -> Option<Source> {
    let path = Path::new(file);
    let bytes = crate::files::read_capped(path, MAX_SOURCE_BYTES).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let modified = path.metadata().and_then(|m| m.modified()).ok();
    let started = humantime::parse_rfc3339(started_at).ok();
    let changed_after_run = matches!((modified, started), (Some(m), Some(s)) if m > s);
    Some(Source {
        lines: text.lines().map(str::to_owned).collect(),
        changed_after_run,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::session::{Capabilities, Status};

    fn session(dir: &Path) -> Session {
        let file = dir.join("app.js");
        std::fs::write(&file, "a\nb\nc\nthrow new Error('x')\ne\nf\ng\n").unwrap();
        let file = file.display().to_string();
        let mut events = Vec::new();
        for (id, kind) in [(1, Kind::Console), (2, Kind::Output), (3, Kind::Exception)] {
            let mut event = Event::new(kind, id as f64, format!("event {id}"));
            event.id = id;
            event.file = Some(file.clone());
            event.line = Some(id as u32 + 1);
            event.column = Some(1);
            events.push(event);
        }
        Session {
            id: "s".into(),
            status: Status::Failed,
            runtime: "node".into(),
            target: file,
            args: vec![],
            cwd: dir.display().to_string(),
            pid: None,
            // Long before the file was written: the file counts as changed.
            started_at: "2000-01-01T00:00:00Z".into(),
            ended_at: None,
            exit_code: Some(1),
            signal: None,
            event_count: 3,
            exception_count: 1,
            dropped_events: 0,
            capabilities: Capabilities::default(),
            stderr_tail: String::new(),
            error: None,
            options: None,
            verifies: None,
            processes: Vec::new(),
            events,
        }
    }

    fn evidence_for(session: &Session) -> Evidence {
        crate::trace::evidence::build(session, &|_| true, &crate::trace::redact::Redactor::none())
            .unwrap()
    }

    fn step(timeline: &Replay<'_>, keys: &str) -> String {
        let mut out = Vec::new();
        timeline
            .step_through(&Styles::default(), &mut keys.as_bytes(), &mut out)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_stepper_moves_jumps_to_the_failure_and_quits() {
        let dir = tempfile::tempdir().unwrap();
        let session = session(dir.path());
        let evidence = evidence_for(&session);
        let timeline = Replay::new(&session, Some(&evidence), &[], None);
        let out = step(&timeline, "n\np\np\nf\nn\nq\nn\n");
        let shown: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with('['))
            .map(|l| &l[..5])
            .collect();
        // first, next, back, (p at the start refuses), f jumps to 3, (n at the end refuses), q.
        assert_eq!(shown, ["[1/3]", "[2/3]", "[1/3]", "[3/3]"]);
        assert!(out.contains("the first captured event"));
        assert!(out.contains("the last captured event"));
        assert!(out.contains("#3 ") && out.contains("<- the failure"));
        assert!(out.contains("   4 | throw new Error('x')"), "{out}");
        assert!(out.contains("(the file changed after the run"));
    }

    #[test]
    fn the_failure_hidden_by_a_filter_is_said_so_and_input_end_quits() {
        let dir = tempfile::tempdir().unwrap();
        let session = session(dir.path());
        let evidence = evidence_for(&session);
        let timeline = Replay::new(&session, Some(&evidence), &[Kind::Console], None);
        let out = step(&timeline, "f\nx\n");
        assert!(out.contains("the failure is event #3, which --kind/--grep hide"));
        assert!(out.contains("unknown key `x`"));
        assert!(out.contains("1 of 3 captured events shown"));
    }
}
