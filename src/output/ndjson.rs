//! The NDJSON sinks: the live stream on stdout (`--ndjson`, one event per line, flushed per line)
//! and the session's `events.ndjson`. A closed stdout (`| head -1`) ends the stream, not the trace
//! and not the program: with `--ndjson` the program's output travels as events, so nothing of it
//! is what the reader read.

use std::fs::File;
use std::io::{BufWriter, Stdout, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The live NDJSON stream on stdout.
pub struct StdoutStream {
    out: Option<Stdout>,
    /// Set when the stream's reader went away (the run's summary says the stream was cut).
    reader_gone: Arc<AtomicBool>,
}

impl StdoutStream {
    pub fn new(reader_gone: Arc<AtomicBool>) -> Self {
        StdoutStream {
            out: Some(std::io::stdout()),
            reader_gone,
        }
    }

    /// Whether anyone still reads the stream.
    pub fn wants(&self) -> bool {
        self.out.is_some()
    }

    /// Writes one line; after the reader went away it silently stops.
    pub fn line(&mut self, json: &str) {
        if let Some(out) = self.out.as_mut() {
            let mut lock = out.lock();
            let ok = lock
                .write_all(json.as_bytes())
                .and_then(|()| lock.write_all(b"\n"))
                .and_then(|()| lock.flush());
            if ok.is_err() {
                self.out = None;
                self.reader_gone.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// The session's `events.ndjson`: the first `limit` events as they happen, then only exceptions and
/// the exit, so the file stays bounded however much the program logs.
pub struct EventsFile {
    file: Option<BufWriter<File>>,
    written: usize,
    limit: usize,
}

impl EventsFile {
    pub fn new(file: BufWriter<File>, limit: usize) -> Self {
        EventsFile {
            file: Some(file),
            written: 0,
            limit,
        }
    }

    /// Whether an event (an exception or the exit when `always`) would be written.
    pub fn wants(&self, always: bool) -> bool {
        self.file.is_some() && (always || self.written < self.limit)
    }

    pub fn line(&mut self, json: &str, always: bool) {
        if !self.wants(always) {
            return;
        }
        if let Some(file) = self.file.as_mut() {
            // A line goes to the file in one piece: flushing between the JSON and its newline
            // would leave a line without its end on disk if the tracer is killed right then.
            let room = file.capacity() - file.buffer().len();
            if room <= json.len() && file.flush().is_err() {
                self.file = None;
                return;
            }
            if file
                .write_all(json.as_bytes())
                .and_then(|()| file.write_all(b"\n"))
                .is_err()
            {
                // A full disk stops the live file; session.json is still written at the end.
                self.file = None;
            }
            self.written += 1;
        }
    }

    pub fn flush(&mut self) {
        if let Some(file) = self.file.as_mut() {
            let _ = file.flush();
        }
    }
}
