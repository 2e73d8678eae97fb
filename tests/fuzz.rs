//! Property tests for every parser of outside input (issue 6, point 2), through the public library
//! API: CDP messages, stack texts and script URLs, source maps, raw traces, the JSON files read back
//! (`session.json`, policies), contracts and audits as `tracer check` reads them, rendered values,
//! and the bounded event log. Each property is "never panics" plus what the reader promises (a
//! clear error naming the file and line, caps, counts). The coverage-guided targets in `fuzz/` call
//! the same harness (`tracer::fuzzing`).
//!
//! The default run is quick (proptest's 256 cases, fewer for targets that touch the disk);
//! `scripts/fuzz.sh` runs the same properties with `PROPTEST_CASES` set high. The second half
//! pins the defined behaviour `docs/input-handling.md` states for deep nesting, huge numbers, BOMs,
//! CRLF, empty lines and duplicate keys, reader by reader.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};

use tracer::conformance::check;
use tracer::conformance::policy::Policy;
use tracer::conformance::raw_trace;
use tracer::files::read_json;
use tracer::fuzzing::{self, CheckCase, base64};
use tracer::inspector::cdp::{self, Incoming};
use tracer::trace::event::{Event, Kind};
use tracer::trace::mapper::{stack_text_frames, user_path};
use tracer::trace::session::{EventLog, Session};
use tracer::trace::sourcemaps;
use tracer::trace::values::{VALUE_LIMIT, cap, render, render_args};

/// Cases for targets that write a file per case: a quarter of `PROPTEST_CASES` (default 64).
fn disk_config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse::<u32>().ok())
        .map_or(64, |c| (c / 4).max(1));
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

fn config() -> Config {
    Config {
        failure_persistence: None,
        ..Config::default()
    }
}

/// Keys the readers look at, mixed with arbitrary ones, so generated objects reach deep paths.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "id", "method", "params", "result", "error", "sessionId", "type", "subtype", "value",
            "unserializableValue", "description", "className", "preview", "properties", "name",
            "overflow", "version", "sources", "mappings", "names", "sections", "offset", "map",
            "schema", "seq", "api", "accessType", "realm", "receiver", "phase", "baselineId",
            "status", "events", "kind", "line", "column", "file",
        ])
        .prop_map(str::to_owned),
        1 => ".{0,8}",
    ]
}

/// Arbitrary JSON, biased toward the shapes the readers expect.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        prop::sample::select(vec![
            "string",
            "number",
            "object",
            "undefined",
            "bigint",
            "boolean",
            "function",
            "null",
            "array",
            "error",
            "header",
            "access",
            "tracer-trace/v1",
            "NaN",
            "-0",
        ])
        .prop_map(|s| json!(s)),
        ".{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..8)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// Text that is JSON, almost JSON, or anything.
