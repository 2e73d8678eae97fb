//! The audit records the environment itself, at access time, with the same probe as `tracer
//! record`: an entry that writes nothing of its own still has every dimension compared; a faithful
//! environment reaches `matched` (its reference trace recorded in the environment itself, by
//! tracer, and by a recorder that leaves `null` fields out); a wrong one is named; the script
//! computes the same with and without the probe.

use serde_json::{Value, json};

use crate::support::{Output, Tracer, fixtures, in_a_cleared_environment};

const HEADER: &str = r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1","recorder":{"name":"hand-written fixture","version":"0"},"startedAt":"2026-12-01T08:00:00Z"}"#;

/// A case with the shim environment (`result/final.js`), the page script (`page/app.js`) and the
/// reference trace `trace` (header included).
fn case(trace: &str) -> Tracer {
    let read =
        |name: &str| std::fs::read_to_string(fixtures().join("node-probe").join(name)).unwrap();
    Tracer::new()
        .file("case/ruyi-trace/logs/current.ndjson", trace)
        .file("case/result/final.js", read("shim-env.js"))
        .file("case/page/app.js", read("app.js"))
}

/// A case of a reference trace written by hand (`accesses`, its lines after the header), the
/// environment `final_js` builds and the page script `app_js` it runs.
fn hand_written_case(accesses: &[String], final_js: &str, app_js: &str) -> Tracer {
    let trace = [HEADER.to_owned()]
        .iter()
        .chain(accesses)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    Tracer::new()
        .file("case/ruyi-trace/logs/current.ndjson", trace)
        .file("case/result/final.js", final_js)
        .file("case/page/app.js", app_js)
}

/// A reference trace: the header, then `accesses` (its lines).
fn trace_of(accesses: &[&str]) -> String {
    std::iter::once(HEADER)
        .chain(accesses.iter().copied())
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// An entry that runs `script` as a page script in a happy-dom window at `https://example.test/`
/// and prints what the page leaves in `window.__out`.
fn happy_dom_page(comment: &str, script: &str) -> String {
    format!(
        "// {comment}\n\
         const {{ Window }} = require('happy-dom');\n\
         const window = new Window({{ url: 'https://example.test/', settings: {{ enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true }} }});\n\
         const script = window.document.createElement('script');\n\
         script.textContent = `{script}`;\n\
         window.document.body.appendChild(script);\n\
         window.happyDOM.waitUntilComplete().then(() => {{ console.log(window.__out); window.happyDOM.close(); }});\n"
    )
}

/// The audit's recorded accesses of `api`.
fn records_of(out: &Output, api: &str) -> Vec<Value> {
    read(out, "tmp/node-trace.ndjson")
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["api"] == api)
        .collect()
}

fn build_and_audit(tracer: Tracer) -> Output {
    build_and_audit_with(tracer, &[])
}

/// `env`: set for the audit (the environment's own switches).
fn build_and_audit_with(tracer: Tracer, env: &[(&str, &str)]) -> Output {
    let built = tracer
        .args(["contract", "build", "--case-dir", "case"])
        .run();
    built.assert_code(0);
    let mut audit = built.tracer();
    for (key, value) in env {
        audit = audit.env(key, value);
    }
    audit
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

fn read(out: &Output, path: &str) -> String {
    std::fs::read_to_string(out.workspace().join("case").join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}\n{}", out.dump()))
}

fn read_json(out: &Output, path: &str) -> Value {
    serde_json::from_str(&read(out, path)).unwrap()
}

/// The environment recorded by the audit itself, from a case whose contract knows nothing yet.
fn recorded_in_the_environment() -> String {
    let out = build_and_audit(case(&format!("{HEADER}\n")));
    // Everything the script touched is a host API the (empty) trace never recorded.
    out.assert_code(3);
    read(&out, "tmp/node-trace.ndjson")
}

/// A reference trace of one `navigator.userAgent` read, made by `app.js`.
fn user_agent_trace() -> String {
    format!(
        "{HEADER}\n{}\n",
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"navigator.userAgent","accessType":"get","receiver":"Navigator","owner":"Navigator.prototype","returnValue":"UA","stack":[{"url":"https://a.test/js/app.js","line":1,"column":10,"functionName":""}]}"#
    )
}

/// A case: [`user_agent_trace`], and an environment that is a shim on Node's own `globalThis` (a
/// `Navigator` whose `userAgent` is "UA") running the page script `app` as a CommonJS module,
/// then `after`.
fn globalthis_shim_case(after: &str, app: &str) -> Tracer {
    Tracer::new()
        .file("case/ruyi-trace/logs/current.ndjson", user_agent_trace())
        .file(
            "case/result/final.js",
            format!(
                "class Navigator {{ get userAgent() {{ return 'UA'; }} }}\n\
                 globalThis.Navigator = Navigator;\n\
                 globalThis.navigator = new Navigator();\n\
                 require('../page/app.js');\n{after}"
            ),
        )
        .file("case/page/app.js", app)
}

/// What the case's environment (`case/result/final.js`) prints under plain `node`, trimmed; it
/// must succeed there.
fn under_plain_node(tracer: &Tracer) -> String {
    let plain = in_a_cleared_environment("node")
        .arg(tracer.workspace().join("case/result/final.js"))
        .output()
        .expect("node runs");
    assert!(plain.status.success(), "{plain:?}");
    String::from_utf8_lossy(&plain.stdout).trim().to_owned()
}

/// Builds the contract and audits the case, whose page prints one JSON array (`[…]`): the page
/// computes the same under the probe as under plain `node`.
fn audited_as_under_plain_node(tracer: Tracer) -> Output {
    let plain = under_plain_node(&tracer);
    let out = build_and_audit(tracer);
    assert_eq!(
        out.stdout()
            .lines()
            .find(|l| l.starts_with('['))
            .unwrap_or_default(),
        plain,
        "{}",
        out.dump()
    );
    out
}

fn blocking_codes(diff: &Value) -> Vec<String> {
    diff["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {} {}", f["code"], f["api"], f["dimension"]))
        .collect()
}

