//! Sinks fed by the one event stream: the human renderer (stderr), the NDJSON writer (stdout) and
//! the session store (files). `fan_out` is the only consumer of the stream: it numbers the events
//! and hands each to every sink, and to the bounded log the session is built from; the run's
//! exit, always the last event, goes through the same sinks once the stream has ended.

pub mod annotations;
pub mod chrome_trace;
pub mod code_frame;
pub mod human;
pub mod markdown;
pub mod ndjson;
pub mod replay;
pub mod store;
pub mod style;
pub mod verdict;

/// A line on stderr that never panics: `eprintln!` panics when stderr is gone (`tracer audit 2>&1
/// | head -1`), and a closed stderr is no reason to lose the run's files or its exit code.
#[macro_export]
macro_rules! say_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
pub use crate::say_line as say;

use std::sync::mpsc::TryRecvError;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::pacing::Pacer;

use crate::trace::event::{Event, EventReceiver, Kind, Stream};
use crate::trace::redact::{LineState, Redactor};
use crate::trace::session::EventLog;

/// The sinks one run feeds.
pub struct Sinks {
    pub stdout: Option<ndjson::StdoutStream>,
    pub events_file: Option<ndjson::EventsFile>,
    pub log: EventLog,
    /// Applied to every event before any sink sees it.
    pub redactor: Redactor,
    /// Whether the default token shapes are on (private key blocks span output lines).
    pub default_redaction: bool,
}

/// Every sink with what numbering and redaction need carried from one event to the next.
pub struct FanOut {
    sinks: Sinks,
    next_id: u64,
    line_states: [LineState; 2],
}

impl FanOut {
    /// Numbers `event`, redacts it and hands it to every sink and to the log.
    fn deliver(&mut self, mut event: Box<Event>) {
        let sinks = &mut self.sinks;
        event.id = self.next_id;
        self.next_id += 1;
        redact(
            &mut event,
            &sinks.redactor,
            sinks.default_redaction,
            &mut self.line_states,
        );
        let always = matches!(event.kind, Kind::Exception | Kind::Exit);
        let to_stdout = sinks.stdout.as_ref().is_some_and(|s| s.wants());
        let to_file = sinks.events_file.as_ref().is_some_and(|f| f.wants(always));
        // Past the file's cap and with no live reader, an event is only kept in the log.
        if to_stdout || to_file {
            let json = serde_json::to_string(&event).unwrap_or_default();
            if let Some(stdout) = sinks.stdout.as_mut().filter(|_| to_stdout) {
                stdout.line(&json);
            }
            if let Some(file) = sinks.events_file.as_mut().filter(|_| to_file) {
                file.line(&json, always);
            }
        }
        sinks.log.push(*event);
    }

    fn flush(&mut self) {
        if let Some(file) = self.sinks.events_file.as_mut() {
            file.flush();
        }
    }

    /// The events kept so far (for what is read from them once the program has ended).
    pub fn log(&self) -> &EventLog {
        &self.sinks.log
    }

    /// Delivers events made once the stream has ended (the failed tests read from the runners'
    /// reports), before the exit.
    pub fn deliver_after(&mut self, events: Vec<Event>) {
        for event in events {
            self.deliver(Box::new(event));
        }
    }

    /// Delivers the stream's last event (the run's exit) once every sender is gone and the
    /// thread has handed this back, and returns the log.
    pub fn finish(mut self, last: Event) -> EventLog {
        self.deliver(Box::new(last));
        self.flush();
        self.sinks.log
    }
}

/// Consumes the event stream on its own thread until every sender is gone, then hands the sinks
/// back for the last event ([`FanOut::finish`]): the thread ends as soon as the run's own
/// senders are dropped, not after one more wake-up for the exit.
pub fn fan_out(events: EventReceiver, sinks: Sinks) -> JoinHandle<FanOut> {
    std::thread::spawn(move || {
        let mut out = FanOut {
            sinks,
            next_id: 1,
            line_states: [LineState::default(), LineState::default()],
        };
        let mut pacer = Pacer::new(Duration::from_millis(1));
        loop {
            let event = match events.try_recv() {
                Ok(event) => event,
                Err(TryRecvError::Empty) => {
                    // Nothing waiting: make what was written visible before blocking.
                    out.flush();
                    match events.recv() {
                        Ok(event) => {
                            pacer.after_read();
                            event
                        }
                        Err(_) => break,
                    }
                }
                Err(TryRecvError::Disconnected) => break,
            };
            out.deliver(event);
        }
        // What is still buffered goes out with the last event (`FanOut::finish`).
        out
    })
}

/// Redacts the strings of an event that can carry the program's data.
fn redact(
    event: &mut Event,
    redactor: &Redactor,
    defaults: bool,
    line_states: &mut [LineState; 2],
) {
    if let Some(value) = event.value.as_mut() {
        match event.stream {
            Some(Stream::Stdout) => line_states[0].apply(redactor, defaults, value),
            Some(Stream::Stderr) => line_states[1].apply(redactor, defaults, value),
            None => redactor.apply_mut(value),
        }
    }
    if let Some(message) = event.error_message.as_mut() {
        redactor.apply_mut(message);
    }
    // The detail can carry the program's text too (a `vm` context's name, a worker's).
    redactor.apply_mut(&mut event.detail);
}

/// Pretty JSON on stdout; a closed stdout is not an error.
pub fn print_json(value: &serde_json::Value) -> anyhow::Result<u8> {
    let mut out = std::io::stdout().lock();
    let _ = serde_json::to_writer_pretty(&mut out, value);
    let _ = std::io::Write::write_all(&mut out, b"\n");
    Ok(crate::exit::SUCCESS)
}