fn json_ish_text() -> impl Strategy<Value = String> {
    prop_oneof![
        json_value().prop_map(|v| v.to_string()),
        (json_value(), 0usize..200, any::<u8>()).prop_map(|(v, at, byte)| {
            // Damage a valid text: cut it or insert a byte.
            let mut text = v.to_string().into_bytes();
            let at = at.min(text.len());
            if byte % 2 == 0 {
                text.truncate(at);
            } else {
                text.insert(at, byte);
            }
            String::from_utf8_lossy(&text).into_owned()
        }),
        ".{0,200}",
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn cdp_parse_never_panics_and_sorts_messages(text in json_ish_text()) {
        let incoming = cdp::parse(&text);
        let value: Option<Value> = serde_json::from_str(&text).ok();
        match (&incoming, value.as_ref().and_then(|v| v.get("id")).and_then(Value::as_u64)) {
            (Incoming::Response { id, .. }, Some(expected)) => prop_assert_eq!(*id, expected),
            (Incoming::Response { .. }, None) => prop_assert!(false, "a response without a u64 id"),
            (_, Some(_)) => prop_assert!(false, "a message with a u64 id is a response"),
            (Incoming::Event { method, .. }, None) => {
                prop_assert_eq!(value.as_ref().and_then(|v| v.get("method")).and_then(Value::as_str), Some(method.as_str()));
            }
            (Incoming::Idle, None) => {}
            (Incoming::Closed, _) => prop_assert!(false, "parse never says closed"),
        }
        let _ = cdp::parse_flat(&text);
    }

    #[test]
    fn cdp_parse_of_any_json_value_never_panics(value in json_value()) {
        let _ = cdp::parse(&value.to_string());
        let _ = cdp::parse(&json!({"method": "Runtime.consoleAPICalled", "params": value}).to_string());
    }

    #[test]
    fn inspector_urls_are_accepted_only_for_loopback(url in prop_oneof![
        ".{0,60}",
        ("(ws|wss|http)", "(127\\.0\\.0\\.1|localhost|0\\.0\\.0\\.0|\\[::1\\]|10\\.0\\.0\\.1|127\\.0\\.0\\.2|.{0,10})", "(:[0-9]{0,6})?", "/.{0,20}")
            .prop_map(|(s, h, p, rest)| format!("{s}://{h}{p}{rest}")),
    ]) {
        if let Ok(address) = cdp::loopback_address(&url) {
            prop_assert!(address.ip().is_loopback() && address.is_ipv4(), "{url} -> {address}");
            prop_assert!(url.starts_with("ws://"), "{url}");
        }
    }

    #[test]
    fn stack_text_frames_never_panic_and_name_absolute_files(text in stack_text()) {
        for frame in stack_text_frames(&text) {
            prop_assert!(Path::new(&frame.file).is_absolute(), "{frame:?}");
        }
    }

    #[test]
    fn user_path_never_panics_and_is_absolute(url in prop_oneof![".{0,80}", "file://.{0,40}", "/.{0,40}", "file://(%[0-9A-Fa-f]{0,2}|.){0,20}"]) {
        if let Some(path) = user_path(&url) {
            prop_assert!(path.is_absolute(), "{url} -> {}", path.display());
        }
    }

    #[test]
    fn render_never_panics_and_args_stay_bounded(values in prop::collection::vec(json_value(), 0..6)) {
        for value in &values {
            let _ = render(value);
        }
        let line = render_args(&values);
        let (capped, cut) = cap(line.clone(), VALUE_LIMIT);
        prop_assert_eq!(cut, line.chars().count() > VALUE_LIMIT);
        if !cut {
            prop_assert_eq!(capped, line);
        }
    }

    #[test]
    fn cap_keeps_at_most_the_limit_and_says_how_much_was_cut(text in ".{0,700}", limit in 0usize..600) {
        let chars = text.chars().count();
        let (capped, cut) = cap(text.clone(), limit);
        prop_assert_eq!(cut, chars > limit);
        if cut {
            let marker = format!("… [{} more chars]", chars - limit);
            prop_assert!(capped.ends_with(&marker));
            prop_assert_eq!(capped.chars().count(), limit + marker.chars().count());
            prop_assert!(text.starts_with(capped.strip_suffix(&marker).unwrap()));
        } else {
            prop_assert_eq!(capped, text);
        }
    }

    #[test]
    fn the_event_log_keeps_its_promises(max in 0usize..40, kinds in prop::collection::vec(0u8..6, 0..300)) {
        let mut log = EventLog::new(max);
        let mut last_exception = None;
        for (i, k) in kinds.iter().enumerate() {
            let kind = [Kind::Context, Kind::Script, Kind::Console, Kind::Exception, Kind::Output, Kind::Exit][*k as usize];
            let mut event = Event::new(kind, i as f64, "x");
            event.id = i as u64 + 1;
            if kind == Kind::Exception {
                last_exception = Some(event.id);
            }
            log.push(event);
        }
        prop_assert_eq!(log.seen(), kinds.len() as u64);
        let (kept, dropped) = log.finish();
        let bound = max.max(2);
        prop_assert!(kept.len() <= bound, "{} kept, max {}", kept.len(), bound);
        prop_assert_eq!(kept.len() as u64 + dropped, kinds.len() as u64);
        prop_assert!(kept.windows(2).all(|w| w[0].id < w[1].id), "kept in id order");
        if let Some(id) = last_exception {
            prop_assert!(kept.iter().any(|e| e.id == id), "the last exception is kept");
        }
        if !kinds.is_empty() {
            prop_assert_eq!(kept.last().map(|e| e.id), Some(kinds.len() as u64), "the last event is kept");
        }
    }
}

/// Stack-trace text: frame-shaped lines from fragments, plus noise.
fn stack_text() -> impl Strategy<Value = String> {
    let fragment = prop::sample::select(vec![
        "    at ",
        "at ",
        "async ",
        "new ",
        "(",
        ")",
        "/",
        "/w/app.js",
        "file:///w/a%20b.js",
        "node:internal/x",
        ":",
        "3",
        "0",
        "99999999999999999999999",
        ":9",
        " ",
        "\t",
        "<anonymous>",
        "eval at f (",
        "Error: boom",
        "\n",
        "\r\n",
        "é",
    ]);
    prop_oneof![
        prop::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat()),
        ".{0,200}",
    ]
}

