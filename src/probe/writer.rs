//! The `tracer-trace/v1` file the probe's records are written to (by `tracer record`, and by the
//! audit for the Node side): the header first, then one access line per
//! record, flushed once per binding call (a record or a batch of them), so a crash of the page or
//! of the browser loses nothing the recorder already received. It owns the line layout (`type`, `seq`, `t`, `realm`, `realmId`,
//! `nav`, `phase`, `api`, `accessType` first, then the other fields by name) and the `$string`
//! rule: any string over 500 characters, in any field, becomes
//! `{"$string":"sha256:…","length":n,"preview":"first 120 characters"}`. Characters are counted
//! as JavaScript counts them (UTF-16 code units); the digest is over the string's UTF-8 bytes.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::conformance::hash;
use crate::conformance::random_names;
use crate::conformance::raw_trace::{LONG_STRING, PREVIEW};
use crate::trace::redact::Redactor;

/// The fields that open every access line, in this order.
const LEADING: [&str; 9] = [
    "type",
    "seq",
    "t",
    "realm",
    "realmId",
    "nav",
    "phase",
    "api",
    "accessType",
];

/// What the header says about the recording.
pub struct HeaderInfo<'a> {
    pub baseline_id: &'a str,
    /// `chromium` or `node`.
    pub runtime: &'a str,
    pub runtime_version: &'a str,
    pub started_at: &'a str,
    pub page: &'a str,
}

pub struct TraceWriter {
    path: PathBuf,
    out: BufWriter<File>,
    next_seq: u64,
    /// The line being rendered (its allocation is kept from line to line).
    line: String,
    /// The default token shapes (`tracer run`'s), redacted in every string of a line.
    redactor: Redactor,
}

impl TraceWriter {
    /// Creates (or truncates) `path` and writes the header line.
    pub fn create(path: &Path, header: &HeaderInfo<'_>) -> Result<TraceWriter> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating {}: check --case-dir", dir.display()))?;
        }
        let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let mut writer = TraceWriter {
            path: path.to_owned(),
            out: BufWriter::with_capacity(64 * 1024, file),
            next_seq: 1,
            line: String::with_capacity(1024),
            redactor: Redactor::new(true, &[]).expect("the default shapes compile"),
        };
        let text = |s: &str| Value::from(s).to_string();
        let line = format!(
            r#"{{"type":"header","schema":{},"baselineId":{},"recorder":{{"name":"tracer-probe","version":{},"runtime":{},"runtimeVersion":{}}},"startedAt":{},"page":{}}}"#,
            text(crate::conformance::raw_trace::SCHEMA),
            text(header.baseline_id),
            text(env!("CARGO_PKG_VERSION")),
            text(header.runtime),
            text(header.runtime_version),
            text(header.started_at),
            text(header.page),
        );
        writer.write_line(&line)?;
        writer.flush()?;
        Ok(writer)
    }

    /// How many access lines were written.
    pub fn accesses(&self) -> u64 {
        self.next_seq - 1
    }

    /// Writes one access line: `fields` are the record's own fields (no `type` or `seq`) as JSON
    /// texts; the writer gives it the next `seq`.
    pub fn access(&mut self, mut fields: Fields<'_>) -> Result<u64> {
        let seq = self.next_seq;
        self.next_seq += 1;
        fields.insert(Cow::Borrowed("type"), Cow::Borrowed("\"access\""));
        fields.insert(Cow::Borrowed("seq"), Cow::Owned(seq.to_string()));
        redact_fields(&self.redactor, &mut fields);
        self.line.clear();
        render_into(&mut self.line, fields);
        let line = std::mem::take(&mut self.line);
        let written = self.write_line(&line);
        self.line = line;
        written?;
        Ok(seq)
    }

    /// Writes a line equal to the last one written from `tail` (see [`after_t`]) on, with the next
    /// `seq` and `t`.
    pub fn repeat(&mut self, t: &str, tail: &str) -> Result<u64> {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.line.clear();
        self.line.push_str("{\"type\":\"access\",\"seq\":");
        self.line.push_str(&seq.to_string());
        self.line.push_str(",\"t\":");
        self.line.push_str(t);
        self.line.push_str(tail);
        let line = std::mem::take(&mut self.line);
        let written = self.write_line(&line);
        self.line = line;
        written?;
        Ok(seq)
    }

    /// The last line written.
    pub fn last_line(&self) -> &str {
        &self.line
    }

    /// Pushes the buffered lines to the file (the recorder calls it once per binding call).
    pub fn flush(&mut self) -> Result<()> {
        self.out
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))
    }

    fn write_line(&mut self, line: &str) -> Result<()> {
        self.out
            .write_all(line.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"))
            .with_context(|| format!("writing {}", self.path.display()))
    }
}

