//! `tracer export`: Chrome Trace Event Format (parsed back: span, instants, one track per worker,
//! microseconds), NDJSON and JSON as the session holds them, `-o` written atomically.

use serde_json::Value;
use tracer::trace::event::Kind;
use tracer::trace::session::Session;

use crate::support::{Tracer, parse_ndjson};

/// Runs the fixture `fixture` and exports its session as a Chrome trace (parsed).
fn run_and_export(fixture: &str) -> (crate::support::Output, Value) {
    let run = Tracer::new().fixture(fixture).args(["run", fixture]).run();
    let export = run
        .tracer()
        .args(["export", "--format", "chrome-trace"])
        .run();
    export.assert_code(0);
    let trace = serde_json::from_str(&export.stdout()).expect("chrome-trace is JSON");
    (run, trace)
}

fn trace_events(trace: &Value) -> &Vec<Value> {
    trace["traceEvents"]
        .as_array()
        .expect("a traceEvents array")
}

#[test]
fn chrome_trace_has_the_run_span_and_an_instant_per_console_exception_and_output() {
    let run = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    run.assert_code(1);
    let export = run
        .tracer()
        .args(["export", "latest", "--format", "chrome-trace"])
        .run();
    export.assert_code(0);
    let trace: Value = serde_json::from_str(&export.stdout()).expect("chrome-trace is JSON");
    let events = trace_events(&trace);
    let session = run.session();
    let pid = u64::from(session.pid.unwrap());

    let spans: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(spans.len(), 1, "one span for the run");
    let last_ts = session.events.last().unwrap().ts;
    assert_eq!(spans[0]["ts"], 0);
    assert_eq!(
        spans[0]["dur"].as_f64().unwrap(),
        (last_ts * 1000.0).round()
    );
    assert_eq!(spans[0]["pid"], pid);

    // One instant per console, exception and output event, in microseconds, on the main track.
    let instants: Vec<&Value> = events.iter().filter(|e| e["ph"] == "i").collect();
    let wanted: Vec<_> = session
        .events
        .iter()
        .filter(|e| matches!(e.kind, Kind::Console | Kind::Exception | Kind::Output))
        .collect();
    assert_eq!(instants.len(), wanted.len());
    for (instant, event) in instants.iter().zip(&wanted) {
        assert_eq!(instant["cat"], event.kind.as_str());
        assert_eq!(instant["args"]["eventId"], event.id);
        assert_eq!(instant["ts"].as_f64().unwrap(), (event.ts * 1000.0).round());
        assert_eq!(instant["tid"], 1);
        assert_eq!(instant["s"], "t");
    }
    let exception = instants.iter().find(|e| e["cat"] == "exception").unwrap();
    assert_eq!(exception["name"], "Error: boom: answer was 42");
    assert_eq!(exception["args"]["line"], 6);
    assert!(
        instants
            .iter()
            .any(|e| e["cat"] == "console" && e["args"]["value"] == "answer is 42")
    );
    // Named process and main thread.
    assert!(
        events
            .iter()
            .any(|e| e["ph"] == "M" && e["name"] == "process_name")
    );
    assert!(
        events
            .iter()
            .any(|e| e["name"] == "thread_name" && e["tid"] == 1 && e["args"]["name"] == "main")
    );
}

#[test]
fn each_worker_gets_its_own_track() {
    let (run, trace) = run_and_export("worker.js");
    let events = trace_events(&trace);
    let hello = events
        .iter()
        .find(|e| {
            e["ph"] == "i" && e["cat"] == "console" && e["args"]["value"] == "hello from the worker"
        })
        .unwrap_or_else(|| {
            panic!(
                "the worker's console call is not in the export: {events:#?}\n{}",
                run.dump()
            )
        });
    let tid = hello["tid"].as_u64().unwrap();
    assert_ne!(tid, 1, "the worker is not on the main track");
    let name = events
        .iter()
        .find(|e| e["name"] == "thread_name" && e["tid"] == tid)
        .expect("the worker's track is named");
    assert!(
        name["args"]["name"]
            .as_str()
            .unwrap()
            .starts_with("worker 1"),
        "{name}"
    );
}

#[test]
fn ndjson_and_json_give_the_events_and_the_session_as_they_are() {
    let run = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    let session = run.session();
    let ndjson = run.tracer().args(["export", "--format", "ndjson"]).run();
    ndjson.assert_code(0);
    assert_eq!(parse_ndjson(&ndjson.stdout()), session.events);
    let json = run.tracer().args(["export", "--format", "json"]).run();
    json.assert_code(0);
    let exported: Session = serde_json::from_str(&json.stdout()).unwrap();
    assert_eq!(exported, session);
}

#[test]
fn dash_o_writes_the_file_and_leaves_no_temporary_file() {
    let run = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    let export = run
        .tracer()
        .args(["export", "--format", "chrome-trace", "-o", "out/trace.json"])
        .run();
    // The folder does not exist: a usage error that names the file.
    export.assert_code(2);
    assert!(
        export.stderr().contains("out/trace.json"),
        "{}",
        export.stderr()
    );
    std::fs::create_dir_all(run.workspace().join("out")).unwrap();
    let export = run
        .tracer()
        .args(["export", "--format", "chrome-trace", "-o", "out/trace.json"])
        .run();
    export.assert_code(0);
    assert_eq!(export.stdout(), "", "nothing on stdout with -o");
    let text = std::fs::read_to_string(run.workspace().join("out/trace.json")).unwrap();
    let trace: Value = serde_json::from_str(&text).unwrap();
    assert!(!trace_events(&trace).is_empty());
    let names: Vec<String> = std::fs::read_dir(run.workspace().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["trace.json"]);
}

/// The id defaults to `latest`: no usage line says it is required, not even clap's in the error
/// about a missing `--format` after an id was given.
#[test]
fn the_usage_line_shows_the_id_as_optional() {
    for args in [&["export", "latest"][..], &["export"][..]] {
        let out = Tracer::new().args(args).run();
        out.assert_code(2);
        let usage = out
            .stderr()
            .lines()
            .find(|l| l.starts_with("Usage:"))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no usage line: {}", out.stderr()));
        assert_eq!(
            usage,
            "Usage: tracer export [OPTIONS] --format <FORMAT> [ID]"
        );
    }
    let help = Tracer::new().args(["export", "--help"]).run();
    assert!(
        help.stdout().contains("--format <FORMAT> [ID]"),
        "{}",
        help.stdout()
    );
}

/// A tree of processes writes to the same pipes: its output lines are on a track of their own,
/// named so, never on the program's main track as though the program wrote them all.
#[test]
fn a_tree_s_output_is_on_a_shared_track_of_its_own() {
    let (run, trace) = run_and_export("fork.js");
    run.assert_code(0);
    let events = trace_events(&trace);
    let line = events
        .iter()
        .find(|e| e["cat"] == "output" && e["args"]["value"] == "hello from the child")
        .unwrap_or_else(|| panic!("no output line of the child: {events:#?}"));
    assert_ne!(line["tid"], 1, "{line}");
    let track = events
        .iter()
        .find(|e| e["name"] == "thread_name" && e["pid"] == line["pid"] && e["tid"] == line["tid"])
        .expect("the track is named");
    assert!(
        track["args"]["name"]
            .as_str()
            .unwrap()
            .starts_with("output (the tree's shared"),
        "{track}"
    );
    // The child's console call is on the child's own process track.
    let call = events
        .iter()
        .find(|e| e["cat"] == "console" && e["args"]["value"] == "hello from the child")
        .expect("the child's console call");
    assert_ne!(call["pid"], line["pid"], "{call}");
}