/// A source map: mostly well-formed JSON with arbitrary `mappings`, sometimes indexed, sometimes
/// arbitrary bytes.
fn source_map_bytes() -> impl Strategy<Value = Vec<u8>> {
    let mappings = prop_oneof![
        "[A-Za-z0-9+/,;]{0,80}",
        prop::collection::vec(
            prop::sample::select(vec![
                "AAAA",
                "gB",
                "////",
                "+++++++",
                ";",
                ",",
                "CAAC",
                "//////////Z"
            ]),
            0..20
        )
        .prop_map(|p| p.concat()),
    ];
    let sources = prop::collection::vec(
        prop_oneof![
            ".{0,12}",
            Just("file:///w/x.ts".to_owned()),
            Just("webpack:///../../a.ts".to_owned())
        ],
        0..4,
    );
    let regular = (mappings, sources, prop::collection::vec(".{0,6}", 0..3), prop_oneof![Just(json!(3)), json_value()])
        .prop_map(|(mappings, sources, names, version)| {
            json!({"version": version, "sources": sources, "names": names, "mappings": mappings})
        });
    prop_oneof![
        3 => regular.clone().prop_map(|m| m.to_string().into_bytes()),
        1 => prop::collection::vec((0u32..5, 0u32..5, regular), 0..3).prop_map(|sections| {
            let sections: Vec<Value> = sections
                .into_iter()
                .map(|(line, column, map)| json!({"offset": {"line": line, "column": column}, "map": map}))
                .collect();
            json!({"version": 3, "sections": sections}).to_string().into_bytes()
        }),
        1 => json_ish_text().prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..200),
    ]
}

proptest! {
    #![proptest_config(disk_config())]

    #[test]
    fn any_source_map_file_loads_or_is_a_note(bytes in source_map_bytes(), positions in prop::collection::vec((0u32..8, 0u32..200), 0..8)) {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("app.js");
        std::fs::write(&script, "console.log(1)\n").unwrap();
        std::fs::write(dir.path().join("app.js.map"), &bytes).unwrap();
        match sourcemaps::load(&script, Some("app.js.map")) {
            Ok(Some(mut map)) => {
                for (line, column) in positions {
                    let _ = map.lookup(line, column);
                }
            }
            Ok(None) => prop_assert!(false, "a named map is never `no map`"),
            Err(note) => prop_assert!(note.contains("app.js.map"), "the note names the map: {note}"),
        }
        // The same bytes as an inline data: URL, and found through the script's own comment.
        let inline = format!("data:application/json;base64,{}", base64(&bytes));
        let _ = sourcemaps::load(&script, Some(&inline));
        std::fs::write(&script, "1\n//# sourceMappingURL=app.js.map\n").unwrap();
        let _ = sourcemaps::load(&script, None);
    }

    #[test]
    fn any_raw_trace_reads_or_is_a_clear_error_naming_the_file(lines in raw_trace_lines()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.ndjson");
        std::fs::write(&path, lines).unwrap();
        let mut seqs = Vec::new();
        match raw_trace::read_capture(std::slice::from_ref(&path), dir.path(), |event, _| {
            seqs.push(event.seq);
            Ok(())
        }) {
            Ok(summary) => {
                prop_assert!(seqs.windows(2).all(|w| w[0] < w[1]), "seq strictly increasing");
                prop_assert_eq!(summary.events, seqs.len() as u64);
            }
            Err(e) => {
                let message = format!("{e:#}");
                prop_assert!(message.contains("t.ndjson"), "the error names the file: {message}");
                prop_assert_eq!(tracer::error::exit_code_of(&e), 2, "bad input is a usage error: {}", message);
            }
        }
    }

    #[test]
    fn any_session_or_policy_file_reads_or_names_file_line_and_column(bytes in prop_oneof![
        json_ish_text().prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..200),
        Just(include_bytes!("fixtures/session_sample.json").to_vec()),
        (0usize..4000, any::<u8>()).prop_map(|(at, byte)| {
            let mut bytes = include_bytes!("fixtures/session_sample.json").to_vec();
            let at = at % bytes.len();
            bytes[at] = byte;
            bytes
        }),
    ]) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.json");
        std::fs::write(&path, &bytes).unwrap();
        for e in [read_json::<Session>(&path).err(), read_json::<Policy>(&path).err()].into_iter().flatten() {
            let message = format!("{e:#}");
            prop_assert!(message.contains("session.json"), "{message}");
        }
    }
}

/// The example's conformance case with the contract and audit `tracer` made of it (`fuzz/case`,
/// shared with the cargo-fuzz targets): it matches, so each mutated file is checked against a case
/// that otherwise passes.
fn matching_case() -> CheckCase {
    CheckCase::new(&[
        (
            "ruyi-trace/logs/current.ndjson",
            include_bytes!("../examples/conformance/case/ruyi-trace/logs/current.ndjson"),
        ),
        (
            "result/final.js",
            include_bytes!("../examples/conformance/result-fixed/final.js"),
        ),
        ("notes/trace-runtime-contract.json", CONTRACT),
        ("tmp/node-trace-runtime-audit.json", AUDIT),
    ])
    .unwrap()
}

