//! The program's stdout and stderr, each on its own thread so a full pipe never blocks the program.
//!
//! Each pump passes the bytes through live (unless `--ndjson` owns stdout), cuts them into lines
//! that become `output` events, and keeps memory bounded whatever the program writes. The stderr
//! pump strips the lines Node's inspector prints on a process's stderr when tracer attaches and
//! detaches from what it passes on. (Where each inspector listens comes from the bootloader's
//! channel, `crate::inspector::boot`, never from stderr.)

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::pacing::Pacer;

use crate::trace::event::{Clock, Event, EventSender, Kind, Stream};
use crate::trace::test_report::relay;
use crate::trace::values::{STDERR_TAIL_LIMIT, VALUE_LIMIT};

/// How long a pump naps between reads while the program floods its output.
const PUMP_NAP: Duration = Duration::from_millis(1);

/// Lines the inspector itself prints on a process's stderr when the bootloader opens it and while
/// tracer is attached; never part of the program's output.
const INSPECTOR_LINES: [&str; 5] = [
    "Debugger listening on ",
    "For help, see: https://nodejs.org/en/docs/inspector",
    "Debugger attached.",
    "Waiting for the debugger to disconnect...",
    "Debugger ending on ",
];

/// The last `STDERR_TAIL_LIMIT` characters of the program's stderr (inspector lines removed).
#[derive(Clone, Default)]
pub struct StderrTail(Arc<Mutex<Tail>>);

#[derive(Default)]
struct Tail {
    text: String,
    cut: usize,
}

impl StderrTail {
    fn push(&self, line: &str) {
        let mut tail = self.0.lock().unwrap_or_else(|e| e.into_inner());
        tail.text.push_str(line);
        tail.text.push('\n');
        let chars = tail.text.chars().count();
        if chars > STDERR_TAIL_LIMIT {
            let excess = chars - STDERR_TAIL_LIMIT;
            let at = tail.text.char_indices().nth(excess).map_or(0, |(i, _)| i);
            tail.text.drain(..at);
            tail.cut += excess;
        }
    }

    /// The tail; when earlier output was cut it starts with a line saying how much.
    pub fn text(&self) -> String {
        let tail = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if tail.cut == 0 {
            tail.text.clone()
        } else {
            format!("… [{} earlier chars cut]\n{}", tail.cut, tail.text)
        }
    }
}

/// Accumulates one line at a time, keeping at most a few KiB of it.
struct LineBuffer {
    bytes: Vec<u8>,
    overflow_bytes: usize,
}

impl LineBuffer {
    const KEEP: usize = VALUE_LIMIT * 4;

    fn new() -> Self {
        LineBuffer {
            bytes: Vec::new(),
            overflow_bytes: 0,
        }
    }

    fn push(&mut self, part: &[u8]) {
        let room = Self::KEEP.saturating_sub(self.bytes.len());
        let (kept, rest) = part.split_at(part.len().min(room));
        self.bytes.extend_from_slice(kept);
        self.overflow_bytes += rest.len();
    }

    fn is_empty(&self) -> bool {
        self.bytes.is_empty() && self.overflow_bytes == 0
    }

    /// The line so far, without a trailing `\r`.
    fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        text.strip_suffix('\r').unwrap_or(&text).to_owned()
    }

    fn take_event(&mut self, stream: Stream, clock: &Clock) -> Event {
        let mut event = Event::new(Kind::Output, clock.ms(), stream_name(stream));
        event.stream = Some(stream);
        let mut text = self.text();
        if self.overflow_bytes > 0 {
            text.push_str(&format!("… [{} more bytes]", self.overflow_bytes));
            event.truncated = true;
        }
        event.set_value(text, VALUE_LIMIT);
        self.bytes.clear();
        self.overflow_bytes = 0;
        event
    }
}

fn stream_name(stream: Stream) -> &'static str {
    match stream {
        Stream::Stdout => "stdout",
        Stream::Stderr => "stderr",
    }
}

/// The most bytes read from one pipe that may wait to be cut into lines and events. Up to this
/// much, a slow consumer (a slow `--ndjson` reader) never slows the program's writes: Node queues
/// writes to a full pipe in memory and loses them when it dies of an uncaught exception, so a
/// reader that falls behind would lose the program's last output before the tracer ever saw it.
/// Past it, the reader waits (back-pressure, as a slow reader of the program's own would apply).
const QUEUE_LIMIT: usize = 16 << 20;

