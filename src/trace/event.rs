//! The trace event: the one record every sink consumes (terminal, NDJSON stream, session files).
//!
//! Wire format (one JSON object, camelCase, absent fields omitted):
//!
//! | field | when | meaning |
//! |---|---|---|
//! | `id` | always | 1, 2, 3, … in the order the tracer received the events (gaps: dropped events) |
//! | `ts` | always | milliseconds since the run started |
//! | `kind` | always | `context`, `script`, `console`, `exception`, `output`, `test`, `exit` |
//! | `runtime` | always | `"node"` |
//! | `detail` | always | a short human description (`console.log`, `Uncaught`, a context name, …) |
//! | `file`, `line`, `column` | positioned events | the user's position: absolute path, 1-based line and column (source-mapped when a map resolved) |
//! | `generated` | source-mapped or unmapped events | `{file, line, column}` of the generated JavaScript, 1-based; alone (no `line`) when the position could not be mapped to the file on disk |
//! | `callStack` | console, exception | user frames only: `{functionName, file, line, column, generated?, unmapped?}` (`unmapped: true`: the runtime's position in transformed code, not a line of `file` on disk) |
//! | `value` | console, exception, output | the rendered arguments, the thrown value, the output line (capped) |
//! | `errorMessage` | exception, test | the error's first line (`TypeError: x is not a function`); a failed test's message |
//! | `status` | test | `failed`: a test a runner reported failing (`detail` is its name, `file`/`line`/`column` its assertion's site, `worker` the process that ran its file), read from the runner's report after the program ended with a non-zero code |
//! | `level` | console | `log`, `info`, `warn`, `error`, `debug`, `trace`, `table`, `assert`, … |
//! | `stream` | output | `stdout` or `stderr` |
//! | `worker` | worker and child-process events | which worker (`worker 1: file:///…`), process of the tree (`child 1`, its worker `child 1 worker 1`) or launcher (`launcher 4242`) |
//! | `exitCode`, `signal` | exit | the program's exit code, or the signal that ended it |
//! | `truncated` | when a value was cut | `true`; the value ends with `… [N more chars]` |
//! | `note` | sometimes | why a position is not mapped, a source map that failed, … |

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Context,
    Script,
    Console,
    Exception,
    Output,
    Test,
    Exit,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Context => "context",
            Kind::Script => "script",
            Kind::Console => "console",
            Kind::Exception => "exception",
            Kind::Output => "output",
            Kind::Test => "test",
            Kind::Exit => "exit",
        }
    }
}

/// Which output stream an `output` event came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
}

/// A position in a file the user can open: absolute path, 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// One frame of a call stack, already mapped to the user's source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Frame {
    pub function_name: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<Position>,
    /// `line` and `column` are the runtime's position in the code that ran, which does not fit
    /// `file` as it is on disk (a loader transformed it and no source map for it was known): not a
    /// position in the file the user can open.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unmapped: bool,
}

impl Frame {
    pub fn position(&self) -> Position {
        Position {
            file: self.file.clone(),
            line: self.line,
            column: self.column,
        }
    }
}

/// One trace event. See the module documentation for the wire format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Event {
    pub id: u64,
    pub ts: f64,
    pub kind: Kind,
    pub runtime: String,
    pub detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<Position>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub call_stack: Vec<Frame>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<Stream>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// A test event's outcome (`failed`). Additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// For a console call read back from a test runner's report: the test file the runner printed
    /// it under (absolute). Additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_file: Option<String>,
    /// The test a console call was made in: read back from a report that names it (vitest's
    /// `stdout | FILE > SUITE > TEST`), as the runner names it; or, for a call made by a
    /// `node:test` test's own synchronous code, that test (`SUITE > TEST`), as the bootloader saw
    /// it run. Additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_name: Option<String>,
    /// For a console call read back from a report printed after its file's tests all ran (jest's
    /// `● Console` section): its time is the report's, not the call's, and which test made it is
    /// not known. Additive.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub printed_later: bool,
    /// For an exception: where it was thrown, as the runtime reported it (the position Node's own
    /// report of an uncaught error points at), when that is not its site (the first frame of the
    /// stack captured as the error was made): an error a helper made and its caller threw, an
    /// error caught and thrown again. Mapped as any position. Additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thrown_at: Option<Position>,
}

