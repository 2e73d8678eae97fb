//! The audit's own measurement at exit (the exit probe): a Node entry with a hand-made global shim
//! is audited against a small hand-written trace; the audit file carries `source: "probe"`
//! observations of what the shim really is, which the entry's own claims cannot hide, and the
//! probe leaves nothing the script can see.

use serde_json::Value;

use crate::support::{Output, Tracer};

/// The P1 `navigator.userAgent` getter and the `Navigator` constructor of `shim.ndjson`'s sibling
/// trace, as a browser shows them (owner on the prototype, a throwing constructor).
const TRACE: &str = r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1","recorder":{"name":"hand-written fixture","version":"0"},"startedAt":"2026-11-30T08:00:00Z"}
{"type":"access","seq":1,"realm":"main","phase":"init","api":"navigator.userAgent","accessType":"get","receiver":"Navigator","owner":"Navigator.prototype","getterOwner":"Navigator.prototype","setterOwner":null,"brand":"[object String]","constructorName":"String","prototypeChain":["String","Object"],"returnValue":"Mozilla/5.0 A","exception":null}
{"type":"access","seq":2,"realm":"main","phase":"init","api":"window.navigator","accessType":"get","receiver":"Window","owner":"window","prototypeChain":["Navigator","Object"],"brand":"[object Navigator]","exception":null}
"#;

/// What the entry claims: the browser's values, copied from the trace.
const CLAIMS: &str = r#"[
 {"id":"@UA@","api":"navigator.userAgent","accessType":"get","realm":"main","receiver":"Navigator","phase":"init",
  "observations":{"owner":["Navigator.prototype"],"getterOwner":["Navigator.prototype"],"setterOwner":[null],"brand":["[object String]"],"constructorName":["String"],"prototypeChain":[["String","Object"]],"returnValue":["Mozilla/5.0 A"],"exception":[null]}},
 {"id":"@NAV@","api":"window.navigator","accessType":"get","realm":"main","receiver":"Window","phase":"init",
  "observations":{"owner":["window"],"prototypeChain":[["Navigator","Object"]],"brand":["[object Navigator]"],"exception":[null]}}
]"#;

/// A shim: `userAgent` held by `navigator` itself when `own` (a wrong owner), else by
/// `Navigator.prototype`. It writes the claims where the audit asks.
fn entry(own: bool) -> String {
    let install = if own {
        "Object.defineProperty(navigator, 'userAgent', { get() { return 'Mozilla/5.0 A'; }, configurable: true, enumerable: true });"
    } else {
        "Object.defineProperty(Navigator.prototype, 'userAgent', { get() { return 'Mozilla/5.0 A'; }, configurable: true, enumerable: true });"
    };
    format!(
        "// A hand-made shim audited by the exit probe.\n\
         class Window {{}}\n\
         Object.setPrototypeOf(globalThis, Window.prototype);\n\
         class Navigator {{ get [Symbol.toStringTag]() {{ return 'Navigator'; }} }}\n\
         globalThis.Navigator = Navigator;\n\
         globalThis.navigator = new Navigator();\n\
         {install}\n\
         const fs = require('node:fs');\n\
         const contract = JSON.parse(fs.readFileSync(process.env.WEB_JS_ENV_PATCHER_TRACE_CONTRACT, 'utf8'));\n\
         const id = (api) => contract.items.find((i) => i.api === api).id;\n\
         const claims = {CLAIMS}.map((o) => ({{ ...o, id: id(o.api) }}));\n\
         fs.writeFileSync(process.env.WEB_JS_ENV_PATCHER_TRACE_AUDIT_OUT, JSON.stringify({{ observations: claims }}));\n"
    )
}

fn audit(entry: String) -> Output {
    let built = Tracer::new()
        .file("case/trace/current.ndjson", TRACE)
        .file("case/result/final.js", entry)
        .args(["contract", "build", "--case-dir", "case"])
        .run();
    built.assert_code(0);
    built
        .tracer()
        .args([
            "audit",
            "--case-dir",
            "case",
            "--entry",
            "case/result/final.js",
            "--timeout",
            "60",
        ])
        .run()
}

fn read_json(out: &Output, path: &str) -> Value {
    let text = std::fs::read_to_string(out.workspace().join("case").join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}\n{}", out.dump()));
    serde_json::from_str(&text).unwrap()
}

fn probe_observation<'a>(audit: &'a Value, api: &str) -> &'a Value {
    audit["observations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["source"] == "probe" && o["api"] == api)
        .unwrap_or_else(|| panic!("no probe observation of {api}: {audit:#}"))
}

