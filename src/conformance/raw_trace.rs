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
pub const SCHEMA: &str = "tracer-trace/v1";

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

/// The fields of one line, by name, each as its JSON text: the line itself, and where each
/// field's name and value are in it. Reading a line allocates the line and one small list, never a
/// tree. A duplicate key: the last one wins.
#[derive(Debug, Clone, Default)]
pub struct LineFields {
    line: String,
    /// (name, value) as byte ranges of `line`.
    entries: Vec<(Name, Range<usize>)>,
    /// Names written with escapes, unescaped.
    escaped_names: Vec<String>,
}

#[derive(Debug, Clone)]
enum Name {
    InLine(Range<usize>),
    Unescaped(usize),
}

impl LineFields {
    /// Parses one line that must be a JSON object; gives the line back when it is not one.
    /// `spare` lends its buffers (a used line's, see [`Shard::recycle`]).
    fn parse(line: String, spare: LineFields) -> Result<LineFields, String> {
        let LineFields {
            mut entries,
            mut escaped_names,
            ..
        } = spare;
        entries.clear();
        escaped_names.clear();
        if scan::object(&line, &mut entries) {
            return Ok(LineFields {
                line,
                entries,
                escaped_names,
            });
        }
        entries.clear();
        {
            let mut de = serde_json::Deserializer::from_str(&line);
            let visitor = FieldsVisitor {
                base: line.as_ptr() as usize,
                entries: &mut entries,
                escaped_names: &mut escaped_names,
            };
            if serde::Deserializer::deserialize_map(&mut de, visitor)
                .and_then(|()| de.end())
                .is_err()
            {
                return Err(line);
            }
        }
        // The values are only skipped here: what a full parse would refuse in them (nesting
        // past serde_json's limit, a number beyond f64) must refuse the line all the same.
        if !values_parse_like_json(&line) {
            return Err(line);
        }
        Ok(LineFields {
            line,
            entries,
            escaped_names,
        })
    }

    fn name(&self, name: &Name) -> &str {
        match name {
            Name::InLine(range) => &self.line[range.clone()],
            Name::Unescaped(i) => &self.escaped_names[*i],
        }
    }

    /// A field's JSON text, exactly as written.
    pub fn get(&self, wanted: &str) -> Option<&str> {
        self.entries
            .iter()
            .rev()
            .find(|(name, _)| self.name(name) == wanted)
            .map(|(_, value)| &self.line[value.clone()])
    }

    /// The names of the fields, in line order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(name, _)| self.name(name))
    }

    /// (name, JSON text) of every field, in line order (a duplicate name once per occurrence).
    pub fn named_texts(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .map(|(name, value)| (self.name(name), &self.line[value.clone()]))
    }

    /// [`LineFields::named_texts`], last field first.
    pub fn named_texts_last_first(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .rev()
            .map(|(name, value)| (self.name(name), &self.line[value.clone()]))
    }
}

/// Reads a JSON object into (name, value) places in the line, unescaping only names with escapes.
struct FieldsVisitor<'a> {
    /// Where the line starts in memory: the places are offsets from it.
    base: usize,
    entries: &'a mut Vec<(Name, Range<usize>)>,
    escaped_names: &'a mut Vec<String>,
}

impl<'de> serde::de::Visitor<'de> for FieldsVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let range_of = |text: &str| {
            let start = text.as_ptr() as usize - self.base;
            start..start + text.len()
        };
        while let Some(name) = map.next_key::<FieldName<'de>>()? {
            let value: &'de RawValue = map.next_value()?;
            let name = match name.0 {
                Cow::Borrowed(text) => Name::InLine(range_of(text)),
                Cow::Owned(text) => {
                    self.escaped_names.push(text);
                    Name::Unescaped(self.escaped_names.len() - 1)
                }
            };
            self.entries.push((name, range_of(value.get())));
        }
        Ok(())
    }
}

