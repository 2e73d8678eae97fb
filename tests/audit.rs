//! `tracer audit`: the entry runs (Node through the run engine, or python3) in audit-only, no-send
//! mode; every network attempt is refused and counted by the tool's own guard; the trusted fields
//! are computed by the tool; the audit ends with the check's verdict.

use serde_json::Value;

use crate::support::{Output, Tracer, fixtures};

/// The raw observations of a faithful environment for `basic.ndjson` (its timeline and
/// observations, taken from the hand-written faithful audit fixture).
fn faithful_observations() -> Value {
    let text = std::fs::read_to_string(fixtures().join("conformance/audit-faithful.json")).unwrap();
    let audit: Value = serde_json::from_str(&text).unwrap();
    serde_json::json!({
        // What an entry claims about itself is never trusted: these must not survive.
        "networkAttempts": 0,
        "contractHash": "sha256:forged",
        "timeline": audit["timeline"],
        "observations": audit["observations"],
    })
}

/// An entry (`final.js`) that writes `observations` where the audit asks, after running `body`.
fn node_entry(body: &str, observations: &Value) -> String {
    format!(
        "// An environment entry under audit: {body:?}\n\
         const fs = require('node:fs');\n\
         {body}\n\
         fs.writeFileSync(process.env.WEB_JS_ENV_PATCHER_TRACE_AUDIT_OUT, JSON.stringify({observations}));\n"
    )
}

/// A case with the basic trace and its contract, and `files` under it.
fn case(files: &[(&str, String)]) -> Tracer {
    case_of("conformance/basic.ndjson", files)
}

/// A faithful environment: a real shim (the tool measures it at exit) that also reports the
/// observations only the entry can make, for `shim.ndjson` (`basic.ndjson` without the native
/// getter's descriptor, which no JavaScript shim can have).
fn faithful_case() -> Tracer {
    faithful_case_then("")
}

/// [`faithful_case`], its entry running `then` after the shim.
fn faithful_case_then(then: &str) -> Tracer {
    let mut observations = faithful_observations();
    for o in observations["observations"].as_array_mut().unwrap() {
        o["observations"]
            .as_object_mut()
            .unwrap()
            .remove("descriptor");
    }
    let shim = std::fs::read_to_string(fixtures().join("conformance/faithful-shim.js")).unwrap();
    let entry = node_entry(&format!("{shim}\n{then}"), &observations);
    case_of("conformance/shim.ndjson", &[("result/final.js", entry)])
}

/// A case with the trace `fixture` and its contract, and `files` under it.
fn case_of(fixture: &str, files: &[(&str, String)]) -> Tracer {
    let mut tracer = Tracer::new().fixture_as(fixture, "case/ruyi-trace/logs/current.ndjson");
    for (path, contents) in files {
        tracer = tracer.file(format!("case/{path}"), contents);
    }
    let built = tracer
        .args(["contract", "build", "--case-dir", "case"])
        .run();
    built.assert_code(0);
    built.tracer()
}

fn audit(tracer: Tracer, entry: &str) -> Output {
    audit_with(tracer, entry, &["--markdown"])
}

/// `tracer audit` of `entry` in `case`, with `options`.
fn audit_with(tracer: Tracer, entry: &str, options: &[&str]) -> Output {
    tracer
        .args([
            "audit",
            "--case-dir",
            "case",
            "--entry",
            entry,
            "--timeout",
            "60",
        ])
        .args(options.iter().copied())
        .run()
}

