//! Turns the probe's binding messages into trace lines, the same way for a browser page and for a
//! Node environment: a message is one record or a batch of them (in the probe's local order); each
//! access record becomes one `tracer-trace/v1` line with the global `seq`, `t`, `realmId` and
//! `nav`. Records are kept as their fields' JSON texts, never parsed into values.
//!
//! A realm's probe sends the property facts of a definition (`owner`, `descriptor`,
//! `getterOwner`, `setterOwner`) once, on the first record that has them, marked `fdef: n`; later
//! records with the same facts carry `fref: n`, and the facts are filled back in here, so every
//! trace line is whole. `n` is per realm instance (a CDP session's execution context). Likewise
//! an access record equal to its api's previous one but for `ls` and `e` arrives as
//! `{"k":"same","slot":n,..}` and is written in full from the slot's last whole record, and a
//! whole record whose stack is its slot's last one carries `stackSame: 1` instead of the stack.
//! A loop's repeats back to back arrive as one run: each one's slot in `slots`, the first one's
//! time as `e`, each later one's in `ds`, whole microseconds after it (a loop's reads need no
//! decimal time each); a run's repeat is its slot's last record without that record's `stack` (the
//! probe captures a loop's stack only now and then: a read between two captures has none).
//!
//! A `keep` filter (the audit's rule "only the target's accesses count") may leave records out;
//! the repeats of a record left out are left out too, and what was left out is counted.

use std::borrow::{BorrowMut, Cow};
use std::collections::HashMap;
use std::fmt;

use anyhow::Result;
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::probe::writer::{self, Fields, TraceWriter};

/// The property facts a probe sends once per definition (see the module comment).
const FACTS: [&str; 4] = ["owner", "descriptor", "getterOwner", "setterOwner"];