/// The bytes one pipe's reader thread hands to its processing thread.
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    data: Condvar,
    room: Condvar,
    /// Notified on every change of state (`set`): the end of the run waits on it for `eof`.
    changed: Condvar,
}

#[derive(Default)]
struct QueueState {
    bytes: Vec<u8>,
    /// The pipe ended (or its reader stopped).
    eof: bool,
    /// The processing thread stopped: nothing more is wanted.
    consumer_gone: bool,
    /// The run is over but the pipe is still open (a descendant that left the process group holds
    /// it): what was read is processed, the rest is not waited for.
    abandoned: bool,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds bytes, waiting while the queue is full. False when the consumer is gone.
    fn push(&self, data: &[u8]) -> bool {
        let mut state = self.lock();
        while !state.consumer_gone
            && !state.bytes.is_empty()
            && state.bytes.len() + data.len() > QUEUE_LIMIT
        {
            state = self.room.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        if state.consumer_gone {
            return false;
        }
        state.bytes.extend_from_slice(data);
        self.data.notify_one();
        true
    }

    /// Everything queued, waiting for some; `None` at the end.
    fn take(&self) -> Option<Vec<u8>> {
        let mut state = self.lock();
        while state.bytes.is_empty() && !state.eof && !state.abandoned {
            state = self.data.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        if state.bytes.is_empty() {
            return None;
        }
        let bytes = std::mem::take(&mut state.bytes);
        self.room.notify_one();
        Some(bytes)
    }

    fn set(&self, change: impl FnOnce(&mut QueueState)) {
        change(&mut self.lock());
        self.data.notify_all();
        self.room.notify_all();
        self.changed.notify_all();
    }

    /// Waits until the pipe has ended, at most until `deadline`; whether it did.
    fn wait_for_eof(&self, deadline: std::time::Instant) -> bool {
        let mut state = self.lock();
        while !state.eof {
            let now = std::time::Instant::now();
            if now >= deadline {
                return false;
            }
            state = match self.changed.wait_timeout(state, deadline - now) {
                Ok((state, _)) => state,
                Err(e) => e.into_inner().0,
            };
        }
        true
    }
}

/// One pipe's pump: a thread that reads the pipe as fast as it delivers, and a thread that turns
/// what was read into events.
pub struct Pump {
    reader: JoinHandle<()>,
    processor: JoinHandle<()>,
    queue: Arc<Queue>,
}

impl Pump {
    /// Reads `reader` on its own thread, calling `raw` on each chunk there (false: stop reading
    /// and close the pipe), and hands the bytes to `process` on a second thread (false: nothing
    /// more is wanted); `end` runs on that thread after the last chunk, told whether the input
    /// ended rather than the processing stopping.
    fn start(
        mut reader: impl Read + Send + 'static,
        mut raw: impl FnMut(&[u8]) -> bool + Send + 'static,
        mut process: impl FnMut(&[u8]) -> bool + Send + 'static,
        end: impl FnOnce(bool) + Send + 'static,
    ) -> Pump {
        let queue = Arc::new(Queue::default());
        let reading = Arc::clone(&queue);
        let reader = std::thread::spawn(move || {
            read_chunks(&mut reader, |data| raw(data) && reading.push(data));
            reading.set(|s| s.eof = true);
            // Dropping `reader` here closes the pipe: the program sees `EPIPE` on its next write.
        });
        let processing = Arc::clone(&queue);
        let processor = std::thread::spawn(move || {
            while let Some(bytes) = processing.take() {
                if !process(&bytes) {
                    processing.set(|s| s.consumer_gone = true);
                    end(false);
                    return;
                }
            }
            end(true);
        });
        Pump {
            reader,
            processor,
            queue,
        }
    }

    /// Waits for the pipe to end and for everything read to be processed; an error if either
    /// thread panicked.
    pub fn join(self) -> std::thread::Result<()> {
        let read = self.reader.join();
        self.processor.join().and(read)
    }
}

/// Waits up to `grace` for every pipe to end (the program's descendants may hold them open), then
/// for everything read to become events, however long a slow consumer takes: nothing read is lost.
/// A pipe still open after `grace` is not waited for any longer.
pub fn finish(pumps: Vec<Pump>, grace: Duration) {
    let deadline = std::time::Instant::now() + grace;
    for pump in pumps {
        // The reader sets `eof` as its last act: joining it then does not wait.
        if pump.queue.wait_for_eof(deadline) {
            let _ = pump.reader.join();
        } else {
            pump.queue.set(|s| s.abandoned = true);
        }
        let _ = pump.processor.join();
    }
}

/// Where the program's stdout is passed on to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passthrough {
    Stdout,
    /// tracer's stdout carries a report of its own.
    Stderr,
    /// It is recorded only (the `--ndjson` stream is tracer's stdout).
    Off,
}

/// Pumps the program's stdout: passes it on (see `Passthrough`) and records lines.
///
/// `reader_gone` is set when the tracer's own stdout has no reader any more (`| head -1`): by the
/// passthrough here, or by the `--ndjson` stream. The pump then stops reading and closes its end
/// of the program's stdout pipe, so the program's next write fails with `EPIPE`, as it would
/// without the tracer, instead of writing forever into a pipe nobody reads.
pub fn pump_stdout(
    reader: impl Read + Send + 'static,
    passthrough: Passthrough,
    events: EventSender,
    clock: Clock,
    reader_gone: Arc<AtomicBool>,
) -> Pump {
    let out: Arc<Mutex<Option<Box<dyn Write + Send>>>> = Arc::new(Mutex::new(match passthrough {
        Passthrough::Stdout => Some(Box::new(std::io::stdout())),
        Passthrough::Stderr => Some(Box::new(std::io::stderr())),
        Passthrough::Off => None,
    }));
    let filter = Arc::new(Mutex::new(StdoutFilter { carry: Vec::new() }));
    let (out_end, filter_end) = (Arc::clone(&out), Arc::clone(&filter));
    let gone = Arc::clone(&reader_gone);
    // The passthrough happens as the bytes are read: a slow reader of the tracer's stdout slows the
    // program as it would without the tracer.
    let raw = move |data: &[u8]| {
        if gone.load(Ordering::Relaxed) {
            return false;
        }
        let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(stdout) = out.as_mut() {
            let passed = filter.lock().unwrap_or_else(|e| e.into_inner()).pass(data);
            if stdout
                .write_all(&passed)
                .and_then(|()| stdout.flush())
                .is_err()
            {
                *out = None;
                gone.store(true, Ordering::Relaxed);
            }
        }
        !gone.load(Ordering::Relaxed)
    };
    let line = Arc::new(Mutex::new(LineBuffer::new()));
    let (lines, rest) = (Arc::clone(&line), line);
    let (events_end, clock_end) = (events.clone(), clock);
    let process = move |data: &[u8]| {
        let mut line = lines.lock().unwrap_or_else(|e| e.into_inner());
        for (i, part) in data.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                if is_inspector_line(&line.text()) {
                    *line = LineBuffer::new();
                } else if events
                    .send(Box::new(line.take_event(Stream::Stdout, &clock)))
                    .is_err()
                {
                    return false;
                }
            }
            line.push(part);
        }
        true
    };
    let end = move |_ended: bool| {
        let held = filter_end.lock().unwrap_or_else(|e| e.into_inner()).flush();
        if !held.is_empty()
            && let Some(stdout) = out_end.lock().unwrap_or_else(|e| e.into_inner()).as_mut()
        {
            let _ = stdout.write_all(&held).and_then(|()| stdout.flush());
        }
        let mut line = rest.lock().unwrap_or_else(|e| e.into_inner());
        if !line.is_empty() && !is_inspector_line(&line.text()) {
            let _ = events_end.send(Box::new(line.take_event(Stream::Stdout, &clock_end)));
        }
    };
    Pump::start(reader, raw, process, end)
}

