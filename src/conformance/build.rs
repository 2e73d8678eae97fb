//! Reading a capture into the contract builder, for `tracer contract build`: in one pass over its
//! shards in global `seq` order, or, for a single file, in parts on several threads joined in
//! order, which gives the same builder (and so the same contract bytes) as the one pass. It owns
//! how the work is split, the cap on distinct items, and the fall-back to the one pass whenever a
//! part meets anything but clean input, so that a refusal always names its file and line exactly
//! as the one pass does. It parses nothing itself (the reader does) and decides nothing about
//! items (the builder does).
//!
//! Threads and memory, for a single file: the file is hashed on one thread while `jobs` threads
//! each read one part at a time (a bounded window of parts ahead of the join), each part into a
//! builder of its own; the caller's thread joins the parts in file order. Memory follows the
//! distinct items of the parts in flight, not the file's size.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use anyhow::Result;

use crate::conformance::contract::Builder;
use crate::conformance::hash;
use crate::conformance::raw_trace::{self, MergedShards, Part, Summary, TraceFile};
use crate::error::TracerError;

/// The most distinct items a contract is built with unless `--max-items` says otherwise: at
/// [`ITEM_BYTES`] each, about 180 MB, the budget `contract build` keeps to. A trace with more is
/// refused at the line of the first item past the cap, before its memory is spent (10^6 items took
/// 5.7 GB in 25 s before there was a cap).
pub const DEFAULT_MAX_ITEMS: usize = 30_000;

/// What one distinct item costs at the peak of a build, measured on `scripts/gen-trace.py`'s
/// items (four dimensions with up to four values, a three-frame stack sample; docs/performance.md
/// has the figures): about 5.4 KB read in one pass, 6.8 KB in parts, most of it the
/// item's JSON values as trees (a stack frame is a map of its own) and its share of the written
/// contract.
pub const ITEM_BYTES: usize = 6 * 1024;

/// How a capture is read.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Threads that read a single file's parts; 1 reads it in one pass.
    pub jobs: usize,
    /// Refuse a capture with more distinct items than this.
    pub max_items: usize,
    /// No part is smaller than this (a small file is read in one pass).
    pub min_part_bytes: u64,
}

impl Options {
    pub fn new(jobs: usize, max_items: usize) -> Options {
        Options {
            jobs,
            max_items,
            min_part_bytes: 8 << 20,
        }
    }
}

/// A check of the capture's header `baselineId` and its files' names (in merge order), made
/// before any event counts; it may refuse the capture.
pub type Check<'a> = dyn Fn(Option<&str>, &[String]) -> Result<()> + 'a;

/// How many parts each thread gets: more evens out their speeds, fewer means fewer joins.
const PARTS_PER_JOB: u64 = 2;

/// Reads the capture at `paths` into a builder, after `check`.
pub fn read(
    paths: &[PathBuf],
    case_dir: &Path,
    options: Options,
    check: &Check<'_>,
) -> Result<(Builder, Summary)> {
    if options.jobs > 1
        && let [path] = paths
        && let Some(built) = in_parts(path, case_dir, options, check)
    {
        return Ok(built);
    }
    one_pass(paths, case_dir, options, check)
}

/// The whole capture in `seq` order on the caller's thread (the reader parses ahead on its own).
fn one_pass(
    paths: &[PathBuf],
    case_dir: &Path,
    options: Options,
    check: &Check<'_>,
) -> Result<(Builder, Summary)> {
    let mut capture = MergedShards::open(paths, case_dir)?;
    let names = capture.file_names();
    check(capture.baseline_id(), &names)?;
    let mut builder = Builder::new();
    while let Some(event) = capture.next_event()? {
        builder.add(&event, &names);
        if builder.item_count() > options.max_items {
            let file = names.get(event.file).map_or("", String::as_str);
            return Err(too_many_items(file, event.line, options.max_items));
        }
    }
    let summary = capture.finish()?;
    Ok((builder, summary))
}

/// The refusal of a capture with more than `max` distinct items, at the line of the first one
/// past the cap.
fn too_many_items(file: &str, line: u64, max: usize) -> anyhow::Error {
    TracerError::usage(format!(
        "{file}:{line}: item {} is new here, and the cap is {max} distinct items \
         (api, accessType, realm, receiver, phase): the contract would hold more than {max} items, \
         up to about {} KB of memory each while it is built; raise the cap with --max-items N \
         (about {} MB per 100 000 items), or record a shorter trace",
        max + 1,
        ITEM_BYTES / 1024,
        ITEM_BYTES * 100_000 / (1 << 20),
    ))
    .into()
}

/// One part, read.
struct PartDone {
    builder: Builder,
    first_seq: Option<u64>,
    last_seq: Option<u64>,
    lines: u64,
    events: u64,
}