/// Decides whether an access record (its execution context and fields, before `t`, `realmId` and
/// `nav` are added) goes into the trace.
pub type Keep = Box<dyn FnMut(i64, &Fields<'_>) -> bool>;

/// What the messages said beside their access records, for the summary.
#[derive(Debug, Default)]
pub struct IngestSummary {
    /// Realm ids in the order they first reported (`main#0`, `iframe#0`, ...).
    pub realms: Vec<String>,
    /// Probe installations, in the order they reported.
    pub installs: Vec<Install>,
    /// Messages that could not be read, in words (their records are missing, and say so).
    pub unreadable: Vec<String>,
    /// Access records the `keep` filter left out.
    pub left_out: u64,
}

/// One probe installation, as its `ready` record said.
#[derive(Debug, Clone)]
pub struct Install {
    pub session: String,
    pub context: i64,
    /// The realm kind (`main`, `iframe`, `worker`).
    pub realm: String,
    /// Members wrapped.
    pub wrapped: u64,
    /// Entries of the API list that failed to install.
    pub failed: u64,
    /// The names the user asked for (`--api`, `--api-exclude`) that name nothing in this realm.
    pub missing: Vec<String>,
    /// How long the installation took in the realm, in milliseconds.
    pub ms: Option<f64>,
    /// Of the paths the audit asked about (`checkPaths`), those that do not resolve in the realm
    /// as the probe found it, each with the part of it the realm lacks (`(path, missing)`:
    /// `CanvasRenderingContext2D` for `CanvasRenderingContext2D.prototype.font`); and those that
    /// resolve to a property the probe cannot watch.
    pub absent: Vec<(String, String)>,
    pub unwatched: Vec<String>,
    /// Of those paths, the ones that resolve to a member another realm's probe wrapped (a class
    /// every window of the environment shares): left to that probe.
    pub shared: Vec<String>,
}

/// One entry of a `ready` record's `absent`.
#[derive(Deserialize)]
struct AbsentPath {
    path: String,
    missing: String,
}

/// What one binding message carried.
#[derive(Debug, Default, Clone, Copy)]
pub struct Delivered {
    pub records: usize,
    /// The page marked `tracer:done`.
    pub done: bool,
}

pub struct Ingest<W: BorrowMut<TraceWriter>> {
    writer: W,
    /// The capture's start, in milliseconds since the Unix epoch.
    started: f64,
    /// session -> execution context -> the realm.
    realms: HashMap<String, HashMap<i64, Realm>>,
    realm_counts: HashMap<String, u64>,
    /// The nav of the newest main realm.
    nav: u64,
    /// Stop writing once this many accesses are written.
    pub max_accesses: u64,
    keep: Option<Keep>,
    pub report: IngestSummary,
}

impl<W: BorrowMut<TraceWriter>> Ingest<W> {
    pub fn new(writer: W, started: f64) -> Ingest<W> {
        Ingest {
            writer,
            started,
            realms: HashMap::new(),
            realm_counts: HashMap::new(),
            nav: 0,
            max_accesses: u64::MAX,
            keep: None,
            report: IngestSummary::default(),
        }
    }

    /// Only the records `keep` accepts are written.
    pub fn with_filter(mut self, keep: Keep) -> Ingest<W> {
        self.keep = Some(keep);
        self
    }

    pub fn writer(&mut self) -> &mut TraceWriter {
        self.writer.borrow_mut()
    }

    /// How many access lines were written.
    pub fn accesses(&self) -> u64 {
        self.writer.borrow().accesses()
    }

    /// The sessions some realm reported from.
    pub fn sessions(&self) -> impl Iterator<Item = &String> {
        self.realms.keys()
    }

    /// A session's realms are gone (their contexts were cleared): what was kept for them goes.
    pub fn forget_session(&mut self, session: &str) {
        self.realms.remove(session);
    }

    /// One realm is gone.
    pub fn forget_context(&mut self, session: &str, context: i64) {
        if let Some(realms) = self.realms.get_mut(session) {
            realms.remove(&context);
        }
    }

    /// One binding call: an array of records (a batch, in local order) or one record. Lines are
    /// flushed to disk once per call.
    pub fn binding(&mut self, session: &str, context: i64, payload: &str) -> Result<Delivered> {
        let parsed = if payload.trim_start().starts_with('[') {
            serde_json::from_str::<Vec<&RawValue>>(payload)
        } else {
            serde_json::from_str::<&RawValue>(payload).map(|record| vec![record])
        };
        let records = match parsed {
            Ok(records) => records,
            Err(error) => {
                // Never expected (the probe writes its own JSON), and never silent.
                self.report.unreadable.push(format!(
                    "a message from the probe could not be read ({error}; {} bytes): its records are missing from the trace",
                    payload.len()
                ));
                return Ok(Delivered::default());
            }
        };
        let mut delivered = Delivered {
            records: records.len(),
            done: false,
        };
        for raw in records {
            if let Ok(RawRecord(fields)) = serde_json::from_str(raw.get()) {
                delivered.done |= self.one(session, context, fields)?;
            }
        }
        self.writer.borrow_mut().flush()?;
        Ok(delivered)
    }

    /// One record; true for the `tracer:done` mark.
    fn one(&mut self, session: &str, context: i64, mut record: Fields<'_>) -> Result<bool> {
        let kind = record.remove("k");
        let text =
            |field: Option<&Cow<'_, str>>| -> Option<String> { serde_json::from_str(field?).ok() };
        match kind.as_deref() {
            Some("\"access\"") => self.access(session, context, record)?,
            Some("\"same\"") => self.repeat(session, context, &record)?,
            Some("\"done\"") => return Ok(true),
            Some("\"ready\"") => {
                let realm = text(record.get("realm")).unwrap_or_else(|| "?".to_owned());
                let count = |field: &str| {
                    record
                        .get(field)
                        .and_then(|v| v.parse::<u64>().ok())
                        .unwrap_or(0)
                };
                let list = |field: &str| -> Vec<String> {
                    record
                        .get(field)
                        .and_then(|v| serde_json::from_str(v).ok())
                        .unwrap_or_default()
                };
                self.report.installs.push(Install {
                    session: session.to_owned(),
                    context,
                    realm,
                    wrapped: count("wrapped"),
                    failed: count("failed"),
                    missing: list("missing"),
                    ms: record.get("ms").and_then(|v| v.parse::<f64>().ok()),
                    absent: record
                        .get("absent")
                        .and_then(|v| serde_json::from_str::<Vec<AbsentPath>>(v).ok())
                        .unwrap_or_default()
                        .into_iter()
                        .map(|a| (a.path, a.missing))
                        .collect(),
                    unwatched: list("unwatched"),
                    shared: list("shared"),
                });
            }
            _ => {}
        }
        Ok(false)
    }

    /// A record that repeats its slot's last whole record but for `ls` and `e` (see `textOf` in
    /// js/report.js): its line is that record's line with the next `seq` and its own `t`. Or a run
    /// of a loop's repeats (`slots` and `ds`, see `closeRun`): each repeat's line is its slot's
    /// last record's line without its `stack`, with the next `seq` and its own `t`.
    fn repeat(&mut self, session: &str, context: i64, record: &Fields<'_>) -> Result<()> {
        let Some(first) = record.get("e").and_then(|e| e.parse::<f64>().ok()) else {
            return Ok(());
        };
        // A run: each repeat's slot, and each later one's time after the first. A run that cannot
        // be read is written as far as it can be, never with times made up, and said.
        let run = record.get("slots");
        let (slots, later): (Vec<u64>, Vec<f64>) = match run {
            Some(slots) => {
                let slots: Vec<u64> = serde_json::from_str(slots).unwrap_or_default();
                let later: Vec<f64> = record
                    .get("ds")
                    .and_then(|ds| serde_json::from_str(ds).ok())
                    .unwrap_or_default();
                if slots.is_empty() || later.len() + 1 != slots.len() {
                    self.report.unreadable.push(format!(
                        "a run of repeats from the probe could not be read ({} slots, {} times): what it lacks is missing from the trace",
                        slots.len(),
                        later.len() + 1
                    ));
                }
                (slots, later)
            }
            None => (
                record
                    .get("slot")
                    .and_then(|n| n.parse::<u64>().ok())
                    .into_iter()
                    .collect(),
                Vec::new(),
            ),
        };
        let Some(realm) = self
            .realms
            .get_mut(session)
            .and_then(|realms| realms.get_mut(&context))
        else {
            return Ok(());
        };
        let base = epoch_us(first);
        let times = std::iter::once(0.0).chain(later);
        for (slot, us) in slots.iter().zip(times) {
            let tail = match realm.slots.get(slot) {
                // A repeat of a record the filter left out.
                Some(None) => {
                    self.report.left_out += 1;
                    continue;
                }
                Some(Some(tail)) if run.is_some() => realm
                    .bare
                    .entry(*slot)
                    .or_insert_with(|| without_stack(tail)),
                Some(Some(tail)) => tail,
                None => continue,
            };
            let writer = self.writer.borrow_mut();
            if writer.accesses() < self.max_accesses {
                writer.repeat(&t_of_us(self.started, base + us), tail)?;
            }
        }
        Ok(())
    }

    /// Makes the realm a record came from when it first reports.
    fn ensure_realm(&mut self, session: &str, context: i64, record: &Fields<'_>) {
        let known = self
            .realms
            .get(session)
            .is_some_and(|realms| realms.contains_key(&context));
        if !known {
            let kind: String = record
                .get("realm")
                .and_then(|v| serde_json::from_str(v).ok())
                .unwrap_or_else(|| "main".to_owned());
            let count = self.realm_counts.entry(kind.clone()).or_insert(0);
            let id = format!("{kind}#{count}");
            if kind == "main" {
                self.nav = *count;
            }
            *count += 1;
            self.report.realms.push(id.clone());
            let realm = Realm {
                id_json: Value::from(id.as_str()).to_string(),
                id,
                nav: self.nav.to_string(),
                facts: HashMap::new(),
                slots: HashMap::new(),
                stacks: HashMap::new(),
                bare: HashMap::new(),
            };
            self.realms
                .entry(session.to_owned())
                .or_default()
                .insert(context, realm);
        }
    }

    /// A whole access record. Its line, past `t`, is kept for the repeats of its slot.
    fn access(&mut self, session: &str, context: i64, mut record: Fields<'_>) -> Result<()> {
        if self.writer.borrow().accesses() >= self.max_accesses {
            return Ok(());
        }
        let started = self.started;
        self.ensure_realm(session, context, &record);
        let Some(realm) = self
            .realms
            .get_mut(session)
            .and_then(|realms| realms.get_mut(&context))
        else {
            return Ok(());
        };
        let slot = record.remove("slot").and_then(|n| n.parse::<u64>().ok());
        if let Some(n) = record.remove("fref").and_then(|n| n.parse::<u64>().ok())
            && let Some(facts) = realm.facts.get(&n)
        {
            for (field, value) in facts {
                record.insert(Cow::Borrowed(field), Cow::Owned(value.clone()));
            }
        }
        if let Some(n) = record.remove("fdef").and_then(|n| n.parse::<u64>().ok()) {
            let facts = FACTS
                .iter()
                .filter_map(|&field| Some((field, record.get(field)?.to_string())))
                .collect();
            realm.facts.insert(n, facts);
        }
        // A stack sent as the slot's last one (`stackSame`, see `textOf` in probe.js).
        if let Some(slot) = slot {
            if record.remove("stackSame").is_some() {
                if let Some(stack) = realm.stacks.get(&slot) {
                    record.insert(Cow::Borrowed("stack"), Cow::Owned(stack.clone()));
                }
            } else if let Some(stack) = record.get("stack") {
                realm.stacks.insert(slot, stack.to_string());
            }
        }
        record.remove("ls");
        // A record the probe knew the filter leaves out arrives brief (see `environmentsOwn` in
        // js/cells.js): it is counted as the filter counts it, and never written.
        let brief = record.remove("brief").is_some();
        if let Some(keep) = self.keep.as_mut()
            && (!keep(context, &record) || brief)
        {
            if let Some(slot) = slot {
                realm.slots.insert(slot, None);
                realm.bare.remove(&slot);
            }
            self.report.left_out += 1;
            return Ok(());
        }
        if let Some(t) = record.remove("e").and_then(|e| t_of(started, &e)) {
            record.insert(Cow::Borrowed("t"), Cow::Owned(t));
        }
        // Object names are per realm: outside the first main realm they carry the realm's id.
        if realm.id != "main#0"
            && let Some(state) = record.get_mut("state")
            && let Ok(Value::Object(mut fields)) = serde_json::from_str::<Value>(state)
        {
            for field in ["object", "peer"] {
                if let Some(Value::String(object)) = fields.get_mut(field) {
                    *object = format!("{}/{object}", realm.id);
                }
            }
            *state = Cow::Owned(Value::Object(fields).to_string());
        }
        record.insert(Cow::Borrowed("realmId"), Cow::Owned(realm.id_json.clone()));
        record.insert(Cow::Borrowed("nav"), Cow::Owned(realm.nav.clone()));
        let writer = self.writer.borrow_mut();
        writer.access(record)?;
        if let Some(slot) = slot
            && let Some(tail) = writer::after_t(writer.last_line())
        {
            realm.slots.insert(slot, Some(tail.to_owned()));
            realm.bare.remove(&slot);
        }
        Ok(())
    }
}

/// `t` (milliseconds since the recording `started`, as JSON) from the probe's `e` (its epoch
/// milliseconds).
fn t_of(started: f64, e: &str) -> Option<String> {
    Some(t_of_us(started, epoch_us(e.parse::<f64>().ok()?)))
}

/// An epoch time in milliseconds as whole microseconds. Times are subtracted as whole
/// microseconds, the same way the probe computes a run's `ds`, so that a repeat's `t` is the one
/// its own `e` would give and `t` never goes back between two records.
fn epoch_us(epoch_ms: f64) -> f64 {
    (epoch_ms * 1000.0).round()
}

/// `t` (milliseconds since the capture started, to the microsecond) of a time in whole
/// microseconds since the epoch.
fn t_of_us(started: f64, us: f64) -> String {
    json!(((us - epoch_us(started)) / 1000.0).max(0.0)).to_string()
}

/// One realm instance (a CDP session's execution context) the probe reported from.
struct Realm {
    /// `main#0`, `worker#1`, ...
    id: String,
    /// `id` as a JSON string.
    id_json: String,
    /// The nav of the newest main realm when this one first reported, as JSON.
    nav: String,
    /// `fdef` number -> the property facts the probe sent once, as JSON texts.
    facts: HashMap<u64, Vec<(&'static str, String)>>,
    /// slot -> its last whole record's line past `t` (one slot per api); `None` when the filter
    /// left that record out.
    slots: HashMap<u64, Option<String>>,
    /// slot -> the stack its last whole record carried, as JSON.
    stacks: HashMap<u64, String>,
    /// slot -> its last whole record's line past `t` without its `stack` (a run's repeats), made
    /// when a run first needs it.
    bare: HashMap<u64, String>,
}

/// A line's part past `t` (see [`writer::after_t`]) without its own `stack` field, the rest as it
/// was.
fn without_stack(tail: &str) -> String {
    if !tail.contains("\"stack\":") {
        return tail.to_owned();
    }
    let object = format!("{{\"t\":0{tail}");
    let Ok(RawRecord(mut fields)) = serde_json::from_str::<RawRecord<'_>>(&object) else {
        return tail.to_owned();
    };
    if fields.remove("stack").is_none() {
        return tail.to_owned();
    }
    writer::tail_of(fields)
}

/// One record of a binding payload, read as its fields' JSON texts (borrowed from the payload;
/// field names are the probe's own, never escaped).
struct RawRecord<'p>(Fields<'p>);