impl Event {
    /// A new event of `kind`; the sink assigns `id`.
    pub fn new(kind: Kind, ts: f64, detail: impl Into<String>) -> Self {
        Event {
            id: 0,
            ts,
            kind,
            runtime: "node".to_owned(),
            detail: detail.into(),
            file: None,
            line: None,
            column: None,
            generated: None,
            call_stack: Vec::new(),
            value: None,
            error_message: None,
            level: None,
            stream: None,
            worker: None,
            exit_code: None,
            signal: None,
            truncated: false,
            note: None,
            status: None,
            test_file: None,
            test_name: None,
            printed_later: false,
            thrown_at: None,
        }
    }

    /// Sets `file`, `line`, `column` (and `generated`) from a mapped frame. An unmapped frame
    /// gives the file only; its runtime position goes to `generated`.
    pub fn at(&mut self, frame: &Frame) {
        self.file = Some(frame.file.clone());
        if frame.unmapped {
            self.line = None;
            self.column = None;
            self.generated = Some(frame.position());
        } else {
            self.line = Some(frame.line);
            self.column = Some(frame.column);
            self.generated = frame.generated.clone();
        }
    }

    /// The event's user position, if it has one.
    pub fn position(&self) -> Option<Position> {
        Some(Position {
            file: self.file.clone()?,
            line: self.line?,
            column: self.column?,
        })
    }

    /// Stores `value`, capped at `limit` characters, and marks the event when it was cut.
    pub fn set_value(&mut self, value: String, limit: usize) {
        let (value, cut) = crate::trace::values::cap(value, limit);
        self.truncated |= cut;
        self.value = Some(value);
    }

    /// As `set_value`, for a value its sender already cut short from `total` characters.
    pub fn set_value_of_length(&mut self, value: String, limit: usize, total: usize) {
        let (value, cut) = crate::trace::values::cap_known_length(value, limit, total);
        self.truncated |= cut;
        self.value = Some(value);
    }
}

/// The run's one event stream: every source sends its events here and one thread hands them to
/// every sink (`output::fan_out`). Events travel boxed, so the channel's slots are small: made with
/// 8192 slots of whole events it touched 2.6 MB before the program was started (1 ms).
pub type EventSender = std::sync::mpsc::SyncSender<Box<Event>>;
/// The receiving end of the event stream.
pub type EventReceiver = std::sync::mpsc::Receiver<Box<Event>>;

/// The run's clock: every event's `ts` is milliseconds since the same start.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    start: std::time::Instant,
    /// The start on `CLOCK_MONOTONIC`, in milliseconds: the clock a Node program's
    /// `process.hrtime` reads.
    start_monotonic_ms: f64,
}

impl Clock {
    pub fn start() -> Self {
        Clock {
            start: std::time::Instant::now(),
            start_monotonic_ms: crate::timings::monotonic_ns() as f64 / 1e6,
        }
    }

    /// A time a program read off `CLOCK_MONOTONIC` (`process.hrtime`, in milliseconds) as
    /// milliseconds since the start, to the microsecond.
    pub fn ms_of_monotonic(&self, monotonic_ms: f64) -> f64 {
        ((monotonic_ms - self.start_monotonic_ms) * 1000.0).round() / 1000.0
    }

    /// Milliseconds since the start, to the microsecond.
    pub fn ms(&self) -> f64 {
        self.ms_at(std::time::Instant::now())
    }

    /// Milliseconds from the start to `at`, to the microsecond.
    pub fn ms_at(&self, at: std::time::Instant) -> f64 {
        (at.saturating_duration_since(self.start).as_micros() as f64) / 1000.0
    }
}