const CONTRACT: &[u8] = include_bytes!("../fuzz/case/notes/trace-runtime-contract.json");
const AUDIT: &[u8] = include_bytes!("../fuzz/case/tmp/node-trace-runtime-audit.json");

/// A JSON file damaged the ways a file on disk gets damaged: a byte changed, cut short, a byte
/// inserted, one value replaced by arbitrary JSON, or arbitrary bytes.
fn damaged(original: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
    let value: Value = serde_json::from_slice(original).unwrap();
    prop_oneof![
        3 => (any::<prop::sample::Index>(), any::<u8>(), 0u8..3).prop_map(move |(at, byte, how)| {
            let mut bytes = original.to_vec();
            let at = at.index(bytes.len());
            match how {
                0 => bytes[at] = byte,
                1 => bytes.truncate(at),
                _ => bytes.insert(at, byte),
            }
            bytes
        }),
        3 => (any::<prop::sample::Index>(), json_value()).prop_map(move |(at, replacement)| {
            let mut value = value.clone();
            let mut slots = Vec::new();
            collect_pointers(&value, String::new(), &mut slots);
            let pointer = &slots[at.index(slots.len())];
            if let Some(slot) = value.pointer_mut(pointer) {
                *slot = replacement;
            }
            serde_json::to_vec_pretty(&value).unwrap()
        }),
        1 => prop::collection::vec(any::<u8>(), 0..300),
        1 => json_ish_text().prop_map(String::into_bytes),
    ]
}

