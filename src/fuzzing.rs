//! Entry points for the fuzz targets (`fuzz/`) and the property tests (`tests/fuzz.rs`): each one
//! feeds one kind of outside input to the reader the binary uses on it, then does with what was
//! read what the binary does next (capture, build, check, render), so a panic anywhere on that path
//! is found. Not part of the tool's interface (hidden from the docs). Everything written goes to a
//! temporary folder the caller gives or that is created here; nothing is printed.
//!
//! The promises checked here (besides "no panic, no hang") are the documented ones: an accepted
//! inspector URL is loopback, a broken source map is a note naming the map, a refused raw trace is
//! a usage error (exit 2), a refused contract, audit or policy is a blocking finding.

use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use serde_json::Value;

use crate::conformance::contract::{self, Builder};
use crate::conformance::policy::Policy;
use crate::conformance::{check, raw_trace};
use crate::engine::pumps::{StderrTail, pump_stderr};
use crate::inspector::cdp::{self, Incoming};
use crate::inspector::driver::{Observer, Seen};
use crate::output::human::Styles;
use crate::output::replay;
use crate::output::store::Store;
use crate::trace::capture::Capture;
use crate::trace::event::{Clock, Kind};
use crate::trace::evidence::Evidence;
use crate::trace::mapper::Mapper;
use crate::trace::session::{Session, Status};
use crate::trace::sourcemaps;

/// Separates the files of one fuzz input that stands for several files (trace shards, a session
/// and its evidence): no valid input of these formats contains a NUL byte.
pub const FILE_SEPARATOR: u8 = 0;

/// Inspector messages, one per line (as they arrive over one connection), through `cdp::parse_flat`
/// and the driver's routing (a worker's messages come wrapped in
/// `NodeWorker.receivedMessageFromWorker`) into the capture; every event captured is serialized as
/// the sinks do. Source maps the messages name are looked up under `workspace` or wherever they
/// point (read only).
pub fn cdp_messages(bytes: &[u8], workspace: &Path) {
    let text = String::from_utf8_lossy(bytes);
    let (events, captured) = mpsc::sync_channel(4);
    let mut capture = Capture::new(
        Mapper::new(workspace.to_owned()),
        events,
        Clock::start(),
        None,
    );
    let mut worker_sessions = Vec::new();
    for message in text.split('\n') {
        let (_session, incoming) = cdp::parse_flat(message);
        match incoming {
            Incoming::Event { method, params } => match method.as_str() {
                "NodeWorker.attachedToWorker" => {
                    if let Some(session) = params.get("sessionId").and_then(Value::as_str) {
                        worker_sessions.push(session.to_owned());
                        capture.on_event(Some("worker 1"), &method, &params);
                    }
                }
                "NodeWorker.receivedMessageFromWorker" => {
                    let session = params.get("sessionId").and_then(Value::as_str);
                    if !session.is_some_and(|s| worker_sessions.iter().any(|w| w == s)) {
                        continue;
                    }
                    let inner = params.get("message").and_then(Value::as_str).unwrap_or("");
                    if let Incoming::Event { method, params } = cdp::parse(inner) {
                        let reason = params.get("reason").and_then(Value::as_str);
                        if method != "Debugger.paused"
                            || matches!(reason, Some("exception" | "promiseRejection"))
                        {
                            capture.on_event(Some("worker 1"), &method, &params);
                        }
                    }
                }
                "NodeWorker.detachedFromWorker" => {
                    let session = params.get("sessionId").and_then(Value::as_str);
                    worker_sessions.retain(|w| Some(w.as_str()) != session);
                }
                // The driver resumes the main thread's pauses itself; they are not captured.
                "Debugger.paused"
                | "NodeRuntime.waitingForDisconnect"
                | "NodeRuntime.waitingForDebugger" => {}
                // As the driver does: an event that needs the scripts is given again.
                _ => {
                    if capture.on_event(None, &method, &params) == Seen::NeedsScripts {
                        capture.on_event(None, &method, &params);
                    }
                }
            },
            Incoming::Response { id, result } => {
                let _ = (id, result.map(|r| r.pointer("/result/value").cloned()));
            }
            Incoming::Idle | Incoming::Closed => {}
        }
        for event in captured.try_iter() {
            let line = serde_json::to_string(&event).expect("an event always serializes");
            assert!(!line.contains('\n'), "one event, one NDJSON line");
        }
    }
}

