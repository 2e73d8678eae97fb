//! The reader for raw traces (`tracer-trace/v1` NDJSON): one or several shard files of one
//! capture, read as a stream and merged in global `seq` order. It owns the header checks, the `seq`
//! rules and the errors for bad input (each naming `file:line`, the reason and what to do); it
//! builds nothing from the events.
//!
//! Tolerated, and documented in `docs/conformance.md`: a UTF-8 byte-order mark before the header,
//! CRLF line endings, empty or blank lines anywhere after the header (skipped, still counted as
//! lines), and a last line without a newline when it is a complete JSON object. Refused with exit
//! code 2: a missing or foreign header, a second header, a line that is not UTF-8 or not a JSON
//! object, a truncated last line, a key field that is missing or not a string, a `seq` that is not
//! strictly increasing within a file or that two shards share, and shards of different
//! `baselineId`s.
//!
//! Threads and memory: each shard is read and parsed on a thread of its own, at most
//! `BATCHES_AHEAD` batches of `BATCH` events ahead of the caller, and the files' bytes are hashed
//! on one more, so memory stays bounded whatever the size of the files. A line is kept as its text
//! and the places of its fields ([`LineFields`]), found by a one-pass scanner for plain lines and by
//! serde_json for the rest; a field's value is parsed only when asked for. [`split`] and [`Part`]
//! let a caller read one file's parts on several threads (`conformance::build` does).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::conformance::hash;
use crate::error::TracerError;

/// The only raw-trace schema this reader accepts.
mod line;
mod merge;
mod shard;
mod split;
#[cfg(test)]
mod tests;

use line::*;
pub use line::{LineFields, MAX_DEPTH, NESTING_ROOM};
pub use merge::{MergedShards, read_capture};
use shard::*;
pub use shard::{Header, Summary, TraceFile, display_path, read_header};
use split::*;
pub use split::{Part, split};

pub const SCHEMA: &str = "tracer-trace/v1";

/// Strings longer than this (in UTF-16 code units) are written as `$string` digests.
pub const LONG_STRING: usize = 500;
/// How much of a long string its `preview` keeps.
pub const PREVIEW: usize = 120;

/// A state event's place in a stateful family's timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub family: String,
    pub object: String,
    pub event: String,
}

/// One `access` line, with the fields the contract keys on taken out and every other field kept
/// as it was written (absent stays absent, `null` stays `null`).
#[derive(Debug, Clone)]
pub struct AccessLine {
    /// Index of the shard in merge order (see [`MergedShards::files`]).
    pub file: usize,
    /// 1-based line number in that shard.
    pub line: u64,
    pub seq: u64,
    pub api: String,
    pub access_type: String,
    pub realm: String,
    pub receiver: String,
    pub phase: String,
    pub nav: Option<u64>,
    pub tags: Vec<String>,
    pub state: Option<State>,
    /// Every other field of the line (`owner`, `descriptor`, `stack`, unknown fields, ...), as the
    /// JSON text it was written in: parsed only when a reader asks for it (see [`AccessLine::field`]),
    /// so that a line's values are not built into trees that are then thrown away.
    pub fields: LineFields,
}
