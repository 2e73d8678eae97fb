//! One line of a trace: its fields by name as their JSON text, found by a one-pass scanner for
//! plain lines (serde's for the rest), and what the contract keys on taken out.

use super::*;

/// The fields of one line, by name, each as its JSON text: the line itself, and where each
/// field's name and value are in it. Reading a line allocates the line and one small list, never a
/// tree. A duplicate key: the last one wins.
#[derive(Debug, Clone, Default)]
pub struct LineFields {
    pub(super) line: String,
    /// (name, value) as byte ranges of `line`.
    pub(super) entries: Vec<(Name, Range<usize>)>,
    /// Names written with escapes, unescaped.
    pub(super) escaped_names: Vec<String>,
}

#[derive(Debug, Clone)]
pub(super) enum Name {
    InLine(Range<usize>),
    Unescaped(usize),
}

impl LineFields {
    /// Parses one line that must be a JSON object; gives the line back when it is not one.
    /// `spare` lends its buffers (a used line's, see [`Shard::recycle`]).
    pub(super) fn parse(line: String, spare: LineFields) -> Result<LineFields, String> {
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

    pub(super) fn name(&self, name: &Name) -> &str {
        match name {
            Name::InLine(range) => &self.line[range.clone()],
            Name::Unescaped(i) => &self.escaped_names[*i],
        }
    }

    /// The length of the line's text, in bytes.
    pub fn text_len(&self) -> usize {
        self.line.len()
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
pub(super) struct FieldsVisitor<'a> {
    /// Where the line starts in memory: the places are offsets from it.
    pub(super) base: usize,
    pub(super) entries: &'a mut Vec<(Name, Range<usize>)>,
    pub(super) escaped_names: &'a mut Vec<String>,
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
pub(super) struct FieldName<'de>(Cow<'de, str>);

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
pub(super) mod scan {
    use std::ops::Range;

    use super::Name;

    /// Nesting past this is left to serde_json (which allows up to [`super::MAX_DEPTH`]).
    const DEPTH: usize = 64;

    /// The fields of `line` into `entries`, or `false` (then `entries` holds garbage).
    pub(in crate::conformance::raw_trace) fn object(
        line: &str,
        entries: &mut Vec<(Name, Range<usize>)>,
    ) -> bool {
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
    pub(super) fn space(b: &[u8], mut i: usize) -> usize {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
            i += 1;
        }
        i
    }

    /// A name at `i` (its quote), then `:`: the name's text and the index of the value.
    pub(super) fn name(b: &[u8], i: usize) -> Option<(Range<usize>, usize)> {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let end = string_end(b, i + 1)?;
        let colon = space(b, end + 1);
        (b.get(colon) == Some(&b':')).then(|| (i + 1..end, space(b, colon + 1)))
    }

    /// The index of the closing quote of a string whose text starts at `i`; `None` for an
    /// escape or a control character (left to serde_json).
    pub(super) fn string_end(b: &[u8], i: usize) -> Option<usize> {
        let at = i + memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        let controls = b[i..at].iter().fold(false, |any, &c| any | (c < 0x20));
        (b[at] == b'"' && !controls).then_some(at)
    }

    /// The end (exclusive) of the value at `i`, at nesting `depth` (the line's object is 1).
    pub(super) fn value(b: &[u8], i: usize, depth: usize) -> Option<usize> {
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
    pub(super) fn number(b: &[u8], start: usize) -> Option<usize> {
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

/// The deepest nesting of a trace line: serde_json's own limit (it refuses the 128th level) less
/// the room every file written from the line needs for its own nesting around a value (a
/// contract's item, an audit's observation, a diff's finding: at most [`NESTING_ROOM`]), so that
/// what `contract build` accepts, `audit` and `check` read back. Every reader and writer of the
/// loop holds values to this one limit.
pub const MAX_DEPTH: usize = 127 - NESTING_ROOM;
/// The levels a contract, an audit or a diff adds around a value of a trace line.
pub const NESTING_ROOM: usize = 8;

/// Whether a line that is syntactically JSON would also parse into values: no nesting deeper
/// than [`MAX_DEPTH`], no number outside the range of f64. One pass over the bytes.
pub(super) fn values_parse_like_json(line: &str) -> bool {
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
pub(super) fn plain_str(text: &str) -> Option<&str> {
    (text.len() >= 2 && text.starts_with('"') && text.ends_with('"') && !text.contains('\\'))
        .then(|| &text[1..text.len() - 1])
}

/// The value of a JSON integer written as plain digits that fits in u64, else `None`.
pub(super) fn plain_u64(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// JSON text taken from a parsed line (so valid JSON) as a value.
pub(super) fn parse_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}
