//! `tracer schema`: JSON Schemas generated from the Rust types, and every file that real runs
//! write (session.json, each events.ndjson line, evidence.json) validates against them.

use serde_json::Value;

use crate::support::Tracer;

fn schema(name: &str) -> jsonschema::Validator {
    let out = Tracer::new().args(["schema", name]).run();
    out.assert_code(0);
    let schema: Value = serde_json::from_str(&out.stdout()).expect("a schema is JSON");
    assert!(schema["$schema"].is_string(), "{schema}");
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: not a schema: {e}"))
}

#[track_caller]
fn assert_valid(validator: &jsonschema::Validator, instance: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not match its schema: {errors:#?}"
    );
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn files_of_real_runs_validate_against_their_schemas() {
    let session = schema("session");
    let event = schema("event");
    let evidence = schema("evidence");
    let base = Tracer::new()
        .fixture("throws.js")
        .fixture("ok.js")
        .fixture("exit3.js")
        .fixture("worker.js")
        .fixture("forever.js")
        .fixture("ts/app.ts")
        .fixture("ts/app.js")
        .fixture("ts/app.js.map")
        .args(["run", "throws.js"])
        .run();
    for args in [
        &["run", "ok.js"][..],
        &["run", "exit3.js"],
        &["run", "worker.js"],
        &["run", "ts/app.js"],
        &["run", "--timeout", "1", "forever.js"],
        &["verify", "last-failed"],
    ] {
        base.tracer().args(args).run();
    }
    let ids = base.session_ids();
    assert_eq!(ids.len(), 7);
    for id in ids {
        let dir = base.out_dir().join("sessions").join(&id);
        let file: Value = serde_json::from_str(&read(&dir.join("session.json"))).unwrap();
        assert_valid(&session, &file, &format!("{id}/session.json"));
        for (n, line) in read(&dir.join("events.ndjson")).lines().enumerate() {
            let line: Value = serde_json::from_str(line).unwrap();
            assert_valid(&event, &line, &format!("{id}/events.ndjson line {}", n + 1));
        }
        let file: Value = serde_json::from_str(&read(&dir.join("evidence.json"))).unwrap();
        assert_valid(&evidence, &file, &format!("{id}/evidence.json"));
    }
}

#[test]
fn the_schemas_reject_what_the_readers_reject() {
    let event = schema("event");
    let good = serde_json::json!({"id": 1, "ts": 0.5, "kind": "console", "runtime": "node", "detail": "console.log"});
    assert!(event.is_valid(&good));
    for bad in [
        serde_json::json!({"id": 1, "ts": 0.5, "kind": "teleport", "runtime": "node", "detail": "x"}),
        serde_json::json!({"id": 1, "ts": 0.5, "kind": "console", "runtime": "node"}),
        serde_json::json!({"id": 1, "ts": 0.5, "kind": "console", "runtime": "node", "detail": "x", "extra": 1}),
    ] {
        assert!(!event.is_valid(&bad), "accepted {bad}");
    }
    let evidence = schema("evidence");
    assert!(evidence.is_valid(&Value::Null), "evidence.json may be null");
    assert!(!evidence.is_valid(&serde_json::json!({"failure": {}})));
}

#[test]
fn conformance_files_validate_against_their_schemas() {
    let built = Tracer::new()
        .fixture_as(
            "conformance/basic.ndjson",
            "case/ruyi-trace/logs/current.ndjson",
        )
        .file(
            "case/result/final.js",
            "// An environment entry that observes nothing.\n",
        )
        .args(["contract", "build", "--case-dir", "case"])
        .run();
    built.assert_code(0);
    let audited = built
        .tracer()
        .args([
            "audit",
            "--case-dir",
            "case",
            "--entry",
            "case/result/final.js",
        ])
        .run();
    assert_eq!(audited.code(), 3, "{}", audited.dump());
    let case = built.workspace().join("case");
    for (name, file) in [
        ("contract", "notes/trace-runtime-contract.json"),
        ("audit", "tmp/node-trace-runtime-audit.json"),
        ("diff", "notes/trace-runtime-diff.json"),
    ] {
        let instance: Value = serde_json::from_str(&read(&case.join(file))).unwrap();
        assert_valid(&schema(name), &instance, file);
    }
    Tracer::new()
        .args(["schema", "nonsense"])
        .run()
        .assert_code(2);
}