/// The program's stderr as bytes, through the stderr pump (line cutting, inspector lines, the
/// tail); each line also through `tracer record`'s `DevTools listening on` reader and the check
/// made before attaching to a URL.
pub fn inspector_stderr(bytes: &[u8]) {
    let (events, lines) = mpsc::sync_channel(64);
    let tail = StderrTail::default();
    let pump = pump_stderr(
        io::Cursor::new(bytes.to_vec()),
        false,
        events,
        Clock::start(),
        tail.clone(),
    );
    for event in lines {
        assert_eq!(event.kind, Kind::Output);
    }
    pump.join().expect("the stderr pump never panics");
    let _ = tail.text();
    let check = |url: &str| {
        if let Ok(address) = cdp::loopback_address(url) {
            assert!(address.ip().is_loopback() && address.is_ipv4(), "{url}");
            assert!(url.starts_with("ws://"), "{url}");
        }
    };
    let mut reader = BufReader::new(bytes);
    let mut line = Vec::new();
    while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
        let text = String::from_utf8_lossy(&line).trim_end().to_owned();
        if let Some(url) = crate::record::browser::devtools_url(&text) {
            check(url);
        }
        line.clear();
    }
}

/// A source map file, found the three ways the tracer finds one (the runtime's `sourceMapURL`
/// naming a file, the same bytes as an inline `data:` URL, the script's own trailing comment), each
/// through the mapper as a stack frame at a few generated positions. Writes in `dir`.
pub fn source_map(bytes: &[u8], dir: &Path) {
    // The scripts stay the same from one input to the next: only the map is written each time.
    let write = |name: &str, contents: &[u8], always: bool| {
        let path = dir.join(name);
        if always || !path.exists() {
            std::fs::write(&path, contents).expect("writing in the fuzz folder");
        }
        format!("file://{}", path.display())
    };
    write("app.js.map", bytes, true);
    let named = write("app.js", b"console.log(1)\n", false);
    let commented = write(
        "commented.js",
        b"1\n//# sourceMappingURL=app.js.map\n",
        false,
    );
    let inline = write("inline.js", b"1\n", false);
    let mut mapper = Mapper::new(dir.to_owned());
    mapper.register_script(&named, "app.js.map");
    mapper.register_script(
        &inline,
        &format!("data:application/json;base64,{}", base64(bytes)),
    );
    match sourcemaps::load(&dir.join("app.js"), Some("app.js.map")) {
        Ok(Some(_)) => {}
        Ok(None) => panic!("a named map is never `no map`"),
        Err(note) => assert!(
            note.contains("app.js.map"),
            "the note names the map: {note}"
        ),
    }
    for url in [&named, &commented, &inline] {
        for line in [0, 1, 2, 7, u32::MAX - 1] {
            for column in [0, 1, 4, 9, 40, u32::MAX - 1] {
                let (frame, _note) = mapper
                    .position("f", url, line, column)
                    .expect("a file URL is user code");
                assert!(frame.line >= 1 && frame.column >= 1, "{frame:?}");
            }
        }
    }
}

/// Raw trace shards (the input split at [`FILE_SEPARATOR`], at most four) through the reader and
/// the contract builder, as `tracer contract build --trace` does, and the single-file header read
/// `tracer check` does. Writes in `dir`.
pub fn raw_trace(bytes: &[u8], dir: &Path) {
    let paths: Vec<PathBuf> = bytes
        .splitn(4, |b| *b == FILE_SEPARATOR)
        .enumerate()
        .map(|(i, shard)| {
            let path = dir.join(format!("shard-{i}.ndjson"));
            std::fs::write(&path, shard).expect("writing in the fuzz folder");
            path
        })
        .collect();
    let built = (|| -> anyhow::Result<contract::Contract> {
        let mut capture = raw_trace::MergedShards::open(&paths, dir)?;
        let baseline_id = capture.baseline_id().map(str::to_owned);
        let names = capture.file_names();
        let mut builder = Builder::new();
        let mut last = None;
        while let Some(event) = capture.next_event()? {
            assert!(last < Some(event.seq), "seq strictly increasing");
            last = Some(event.seq);
            builder.add(&event, &names);
        }
        let summary = capture.finish()?;
        Ok(builder.finish(&summary, baseline_id, None))
    })();
    match built {
        Ok(contract) => {
            let _ = contract::to_json_bytes(&contract);
            let _ = crate::output::markdown::contract::to_markdown(&contract);
        }
        Err(e) => {
            let message = format!("{e:#}");
            assert!(message.contains("shard-"), "names the file: {message}");
            assert_eq!(
                crate::error::exit_code_of(&e),
                crate::exit::USAGE,
                "bad input is a usage error: {message}"
            );
        }
    }
    let _ = raw_trace::read_header(&paths[0], "shard-0.ndjson".to_owned());
    if let [path] = paths.as_slice() {
        in_parts_as_one_pass(path, dir);
    }
}