/// Pumps the program's stderr: strips the inspector's lines, passes the rest through (unless `passthrough` is off), records lines, and keeps the tail.
pub fn pump_stderr(
    reader: impl Read + Send + 'static,
    passthrough: bool,
    events: EventSender,
    clock: Clock,
    tail: StderrTail,
) -> Pump {
    let pump = Arc::new(Mutex::new(StderrPump {
        out: passthrough.then(std::io::stderr),
        line: LineBuffer::new(),
        unpassed: Vec::new(),
        passed: false,
        events,
        clock,
        tail,
    }));
    let (processing, ending) = (Arc::clone(&pump), pump);
    let process = move |data: &[u8]| {
        let mut pump = processing.lock().unwrap_or_else(|e| e.into_inner());
        let mut parts = data.split(|&b| b == b'\n').peekable();
        while let Some(part) = parts.next() {
            pump.push(part);
            if parts.peek().is_some() {
                if !pump.end_line(true) {
                    return false;
                }
            } else {
                pump.pass_partial();
            }
        }
        true
    };
    let end = move |ended: bool| {
        let mut pump = ending.lock().unwrap_or_else(|e| e.into_inner());
        if ended && !pump.line.is_empty() {
            pump.end_line(false);
        }
    };
    Pump::start(reader, |_| true, process, end)
}