fn read_json(out: &Output, path: &str) -> Value {
    let text = std::fs::read_to_string(out.workspace().join("case").join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}\n{}", out.dump()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_faithful_environment_matches_and_nothing_it_claims_is_trusted() {
    let out = audit(faithful_case(), "case/result/final.js");
    out.assert_code(0);
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let contract = read_json(&out, "notes/trace-runtime-contract.json");
    assert_eq!(audit["networkAttempts"], 0, "counted by the guard");
    assert_eq!(
        audit["contractHash"], contract["contractHash"],
        "computed, not the entry's forgery"
    );
    assert_eq!(audit["probeVersion"], "case-runtime-audit/v3");
    assert_eq!(audit["runtime"], "node");
    assert_eq!(audit["exitCode"], 0);
    assert!(
        audit["runtimeSourceHash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(diff["matched"], true, "{diff:#}");
    assert!(audit.get("entryFailure").is_none(), "{audit:#}");
    assert!(
        !diff.to_string().contains("ENTRY_FAILED"),
        "an entry that ended well is no risk: {diff:#}"
    );
    assert!(
        out.workspace()
            .join("case/tmp/node-trace-runtime-audit.md")
            .is_file()
    );
    // The entry ran through the run engine: its session is there too.
    assert!(!out.session_ids().is_empty());
}

#[test]
fn an_audit_s_json_verdict_is_the_whole_of_its_stdout_whatever_the_entry_prints() {
    // `tracer audit --format json | jq`: the entry's own stdout (a `console.log` of its result)
    // once came first, and the verdict could not be read.
    let tracer = faithful_case_then("console.log('RESULT', JSON.stringify({ done: true }));");
    let out = audit_with(tracer, "case/result/final.js", &["--format", "json"]);
    out.assert_code(0);
    let verdict: Value =
        serde_json::from_str(&out.stdout()).unwrap_or_else(|e| panic!("{e}: {}", out.dump()));
    assert_eq!(verdict["matched"], true, "{verdict:#}");
    assert!(
        out.stderr().contains("RESULT {\"done\":true}"),
        "{}",
        out.dump()
    );
}

#[test]
fn every_network_route_is_refused_counted_and_fails_the_check() {
    let body = r#"
const net = require('node:net'), http = require('node:http'), dgram = require('node:dgram');
const { execFileSync } = require('node:child_process');
const tries = [
  new Promise((done) => net.connect(80, '192.0.2.1').on('error', (e) => done('net ' + e.code))),
  new Promise((done) => http.get('http://192.0.2.2:8080/', () => done('http ok')).on('error', (e) => done('http ' + e.code))),
  fetch('http://192.0.2.3:8080/').then(() => 'fetch ok', (e) => 'fetch ' + (e.cause && e.cause.code)),
  new Promise((done) => { const s = dgram.createSocket('udp4'); s.send('x', 5353, '192.0.2.4', (e) => { s.close(); done('dgram ' + (e && e.code)); }); }),
];
let child = 'python ok';
try { execFileSync('python3', ['-c', 'import socket; socket.create_connection(("192.0.2.5", 81), timeout=5)'], { stdio: 'ignore' }); } catch (e) { child = 'python refused'; }
"#;
    let body = format!(
        "{body}\nPromise.all(tries).then((r) => console.log(r.join(', '), '|', child)).then(() => {{"
    );
    let entry = format!("{}}});\n", node_entry(&body, &faithful_observations()));
    let out = audit(case(&[("result/final.js", entry)]), "case/result/final.js");
    out.assert_code(3);
    assert!(out.stdout().contains("net EPERM"), "{}", out.dump());
    assert!(out.stdout().contains("python refused"), "{}", out.dump());
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let transcript = audit["transcript"].as_array().unwrap();
    let hosts: Vec<&str> = transcript
        .iter()
        .filter_map(|t| t["host"].as_str())
        .collect();
    for host in [
        "192.0.2.1",
        "192.0.2.2",
        "192.0.2.3",
        "192.0.2.4",
        "192.0.2.5",
    ] {
        assert!(
            hosts.contains(&host),
            "{host} not in the transcript: {transcript:#?}"
        );
    }
    assert!(
        transcript.iter().any(|t| t["process"] == "python3"),
        "the grandchild is named"
    );
    assert_eq!(
        audit["networkAttempts"].as_u64().unwrap(),
        transcript.len() as u64
    );
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(diff["matched"], false);
    assert!(diff.to_string().contains("NETWORK_ATTEMPTED"), "{diff:#}");
}

#[test]
fn a_python_entry_is_audited_under_the_same_guard() {
    let observations = faithful_observations().to_string();
    let entry = format!(
        "# An environment entry in Python: tries the network, then writes its observations.\n\
         import os, socket, sys\n\
         assert sys.argv[1:] == ['--audit-only'], sys.argv\n\
         try:\n    socket.create_connection(('192.0.2.9', 443), timeout=5)\nexcept OSError as e:\n    print('refused', e.errno)\n\
         open(os.environ['WEB_JS_ENV_PATCHER_TRACE_AUDIT_OUT'], 'w').write({observations:?})\n"
    );
    let out = audit(case(&[("result/final.py", entry)]), "case/result/final.py");
    out.assert_code(3);
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(audit["runtime"], "python");
    assert_eq!(audit["sandbox"]["inForce"], true, "{audit:#}");
    assert_eq!(audit["networkAttempts"], 1, "{audit:#}");
    assert_eq!(audit["transcript"][0]["host"], "192.0.2.9");
    assert_eq!(audit["transcript"][0]["port"], 443);
    // No request-level view in Python: requests are not compared, and the diff says so.
    assert!(audit.get("requests").is_none(), "{audit:#}");
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert!(diff["requestsMatched"].is_null(), "{diff:#}");
}

/// An entry that fails after the script ran (here its own harness throws from a timer, after
/// every item was observed): the verdict stands on what was observed, and the check names how the
/// entry ended, with the failure's message and line, as a risk (on the terminal too).
#[test]
fn an_entry_that_fails_after_the_script_is_named_as_a_risk() {
    let faithful = faithful_case();
    let entry = std::fs::read_to_string(faithful.workspace().join("case/result/final.js")).unwrap();
    let entry = format!(
        "{entry}setTimeout(() => {{ throw new Error('the harness broke after the script'); }}, 0);\n"
    );
    let line = entry.lines().count();
    std::fs::write(faithful.workspace().join("case/result/final.js"), &entry).unwrap();
    let out = audit(faithful, "case/result/final.js");
    out.assert_code(0);
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(audit["exitCode"], 1, "{audit:#}");
    let failure = &audit["entryFailure"];
    assert_eq!(
        failure["message"], "Error: the harness broke after the script",
        "{audit:#}"
    );
    assert_eq!(failure["file"], "result/final.js", "{audit:#}");
    assert_eq!(failure["line"], line, "{audit:#}");
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(diff["matched"], true, "{diff:#}");
    let risk = diff["risks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "ENTRY_FAILED")
        .unwrap_or_else(|| panic!("no ENTRY_FAILED risk: {diff:#}"));
    assert_eq!(risk["priority"], "P2", "{risk:#}");
    let message = risk["message"].as_str().unwrap();
    assert!(
        message.contains("exited with code 1")
            && message.contains(&format!(
                "the harness broke after the script at result/final.js:{line}:"
            )),
        "{risk:#}"
    );
    assert!(
        out.stderr().contains("ENTRY_FAILED (risk) [exitCode]"),
        "{}",
        out.dump()
    );
}

/// An entry that fails before it makes a window: every item is not reached because of it, one
/// group of the work list that names how the entry ended (it was once "the environment lacks a
/// `main` realm: provide it", for each item).
#[test]
fn an_entry_that_fails_before_making_a_window_is_why_nothing_was_reached() {
    let tracer = case(&[(
        "result/final.js",
        "function setup() { throw new Error('config missing: PAGE_URL'); }\n\
         setup();\n\
         const vm = require('vm');\n\
         vm.createContext({});\n"
            .to_owned(),
    )]);
    let out = audit(tracer, "case/result/final.js");
    out.assert_code(3);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let missing: Vec<&Value> = diff["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "MISSING_OBSERVATION")
        .collect();
    assert!(!missing.is_empty(), "{diff:#}");
    for f in &missing {
        assert_eq!(f["cause"], "not-reached", "{f:#}");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .starts_with("the entry exited with code 1 (Error: config missing: PAGE_URL at result/final.js:1:26)"),
            "{f:#}"
        );
    }
    let titles: Vec<&str> = diff["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"not reached: the entry exited with code 1 (Error: config missing: PAGE_URL at result/final.js:1:26) before the script ran"),
        "{titles:#?}"
    );
    assert!(!titles.iter().any(|t| t.contains("lacks")), "{titles:#?}");
}

/// A Python entry that fails after writing its observations: its traceback still reaches the
/// user's terminal, and the audit names the exception (redacted as a Node entry's evidence is) and
/// the line it was raised at.
#[test]
fn a_python_entry_that_fails_is_named_with_its_exception() {
    let observations = faithful_observations().to_string();
    let entry = format!(
        "# An environment entry in Python that fails after writing its observations.\n\
         import os\n\
         open(os.environ['WEB_JS_ENV_PATCHER_TRACE_AUDIT_OUT'], 'w').write({observations:?})\n\
         raise ValueError('the harness broke with AKIAABCDEFGHIJKLMNOP')\n"
    );
    let out = audit(case(&[("result/final.py", entry)]), "case/result/final.py");
    assert!(
        out.stderr().contains("Traceback (most recent call last):"),
        "{}",
        out.dump()
    );
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(audit["exitCode"], 1, "{audit:#}");
    // Redacted as a Node entry's evidence is.
    assert_eq!(
        audit["entryFailure"]["message"],
        "ValueError: the harness broke with [REDACTED:aws-access-key]",
        "{audit:#}"
    );
    assert_eq!(
        audit["entryFailure"]["file"], "result/final.py",
        "{audit:#}"
    );
    assert_eq!(audit["entryFailure"]["line"], 4, "{audit:#}");
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert!(
        diff["risks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "ENTRY_FAILED"
                && f["message"]
                    .as_str()
                    .unwrap()
                    .contains("[REDACTED:aws-access-key] at result/final.py:4")),
        "{diff:#}"
    );
}

#[test]
fn editing_the_environment_after_the_audit_makes_it_stale() {
    let out = audit(faithful_case(), "case/result/final.js");
    out.assert_code(0);
    std::fs::write(
        out.workspace().join("case/result/final.js"),
        "// edited after the audit\n",
    )
    .unwrap();
    let check = out.tracer().args(["check", "--case-dir", "case"]).run();
    check.assert_code(3);
    let diff = read_json(&check, "notes/trace-runtime-diff.json");
    let text = diff.to_string();
    assert!(
        text.contains("STALE_AUDIT") && text.contains("final.js"),
        "{diff:#}"
    );
}

#[test]
fn an_audit_without_a_contract_or_entry_is_bad_input() {
    let out = Tracer::new()
        .file("case/result/final.js", "// no contract yet\n")
        .args([
            "audit",
            "--case-dir",
            "case",
            "--entry",
            "case/result/final.js",
        ])
        .run();
    out.assert_code(2);
    assert!(
        out.stderr().contains("tracer contract build"),
        "{}",
        out.stderr()
    );
    let out = audit(case(&[]), "case/result/missing.js");
    out.assert_code(2);
    assert!(out.stderr().contains("missing.js"), "{}", out.stderr());
}

/// The environment part of an entry that sends the two requests of `requests.ndjson` (an XHR
/// POST with two headers and a JSON body, then a fetch PUT), with `method` and `headers` for the
/// XHR's stand-in, and reports no observations.
fn requests_entry(method: &str, headers: &str) -> String {
    let body = format!(
        r#"
const http = require('node:http');
const req = http.request('http://192.0.2.7:8080/api/submit?x=1', {{ method: '{method}', headers: {headers} }});
req.on('error', () => {{
  fetch('http://192.0.2.7:8080/api/log', {{ method: 'PUT', headers: {{ 'X-Trace': '1' }}, body: 'hello' }})
    .catch(() => console.log('both refused'));
}});
req.end('{{"a":1}}');
"#
    );
    node_entry(
        &body,
        &serde_json::json!({"timeline": [], "observations": []}),
    )
}

#[test]
fn requests_are_compared_request_by_request_beside_matched() {
    let entry = requests_entry(
        "POST",
        "{ 'X-Token': 't-1', 'Content-Type': 'application/json' }",
    );
    let tracer = case_of("conformance/requests.ndjson", &[("result/final.js", entry)]);
    let out = audit(tracer, "case/result/final.js");
    // The attempts are refused and counted: not conformant, whatever the requests were.
    out.assert_code(3);
    assert!(out.stdout().contains("both refused"), "{}", out.dump());
    let contract = read_json(&out, "notes/trace-runtime-contract.json");
    assert_eq!(
        contract["requests"].as_array().unwrap().len(),
        2,
        "{contract:#}"
    );
    assert_eq!(contract["requests"][0]["method"], "POST");
    assert_eq!(
        contract["requests"][0]["headerNames"],
        serde_json::json!(["X-Token", "Content-Type"])
    );
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let requests = audit["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 2, "{:#}", audit["requests"]);
    assert_eq!(requests[0]["via"], "http");
    assert_eq!(requests[0]["url"], "http://192.0.2.7:8080/api/submit?x=1");
    assert_eq!(requests[0]["body"]["length"], 7);
    assert_eq!(requests[1]["via"], "undici");
    assert_eq!(requests[1]["method"], "PUT");
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(diff["matched"], false);
    assert_eq!(diff["requestsMatched"], true, "{:#}", diff["requests"]);
    assert_eq!(diff["requests"]["observed"], 2);
    assert!(out.stderr().contains("requests matched"), "{}", out.dump());
    let md =
        std::fs::read_to_string(out.workspace().join("case/notes/trace-runtime-diff.md")).unwrap();
    assert!(md.contains("## Requests"), "{md}");
}

#[test]
fn a_request_that_differs_is_named_with_its_field() {
    // Headers in the other order, and GET instead of POST.
    let entry = requests_entry(
        "GET",
        "{ 'Content-Type': 'application/json', 'X-Token': 't-1', 'Content-Length': 7 }",
    );
    let tracer = case_of("conformance/requests.ndjson", &[("result/final.js", entry)]);
    let out = audit(tracer, "case/result/final.js");
    out.assert_code(3);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(diff["requestsMatched"], false, "{:#}", diff["requests"]);
    let fields: Vec<(u64, &str)> = diff["requests"]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["request"].as_u64().unwrap(),
                d["field"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [(1, "method"), (1, "headerNames")],
        "{:#}",
        diff["requests"]
    );
    assert!(out.stderr().contains("requests differ"), "{}", out.dump());
}

#[test]
fn an_entry_cannot_make_the_tool_connect_for_it() {
    // A listener outside the audited tree, on loopback; the entry names it in a fake inspector
    // line. The tool, which runs outside the guard, must never connect there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let entry = node_entry(
        "console.error(`Debugger listening on ws://127.0.0.1:${process.env.LEAK_PORT}/secret-data`);\n\
         setTimeout(() => {}, 1500);",
        &faithful_observations(),
    );
    let tracer = case(&[("result/final.js", entry)]).env("LEAK_PORT", port.to_string());
    let out = audit(tracer, "case/result/final.js");
    assert!(out.code() == 0 || out.code() == 3, "{}", out.dump());
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok((_, from)) => panic!("the tool connected to the entry's port (from {from})"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_descriptor_tracer_inherited_never_reaches_the_audited_program() {
    // A connected socket the tracer's parent leaves open without close-on-exec (as a shell's
    // `exec 7<>/dev/tcp/…` does): the audited program could write through it without a connect.
    use std::os::fd::AsRawFd;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let stream = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let fd = stream.as_raw_fd();
    // SAFETY: fcntl on a descriptor this test owns.
    unsafe { libc::fcntl(fd, libc::F_SETFD, 0) };
    let inode = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
    let entry = node_entry(
        "let seen = 'closed';\n\
         try { seen = fs.readlinkSync(`/proc/self/fd/${process.env.INHERITED_FD}`); } catch (e) {}\n\
         console.log('inherited: ' + seen);",
        &faithful_observations(),
    );
    let tracer = case(&[("result/final.js", entry)]).env("INHERITED_FD", fd.to_string());
    let out = audit(tracer, "case/result/final.js");
    // SAFETY: restores close-on-exec on the test's own descriptor.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    let line = out
        .stdout()
        .lines()
        .find(|l| l.starts_with("inherited: "))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("{}", out.dump()));
    assert_ne!(
        line,
        format!("inherited: {}", inode.display()),
        "the socket reached the audited program"
    );
}

#[test]
fn an_audit_edited_after_the_tool_wrote_it_is_blocked() {
    // The entry tries one connection; the audit says so. Rewriting the audit to say nothing was
    // tried (as a script or an agent turning CI green would) breaks its seal.
    let entry = node_entry(
        "require('node:net').connect(80, '192.0.2.9').on('error', () => {});\nsetTimeout(() => {}, 300);",
        &faithful_observations(),
    );
    let out = audit(case(&[("result/final.js", entry)]), "case/result/final.js");
    out.assert_code(3);
    let path = out
        .workspace()
        .join("case/tmp/node-trace-runtime-audit.json");
    let mut audit: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(
        audit["integrity"]
            .as_str()
            .unwrap()
            .starts_with("hmac-sha256:")
    );
    audit["networkAttempts"] = 0.into();
    audit["transcript"] = serde_json::json!([]);
    std::fs::write(&path, serde_json::to_vec_pretty(&audit).unwrap()).unwrap();
    let check = |expected: &str| {
        let run = out.tracer().args(["check", "--case-dir", "case"]).run();
        run.assert_code(3);
        let diff = read_json(&out, "notes/trace-runtime-diff.json");
        assert_eq!(diff["matched"], false);
        let codes: Vec<&str> = diff["blocking"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["code"].as_str())
            .collect();
        assert_eq!(codes, [expected], "{diff:#}");
    };
    check("AUDIT_SEAL_BROKEN");
    // Without its seal: not the tool's either.
    audit.as_object_mut().unwrap().remove("integrity");
    std::fs::write(&path, serde_json::to_vec_pretty(&audit).unwrap()).unwrap();
    check("AUDIT_NOT_SEALED");
}

/// examples/conformance's corrected shim honours the no-network mode: its `send()` records the
/// request instead of sending it, so nothing reaches Node's network layer. The script's own
/// request (recorded by the probe: `open`, `send`) is what the browser sent: requests match, and
/// the diff says why the network saw none.
#[test]
fn an_environment_that_records_its_requests_instead_of_sending_them_matches_them() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/conformance");
    let read = |path: &str| std::fs::read_to_string(example.join(path)).unwrap();
    let tracer = Tracer::new()
        .file(
            "case/ruyi-trace/logs/current.ndjson",
            read("case/ruyi-trace/logs/current.ndjson"),
        )
        .file("case/result/final.js", read("result-fixed/final.js"))
        .file("app.js", read("app.js"));
    let built = tracer
        .args(["contract", "build", "--case-dir", "case"])
        .run();
    built.assert_code(0);
    let out = audit(built.tracer(), "case/result/final.js");
    out.assert_code(0);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(diff["matched"], true, "{:#}", diff["blocking"]);
    assert_eq!(diff["requestsMatched"], true, "{:#}", diff["requests"]);
    assert_eq!(diff["requests"]["observed"], 1, "{:#}", diff["requests"]);
    assert_eq!(diff["requests"]["network"], 0, "{:#}", diff["requests"]);
    assert!(
        diff["requests"]["note"]
            .as_str()
            .unwrap()
            .contains("recorded them instead"),
        "{:#}",
        diff["requests"]
    );
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(audit["scriptRequests"][0]["method"], "GET", "{audit:#}");
    assert_eq!(audit["scriptRequests"][0]["url"], "https://a.test/x");
}

/// Ctrl-C or SIGTERM during `tracer audit`: 130 or 143, and no audit at all (none sealed, and no
/// earlier one left to pass for this run), so `tracer check` has nothing to call `matched`.
#[test]
fn an_interrupted_audit_is_no_verdict() {
    for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let entry = node_entry(
            "console.log('entry running');\nsetTimeout(() => {}, 60000);",
            &faithful_observations(),
        );
        // An earlier audit of the case, as a stale one would be.
        let mut running = case_of("conformance/shim.ndjson", &[("result/final.js", entry)])
            .file(
                "case/tmp/node-trace-runtime-audit.json",
                "{\"integrity\":\"hmac-sha256:00\"}",
            )
            .args(crate::support::AUDIT_CASE)
            .spawn();
        running.wait_for_stdout_line("entry running");
        running.signal(signal);
        let out = running.wait();
        out.assert_code(code);
        assert!(
            !out.workspace()
                .join("case/tmp/node-trace-runtime-audit.json")
                .exists(),
            "{}",
            out.dump()
        );
        assert!(out.stderr().contains("interrupted"), "{}", out.dump());
    }
}

/// Without the sandbox (`TRACER_NO_SANDBOX=1`, as where namespaces are refused) the audited code
/// runs as the same user and can reach the key's folder; a key it writes there while it runs (here
/// a fresh random one, as a forger would) is never the one that seals: the audit is written
/// unsealed, and the check blocks it. The audit says it was made without the sandbox, and the
/// check names that as a risk.
#[test]
fn without_the_sandbox_a_key_replaced_by_the_audited_code_seals_nothing() {
    let entry = node_entry(
        "const key = require('node:path').join(process.env.TRACER_STATE_DIR, 'audit-key');\n\
         fs.rmSync(key, { force: true });\n\
         fs.writeFileSync(key, require('node:crypto').randomBytes(32).toString('hex'), { mode: 0o600 });",
        &faithful_observations(),
    );
    let tracer = case_of("conformance/shim.ndjson", &[("result/final.js", entry)])
        .env("TRACER_NO_SANDBOX", "1");
    let out = audit(tracer, "case/result/final.js");
    out.assert_code(3);
    assert!(
        out.stderr().contains("changed while the audit ran")
            && out
                .stderr()
                .contains("runs without the sandbox (TRACER_NO_SANDBOX=1)"),
        "{}",
        out.dump()
    );
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert!(audit.get("integrity").is_none(), "{audit:#}");
    assert_eq!(audit["sandbox"]["inForce"], false, "{audit:#}");
    assert_eq!(
        audit["sandbox"]["reason"], "TRACER_NO_SANDBOX=1",
        "{audit:#}"
    );
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let codes = |list: &str| -> Vec<String> {
        diff[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(
        codes("blocking").contains(&"AUDIT_NOT_SEALED".to_owned()),
        "{diff:#}"
    );
    assert!(
        codes("risks").contains(&"NO_SANDBOX".to_owned()),
        "{diff:#}"
    );
}

/// What the audited code tries against the tool from inside the sandbox, printed as one line
/// (`inside: {…}`): the processes it can see besides itself, its ancestors (whether their memory
/// opens, whether SIGSTOP stops them, and whether SIGKILL ends them: outside a sandbox, tracer is
/// one), the seal's key (read and planted), `/dev/net/tun`, and the network interfaces.
const REACH_FOR_THE_TOOL: &str = r#"
const os = require('node:os');
const path = require('node:path');
const attempt = (f) => { try { return f(); } catch (e) { return e.code || String(e); } };
const state = (p) => attempt(() => fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1][0]);
// Every process in sight but itself, by name.
const visible = fs.readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)).map(Number)
  .filter((p) => p !== process.pid)
  .map((pid) => ({ pid, comm: attempt(() => fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim()) }));
// Its ancestors that are tracer's (outside a sandbox: tracer itself), each opened, stopped and
// killed if it can be; never a process of anyone else's.
const ancestors = [];
for (let pid = process.ppid; pid > 0 && ancestors.length < 4;) {
  const stat = attempt(() => fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (typeof stat !== 'string' || !/^[0-9]+ \(tracer/.test(stat)) break;
  const mem = attempt(() => { fs.closeSync(fs.openSync(`/proc/${pid}/mem`, 'r+')); return 'opened'; });
  attempt(() => process.kill(pid, 'SIGSTOP'));
  const stopped = state(pid) === 'T';
  attempt(() => process.kill(pid, 'SIGCONT'));
  attempt(() => process.kill(pid, 'SIGKILL'));
  const killed = !fs.existsSync(`/proc/${pid}`) || state(pid) === 'Z';
  ancestors.push({ pid, mem, stopped, killed });
  pid = typeof stat === 'string' ? Number(stat.split(') ')[1].split(' ')[1]) : 0;
}
const key = path.join(process.env.TRACER_STATE_DIR, 'audit-key');
const result = {
  ppid: process.ppid,
  visible,
  ancestors,
  keyRead: attempt(() => fs.readFileSync(key, 'utf8').length),
  keyPlanted: attempt(() => { fs.writeFileSync(key, '0'.repeat(64)); return 'planted'; }),
  tun: attempt(() => { fs.closeSync(fs.openSync('/dev/net/tun', 'r+')); return 'opened'; }),
  interfaces: Object.keys(os.networkInterfaces()),
};
console.log('inside: ' + JSON.stringify(result));
"#;

/// Runs `REACH_FOR_THE_TOOL` in an audit (as the user `as_user` when given, through setpriv) and
/// checks every attempt failed, the key on disk is the one tracer made, and the audit is sealed
/// with it and says the sandbox was in force.
fn the_tool_is_out_of_reach(as_user: Option<u32>) {
    use std::os::unix::fs::PermissionsExt;
    let entry = node_entry(REACH_FOR_THE_TOOL, &faithful_observations());
    let tracer = case_of("conformance/shim.ndjson", &[("result/final.js", entry)]);
    let dir = tracer.workspace().to_owned();
    let state = dir.join(".state");
    let mut command = match as_user {
        Some(uid) => {
            // The case, the sessions and the key's folder belong to that user.
            let owner = format!("{uid}:{uid}");
            let chown = std::process::Command::new("chown")
                .args(["-R", &owner])
                .arg(dir.parent().unwrap())
                .status()
                .unwrap();
            assert!(chown.success());
            std::fs::set_permissions(
                dir.parent().unwrap(),
                std::fs::Permissions::from_mode(0o755),
            )
            .unwrap();
            let mut command = std::process::Command::new("/usr/bin/setpriv");
            command
                .arg(format!("--reuid={uid}"))
                .arg(format!("--regid={uid}"))
                .arg("--clear-groups")
                .arg(env!("CARGO_BIN_EXE_tracer"));
            command
        }
        None => std::process::Command::new(env!("CARGO_BIN_EXE_tracer")),
    };
    let out = command
        .args(crate::support::AUDIT_CASE)
        .current_dir(&dir)
        .env("HOME", &dir)
        .env("TRACER_STATE_DIR", &state)
        .env_remove("NODE_OPTIONS")
        .env_remove("TRACER_NO_SANDBOX")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("inside: "))
        .unwrap_or_else(|| panic!("no report from inside\n{stdout}\n{stderr}"));
    let inside: Value = serde_json::from_str(line).unwrap();
    // Only the sandbox's own init is there besides the entry: pid 1, its parent, which it can
    // neither open, stop nor kill.
    assert_eq!(inside["ppid"], 1, "{inside:#}\n{stderr}");
    assert_eq!(
        inside["visible"],
        serde_json::json!([{"pid": 1, "comm": "tracer-sandbox"}]),
        "{inside:#}"
    );
    assert_eq!(
        inside["ancestors"],
        serde_json::json!([{"pid": 1, "mem": "EACCES", "stopped": false, "killed": false}]),
        "{inside:#}"
    );
    assert_eq!(inside["keyRead"], "ENOENT", "{inside:#}");
    assert_eq!(inside["keyPlanted"], "EROFS", "{inside:#}");
    assert_eq!(inside["tun"], "ENOENT", "{inside:#}");
    assert_eq!(
        inside["interfaces"],
        serde_json::json!(["lo"]),
        "{inside:#}"
    );
    // The key on disk is tracer's, and it sealed the audit.
    let key = std::fs::read_to_string(state.join("audit-key")).unwrap();
    assert_eq!(key.trim().len(), 64);
    assert_ne!(key.trim(), "0".repeat(64));
    let audit: Value = serde_json::from_slice(
        &std::fs::read(dir.join("case/tmp/node-trace-runtime-audit.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(audit["sandbox"]["inForce"], true, "{audit:#}");
    // The no-send guard ran beside the sandbox (and counted nothing).
    assert_eq!(audit["networkAttempts"], 0, "{audit:#}\n{stderr}");
    assert_eq!(audit["exitCode"], 0, "{audit:#}\n{stderr}");
    let diff: Value = serde_json::from_slice(
        &std::fs::read(dir.join("case/notes/trace-runtime-diff.json")).unwrap(),
    )
    .unwrap();
    let text = diff.to_string();
    for code in [
        "AUDIT_NOT_SEALED",
        "AUDIT_SEAL_BROKEN",
        "NO_SANDBOX",
        "NETWORK_ATTEMPTED",
        "MISSING_METADATA",
    ] {
        assert!(!text.contains(code), "{code}: {diff:#}");
    }
}

/// From inside an audit, the tool is out of reach: no process of tracer's is visible but the
/// sandbox's init (whose memory does not open and which no signal stops or ends), the key's
/// folder is empty and read-only, `/dev/net/tun` is not there, loopback is the only interface.
/// As the user running the tests (root in CI)...
#[test]
fn the_audited_code_cannot_reach_the_tool() {
    the_tool_is_out_of_reach(None);
}

/// ... and as an unprivileged user (skipped, saying so, where the tests cannot switch to one).
#[test]
fn the_audited_code_cannot_reach_the_tool_as_an_unprivileged_user() {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root || !std::path::Path::new("/usr/bin/setpriv").exists() {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED audit::the_audited_code_cannot_reach_the_tool_as_an_unprivileged_user: needs root and setpriv to run tracer as another user"
        );
        return;
    }
    the_tool_is_out_of_reach(Some(65534));
}

/// Without the namespaces (`TRACER_NO_SANDBOX=1`), Landlock's scopes still keep the tracer out of
/// reach of the audited code, as root too: its memory does not open (a Landlock domain traces
/// nothing outside it), SIGSTOP and SIGKILL are refused. Skipped, saying so, on a kernel without
/// the scopes (Landlock ABI 6, Linux 6.12).
#[test]
fn without_the_sandbox_landlock_still_keeps_the_tracer_out_of_reach() {
    if tracer::sandbox::scope::available().is_none() {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED audit::without_the_sandbox_landlock_still_keeps_the_tracer_out_of_reach: no Landlock scopes in this kernel"
        );
        return;
    }
    let entry = node_entry(REACH_FOR_THE_TOOL, &faithful_observations());
    let tracer = case_of("conformance/shim.ndjson", &[("result/final.js", entry)])
        .env("TRACER_NO_SANDBOX", "1");
    let out = audit(tracer, "case/result/final.js");
    let line = out
        .stdout()
        .lines()
        .find_map(|l| l.strip_prefix("inside: ").map(str::to_owned))
        .unwrap_or_else(|| panic!("no report from inside\n{}", out.dump()));
    let inside: Value = serde_json::from_str(&line).unwrap();
    let ancestors = inside["ancestors"].as_array().unwrap();
    assert!(!ancestors.is_empty(), "{inside:#}");
    for ancestor in ancestors {
        assert_eq!(ancestor["mem"], "EACCES", "{inside:#}");
        assert_eq!(ancestor["stopped"], false, "{inside:#}");
        assert_eq!(ancestor["killed"], false, "{inside:#}");
    }
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(audit["sandbox"]["inForce"], false, "{audit:#}");
    assert_eq!(
        audit["sandbox"]["scopes"],
        serde_json::json!(["signal", "abstract-unix-socket"]),
        "{audit:#}"
    );
}

/// A daemon outside the sandbox listening on a socket file (a forwarder that could send for the
/// entry, or pass it a socket connected outside to write to): the entry's connect to it is
/// refused and counted (`unix-outside`), and nothing arrives.
#[test]
fn a_socket_file_outside_the_sandbox_is_refused_and_counted() {
    let entry = node_entry(
        "const net = require('node:net');\n\
         const done = new Promise((resolve) => {\n\
           const s = net.connect(process.env.OUTSIDE_SOCKET);\n\
           s.on('connect', () => { s.write('secret'); console.log('outside: connected'); s.end(); resolve(); });\n\
           s.on('error', (e) => { console.log('outside: ' + e.code); resolve(); });\n\
         });\n\
         await done;",
        &faithful_observations(),
    )
    .replace("const fs = require('node:fs');", "(async () => {\nconst fs = require('node:fs');");
    let entry = format!("{entry}}})();\n");
    let tracer = case_of("conformance/shim.ndjson", &[("result/final.js", entry)]);
    let socket = tracer.workspace().join("outside.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    let out = audit(
        tracer.env("OUTSIDE_SOCKET", &socket),
        "case/result/final.js",
    );
    assert!(out.stdout().contains("outside: EPERM"), "{}", out.dump());
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the outside daemon was reached"
    );
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(audit["sandbox"]["inForce"], true, "{audit:#}");
    assert_eq!(audit["networkAttempts"], 1, "{audit:#}");
    assert_eq!(
        audit["transcript"][0]["family"], "unix-outside",
        "{audit:#}"
    );
    assert_eq!(
        audit["transcript"][0]["host"],
        socket.to_str().unwrap(),
        "{audit:#}"
    );
}

/// A process the entry leaves behind, detached, in a session of its own and with an empty
/// environment (as a forger's helper that waits for tracer to exit and rewrites the audit would
/// be), does not outlive the audit: the sandbox's processes end with the entry, before the audit
/// is sealed.
#[test]
fn nothing_the_audited_code_starts_outlives_the_audit() {
    let entry = node_entry(
        "require('node:child_process').spawn(process.execPath,\n\
           ['-e', 'setTimeout(() => {}, 60000)', 'forger-helper-of-this-test'],\n\
           { detached: true, stdio: 'ignore', env: {} }).unref();",
        &faithful_observations(),
    );
    let tracer = case_of("conformance/shim.ndjson", &[("result/final.js", entry)]);
    let out = audit(tracer, "case/result/final.js");
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(audit["sandbox"]["inForce"], true, "{audit:#}");
    let survivors: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("forger-helper-of-this-test"))
        })
        .collect();
    for pid in &survivors {
        // SAFETY: kill with a pid and a signal.
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
    }
    assert!(
        survivors.is_empty(),
        "the helper outlived the audit\n{}",
        out.dump()
    );
}

/// `tracer audit … 2>&1 | head -1`: the reader of stderr goes away after one line; the audit
/// still ends with its own exit code (3: not conformant here), never a panic (101).
#[test]
fn an_audit_whose_stderr_reader_goes_away_keeps_its_exit_code() {
    let entry = node_entry("console.log('entry ran');", &faithful_observations());
    let tracer = case_of("conformance/shim.ndjson", &[("result/final.js", entry)]);
    let dir = tracer.workspace().to_owned();
    for _ in 0..3 {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "'{}' audit --case-dir case --entry case/result/final.js 2>&1 | head -1 >/dev/null; echo \"code=${{PIPESTATUS[0]}}\"",
                env!("CARGO_BIN_EXE_tracer")
            ))
            .current_dir(&dir)
            .env("TRACER_STATE_DIR", dir.join(".tracer-state"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("code=3") || stdout.contains("code=0"),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