/// A single trace file read in parts (every few bytes a part, three threads) gives the contract
/// bytes of the one pass, or the same refusal.
fn in_parts_as_one_pass(path: &Path, dir: &Path) {
    use crate::conformance::build;
    let read = |jobs| {
        let options = build::Options {
            jobs,
            max_items: usize::MAX,
            min_part_bytes: 1,
        };
        build::read(&[path.to_owned()], dir, options, &|_, _| Ok(())).map(|(builder, summary)| {
            let baseline = summary.baseline_id.clone();
            builder.finish_with_json(&summary, baseline, None).1
        })
    };
    match (read(1), read(3)) {
        (Ok(one), Ok(parts)) => assert!(one == parts, "the parts' contract differs"),
        (Err(one), Err(parts)) => assert_eq!(format!("{parts:#}"), format!("{one:#}")),
        (one, parts) => panic!(
            "one pass {:?}, in parts {:?}",
            one.map(|_| ()),
            parts.map(|_| ())
        ),
    }
}

/// A conformance case folder in a temporary directory, for fuzzing one of its files at a time.
pub struct CheckCase {
    dir: tempfile::TempDir,
}

impl CheckCase {
    /// Creates the case from `(path relative to the case folder, bytes)` pairs. The audit among
    /// them is sealed here with this machine's key (`conformance::seal`), as `tracer audit` would
    /// seal it, so that the committed case can match; any later change breaks the seal.
    pub fn new(files: &[(&str, &[u8])]) -> io::Result<CheckCase> {
        let dir = tempfile::Builder::new()
            .prefix("tracer-fuzz-case-")
            .tempdir()?;
        for (relative, bytes) in files {
            let path = dir.path().join(relative);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let mut bytes = bytes.to_vec();
            if *relative == crate::conformance::audit_format::JSON_PATH
                && let Ok(mut audit) = serde_json::from_slice::<Value>(&bytes)
                && let Some(state) = crate::conformance::seal::state_dir()
                && let Ok(key) = crate::conformance::seal::key_in(&state)
            {
                audit[crate::conformance::seal::FIELD] =
                    crate::conformance::seal::seal(&audit, &key).into();
                bytes = serde_json::to_vec_pretty(&audit).map_err(io::Error::other)?;
            }
            std::fs::write(path, bytes)?;
        }
        Ok(CheckCase { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Replaces the file at `relative` with `bytes`, then runs `tracer check` on the case as the
    /// command does (the check, the diff's JSON and Markdown), without writing the diff.
    pub fn check_with(&self, relative: &str, bytes: &[u8]) -> check::Outcome {
        std::fs::write(self.path().join(relative), bytes).expect("writing in the fuzz folder");
        let outcome = check::check(self.path(), "case");
        let diff = &outcome.diff;
        assert_eq!(diff.matched, diff.blocking.is_empty());
        assert!(
            !(outcome.bad_input && diff.matched),
            "bad input never matches"
        );
        let value = serde_json::to_value(diff).expect("a diff always serializes");
        let _ = serde_json::to_vec_pretty(&value);
        let _ = crate::output::markdown::diff::to_markdown(diff);
        outcome
    }
}

/// A contract, as `tracer check` reads it (against the rest of `case`) and as `tracer audit`
/// reads it (typed) to choose the target's script names.
pub fn contract(case: &CheckCase, bytes: &[u8]) -> check::Outcome {
    let outcome = case.check_with(contract::JSON_PATH, bytes);
    if let Ok(value) = crate::files::read_json::<Value>(&case.path().join(contract::JSON_PATH)) {
        let _ = serde_json::from_value::<contract::Contract>(value);
    }
    outcome
}

/// An audit, as `tracer check` reads it (against the rest of `case`).
pub fn audit(case: &CheckCase, bytes: &[u8]) -> check::Outcome {
    case.check_with(crate::conformance::audit_format::JSON_PATH, bytes)
}

/// A policy file, as `tracer contract build` reads it (and builds the contract of the case's
/// trace with it, in memory) and as `tracer check` reads it.
pub fn policy(case: &CheckCase, bytes: &[u8], trace: &Path) -> check::Outcome {
    let path = case.path().join(crate::conformance::policy::RELATIVE_PATH);
    std::fs::write(&path, bytes).expect("writing in the fuzz folder");
    match Policy::load(case.path()) {
        Ok(policy) => {
            let mut capture = raw_trace::MergedShards::open(&[trace.to_owned()], case.path())
                .expect("the case's trace reads");
            let names = capture.file_names();
            let mut builder = Builder::new();
            while let Some(event) = capture.next_event().expect("the case's trace reads") {
                builder.add(&event, &names);
            }
            let summary = capture.finish().expect("the case's trace reads");
            let entry = contract::PolicyEntry {
                path: crate::conformance::policy::RELATIVE_PATH.to_owned(),
                sha256: crate::conformance::hash::of_bytes(bytes),
            };
            let built = builder.finish(&summary, None, policy.as_ref().map(|p| (p, entry)));
            let _ = contract::to_json_bytes(&built);
        }
        Err(e) => {
            let message = format!("{e:#}");
            assert!(message.contains("trace-runtime-policy.json"), "{message}");
            assert_eq!(
                crate::error::exit_code_of(&e),
                crate::exit::USAGE,
                "{message}"
            );
        }
    }
    case.check_with(crate::conformance::policy::RELATIVE_PATH, bytes)
}

/// A session folder (`session.json`, then `evidence.json` after [`FILE_SEPARATOR`] if any) read
/// back as `show`, `evidence`, `export`, `replay` (printed and stepped through) and `verify` (up to
/// the re-run, which is not started) read it. Writes the store under `out`; the output goes nowhere.
pub fn session_files(bytes: &[u8], out: &Path) {
    const ID: &str = "20260101-000000-000-0000";
    let mut parts = bytes.splitn(2, |b| *b == FILE_SEPARATOR);
    let session_json = parts.next().unwrap_or_default();
    let evidence_json = parts.next();
    let store = Store::new(out);
    let dir = store.dir(ID);
    std::fs::create_dir_all(&dir).expect("creating the fuzz store");
    std::fs::write(dir.join("session.json"), session_json).expect("writing in the fuzz folder");
    let evidence_path = dir.join("evidence.json");
    match evidence_json {
        Some(bytes) => std::fs::write(&evidence_path, bytes).expect("writing in the fuzz folder"),
        None => {
            let _ = std::fs::remove_file(&evidence_path);
        }
    }
    std::fs::write(out.join("latest"), format!("{ID}\n")).expect("writing in the fuzz folder");

    let id = store.resolve("latest").expect("the session exists");
    let _ = store.resolve("last-failed");
    let session: Session = match store.load(&id) {
        Ok(session) => session,
        Err(e) => {
            let message = format!("{e:#}");
            assert!(message.contains("session.json"), "{message}");
            return;
        }
    };
    // show, export
    let _ = serde_json::to_value(&session);
    let _ = serde_json::to_vec(&crate::output::chrome_trace::chrome_trace(&session));
    for event in &session.events {
        let _ = serde_json::to_vec(event);
    }
    // evidence
    if let Err(e) = crate::files::read_json::<Value>(&evidence_path) {
        assert!(format!("{e:#}").contains("evidence.json"));
    }
    // replay: the evidence is optional there
    let evidence: Option<Evidence> = crate::files::read_json(&evidence_path).unwrap_or(None);
    let styles = Styles::for_stdout(crate::output::human::ColorWhen::Always);
    let failure_grep = regex::Regex::new("o").expect("valid regex");
    for (kinds, grep) in [
        (&[][..], None),
        (&[Kind::Exception, Kind::Console][..], Some(&failure_grep)),
    ] {
        let timeline = replay::Replay::new(&session, evidence.as_ref(), kinds, grep);
        let _ = timeline.print_all(&styles, &mut io::sink());
        let mut keys =
            io::Cursor::new(&b"n\n\np\nf\n1\n#3\n99999999999999999999\nx\nh\nn\nn\nq\n"[..]);
        let _ = timeline.step_through(&styles, &mut keys, &mut io::sink());
    }
    // verify: refuses a running session; compares the evidence with a re-run's (here: itself)
    if session.status != Status::Running
        && let Ok(original) = crate::files::read_json::<Option<Evidence>>(&evidence_path)
    {
        let _ = crate::trace::rerun::compare(original.as_ref(), &session, evidence.as_ref());
    }
}

/// Standard base64 with padding (for `data:` URLs).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
        for _ in chunk.len()..3 {
            out.push('=');
        }
    }
    out
}