/// A record's fields: name and the field's JSON text, in the order they came (a record has a
/// dozen or two, so a list searched in order beats a tree; `render` sorts them once).
#[derive(Debug, Default)]
pub struct Fields<'a>(Vec<(Cow<'a, str>, Cow<'a, str>)>);

impl<'a> Fields<'a> {
    pub fn get(&self, key: &str) -> Option<&Cow<'a, str>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Cow<'a, str>> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn remove(&mut self, key: &str) -> Option<Cow<'a, str>> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.swap_remove(at).1)
    }

    /// Sets `key` to `value`, replacing what it had.
    pub fn insert(&mut self, key: Cow<'a, str>, value: Cow<'a, str>) {
        match self.get_mut(&key) {
            Some(old) => *old = value,
            None => self.0.push((key, value)),
        }
    }
}

impl<'a> FromIterator<(Cow<'a, str>, Cow<'a, str>)> for Fields<'a> {
    fn from_iter<I: IntoIterator<Item = (Cow<'a, str>, Cow<'a, str>)>>(iter: I) -> Self {
        let mut fields = Fields::default();
        for (key, value) in iter {
            fields.insert(key, value);
        }
        fields
    }
}

/// One line: the leading fields in their order, then the rest by name; long strings digested.
#[cfg(test)]
fn render(fields: Fields<'_>) -> String {
    let mut line = String::with_capacity(512);
    render_into(&mut line, fields);
    line
}

fn render_into(line: &mut String, mut fields: Fields<'_>) {
    line.push('{');
    let mut first = true;
    let mut put = |line: &mut String, key: &str, value: &str| {
        if !first {
            line.push(',');
        }
        first = false;
        if key
            .bytes()
            .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b < 0x7f)
        {
            line.push('"');
            line.push_str(key);
            line.push('"');
        } else {
            line.push_str(&Value::from(key).to_string());
        }
        line.push(':');
        // A JSON text holds at least as many bytes as its strings hold UTF-16 code units, so a
        // short text cannot hold a long string and is copied as it came.
        if value.len() > LONG_STRING
            && let Ok(mut parsed) = serde_json::from_str::<Value>(value)
        {
            digest_long_strings(&mut parsed);
            line.push_str(&parsed.to_string());
        } else {
            line.push_str(value);
        }
    };
    for key in LEADING {
        if let Some(value) = fields.remove(key) {
            put(line, key, &value);
        }
    }
    fields.0.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (key, value) in &fields.0 {
        put(line, key, value);
    }
    line.push('}');
}

/// Replaces the default token shapes in every string of a record's fields (a cookie, an
/// `Authorization` header, a request body that holds a bearer token or a JWT) by the marker
/// `tracer run` uses, so both sides of a comparison see the same marker. A field's JSON text is
/// parsed only when it holds a match.
fn redact_fields(redactor: &Redactor, fields: &mut Fields<'_>) {
    fn strings(value: &mut Value, redactor: &Redactor) {
        match value {
            Value::String(text) => redactor.apply_mut(text),
            Value::Array(items) => items.iter_mut().for_each(|v| strings(v, redactor)),
            Value::Object(map) => map.values_mut().for_each(|v| strings(v, redactor)),
            _ => {}
        }
    }
    for (_, text) in fields.0.iter_mut() {
        if !redactor.matches(text) {
            continue;
        }
        if let Ok(mut value) = serde_json::from_str::<Value>(text) {
            strings(&mut value, redactor);
            *text = Cow::Owned(value.to_string());
        }
    }
}

/// What follows `t` in an access line (`{"type":"access","seq":N,"t":T` then the rest): the part
/// a repeat of the same record shares. `None` for a line without `t`.
pub fn after_t(line: &str) -> Option<&str> {
    let start = line.find(",\"t\":")? + 5;
    let end = start + line[start..].find([',', '}'])?;
    Some(&line[end..])
}

/// The part past `t` (see [`after_t`]) of the line `fields` (which hold `t`) make.
pub fn tail_of(mut fields: Fields<'_>) -> String {
    fields.insert(Cow::Borrowed("type"), Cow::Borrowed("\"access\""));
    let mut line = String::with_capacity(512);
    render_into(&mut line, fields);
    after_t(&line).unwrap_or_default().to_owned()
}

