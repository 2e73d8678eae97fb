//! Sinks fed by the one event stream: the human renderer (stderr), the NDJSON writer (stdout) and
//! the session store (files). `fan_out` is the only consumer of the stream: it numbers the events
//! and hands each to every sink, and to the bounded log the session is built from.

pub mod annotations;
pub mod human;
pub mod ndjson;
pub mod store;

use std::sync::mpsc::{Receiver, TryRecvError};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::pacing::Pacer;

use crate::trace::event::{Event, Kind};
use crate::trace::session::EventLog;

/// The sinks one run feeds.
pub struct Sinks {
    pub stdout: Option<ndjson::StdoutStream>,
    pub events_file: Option<ndjson::EventsFile>,
    pub log: EventLog,
}

/// Consumes the event stream on its own thread until every sender is gone; returns the log.
pub fn fan_out(events: Receiver<Event>, mut sinks: Sinks) -> JoinHandle<EventLog> {
    std::thread::spawn(move || {
        let mut next_id = 1u64;
        let mut pacer = Pacer::new(Duration::from_millis(1));
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
            let json = serde_json::to_string(&event).unwrap_or_default();
            if let Some(stdout) = sinks.stdout.as_mut() {
                stdout.line(&json);
            }
            if let Some(file) = sinks.events_file.as_mut() {
                file.line(&json, matches!(event.kind, Kind::Exception | Kind::Exit));
            }
            sinks.log.push(event);
        }
        if let Some(file) = sinks.events_file.as_mut() {
            file.flush();
        }
        sinks.log
    })
}
