//! One file of a capture (a shard): its header, and its lines read in order.

use super::*;

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

pub(super) struct Shard {
    pub(super) path: PathBuf,
    pub(super) display: String,
    pub(super) reader: BufReader<std::io::Take<File>>,
    pub(super) line: u64,
    pub(super) last_seq: Option<u64>,
    pub(super) done: bool,
    /// A used event's buffers, for the next line (see [`Part::recycle`]).
    pub(super) spare: Spare,
    /// The length of the last line read, newline included.
    pub(super) last_len: usize,
}

/// The buffers of a used event: its line, its fields' places, its key strings.
#[derive(Default)]
pub(super) struct Spare {
    pub(super) fields: LineFields,
    pub(super) strings: [String; 5],
}

pub(super) fn bad(message: String) -> anyhow::Error {
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
    pub(super) fn open(path: &Path, display: String) -> Result<Shard> {
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
    pub(super) fn next_line(&mut self) -> Result<Option<(String, bool)>> {
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
    pub(super) fn recycle(&mut self, event: AccessLine) {
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

    pub(super) fn parse_object(&mut self, text: String, terminated: bool) -> Result<LineFields> {
        let spare = std::mem::take(&mut self.spare.fields);
        let text = match LineFields::parse(text, spare) {
            Ok(fields) => return Ok(fields),
            Err(text) => text,
        };
        // Not a JSON object: parse it again as any JSON to say what it is.
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(_)) => Err(bad(format!(
                "{}:{}: nested deeper than {MAX_DEPTH} levels (or a number beyond a 64-bit float); \
                 the files built from a trace could not be read back: record the value shallower",
                self.display, self.line
            ))),
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

    pub(super) fn read_header(&mut self) -> Result<Header> {
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
    pub(super) fn next_event(&mut self, file: usize) -> Result<Option<AccessLine>> {
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

    pub(super) fn event_of(&mut self, mut fields: LineFields, file: usize) -> Result<AccessLine> {
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

pub(super) fn kind_of(value: &Value) -> &'static str {
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