impl<'de> Deserialize<'de> for RawRecord<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RecordVisitor;
        impl<'de> Visitor<'de> for RecordVisitor {
            type Value = RawRecord<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a record (a JSON object)")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut fields = Vec::with_capacity(24);
                while let Some((key, value)) = map.next_entry::<&'de str, &'de RawValue>()? {
                    fields.push((Cow::Borrowed(key), Cow::Borrowed(value.get())));
                }
                Ok(RawRecord(fields.into_iter().collect()))
            }
        }
        deserializer.deserialize_map(RecordVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::writer::HeaderInfo;

    /// A trace writer for a Chromium page at `path`.
    fn writer_at(path: &std::path::Path) -> TraceWriter {
        TraceWriter::create(
            path,
            &HeaderInfo {
                baseline_id: "b1",
                runtime: "chromium",
                runtime_version: "1",
                started_at: "2026-12-01T00:00:00Z",
                page: "file:///page.html",
            },
        )
        .unwrap()
    }

    /// A whole record whose stack is its slot's last one arrives as `stackSame: 1` and is written
    /// with that stack; a repeat after it is written whole too, and a run's repeat without the
    /// stack (not sampled), the rest of the line the same.
    #[test]
    fn a_stack_sent_as_the_slots_last_one_is_written_in_full() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.ndjson");
        let writer = writer_at(&path);
        let mut ingest = Ingest::new(writer, 0.0);
        let stack = r#"[{"url":"file:///a.js","line":2,"column":5,"functionName":"f"}]"#;
        let payload = format!(
            r#"[{{"slot":1,"ls":1,"e":1,"k":"access","realm":"main","phase":"init","api":"Math.tan","accessType":"call","returnValue":1,"stack":{stack}}},
               {{"slot":1,"ls":2,"e":2,"k":"access","realm":"main","phase":"init","api":"Math.tan","accessType":"call","returnValue":2,"stackSame":1}},
               {{"k":"same","slot":1,"ls":3,"e":3}},
               {{"k":"same","slots":[1,1],"ls":4,"e":4,"ds":[1000]}}]"#
        );
        let delivered = ingest.binding("s", 1, &payload).unwrap();
        assert_eq!(delivered.records, 4);
        drop(ingest);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .skip(1)
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), 5, "{text}");
        let expected: serde_json::Value = serde_json::from_str(stack).unwrap();
        for line in &lines[..3] {
            assert_eq!(line["stack"], expected, "{line}");
            assert!(line.get("stackSame").is_none(), "{line}");
        }
        assert_eq!(lines[1]["returnValue"], 2);
        assert_eq!(lines[2]["returnValue"], 2);
        for (i, line) in lines[3..].iter().enumerate() {
            let mut bare = lines[2].clone();
            let fields = bare.as_object_mut().unwrap();
            fields.remove("stack");
            fields.insert("seq".into(), (4 + i).into());
            fields.insert("t".into(), ((4 + i) as f64).into());
            assert_eq!(line, &bare, "{text}");
        }
    }

    /// A run whose times do not match its slots is written as far as it goes, and said.
    #[test]
    fn a_run_that_cannot_be_read_whole_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.ndjson");
        let mut ingest = Ingest::new(writer_at(&path), 1000.0);
        let payload = r#"[{"slot":1,"ls":1,"e":1010,"k":"access","realm":"main","phase":"init","api":"Math.tan","accessType":"call","returnValue":1},
               {"k":"same","slots":[1,1,1],"ls":2,"e":1011,"ds":[5]}]"#;
        ingest.binding("s", 1, payload).unwrap();
        assert_eq!(
            ingest.report.unreadable.len(),
            1,
            "{:?}",
            ingest.report.unreadable
        );
        assert_eq!(ingest.accesses(), 3);
    }

    /// A run of repeats is one line per repeat of its slot's record: the first at its `e`, each
    /// later one `ds` microseconds after it; a repeat of a record the filter left out is counted.
    #[test]
    fn a_run_of_repeats_is_a_line_per_repeat_at_its_own_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.ndjson");
        let writer = writer_at(&path);
        let mut ingest =
            Ingest::new(writer, 1000.0).with_filter(Box::new(|_, fields: &Fields<'_>| {
                fields.get("api").map(|api| api.as_ref()) == Some("\"Math.tan\"")
            }));
        let first = r#"[{"slot":1,"ls":1,"e":1010.25,"k":"access","realm":"main","phase":"init","api":"Math.tan","accessType":"call","returnValue":1},
               {"slot":2,"ls":2,"e":1010.5,"k":"access","realm":"main","phase":"init","api":"Math.sin","accessType":"call","returnValue":1},
               {"k":"same","slots":[1,2,2,1],"ls":3,"e":1011.75,"ds":[1,2,2500]}]"#;
        let second = r#"[{"k":"same","slot":1,"ls":7,"e":1020}]"#;
        ingest.binding("s", 1, first).unwrap();
        ingest.binding("s", 1, second).unwrap();
        assert_eq!(ingest.report.left_out, 3);
        drop(ingest);
        let text = std::fs::read_to_string(&path).unwrap();
        let times: Vec<f64> = text
            .lines()
            .skip(1)
            .map(|line| {
                serde_json::from_str::<serde_json::Value>(line).unwrap()["t"]
                    .as_f64()
                    .unwrap()
            })
            .collect();
        assert_eq!(times, [10.25, 11.75, 14.25, 20.0], "{text}");
    }
}