#[test]
fn the_probe_measures_what_the_shim_really_is_and_a_faithful_shim_matches() {
    let out = audit(entry(false));
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(
        audit["probe"]["pausedAt"], "process.emit('exit')",
        "{audit:#}"
    );
    let realms = audit["probe"]["realms"].as_array().unwrap();
    assert!(
        realms
            .iter()
            .any(|r| r["isDefault"] == true && r["chosen"] == true),
        "a shim on globalThis lives in the main context: {realms:?}"
    );
    let ua = probe_observation(&audit, "navigator.userAgent");
    assert_eq!(ua["receiver"], "Navigator");
    assert_eq!(
        ua["observations"]["owner"],
        serde_json::json!(["Navigator.prototype"])
    );
    let descriptor = &ua["observations"]["descriptor"][0];
    assert_eq!(descriptor["kind"], "accessor");
    assert_eq!(descriptor["get"]["native"], false, "a JavaScript getter");
    assert_eq!(
        ua["observations"]["prototypeChain"],
        serde_json::json!([["String", "Object"]])
    );
    let nav = probe_observation(&audit, "window.navigator");
    assert_eq!(nav["receiver"], "Window");
    assert_eq!(nav["observations"]["owner"], serde_json::json!(["window"]));
    assert_eq!(
        nav["observations"]["prototypeChain"],
        serde_json::json!([["Navigator", "Object"]])
    );
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(diff["matched"], true, "{diff:#}");
    out.assert_code(0);
}

#[test]
fn a_wrong_owner_is_found_whatever_the_entry_claims() {
    let out = audit(entry(true));
    out.assert_code(3);
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let ua = probe_observation(&audit, "navigator.userAgent");
    assert_eq!(
        ua["observations"]["owner"],
        serde_json::json!(["Navigator instance"])
    );
    let entry = audit["observations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["source"] == "entry" && o["api"] == "navigator.userAgent")
        .unwrap();
    assert_eq!(
        entry["observations"]["owner"],
        serde_json::json!(["Navigator.prototype"]),
        "the entry's claim is kept, beside the measurement"
    );
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let blocking = diff["blocking"].as_array().unwrap();
    let has = |code: &str, dim: &str| {
        blocking.iter().any(|f| {
            f["code"] == code && f["api"] == "navigator.userAgent" && f["dimension"] == dim
        })
    };
    assert!(has("DIMENSION_MISMATCH", "owner"), "{diff:#}");
    assert!(has("DIMENSION_MISMATCH", "getterOwner"), "{diff:#}");
    assert!(has("OBSERVATION_CONTRADICTED", "owner"), "{diff:#}");
}

/// The script's view of its world, taken at its start and in an `exit` listener (which runs after
/// the probe measured), is the same with and without the probe.
#[test]
fn the_probe_leaves_nothing_the_script_can_see() {
    let script = "// Writes what it can see of its globals and of process.emit at exit.\n\
        const fs = require('node:fs');\n\
        const seen = () => JSON.stringify({ names: Object.getOwnPropertyNames(globalThis), symbols: Object.getOwnPropertySymbols(globalThis).map(String), emit: process.emit.toString(), listeners: process.listeners('exit').length, proto: Object.getPrototypeOf(globalThis) === Object.prototype });\n\
        const start = seen();\n\
        process.on('exit', () => fs.writeFileSync(process.env.SEEN_OUT, JSON.stringify({ start, exit: seen() })));\n";
    // The same entry, audited (the probe runs) and under plain node (no inspector at all).
    let built = Tracer::new()
        .file("case/trace/current.ndjson", TRACE)
        .file("case/result/final.js", script)
        .args(["contract", "build", "--case-dir", "case"])
        .run();
    built.assert_code(0);
    let seen_path = built.workspace().join("seen-audit.json");
    let audited = built
        .tracer()
        .env("SEEN_OUT", &seen_path)
        .args([
            "audit",
            "--case-dir",
            "case",
            "--entry",
            "case/result/final.js",
        ])
        .run();
    let audit = read_json(&audited, "tmp/node-trace-runtime-audit.json");
    assert_eq!(
        audit["probe"]["pausedAt"], "process.emit('exit')",
        "the probe ran: {audit:#}"
    );
    let plain_path = audited.workspace().join("seen-plain.json");
    let status = std::process::Command::new("node")
        .arg(audited.workspace().join("case/result/final.js"))
        .env("SEEN_OUT", &plain_path)
        .env_remove("NODE_OPTIONS")
        .status()
        .expect("node runs");
    assert!(status.success());
    let read = |path: &std::path::Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let with_probe = read(&seen_path);
    let without = read(&plain_path);
    let names = |v: &Value, at: &str| -> Value {
        serde_json::from_str::<Value>(v[at].as_str().unwrap()).unwrap()["names"].clone()
    };
    assert_eq!(
        names(&with_probe, "start"),
        names(&with_probe, "exit"),
        "no global appeared during the run"
    );
    assert_eq!(with_probe, without, "the same as under plain node");
}