/// A field name, borrowed from the line unless it had escapes.
struct FieldName<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for FieldName<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = FieldName<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(FieldName(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(FieldName(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(Visitor)
    }
}

impl AccessLine {
    /// A field of the line as JSON (parsed now); `None` when the line does not have it.
    pub fn field(&self, name: &str) -> Option<Value> {
        self.fields.get(name).map(parse_text)
    }

    /// A field's JSON text exactly as written.
    pub fn raw_field(&self, name: &str) -> Option<&str> {
        self.fields.get(name)
    }
}

/// A one-pass reading of the common line: names without escapes, strings without escapes,
/// numbers without exponents, little nesting. It says yes only to lines that serde_json reads
/// and [`values_parse_like_json`] accepts, giving the same (name, value) places; on anything else
/// it says no, and the line is read by serde_json, which decides (and names what is wrong).
mod scan {
    use std::ops::Range;

    use super::Name;

    /// Nesting past this is left to serde_json (which allows up to [`super::MAX_DEPTH`]).
    const DEPTH: usize = 64;

    /// The fields of `line` into `entries`, or `false` (then `entries` holds garbage).
    pub(super) fn object(line: &str, entries: &mut Vec<(Name, Range<usize>)>) -> bool {
        let b = line.as_bytes();
        let mut i = space(b, 0);
        if b.get(i) != Some(&b'{') {
            return false;
        }
        i = space(b, i + 1);
        if b.get(i) == Some(&b'}') {
            return space(b, i + 1) == b.len();
        }
        loop {
            let Some((name, after)) = name(b, i) else {
                return false;
            };
            i = after;
            let start = i;
            let Some(end) = value(b, i, 1) else {
                return false;
            };
            entries.push((Name::InLine(name), start..end));
            i = space(b, end);
            match b.get(i) {
                Some(b',') => i = space(b, i + 1),
                Some(b'}') => return space(b, i + 1) == b.len(),
                _ => return false,
            }
        }
    }

    /// JSON whitespace from `i` on; the index after it.
    fn space(b: &[u8], mut i: usize) -> usize {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
            i += 1;
        }
        i
    }

    /// A name at `i` (its quote), then `:`: the name's text and the index of the value.
    fn name(b: &[u8], i: usize) -> Option<(Range<usize>, usize)> {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let end = string_end(b, i + 1)?;
        let colon = space(b, end + 1);
        (b.get(colon) == Some(&b':')).then(|| (i + 1..end, space(b, colon + 1)))
    }

    /// The index of the closing quote of a string whose text starts at `i`; `None` for an
    /// escape or a control character (left to serde_json).
    fn string_end(b: &[u8], i: usize) -> Option<usize> {
        let at = i + memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        let controls = b[i..at].iter().fold(false, |any, &c| any | (c < 0x20));
        (b[at] == b'"' && !controls).then_some(at)
    }

    /// The end (exclusive) of the value at `i`, at nesting `depth` (the line's object is 1).
    fn value(b: &[u8], i: usize, depth: usize) -> Option<usize> {
        match *b.get(i)? {
            b'"' => string_end(b, i + 1).map(|at| at + 1),
            b'{' => {
                if depth >= DEPTH {
                    return None;
                }
                let mut i = space(b, i + 1);
                if b.get(i) == Some(&b'}') {
                    return Some(i + 1);
                }
                loop {
                    let (_, after) = name(b, i)?;
                    i = space(b, value(b, after, depth + 1)?);
                    match *b.get(i)? {
                        b',' => i = space(b, i + 1),
                        b'}' => return Some(i + 1),
                        _ => return None,
                    }
                }
            }
            b'[' => {
                if depth >= DEPTH {
                    return None;
                }
                let mut i = space(b, i + 1);
                if b.get(i) == Some(&b']') {
                    return Some(i + 1);
                }
                loop {
                    i = space(b, value(b, i, depth + 1)?);
                    match *b.get(i)? {
                        b',' => i = space(b, i + 1),
                        b']' => return Some(i + 1),
                        _ => return None,
                    }
                }
            }
            b't' => b[i..].starts_with(b"true").then_some(i + 4),
            b'f' => b[i..].starts_with(b"false").then_some(i + 5),
            b'n' => b[i..].starts_with(b"null").then_some(i + 4),
            b'-' | b'0'..=b'9' => number(b, i),
            _ => None,
        }
    }

    /// A number without exponent of at most 300 characters (any other is left to serde_json).
    fn number(b: &[u8], start: usize) -> Option<usize> {
        let digits = |mut i: usize| {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let mut i = start + usize::from(b[start] == b'-');
        match b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits(i + 1),
            _ => return None,
        }
        if b.get(i) == Some(&b'.') {
            let after = digits(i + 1);
            if after == i + 1 {
                return None;
            }
            i = after;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) || i - start > 300 {
            return None;
        }
        Some(i)
    }
}

/// The deepest nesting serde_json builds into values (it refuses the 128th level).
const MAX_DEPTH: usize = 127;

/// Whether a line that is syntactically JSON would also parse into values: no nesting deeper
/// than [`MAX_DEPTH`], no number outside the range of f64. One pass over the bytes.
fn values_parse_like_json(line: &str) -> bool {
    let bytes = line.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // To the closing quote, jumping over escapes.
                i += 1;
                while let Some(at) = memchr::memchr2(b'"', b'\\', &bytes[i.min(bytes.len())..]) {
                    i += at;
                    if bytes[i] == b'"' {
                        break;
                    }
                    i += 2;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return false;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i + 1 < bytes.len()
                    && matches!(bytes[i + 1], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                let number = &line[start..=i];
                if (number.contains(['e', 'E']) || number.len() > 300)
                    && !number.parse::<f64>().is_ok_and(f64::is_finite)
                {
                    return false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    true
}

/// The value of a JSON string written without escapes (what parsing it gives), else `None`.
fn plain_str(text: &str) -> Option<&str> {
    (text.len() >= 2 && text.starts_with('"') && text.ends_with('"') && !text.contains('\\'))
        .then(|| &text[1..text.len() - 1])
}

/// The value of a JSON integer written as plain digits that fits in u64, else `None`.
fn plain_u64(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// JSON text taken from a parsed line (so valid JSON) as a value.
fn parse_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// One file of the capture, as the contract lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceFile {
    pub path: PathBuf,
    /// The path as written in the contract and in messages: relative to the case folder when
    /// inside it, with `/` separators.
    pub display: String,
    pub sha256: String,
    /// Physical lines, the header and blank lines included.
    pub lines: u64,
}

/// What the capture was, once every line has been read.
#[derive(Debug, Clone)]
pub struct Summary {
    pub baseline_id: Option<String>,
    pub files: Vec<TraceFile>,
    pub trace_source_hash: String,
    pub events: u64,
}

/// The header of one file.
#[derive(Debug, Clone)]
pub struct Header {
    pub baseline_id: Option<String>,
}

struct Shard {
    path: PathBuf,
    display: String,
    reader: BufReader<std::io::Take<File>>,
    line: u64,
    last_seq: Option<u64>,
    done: bool,
    /// A used event's buffers, for the next line (see [`Part::recycle`]).
    spare: Spare,
    /// The length of the last line read, newline included.
    last_len: usize,
}

/// The buffers of a used event: its line, its fields' places, its key strings.
#[derive(Default)]
struct Spare {
    fields: LineFields,
    strings: [String; 5],
}

fn bad(message: String) -> anyhow::Error {
    TracerError::usage(message).into()
}

/// The name of `path` as the user sees it: relative to `base` when inside it, `/`-separated.
pub fn display_path(path: &Path, base: &Path) -> String {
    let relative = path.strip_prefix(base).unwrap_or(path);
    let parts: Vec<String> = relative
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if relative.is_absolute() {
        relative.display().to_string()
    } else {
        parts.join("/")
    }
}

impl Shard {
    fn open(path: &Path, display: String) -> Result<Shard> {
        let file = crate::files::open_regular(path).map_err(|e| {
            bad(format!(
                "cannot read trace {display}: {e}; check the path given to --trace"
            ))
        })?;
        Ok(Shard {
            path: path.to_owned(),
            display,
            reader: BufReader::with_capacity(256 * 1024, file.take(u64::MAX)),
            line: 0,
            last_seq: None,
            done: false,
            spare: Spare::default(),
            last_len: 0,
        })
    }

    /// The next physical line as text, without its line ending; `None` at the end of the file.
    /// The flag says whether the line ended with a newline.
    fn next_line(&mut self) -> Result<Option<(String, bool)>> {
        // Read into a used line's buffer, so the text is not copied again.
        let mut bytes = std::mem::take(&mut self.spare.fields.line).into_bytes();
        bytes.clear();
        // No used buffer (the events went elsewhere): one allocation the size of the last line.
        bytes.reserve(self.last_len);
        let n = self
            .reader
            .read_until(b'\n', &mut bytes)
            .with_context(|| format!("reading trace {}", self.display))?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        self.last_len = n;
        let terminated = bytes.last() == Some(&b'\n');
        if terminated {
            bytes.pop();
        }
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        if self.line == 1 && bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes.drain(..3);
        }
        match String::from_utf8(bytes) {
            Ok(line) => Ok(Some((line, terminated))),
            Err(e) => Err(bad(format!(
                "{}:{}: not UTF-8 (invalid byte at column {}); a tracer-trace/v1 file is UTF-8 text: re-export the trace",
                self.display,
                self.line,
                e.utf8_error().valid_up_to() + 1
            ))),
        }
    }

    /// Keeps the buffers of a used event for the next line.
    fn recycle(&mut self, event: AccessLine) {
        self.spare = Spare {
            fields: event.fields,
            strings: [
                event.api,
                event.access_type,
                event.realm,
                event.receiver,
                event.phase,
            ],
        };
    }

    fn parse_object(&mut self, text: String, terminated: bool) -> Result<LineFields> {
        let spare = std::mem::take(&mut self.spare.fields);
        let text = match LineFields::parse(text, spare) {
            Ok(fields) => return Ok(fields),
            Err(text) => text,
        };
        // Not a JSON object: parse it again as any JSON to say what it is.
        match serde_json::from_str::<Value>(&text) {
            Ok(other) => Err(bad(format!(
                "{}:{}: expected one JSON object per line, found {}; every line of a tracer-trace/v1 file is an object",
                self.display,
                self.line,
                kind_of(&other)
            ))),
            Err(e) if !terminated => Err(bad(format!(
                "{}:{}: truncated last line (no newline at the end, and not a complete JSON object: {e}); \
                 the recorder may still be writing, or the file was cut: record again or remove the partial line",
                self.display, self.line
            ))),
            Err(e) => Err(bad(format!(
                "{}:{}: malformed JSON at column {} ({e}); fix or remove the line and build again",
                self.display,
                self.line,
                e.column()
            ))),
        }
    }

    fn read_header(&mut self) -> Result<Header> {
        let Some((text, terminated)) = self.next_line()? else {
            return Err(bad(format!(
                "{}: empty file, no {SCHEMA} header; a trace starts with a header line",
                self.display
            )));
        };
        let fields = self.parse_object(text, terminated)?;
        let map: BTreeMap<&str, Value> = fields
            .names()
            .filter_map(|name| Some((name, parse_text(fields.get(name)?))))
            .collect();
        let kind = map.get("type").and_then(Value::as_str);
        let schema = map.get("schema").and_then(Value::as_str);
        if kind != Some("header") || schema != Some(SCHEMA) {
            let found = match (kind, schema) {
                (Some("header"), Some(other)) => format!("a header of schema `{other}`"),
                (Some("header"), None) => "a header without `schema`".to_owned(),
                _ => "no header".to_owned(),
            };
            return Err(bad(format!(
                "{}:1: {found}; line 1 must be {{\"type\":\"header\",\"schema\":\"{SCHEMA}\",...}}: \
                 record with a {SCHEMA} recorder or convert the file",
                self.display
            )));
        }
        let baseline_id = match map.get("baselineId") {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) => Some(id.clone()),
            Some(other) => {
                return Err(bad(format!(
                    "{}:1: `baselineId` must be a string, found {}",
                    self.display,
                    kind_of(other)
                )));
            }
        };
        Ok(Header { baseline_id })
    }

    /// The next access event of this shard, blank lines skipped.
    fn next_event(&mut self, file: usize) -> Result<Option<AccessLine>> {
        if self.done {
            return Ok(None);
        }
        loop {
            let Some((text, terminated)) = self.next_line()? else {
                self.done = true;
                return Ok(None);
            };
            if text.trim().is_empty() {
                continue;
            }
            let fields = self.parse_object(text, terminated)?;
            let event = self.event_of(fields, file)?;
            if let Some(last) = self.last_seq
                && event.seq <= last
            {
                return Err(bad(format!(
                    "{}:{}: seq {} after seq {last}; seq must be strictly increasing within a file \
                     (a trace rebuilt by sorting or concatenated from two runs is refused): record again",
                    self.display, self.line, event.seq
                )));
            }
            self.last_seq = Some(event.seq);
            return Ok(Some(event));
        }
    }

    fn event_of(&mut self, mut fields: LineFields, file: usize) -> Result<AccessLine> {
        let at = || format!("{}:{}", self.display, self.line);
        // The key fields are taken out (one pass), and the last of each kept in `found`; nav,
        // tags and state stay in `fields` too. Values are parsed only when they are not plain
        // strings or plain integers, which is what a full parse would give them.
        let mut found: [Option<Range<usize>>; 10] = Default::default();
        {
            let LineFields {
                line,
                entries,
                escaped_names,
            } = &mut fields;
            entries.retain(|(name, value)| {
                let name = match name {
                    Name::InLine(range) => &line[range.clone()],
                    Name::Unescaped(i) => escaped_names[*i].as_str(),
                };
                let slot = match name {
                    "type" => 0,
                    "seq" => 1,
                    "api" => 2,
                    "accessType" => 3,
                    "realm" => 4,
                    "receiver" => 5,
                    "phase" => 6,
                    "nav" => 7,
                    "tags" => 8,
                    "state" => 9,
                    _ => return true,
                };
                // A duplicate key: the last one wins.
                found[slot] = Some(value.clone());
                slot > 6
            });
        }
        let text = |slot: usize| found[slot].clone().map(|range| &fields.line[range]);
        match text(0) {
            Some(r#""access""#) => {}
            Some(t) => match parse_text(t) {
                Value::String(t) if t == "access" => {}
                Value::String(t) if t == "header" => {
                    return Err(bad(format!(
                        "{}: a second header; only line 1 is a header (were two files concatenated? give them as shards with --trace)",
                        at()
                    )));
                }
                other => {
                    return Err(bad(format!(
                        "{}: line kind {other} is not part of {SCHEMA} (expected \"access\")",
                        at()
                    )));
                }
            },
            None => {
                return Err(bad(format!(
                    "{}: missing field `type` (expected \"access\")",
                    at()
                )));
            }
        }
        let seq = match text(1).map(|t| (t, plain_u64(t))) {
            Some((_, Some(n))) => n,
            Some((t, None)) => match parse_text(t) {
                Value::Number(n) if n.as_u64().is_some() => n.as_u64().unwrap_or_default(),
                other => {
                    return Err(bad(format!(
                        "{}: `seq` must be an unsigned integer, found {}",
                        at(),
                        kind_of(&other)
                    )));
                }
            },
            None => return Err(bad(format!("{}: missing field `seq`", at()))),
        };
        let names = ["api", "accessType", "realm", "receiver", "phase"];
        let mut strings = std::mem::take(&mut self.spare.strings);
        for (i, out) in strings.iter_mut().enumerate() {
            let name = names[i];
            out.clear();
            match text(2 + i) {
                Some(t) => match plain_str(t) {
                    Some(inner) => out.push_str(inner),
                    None => match parse_text(t) {
                        Value::String(s) => *out = s,
                        other => {
                            return Err(bad(format!(
                                "{}: `{name}` must be a string, found {}",
                                at(),
                                kind_of(&other)
                            )));
                        }
                    },
                },
                None => {
                    return Err(bad(format!(
                        "{}: missing field `{name}`; every access line names api, accessType, realm, receiver and phase",
                        at()
                    )));
                }
            }
        }
        let [api, access_type, realm, receiver, phase] = strings;
        let nav = text(7).and_then(|t| plain_u64(t).or_else(|| parse_text(t).as_u64()));
        let mut map: BTreeMap<&str, Value> = BTreeMap::new();
        for slot in [8, 9] {
            if let Some(t) = text(slot) {
                map.insert(if slot == 8 { "tags" } else { "state" }, parse_text(t));
            }
        }
        let tags = match map.get("tags") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|t| t.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| bad(format!("{}: `tags` must be an array of strings", at())))?,
            Some(other) => {
                return Err(bad(format!(
                    "{}: `tags` must be an array, found {}",
                    at(),
                    kind_of(other)
                )));
            }
        };
        let state = match map.get("state") {
            None | Some(Value::Null) => None,
            Some(Value::Object(state)) => {
                let field = |name: &str| {
                    state
                        .get(name)
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .ok_or_else(|| bad(format!("{}: `state.{name}` must be a string", at())))
                };
                Some(State {
                    family: field("family")?,
                    object: field("object")?,
                    event: field("event")?,
                })
            }
            Some(other) => {
                return Err(bad(format!(
                    "{}: `state` must be an object, found {}",
                    at(),
                    kind_of(other)
                )));
            }
        };
        Ok(AccessLine {
            file,
            line: self.line,
            seq,
            api,
            access_type,
            realm,
            receiver,
            phase,
            nav,
            tags,
            state,
            fields,
        })
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reads only the header of a trace file (used by discovery to group files into captures).
pub fn read_header(path: &Path, display: String) -> Result<Header> {
    Shard::open(path, display)?.read_header()
}

/// One part of a single trace file: the lines from one line start to another, after the
/// header, read as the whole file's reader reads them (the same events and the same refusals), so
/// that the parts of a file can be read on several threads at once. Its line numbers count from
/// the part's start, so a caller that meets an error reads the file again as a whole to name the
/// line; and the `seq` order is checked within the part only: between two parts it is the
/// caller's to check.
pub struct Part {
    shard: Shard,
}

impl Part {
    /// The part of `path` at `range` (from [`split`]).
    pub fn open(path: &Path, display: String, range: Range<u64>) -> Result<Part> {
        let mut file = crate::files::open_regular(path)
            .with_context(|| format!("cannot read trace {display}"))?;
        file.seek(SeekFrom::Start(range.start))
            .with_context(|| format!("reading trace {display}"))?;
        let mut shard = Shard::open(path, display)?;
        shard.reader = BufReader::with_capacity(256 * 1024, file.take(range.end - range.start));
        // Past the header: no byte-order mark, and no header expected.
        shard.line = 1;
        Ok(Part { shard })
    }

    /// The next access event of the part, blank lines skipped.
    pub fn next_event(&mut self) -> Result<Option<AccessLine>> {
        self.shard.next_event(0)
    }

    /// Lines read so far, blank ones included.
    pub fn lines(&self) -> u64 {
        self.shard.line - 1
    }

    /// Gives back the buffers of an event the caller is done with, for the next line.
    pub fn recycle(&mut self, event: AccessLine) {
        self.shard.recycle(event);
    }
}

/// Where a single trace file splits into about `parts` parts of equal size (see [`Part`]): the
/// byte ranges after its header line, each starting at a line start. The header itself is read
/// apart ([`read_header`]). Fewer ranges when the lines are long or the file short; none when the
/// file is only a header.
pub fn split(path: &Path, parts: usize) -> Result<Vec<Range<u64>>> {
    let mut file = crate::files::open_regular(path)
        .with_context(|| format!("cannot read trace {}", path.display()))?;
    let size = file
        .metadata()
        .with_context(|| format!("reading trace {}", path.display()))?
        .len();
    let mut header = Vec::new();
    BufReader::new(&mut file)
        .take(size)
        .read_until(b'\n', &mut header)
        .with_context(|| format!("reading trace {}", path.display()))?;
    let start = header.len() as u64;
    let mut cuts = vec![start];
    let parts = parts.max(1) as u64;
    let mut buf = vec![0u8; 64 * 1024];
    for k in 1..parts {
        let wanted = start + (size - start) * k / parts;
        let last = *cuts.last().unwrap_or(&start);
        if wanted <= last {
            continue;
        }
        // The first line start at or after `wanted`: just past the first newline from
        // `wanted - 1` on.
        file.seek(SeekFrom::Start(wanted - 1))
            .with_context(|| format!("reading trace {}", path.display()))?;
        let mut at = wanted - 1;
        let cut = loop {
            let n = file
                .read(&mut buf)
                .with_context(|| format!("reading trace {}", path.display()))?;
            if n == 0 {
                break size;
            }
            if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                break at + i as u64 + 1;
            }
            at += n as u64;
        };
        if cut > last && cut < size {
            cuts.push(cut);
        }
    }
    cuts.push(size);
    Ok(cuts
        .windows(2)
        .filter(|w| w[0] < w[1])
        .map(|w| w[0]..w[1])
        .collect())
}

/// `traceSourceHash` and the sha256 of each file, in merge order.
type Digests = (String, Vec<String>);

/// What a shard's reading thread sends: events in order, then its end (or its first error).
enum Batch {
    Events(Vec<AccessLine>),
    Failed(anyhow::Error),
    End { lines: u64 },
}

/// How many events a reading thread sends at once, and how many batches may wait: memory stays
/// bounded per shard, whatever the file's size.
const BATCH: usize = 256;
const BATCHES_AHEAD: usize = 8;

/// One shard, read and parsed on its own thread while the caller consumes its events: parsing the
/// lines and building from them run on two cores. The events, errors and line count are exactly
/// what reading the shard in place would give, in the same order.
struct Source {
    path: PathBuf,
    display: String,
    receiver: std::sync::mpsc::Receiver<Batch>,
    ready: std::collections::VecDeque<AccessLine>,
    /// The shard's line count, once its end arrived.
    lines: Option<u64>,
    /// The first error, kept so a second call gives it again.
    failed: bool,
}

impl Source {
    fn start(mut shard: Shard, file: usize) -> Result<Source> {
        let (sender, receiver) = std::sync::mpsc::sync_channel(BATCHES_AHEAD);
        let (path, display) = (shard.path.clone(), shard.display.clone());
        std::thread::Builder::new()
            .name("trace-read".into())
            .spawn(move || {
                let mut batch = Vec::with_capacity(BATCH);
                loop {
                    match shard.next_event(file) {
                        Ok(Some(event)) => {
                            batch.push(event);
                            if batch.len() == BATCH {
                                let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                                // The reader is gone (it stopped early): so is the need to read.
                                if sender.send(Batch::Events(full)).is_err() {
                                    return;
                                }
                            }
                        }
                        Ok(None) => {
                            let _ = sender.send(Batch::Events(batch));
                            let _ = sender.send(Batch::End { lines: shard.line });
                            return;
                        }
                        Err(e) => {
                            let _ = sender.send(Batch::Events(batch));
                            let _ = sender.send(Batch::Failed(e));
                            return;
                        }
                    }
                }
            })
            .context("starting a trace reading thread")?;
        Ok(Source {
            path,
            display,
            receiver,
            ready: std::collections::VecDeque::new(),
            lines: None,
            failed: false,
        })
    }

    fn next_event(&mut self) -> Result<Option<AccessLine>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            if self.lines.is_some() {
                return Ok(None);
            }
            if self.failed {
                return Err(bad(format!(
                    "{}: reading stopped at an error",
                    self.display
                )));
            }
            match self.receiver.recv() {
                Ok(Batch::Events(events)) => self.ready.extend(events),
                Ok(Batch::End { lines }) => self.lines = Some(lines),
                Ok(Batch::Failed(e)) => {
                    self.failed = true;
                    return Err(e);
                }
                Err(_) => {
                    self.failed = true;
                    return Err(anyhow::anyhow!(
                        "the thread reading {} stopped unexpectedly",
                        self.display
                    ));
                }
            }
        }
    }

    /// The shard's line count (every event must have been taken).
    fn lines(&mut self) -> u64 {
        while self.lines.is_none() && !self.failed {
            if self.next_event().is_err() {
                break;
            }
        }
        self.lines.unwrap_or(0)
    }
}