struct StderrPump {
    out: Option<std::io::Stderr>,
    line: LineBuffer,
    /// The current line's bytes not yet written through (held while it may be an inspector line).
    unpassed: Vec<u8>,
    /// Whether part of the current line was already written through.
    passed: bool,
    events: EventSender,
    clock: Clock,
    tail: StderrTail,
}

impl StderrPump {
    fn write(&mut self, bytes: &[u8]) {
        if let Some(stderr) = self.out.as_mut()
            && stderr
                .write_all(bytes)
                .and_then(|()| stderr.flush())
                .is_err()
        {
            self.out = None;
        }
    }

    fn flush_unpassed(&mut self) {
        if !self.unpassed.is_empty() {
            let bytes = std::mem::take(&mut self.unpassed);
            self.write(&bytes);
            self.passed = true;
        }
    }

    fn push(&mut self, part: &[u8]) {
        self.line.push(part);
        if self.passed || self.unpassed.len() + part.len() > LineBuffer::KEEP {
            self.flush_unpassed();
            self.write(part);
            self.passed = true;
        } else {
            self.unpassed.extend_from_slice(part);
        }
    }

    /// Writes a partial line through at once unless it may still turn out to be an inspector line.
    fn pass_partial(&mut self) {
        if !self.passed && !self.unpassed.is_empty() && !could_be_inspector_line(&self.line.text())
        {
            self.flush_unpassed();
        }
    }

    /// Ends the current line. Returns false when nobody listens for events any more.
    fn end_line(&mut self, newline: bool) -> bool {
        let text = self.line.text();
        let held = !self.passed;
        self.passed = false;
        if held && is_inspector_line(&text) {
            self.unpassed.clear();
            self.line = LineBuffer::new();
            return true;
        }
        let bytes = std::mem::take(&mut self.unpassed);
        self.write(&bytes);
        if newline {
            self.write(b"\n");
        }
        self.tail.push(&text);
        self.events
            .send(Box::new(self.line.take_event(Stream::Stderr, &self.clock)))
            .is_ok()
    }
}

/// The most read from a stream at once.
const MAX_CHUNK: usize = 64 * 1024;

/// Reads `reader` to its end in chunks, pacing under a flood; `take` returns false to stop early.
/// Returns false when `take` stopped it.
fn read_chunks(reader: &mut impl Read, mut take: impl FnMut(&[u8]) -> bool) -> bool {
    // 4 KiB until a read fills it, then 64 KiB: a program that prints little does not have tracer
    // zero (and fault in) 64 KiB per stream.
    let mut chunk = vec![0u8; 4096];
    let mut pacer = Pacer::new(PUMP_NAP);
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return true,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return true,
        };
        if n == chunk.len() && chunk.len() < MAX_CHUNK {
            chunk.resize(MAX_CHUNK, 0);
        }
        pacer.after_read();
        if !take(&chunk[..n]) {
            return false;
        }
    }
}

/// One of the inspector's lines, as Node prints it on a process's stderr, or as a test runner
/// passes a child's stderr on in its TAP report (`# Debugger attached.`), or as a workspace runner
/// passes a package's output on after its name (`packages/a test: `, see [`without_relay_prefix`]).
fn is_inspector_line(line: &str) -> bool {
    let line = without_relay_prefix(line);
    let line = line.strip_prefix("# ").unwrap_or(line);
    INSPECTOR_LINES
        .iter()
        .any(|prefix| line.starts_with(prefix))
}

