//! What this build and this Node can do (`tracer capabilities` prints it as JSON). Each answer is
//! probed, none assumed:
//!
//! - `node`: the executable `tracer run` would use (`--node`, `TRACER_NODE`, else `node` on PATH)
//!   and what `node --version` prints;
//! - `inspector`, `sourceMapping`, `workers`: a small probe program (written to a temporary folder)
//!   is traced end to end by the same engine as `tracer run`, with its session kept in that folder.
//!   The inspector is available when the engine attached; source mapping when the probe's console
//!   call was reported at its `.ts` source through the probe's source map; worker capture when the
//!   console call of the probe's worker thread was captured and tagged with the worker;
//! - `replay`: `"timeline"`, stepping through captured events (this build has no other mode);
//! - `browser`: the browser a recording would use (`--browser`, `TRACER_CHROMIUM`, else
//!   `chromium`, `chromium-browser`, `google-chrome`, `google-chrome-stable` on PATH) and what its
//!   `--version` prints, or `null`;
//! - `notes`: why a probe answered `false`.
//!
//! A missing Node is an answer, not an error.

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::json;

use crate::engine;
use crate::output::human::Styles;
use crate::process::{find, group};
use crate::trace::event::Kind;

/// How long `--version` of Node or a browser may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the probe program may run.
const PROBE_TIMEOUT: f64 = 30.0;

const PROBE_MAIN: &str = "tracer-probe-main";
const PROBE_WORKER: &str = "tracer-probe-worker";

/// The probe program: a console call on the main thread and one in a worker, nothing on stdout.
/// Its source map maps every line to the same line of `probe.ts`.
const PROBE_JS: &str = include_str!("probe.js");

const BROWSERS: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// The report: what this build and this Node (`node`, else as `tracer run` finds it) can do, and the
/// browser a recording would use (`browser`, else as `tracer record` finds it).
pub fn report(node: Option<&Path>, browser: Option<&Path>) -> serde_json::Value {
    let mut notes: Vec<String> = Vec::new();
    let node = match find::find_node(node) {
        Ok(path) => Some(path),
        Err(e) => {
            notes.push(e.to_string());
            None
        }
    };
    let node_version = node.as_deref().and_then(|node| match version_of(node) {
        Ok(version) => Some(version),
        Err(e) => {
            notes.push(format!("`{} --version` failed: {e:#}", node.display()));
            None
        }
    });
    let probe = match &node {
        Some(node) => probe(node).unwrap_or_else(|e| {
            notes.push(format!("the probe program could not be traced: {e:#}"));
            Probe::default()
        }),
        None => Probe::default(),
    };
    notes.extend(probe.notes.iter().cloned());
    let browser = find_browser(browser);
    let browser = match browser {
        Some(path) => {
            let version = version_of(&path)
                .map_err(|e| notes.push(format!("`{} --version` failed: {e:#}", path.display())))
                .ok();
            json!({"path": path.display().to_string(), "version": version})
        }
        None => serde_json::Value::Null,
    };
    // Probed by installing the filter in a throwaway child and trying a refused connect.
    let guard = crate::guard::capability();
    // Probed by making the audit's whole sandbox once, with nothing run in it.
    let sandbox = crate::sandbox::capability();
    json!({
        "tracer": env!("CARGO_PKG_VERSION"),
        "node": node.as_ref().map(|path| json!({
            "path": path.display().to_string(),
            "version": node_version.or(probe.node_version),
        })),
        "inspector": probe.inspector,
        "sourceMapping": probe.source_mapping,
        "replay": "timeline",
        "workers": probe.workers,
        "noSendGuard": {"available": guard.available, "reason": guard.reason},
        "auditSandbox": {
            "available": sandbox.available,
            "namespaces": if sandbox.available { crate::sandbox::NAMESPACES.as_slice() } else { &[] },
            "reason": sandbox.reason,
        },
        "browser": browser,
        "notes": notes,
    })
}