/// A single file in parts on `options.jobs` threads, or `None` when the one pass must do it: the
/// file is small, or something is wrong with it (the one pass then refuses it, naming the line).
fn in_parts(
    path: &Path,
    case_dir: &Path,
    options: Options,
    check: &Check<'_>,
) -> Option<(Builder, Summary)> {
    let display = raw_trace::display_path(path, case_dir);
    let names = vec![display.clone()];
    let header = raw_trace::read_header(path, display.clone()).ok()?;
    check(header.baseline_id.as_deref(), &names).ok()?;
    let size = std::fs::metadata(path).ok()?.len();
    let jobs = options.jobs as u64;
    let count = (size / options.min_part_bytes.max(1)).min(jobs.saturating_mul(PARTS_PER_JOB));
    if count < 2 {
        return None;
    }
    let parts = raw_trace::split(path, count as usize).ok()?;
    // How many parts may be read ahead of the join (each holds a builder until it is joined).
    let ahead = options.jobs + 1;

    let stop = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    // How many parts are joined, and a signal for the threads waiting to read further ahead.
    let joined = (Mutex::new(0usize), Condvar::new());
    let (sender, receiver) = mpsc::channel::<(usize, Option<PartDone>)>();

    std::thread::scope(|scope| {
        let hashing = std::thread::Builder::new()
            .name("trace-hash".into())
            .spawn_scoped(scope, || hash::of_file(path))
            .ok()?;
        for _ in 0..options.jobs {
            let sender = sender.clone();
            let (parts, stop, next, joined) = (&parts, &stop, &next, &joined);
            let (display, names) = (&display, &names);
            let spawned = std::thread::Builder::new()
                .name("trace-part".into())
                .spawn_scoped(scope, move || {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= parts.len() {
                            return;
                        }
                        // Wait until the part is within the window ahead of the join.
                        let (count, signal) = joined;
                        let mut done = count.lock().unwrap_or_else(|e| e.into_inner());
                        while k >= *done + ahead && !stop.load(Ordering::Relaxed) {
                            done = signal.wait(done).unwrap_or_else(|e| e.into_inner());
                        }
                        drop(done);
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let part = read_part(path, display, parts[k].clone(), names, options, stop);
                        if sender.send((k, part)).is_err() {
                            return;
                        }
                    }
                });
            if spawned.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
        }
        drop(sender);

        let joined_all = join_parts(&receiver, parts.len(), &names, options, &stop, &joined);
        // On a failure, release the threads waiting for the window; they stop at their next line.
        // The flag is set under the window's lock: a thread that has just seen it unset, under
        // that lock, is then already waiting when the notification comes (set without the lock,
        // the wake-up could fall between its check and its wait, and it waited for ever: seen
        // once, in `bad_input_read_in_parts_is_refused_as_the_one_pass_refuses_it`).
        {
            let _window = joined.0.lock().unwrap_or_else(|e| e.into_inner());
            stop.store(joined_all.is_none(), Ordering::Relaxed);
        }
        joined.1.notify_all();
        drop(receiver);
        let digest = hashing.join().ok()?.ok()?;
        let (builder, lines, events) = joined_all?;
        let summary = Summary {
            baseline_id: header.baseline_id.clone(),
            files: vec![TraceFile {
                path: path.to_owned(),
                display: display.clone(),
                sha256: digest.clone(),
                // The header, then each part's lines.
                lines: 1 + lines,
            }],
            trace_source_hash: digest,
            events,
        };
        check(summary.baseline_id.as_deref(), &names).ok()?;
        Some((builder, summary))
    })
}

/// Joins the parts in file order as they arrive: the builder, the lines and the events, or
/// `None` at the first part that failed, a `seq` that does not increase from one part to the
/// next, or an item past the cap.
fn join_parts(
    receiver: &mpsc::Receiver<(usize, Option<PartDone>)>,
    count: usize,
    names: &[String],
    options: Options,
    stop: &AtomicBool,
    joined: &(Mutex<usize>, Condvar),
) -> Option<(Builder, u64, u64)> {
    let mut builder = Builder::new();
    let mut waiting: BTreeMap<usize, PartDone> = BTreeMap::new();
    let (mut next, mut lines, mut events, mut last_seq) = (0, 0, 0, None);
    while next < count {
        let (k, part) = receiver.recv().ok()?;
        waiting.insert(k, part?);
        while let Some(part) = waiting.remove(&next) {
            if let (Some(last), Some(first)) = (last_seq, part.first_seq)
                && first <= last
            {
                return None;
            }
            last_seq = part.last_seq.or(last_seq);
            builder.absorb(part.builder, names);
            if builder.item_count() > options.max_items || stop.load(Ordering::Relaxed) {
                return None;
            }
            lines += part.lines;
            events += part.events;
            next += 1;
            let (done, signal) = joined;
            *done.lock().unwrap_or_else(|e| e.into_inner()) = next;
            signal.notify_all();
        }
    }
    Some((builder, lines, events))
}