fn collect_pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                collect_pointers(inner, format!("{at}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                collect_pointers(inner, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// What `tracer check` promises for a damaged input file: not JSON is an `UNREADABLE_INPUT` naming
/// the file (exit 2); anything else is checked without a panic, and a finding blocks the match.
fn assert_checked_or_refused(
    outcome: &check::Outcome,
    bytes: &[u8],
    file: &str,
) -> Result<(), TestCaseError> {
    let diff = &outcome.diff;
    if serde_json::from_slice::<Value>(bytes).is_err() {
        prop_assert!(outcome.bad_input, "not JSON is bad input (exit 2)");
        let unreadable = diff
            .blocking
            .iter()
            .find(|f| f.code == "UNREADABLE_INPUT" && f.message.contains(file));
        prop_assert!(unreadable.is_some(), "{:?}", diff.blocking);
    }
    prop_assert_eq!(diff.matched, diff.blocking.is_empty());
    Ok(())
}

#[test]
fn the_fuzz_case_matches() {
    // The contract and audit targets start from this case: if a format change made it stale,
    // `scripts/fuzz.sh --refresh-case` rebuilds it.
    let case = matching_case();
    let outcome = check::check(case.path(), "case");
    assert!(
        outcome.diff.matched && !outcome.bad_input,
        "fuzz/case no longer matches: run `scripts/fuzz.sh --refresh-case`\n{:#?}",
        outcome.diff.blocking
    );
}

#[test]
fn any_contract_is_checked_or_refused_with_a_blocking_finding() {
    let case = matching_case();
    let original: Value = serde_json::from_slice(CONTRACT).unwrap();
    TestRunner::new(disk_config())
        .run(&damaged(CONTRACT), |bytes| {
            let outcome = fuzzing::contract(&case, &bytes);
            assert_checked_or_refused(&outcome, &bytes, "trace-runtime-contract.json")?;
            // Any change to the contract's content changes its hash: never a match.
            if serde_json::from_slice::<Value>(&bytes).is_ok_and(|v| v != original) {
                prop_assert!(!outcome.diff.matched, "an edited contract matched");
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn any_audit_is_checked_or_refused_with_a_blocking_finding() {
    let case = matching_case();
    TestRunner::new(disk_config())
        .run(&damaged(AUDIT), |bytes| {
            let outcome = fuzzing::audit(&case, &bytes);
            assert_checked_or_refused(&outcome, &bytes, "node-trace-runtime-audit.json")
        })
        .unwrap();
}

/// A raw trace: a header (or not), then lines of events, blanks, CRLF, garbage.
fn raw_trace_lines() -> impl Strategy<Value = Vec<u8>> {
    let header = prop_oneof![
        4 => Just(r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b"}"#.to_owned()),
        1 => json_ish_text(),
    ];
    let access = (0u64..50, prop::sample::select(vec!["get", "set", "call"]), prop::option::of(json_value()))
        .prop_map(|(seq, access_type, extra)| {
            let mut event = json!({"type":"access","seq":seq,"api":"Document.prototype.title","accessType":access_type,
                "realm":"main","receiver":"document","phase":"run"});
            if let Some(extra) = extra {
                event["extra"] = extra;
            }
            event.to_string()
        });
    let line = prop_oneof![
        6 => access,
        1 => Just(String::new()),
        1 => Just("   ".to_owned()),
        1 => json_ish_text(),
        1 => json_value().prop_map(|v| v.to_string()),
    ];
    let ending = prop::sample::select(vec!["\n", "\r\n", ""]);
    (
        any::<bool>(),
        header,
        prop::collection::vec((line, ending), 0..20),
        prop::collection::vec(any::<u8>(), 0..3),
    )
        .prop_map(|(bom, header, lines, junk)| {
            let mut bytes = Vec::new();
            if bom {
                bytes.extend_from_slice(b"\xEF\xBB\xBF");
            }
            bytes.extend_from_slice(header.as_bytes());
            bytes.push(b'\n');
            for (line, ending) in lines {
                bytes.extend_from_slice(line.as_bytes());
                bytes.extend_from_slice(ending.as_bytes());
            }
            bytes.extend_from_slice(&junk);
            bytes
        })
}

// ---- Defined behaviour, reader by reader (docs/input-handling.md states each of these). ----

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn cdp_messages_defined_behaviour() {
    // Deep nesting past serde_json's 128 levels: the message is dropped (Idle), not a crash.
    let deep = format!(r#"{{"method":"M","params":{}}}"#, nested(10_000));
    assert!(matches!(cdp::parse(&deep), Incoming::Idle));
    let ok = format!(r#"{{"method":"M","params":{}}}"#, nested(100));
    assert!(matches!(cdp::parse(&ok), Incoming::Event { .. }));
    // A huge id is no request of ours: not a response; a huge number elsewhere is kept as f64.
    assert!(matches!(
        cdp::parse(r#"{"id":1e400,"result":{}}"#),
        Incoming::Idle
    ));
    assert!(matches!(
        cdp::parse(r#"{"id":99999999999999999999,"result":{}}"#),
        Incoming::Idle
    ));
    match cdp::parse(r#"{"method":"M","params":{"n":123456789012345678901234567890}}"#) {
        Incoming::Event { params, .. } => assert!(params["n"].is_f64()),
        other => panic!("{other:?}"),
    }
    // A BOM makes the text invalid JSON: dropped. CRLF and blank space around it are whitespace.
    assert!(matches!(cdp::parse("\u{feff}{\"id\":1}"), Incoming::Idle));
    assert!(matches!(
        cdp::parse("\r\n{\"id\":1}\r\n"),
        Incoming::Response { id: 1, .. }
    ));
    assert!(matches!(cdp::parse(""), Incoming::Idle));
    // Duplicate keys: the last one wins.
    assert!(matches!(
        cdp::parse(r#"{"id":1,"id":2}"#),
        Incoming::Response { id: 2, .. }
    ));
}

#[test]
fn exception_positions_beyond_u32_are_clamped() {
    // Found while writing the `cdp_message` fuzz target: an exception without a stack at a 0-based
    // line of u32::MAX overflowed when made 1-based (a panic with overflow checks, line 0 without),
    // and a line beyond u32 was truncated to a small one. Both now give the largest position.
    use tracer::inspector::driver::Observer;
    use tracer::trace::capture::Capture;
    use tracer::trace::event::Clock;
    use tracer::trace::mapper::Mapper;

    let dir = tempfile::tempdir().unwrap();
    for (line0, column0) in [(4_294_967_295u64, 4_294_967_295u64), (4_294_967_296, 0)] {
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        let mut capture = Capture::new(Mapper::new(dir.path().into()), tx, Clock::start(), None);
        let params = json!({"exceptionDetails": {"text": "Uncaught", "lineNumber": line0,
            "columnNumber": column0, "url": "/w/a.js"}});
        capture.on_event(None, "Runtime.exceptionThrown", &params);
        let event = rx.try_recv().expect("an exception event");
        assert_eq!(event.line, Some(u32::MAX), "{line0}");
        assert!(event.column.is_some_and(|c| c >= 1), "{column0}");
    }
}

fn session_file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.json");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn session_files_defined_behaviour() {
    let sample = include_str!("fixtures/session_sample.json");
    let (_d, path) = session_file(sample);
    read_json::<Session>(&path).expect("the sample reads");
    // CRLF line ends: read as whitespace.
    let (_d, path) = session_file(&sample.replace('\n', "\r\n"));
    read_json::<Session>(&path).expect("CRLF reads");
    // A BOM is refused, with file:line:column.
    let (_d, path) = session_file(&format!("\u{feff}{sample}"));
    let e = format!("{:#}", read_json::<Session>(&path).unwrap_err());
    assert!(e.contains("session.json:1:1"), "{e}");
    // Empty file: refused (EOF at 1:0).
    let (_d, path) = session_file("");
    let e = format!("{:#}", read_json::<Session>(&path).unwrap_err());
    assert!(e.contains("session.json:1:0") && e.contains("EOF"), "{e}");
    // Duplicate keys: refused (`duplicate field`).
    let duplicated = sample.replacen(
        "\"runtime\": \"node\",",
        "\"runtime\": \"node\",\n  \"runtime\": \"node\",",
        1,
    );
    assert_ne!(duplicated, sample);
    let (_d, path) = session_file(&duplicated);
    let e = format!("{:#}", read_json::<Session>(&path).unwrap_err());
    assert!(e.contains("duplicate field `runtime`"), "{e}");
    // Deep nesting: every field of a session is typed, so nesting where a string is expected is
    // refused at once; files read as plain JSON (`evidence.json` by `show`, contracts, audits) are
    // refused at serde_json's recursion limit (127 levels are read, 128 are not), never a stack overflow.
    let (_d, path) = session_file(&sample.replacen(
        "\"args\": []",
        &format!("\"args\": [{}]", nested(10_000)),
        1,
    ));
    let e = format!("{:#}", read_json::<Session>(&path).unwrap_err());
    assert!(
        e.contains("session.json:6:11") && e.contains("invalid type"),
        "{e}"
    );
    let (_d, path) = session_file(&nested(10_000));
    let e = format!("{:#}", read_json::<Value>(&path).unwrap_err());
    assert!(
        e.contains("session.json:1:128") && e.contains("recursion limit exceeded"),
        "{e}"
    );
    let (_d, path) = session_file(&nested(127));
    read_json::<Value>(&path).expect("127 levels read");
    // Read as plain JSON: duplicate keys, the last one wins; beyond u64 a float; BOM, empty refused.
    let (_d, path) = session_file("{\"a\":1,\"a\":99999999999999999999}");
    let value = read_json::<Value>(&path).unwrap();
    assert!(value["a"].is_f64(), "{value}");
    for (text, at) in [
        ("\u{feff}{}", "session.json:1:1"),
        ("", "session.json:1:0"),
        ("1e400", "session.json:1:"),
    ] {
        let (_d, path) = session_file(text);
        let e = format!("{:#}", read_json::<Value>(&path).unwrap_err());
        assert!(e.contains(at), "{text:?}: {e}");
    }
    // Bytes that are not UTF-8 (found by the `policy` fuzz target): a parse error naming
    // file:line:column and a usage error (exit 2), like any other malformed file, not an I/O error.
    for text in [
        &b"{\"version\": \"trace-runtime\x00\x00\x00\xe7licy/v1\"}"[..],
        &b"\xff{}"[..],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.json");
        std::fs::write(&path, text).unwrap();
        for e in [
            read_json::<Session>(&path).unwrap_err(),
            read_json::<Policy>(&path).unwrap_err(),
            read_json::<Value>(&path).unwrap_err(),
        ] {
            let message = format!("{e:#}");
            assert!(message.contains("session.json:1:"), "{message}");
            assert_eq!(tracer::error::exit_code_of(&e), 2, "{message}");
        }
    }
    // A number too large for its field: refused; a float overflowing f64: refused.
    let (_d, path) = session_file(&sample.replacen(
        "\"eventCount\": 3",
        "\"eventCount\": 99999999999999999999",
        1,
    ));
    let e = format!("{:#}", read_json::<Session>(&path).unwrap_err());
    assert!(
        e.contains("eventCount") || e.contains("invalid type"),
        "{e}"
    );
    let (_d, path) =
        session_file(&sample.replacen("\"eventCount\": 3", "\"eventCount\": 1e400", 1));
    let e = format!("{:#}", read_json::<Session>(&path).unwrap_err());
    assert!(e.contains("number out of range"), "{e}");
}

fn read_trace(bytes: &[u8]) -> Result<Vec<u64>, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.ndjson");
    std::fs::write(&path, bytes).unwrap();
    let mut seqs = Vec::new();
    raw_trace::read_capture(std::slice::from_ref(&path), dir.path(), |e, _| {
        seqs.push(e.seq);
        Ok(())
    })
    .map(|_| seqs)
    .map_err(|e| format!("{e:#}"))
}

const HEADER: &str = r#"{"type":"header","schema":"tracer-trace/v1"}"#;

fn access(seq: &str) -> String {
    format!(
        r#"{{"type":"access","seq":{seq},"api":"A.b","accessType":"get","realm":"main","receiver":"r","phase":"run"}}"#
    )
}

#[test]
fn raw_traces_defined_behaviour() {
    // BOM before the header, CRLF, blank lines, a last line without a newline: tolerated.
    let text = format!(
        "\u{feff}{HEADER}\r\n\r\n{}\r\n   \n{}",
        access("1"),
        access("2")
    );
    assert_eq!(read_trace(text.as_bytes()), Ok(vec![1, 2]));
    // A BOM anywhere else: that line is not JSON.
    let text = format!("{HEADER}\n\u{feff}{}\n", access("1"));
    let e = read_trace(text.as_bytes()).unwrap_err();
    assert!(e.contains("t.ndjson:2: malformed JSON"), "{e}");
    // Huge numbers: a seq beyond u64 is refused with file:line.
    let text = format!("{HEADER}\n{}\n", access("18446744073709551616"));
    let e = read_trace(text.as_bytes()).unwrap_err();
    assert!(
        e.contains("t.ndjson:2: `seq` must be an unsigned integer"),
        "{e}"
    );
    let text = format!("{HEADER}\n{}\n", access("1e400"));
    let e = read_trace(text.as_bytes()).unwrap_err();
    assert!(e.contains("t.ndjson:2: malformed JSON"), "{e}");
    // Deep nesting inside an event: refused at the recursion limit, with file:line.
    let text = format!(
        "{HEADER}\n{}\n",
        access("1").replace("\"run\"", &format!("\"run\",\"x\":{}", nested(10_000)))
    );
    let e = read_trace(text.as_bytes()).unwrap_err();
    assert!(
        e.contains("t.ndjson:2:") && e.contains("recursion limit"),
        "{e}"
    );
    // Duplicate keys: the last one wins (the line is read as a JSON object).
    let text = format!(
        "{HEADER}\n{}\n",
        access("1").replace("\"seq\":1", "\"seq\":1,\"seq\":7")
    );
    assert_eq!(read_trace(text.as_bytes()), Ok(vec![7]));
    // An empty file: refused, no header.
    let e = read_trace(b"").unwrap_err();
    assert!(e.contains("t.ndjson: empty file"), "{e}");
}

fn load_map(bytes: &[u8]) -> Result<Option<sourcemaps::LoadedMap>, String> {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("app.js");
    std::fs::write(&script, "x\n").unwrap();
    std::fs::write(dir.path().join("app.js.map"), bytes).unwrap();
    sourcemaps::load(&script, Some("app.js.map"))
}

#[test]
fn source_maps_defined_behaviour() {
    let good = r#"{"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAA"}"#;
    assert!(load_map(good.as_bytes()).unwrap().is_some());
    // CRLF and surrounding whitespace: fine.
    assert!(
        load_map(good.replace(',', ",\r\n").as_bytes())
            .unwrap()
            .is_some()
    );
    // Empty file, deep nesting, a BOM: a note naming the map (the generated position is kept).
    for bad in [
        String::new(),
        format!("{{\"version\":3,\"x\":{}}}", nested(10_000)),
    ] {
        let note = load_map(bad.as_bytes())
            .err()
            .unwrap_or_else(|| panic!("{bad:.40} loads"));
        assert!(note.contains("app.js.map is broken"), "{note}");
    }
    let note = load_map(format!("\u{feff}{good}").as_bytes())
        .err()
        .expect("a BOM is refused");
    assert!(note.contains("app.js.map is broken"), "{note}");
    // Duplicate keys: refused (`duplicate field`), a note.
    let dup = r#"{"version":3,"sources":["a.ts"],"sources":["b.ts"],"names":[],"mappings":"AAAA"}"#;
    let note = load_map(dup.as_bytes())
        .err()
        .expect("duplicate keys are refused");
    assert!(note.contains("duplicate field `sources`"), "{note}");
    // Huge numbers in a mapping (a VLQ past 32 bits).
    let huge = r#"{"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAA,//////////Z"}"#;
    // The sourcemap crate accepts it; lookups still answer without panicking.
    let mut map = load_map(huge.as_bytes()).unwrap().unwrap();
    for column in [0, 1, 5, u32::MAX - 1] {
        let _ = map.lookup(0, column);
    }
}

#[test]
fn stack_texts_defined_behaviour() {
    // CRLF: the `\r` is not part of the position; empty lines and a line too large are skipped.
    let text = "Error: x\r\n\r\n    at f (/w/a.js:3:9)\r\n    at g (/w/b.js:99999999999:1)\r\n\n    at /w/c.js:1:2";
    let frames = stack_text_frames(text);
    let found: Vec<(&str, u32, u32)> = frames
        .iter()
        .map(|f| (f.file.as_str(), f.line, f.column))
        .collect();
    assert_eq!(found, [("/w/a.js", 3, 9), ("/w/c.js", 1, 2)]);
}

// ---- Files named by outside input: a device or a FIFO is refused, never read. ----

#[test]
fn a_source_map_naming_a_device_is_a_note_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("app.js");
    std::fs::write(&script, "1\n//# sourceMappingURL=/dev/zero\n").unwrap();
    for named in [Some("file:///dev/zero"), Some("/dev/zero"), None] {
        let note = sourcemaps::load(&script, named)
            .err()
            .expect("refused with a note");
        assert!(
            note.contains("source map /dev/zero of ") && note.ends_with("not a regular file"),
            "{note}"
        );
    }
}

#[test]
fn a_contract_naming_a_device_as_its_trace_is_stale_not_a_hang() {
    let case = matching_case();
    let mut contract: Value = serde_json::from_slice(CONTRACT).unwrap();
    contract["traces"][0]["path"] = json!("/dev/zero");
    let outcome = fuzzing::contract(&case, &serde_json::to_vec(&contract).unwrap());
    let finding = outcome
        .diff
        .blocking
        .iter()
        .find(|f| f.message.contains("trace /dev/zero cannot be read now"));
    assert!(finding.is_some(), "{:#?}", outcome.diff.blocking);
}

#[test]
fn a_replayed_session_naming_a_device_shows_no_source() {
    use tracer::output::human::Styles;
    use tracer::output::replay::Replay;

    let mut session: Session =
        serde_json::from_str(include_str!("fixtures/session_sample.json")).unwrap();
    session.events[1].file = Some("/dev/zero".into());
    session.events[1].line = Some(1);
    session.events[1].column = Some(1);
    let mut out = Vec::new();
    Replay::new(&session, None, &[], None)
        .print_all(&Styles::default(), &mut out)
        .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("/dev/zero:1:1") && out.contains("(the source file cannot be read now)"),
        "{out}"
    );
}

/// Every numeric flag of every command, given any text: the command line is read or refused as a
/// usage error (exit 2, naming the flag), never a panic; and what is accepted is in the flag's
/// range (seconds finite up to a year, threads 1 to `MAX_JOBS`).
#[test]
fn every_numeric_flag_takes_any_text_without_a_panic() {
    use clap::Parser;
    use tracer::cli::{Cli, Command, ContractCommand, MAX_JOBS, MAX_SECONDS};
    let flags: [(&[&str], &str); 12] = [
        (&["run", "x.js"], "--timeout"),
        (&["run", "x.js"], "--attach-timeout"),
        (&["run", "x.js"], "--keep"),
        (&["run", "x.js"], "--max-events"),
        (&["verify", "latest"], "--timeout"),
        (&["verify", "latest"], "--keep"),
        (&["audit", "--entry", "x.js"], "--timeout"),
        (&["record", "--baseline-id", "b", "x.html"], "--timeout"),
        (&["record", "--baseline-id", "b", "x.html"], "--settle"),
        (
            &["record", "--baseline-id", "b", "x.html"],
            "--max-accesses",
        ),
        (&["contract", "build"], "--jobs"),
        (&["contract", "build"], "--max-items"),
    ];
    let value = prop_oneof![
        prop::sample::select(vec![
            "0",
            "1",
            "-1",
            "1e20",
            "nan",
            "inf",
            "-inf",
            "18446744073709551615",
            "18446744073709551616",
            "1024",
            "1025",
            "31536000",
            "31536001",
            "",
            " 3 ",
            "0x10",
        ])
        .prop_map(str::to_owned),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| n.to_string()),
        ".{0,12}",
    ];
    TestRunner::new(config())
        .run(&(0..flags.len(), value), |(which, value)| {
            let (command, flag) = flags[which];
            let mut args = vec!["tracer"];
            args.extend_from_slice(command);
            args.push(flag);
            args.push(&value);
            match Cli::try_parse_from(&args) {
                Err(e) => prop_assert!(e.use_stderr(), "{flag} {value:?}: {e}"),
                Ok(cli) => match cli.command {
                    Command::Run(run) => {
                        for seconds in run.timeout.into_iter().chain([run.attach_timeout]) {
                            prop_assert!(
                                seconds.is_finite() && (0.0..=MAX_SECONDS).contains(&seconds)
                            );
                        }
                    }
                    Command::Contract(ContractCommand::Build(build)) => {
                        prop_assert!(build.jobs.is_none_or(|j| j.get() <= MAX_JOBS));
                    }
                    _ => {}
                },
            }
            Ok(())
        })
        .unwrap();
}
