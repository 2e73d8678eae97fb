//! `tracer contract build` and `tracer check`, driven through the real binary in temporary case
//! folders, with the fixtures of `tests/fixtures/conformance/` (see its README).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/conformance");

/// The diff as the check writes it; unknown fields fail the parse, so the format cannot drift
/// unnoticed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct DiffOut {
    version: String,
    generated_by: String,
    matched: bool,
    requests_matched: Option<bool>,
    counts: Value,
    hashes: Value,
    blocking: Vec<FindingOut>,
    risks: Vec<FindingOut>,
    unverified: Vec<Value>,
    requests: Value,
    groups: Vec<GroupOut>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct GroupOut {
    kind: String,
    title: String,
    count: usize,
    items: Vec<String>,
    expected: Option<Value>,
    observed: Option<Value>,
    action: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct FindingOut {
    code: String,
    priority: Option<String>,
    item: Option<String>,
    api: Option<String>,
    access_type: Option<String>,
    realm: Option<String>,
    receiver: Option<String>,
    phase: Option<String>,
    dimension: Option<String>,
    expected: Option<Value>,
    observed: Option<Value>,
    cause: Option<String>,
    divergence: Option<Value>,
    message: String,
    action: String,
}

impl DiffOut {
    fn codes(&self) -> Vec<&str> {
        self.blocking.iter().map(|f| f.code.as_str()).collect()
    }

    fn finding(&self, code: &str) -> &FindingOut {
        self.blocking
            .iter()
            .find(|f| f.code == code)
            .unwrap_or_else(|| panic!("no {code} in {self:#?}"))
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code().expect("tracer was killed by a signal"),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// A temporary folder with `case/` inside; commands run from the folder.
struct Case {
    root: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        let case = Case {
            root: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(case.path("result")).unwrap();
        std::fs::write(
            case.path("result/final.js"),
            "// the environment under test\nmodule.exports = {};\n",
        )
        .unwrap();
        std::fs::create_dir_all(case.path("result/lib")).unwrap();
        std::fs::write(case.path("result/lib/helper.js"), "exports.x = 1;\n").unwrap();
        case
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join("case").join(relative)
    }

    fn fixture(&self, name: &str, to: &str) {
        let dest = self.path(to);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(FIXTURES).join(name), dest).unwrap();
    }

    fn tracer(&self, args: &[&str]) -> Run {
        Command::new(env!("CARGO_BIN_EXE_tracer"))
            .args(args)
            .current_dir(self.root.path())
            .env_remove("NO_COLOR")
            .env_remove("NODE_OPTIONS")
            .env_remove("TRACER_NODE")
            .env("TERM", "dumb")
            .env("TRACER_STATE_DIR", self.state_dir())
            .output()
            .expect("running tracer")
            .into()
    }

    fn build(&self, extra: &[&str]) -> Run {
        let mut args = vec!["contract", "build", "--case-dir", "case"];
        args.extend_from_slice(extra);
        self.tracer(&args)
    }

    fn contract_bytes(&self) -> Vec<u8> {
        std::fs::read(self.path("notes/trace-runtime-contract.json")).unwrap()
    }

    fn contract(&self) -> Value {
        serde_json::from_slice(&self.contract_bytes()).unwrap()
    }

    /// The hand-written faithful audit, its placeholders filled as the audit runner would:
    /// hashes copied from the contract, `runtimeSourceHash` computed here from `case/result/`.
    fn faithful_audit(&self) -> Value {
        let text =
            std::fs::read_to_string(Path::new(FIXTURES).join("audit-faithful.json")).unwrap();
        let mut audit: Value = serde_json::from_str(&text).unwrap();
        let contract = self.contract();
        let (hash, files) = runtime_source_hash(&self.path("result"));
        audit["contractHash"] = contract["contractHash"].clone();
        audit["traceSourceHash"] = contract["traceSourceHash"].clone();
        audit["runtimeSourceHash"] = hash.into();
        audit["runtimeSources"] = files;
        audit
    }

    /// Where this case's audit key lives (the check's `TRACER_STATE_DIR`).
    fn state_dir(&self) -> std::path::PathBuf {
        self.root.path().join(".tracer-state")
    }

    /// Writes `audit` sealed with this case's key, as `tracer audit` would (a hand-written audit
    /// stands for the tool's here; `audit_edits_break_the_seal` checks an unsealed edit).
    fn write_audit(&self, audit: &Value) {
        let mut audit = audit.clone();
        let key = tracer::conformance::seal::key_in(&self.state_dir()).unwrap();
        audit["integrity"] = tracer::conformance::seal::seal(&audit, &key).into();
        self.write_unsealed_audit(&audit);
    }

    fn write_unsealed_audit(&self, audit: &Value) {
        std::fs::create_dir_all(self.path("tmp")).unwrap();
        std::fs::write(
            self.path("tmp/node-trace-runtime-audit.json"),
            serde_json::to_vec_pretty(audit).unwrap(),
        )
        .unwrap();
    }

    /// Runs the check; returns its exit code, the diff it wrote, and its stderr.
    fn check(&self) -> (i32, DiffOut, String) {
        let run = self.tracer(&["check", "--case-dir", "case"]);
        let text = std::fs::read_to_string(self.path("notes/trace-runtime-diff.json")).unwrap();
        let diff: DiffOut = serde_json::from_str(&text).unwrap();
        assert!(self.path("notes/trace-runtime-diff.md").is_file());
        // The work list arranges every blocking finding once, and nothing else.
        assert_eq!(
            diff.groups.iter().map(|g| g.count).sum::<usize>(),
            diff.blocking.len(),
            "{:#?}",
            diff.groups
        );
        (run.code, diff, run.stderr)
    }

    /// A case with the basic trace, its contract and a faithful audit.
    fn audited() -> Case {
        let case = Case::new();
        case.fixture("basic.ndjson", "ruyi-trace/logs/current.ndjson");
        let run = case.build(&[]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        case.write_audit(&case.faithful_audit());
        case
    }
}

/// `runtimeSourceHash` as `docs/conformance.md` defines it, computed independently of the tool.
fn runtime_source_hash(dir: &Path) -> (String, Value) {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<(String, PathBuf)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else {
                let rel = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, path));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort();
    let mut hasher = Sha256::new();
    let mut list = Vec::new();
    for (rel, path) in files {
        let bytes = std::fs::read(path).unwrap();
        hasher.update(rel.as_bytes());
        hasher.update(b"\0");
        hasher.update(bytes.len().to_string().as_bytes());
        hasher.update(b"\0");
        hasher.update(&bytes);
        list.push(json!({"path": rel, "sha256": format!("sha256:{}", hex::encode(Sha256::digest(&bytes)))}));
    }
    (
        format!("sha256:{}", hex::encode(hasher.finalize())),
        Value::Array(list),
    )
}

fn item<'a>(contract: &'a Value, api: &str) -> &'a Value {
    contract["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["api"] == api)
        .unwrap()
}

// ---- contract build ----

#[test]
fn same_trace_gives_a_byte_identical_contract() {
    let case = Case::new();
    case.fixture("basic.ndjson", "trace/current.ndjson");
    assert_eq!(
        case.build(&["--trace", "case/trace/current.ndjson", "--markdown"])
            .code,
        0
    );
    let first = case.contract_bytes();
    let first_md = std::fs::read(case.path("notes/trace-runtime-contract.md")).unwrap();
    assert_eq!(
        case.build(&["--trace", "case/trace/current.ndjson", "--markdown"])
            .code,
        0
    );
    assert_eq!(first, case.contract_bytes());
    assert_eq!(
        first_md,
        std::fs::read(case.path("notes/trace-runtime-contract.md")).unwrap()
    );
    // The same trace in another case folder, found by discovery, gives the same bytes too.
    let other = Case::new();
    other.fixture("basic.ndjson", "trace/current.ndjson");
    assert_eq!(other.build(&[]).code, 0);
    assert_eq!(first, other.contract_bytes());
}

#[test]
fn contract_has_one_item_per_key_every_value_and_pending_dimensions() {
    let case = Case::new();
    case.fixture("basic.ndjson", "trace/current.ndjson");
    let run = case.build(&["--baseline-id", "b1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let c = case.contract();
    assert_eq!(c["version"], "trace-runtime-contract/v3");
    assert_eq!(c["baselineId"], "b1");
    assert_eq!(c["items"].as_array().unwrap().len(), 7);
    let ua = item(&c, "navigator.userAgent");
    assert_eq!(ua["count"], 2);
    assert_eq!(
        ua["expected"]["returnValue"],
        json!(["Mozilla/5.0 A", "Mozilla/5.0 B"])
    );
    assert_eq!(ua["priority"], "P1");
    // Sampled on no line: pending, and not filled in.
    assert_eq!(
        ua["pending"],
        json!(["brand", "constructorName", "instanceOf", "prototypeChain"])
    );
    assert!(ua["expected"].get("brand").is_none());
    assert_eq!(item(&c, "document.cookie")["priority"], "P0", "tagged");
    assert_eq!(
        item(&c, "XMLHttpRequest.event:readystatechange")["priority"],
        "P0",
        "stateful"
    );
    let timelines = c["timelines"].as_array().unwrap();
    assert_eq!(timelines[0]["object"], "xhr#1");
    let events: Vec<&Value> = timelines[0]["folded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["event"])
        .collect();
    assert_eq!(events, ["open", "send", "readystatechange"]);
    assert_eq!(timelines[0]["folded"][2]["times"], 2);
    assert_eq!(timelines[1]["object"], "*");
    // traceSourceHash is the sha256 of the trace bytes, computed here independently.
    let bytes = std::fs::read(case.path("trace/current.ndjson")).unwrap();
    let digest = format!("sha256:{}", hex::encode(Sha256::digest(&bytes)));
    assert_eq!(c["traceSourceHash"], digest.as_str());
    assert_eq!(
        c["traces"],
        json!([{"path": "trace/current.ndjson", "sha256": digest, "lines": 10}])
    );
}

#[test]
fn shards_given_several_times_make_one_capture_in_seq_order() {
    let case = Case::new();
    case.fixture("shard-a.ndjson", "trace/a.ndjson");
    case.fixture("shard-b.ndjson", "trace/b.ndjson");
    assert_eq!(
        case.build(&[
            "--trace",
            "case/trace/a.ndjson",
            "--trace",
            "case/trace/b.ndjson"
        ])
        .code,
        0
    );
    let ab = case.contract_bytes();
    assert_eq!(
        case.build(&[
            "--trace",
            "case/trace/b.ndjson",
            "--trace",
            "case/trace/a.ndjson"
        ])
        .code,
        0
    );
    assert_eq!(
        ab,
        case.contract_bytes(),
        "argument order does not change the contract"
    );
    let sharded = case.contract();
    // a holds seq 1: it comes first in merge order, whichever was given first.
    let paths: Vec<&Value> = sharded["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["path"])
        .collect();
    assert_eq!(paths, ["trace/a.ndjson", "trace/b.ndjson"]);

    let whole = Case::new();
    whole.fixture("basic.ndjson", "trace/current.ndjson");
    assert_eq!(whole.build(&[]).code, 0);
    let whole = whole.contract();
    assert_eq!(sharded["items"], whole["items"]);
    let hashes = |c: &Value| -> Vec<Value> {
        c["timelines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["sequenceHash"].clone())
            .collect()
    };
    assert_eq!(hashes(&sharded), hashes(&whole));
    // Discovery takes the two shards of one baseline as one capture.
    assert_eq!(case.build(&[]).code, 0);
    assert_eq!(ab, case.contract_bytes());
}

#[test]
fn discovery_refuses_two_captures_and_lists_them() {
    let case = Case::new();
    case.fixture("basic.ndjson", "ruyi-trace/logs/current.ndjson");
    case.fixture("other-baseline.ndjson", "trace/older.ndjson");
    let run = case.build(&[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("several captures"), "{}", run.stderr);
    assert!(
        run.stderr.contains("ruyi-trace/logs/current.ndjson"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("trace/older.ndjson"), "{}", run.stderr);
    assert!(run.stderr.contains("--trace"), "{}", run.stderr);
    assert!(!case.path("notes/trace-runtime-contract.json").exists());
    // Selecting one explicitly works.
    assert_eq!(case.build(&["--trace", "case/trace/older.ndjson"]).code, 0);
    assert_eq!(case.contract()["baselineId"], "b2");
}

#[test]
fn shards_sharing_a_seq_are_refused_naming_it() {
    let case = Case::new();
    case.fixture("basic.ndjson", "trace/a.ndjson");
    case.fixture("shard-a.ndjson", "trace/b.ndjson");
    let run = case.build(&[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("seq 1 appears in"), "{}", run.stderr);
}

#[test]
fn discovery_with_no_trace_is_a_usage_error() {
    let case = Case::new();
    let run = case.build(&[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no trace found"), "{}", run.stderr);
}

#[test]
fn a_large_trace_read_on_two_cores_gives_the_bytes_of_the_one_pass() {
    // ~17 MB (past the 8 MB a part must have, so `--jobs 2` reads it in parts): the basic
    // capture's lines again and again, `seq` renumbered, with items that differ per round.
    let case = Case::new();
    let text = std::fs::read_to_string(Path::new(FIXTURES).join("basic.ndjson")).unwrap();
    let mut lines = text.lines();
    let mut trace = format!("{}\n", lines.next().unwrap());
    let bodies: Vec<Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut seq = 0u64;
    let mut round = 0u64;
    while trace.len() < 17 << 20 {
        for body in &bodies {
            seq += 1;
            let mut line = body.clone();
            line["seq"] = seq.into();
            if round % 3 == 0 {
                line["returnValue"] = json!({"round": round % 50, "s": "a\"b"});
            }
            if body["api"] == "navigator.userAgent" {
                line["api"] = format!("navigator.userAgent{}", round % 400).into();
            }
            trace.push_str(&line.to_string());
            trace.push('\n');
        }
        round += 1;
    }
    std::fs::create_dir_all(case.path("trace")).unwrap();
    std::fs::write(case.path("trace/current.ndjson"), trace).unwrap();
    let mut built = Vec::new();
    for jobs in ["1", "2"] {
        let run = case.build(&["--jobs", jobs, "--markdown"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let md = std::fs::read(case.path("notes/trace-runtime-contract.md")).unwrap();
        built.push((case.contract_bytes(), md));
    }
    assert!(built[0] == built[1], "--jobs 1 and --jobs 2 differ");
    let contract = case.contract();
    // The basic capture's 7 items, its `navigator.userAgent` getter as 400 of its own.
    assert_eq!(contract["items"].as_array().unwrap().len(), 400 + 6);
    assert!(!contract["timelines"].as_array().unwrap().is_empty());
}

#[test]
fn more_items_than_the_cap_exits_2_naming_the_count_the_cap_and_the_line() {
    let case = Case::new();
    case.fixture("basic.ndjson", "trace/current.ndjson");
    for jobs in ["1", "2"] {
        let run = case.build(&["--max-items", "2", "--jobs", jobs]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains(
                "trace/current.ndjson:5: item 3 is new here, and the cap is 2 distinct items"
            ) && run.stderr.contains("--max-items N"),
            "{}",
            run.stderr
        );
        assert!(!case.path("notes/trace-runtime-contract.json").exists());
    }
    assert_eq!(case.build(&["--max-items", "7"]).code, 0);
}

#[test]
fn baseline_id_mismatch_exits_2_and_writes_nothing() {
    let case = Case::new();
    case.fixture("basic.ndjson", "trace/current.ndjson");
    let run = case.build(&["--baseline-id", "b9"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("--baseline-id b9 does not match the trace's baselineId b1"),
        "{}",
        run.stderr
    );
    assert!(!case.path("notes/trace-runtime-contract.json").exists());
}

#[test]
fn malformed_line_exits_2_naming_file_and_line() {
    let case = Case::new();
    case.fixture("malformed.ndjson", "trace/current.ndjson");
    let run = case.build(&[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("trace/current.ndjson:4: malformed JSON"),
        "{}",
        run.stderr
    );
    assert!(!case.path("notes/trace-runtime-contract.json").exists());
}

#[test]
fn a_trace_named_with_trace_that_does_not_exist_exits_2() {
    let case = Case::new();
    let run = case.build(&["--trace", "case/trace/nope.ndjson"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("nope.ndjson"), "{}", run.stderr);
}

// ---- check ----

#[test]
fn a_faithful_environment_is_matched_and_exits_0() {
    let case = Case::audited();
    let (code, diff, stderr) = case.check();
    assert_eq!(code, 0, "{diff:#?}");
    assert!(diff.matched);
    assert!(diff.blocking.is_empty());
    assert!(stderr.starts_with("matched"), "{stderr}");
    // Pending dimensions are listed as unverified, never counted as matched.
    assert_eq!(diff.counts["unverified"], 4 + 5 + 4 + 2 + 2 + 6);
    assert_eq!(diff.counts["observed"], 7);
    // --format json prints the same diff on stdout.
    let run = case.tracer(&["check", "--case-dir", "case", "--format", "json"]);
    assert_eq!(run.code, 0);
    let printed: DiffOut = serde_json::from_str(&run.stdout).unwrap();
    assert!(printed.matched);
}

/// How the entry ended is the audit's to say (`exitCode`, `entryFailure`): a failed entry is a
/// risk that names the code and, where the audit has it, the exception and its line; the verdict
/// stays what the observations give. An audit that records no exit code says nothing either way.
#[test]
fn an_entry_that_failed_is_a_risk_naming_how_it_ended() {
    let case = Case::audited();
    let mut audit = case.faithful_audit();
    for (exit_code, failure, expected) in [
        (json!(0), None, None),
        (json!(2), None, Some("the entry exited with code 2:")),
        (
            json!(1),
            Some(
                json!({"kind": "exception", "message": "TypeError: x is not a function",
                "file": "result/final.js", "line": 12, "column": 5}),
            ),
            Some("exited with code 1 (TypeError: x is not a function at result/final.js:12:5)"),
        ),
        (
            Value::Null,
            Some(json!({"kind": "exception", "message": "Error: boom"})),
            Some("the entry failed (Error: boom):"),
        ),
        (
            json!(2),
            Some(json!({"kind": "exit", "message": "exited with code 2"})),
            Some("the entry exited with code 2: what"),
        ),
    ] {
        audit["exitCode"] = exit_code.clone();
        match &failure {
            Some(f) => audit["entryFailure"] = f.clone(),
            None => {
                audit.as_object_mut().unwrap().remove("entryFailure");
            }
        }
        case.write_audit(&audit);
        let (code, diff, stderr) = case.check();
        assert_eq!(code, 0, "exit code {exit_code}: {diff:#?}");
        assert!(diff.matched, "{diff:#?}");
        let risk = diff.risks.iter().find(|f| f.code == "ENTRY_FAILED");
        match expected {
            None => assert!(risk.is_none(), "exit code {exit_code}: {diff:#?}"),
            Some(words) => {
                let risk = risk.unwrap_or_else(|| panic!("exit code {exit_code}: {diff:#?}"));
                assert!(risk.message.contains(words), "{risk:#?}");
                assert_eq!(risk.priority.as_deref(), Some("P2"));
                assert!(stderr.contains("ENTRY_FAILED (risk)"), "{stderr}");
            }
        }
    }
}

#[test]
fn editing_the_result_makes_the_audit_stale_and_names_the_file() {
    let case = Case::audited();
    assert_eq!(case.check().0, 0);
    std::fs::write(
        case.path("result/final.js"),
        "module.exports = { changed: true };\n",
    )
    .unwrap();
    let (code, diff, stderr) = case.check();
    assert_eq!(code, 3);
    assert!(!diff.matched);
    let stale = diff.finding("STALE_AUDIT");
    assert_eq!(stale.dimension.as_deref(), Some("runtimeSourceHash"));
    assert!(
        stale.message.contains("result/final.js changed"),
        "{}",
        stale.message
    );
    assert!(stderr.contains("STALE_AUDIT"), "{stderr}");
}

#[test]
fn a_refreshed_trace_makes_contract_and_audit_stale() {
    let case = Case::audited();
    let path = case.path("ruyi-trace/logs/current.ndjson");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(r#"{"type":"access","seq":10,"api":"screen.height","accessType":"get","realm":"main","receiver":"Screen","phase":"writer"}"#);
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert!(
        diff.codes().contains(&"STALE_CONTRACT"),
        "{:?}",
        diff.codes()
    );
    let stale = diff
        .blocking
        .iter()
        .find(|f| f.code == "STALE_AUDIT")
        .unwrap();
    assert_eq!(stale.dimension.as_deref(), Some("traceSourceHash"));
}

#[test]
fn an_audit_made_against_another_baseline_is_stale() {
    let case = Case::audited();
    let mut audit = case.faithful_audit();
    audit["baselineId"] = "b2".into();
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert_eq!(
        diff.finding("STALE_AUDIT").dimension.as_deref(),
        Some("baselineId")
    );
}

/// An observed item whose recording has no sample of a dimension (the recorders measure a value's
/// structure on a member's first accesses only: DOMPurify in jsdom made one more access before
/// it) is unverified there, never a blocking "was not observed".
#[test]
fn a_dimension_the_environment_did_not_sample_is_unverified_not_a_mismatch() {
    let case = Case::audited();
    let mut audit = case.faithful_audit();
    let item = audit["observations"][2]["id"].clone();
    audit["observations"][2]["observations"]
        .as_object_mut()
        .unwrap()
        .remove("brand");
    case.write_audit(&audit);
    let (code, diff, stderr) = case.check();
    assert_eq!(code, 0, "{diff:#?}");
    assert!(diff.matched && diff.blocking.is_empty(), "{stderr}");
    assert_eq!(diff.counts["unverified"], 4 + 5 + 4 + 2 + 2 + 6 + 1);
    let listed = diff.unverified.iter().find(|u| u["item"] == item).unwrap();
    assert!(
        listed["dimensions"]
            .as_array()
            .unwrap()
            .contains(&json!("brand")),
        "{listed:#?}"
    );
}

#[test]
fn a_p0_dimension_mismatch_exits_3() {
    let case = Case::audited();
    let mut audit = case.faithful_audit();
    audit["observations"][2]["observations"]["brand"] = json!(["[object Object]"]);
    audit["observations"][2]["observations"]["prototypeChain"] =
        json!([["XMLHttpRequest", "EventTarget", "Object"]]);
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    let dims: Vec<_> = diff
        .blocking
        .iter()
        .filter(|f| f.code == "DIMENSION_MISMATCH")
        .map(|f| (f.dimension.clone().unwrap(), f.priority.clone().unwrap()))
        .collect();
    assert_eq!(
        dims,
        [
            ("brand".to_owned(), "P0".to_owned()),
            ("prototypeChain".to_owned(), "P0".to_owned())
        ]
    );
    let f = diff.finding("DIMENSION_MISMATCH");
    assert_eq!(f.expected, Some(json!(["[object XMLHttpRequest]"])));
    assert_eq!(f.observed, Some(json!(["[object Object]"])));
}

#[test]
fn a_p1_item_without_observation_exits_3_and_a_receiver_change_is_a_finding() {
    let case = Case::audited();
    let mut audit = case.faithful_audit();
    let observations = audit["observations"].as_array_mut().unwrap();
    observations.retain(|o| o["api"] != "screen.width");
    observations[0]["receiver"] = "Object".into();
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    let missing = diff.finding("MISSING_OBSERVATION");
    assert_eq!(missing.api.as_deref(), Some("screen.width"));
    assert_eq!(missing.priority.as_deref(), Some("P1"));
    assert_eq!(
        diff.finding("DIMENSION_MISMATCH").dimension.as_deref(),
        Some("receiver")
    );
}

#[test]
fn a_network_attempt_blocks() {
    let case = Case::audited();
    let mut audit = case.faithful_audit();
    audit["networkAttempts"] = 1.into();
    audit["transcript"] = json!([{"module": "https", "method": "POST", "url": "https://a.test/collect", "port": 443, "bodyDigest": "sha256:00"}]);
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert!(
        diff.finding("NETWORK_ATTEMPTED")
            .message
            .contains("https POST https://a.test/collect")
    );
}

/// An attempt no request of the audit describes (happy-dom loading a page's script through a child
/// `node`, which the request observer of the entry's process does not see) leaves the requests
/// uncompared: `requestsMatched` was once `true`, "0 of 0 recorded requests", beside it.
#[test]
fn an_attempt_no_request_describes_leaves_the_requests_uncompared() {
    let case = Case::audited();
    let mut audit = case.faithful_audit();
    audit["networkAttempts"] = 1.into();
    audit["requests"] = json!([]);
    audit["transcript"] = json!([{"module": "kernel", "method": "connect", "host": "10.255.255.53", "port": 53, "pid": 4242, "process": "node"}]);
    case.write_audit(&audit);
    let (code, diff, stderr) = case.check();
    assert_eq!(code, 3);
    assert_eq!(diff.requests_matched, None, "{:#?}", diff.requests);
    assert_eq!(diff.requests["undescribed"], 1);
    let f = diff.finding("NETWORK_ATTEMPTED");
    assert!(
        f.message
            .contains("kernel connect 10.255.255.53:53 (a name lookup) by `node` (pid 4242)"),
        "{}",
        f.message
    );
    assert!(stderr.contains("requests not compared"), "{stderr}");
    assert!(
        diff.groups.iter().any(|g| g.kind == "NETWORK_ATTEMPTED"),
        "{:#?}",
        diff.groups
    );
}

#[test]
fn missing_and_old_and_incomplete_audits_block() {
    let case = Case::audited();
    std::fs::remove_file(case.path("tmp/node-trace-runtime-audit.json")).unwrap();
    let (code, diff, _) = case.check();
    assert_eq!((code, diff.codes()), (3, vec!["MISSING_AUDIT"]));

    let mut audit = case.faithful_audit();
    audit["probeVersion"] = "case-runtime-audit/v2".into();
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!((code, diff.codes()), (3, vec!["OLD_VERSION"]));

    let mut audit = case.faithful_audit();
    audit.as_object_mut().unwrap().remove("runtimeSourceHash");
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!((code, diff.codes()), (3, vec!["MISSING_METADATA"]));
}

#[test]
fn a_missing_contract_blocks() {
    let case = Case::new();
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert_eq!(diff.codes(), ["MISSING_CONTRACT", "MISSING_AUDIT"]);
}

#[test]
fn a_half_written_audit_exits_2_and_the_diff_says_not_matched() {
    let case = Case::audited();
    assert_eq!(case.check().0, 0);
    let text = serde_json::to_string(&case.faithful_audit()).unwrap();
    std::fs::write(
        case.path("tmp/node-trace-runtime-audit.json"),
        &text[..text.len() / 2],
    )
    .unwrap();
    let (code, diff, stderr) = case.check();
    assert_eq!(code, 2);
    assert!(!diff.matched, "the old matched diff is replaced");
    assert!(
        diff.finding("UNREADABLE_INPUT")
            .message
            .contains("node-trace-runtime-audit.json:1:"),
        "{stderr}"
    );
}

#[test]
fn a_hand_edited_contract_is_stale() {
    let case = Case::audited();
    let mut contract = case.contract();
    contract["items"][0]["priority"] = "P2".into();
    std::fs::write(
        case.path("notes/trace-runtime-contract.json"),
        serde_json::to_vec(&contract).unwrap(),
    )
    .unwrap();
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert_eq!(
        diff.finding("STALE_CONTRACT").dimension.as_deref(),
        Some("contractHash")
    );
}

#[test]
fn timelines_must_be_raw_and_in_the_browsers_order() {
    let case = Case::audited();
    let mut audit = case.faithful_audit();
    audit["timeline"][2]["sequence"] = 50.into();
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert!(
        diff.codes().contains(&"TIMELINE_NOT_RAW"),
        "{:?}",
        diff.codes()
    );

    // send before open, with increasing sequences: raw, but not the browser's order.
    let mut audit = case.faithful_audit();
    let timeline = audit["timeline"].as_array_mut().unwrap();
    timeline.swap(0, 1);
    timeline[0]["sequence"] = 101.into();
    timeline[1]["sequence"] = 102.into();
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    let mismatch = diff.finding("TIMELINE_MISMATCH");
    assert!(
        mismatch.message.contains("step 1: expected open×1"),
        "{}",
        mismatch.message
    );
    // The one object's timeline: the global one, which holds the same events, is not said again.
    let count = diff
        .codes()
        .iter()
        .filter(|c| **c == "TIMELINE_MISMATCH")
        .count();
    assert_eq!(count, 1, "{:?}", diff.codes());
}

#[test]
fn node_leaks_and_unclassified_host_apis_block_and_a_dynamic_branch_is_a_risk() {
    let case = Case::audited();
    let extra = |api: &str| json!({"api": api, "accessType": "get", "realm": "main", "receiver": "Window", "phase": "init", "observations": {}});
    let mut audit = case.faithful_audit();
    audit["observations"]
        .as_array_mut()
        .unwrap()
        .push(extra("process.env"));
    audit["observations"]
        .as_array_mut()
        .unwrap()
        .push(extra("navigator.webdriver"));
    // A member the trace has, but under another path and receiver only: said so.
    let mut elsewhere = extra("WorkerNavigator.prototype.userAgent");
    elsewhere["receiver"] = "WorkerNavigator".into();
    audit["observations"]
        .as_array_mut()
        .unwrap()
        .push(elsewhere);
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert_eq!(diff.finding("NODE_LEAK").priority.as_deref(), Some("P1"));
    let unclassified: Vec<(Option<&str>, &str)> = diff
        .blocking
        .iter()
        .filter(|f| f.code == "UNCLASSIFIED_HOST_API")
        .map(|f| (f.api.as_deref(), f.message.as_str()))
        .collect();
    assert_eq!(
        unclassified,
        [
            (
                Some("navigator.webdriver"),
                "the runtime reached navigator.webdriver (get) on Window, which the trace never recorded"
            ),
            (
                Some("WorkerNavigator.prototype.userAgent"),
                "the runtime reached WorkerNavigator.prototype.userAgent (get) on WorkerNavigator, which the trace never recorded (it has userAgent (get) only as navigator.userAgent on Navigator)"
            ),
        ]
    );
    // The access is the script's: what removes it is the environment sending the script the
    // browser's way (DOMPurify's accesses on the forms jsdom kept were once "remove the access").
    let action = &diff.finding("UNCLASSIFIED_HOST_API").action;
    assert!(
        action.starts_with("look for an earlier difference that sent the script another way"),
        "{action}"
    );

    // Classified as a dynamic branch (the policy changes the contract, so rebuild it first).
    std::fs::write(
        case.path("notes/trace-runtime-policy.json"),
        r#"{"version":"trace-runtime-policy/v1","classify":[{"api":"navigator.webdriver","as":"dynamic-branch","reason":"only in headless"}]}"#,
    )
    .unwrap();
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert!(
        diff.codes().contains(&"STALE_CONTRACT"),
        "a policy edit makes the contract stale"
    );
    assert_eq!(case.build(&[]).code, 0);
    let mut audit = case.faithful_audit();
    audit["observations"]
        .as_array_mut()
        .unwrap()
        .push(extra("navigator.webdriver"));
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 0, "{diff:#?}");
    assert_eq!(diff.risks.len(), 1);
    assert_eq!(diff.risks[0].code, "DYNAMIC_BRANCH");
}

#[test]
fn differing_args_are_p0_on_a_p0_item_and_a_risk_on_a_lowered_item() {
    let case = Case::new();
    case.fixture("basic.ndjson", "trace/current.ndjson");
    std::fs::create_dir_all(case.path("notes")).unwrap();
    std::fs::write(
        case.path("notes/trace-runtime-policy.json"),
        r#"{"version":"trace-runtime-policy/v1","lower":[{"api":"screen.width","reason":"layout noise"}]}"#,
    )
    .unwrap();
    assert_eq!(case.build(&[]).code, 0);
    assert_eq!(item(&case.contract(), "screen.width")["priority"], "P2");
    let mut audit = case.faithful_audit();
    audit["observations"][6]["observations"]["returnValue"] = json!([1280]);
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 0, "{diff:#?}");
    assert_eq!(diff.risks[0].dimension.as_deref(), Some("returnValue"));

    audit["observations"][3]["observations"]["args"] = json!([["POST", "https://a.test/x"]]);
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert_eq!(
        diff.finding("DIMENSION_MISMATCH").dimension.as_deref(),
        Some("args")
    );
}

#[test]
fn a_probe_measurement_contradicting_the_entry_blocks() {
    let case = Case::audited();
    let mut audit = case.faithful_audit();
    let mut probe = audit["observations"][0].clone();
    probe["source"] = "probe".into();
    probe["observations"] = json!({"owner": ["Navigator instance"]});
    audit["observations"].as_array_mut().unwrap().push(probe);
    case.write_audit(&audit);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    let f = diff.finding("OBSERVATION_CONTRADICTED");
    assert_eq!(f.dimension.as_deref(), Some("owner"));
    // The tool's own measurement is what is compared with the contract.
    assert!(diff.blocking.iter().any(
        |f| f.code == "DIMENSION_MISMATCH" && f.observed == Some(json!(["Navigator instance"]))
    ));
}

#[test]
fn check_refuses_a_missing_case_folder() {
    let case = Case::new();
    let run = case.tracer(&["check", "--case-dir", "nowhere"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("nowhere"), "{}", run.stderr);
}

/// What `contract build` accepts, the check reads back: a value nested as deep as a trace line may
/// be still fits in the contract (and the audit and the diff) with their own nesting around it,
/// and one level deeper is refused by the build, naming the line.
#[test]
fn the_depth_contract_build_accepts_is_the_depth_the_check_reads() {
    let limit = tracer::conformance::raw_trace::MAX_DEPTH;
    let line = |depth: usize| {
        format!(
            "{}\n{{\"type\":\"access\",\"seq\":1,\"t\":1,\"realm\":\"main\",\"receiver\":\"navigator\",\"api\":\"navigator.x\",\"accessType\":\"get\",\"phase\":\"init\",\"returnValue\":{}1{}}}\n",
            r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1","recorder":{"name":"x","version":"1","runtime":"chromium","runtimeVersion":"1"},"startedAt":"2026-01-01T00:00:00Z","page":"p"}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    // The line's own object is a level: its value may hold one less.
    let case = Case::new();
    std::fs::create_dir_all(case.path("trace")).unwrap();
    std::fs::write(case.path("trace/current.ndjson"), line(limit - 1)).unwrap();
    let built = case.build(&[]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    let (_, diff, stderr) = case.check();
    assert!(
        !diff.codes().contains(&"UNREADABLE_INPUT"),
        "{stderr}\n{:#?}",
        diff.blocking
    );

    let deeper = Case::new();
    std::fs::create_dir_all(deeper.path("trace")).unwrap();
    std::fs::write(deeper.path("trace/current.ndjson"), line(limit)).unwrap();
    let refused = deeper.build(&[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("current.ndjson:2: nested deeper than"),
        "{}",
        refused.stderr
    );
}

/// A trace without an access (a page whose script never ran, a recording that failed) makes a
/// contract without items: `contract build` warns, and the check never calls it `matched`,
/// whatever the environment did (it once said "matched: 0 of 0 items" and exited 0).
#[test]
fn a_contract_without_items_is_never_matched() {
    let case = Case::new();
    std::fs::create_dir_all(case.path("ruyi-trace/logs")).unwrap();
    std::fs::write(
        case.path("ruyi-trace/logs/current.ndjson"),
        "{\"type\":\"header\",\"schema\":\"tracer-trace/v1\",\"baselineId\":\"b1\"}\n",
    )
    .unwrap();
    let run = case.build(&["-q"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("the trace has no access lines"),
        "{}",
        run.stderr
    );
    let audit = case.tracer(&[
        "audit",
        "--case-dir",
        "case",
        "--entry",
        "case/result/final.js",
    ]);
    assert_eq!(audit.code, 3, "{}", audit.stderr);
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert!(!diff.matched);
    assert_eq!(diff.codes(), ["EMPTY_CONTRACT"], "{diff:#?}");
    assert!(
        diff.finding("EMPTY_CONTRACT")
            .message
            .contains("ruyi-trace/logs/current.ndjson"),
        "{diff:#?}"
    );
}

/// A case whose trace is `basic.ndjson` with the XMLHttpRequest's own keys and the cookie's value
/// replaced, built, and `edit` applied to the faithful audit before it is sealed.
fn case_with_page_values(own_keys: Value, cookie: &str, edit: impl FnOnce(&mut Value)) -> Case {
    let case = Case::new();
    let text = std::fs::read_to_string(Path::new(FIXTURES).join("basic.ndjson")).unwrap();
    let mut lines = Vec::new();
    for line in text.lines() {
        let mut access: Value = serde_json::from_str(line).unwrap();
        match access["api"].as_str() {
            Some("XMLHttpRequest") => access["ownKeys"] = own_keys.clone(),
            Some("document.cookie") => access["returnValue"] = cookie.into(),
            _ => {}
        }
        lines.push(serde_json::to_string(&access).unwrap());
    }
    let trace = case.path("ruyi-trace/logs/current.ndjson");
    std::fs::create_dir_all(trace.parent().unwrap()).unwrap();
    std::fs::write(trace, lines.join("\n") + "\n").unwrap();
    let run = case.build(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut audit = case.faithful_audit();
    edit(&mut audit);
    case.write_audit(&audit);
    case
}

/// What a page's library makes from a random number (lit's template marker, `lit$` and 9 digits,
/// another in every run, the browser's own included) and its own keys on host objects (lit's
/// `_$litPart$`: which object carries one when read follows the page's own order of work) are
/// no difference of the environment's; an implementation's key beside them still is, and so is
/// a key the platform makes own (`isTrusted`).
#[test]
fn a_page_s_random_marker_and_its_own_keys_are_no_difference_of_the_environment_s() {
    let xhr = |audit: &mut Value, keys: Value| {
        audit["observations"][2]["observations"]["ownKeys"] = keys;
    };
    let marked = |audit: &mut Value| {
        audit["observations"][1]["observations"]["returnValue"] = json!(["lit$602014210$"]);
    };
    let case = case_with_page_values(json!(["_$litPart$"]), "lit$629050753$", |audit| {
        marked(audit);
        xhr(audit, json!([[], ["_$litPart$"]]));
    });
    let (code, diff, _) = case.check();
    assert_eq!(code, 0, "{diff:#?}");

    let case = case_with_page_values(json!(["_$litPart$"]), "lit$629050753$", |audit| {
        marked(audit);
        xhr(audit, json!([[], ["_$litPart$", "Symbol(impl)"]]));
    });
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert_eq!(diff.blocking.len(), 1, "{diff:#?}");
    let f = &diff.blocking[0];
    assert_eq!(f.dimension.as_deref(), Some("ownKeys"));
    assert_eq!(f.observed, Some(json!([[], ["Symbol(impl)"]])));
    assert_eq!(
        diff.groups[0].title,
        "objects of the environment carry an own key the browser's do not: Symbol(impl)"
    );

    // Another value than the marker's digits is a difference.
    let case = case_with_page_values(json!([]), "lit$629050753$", |audit| {
        audit["observations"][1]["observations"]["returnValue"] = json!(["lit$6290$"]);
    });
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert_eq!(diff.blocking[0].dimension.as_deref(), Some("returnValue"));

    let case = case_with_page_values(json!(["isTrusted"]), "", |audit| {
        xhr(audit, json!([[], ["isTrusted"]]));
    });
    let (code, diff, _) = case.check();
    assert_eq!(code, 3);
    assert_eq!(diff.blocking[0].dimension.as_deref(), Some("ownKeys"));
}