/// One part into a builder of its own; `None` at anything but clean input, at a part with more
/// items than the cap (then the whole trace has more: the one pass refuses it at the exact line,
/// having spent at most the cap's memory again), or when told to stop.
fn read_part(
    path: &Path,
    display: &str,
    range: Range<u64>,
    names: &[String],
    options: Options,
    stop: &AtomicBool,
) -> Option<PartDone> {
    let mut part = Part::open(path, display.to_owned(), range).ok()?;
    let mut builder = Builder::part();
    let (mut first_seq, mut last_seq, mut events) = (None, None, 0u64);
    while let Some(event) = part.next_event().ok()? {
        first_seq.get_or_insert(event.seq);
        last_seq = Some(event.seq);
        events += 1;
        builder.add(&event, names);
        part.recycle(event);
        if events % 1024 == 0
            && (stop.load(Ordering::Relaxed) || builder.item_count() > options.max_items)
        {
            return None;
        }
    }
    if builder.item_count() > options.max_items {
        return None;
    }
    Some(PartDone {
        builder,
        first_seq,
        last_seq,
        lines: part.lines(),
        events,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::contract::{self, Contract};
    use crate::error::exit_code_of;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/conformance");

    /// Lines a reader must take apart with care, for every part to see: escapes in names and
    /// values, exponents, duplicated names, `$object` returns of one object and of several, tags,
    /// state events, blank lines and CRLF endings.
    const TRICKY: [&str; 8] = [
        r#"{"type":"access","seq":@,"api":"a.b","accessType":"get","realm":"main","receiver":"R","phase":"init","returnValue":"x\"y\u00e9","\u006fwner":"A.prototype"}"#,
        r#"{"type":"access","seq":@,"api":"a.b","accessType":"get","realm":"main","receiver":"R","phase":"init","returnValue":1.5e3,"owner":"A.prototype","owner":"B.prototype"}"#,
        r#"{"type":"access","seq":@,"api":"a.b","accessType":"get","realm":"main","receiver":"R","phase":"init","returnValue": { "b" : [1, 2.25, -0, true], "a" : null } }"#,
        r#"{"type":"access","seq":@,"api":"n.plugins","accessType":"get","realm":"main","realmId":"main#0","receiver":"Navigator","phase":"init","returnValue":{"$object":"PluginArray","id":"o1"},"tags":["fingerprint"]}"#,
        r#"{"type":"access","seq":@,"api":"n.mimeTypes","accessType":"get","realm":"main","realmId":"main#0","receiver":"Navigator","phase":"init","returnValue":{"$object":"MimeTypeArray","id":"o@"}}"#,
        r#"{"type":"access","seq":@,"api":"Worker.prototype.postMessage","accessType":"call","realm":"worker","receiver":"Worker","phase":"init","args":["m"],"state":{"family":"worker","object":"w#1","event":"postMessage"}}"#,
        r#"{"type":"access","seq":@,"api":"fetch","accessType":"call","realm":"main","receiver":"Window","phase":"init","args":["/x?@"],"exception":null,"returnValue":{"$object":"Promise","id":"p@"}}"#,
        "",
    ];

    /// A trace of `rounds` copies of the fixtures' access lines and [`TRICKY`], `seq` renumbered.
    fn trace(rounds: usize) -> String {
        let mut bodies = Vec::new();
        for name in ["basic.ndjson", "requests.ndjson"] {
            let text = std::fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap();
            for line in text.lines().skip(1) {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                let old = format!(r#""seq":{}"#, value["seq"]);
                bodies.push(line.replacen(&old, r#""seq":@"#, 1));
            }
        }
        bodies.extend(TRICKY.iter().map(|l| (*l).to_owned()));
        let mut out = String::from(
            "\u{FEFF}{\"type\":\"header\",\"schema\":\"tracer-trace/v1\",\"baselineId\":\"b1\"}\r\n",
        );
        let mut seq = 0;
        for round in 0..rounds {
            for (i, body) in bodies.iter().enumerate() {
                seq += 1;
                out.push_str(&body.replace('@', &seq.to_string()));
                out.push_str(if (round + i) % 3 == 0 { "\r\n" } else { "\n" });
            }
        }
        out
    }

    fn options(jobs: usize) -> Options {
        Options {
            jobs,
            max_items: DEFAULT_MAX_ITEMS,
            min_part_bytes: 1,
        }
    }

    fn no_check(_: Option<&str>, _: &[String]) -> Result<()> {
        Ok(())
    }

    fn contract_of((builder, summary): (Builder, Summary)) -> (Contract, Vec<u8>) {
        let baseline = summary.baseline_id.clone();
        builder.finish_with_json(&summary, baseline, None)
    }

    #[test]
    fn a_trace_read_in_parts_gives_the_bytes_of_the_one_pass() {
        let dir = tempfile::tempdir().unwrap();
        for rounds in [1, 7, 40] {
            let path = dir.path().join("t.ndjson");
            std::fs::write(&path, trace(rounds)).unwrap();
            let paths = [path.clone()];
            let (one, one_json) =
                contract_of(one_pass(&paths, dir.path(), options(1), &no_check).unwrap());
            for jobs in [2, 3] {
                let parts = in_parts(&path, dir.path(), options(jobs), &no_check)
                    .expect("read in parts, not by the one pass");
                let (joined, joined_json) = contract_of(parts);
                assert_eq!(
                    String::from_utf8(joined_json).unwrap(),
                    String::from_utf8(one_json.clone()).unwrap(),
                    "{rounds} rounds, {jobs} jobs"
                );
                // The contract read in parts, written again, is the one read in one pass (its
                // Markdown, `output::markdown`, is a function of it).
                assert_eq!(contract::to_json_bytes(&joined), one_json);
            }
            assert!(!one.timelines.is_empty() && !one.requests.is_empty());
            assert_eq!(one_json, contract::to_json_bytes(&one), "finish_with_json");
        }
    }

    #[test]
    fn bad_input_read_in_parts_is_refused_as_the_one_pass_refuses_it() {
        let dir = tempfile::tempdir().unwrap();
        let good = trace(10);
        let lines: Vec<&str> = good.split_inclusive('\n').collect();
        let cut = lines.len() * 2 / 3;
        let broken = [
            ("malformed", lines[cut].replacen(':', "", 1)),
            (
                "seq back",
                lines[cut].replacen(r#""seq":"#, r#""seq":1"#, 1),
            ),
            ("not an object", "[1]\n".to_owned()),
            (
                "deep",
                format!("{{\"x\":{}1{}}}\n", "[".repeat(130), "]".repeat(130)),
            ),
            (
                "huge number",
                lines[cut].replacen(r#""realm":"#, r#""n":1e999,"realm":"#, 1),
            ),
        ];
        for (what, line) in broken {
            let mut text: Vec<&str> = lines.clone();
            text[cut] = &line;
            let path = dir.path().join("t.ndjson");
            std::fs::write(&path, text.concat()).unwrap();
            let paths = [path];
            let one = one_pass(&paths, dir.path(), options(1), &no_check)
                .err()
                .unwrap_or_else(|| panic!("{what}: accepted"));
            let parts = read(&paths, dir.path(), options(2), &no_check)
                .err()
                .unwrap_or_else(|| panic!("{what}: accepted in parts"));
            assert_eq!(format!("{parts:#}"), format!("{one:#}"), "{what}");
            assert_eq!(exit_code_of(&parts), crate::exit::USAGE, "{what}");
            assert!(format!("{one:#}").contains("t.ndjson:"), "{what}: {one:#}");
        }
    }

    #[test]
    fn items_past_the_cap_are_refused_naming_the_line_and_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.ndjson");
        let mut text = String::from(
            "{\"type\":\"header\",\"schema\":\"tracer-trace/v1\",\"baselineId\":\"b1\"}\n",
        );
        for seq in 1..=2000 {
            // 1000 distinct items, each twice.
            text.push_str(&format!(
                "{{\"type\":\"access\",\"seq\":{seq},\"api\":\"a.m{}\",\"accessType\":\"get\",\"realm\":\"main\",\"receiver\":\"R\",\"phase\":\"init\"}}\n",
                seq % 1000
            ));
        }
        std::fs::write(&path, text).unwrap();
        let paths = [path];
        for jobs in [1, 2] {
            let capped = Options {
                max_items: 999,
                ..options(jobs)
            };
            let err = read(&paths, dir.path(), capped, &no_check).err().unwrap();
            let message = format!("{err:#}");
            assert_eq!(exit_code_of(&err), crate::exit::USAGE);
            // Item 1000 (`a.m0`, seq 1000) first appears on line 1001.
            assert!(
                message.starts_with(
                    "t.ndjson:1001: item 1000 is new here, and the cap is 999 distinct items"
                ),
                "{message}"
            );
            assert!(message.contains("--max-items"), "{message}");
            let exact = Options {
                max_items: 1000,
                ..options(jobs)
            };
            let (builder, _) = read(&paths, dir.path(), exact, &no_check).unwrap();
            assert_eq!(builder.item_count(), 1000);
        }
    }
}