/// The shards of one capture, merged into one stream in `seq` order.
pub struct MergedShards {
    /// Each shard, read and parsed ahead on a thread of its own (see [`Source`]).
    sources: Vec<Source>,
    heads: Vec<Option<AccessLine>>,
    baseline_id: Option<String>,
    hashing: Option<JoinHandle<std::io::Result<Digests>>>,
    events: u64,
}

impl MergedShards {
    /// Opens every file, checks the headers and that all share one `baselineId`, and orders the
    /// shards by their first `seq` (files with no event last, by path): that is the merge order in
    /// which `traceSourceHash` is computed.
    pub fn open(paths: &[PathBuf], case_dir: &Path) -> Result<MergedShards> {
        let mut shards = Vec::with_capacity(paths.len());
        let mut headers = Vec::with_capacity(paths.len());
        for path in paths {
            let mut shard = Shard::open(path, display_path(path, case_dir))?;
            headers.push(shard.read_header()?);
            shards.push(shard);
        }
        let baseline_id = headers.first().and_then(|h| h.baseline_id.clone());
        if headers.iter().any(|h| h.baseline_id != baseline_id) {
            let list: Vec<String> = shards
                .iter()
                .zip(&headers)
                .map(|(s, h)| {
                    format!(
                        "  {} (baselineId {})",
                        s.display,
                        h.baseline_id.as_deref().unwrap_or("none")
                    )
                })
                .collect();
            return Err(bad(format!(
                "these files are not shards of one capture (their baselineIds differ):\n{}\n\
                 give the files of one capture with --trace",
                list.join("\n")
            )));
        }
        let mut firsts = Vec::with_capacity(shards.len());
        for (i, shard) in shards.iter_mut().enumerate() {
            firsts.push(shard.next_event(i)?);
        }
        let mut order: Vec<usize> = (0..shards.len()).collect();
        order.sort_by(|&a, &b| {
            let key = |i: usize| {
                (
                    firsts[i].as_ref().map_or(u64::MAX, |e| e.seq),
                    shards[i].display.clone(),
                )
            };
            key(a).cmp(&key(b))
        });
        let mut slots: Vec<Option<(Shard, Option<AccessLine>)>> =
            shards.into_iter().zip(firsts).map(Some).collect();
        let mut shards = Vec::with_capacity(slots.len());
        let mut heads = Vec::with_capacity(slots.len());
        for (new_index, old) in order.into_iter().enumerate() {
            let (shard, mut head) = slots[old]
                .take()
                .unwrap_or_else(|| unreachable!("each index once"));
            if let Some(event) = head.as_mut() {
                event.file = new_index;
            }
            shards.push(shard);
            heads.push(head);
        }
        let files: Vec<PathBuf> = shards.iter().map(|s| s.path.clone()).collect();
        let sources = shards
            .into_iter()
            .enumerate()
            .map(|(i, shard)| Source::start(shard, i))
            .collect::<Result<Vec<_>>>()?;
        let hashing = std::thread::Builder::new()
            .name("trace-hash".into())
            .spawn(move || -> std::io::Result<Digests> { hash::trace_source_and_files(&files) })
            .context("starting the hashing thread")?;
        Ok(MergedShards {
            sources,
            heads,
            baseline_id,
            hashing: Some(hashing),
            events: 0,
        })
    }