#[test]
fn an_entry_that_writes_nothing_is_recorded_at_access_time_and_a_faithful_one_matches() {
    let trace = recorded_in_the_environment();
    let header: Value = serde_json::from_str(trace.lines().next().unwrap()).unwrap();
    assert_eq!(header["recorder"]["runtime"], "node");
    for api in [
        "navigator.userAgent",
        "navigator.webdriver",
        "screen.width",
        "document.hasFocus",
        "document.title",
    ] {
        assert!(
            trace.contains(&format!(r#""api":"{api}""#)),
            "{api} recorded:\n{trace}"
        );
    }
    // Only the page script's accesses: the shim's own setup code touched nothing recorded.
    assert!(!trace.contains("shim-setup.js"), "{trace}");

    // The same environment audited against what it was recorded doing: matched, although the
    // entry reports nothing and closes its window before it exits.
    let out = build_and_audit(case(&trace));
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(
        diff["matched"],
        true,
        "{:#?}\n{}",
        blocking_codes(&diff),
        out.dump()
    );
    out.assert_code(0);
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let contract = read_json(&out, "notes/trace-runtime-contract.json");
    // Every dimension of every item was compared from the tool's own recording.
    for item in contract["items"].as_array().unwrap() {
        let observation = audit["observations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["id"] == item["id"] && o["source"] == "node-trace")
            .unwrap_or_else(|| panic!("no recording of {}", item["api"]));
        for dimension in item["expected"].as_object().unwrap().keys() {
            assert!(
                observation["observations"].get(dimension).is_some(),
                "{} {dimension}",
                item["api"]
            );
        }
    }
    let recording = &audit["recording"];
    assert!(
        recording["accesses"].as_u64().unwrap() >= 5,
        "{recording:#}"
    );
    let probed: Vec<&Value> = recording["realms"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["probedBefore"].is_string())
        .collect();
    assert_eq!(probed.len(), 1, "one realm probed: {recording:#}");
    assert_eq!(
        probed[0]["isDefault"], false,
        "the vm context, not Node's own"
    );
    // The shim's window has no `performance`: a page that marks its end for tracer would throw
    // there, which no item can show (tracer's marks are in no trace). A risk, not a block.
    assert!(
        risk_codes(&diff).contains(&"NO_PERFORMANCE_MARK".to_owned()),
        "{diff:#}"
    );
}

/// The codes of `diff`'s risks.
fn risk_codes(diff: &Value) -> Vec<String> {
    diff["risks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["code"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_trace_from_a_recorder_that_leaves_null_fields_out_still_matches() {
    let trace = recorded_in_the_environment();
    // What JSON.stringify of a descriptor would write: no `"set":null`, no `null` at any depth.
    fn strip(value: &mut Value) {
        if let Value::Object(map) = value {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(strip);
        }
    }
    let lean: Vec<String> = trace
        .lines()
        .map(|line| {
            let mut value: Value = serde_json::from_str(line).unwrap();
            if value["type"] == "access"
                && let Some(d) = value.get_mut("descriptor")
            {
                strip(d);
            }
            value.to_string()
        })
        .collect();
    let lean = lean.join("\n") + "\n";
    assert!(!lean.contains(r#""set":null"#));
    let out = build_and_audit(case(&lean));
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(diff["matched"], true, "{:#?}", blocking_codes(&diff));
    out.assert_code(0);
}

#[test]
fn a_wrong_owner_is_found_at_access_time_with_the_value_the_script_got() {
    let trace = recorded_in_the_environment();
    let out = build_and_audit_with(case(&trace), &[("SHIM_OWN_UA", "1")]);
    out.assert_code(3);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let found = |dimension: &str| {
        diff["blocking"].as_array().unwrap().iter().any(|f| {
            f["code"] == "DIMENSION_MISMATCH"
                && f["api"] == "navigator.userAgent"
                && f["dimension"] == dimension
        })
    };
    assert!(found("owner"), "{:#?}", blocking_codes(&diff));
    assert!(found("returnValue"), "{:#?}", blocking_codes(&diff));
    // Nothing else is blamed: the other items were recorded and agree.
    let others: Vec<String> = blocking_codes(&diff)
        .into_iter()
        .filter(|c| !c.contains("navigator.userAgent"))
        .collect();
    assert!(others.is_empty(), "{others:#?}");
}

#[test]
fn the_script_computes_the_same_with_and_without_the_probe() {
    let trace = recorded_in_the_environment();
    let tracer = case(&trace);
    let plain = under_plain_node(&tracer);
    let audited = build_and_audit(tracer);
    audited.assert_code(0);
    let seen: Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(
        seen["uaGetter"],
        r#"get userAgent() { return "Mozilla/5.0 (X11; Linux x86_64) Shim/1.0"; }"#,
        "the fixture fingerprints what it should"
    );
    let line = audited
        .stdout()
        .lines()
        .find(|l| l.starts_with('{'))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("the script's line:\n{}", audited.dump()));
    assert_eq!(line, plain, "what the script computed, probed and not");
}

#[test]
fn a_shim_on_globalthis_is_recorded_in_node_s_own_context_and_a_node_global_is_a_leak() {
    // The shim patches Node's main context; the page script is a CommonJS module the contract
    // names (`app.js` in its stack sample), which reads Node's `process`.
    let out = build_and_audit(globalthis_shim_case(
        "// The shim's own reads, after the script: not the script's.\n\
         for (let i = 0; i < 5; i++) navigator.userAgent;\n",
        "var ua = navigator.userAgent;\nvar leak = typeof process !== 'undefined' ? process.version : 'none';\n",
    ));
    out.assert_code(3);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let codes = blocking_codes(&diff);
    assert_eq!(codes.len(), 1, "{codes:#?}");
    assert!(codes[0].contains("NODE_LEAK"), "{codes:#?}");
    // Node's own context has `performance.mark`.
    assert!(!risk_codes(&diff).contains(&"NO_PERFORMANCE_MARK".to_owned()));
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(
        audit["recording"]["accesses"], 3,
        "{:#}",
        audit["recording"]
    );
    assert_eq!(audit["recording"]["leftOut"], 5, "the shim's own reads");
    // Each counted under the script that made it, a loop's repeats too.
    let by = audit["recording"]["leftOutBy"].as_object().unwrap();
    assert_eq!(by.len(), 1, "{by:#?}");
    let (script, count) = by.iter().next().unwrap();
    assert!(script.ends_with("case/result/final.js"), "{script}");
    assert_eq!(count, 5, "{by:#?}");
}

#[test]
fn a_record_s_frames_are_the_script_s_even_through_a_built_in_function() {
    // The access is made in a callback that `Array.prototype.map` calls: between the probe's trap
    // and the script's caller there are the callback's frame and the built-in's, which the record
    // leaves out (the probe first captures only as many frames as a record keeps, and again,
    // deeper, when some were left out).
    let app = "function viaBuiltin() {\n  return [navigator].map(function pick(n) { return n.userAgent; })[0];\n}\nvar ua = viaBuiltin();\n";
    let out = build_and_audit(globalthis_shim_case("", app));
    let recorded = read(&out, "tmp/node-trace.ndjson");
    let line: Value = recorded
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["api"] == "navigator.userAgent")
        .unwrap_or_else(|| panic!("no record of the read:\n{recorded}\n{}", out.dump()));
    let frames: Vec<String> = line["stack"]
        .as_array()
        .unwrap_or_else(|| panic!("no stack: {line}"))
        .iter()
        .map(|f| {
            let url = f["url"].as_str().unwrap_or("");
            format!(
                "{} {}:{}:{}",
                f["functionName"].as_str().unwrap_or(""),
                url.rsplit('/').next().unwrap_or(url),
                f["line"],
                f["column"]
            )
        })
        .collect();
    // 1-based: `n.userAgent` in `pick` on line 2, the `map` call in `viaBuiltin` on line 2.
    // And the top-level call of `viaBuiltin` on line 4 (an audit's record keeps three frames).
    let read_at = app.lines().nth(1).unwrap().find("n.userAgent").unwrap() + 3;
    let map_at = app.lines().nth(1).unwrap().find(".map(").unwrap() + 2;
    assert_eq!(
        frames,
        [
            format!("pick app.js:2:{read_at}"),
            format!("viaBuiltin app.js:2:{map_at}"),
            " app.js:4:10".to_owned()
        ],
        "{line}"
    );
}

#[test]
fn the_environment_s_own_reads_leave_brief_and_are_counted_under_its_script() {
    // The probe knows the environment's scripts (sent by folder): a read whose nearest frame is one
    // of them leaves as a brief record, its stack and place only, and the tool counts it there.
    // Seen on the wire (`TRACER_DEBUG_CDP=1` prints each CDP message on stderr).
    let out = build_and_audit_with(
        globalthis_shim_case(
            "for (let i = 0; i < 3; i++) navigator.userAgent;\n",
            "var ua = navigator.userAgent;\n",
        ),
        &[("TRACER_DEBUG_CDP", "1")],
    );
    let brief = out
        .stderr()
        .lines()
        .filter(|l| l.contains("Runtime.bindingCalled"))
        .map(|l| l.matches(r#"\"brief\":1"#).count())
        .sum::<usize>();
    assert_eq!(brief, 3, "the environment's three reads\n{}", out.dump());
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(audit["recording"]["leftOut"], 3, "{:#}", audit["recording"]);
}

/// The page script `app` run in a small `vm` shim (a `Navigator` whose `userAgent` is "UA"), by
/// plain `node` and under the audit: the line the script printed each time (its `seen`, as JSON),
/// and the number of frames of each `navigator.userAgent` record.
fn page_in_a_vm_shim(app: &str) -> (String, String, Vec<usize>) {
    let tracer = Tracer::new()
        .file("case/ruyi-trace/logs/current.ndjson", user_agent_trace())
        .file(
            "case/result/final.js",
            "const fs = require('node:fs');\n\
             const path = require('node:path');\n\
             const vm = require('node:vm');\n\
             const context = vm.createContext({});\n\
             vm.runInContext(`class Navigator { get userAgent() { return 'UA'; } }\n\
               globalThis.Navigator = Navigator; globalThis.navigator = new Navigator();`, context, { filename: 'shim-setup.js' });\n\
             const page = path.join(__dirname, '..', 'page', 'app.js');\n\
             vm.runInContext(fs.readFileSync(page, 'utf8'), context, { filename: page });\n\
             console.log(JSON.stringify(context.seen));\n",
        )
        .file("case/page/app.js", app);
    let plain = under_plain_node(&tracer);
    let out = build_and_audit(tracer);
    let audited = out
        .stdout()
        .lines()
        .find(|l| l.starts_with('{'))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("the script's line:\n{}", out.dump()));
    let stacks = read(&out, "tmp/node-trace.ndjson")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["api"] == "navigator.userAgent")
        .map(|l| l["stack"].as_array().map_or(0, Vec::len))
        .collect();
    (plain, audited, stacks)
}

#[test]
fn a_page_s_own_global_error_is_neither_read_nor_needed_by_the_probe_s_stacks() {
    // Node formats a stack through its own callback, which looks up the realm's global `Error`
    // (not the realm's intrinsic one, as V8 does in a browser): a page that makes that global an
    // accessor would see the probe's every record read it, and one that replaces it would leave
    // records without a stack.
    let (plain, audited, stacks) = page_in_a_vm_shim(
        "var seen = { reads: 0, ua: [] };\n\
         var RealError = Error;\n\
         Object.defineProperty(globalThis, 'Error', { get: function () { seen.reads++; return RealError; }, configurable: true });\n\
         for (var i = 0; i < 3; i++) seen.ua.push(navigator.userAgent);\n\
         Object.defineProperty(globalThis, 'Error', { value: function Error() {}, configurable: true, writable: true });\n\
         seen.ua.push(navigator.userAgent);\n\
         seen.kept = typeof Object.getOwnPropertyDescriptor(globalThis, 'Error').value;\n",
    );
    assert_eq!(
        plain,
        r#"{"reads":0,"ua":["UA","UA","UA","UA"],"kept":"function"}"#
    );
    assert_eq!(audited, plain, "what the script computed, probed and not");
    assert_eq!(stacks.len(), 4);
    assert!(
        stacks.iter().all(|&n| n > 0),
        "a record without its stack: {stacks:?}"
    );
}

#[test]
fn a_page_s_own_error_hooks_are_neither_called_nor_left_changed_by_the_probe() {
    // `Error.prepareStackTrace` and `Error.stackTraceLimit` as accessors are a known way for a page
    // to notice that something formats stacks; and a page can list `Error`'s own keys.
    let (plain, audited, stacks) = page_in_a_vm_shim(
        "var seen = { calls: 0 };\n\
         var ua = navigator.userAgent;\n\
         seen.keys = Object.getOwnPropertyNames(Error).join(',');\n\
         Object.defineProperty(Error, 'stackTraceLimit', { get: function () { seen.calls++; return 10; }, set: function () { seen.calls++; }, configurable: true });\n\
         Object.defineProperty(Error, 'prepareStackTrace', { get: function () { seen.calls++; return undefined; }, configurable: true });\n\
         ua = navigator.userAgent;\n\
         seen.hooks = ['prepareStackTrace', 'stackTraceLimit'].map(function (k) { return typeof Object.getOwnPropertyDescriptor(Error, k).get; }).join(',');\n",
    );
    assert_eq!(
        plain,
        r#"{"calls":0,"keys":"length,name,prototype,captureStackTrace,stackTraceLimit","hooks":"function,function"}"#
    );
    assert_eq!(audited, plain, "what the script computed, probed and not");
    assert_eq!(stacks, [3, 3], "each read's record keeps its frames");
}

/// jsdom, when the example's `node_modules` are there (`.ci/run` installs them; skipped, saying
/// so, without).
/// A reference trace that names each `(api, accessType, receiver)`, one access each, made by a
/// script at `https://example.test/app.js`: what the probe watches in the environment.
fn naming_trace(accesses: &[(&str, &str, &str)]) -> String {
    let mut trace = format!("{HEADER}\n");
    for (seq, (api, access, receiver)) in accesses.iter().enumerate() {
        trace.push_str(&format!(
            "{{\"type\":\"access\",\"seq\":{},\"realm\":\"main\",\"phase\":\"init\",\"api\":\"{api}\",\"accessType\":\"{access}\",\"receiver\":\"{receiver}\",\"stack\":[{{\"url\":\"https://example.test/app.js\",\"line\":1,\"column\":1}}]}}\n",
            seq + 1
        ));
    }
    trace
}

fn jsdom_modules() -> Option<std::path::PathBuf> {
    let modules =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/jsdom/node_modules");
    if modules.join("jsdom").is_dir() {
        return Some(modules);
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: needs {} (`npm ci` in examples/jsdom)",
        modules.display()
    );
    None
}

/// A case of `trace` and `final_js`, with `modules` (the installed jsdom and happy-dom) linked in.
fn case_in(modules: &std::path::Path, trace: &str, final_js: &str) -> Tracer {
    let tracer = Tracer::new()
        .file("case/ruyi-trace/logs/current.ndjson", trace)
        .file("case/result/final.js", final_js);
    std::os::unix::fs::symlink(modules, tracer.workspace().join("node_modules")).unwrap();
    tracer
}

/// A case whose environment is `final_js` under jsdom, against an empty trace; `None` (skipped,
/// saying so) without jsdom.
fn jsdom_case(final_js: &str) -> Option<Tracer> {
    let modules = jsdom_modules()?;
    Some(case_in(&modules, &format!("{HEADER}\n"), final_js))
}

#[test]
fn an_iframe_window_is_its_own_realm_and_recorded_too() {
    let Some(tracer) = jsdom_case(
        "// jsdom with an iframe whose window runs code of the page's.\n\
             const { JSDOM } = require('jsdom');\n\
             const dom = new JSDOM(`<body><script>var a = navigator.userAgent;</script><iframe id=\"f\"></iframe><script>\n\
             document.getElementById('f').contentWindow.eval('var b = navigator.userAgent; var c = screen.width;');\n\
             </script></body>`, { url: 'https://example.test/', runScripts: 'dangerously' });\n\
             dom.window.close();\n",
    ) else {
        return;
    };
    let out = build_and_audit(tracer);
    let trace = read(&out, "tmp/node-trace.ndjson");
    let realms: Vec<(String, String)> = trace
        .lines()
        .skip(1)
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            (
                v["realm"].as_str().unwrap().to_owned(),
                v["api"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for wanted in [
        ("main", "navigator.userAgent"),
        ("iframe", "navigator.userAgent"),
        ("iframe", "screen.width"),
    ] {
        assert!(
            realms.iter().any(|(r, a)| r == wanted.0 && a == wanted.1),
            "{wanted:?} in {realms:?}"
        );
    }
}

/// jsdom runs some 60 scripts in a window before its document exists: they are not each paused
/// before (the pause before every script gives way, after the window's first, to a breakpoint
/// whose condition V8 evaluates): the audit pauses a handful of times, and the page's first
/// script still has the probe before it.
#[test]
fn a_window_s_own_scripts_before_its_document_cost_no_pause_each() {
    let Some(tracer) = jsdom_case(
        "// jsdom running one page script.\n\
             const { JSDOM } = require('jsdom');\n\
             const dom = new JSDOM(`<body><script>var a = navigator.userAgent;</script></body>`, { url: 'https://example.test/', runScripts: 'dangerously' });\n\
             dom.window.close();\n",
    ) else {
        return;
    };
    let out = build_and_audit(tracer);
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let recording = &audit["recording"];
    let window = recording["realms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["isDefault"] == false)
        .unwrap_or_else(|| panic!("{recording:#}"));
    assert_eq!(
        window["probedBefore"], "https://example.test/",
        "{recording:#}"
    );
    // Those scripts are still counted as having run before the probe, though none was paused.
    assert!(
        window["scriptsBefore"].as_u64().unwrap() >= 20,
        "{recording:#}"
    );
    let pauses = recording["pauses"].as_u64().unwrap();
    assert!(pauses <= 5, "{pauses} pauses: {recording:#}");
    let trace = read(&out, "tmp/node-trace.ndjson");
    assert!(trace.contains(r#""api":"navigator.userAgent""#), "{trace}");
}

#[test]
fn jsdom_s_interface_functions_read_as_their_own_source_under_the_probe() {
    // jsdom's interfaces are made by its own modules, in Node's realm: their toString is that
    // realm's, which the probe must disguise too.
    let Some(tracer) = jsdom_case(
        "// jsdom; the page prints what it sees of a getter and a method.\n\
             const { JSDOM } = require('jsdom');\n\
             const dom = new JSDOM(`<body><script>\n\
             var d = Object.getOwnPropertyDescriptor(Navigator.prototype, 'userAgent');\n\
             window.__out = JSON.stringify([d.get.toString(), String(document.createElement), Object.getPrototypeOf(d.get).toString.toString(), d.get.name, d.get.length, navigator.userAgent]);\n\
             </script></body>`, { url: 'https://example.test/', runScripts: 'dangerously' });\n\
             console.log(dom.window.__out);\n\
             dom.window.close();\n",
    ) else {
        return;
    };
    let plain = under_plain_node(&tracer);
    assert!(plain.contains("get userAgent() {"), "{plain}");
    let out = build_and_audit(tracer);
    let audited = out.stdout();
    let line = audited
        .lines()
        .find(|l| l.starts_with('['))
        .unwrap_or_default();
    assert_eq!(line, plain, "{}", out.dump());
    let trace = read(&out, "tmp/node-trace.ndjson");
    assert!(trace.contains(r#""api":"navigator.userAgent""#), "{trace}");
}

#[test]
fn a_program_making_many_throwaway_contexts_runs_as_without_the_probe() {
    // Contexts made and dropped by the hundred (with and without a sandbox): none is a window, so
    // none gets the probe, and the program must not crash or change (evaluating in a collected
    // context once crashed Node).
    let out = build_and_audit(
        Tracer::new()
            .file("case/ruyi-trace/logs/current.ndjson", format!("{HEADER}\n"))
            .file(
                "case/result/final.js",
                "// vm contexts made and dropped in a loop.\n\
                 const vm = require('node:vm');\n\
                 let s = 0;\n\
                 for (let i = 0; i < 300; i++) s += vm.runInNewContext('1 + ' + i);\n\
                 for (let i = 0; i < 300; i++) s += vm.runInNewContext('x + 1', { x: i });\n\
                 console.log('sum ' + s);\n",
            ),
    );
    assert!(out.stdout().contains("sum 90300"), "{}", out.dump());
    let session = out.session();
    assert_eq!(session.exit_code, Some(0), "{}", out.dump());
}

#[test]
fn a_new_object_on_every_read_where_the_browser_keeps_one_is_a_finding() {
    // The browser returned one PluginArray for both reads (one `$object` id); the shim builds a new
    // one per read.
    let read = |seq: u64| {
        format!(
            r#"{{"type":"access","seq":{seq},"realm":"main","realmId":"main#0","phase":"init","api":"navigator.plugins","accessType":"get","receiver":"Navigator","returnValue":{{"$object":"PluginArray","id":"o5"}}}}"#
        )
    };
    let trace = format!("{HEADER}\n{}\n{}\n", read(1), read(2));
    let shim = "// A shim whose navigator.plugins is a new object on every read.\n\
                const vm = require('node:vm');\n\
                const context = vm.createContext({});\n\
                vm.runInContext(`\n\
                  class PluginArray {}\n\
                  class Navigator { get plugins() { return new PluginArray(); } }\n\
                  globalThis.PluginArray = PluginArray;\n\
                  globalThis.Navigator = Navigator;\n\
                  globalThis.navigator = new Navigator();\n\
                  globalThis.document = {};\n\
                `, context, { filename: 'shim-setup.js' });\n\
                vm.runInContext('navigator.plugins; navigator.plugins;', context, { filename: 'app.js' });\n";
    let out = build_and_audit(
        Tracer::new()
            .file("case/ruyi-trace/logs/current.ndjson", trace)
            .file("case/result/final.js", shim),
    );
    out.assert_code(3);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let identity = diff["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["dimension"] == "identity")
        .unwrap_or_else(|| panic!("{:#?}", blocking_codes(&diff)));
    assert_eq!(identity["api"], "navigator.plugins");
    assert_eq!(identity["expected"], serde_json::json!(["one object"]));
    assert_eq!(identity["observed"], serde_json::json!(["several objects"]));
}

/// An object kept per receiver is one object, however many receivers the environment's reads span
/// (DOMPurify read `attributes` of one form in Chromium and of two in jsdom, which kept more forms:
/// once "several objects" against the browser's "one object").
#[test]
fn one_object_kept_per_receiver_is_no_identity_difference() {
    let read = |seq: u64| {
        format!(
            r#"{{"type":"access","seq":{seq},"realm":"main","realmId":"main#0","phase":"init","api":"Element.prototype.attributes","accessType":"get","receiver":"HTMLParagraphElement","returnValue":{{"$object":"NamedNodeMap","id":"o5"}}}}"#
        )
    };
    let trace = format!("{HEADER}\n{}\n{}\n", read(1), read(2));
    let shim = |kept: &str| {
        format!(
            "// A shim whose elements' attributes are {kept}.\n\
             const vm = require('node:vm');\n\
             const context = vm.createContext({{}});\n\
             vm.runInContext(`\n\
               class NamedNodeMap {{}}\n\
               const maps = new WeakMap();\n\
               class Element {{ get attributes() {{ {getter} }} }}\n\
               class HTMLParagraphElement extends Element {{}}\n\
               Object.assign(globalThis, {{ NamedNodeMap, Element, HTMLParagraphElement }});\n\
               globalThis.navigator = {{}};\n\
               globalThis.document = {{}};\n\
             `, context, {{ filename: 'shim-setup.js' }});\n\
             vm.runInContext('const a = new HTMLParagraphElement(), b = new HTMLParagraphElement(); a.attributes; a.attributes; b.attributes; b.attributes;', context, {{ filename: 'app.js' }});\n",
            getter = if kept == "kept per element" {
                "if (!maps.has(this)) maps.set(this, new NamedNodeMap()); return maps.get(this);"
            } else {
                "return new NamedNodeMap();"
            }
        )
    };
    for (kept, differs) in [("kept per element", false), ("new on every read", true)] {
        let out = build_and_audit(
            Tracer::new()
                .file("case/ruyi-trace/logs/current.ndjson", trace.clone())
                .file("case/result/final.js", shim(kept)),
        );
        let diff = read_json(&out, "notes/trace-runtime-diff.json");
        let identity = diff["blocking"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["dimension"] == "identity");
        assert_eq!(
            identity.is_some(),
            differs,
            "{kept}: {:#?}",
            blocking_codes(&diff)
        );
        let observed = read_json(&out, "tmp/node-trace-runtime-audit.json");
        let attributes = observed["observations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["api"] == "Element.prototype.attributes")
            .unwrap_or_else(|| panic!("{kept}: {:#?}", observed["observations"]));
        assert_eq!(
            attributes["observations"]["identity"],
            serde_json::json!(["several objects"]),
            "{kept}"
        );
    }
}

/// What the probe records of a property's definition is the environment's own, as the script
/// would see it without the probe: the getter's or method's name, length, `native` and source
/// text, measured here in a plain run of the same environment. For jsdom (JavaScript accessors
/// and methods made in Node's realm), happy-dom (classes of its own) and a `vm` shim (a window
/// made by hand in a context).
#[test]
fn recorded_definitions_are_the_environment_s_own_in_jsdom_happy_dom_and_a_vm_shim() {
    let Some(modules) = jsdom_modules() else {
        return;
    };
    assert!(
        modules.join("happy-dom").is_dir(),
        "examples/jsdom/node_modules lacks happy-dom: run `npm ci` in examples/jsdom"
    );
    // The page's script reads each property; `facts(window)` measures each from outside.
    let app = "var seen = [document.cookie, navigator.userAgent, document.getElementById('x'), \
               document.title, document.createElement('div').textContent];";
    let facts = r#"
function facts(window) {
  const toString = window.Function.prototype.toString;
  const fn = (f) => {
    if (typeof f !== 'function') return null;
    const source = toString.call(f);
    return { name: f.name, length: f.length, native: /\{\s*\[native code\]\s*\}\s*$/.test(source), source };
  };
  const at = (object, key) => {
    for (let o = object; o !== null; o = Object.getPrototypeOf(o)) {
      const d = Object.getOwnPropertyDescriptor(o, key);
      if (d) return 'value' in d ? { value: fn(d.value) } : { get: fn(d.get), set: fn(d.set) };
    }
    return null;
  };
  const doc = window.document;
  return {
    'document.cookie': at(doc, 'cookie'),
    'navigator.userAgent': at(window.navigator, 'userAgent'),
    'document.getElementById': at(doc, 'getElementById'),
    'document.title': at(doc, 'title'),
    'Node.prototype.textContent': at(doc.createElement('div'), 'textContent'),
  };
}
"#;
    let environments = [
        (
            "jsdom",
            format!(
                "{facts}\nconst {{ JSDOM }} = require('jsdom');\n\
                 const dom = new JSDOM(`<body><p id=\"x\"></p><script>{app}</script></body>`, {{ url: 'https://example.test/', runScripts: 'dangerously' }});\n\
                 console.log(JSON.stringify(facts(dom.window)));\ndom.window.close();\n"
            ),
        ),
        (
            "happy-dom",
            format!(
                "{facts}\nconst {{ Window }} = require('happy-dom');\n\
                 const window = new Window({{ url: 'https://example.test/', settings: {{ enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true }} }});\n\
                 window.document.body.innerHTML = '<p id=\"x\"></p>';\n\
                 const script = window.document.createElement('script');\n\
                 script.textContent = {app:?};\nwindow.document.body.appendChild(script);\n\
                 console.log(JSON.stringify(facts(window)));\nwindow.happyDOM.close();\n"
            ),
        ),
        (
            "vm shim",
            format!(
                "{facts}\nconst vm = require('vm');\nconst context = vm.createContext({{}});\n\
                 vm.runInContext(`class Node {{ get textContent() {{ return ''; }} }}\n\
                 class Document extends Node {{ get cookie() {{ return ''; }} get title() {{ return 't'; }}\n\
                 getElementById(id) {{ return null; }} createElement(name) {{ return new Node(); }} }}\n\
                 class Navigator {{ get userAgent() {{ return 'shim/1'; }} }}\n\
                 globalThis.document = new Document(); globalThis.navigator = new Navigator();`, context, {{ filename: 'shim-setup.js' }});\n\
                 vm.runInContext({app:?}, context, {{ filename: 'https://example.test/app.js' }});\n\
                 console.log(JSON.stringify(facts(vm.runInContext('globalThis', context))));\n"
            ),
        ),
    ];
    // The reference names the members, so that the probe watches them.
    let trace = naming_trace(&[
        ("document.cookie", "get", "HTMLDocument"),
        ("navigator.userAgent", "get", "Navigator"),
        ("document.getElementById", "call", "HTMLDocument"),
        ("document.title", "get", "HTMLDocument"),
        ("document.createElement", "call", "HTMLDocument"),
        ("Node.prototype.textContent", "get", "HTMLDivElement"),
    ]);
    for (name, final_js) in environments {
        let tracer = case_in(&modules, &trace, &final_js);
        let plain = in_a_cleared_environment("node")
            .arg(tracer.workspace().join("case/result/final.js"))
            .current_dir(tracer.workspace())
            .output()
            .expect("node runs");
        let plain: Value = serde_json::from_slice(
            plain
                .stdout
                .split(|b| *b == b'\n')
                .find(|l| l.starts_with(b"{"))
                .unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&plain.stderr)));
        let out = build_and_audit(tracer);
        let trace = read(&out, "tmp/node-trace.ndjson");
        let records: Vec<Value> = trace
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let source_of = |v: &Value| -> String {
            // A long source travels as its digest.
            match v.get("$string") {
                Some(digest) => digest.as_str().unwrap().to_owned(),
                None => v.as_str().unwrap_or_default().to_owned(),
            }
        };
        let digest = |text: &str| {
            use sha2::Digest as _;
            let text = text.to_owned();
            if text.chars().count() > 500 {
                format!(
                    "sha256:{}",
                    hex::encode(sha2::Sha256::digest(text.as_bytes()))
                )
            } else {
                text
            }
        };
        for (api, want) in plain.as_object().unwrap() {
            let key = api.rsplit('.').next().unwrap();
            let record = records
                .iter()
                .find(|r| {
                    r["api"]
                        .as_str()
                        .is_some_and(|a| a.rsplit('.').next() == Some(key))
                })
                .unwrap_or_else(|| panic!("{name}: no record of {api} in {trace}"));
            let d = &record["descriptor"];
            for part in ["get", "set", "value"] {
                let Some(want) = want.get(part).filter(|w| !w.is_null()) else {
                    continue;
                };
                let got = &d[part];
                assert_eq!(got["native"], want["native"], "{name} {api} {part}: {d:#}");
                assert_eq!(got["name"], want["name"], "{name} {api} {part}: {d:#}");
                assert_eq!(got["length"], want["length"], "{name} {api} {part}: {d:#}");
                if part == "value" {
                    // A method's source is not recorded (its `native` says what it is).
                    continue;
                }
                assert_eq!(
                    source_of(&got["source"]),
                    digest(want["source"].as_str().unwrap()),
                    "{name} {api} {part}: {d:#}"
                );
            }
        }
    }
}

/// A frame the page drives from outside (no script ever runs in it: a font or canvas measure in
/// an iframe) is entered when the page first reaches its window, whichever way (`first`: the
/// frame's document, or its window, as FingerprintJS does), and recorded as its own realm; no
/// path goes through jsdom's `_top` (the parent's window) there; and the page computes the same as
/// without the probe.
fn an_iframe_driven_from_outside_reached_by(first: &str) {
    let final_js = format!(
        "// jsdom; the page measures in an iframe it never runs a script in.\n\
         const {{ JSDOM }} = require('jsdom');\n\
         const dom = new JSDOM(`<body><script>\n\
         var f = document.createElement('iframe'); document.body.appendChild(f);\n\
         var d = {first};\n\
         var c = d.createElement('canvas');\n\
         window.__out = JSON.stringify([typeof c.getContext, f.contentWindow.navigator.userAgent.length > 0, d.title]);\n\
         </script></body>`, {{ url: 'https://example.test/', runScripts: 'dangerously' }});\n\
         console.log(dom.window.__out);\n\
         dom.window.close();\n"
    );
    let Some(tracer) = jsdom_case(&final_js) else {
        return;
    };
    // The reference names what the page touches (the frame's members in the frame's realm).
    let line = |seq: u32, realm: &str, api: &str, access: &str, receiver: &str| {
        format!(
            "{{\"type\":\"access\",\"seq\":{seq},\"realm\":\"{realm}\",\"phase\":\"init\",\"api\":\"{api}\",\"accessType\":\"{access}\",\"receiver\":\"{receiver}\"}}\n"
        )
    };
    let trace = [
        HEADER.to_owned() + "\n",
        line(
            1,
            "main",
            "HTMLIFrameElement.prototype.contentDocument",
            "get",
            "HTMLIFrameElement",
        ),
        line(
            2,
            "iframe",
            "document.createElement",
            "call",
            "HTMLDocument",
        ),
        line(
            3,
            "main",
            "HTMLIFrameElement.prototype.contentWindow",
            "get",
            "HTMLIFrameElement",
        ),
        line(4, "iframe", "navigator.userAgent", "get", "Navigator"),
    ]
    .concat();
    let out =
        audited_as_under_plain_node(tracer.file("case/ruyi-trace/logs/current.ndjson", trace));
    let trace = read(&out, "tmp/node-trace.ndjson");
    let iframe: Vec<String> = trace
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["realm"] == "iframe")
        .map(|v| v["api"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        iframe.iter().any(|a| a == "document.createElement"),
        "{iframe:?}"
    );
    assert!(
        iframe.iter().any(|a| a == "navigator.userAgent"),
        "{iframe:?}"
    );
    assert!(iframe.iter().all(|a| !a.starts_with("_top")), "{iframe:?}");
    // Every item observed: nothing is left `probe-blind` in a realm the probe never entered.
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert!(
        diff["blocking"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["cause"] != "probe-blind"),
        "{:#}",
        diff["blocking"]
    );
}

#[test]
fn an_iframe_driven_from_outside_through_its_document_is_recorded_too() {
    an_iframe_driven_from_outside_reached_by("f.contentDocument");
}

#[test]
fn an_iframe_driven_from_outside_through_its_window_is_recorded_too() {
    an_iframe_driven_from_outside_reached_by("f.contentWindow.document");
}

/// happy-dom makes its interfaces once, in Node's realm, for every window: a frame's window the
/// page drives from outside is entered, but a member the page's window's probe already wraps is
/// left to it (each access recorded once, never twice), and the check says why the frame's item
/// on such a member has no record of its own there; what the frame's probe itself reads through
/// the page's window's wrappers as it goes in (the window's `navigator` and `screen`, names the
/// reference holds) is the tool's, counted and never written; the page computes the same.
#[test]
fn a_frame_sharing_its_classes_with_the_page_s_window_records_each_access_once() {
    let Some(tracer) = jsdom_case(&happy_dom_page(
        "happy-dom; the page measures in an iframe it never runs a script in.",
        "var f = document.createElement('iframe');\n\
         f.srcdoc = '<!doctype html><title>t</title>';\n\
         f.addEventListener('load', function () {\n\
           var d = f.contentWindow.document;\n\
           var c = d.createElement('canvas');\n\
           window.__out = JSON.stringify([typeof c.getContext, f.contentWindow.navigator.userAgent.length > 0, d.title]);\n\
         });\n\
         document.body.appendChild(f);\n",
    )) else {
        return;
    };
    let trace = [
        HEADER.to_owned(),
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"HTMLIFrameElement.prototype.contentWindow","accessType":"get","receiver":"HTMLIFrameElement"}"#.to_owned(),
        r#"{"type":"access","seq":2,"realm":"iframe","phase":"init","api":"document.createElement","accessType":"call","receiver":"HTMLDocument"}"#.to_owned(),
        r#"{"type":"access","seq":3,"realm":"main","phase":"init","api":"navigator","accessType":"get","receiver":"Window"}"#.to_owned(),
        r#"{"type":"access","seq":4,"realm":"main","phase":"init","api":"screen","accessType":"get","receiver":"Window"}"#.to_owned(),
    ]
    .join("\n")
        + "\n";
    let out =
        audited_as_under_plain_node(tracer.file("case/ruyi-trace/logs/current.ndjson", trace));
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let realms = audit["recording"]["realms"].as_array().unwrap();
    let frame = realms
        .iter()
        .find(|r| r["kind"] == "iframe")
        .unwrap_or_else(|| panic!("the frame's window was never entered: {realms:#?}"));
    assert!(
        frame["shared"]
            .as_array()
            .is_some_and(|s| s.iter().any(|p| p == "document.createElement")),
        "{frame:#}"
    );
    // The canvas was made once, so it is recorded once.
    let trace = read(&out, "tmp/node-trace.ndjson");
    let canvases = trace
        .lines()
        .filter(|l| l.contains("createElement") && l.contains(r#""args":["canvas"]"#))
        .count();
    assert_eq!(canvases, 1, "{trace}");
    // Nothing the frame's probe read is written (the tool's empty script in the frame is the
    // nearest frame of such a read), and what it read is counted under the probe's own name.
    assert!(
        !trace.contains(r#""url":"","line":1,"column":1"#),
        "{trace}"
    );
    let by = audit["recording"]["leftOutBy"].as_object().unwrap();
    assert!(
        by.keys().any(|url| url.starts_with("tracer://probe.js")),
        "{by:#?}"
    );
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let finding = diff["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["api"] == "document.createElement" && f["realm"] == "iframe")
        .unwrap_or_else(|| panic!("{:#}", diff["blocking"]));
    assert_eq!(finding["cause"], "probe-blind", "{finding:#}");
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("every window of the environment shares"),
        "{finding:#}"
    );
}

/// The browser holds `title` on another prototype than the environment (as happy-dom's
/// `textContent` is on `Element.prototype`, Chromium's on `Node.prototype`), and spells its path
/// by that prototype: the access is still the reference's item, with one `owner` finding on it,
/// never a missing item beside a host API the trace never recorded.
#[test]
fn an_owner_that_differs_is_one_finding_on_the_access_the_script_made() {
    let recorded = recorded_in_the_environment();
    let mut respelled = 0;
    let trace: String = recorded
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            if v["api"] == "document.title" {
                respelled += 1;
                v["api"] = "HTMLDocument.prototype.title".into();
                v["owner"] = "HTMLDocument.prototype".into();
                v["getterOwner"] = "HTMLDocument.prototype".into();
            }
            v.to_string() + "\n"
        })
        .collect();
    assert!(respelled > 0, "the script reads document.title: {recorded}");
    let out = build_and_audit(case(&trace));
    out.assert_code(3);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let codes = blocking_codes(&diff);
    let expected = [
        "\"DIMENSION_MISMATCH\" \"HTMLDocument.prototype.title\" \"getterOwner\"",
        "\"DIMENSION_MISMATCH\" \"HTMLDocument.prototype.title\" \"owner\"",
    ];
    let mut sorted = codes.clone();
    sorted.sort();
    assert_eq!(sorted, expected, "{codes:#?}");
}

/// A receiver the browser never had (jsdom's plain `Element` for Chromium's `MathMLElement`) on a
/// key several receivers' items share is matched to the receiver its values name (`"math"` for
/// `nodeName`), on its other keys too, even one read before the value that names it: one finding,
/// the receiver, on each of that receiver's items, and nothing said about the others. A receiver
/// no value names, where the environment reached every receiver of the trace's itself, is no
/// item's, and said so.
#[test]
fn a_receiver_the_browser_never_had_is_matched_to_the_one_its_values_name() {
    let access = |seq: u32, api: &str, receiver: &str, value: &str, column: u32| {
        format!(
            r#"{{"type":"access","seq":{seq},"realm":"main","phase":"init","api":"Node.prototype.{api}","accessType":"get","receiver":"{receiver}","owner":"Node.prototype","returnValue":{value},"stack":[{{"url":"https://a.test/js/app.js","line":1,"column":{column},"functionName":""}}]}}"#
        )
    };
    let accesses = [
        access(1, "nodeName", "HTMLBodyElement", "\"BODY\"", 12),
        access(2, "nodeType", "HTMLBodyElement", "1", 26),
        access(3, "nodeType", "MathMLElement", "1", 40),
        access(4, "nodeName", "MathMLElement", "\"math\"", 54),
    ];
    let case = hand_written_case(
        &accesses,
        "const names = new WeakMap();\n\
             class Node { get nodeName() { return names.get(this); } get nodeType() { return 1; } }\n\
             class Element extends Node {}\n\
             class HTMLElement extends Element {}\n\
             class HTMLBodyElement extends HTMLElement {}\n\
             Object.assign(globalThis, { Node, Element, HTMLElement, HTMLBodyElement });\n\
             const body = new HTMLBodyElement(); names.set(body, 'BODY');\n\
             // No MathMLElement here: a MathML element is a plain Element.\n\
             const math = new Element(); names.set(math, 'math');\n\
             // One no value of which names a receiver of the trace's.\n\
             class HTMLUnknownElement extends HTMLElement {}\n\
             const other = new HTMLUnknownElement(); names.set(other, 'OTHER');\n\
             globalThis.page = { body, math, other };\n\
             require('../page/app.js');\n",
        "var out = [page.body.nodeName, page.body.nodeType, page.math.nodeType, page.math.nodeName, page.other.nodeName, page.other.nodeType];\nconsole.log(JSON.stringify(out));\n",
    );
    let out = audited_as_under_plain_node(case);
    out.assert_code(3);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let contract = read_json(&out, "notes/trace-runtime-contract.json");
    let id_of = |api: &str, receiver: &str| {
        contract["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["api"] == api && i["receiver"] == receiver)
            .unwrap_or_else(|| panic!("{api} on {receiver}: {contract:#}"))["id"]
            .clone()
    };
    let blocking = diff["blocking"].as_array().unwrap();
    // The receiver no value names is no item's: said so, with the receivers it could be.
    let unmatched: Vec<&str> = blocking
        .iter()
        .filter(|f| f["code"] == "UNCLASSIFIED_HOST_API")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    // Its `nodeType`, 1, is what both of the trace's receivers gave: no reason to pick either.
    assert_eq!(
        unmatched,
        ["nodeName", "nodeType"].map(|key| format!("the runtime reached Node.prototype.{key} (get) on HTMLUnknownElement, which the trace never had it on: it had it on HTMLBodyElement, MathMLElement, and which of them this receiver stands for cannot be told from its values")),
        "{blocking:#?}"
    );
    let mut found: Vec<String> = blocking
        .iter()
        .filter(|f| f["code"] != "UNCLASSIFIED_HOST_API")
        .map(|f| {
            format!(
                "{} {} {} {} {}",
                f["code"], f["item"], f["dimension"], f["expected"], f["observed"]
            )
        })
        .collect();
    found.sort();
    let mut expected: Vec<String> = ["Node.prototype.nodeName", "Node.prototype.nodeType"]
        .iter()
        .map(|api| {
            format!(
                "\"DIMENSION_MISMATCH\" {} \"receiver\" \"MathMLElement\" \"Element\"",
                id_of(api, "MathMLElement")
            )
        })
        .collect();
    expected.sort();
    assert_eq!(found, expected, "{:#}", diff["blocking"]);
    assert_eq!(diff["counts"]["observed"], 4, "{:#}", diff["counts"]);
}

/// What a page computes in jsdom and in happy-dom is what it computes there without the probe,
/// where the probe's own work could change it: a method's DOMException is thrown to the page
/// (it was once swallowed, the probe's reads of its `name` and `message` recorded in its place),
/// and an object whose own keys the environment computes is not enumerated (happy-dom's `<select>`
/// cached its empty option list when the probe listed its keys, and the option appended next was
/// not selected; asked for its `Symbol.toStringTag`, it gained an own property for it).
#[test]
fn what_the_page_computes_in_jsdom_and_happy_dom_is_the_same_under_the_probe() {
    let Some(modules) = jsdom_modules() else {
        return;
    };
    let app = "var out = [];\
               try { document.querySelector('!!'); out.push('no throw'); } catch (e) { out.push('threw ' + e.name); }\
               var select = document.createElement('select'), option = document.createElement('option');\
               select.appendChild(option);\
               out.push(option.selected, !!Object.getOwnPropertyDescriptor(select, Symbol.toStringTag));\
               document.title = JSON.stringify(out);";
    let environments = [
        (
            "jsdom",
            format!(
                "const {{ JSDOM }} = require('jsdom');\n\
                 const dom = new JSDOM(`<body><script>{app}</script></body>`, {{ url: 'https://example.test/', runScripts: 'dangerously' }});\n\
                 console.log(dom.window.document.title);\ndom.window.close();\n"
            ),
        ),
        (
            "happy-dom",
            format!(
                "const {{ Window }} = require('happy-dom');\n\
                 const window = new Window({{ url: 'https://example.test/', settings: {{ enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true }} }});\n\
                 const script = window.document.createElement('script');\n\
                 script.textContent = {app:?};\nwindow.document.body.appendChild(script);\n\
                 console.log(window.document.title);\nwindow.happyDOM.close();\n"
            ),
        ),
    ];
    // The reference names the members, so that the probe watches them.
    let trace = naming_trace(&[
        ("document.querySelector", "call", "HTMLDocument"),
        ("document.createElement", "call", "HTMLDocument"),
        ("Node.prototype.appendChild", "call", "HTMLSelectElement"),
        (
            "HTMLOptionElement.prototype.selected",
            "get",
            "HTMLOptionElement",
        ),
        ("DOMException.prototype.name", "get", "DOMException"),
        ("DOMException.prototype.message", "get", "DOMException"),
    ]);
    for (name, final_js) in environments {
        let tracer = case_in(&modules, &trace, &final_js);
        let plain = under_plain_node(&tracer);
        // happy-dom names its DOMException `DOMException` where the browser says `SyntaxError`.
        assert!(
            plain.starts_with(r#"["threw "#) && plain.ends_with(",true,false]"),
            "{name}: {plain}"
        );
        let out = audited_as_under_plain_node(tracer);
        let trace = read(&out, "tmp/node-trace.ndjson");
        let thrown: Value = trace
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|a| a["api"] == "document.querySelector")
            .unwrap_or_else(|| panic!("{name}: no querySelector record in\n{trace}"));
        assert_eq!(
            thrown["exception"]["type"], "DOMException",
            "{name}: {thrown:#}"
        );
    }
}

/// A collection that answers `length` itself (happy-dom's are Proxies whose `get` trap returns it
/// without the prototype's getter, which is all the probe watches): the read the browser made is
/// not seen, and the item says the probe could not have seen it (it once said "the script did not
/// reach it there", with the action "compare what the script did before this point").
#[test]
fn a_collection_answering_its_length_itself_is_probe_blind_not_unreached() {
    let accesses = [
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"Document.prototype.getElementsByTagName","accessType":"call","receiver":"Document","args":["p"],"returnValue":{"$object":"HTMLCollection","id":"o1"},"stack":[{"url":"https://a.test/js/app.js","line":1,"column":18,"functionName":""}]}"#.to_owned(),
        r#"{"type":"access","seq":2,"realm":"main","phase":"init","api":"HTMLCollection.prototype.length","accessType":"get","receiver":"HTMLCollection","returnValue":2,"stack":[{"url":"https://a.test/js/app.js","line":1,"column":45,"functionName":""}]}"#.to_owned(),
    ];
    let case = hand_written_case(
        &accesses,
        "class HTMLCollection { get length() { return 0; } }\n\
         class Document {\n\
           getElementsByTagName() {\n\
             const answer = { get: (t, p, r) => (p === 'length' ? 2 : Reflect.get(t, p, r)) };\n\
             return new Proxy(new HTMLCollection(), answer);\n\
           }\n\
         }\n\
         Object.assign(globalThis, { HTMLCollection, Document });\n\
         globalThis.document = new Document();\n\
         require('../page/app.js');\n",
        "var n = [document.getElementsByTagName('p').length];\nconsole.log(JSON.stringify(n));\n",
    );
    let out = audited_as_under_plain_node(case);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let missing: Vec<(&str, &str)> = diff["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "MISSING_OBSERVATION")
        .map(|f| (f["api"].as_str().unwrap(), f["cause"].as_str().unwrap()))
        .collect();
    assert_eq!(
        missing,
        [("HTMLCollection.prototype.length", "probe-blind")],
        "{diff:#}"
    );
}

/// One class of the environment standing for two of the browser's (jsdom's `SVGElement` for
/// Chromium's `SVGCircleElement` and `SVGRectElement`): each object's reads are the item of the
/// class its own values name (a `nodeName` of `"circle"`), even a read made before that one. They
/// were once one observation, the circle's: `nodeName` gave `["circle","rect"]` there and the
/// rectangle's items were "not reached".
#[test]
fn one_class_of_the_environment_for_two_of_the_browser_s_is_told_apart_by_each_object() {
    let read = |seq: u32, api: &str, receiver: &str, value: &str, line: u32| {
        format!(
            r#"{{"type":"access","seq":{seq},"realm":"main","phase":"init","api":"{api}","accessType":"get","receiver":"{receiver}","returnValue":"{value}","stack":[{{"url":"https://a.test/js/app.js","line":{line},"column":5,"functionName":""}}]}}"#
        )
    };
    let accesses = [
        read(
            1,
            "Element.prototype.namespaceURI",
            "SVGCircleElement",
            "svg",
            1,
        ),
        read(
            2,
            "Node.prototype.nodeName",
            "SVGCircleElement",
            "circle",
            2,
        ),
        read(
            3,
            "Element.prototype.namespaceURI",
            "SVGRectElement",
            "svg",
            3,
        ),
        read(4, "Node.prototype.nodeName", "SVGRectElement", "rect", 4),
    ];
    let case = hand_written_case(
        &accesses,
        "const names = new WeakMap();\n\
         class Node { get nodeName() { return names.get(this); } }\n\
         class Element extends Node { get namespaceURI() { return 'svg'; } }\n\
         class SVGElement extends Element {}\n\
         Object.assign(globalThis, { Node, Element, SVGElement });\n\
         const circle = new SVGElement(), rect = new SVGElement();\n\
         names.set(circle, 'circle'); names.set(rect, 'rect');\n\
         globalThis.page = { circle, rect };\n\
         require('../page/app.js');\n",
        "var a = page.circle.namespaceURI;\nvar b = page.circle.nodeName;\nvar c = page.rect.namespaceURI;\nvar d = page.rect.nodeName;\nconsole.log(JSON.stringify([a, b, c, d]));\n",
    );
    let out = audited_as_under_plain_node(case);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    assert_eq!(diff["counts"]["observed"], 4, "{diff:#}");
    let mut codes = blocking_codes(&diff);
    codes.sort();
    assert_eq!(
        codes,
        [
            r#""DIMENSION_MISMATCH" "Element.prototype.namespaceURI" "receiver""#,
            r#""DIMENSION_MISMATCH" "Element.prototype.namespaceURI" "receiver""#,
            r#""DIMENSION_MISMATCH" "Node.prototype.nodeName" "receiver""#,
            r#""DIMENSION_MISMATCH" "Node.prototype.nodeName" "receiver""#,
        ],
        "{}",
        out.dump()
    );
}

/// A member read on another interface than any the reference read it on, and defined elsewhere
/// (jsdom's `style.top`, on `CSSStyleDeclaration.prototype`, where Chromium holds a style's
/// properties as its own and the reference recorded only `DOMRectReadOnly.prototype.top`), is not
/// that item's: it was once matched to it, and the rectangle's item had four false findings
/// (receiver, owner, value) while the style's read was not reported. The style's read is said to
/// be one the trace could not have had.
#[test]
fn a_member_of_an_unrelated_interface_is_not_the_only_item_with_its_name() {
    let trace = [
        HEADER.to_owned(),
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"DOMRectReadOnly.prototype.top","accessType":"get","receiver":"DOMRect","owner":"DOMRectReadOnly.prototype","returnValue":45,"stack":[{"url":"https://a.test/js/app.js","line":1,"column":12,"functionName":""}]}"#.to_owned(),
    ]
    .join("\n")
        + "\n";
    let case = Tracer::new()
        .file("case/ruyi-trace/logs/current.ndjson", trace)
        .file(
            "case/result/final.js",
            "class DOMRectReadOnly { get top() { return 45; } }\n\
             class DOMRect extends DOMRectReadOnly {}\n\
             class CSSStyleDeclaration { get top() { return '1%'; } }\n\
             Object.assign(globalThis, { DOMRectReadOnly, DOMRect, CSSStyleDeclaration });\n\
             globalThis.page = { rect: new DOMRect(), style: new CSSStyleDeclaration() };\n\
             require('../page/app.js');\n",
        )
        .file(
            "case/page/app.js",
            "var out = [page.rect.top, page.style.top];\nconsole.log(JSON.stringify(out));\n",
        );
    let out = audited_as_under_plain_node(case);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let blocking: Vec<(String, String)> = diff["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        blocking,
        [(
            "UNCLASSIFIED_HOST_API".to_owned(),
            "the runtime reached CSSStyleDeclaration.prototype.top (get), which the trace could not have recorded: Chromium holds a style's CSS properties as named properties of each CSSStyleDeclaration, where the recorder cannot watch them; if the script reaches it in the browser too, classify it as `dynamic-branch` in notes/trace-runtime-policy.json".to_owned()
        )],
        "{}",
        out.dump()
    );
    // The script's access is not the thing to remove: the browser may make it out of sight.
    let action = diff["blocking"][0]["action"].as_str().unwrap_or_default();
    assert!(
        action.starts_with("check in the browser whether the script makes this access too"),
        "{action}"
    );
    assert_eq!(diff["counts"]["observed"], 1, "{diff:#}");
}

/// An entry that makes a jsdom window of `body` and appends two `<script>`s to it, the first
/// having the probe go in (so that the second one's `appendChild` is recorded), the second `app`;
/// it prints the document's title.
fn jsdom_appending_scripts(body: &str, app: &str) -> String {
    format!(
        "const {{ JSDOM }} = require('jsdom');\n\
         const dom = new JSDOM({body:?}, {{ url: 'https://example.test/', runScripts: 'dangerously' }});\n\
         for (const text of ['window.ready = true;', {app:?}]) {{\n\
           const script = dom.window.document.createElement('script');\n\
           script.textContent = text;\n\
           dom.window.document.body.appendChild(script);\n\
         }}\n\
         console.log(dom.window.document.title);\ndom.window.close();\n"
    )
}

#[test]
fn a_page_s_read_through_jsdom_s_proxy_is_the_page_s_and_jsdom_s_compiled_selector_code_is_jsdom_s()
{
    let Some(modules) = jsdom_modules() else {
        return;
    };
    // The page's script runs inside jsdom's `appendChild` of its <script> (a call the probe
    // records): its read of a NodeList's `length` goes through jsdom's Proxy `get` trap. Its
    // `querySelector` has jsdom's selector engine (nwsapi) compile a matcher with `new Function`,
    // code with no URL of its own, which reads the list's `id` attribute: jsdom's read, not the page's.
    let app = "var n = document.querySelectorAll('#list li').length;\
               var hit = document.querySelector('#list li.b');\
               document.title = n + ':' + (hit ? hit.textContent : 'none');";
    let final_js = jsdom_appending_scripts(
        r#"<body><ul id="list"><li class="a">A</li><li class="b">B</li></ul></body>"#,
        app,
    );
    let trace = naming_trace(&[
        ("document.querySelectorAll", "call", "HTMLDocument"),
        ("NodeList.prototype.length", "get", "NodeList"),
        ("document.querySelector", "call", "HTMLDocument"),
        ("Element.prototype.getAttribute", "call", "HTMLUListElement"),
        // Watched, so that the page's script runs inside a recorded call.
        ("Node.prototype.appendChild", "call", "HTMLBodyElement"),
    ]);
    let tracer = case_in(&modules, &trace, &final_js);
    assert_eq!(under_plain_node(&tracer), "2:B");
    let out = build_and_audit(tracer);
    assert!(out.stdout().contains("2:B"), "{}", out.dump());
    let apis: Vec<String> = read(&out, "tmp/node-trace.ndjson")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|l| l["api"].as_str().map(str::to_owned))
        .collect();
    let count = |api: &str| apis.iter().filter(|a| *a == api).count();
    assert_eq!(
        count("NodeList.prototype.length"),
        1,
        "the page's read, through jsdom's trap: {apis:?}"
    );
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let by = &audit["recording"]["leftOutBy"];
    assert_eq!(
        count("Element.prototype.getAttribute"),
        0,
        "the selector engine's compiled code is jsdom's: {apis:?}, left out {by:#}"
    );
    assert!(
        by.as_object()
            .is_some_and(|m| m.keys().any(|k| k.ends_with("nwsapi.js"))),
        "counted under the script that compiled it: {by:#}"
    );
}

/// jsdom's form is a `Proxy` (its controls are its named properties) whose `set` trap writes
/// through a helper of jsdom's (`utils.ordinarySetWithOwnDescriptor`, then `Reflect.set`): the
/// page's `form.id = "f"` reached the setter with that helper as its nearest frame and was once
/// left out as jsdom's own, and the check called `Element.prototype.id` "not reached" on the form
/// (Preact's page, which sets a form's `id`). A `<div>`'s, with no trap, was always the page's.
#[test]
fn a_page_s_write_through_a_helper_of_jsdom_s_trap_is_the_page_s() {
    let Some(modules) = jsdom_modules() else {
        return;
    };
    // jsdom's style library defines each CSS property with a setter named `set`, whose helper
    // reads the declaration's `length` and `cssText` on a second write: its own reads, which a
    // first version of this rule filed as the page's.
    let app = "var f = document.createElement('form'); f.id = 'f';\
               var d = document.createElement('div'); d.id = 'd';\
               d.style.color = 'red'; d.style.color = 'blue';\
               document.title = f.id + d.id + d.style.cssText;";
    let final_js = jsdom_appending_scripts("<body></body>", app);
    let trace = naming_trace(&[
        ("document.createElement", "call", "HTMLDocument"),
        ("Element.prototype.id", "set", "HTMLFormElement"),
        ("Element.prototype.id", "set", "HTMLDivElement"),
        (
            "CSSStyleDeclaration.prototype.cssText",
            "get",
            "CSSStyleDeclaration",
        ),
        (
            "CSSStyleDeclaration.prototype.length",
            "get",
            "CSSStyleDeclaration",
        ),
    ]);
    let tracer = case_in(&modules, &trace, &final_js);
    assert_eq!(under_plain_node(&tracer), "fdcolor: blue;");
    let out = build_and_audit(tracer);
    assert!(out.stdout().contains("fdcolor: blue;"), "{}", out.dump());
    let style_reads: Vec<String> = read(&out, "tmp/node-trace.ndjson")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|l| l["api"].as_str().map(str::to_owned))
        .filter(|api| api.starts_with("CSSStyleDeclaration.prototype."))
        .collect();
    assert_eq!(style_reads, ["CSSStyleDeclaration.prototype.cssText"]);
    let writes: Vec<String> = read(&out, "tmp/node-trace.ndjson")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["api"] == "Element.prototype.id" && l["accessType"] == "set")
        .filter_map(|l| l["receiver"].as_str().map(str::to_owned))
        .collect();
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    assert_eq!(
        writes,
        ["HTMLFormElement", "HTMLDivElement"],
        "left out: {:#}",
        audit["recording"]["leftOutBy"]
    );
}

#[test]
fn happy_dom_s_window_is_measured_as_the_global_the_page_gets_not_the_sandbox_behind_it() {
    let Some(modules) = jsdom_modules() else {
        return;
    };
    // happy-dom's window is a `vm` context's sandbox object whose `self` is its own getter bound
    // to it; Node hands the page the context's global in its place, which is what it measures.
    let app = "var w = self;\
               document.title = JSON.stringify([w === globalThis, Object.getOwnPropertySymbols(w).map(String), w instanceof EventTarget]);";
    let final_js = format!(
        "const {{ Window }} = require('happy-dom');\n\
         const window = new Window({{ url: 'https://example.test/', settings: {{ enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true }} }});\n\
         const script = window.document.createElement('script');\n\
         script.textContent = {app:?};\nwindow.document.body.appendChild(script);\n\
         console.log(window.document.title);\nwindow.happyDOM.close();\n"
    );
    let trace = naming_trace(&[("self", "get", "Window")]);
    let tracer = case_in(&modules, &trace, &final_js);
    let plain = under_plain_node(&tracer);
    let page: Value = serde_json::from_str(&plain).unwrap_or_else(|_| panic!("{plain}"));
    assert_eq!(page[0], true, "the page gets its global: {plain}");
    let out = build_and_audit(tracer);
    assert!(out.stdout().contains(&plain), "{}", out.dump());
    let record = read(&out, "tmp/node-trace.ndjson")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["api"] == "self")
        .unwrap_or_else(|| panic!("a record of `self`:\n{}", out.dump()));
    assert_eq!(
        record["ownSymbols"], page[1],
        "the own symbols the page sees on what it got: {record:#}"
    );
    assert_eq!(
        record["instanceOf"]
            .as_array()
            .is_some_and(|names| names.iter().any(|n| n == "EventTarget")),
        page[2] == true,
        "{record:#}"
    );
}

/// happy-dom's `dataset` is a `Proxy` whose `get` trap reads the attribute with `getAttribute`:
/// the page's `d.dataset.b` is a read, where the browser's `DOMStringMap` calls nothing the page
/// could see. A call a trap makes is the environment's own work (left out, counted under its
/// script); the page's own `getAttribute` call is recorded, once. (The trap's call was recorded
/// as the page's: `getAttribute` returned `["1","2"]` where the browser's gave `["1"]`.)
#[test]
fn a_call_happy_dom_s_dataset_trap_makes_is_the_environment_s() {
    let Some(tracer) = jsdom_case(&happy_dom_page(
        "happy-dom; the page reads one attribute by a call and another through `dataset`.",
        "var d = document.createElement('div');\n\
         d.setAttribute('data-a', '1');\n\
         d.setAttribute('data-b', '2');\n\
         window.__out = JSON.stringify([d.getAttribute('data-a'), d.dataset.b]);\n",
    )) else {
        return;
    };
    let trace = trace_of(&[
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"Element.prototype.getAttribute","accessType":"call","receiver":"HTMLDivElement","args":["data-a"],"returnValue":"1"}"#,
        r#"{"type":"access","seq":2,"realm":"main","phase":"init","api":"HTMLElement.prototype.dataset","accessType":"get","receiver":"HTMLDivElement"}"#,
    ]);
    let out =
        audited_as_under_plain_node(tracer.file("case/ruyi-trace/logs/current.ndjson", trace));
    let calls = records_of(&out, "Element.prototype.getAttribute");
    assert_eq!(calls.len(), 1, "{calls:#?}");
    assert_eq!(calls[0]["args"], json!(["data-a"]), "{calls:#?}");
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let by = audit["recording"]["leftOutBy"].as_object().unwrap();
    assert!(
        by.keys().any(|url| url.ends_with("DOMStringMap.js")),
        "{by:#?}"
    );
}

/// jsdom's `CSSStyleSheet` is a function whose prototype has no `constructor` of its own and
/// inherits CSSOM's, which holds the methods, made with `function` (each has a `prototype`): the
/// page's `replaceSync` is recorded (it was called a property the probe cannot watch), its owner
/// the hidden base, and the page computes the same.
#[test]
fn jsdom_s_css_style_sheet_methods_on_the_base_it_hides_are_watched() {
    let Some(tracer) = jsdom_case(
        "// jsdom; the page makes a style sheet and fills it.\n\
         const { JSDOM } = require('jsdom');\n\
         const dom = new JSDOM(`<body><script>var s = new CSSStyleSheet(); s.replaceSync('p { color: red }'); window.__out = JSON.stringify([s.cssRules.length]);</script></body>`, { url: 'https://example.test/', runScripts: 'dangerously' });\n\
         console.log(dom.window.__out);\n\
         dom.window.close();\n",
    ) else {
        return;
    };
    let trace = trace_of(&[
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"CSSStyleSheet","accessType":"construct","receiver":"Window"}"#,
        r#"{"type":"access","seq":2,"realm":"main","phase":"init","api":"CSSStyleSheet.prototype.replaceSync","accessType":"call","receiver":"CSSStyleSheet","owner":"CSSStyleSheet.prototype","args":["p { color: red }"]}"#,
    ]);
    let out =
        audited_as_under_plain_node(tracer.file("case/ruyi-trace/logs/current.ndjson", trace));
    let calls = records_of(&out, "CSSStyleSheet.prototype.replaceSync");
    let call = calls
        .first()
        .unwrap_or_else(|| panic!("replaceSync was not recorded"));
    assert_eq!(call["args"], json!(["p { color: red }"]), "{call:#}");
    assert_eq!(call["accessType"], "call", "{call:#}");
    let audit = read_json(&out, "tmp/node-trace-runtime-audit.json");
    let unwatched = &audit["recording"]["realms"];
    assert!(
        !unwatched.to_string().contains("replaceSync"),
        "{unwatched:#}"
    );
}

/// The browser called `appendChild` on the body only; the environment on the body and on a shadow
/// root (lit, lacking `adoptedStyleSheets` in jsdom, appends a `<style>` to it): the shadow root's
/// call is one the browser did not make, never the body's item with "the receiver is ShadowRoot"
/// and every value of both calls mixed (11 findings on lit's page).
#[test]
fn a_call_on_a_receiver_the_browser_never_had_beside_the_one_it_had_is_an_access_of_its_own() {
    let Some(tracer) = jsdom_case(
        "// jsdom; the page appends to the body and to a shadow root.\n\
         const { JSDOM } = require('jsdom');\n\
         const dom = new JSDOM(`<body><script>var host = document.createElement('div'); document.body.appendChild(host); var root = host.attachShadow({ mode: 'open' }); root.appendChild(document.createElement('style')); window.__out = JSON.stringify([root.childNodes.length]);</script></body>`, { url: 'https://example.test/', runScripts: 'dangerously' });\n\
         console.log(dom.window.__out);\n\
         dom.window.close();\n",
    ) else {
        return;
    };
    let trace = trace_of(&[
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"Node.prototype.appendChild","accessType":"call","receiver":"HTMLBodyElement","returnValue":{"$object":"HTMLDivElement","id":"o1"}}"#,
    ]);
    let out =
        audited_as_under_plain_node(tracer.file("case/ruyi-trace/logs/current.ndjson", trace));
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let on_append: Vec<&Value> = diff["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["api"] == "Node.prototype.appendChild")
        .collect();
    assert!(
        on_append.iter().all(|f| f["dimension"] != "receiver"),
        "{on_append:#?}"
    );
    let extra = on_append
        .iter()
        .find(|f| f["code"] == "UNCLASSIFIED_HOST_API")
        .unwrap_or_else(|| panic!("{on_append:#?}"));
    assert_eq!(extra["receiver"], "ShadowRoot", "{extra:#}");
    assert!(
        extra["message"]
            .as_str()
            .unwrap()
            .contains("it had it on HTMLBodyElement only, which the environment reached too"),
        "{extra:#}"
    );
}

/// lit marks its templates with `"lit$" + Math.random().toFixed(9).slice(2) + "$"`, another number
/// in every run, and a page reads back markup that holds it: a shadow root's `innerHTML`, over 500
/// characters, is kept as a digest. Two runs of the same page compare (the digest of the text
/// without its random part), where the whole text's hash told them apart; a text that differs
/// elsewhere still differs.
#[test]
fn a_long_text_with_a_page_s_random_marker_is_the_same_in_two_runs() {
    let Some(modules) = jsdom_modules() else {
        return;
    };
    let page = |filler: &str| {
        happy_dom_page(
            "a lit-like marker in a long markup",
            &format!(
                "const m = 'lit$' + Math.random().toFixed(9).slice(2) + '$';\n\
                 const d = document.createElement('div');\n\
                 d.innerHTML = '<!--?' + m + '--><p>' + '{filler}'.repeat(600) + '</p><!--?' + m + '-->';\n\
                 window.__out = d.innerHTML.length;"
            ),
        )
    };
    // The members the page reaches (an audit watches what its reference names).
    let named = trace_of(&[
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"document.createElement","accessType":"call","receiver":"HTMLDocument"}"#,
        r#"{"type":"access","seq":2,"realm":"main","phase":"init","api":"Element.prototype.innerHTML","accessType":"set","receiver":"HTMLDivElement"}"#,
        r#"{"type":"access","seq":3,"realm":"main","phase":"init","api":"Element.prototype.innerHTML","accessType":"get","receiver":"HTMLDivElement"}"#,
    ]);
    let first = build_and_audit(case_in(&modules, &named, &page("x")));
    let reference = read(&first, "tmp/node-trace.ndjson");
    let markup = records_of(&first, "Element.prototype.innerHTML")
        .into_iter()
        .find(|r| r["accessType"] == "get")
        .unwrap_or_else(|| {
            panic!(
                "no innerHTML read recorded\n{}",
                reference
                    .lines()
                    .map(|l| l.get(..200).unwrap_or(l))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
    assert!(
        markup["returnValue"]["skeletonHash"].is_string(),
        "{markup}"
    );

    let again = build_and_audit(case_in(&modules, &reference, &page("x")));
    let diff = read_json(&again, "notes/trace-runtime-diff.json");
    assert_eq!(blocking_codes(&diff), Vec::<String>::new(), "{diff:#}");
    again.assert_code(0);

    let other = build_and_audit(case_in(&modules, &reference, &page("y")));
    other.assert_code(3);
    let diff = read_json(&other, "notes/trace-runtime-diff.json");
    let text = diff.to_string();
    assert!(text.contains("innerHTML"), "{diff:#}");
}

/// happy-dom's `MutationRecord`s carry `type`, `target` and `addedNodes` as their own data
/// properties, and a `MutationObserver` callback is handed them as its argument: the page's reads
/// give what Chromium's give, unseen by the probe, and are `probe-blind`, never "the environment
/// lacks … reading it gives `undefined`" (9 blocking findings, where only `takeRecords()`'s records
/// were known as handed to the script).
#[test]
fn the_records_a_mutation_observer_callback_is_handed_are_probe_blind_not_lacking() {
    let Some(tracer) = jsdom_case(&happy_dom_page(
        "happy-dom; an observer's callback reads its first record.",
        "var box = document.createElement('div'); document.body.appendChild(box);\n\
         new MutationObserver(function (records) {\n\
           var r = records[0];\n\
           window.__out = JSON.stringify([r.type, r.target === box, r.addedNodes.length]);\n\
         }).observe(box, { childList: true });\n\
         box.appendChild(document.createElement('span'));\n",
    )) else {
        return;
    };
    let record = |seq: u32, member: &str| {
        format!(
            r#"{{"type":"access","seq":{seq},"realm":"main","phase":"init","api":"MutationRecord.prototype.{member}","accessType":"get","receiver":"MutationRecord","owner":"MutationRecord.prototype"}}"#
        )
    };
    let trace = trace_of(&[
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"MutationObserver","accessType":"construct","receiver":"Window","state":{"family":"observer","object":"observer#1","event":"construct"}}"#,
        r#"{"type":"access","seq":2,"realm":"main","phase":"init","api":"MutationObserver.event:callback","accessType":"event","receiver":"MutationObserver","state":{"family":"observer","object":"observer#1","event":"callback","records":1}}"#,
        &record(3, "type"),
        &record(4, "target"),
        &record(5, "addedNodes"),
    ]);
    let out =
        audited_as_under_plain_node(tracer.file("case/ruyi-trace/logs/current.ndjson", trace));
    assert_eq!(out.stdout().trim(), r#"["childList",true,1]"#);
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let records: Vec<&Value> = diff["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["api"]
                .as_str()
                .is_some_and(|a| a.starts_with("MutationRecord"))
        })
        .collect();
    assert_eq!(records.len(), 3, "{records:#?}");
    for f in records {
        assert_eq!(f["cause"], "probe-blind", "{f:#}");
        assert!(
            f["message"]
                .as_str()
                .is_some_and(|m| m.contains("a MutationObserver callback's argument gave one")),
            "{f:#}"
        );
    }
}

/// A page waits for a transition's end only when its computed duration is over 0 (as Vue does):
/// happy-dom's computed style has no `transitionDuration`, so `Math.max` is given 0 and gives 0,
/// and the listener is never added. The item not reached leads to `Math.max` as a call given other
/// arguments: find where they came from, never "make Math.max give what the browser gave".
#[test]
fn a_not_reached_item_after_a_call_given_other_arguments_points_before_the_call() {
    let Some(tracer) = jsdom_case(&happy_dom_page(
        "happy-dom; the page waits for a transition only when it lasts.",
        "var el = document.createElement('div'); el.style.transition = 'opacity 50ms'; document.body.appendChild(el);\n\
         var ms = Math.max(parseFloat(getComputedStyle(el).transitionDuration || '0') * 1000, 0);\n\
         if (ms > 0) el.addEventListener('transitionend', function () {});\n\
         window.__out = JSON.stringify([ms]);\n",
    )) else {
        return;
    };
    let trace = trace_of(&[
        r#"{"type":"access","seq":1,"realm":"main","phase":"init","api":"Math.max","accessType":"call","receiver":"Math","args":[50,0],"returnValue":50}"#,
        r#"{"type":"access","seq":2,"realm":"main","phase":"init","api":"EventTarget.prototype.addEventListener","accessType":"call","receiver":"HTMLDivElement","args":["transitionend",{"$function":"(anonymous)","native":false}]}"#,
    ]);
    let out =
        audited_as_under_plain_node(tracer.file("case/ruyi-trace/logs/current.ndjson", trace));
    assert!(out.stdout().contains("[0]"), "{}", out.dump());
    let diff = read_json(&out, "notes/trace-runtime-diff.json");
    let listener = diff["blocking"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["api"] == "EventTarget.prototype.addEventListener" && f["cause"] == "not-reached"
        })
        .unwrap_or_else(|| panic!("{diff:#}"));
    assert_eq!(
        listener["divergence"]["differed"]["api"], "Math.max",
        "{listener:#}"
    );
    assert_eq!(
        listener["divergence"]["differed"]["givenOther"], true,
        "{listener:#}"
    );
    assert!(
        listener["action"].as_str().is_some_and(
            |a| a.starts_with("find where the values the script passed to Math.max came from")
        ),
        "{listener:#}"
    );
}