/// A line a runner relays from a process or a package's script, without the name it puts in
/// front: a label in brackets (`concurrently`'s `[name] …`, `run-p --print-label`'s padded
/// `[name  ] …`, colours included), pnpm's `packages/a test: …`, turbo's `a:test: …` (at most one
/// space in the name, which ends in `: `); the line itself otherwise. (A pnpm or turbo line is
/// written whole; concurrently writes its label and the line apart, so a read can end right after
/// the label: such a tail is held, see [`could_be_inspector_line`].)
fn without_relay_prefix(line: &str) -> &str {
    if let Some((_, rest)) = relay::bracket_label(line) {
        return rest;
    }
    match line.split_once(": ") {
        Some((name, rest))
            if !name.is_empty()
                && name.len() <= 120
                && name.matches(' ').count() <= 1
                && !name.contains(['\t', '#']) =>
        {
            rest
        }
        _ => line,
    }
}

fn could_be_inspector_line(partial: &str) -> bool {
    let could = |partial: &str| {
        INSPECTOR_LINES
            .iter()
            .any(|prefix| prefix.starts_with(partial) || partial.starts_with(prefix))
    };
    let either = |partial: &str| {
        could(partial) || partial == "#" || partial.strip_prefix("# ").is_some_and(could)
    };
    either(partial) || either(without_relay_prefix(partial))
}

/// What of the program's stdout is passed through: everything but the inspector's lines that a
/// test runner relays from its children (`# Debugger attached.`). A partial last line that may
/// still become one is held in `carry` until the rest arrives (or the pipe ends).
struct StdoutFilter {
    carry: Vec<u8>,
}

impl StdoutFilter {
    /// The words that must appear in a chunk for any line of it to be an inspector line.
    const MARKS: [&'static [u8]; 3] = [
        b"Debugger ",
        b"For help, see: https://nodejs.org/en/docs/inspector",
        b"Waiting for the debugger",
    ];