/// What tracing the probe program showed.
#[derive(Default)]
struct Probe {
    inspector: bool,
    source_mapping: bool,
    workers: bool,
    node_version: Option<String>,
    notes: Vec<String>,
}

/// Traces the probe program with the engine of `tracer run`, in a temporary folder.
fn probe(node: &Path) -> Result<Probe> {
    let dir = tempfile::Builder::new()
        .prefix("tracer-capabilities-")
        .tempdir()
        .context("creating a temporary folder for the probe")?;
    let root = dir.path().canonicalize()?;
    let script = root.join("probe.js");
    std::fs::write(&script, PROBE_JS)?;
    // The source the map names, on disk as a source is (a map's source that is not a file is
    // left for the built file's position).
    std::fs::write(root.join("probe.ts"), PROBE_JS)?;
    let lines = PROBE_JS.lines().count();
    let mappings = std::iter::once("AAAA")
        .chain(std::iter::repeat_n("AACA", lines.saturating_sub(1)))
        .collect::<Vec<_>>()
        .join(";");
    std::fs::write(
        root.join("probe.js.map"),
        json!({"version": 3, "file": "probe.js", "sources": ["probe.ts"], "names": [],
               "mappings": mappings})
        .to_string(),
    )?;
    let config = engine::Config {
        target: script,
        timeout: Some(PROBE_TIMEOUT),
        attach_timeout: 15.0,
        out: root.join(".tracer"),
        keep: 1,
        max_events: 1000,
        node: Some(node.to_owned()),
        workspace: Some(root.clone()),
        cwd: Some(root.clone()),
        default_redact: true,
        quiet: true,
        ..engine::Config::default()
    };
    let traced = engine::execute(&config, &Styles::default())?;
    let session = traced.session;
    let console = |value: &str| {
        session
            .events
            .iter()
            .find(|e| e.kind == Kind::Console && e.value.as_deref() == Some(value))
    };
    let mut probe = Probe {
        inspector: session.capabilities.inspector,
        node_version: session.capabilities.node_version.clone(),
        ..Probe::default()
    };
    match console(PROBE_MAIN) {
        Some(event) => {
            probe.source_mapping = event
                .file
                .as_deref()
                .is_some_and(|f| f.ends_with("probe.ts"))
                && event.generated.is_some();
            if !probe.source_mapping {
                probe
                    .notes
                    .push("the probe's console call was not mapped to its .ts source".into());
            }
        }
        None => probe
            .notes
            .push("the probe's console call on the main thread was not captured".into()),
    }
    probe.workers = console(PROBE_WORKER).is_some_and(|e| e.worker.is_some());
    if !probe.workers {
        probe
            .notes
            .push("the probe's worker thread was not captured".into());
    }
    Ok(probe)
}

/// The browser a recording would use: the one asked for, else the first known name on PATH.
fn find_browser(requested: Option<&Path>) -> Option<PathBuf> {
    match requested {
        Some(path) if path.components().count() > 1 => path.is_file().then(|| path.to_owned()),
        Some(name) => find::search_path(name.as_os_str()),
        None => BROWSERS
            .iter()
            .find_map(|name| find::search_path(OsStr::new(name))),
    }
}

/// The first line `PROGRAM --version` prints, within [`VERSION_TIMEOUT`].
fn version_of(program: &Path) -> Result<String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        let _ = tx.send(text);
    });
    let status = group::wait_for(&mut child, VERSION_TIMEOUT)?;
    let Some(status) = status else {
        let _ = child.kill();
        let _ = child.wait();
        anyhow::bail!("no answer within {VERSION_TIMEOUT:?}");
    };
    let text = rx.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
    let first = text.lines().next().unwrap_or("").trim().to_owned();
    if !status.success() || first.is_empty() {
        anyhow::bail!("exited with {status} and printed {first:?}");
    }
    Ok(first)
}