/// Replaces every string over [`LONG_STRING`] characters inside `value` by its `$string` form.
pub fn digest_long_strings(value: &mut Value) {
    match value {
        Value::String(text) => {
            let length = text.encode_utf16().count();
            if length > LONG_STRING {
                *value = long_string(text, length);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(digest_long_strings),
        Value::Object(map) => map.values_mut().for_each(digest_long_strings),
        _ => {}
    }
}

fn long_string(text: &str, length: usize) -> Value {
    let mut units = 0;
    let preview: String = text
        .chars()
        .take_while(|c| {
            units += c.len_utf16();
            units <= PREVIEW
        })
        .collect();
    let mut digest =
        json!({"$string": hash::of_bytes(text.as_bytes()), "length": length, "preview": preview});
    // A page library's random number inside the text (lit's template markers in an `innerHTML`)
    // is another in every run: the hash of the text without it lets two runs' texts compare.
    if let Cow::Owned(skeleton) = random_names::skeleton(text) {
        digest["skeletonHash"] = hash::of_bytes(skeleton.as_bytes()).into();
    }
    digest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields of a JSON object, as the recorder hands them to the writer.
    fn fields(object: Value) -> Fields<'static> {
        let Value::Object(map) = object else {
            panic!("not an object")
        };
        map.into_iter()
            .map(|(k, v)| (Cow::Owned(k), Cow::Owned(v.to_string())))
            .collect()
    }

    #[test]
    fn leading_fields_come_first_and_the_rest_by_name() {
        let fields =
            fields(json!({"owner":"N","api":"a","seq":3,"type":"access","realm":"main","t":1.5}));
        assert_eq!(
            render(fields),
            r#"{"type":"access","seq":3,"t":1.5,"realm":"main","api":"a","owner":"N"}"#
        );
    }

    #[test]
    fn token_shapes_are_redacted_in_every_field_and_the_order_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = TraceWriter::create(
            &dir.path().join("t.ndjson"),
            &HeaderInfo {
                baseline_id: "b",
                runtime: "chromium",
                runtime_version: "1",
                started_at: "now",
                page: "p",
            },
        )
        .unwrap();
        let bearer = "Bearer abcdefghijklmnopqrstuvwxyz0123";
        writer
            .access(fields(
                json!({"api": "XMLHttpRequest.prototype.setRequestHeader",
                "args": ["Authorization", bearer], "returnValue": {"$undefined": true}}),
            ))
            .unwrap();
        let line = writer.last_line().to_owned();
        assert!(!line.contains(bearer), "{line}");
        assert!(
            line.contains(r#"["Authorization","[REDACTED:bearer]"]"#),
            "{line}"
        );
        assert!(
            line.starts_with(r#"{"type":"access","seq":1,"api":"#),
            "{line}"
        );
    }

    #[test]
    fn a_repeat_shares_what_follows_t() {
        let line = render(fields(
            json!({"type":"access","seq":3,"t":1.5,"api":"a","owner":"N"}),
        ));
        assert_eq!(after_t(&line), Some(r#","api":"a","owner":"N"}"#));
        assert_eq!(after_t(r#"{"type":"access","seq":3,"t":2}"#), Some("}"));
        assert_eq!(after_t(r#"{"type":"access","seq":3}"#), None);
    }

    #[test]
    fn strings_over_500_characters_are_digested_anywhere() {
        let long = "é".repeat(501);
        let mut value = json!({"a": [long.clone()], "b": "x".repeat(500)});
        digest_long_strings(&mut value);
        assert_eq!(value["b"], Value::from("x".repeat(500)));
        let digested = &value["a"][0];
        assert_eq!(digested["length"], 501);
        assert_eq!(digested["preview"], Value::from("é".repeat(120)));
        assert_eq!(digested["$string"], hash::of_bytes(long.as_bytes()));
    }

    #[test]
    fn a_long_request_body_is_digested_inside_the_request_field() {
        let long = "x".repeat(501);
        let fields = fields(json!({
            "api": "fetch",
            "request": {"method": "POST", "body": {"shape": "text", "value": long, "length": 501}}
        }));
        let line: Value = serde_json::from_str(&render(fields)).unwrap();
        let body = &line["request"]["body"];
        assert_eq!(body["value"]["$string"], hash::of_bytes(long.as_bytes()));
        assert_eq!(body["value"]["length"], 501);
        assert_eq!(body["length"], 501);
        assert_eq!(line["request"]["method"], "POST");
    }

    #[test]
    fn a_preview_never_splits_a_surrogate_pair() {
        let text = format!("{}{}", "a".repeat(119), "😀".repeat(300));
        let mut value = Value::from(text);
        digest_long_strings(&mut value);
        assert_eq!(value["preview"], Value::from("a".repeat(119)));
        assert_eq!(value["length"], 719);
    }
}
