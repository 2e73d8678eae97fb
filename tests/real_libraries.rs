//! The conformance loop on real libraries from npm, as a user runs it from an example's README:
//! `examples/patched-jsdom/` (ClientJS recorded in Chromium, jsdom patched from the findings) must
//! be `matched`, and stock jsdom must not be, with every missing item explained.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::tracer_in as tracer;

/// examples/patched-jsdom copied into a temporary folder (its npm packages linked in); None (the
/// test skipped, saying so) without its node_modules.
fn patched_jsdom(test: &str) -> Option<tempfile::TempDir> {
    crate::support::example_copy(
        "patched-jsdom",
        &[
            "page.html",
            "app.js",
            "case/result/final.js",
            "case/result/patches.js",
            "case/result/chromium-canvas.txt",
            "case/ruyi-trace/logs/current.ndjson",
            "case/notes/trace-runtime-policy.json",
        ],
        &["jsdom", "clientjs"],
        &format!("real_libraries::{test}"),
    )
}

/// Builds the contract and audits `case/result/final.js`; returns the audit's exit code and diff.
fn audit(root: &Path) -> (Option<i32>, Value) {
    let built = tracer(root, &["contract", "build", "--case-dir", "case"]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let audited = tracer(root, &crate::support::AUDIT_CASE);
    let diff = std::fs::read_to_string(root.join("case/notes/trace-runtime-diff.json")).unwrap();
    (audited.status.code(), serde_json::from_str(&diff).unwrap())
}

/// The example's last round: the patched jsdom is matched, every item observed.
#[test]
fn jsdom_patched_from_the_findings_matches_chromium_on_clientjs() {
    let Some(dir) = patched_jsdom("jsdom_patched_from_the_findings_matches_chromium_on_clientjs")
    else {
        return;
    };
    let (code, diff) = audit(dir.path());
    assert_eq!(diff["matched"], true, "{:#}", diff["groups"]);
    assert_eq!(code, Some(0));
    assert_eq!(diff["counts"]["observed"], diff["counts"]["items"]);
}

/// Stock jsdom (the patches taken out) against the same trace: not conformant; no name goes
/// through jsdom's `_globalObject`; every missing item has a cause the tool checked, and the ones
/// it says jsdom lacks really do not resolve in a fresh jsdom window.
#[test]
fn stock_jsdom_on_clientjs_gives_a_work_list_with_every_missing_item_explained() {
    let Some(dir) = patched_jsdom(
        "stock_jsdom_on_clientjs_gives_a_work_list_with_every_missing_item_explained",
    ) else {
        return;
    };
    let root = dir.path();
    std::fs::write(
        root.join("case/result/patches.js"),
        "exports.patch = function () {};\n",
    )
    .unwrap();
    let (code, diff) = audit(root);
    assert_eq!(code, Some(3));
    let blocking = diff["blocking"].as_array().unwrap();
    for f in blocking.iter().chain(diff["risks"].as_array().unwrap()) {
        let api = f["api"].as_str().unwrap_or_default();
        assert!(!api.contains("_globalObject"), "{f:#}");
    }
    let missing: Vec<&Value> = blocking
        .iter()
        .filter(|f| f["code"] == "MISSING_OBSERVATION" && f["dimension"].is_null())
        .collect();
    assert!(!missing.is_empty());
    // The diff counts them by cause.
    let counted: u64 = diff["counts"]["missing"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert!(counted >= missing.len() as u64, "{:#}", diff["counts"]);
    let lacking: Vec<&str> = missing
        .iter()
        .filter(|f| f["cause"] == "environment-lacks")
        .map(|f| f["api"].as_str().unwrap())
        .collect();
    for f in &missing {
        assert!(
            matches!(
                f["cause"].as_str(),
                Some("environment-lacks" | "not-reached" | "probe-blind")
            ),
            "{f:#}"
        );
    }
    // jsdom has no 2D context: the canvas members are lacking, and getContext is where the
    // rest diverged.
    assert!(
        lacking.contains(&"CanvasRenderingContext2D.prototype.fillText"),
        "{lacking:?}"
    );
    assert!(missing.iter().any(|f| f["cause"] == "not-reached"
        && f["divergence"]["differed"]["api"] == "HTMLCanvasElement.prototype.getContext"));
    // Checked against a fresh jsdom window, evaluated here without tracer.
    let probe = format!(
        "const {{ JSDOM }} = require('jsdom'); const w = new JSDOM('', {{ runScripts: 'outside-only' }}).window; \
         for (const p of {}) {{ let o = w; for (const k of p.split('.')) o = o == null ? undefined : o[k]; \
         if (o !== undefined) {{ console.log('resolves: ' + p); process.exitCode = 1; }} }}",
        serde_json::to_string(&lacking).unwrap()
    );
    let checked = Command::new("node")
        .args(["-e", &probe])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    // The work list covers every blocking finding: what the script got and did (items lacking
    // or not reached, values of another class) before the shape the probe measured (native code,
    // own keys, `instanceof`), largest group first within each.
    let groups = diff["groups"].as_array().unwrap();
    let count = |g: &serde_json::Value| g["count"].as_u64().unwrap();
    assert_eq!(groups.iter().map(count).sum::<u64>(), blocking.len() as u64);
    let kind_in =
        |g: &serde_json::Value, kinds: &[&str]| kinds.contains(&g["kind"].as_str().unwrap_or(""));
    let shape = |g: &serde_json::Value| kind_in(g, &["native", "own-keys", "instances"]);
    let got = |g: &serde_json::Value| kind_in(g, &["lacks", "divergence", "class", "elements"]);
    let kinds: Vec<(&str, u64)> = groups
        .iter()
        .map(|g| (g["kind"].as_str().unwrap_or(""), count(g)))
        .collect();
    let first_shape = groups.iter().position(shape).expect("a shape group");
    assert!(
        groups
            .iter()
            .rposition(got)
            .is_some_and(|last| last < first_shape),
        "{kinds:?}"
    );
    let shape_counts: Vec<u64> = groups.iter().filter(|g| shape(g)).map(count).collect();
    assert!(shape_counts.windows(2).all(|w| w[0] >= w[1]), "{kinds:?}");
    assert!(
        groups
            .iter()
            .any(|g| g["kind"] == "own-keys"
                && g["title"].as_str().unwrap().contains("Symbol(impl)"))
    );
}
