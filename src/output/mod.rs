//! Sinks fed by the one event stream: the human renderer (stderr), the NDJSON writer (stdout) and
//! the session store (files). `fan_out` is the only consumer of the stream: it numbers the events
//! and hands each to every sink, and to the bounded log the session is built from.

pub mod annotations;
pub mod human;
pub mod ndjson;
pub mod store;

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

/// Consumes the event stream on its own thread until every sender is gone; returns the log.
pub fn fan_out(events: EventReceiver, mut sinks: Sinks) -> JoinHandle<EventLog> {
    std::thread::spawn(move || {
        let mut next_id = 1u64;
        let mut pacer = Pacer::new(Duration::from_millis(1));
        let mut line_states = [LineState::default(), LineState::default()];
        loop {
            let mut event = match events.try_recv() {
                Ok(event) => event,
                Err(TryRecvError::Empty) => {
                    // Nothing waiting: make what was written visible before blocking.
                    if let Some(file) = sinks.events_file.as_mut() {
                        file.flush();
                    }
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
            event.id = next_id;
            next_id += 1;
            redact(
                &mut event,
                &sinks.redactor,
                sinks.default_redaction,
                &mut line_states,
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
        if let Some(file) = sinks.events_file.as_mut() {
            file.flush();
        }
        sinks.log
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