    pub fn baseline_id(&self) -> Option<&str> {
        self.baseline_id.as_deref()
    }

    /// The shards' display paths, in merge order (`AccessLine::file` indexes this).
    pub fn file_names(&self) -> Vec<String> {
        self.sources.iter().map(|s| s.display.clone()).collect()
    }

    /// The next event in global `seq` order; refuses a `seq` that two shards share.
    pub fn next_event(&mut self) -> Result<Option<AccessLine>> {
        let mut best: Option<usize> = None;
        for (i, head) in self.heads.iter().enumerate() {
            let Some(event) = head else { continue };
            match best {
                None => best = Some(i),
                Some(b) => {
                    let current = self.heads[b].as_ref().map_or(u64::MAX, |e| e.seq);
                    if event.seq == current {
                        let other = self.heads[b].as_ref().map_or(0, |e| e.line);
                        return Err(bad(format!(
                            "seq {} appears in {}:{other} and in {}:{}; shards of one capture never share a seq, \
                             so these files have no single global order: give the files of one capture with --trace",
                            event.seq, self.sources[b].display, self.sources[i].display, event.line
                        )));
                    }
                    if event.seq < current {
                        best = Some(i);
                    }
                }
            }
        }
        let Some(i) = best else { return Ok(None) };
        let next = self.sources[i].next_event()?;
        let event = std::mem::replace(&mut self.heads[i], next);
        self.events += 1;
        Ok(event)
    }

