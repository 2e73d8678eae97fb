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
    /// Bytes of whole lines handed to the writer, and of whole lines known to be in the file (as
    /// of the last flush that succeeded): where a failed write cuts the file back to.
    handed: u64,
    on_disk: u64,
}

impl EventsFile {
    pub fn new(file: BufWriter<File>, limit: usize) -> Self {
        EventsFile {
            file: Some(file),
            written: 0,
            limit,
            handed: 0,
            on_disk: 0,
        }
    }

    /// A write failed (a full disk): the live file stops, cut back to the last whole line that
    /// reached it, so that it never ends in half a line; session.json is still written at the end.
    fn stop(&mut self) {
        if let Some(file) = self.file.take() {
            let (file, _) = file.into_parts();
            let _ = file.set_len(self.on_disk);
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
        let Some(file) = self.file.as_mut() else {
            return;
        };
        // A line goes to the file in one piece: flushing between the JSON and its newline
        // would leave a line without its end on disk if the tracer is killed right then.
        let room = file.capacity() - file.buffer().len();
        if room <= json.len() {
            if file.flush().is_err() {
                self.stop();
                return;
            }
            self.on_disk = self.handed;
        }
        if file
            .write_all(json.as_bytes())
            .and_then(|()| file.write_all(b"\n"))
            .is_err()
        {
            self.stop();
            return;
        }
        self.handed += json.len() as u64 + 1;
        // A line longer than the buffer went to the file at once.
        if file.buffer().is_empty() {
            self.on_disk = self.handed;
        }
        self.written += 1;
    }

    pub fn flush(&mut self) {
        if let Some(file) = self.file.as_mut() {
            if file.flush().is_err() {
                self.stop();
            } else {
                self.on_disk = self.handed;
            }
        }
    }
}