    fn pass<'a>(&mut self, data: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        let partial_start = memchr::memrchr(b'\n', data).map_or(0, |i| i + 1);
        let tail_may_be = |bytes: &[u8]| {
            !bytes.is_empty() && could_be_inspector_line(&String::from_utf8_lossy(bytes))
        };
        let marked = Self::MARKS
            .iter()
            .any(|mark| memchr::memmem::find(data, mark).is_some());
        if self.carry.is_empty() && !marked && !tail_may_be(&data[partial_start..]) {
            return std::borrow::Cow::Borrowed(data);
        }
        let mut joined = std::mem::take(&mut self.carry);
        joined.extend_from_slice(data);
        let mut out = Vec::with_capacity(joined.len());
        let mut rest: &[u8] = &joined;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let line = &rest[..end];
            let text = String::from_utf8_lossy(line);
            if !is_inspector_line(text.strip_suffix('\r').unwrap_or(&text)) {
                out.extend_from_slice(&rest[..=end]);
            }
            rest = &rest[end + 1..];
        }
        if tail_may_be(rest) && rest.len() < 256 {
            self.carry = rest.to_vec();
        } else {
            out.extend_from_slice(rest);
        }
        std::borrow::Cow::Owned(out)
    }

    /// What is still held when the pipe ends.
    fn flush(&mut self) -> Vec<u8> {
        let held = std::mem::take(&mut self.carry);
        let text = String::from_utf8_lossy(&held);
        if is_inspector_line(text.trim_end()) {
            Vec::new()
        } else {
            held
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn run_stderr(input: &'static [u8]) -> (Vec<String>, String) {
        let (events_tx, events_rx) = mpsc::sync_channel(100);
        let tail = StderrTail::default();
        pump_stderr(input, false, events_tx, Clock::start(), tail.clone())
            .join()
            .unwrap();
        let lines = events_rx.iter().map(|e| e.value.unwrap()).collect();
        (lines, tail.text())
    }

    #[test]
    fn stderr_pump_strips_the_inspector_s_lines() {
        let (lines, tail) = run_stderr(
            b"Debugger listening on ws://127.0.0.1:1/a\nFor help, see: https://nodejs.org/en/docs/inspector\nDebugger attached.\nhello\nDebugger listening on ws://127.0.0.1:2/b\nWaiting for the debugger to disconnect...\nError: boom\n    at x",
        );
        assert_eq!(lines, ["hello", "Error: boom", "    at x"]);
        assert_eq!(tail, "hello\nError: boom\n    at x\n");
    }

    /// `input` read in two chunks, cut `offsets` bytes into each `mark` (and not at all), passes
    /// the stdout filter as `wanted` every time.
    fn assert_passes_cut_after(input: &[u8], mark: &str, offsets: &[usize], wanted: &str) {
        let text = String::from_utf8_lossy(input);
        let mut cuts = vec![input.len()];
        for (at, _) in text.match_indices(mark) {
            cuts.extend(offsets.iter().map(|o| at + o));
        }
        for cut in cuts {
            let mut filter = StdoutFilter { carry: Vec::new() };
            let mut out = filter.pass(&input[..cut]).into_owned();
            out.extend_from_slice(&filter.pass(&input[cut..]));
            out.extend_from_slice(&filter.flush());
            assert_eq!(String::from_utf8_lossy(&out), wanted, "cut at {cut}");
        }
    }

    #[test]
    fn a_workspace_runner_s_relayed_inspector_lines_are_not_passed_on() {
        // `pnpm -r test`: each package's lines after its name; turbo's `name:script: `.
        let input: &[u8] = b"Scope: 2 of 3 workspace projects\npackages/a test$ node --test\npackages/a test: # Debugger listening on ws://127.0.0.1:9/x\npackages/a test: # For help, see: https://nodejs.org/en/docs/inspector\npackages/a test: # Debugger attached.\npackages/a test: ok 1 - a\na:test: Waiting for the debugger to disconnect...\na:test: Debugger is a word\nNote: it works\n";
        let wanted = "Scope: 2 of 3 workspace projects\npackages/a test$ node --test\npackages/a test: ok 1 - a\na:test: Debugger is a word\nNote: it works\n";
        // The runner writes a relayed line whole; a read may still end anywhere after its name.
        assert_passes_cut_after(input, ": ", &[2, 5, 11], wanted);
    }

    /// `concurrently` writes a child's label and its line apart (`[b] `, then the line), and
    /// `run-p --print-label` pads its labels: the inspector's lines go whole, labels and all, and
    /// no label is left in front of the next line (`[b] [b] [b] b: start`).
    #[test]
    fn a_labelling_runner_s_relayed_inspector_lines_go_whole_whatever_the_chunks() {
        let input: &[u8] = b"[b] Debugger listening on ws://127.0.0.1:9/x\n[b] For help, see: https://nodejs.org/en/docs/inspector\n[b] Debugger attached.\n[b] b: start\n\x1b[34m[unit]\x1b[39m # Debugger attached.\n[unit] TAP version 13\n[test:a  ] Waiting for the debugger to disconnect...\n[a] Debugger is a word\n[1, 2]\n[b] node b.js exited with code 1\n";
        let wanted = "[b] b: start\n[unit] TAP version 13\n[a] Debugger is a word\n[1, 2]\n[b] node b.js exited with code 1\n";
        assert_passes_cut_after(input, "] ", &[1, 2, 6], wanted);
    }

    #[test]
    fn a_test_runner_s_relayed_inspector_lines_are_not_passed_on_whatever_the_chunks() {
        let input: &[u8] = b"TAP version 13\n# Debugger listening on ws://127.0.0.1:9/x\n# For help, see: https://nodejs.org/en/docs/inspector\n# Debugger attached.\n# Subtest: a\nok 1 - a\n# Waiting for the debugger to disconnect...\n# Debugger is a word\n1..1\n";
        let wanted = "TAP version 13\n# Subtest: a\nok 1 - a\n# Debugger is a word\n1..1\n";
        for size in [1, 2, 3, 7, 20, input.len()] {
            let mut filter = StdoutFilter { carry: Vec::new() };
            let mut out = Vec::new();
            for chunk in input.chunks(size) {
                out.extend_from_slice(&filter.pass(chunk));
            }
            out.extend_from_slice(&filter.flush());
            assert_eq!(String::from_utf8_lossy(&out), wanted, "chunks of {size}");
        }
        // Plain output is passed on as it is, without waiting for a line's end.
        let mut filter = StdoutFilter { carry: Vec::new() };
        assert_eq!(&*filter.pass(b"progress: 10%"), b"progress: 10%");
    }

    #[test]
    fn long_lines_are_capped_and_marked() {
        let (events_tx, events_rx) = mpsc::sync_channel(10);
        let long: &'static [u8] = Box::leak(vec![b'x'; 100_000].into_boxed_slice());
        pump_stdout(
            long,
            Passthrough::Off,
            events_tx,
            Clock::start(),
            Arc::default(),
        )
        .join()
        .unwrap();
        let events: Vec<Event> = events_rx.iter().map(|e| *e).collect();
        assert_eq!(events.len(), 1);
        assert!(events[0].truncated);
        assert!(events[0].value.as_ref().unwrap().chars().count() < 600);
    }
}