    /// Ends the read: every line must have been consumed. Returns the files with their digests
    /// and line counts, and `traceSourceHash`.
    pub fn finish(mut self) -> Result<Summary> {
        let handle = self
            .hashing
            .take()
            .context("the capture was already finished")?;
        let (whole, each) = handle
            .join()
            .map_err(|_| anyhow::anyhow!("the hashing thread panicked"))?
            .context("hashing the trace files")?;
        let files = self
            .sources
            .iter_mut()
            .zip(each)
            .map(|(s, sha256)| TraceFile {
                path: s.path.clone(),
                display: s.display.clone(),
                sha256,
                lines: s.lines(),
            })
            .collect();
        Ok(Summary {
            baseline_id: self.baseline_id,
            files,
            trace_source_hash: whole,
            events: self.events,
        })
    }
}

/// Reads a whole capture, calling `each` for every event in global `seq` order.
pub fn read_capture(
    paths: &[PathBuf],
    case_dir: &Path,
    mut each: impl FnMut(&AccessLine, &[String]) -> Result<()>,
) -> Result<Summary> {
    let mut capture = MergedShards::open(paths, case_dir)?;
    let names = capture.file_names();
    while let Some(event) = capture.next_event()? {
        each(&event, &names)?;
    }
    capture.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::exit_code_of;

    const HEADER: &str = r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1"}"#;

    fn access(seq: u64) -> String {
        format!(
            r#"{{"type":"access","seq":{seq},"api":"navigator.userAgent","accessType":"get","realm":"main","receiver":"Navigator","phase":"init"}}"#
        )
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn seqs(paths: &[PathBuf], dir: &Path) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        read_capture(paths, dir, |e, _| {
            out.push(e.seq);
            Ok(())
        })?;
        Ok(out)
    }

    fn error_of(result: Result<Vec<u64>>) -> (u8, String) {
        let err = result.expect_err("should be refused");
        (exit_code_of(&err), err.to_string())
    }

    #[test]
    fn bom_crlf_blank_lines_and_a_complete_unterminated_last_line_are_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "\u{FEFF}{HEADER}\r\n{}\r\n\r\n   \n{}",
            access(1),
            access(2)
        );
        let path = write(dir.path(), "t.ndjson", text.as_bytes());
        assert_eq!(seqs(&[path], dir.path()).unwrap(), [1, 2]);
    }

    #[test]
    fn malformed_line_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "{HEADER}\n{}\n{{\"type\":\"access\",\n{}\n",
            access(1),
            access(3)
        );
        let path = write(dir.path(), "t.ndjson", text.as_bytes());
        let (code, msg) = error_of(seqs(&[path], dir.path()));
        assert_eq!(code, 2);
        assert!(msg.starts_with("t.ndjson:3: malformed JSON"), "{msg}");
    }

    #[test]
    fn truncated_last_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{HEADER}\n{}\n{{\"type\":\"acc", access(1));
        let path = write(dir.path(), "t.ndjson", text.as_bytes());
        let (code, msg) = error_of(seqs(&[path], dir.path()));
        assert_eq!(code, 2);
        assert!(msg.contains("t.ndjson:3: truncated last line"), "{msg}");
    }

    #[test]
    fn non_utf8_is_refused_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = format!("{HEADER}\n").into_bytes();
        bytes.extend_from_slice(b"{\"type\":\"access\",\"api\":\"\xff\"}\n");
        let path = write(dir.path(), "t.ndjson", &bytes);
        let (code, msg) = error_of(seqs(&[path], dir.path()));
        assert_eq!(code, 2);
        assert!(msg.contains("t.ndjson:2: not UTF-8"), "{msg}");
    }

    #[test]
    fn missing_or_foreign_header_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let none = write(
            dir.path(),
            "a.ndjson",
            format!("{}\n", access(1)).as_bytes(),
        );
        let (_, msg) = error_of(seqs(&[none], dir.path()));
        assert!(msg.contains("a.ndjson:1: no header"), "{msg}");
        let other = write(
            dir.path(),
            "b.ndjson",
            b"{\"type\":\"header\",\"schema\":\"tracer-trace/v0\"}\n",
        );
        let (_, msg) = error_of(seqs(&[other], dir.path()));
        assert!(msg.contains("schema `tracer-trace/v0`"), "{msg}");
        let empty = write(dir.path(), "c.ndjson", b"");
        let (_, msg) = error_of(seqs(&[empty], dir.path()));
        assert!(msg.contains("c.ndjson: empty file"), "{msg}");
    }

    #[test]
    fn seq_must_increase_within_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{HEADER}\n{}\n{}\n", access(5), access(5));
        let path = write(dir.path(), "t.ndjson", text.as_bytes());
        let (_, msg) = error_of(seqs(&[path], dir.path()));
        assert!(msg.contains("t.ndjson:3: seq 5 after seq 5"), "{msg}");
    }

    #[test]
    fn shards_merge_in_seq_order_whatever_the_argument_order() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(
            dir.path(),
            "a.ndjson",
            format!("{HEADER}\n{}\n{}\n", access(2), access(4)).as_bytes(),
        );
        let b = write(
            dir.path(),
            "b.ndjson",
            format!("{HEADER}\n{}\n{}\n", access(1), access(3)).as_bytes(),
        );
        assert_eq!(
            seqs(&[a.clone(), b.clone()], dir.path()).unwrap(),
            [1, 2, 3, 4]
        );
        let mut names = Vec::new();
        let summary = read_capture(&[a.clone(), b.clone()], dir.path(), |_, n| {
            names = n.to_vec();
            Ok(())
        })
        .unwrap();
        assert_eq!(names, ["b.ndjson", "a.ndjson"]);
        assert_eq!(
            summary.trace_source_hash,
            hash::trace_source(&[b, a]).unwrap()
        );
        assert_eq!(summary.files[0].lines, 3);
    }

    #[test]
    fn shared_seq_across_shards_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(
            dir.path(),
            "a.ndjson",
            format!("{HEADER}\n{}\n", access(7)).as_bytes(),
        );
        let b = write(
            dir.path(),
            "b.ndjson",
            format!("{HEADER}\n{}\n", access(7)).as_bytes(),
        );
        let (code, msg) = error_of(seqs(&[a, b], dir.path()));
        assert_eq!(code, 2);
        assert!(
            msg.contains("seq 7 appears in a.ndjson:2 and in b.ndjson:2"),
            "{msg}"
        );
    }

    #[test]
    fn shards_of_different_baselines_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(
            dir.path(),
            "a.ndjson",
            format!("{HEADER}\n{}\n", access(1)).as_bytes(),
        );
        let other = HEADER.replace("b1", "b2");
        let b = write(
            dir.path(),
            "b.ndjson",
            format!("{other}\n{}\n", access(2)).as_bytes(),
        );
        let (_, msg) = error_of(seqs(&[a, b], dir.path()));
        assert!(msg.contains("b.ndjson (baselineId b2)"), "{msg}");
    }

    #[test]
    fn absent_and_null_stay_distinct() {
        let dir = tempfile::tempdir().unwrap();
        let line = r#"{"type":"access","seq":1,"api":"a","accessType":"get","realm":"main","receiver":"R","phase":"p","exception":null,"extra":1}"#;
        let path = write(
            dir.path(),
            "t.ndjson",
            format!("{HEADER}\n{line}\n").as_bytes(),
        );
        read_capture(&[path], dir.path(), |e, _| {
            assert_eq!(e.field("exception"), Some(Value::Null));
            assert_eq!(e.field("owner"), None);
            assert_eq!(e.field("extra"), Some(Value::from(1)));
            // The key fields are taken out; the other fields keep their text as written.
            assert_eq!(e.raw_field("api"), None);
            assert_eq!(e.raw_field("extra"), Some("1"));
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn values_are_held_to_what_a_full_parse_accepts() {
        for (depth, ok) in [(126, true), (127, false), (200, false)] {
            // The line's own object is one level.
            let line = format!(r#"{{"x":{}1{}}}"#, "[".repeat(depth), "]".repeat(depth));
            assert_eq!(values_parse_like_json(&line), ok, "depth {depth}");
            assert_eq!(
                serde_json::from_str::<Value>(&line).is_ok(),
                ok,
                "as serde_json, depth {depth}"
            );
        }
        for (number, ok) in [
            ("1e308", true),
            ("1e400", false),
            ("-1E+999", false),
            ("1.5", true),
        ] {
            let line = format!(r#"{{"s":"1e400 \" [[","x":[{number}]}}"#);
            assert_eq!(values_parse_like_json(&line), ok, "{number}");
            assert_eq!(serde_json::from_str::<Value>(&line).is_ok(), ok, "{number}");
        }
    }

    #[test]
    fn escaped_and_duplicate_names_read_like_json() {
        let dir = tempfile::tempdir().unwrap();
        // `"\u006fwner"` is `owner`; the second `returnValue` wins, as in serde_json's maps.
        let line = r#"{"type":"access","seq":1,"api":"a","accessType":"get","realm":"main","receiver":"R","phase":"p","\u006fwner":"X.prototype","returnValue":1,"returnValue": [2, {"a":"\n"}]}"#;
        let path = write(
            dir.path(),
            "t.ndjson",
            format!("{HEADER}\n{line}\n").as_bytes(),
        );
        read_capture(&[path], dir.path(), |e, _| {
            assert_eq!(e.field("owner"), Some(Value::from("X.prototype")));
            assert_eq!(e.raw_field("returnValue"), Some(r#"[2, {"a":"\n"}]"#));
            Ok(())
        })
        .unwrap();
    }

    /// The places serde_json gives a line's fields (the reading the scanner must match).
    fn serde_places(line: &str) -> Option<Vec<(Range<usize>, Range<usize>)>> {
        let mut entries = Vec::new();
        let mut escaped_names = Vec::new();
        let mut de = serde_json::Deserializer::from_str(line);
        let visitor = FieldsVisitor {
            base: line.as_ptr() as usize,
            entries: &mut entries,
            escaped_names: &mut escaped_names,
        };
        serde::Deserializer::deserialize_map(&mut de, visitor)
            .and_then(|()| de.end())
            .ok()?;
        if !values_parse_like_json(line) || !escaped_names.is_empty() {
            return None;
        }
        Some(
            entries
                .into_iter()
                .map(|(name, value)| match name {
                    Name::InLine(name) => (name, value),
                    Name::Unescaped(_) => unreachable!("no escaped names"),
                })
                .collect(),
        )
    }

    /// Where the scanner says yes, serde_json reads the same places and accepts the values.
    fn scanner_agrees(line: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let mut entries = Vec::new();
        if scan::object(line, &mut entries) {
            let scanned: Vec<_> = entries
                .into_iter()
                .map(|(name, value)| match name {
                    Name::InLine(name) => (name, value),
                    Name::Unescaped(_) => unreachable!("the scanner never unescapes"),
                })
                .collect();
            proptest::prop_assert_eq!(Some(scanned), serde_places(line), "{}", line);
        }
        Ok(())
    }

    #[test]
    fn the_scanner_reads_only_what_serde_json_reads_and_as_it_does() {
        use proptest::prelude::*;
        for line in [
            r#"{}"#,
            r#" { "a" : 1 , "b":[ ] ,"c":{ } } "#,
            r#"{"a":-0.5,"b":0,"c":-0,"d":[true,false,null],"e":"é"}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":1e5}"#,
            r#"{"a":"x\y"}"#,
            "{\"a\":\"tab\there\"}",
            r#"{"a":[1,]}"#,
            r#"{"a":1,}"#,
            r#"{"a":1}x"#,
            r#"{"a" 1}"#,
            r#"{"a":tru}"#,
            r#"{"a":"é","é":[{"x":[[]]}]}"#,
            "{\"a\":1}\u{0}",
        ] {
            scanner_agrees(line).unwrap();
        }
        // Lines of JSON-ish tokens, mostly broken, and lines of valid JSON.
        let token = prop::sample::select(vec![
            "{", "}", "[", "]", ":", ",", " ", "\"", "\"a\"", "\"b\"", "\\", "\\n", "\\u00", "0",
            "1", "-", ".", "5", "e", "E", "+", "true", "false", "null", "nul", "x", "\t", "\u{1}",
            "é",
        ]);
        let tokens = prop::collection::vec(token, 0..24).prop_map(|t| format!("{{{}", t.concat()));
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>().prop_map(serde_json::Value::from),
            "[ -~é\\\"\n]{0,8}".prop_map(serde_json::Value::from),
        ];
        let value = leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                prop::collection::btree_map("[a-c\"]{0,3}", inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        });
        let objects = prop::collection::vec(("[a-d\\\\]{0,3}", value), 0..6).prop_map(|fields| {
            let body: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{}:{}", serde_json::Value::from(k.as_str()), v))
                .collect();
            format!("{{{}}}", body.join(","))
        });
        let mut runner = proptest::test_runner::TestRunner::default();
        runner
            .run(&prop_oneof![tokens, objects], |line| scanner_agrees(&line))
            .unwrap();
    }
}
