//! `tracer capabilities`: JSON of what this build and this Node can do, each probed.

use serde_json::Value;

use crate::support::Tracer;

fn capabilities(tracer: Tracer, extra: &[&std::ffi::OsStr]) -> Value {
    let out = tracer.arg("capabilities").args(extra).run();
    out.assert_code(0);
    serde_json::from_str(&out.stdout()).unwrap_or_else(|e| panic!("{e}\n{}", out.dump()))
}

fn node_on_path() -> String {
    let path = std::env::var_os("PATH").unwrap();
    std::env::split_paths(&path)
        .map(|d| d.join("node"))
        .find(|p| p.is_file())
        .expect("node on PATH")
        .display()
        .to_string()
}

#[test]
fn probes_node_the_inspector_source_maps_and_workers() {
    let caps = capabilities(Tracer::new(), &[]);
    assert_eq!(caps["node"]["path"], node_on_path());
    let version = std::process::Command::new(node_on_path())
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        caps["node"]["version"],
        String::from_utf8_lossy(&version.stdout).trim()
    );
    assert_eq!(caps["inspector"], true, "{caps}");
    // The guard is probed by installing it: on this kind of machine (Linux, x86_64) it must be there,
    // and when it is not, the reason is said.
    let guard = &caps["noSendGuard"];
    assert!(
        guard["available"] == true || guard["reason"].is_string(),
        "{caps}"
    );
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        assert_eq!(guard["available"], true, "{caps}");
    }
    // The audit's sandbox is probed by making it: where the kernel allows user namespaces it must
    // be there, and when it is not, the reason is said.
    let sandbox = &caps["auditSandbox"];
    assert!(
        sandbox["available"] == true || sandbox["reason"].is_string(),
        "{caps}"
    );
    let namespaces_allowed = std::fs::read_to_string("/proc/sys/user/max_user_namespaces")
        .is_ok_and(|n| n.trim().parse::<u64>().is_ok_and(|n| n > 0));
    if namespaces_allowed {
        assert_eq!(sandbox["available"], true, "{caps}");
        assert_eq!(
            sandbox["namespaces"],
            serde_json::json!(["user", "pid", "mount", "network", "ipc"])
        );
    }
    assert_eq!(caps["sourceMapping"], true, "{caps}");
    assert_eq!(caps["workers"], true, "{caps}");
    assert_eq!(caps["replay"], "timeline");
    assert_eq!(caps["notes"], serde_json::json!([]));
    assert_eq!(caps["tracer"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn a_missing_node_is_an_answer_not_an_error() {
    let tracer = Tracer::new();
    let missing = tracer.workspace().join("no-node-here");
    let caps = capabilities(tracer.env("TRACER_NODE", &missing), &[]);
    assert_eq!(caps["node"], Value::Null);
    assert_eq!(caps["inspector"], false);
    assert_eq!(caps["workers"], false);
    let notes = caps["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("no-node-here")),
        "{caps}"
    );
}

#[test]
fn the_browser_is_found_with_its_version_or_reported_missing() {
    let tracer = Tracer::new().file(
        "fake-chrome",
        "#!/bin/sh\n# Answers --version like a browser.\necho 'Fake Chromium 1.2.3'\n",
    );
    let fake = tracer.workspace().join("fake-chrome");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let caps = capabilities(tracer.env("TRACER_CHROMIUM", &fake), &[]);
    assert_eq!(caps["browser"]["path"], fake.display().to_string());
    assert_eq!(caps["browser"]["version"], "Fake Chromium 1.2.3");

    let tracer = Tracer::new();
    let missing = tracer.workspace().join("no-browser");
    let caps = capabilities(tracer, &["--browser".as_ref(), missing.as_os_str()]);
    assert_eq!(caps["browser"], Value::Null);
}
