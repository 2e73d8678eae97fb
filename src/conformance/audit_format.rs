//! The audit file format (`case-runtime-audit/v3`, `case/tmp/node-trace-runtime-audit.json`) as
//! serde types, so that the check can read it. Writing an audit (running the entry under the
//! inspector with the network guard) is the `tracer audit` runner's job, which is not part of this
//! module. Every field is optional here on purpose: a missing trusted field is a finding of the
//! check, not a parse error.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conformance::hash::SourceFile;

pub const VERSION: &str = "case-runtime-audit/v3";
/// Where the audit lives, relative to the case folder.
pub const JSON_PATH: &str = "tmp/node-trace-runtime-audit.json";

#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Audit {
    pub probe_version: Option<String>,
    pub baseline_id: Option<String>,
    pub contract_hash: Option<String>,
    pub trace_source_hash: Option<String>,
    pub runtime_source_hash: Option<String>,
    /// The files behind `runtimeSourceHash` with their digests (additive), so the check can name
    /// which file under `case/result/` changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_sources: Option<Vec<SourceFile>>,
    /// Counted by the tool's own network guard.
    pub network_attempts: Option<u64>,
    /// What the guard blocked, in order.
    #[serde(default)]
    pub transcript: Vec<NetworkAttempt>,
    pub entry: Option<String>,
    pub runtime: Option<String>,
    pub runtime_version: Option<String>,
    pub exit_code: Option<i64>,
    /// Additive: how the entry failed, when it did (a Node entry's: the failure of the run's
    /// evidence chain; a Python entry's: its last traceback), its file relative to the case
    /// folder; the check lists it with the exit code as an `ENTRY_FAILED` risk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_failure: Option<EntryFailure>,
    pub generated_at: Option<String>,
    /// Appended by the runtime as each stateful event happens; `sequence` strictly increasing.
    #[serde(default)]
    pub timeline: Vec<TimelineEntry>,
    #[serde(default)]
    pub observations: Vec<Observation>,
    /// Additive: the request-level side of the no-send transcript — what the runtime tried to
    /// send (method, URL, header names in order, body length/shape/digest), in order, as the tool's
    /// request observer saw it. Absent when the tool had no request-level view (Python entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<Vec<crate::conformance::requests::Request>>,
    /// Additive: the requests the script made in the environment (its `open` /
    /// `setRequestHeader` / `send`, `fetch` and `sendBeacon` calls), from the tool's recording,
    /// in order; whether or not the environment passed them on to the network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_requests: Option<Vec<crate::conformance::requests::Request>>,
    /// Additive: how the tool recorded the environment at access time (Node entries only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<Recording>,
    /// Additive: what kept the audited code from reaching the tool while it ran (`tracer audit`
    /// fills it; an audit without it was made without a sandbox, and the check says so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxRecord>,
    /// Additive: the seal `tracer audit` puts on what it wrote (`hmac-sha256:…` over the rest of
    /// the file, see `conformance::seal`); the check blocks an audit without a valid one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
}

/// The audit's `sandbox` section: what was in force while the entry ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SandboxRecord {
    /// The entry ran in namespaces of its own (`namespaces`), out of sight of the tool.
    pub in_force: bool,
    /// The namespaces made for it: `user`, `pid`, `mount`, `network`, `ipc`. Empty when none.
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// Folders the entry could not see (an empty read-only file system over each): the tool's
    /// state folder (the seal's key, its own recording), `/dev/net`.
    #[serde(default)]
    pub hidden: Vec<String>,
    /// The tool itself was not dumpable: its memory could not be opened by the entry's user.
    pub tool_not_dumpable: bool,
    /// Landlock's scopes the entry ran in (`signal`, `abstract-unix-socket`: nothing signalled,
    /// reached through an abstract socket or traced outside its tree), when the kernel has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    /// Why there was no sandbox, when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// How the tool recorded the environment itself (additive; Node entries): the trace it wrote, what
/// it kept and left out, and where the probe went in.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Recording {
    /// The recording, relative to the case folder (`tmp/node-trace.ndjson`).
    pub trace: String,
    /// Access lines written (the target's).
    pub accesses: u64,
    /// Accesses made by the environment's own code, left out.
    pub left_out: u64,
    /// The script that made them (the nearest frame's URL), with how many each: the first 20
    /// scripts.
    #[serde(default)]
    pub left_out_by: BTreeMap<String, u64>,
    /// Scripts the tool paused before (one pause per script run).
    pub pauses: u64,
    /// The program's execution contexts, and where the probe went in.
    pub realms: Vec<RecordedRealm>,
    /// Realm ids the records came from (`main#0`, `iframe#0`).
    pub recorded_realms: Vec<String>,
    /// What went wrong, in words.
    #[serde(default)]
    pub problems: Vec<String>,
    /// Errors of the page's own script the environment reported while the entry ran (its console
    /// printed them with their stack, whose first frame is a script of the page's), each once, the
    /// first 20 (additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub page_errors: Vec<PageError>,
    /// How many more there were (additive).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub page_errors_left_out: u64,
    /// Whether the probe was also asked, for each item whose receiver is of another class than
    /// the member's owner, the path on the receiver's class (`HTMLDivElement.prototype.clientWidth`
    /// beside `Element.prototype.clientWidth`): a path so asked and not in a realm's `absent`
    /// resolves there (additive).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub receiver_paths_checked: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// An error of the page's script, as the environment reported it: `ReferenceError: mylib is not
/// defined` at `file:///…/page.html:5:10` (1-based, as V8 prints a stack).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageError {
    pub name: String,
    pub message: String,
    pub url: String,
    pub line: u32,
    pub column: u32,
}

impl PageError {
    /// `ReferenceError: mylib is not defined at page.html:5:10`.
    pub fn describe(&self) -> String {
        let file = self
            .url
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
            .rsplit('/')
            .next()
            .unwrap_or_default();
        format!(
            "{}: {} at {file}:{}:{}",
            self.name, self.message, self.line, self.column
        )
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordedRealm {
    pub context_id: i64,
    /// The inspector's name for it (`VM Context 1` for a jsdom window).
    pub name: String,
    pub is_default: bool,
    /// The script the probe went in before; absent: the realm was never probed (no script of the
    /// target's ran in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probed_before: Option<String>,
    /// Members the probe wrapped there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrapped: Option<u64>,
    /// The scripts V8 compiled in it before the probe went in (the environment's own setup).
    pub scripts_before: u64,
    /// The realm's kind as the probe found it (`main`, `iframe`, `worker`): the contract's
    /// `realm` (additive; absent for a realm never probed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The contract's paths of this kind of realm that did not resolve there before the target
    /// ran, each with the part of it the realm lacks (additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<AbsentPath>,
    /// The contract's paths that resolved there to a property the probe cannot watch (an own data
    /// property of an object), so that no access of it can be recorded (additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unwatched: Vec<String>,
    /// The contract's paths that resolved there to a member another realm's probe had wrapped
    /// (one class every window of the environment shares, as happy-dom's are): its accesses are
    /// recorded in that realm's name, so none is recorded in this one (additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared: Vec<String>,
}

/// A path every audit checks in the `main` realm besides the contract's items (see
/// `recording.realms[].absent`): what a page calls to mark its phases and its end for tracer, which
/// no trace records.
pub const TOOL_MARK_PATH: &str = "performance.mark";

/// A path that does not resolve in a realm: `missing` is its first part that does not
/// (`CanvasRenderingContext2D` for `CanvasRenderingContext2D.prototype.font`; the path itself
/// when only its last member is lacking).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AbsentPath {
    pub path: String,
    pub missing: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    pub contract_id: String,
    pub sequence: u64,
    pub object: String,
    pub event: String,
}

/// What the runtime observed for one contract item (or for a host API the contract lacks).
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    /// The contract item; absent for a host API the trace never recorded.
    #[serde(default)]
    pub id: Option<String>,
    pub api: String,
    pub access_type: String,
    pub realm: String,
    pub receiver: String,
    pub phase: String,
    /// `entry` (the entry's raw observations, the default) or `node-trace` (derived from the
    /// tool's own recording of the environment at access time). Additive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Every distinct value seen per dimension.
    #[serde(default)]
    pub observations: BTreeMap<String, Vec<Value>>,
    /// The `seq` of the first access of the item in the tool's recording (additive): where the
    /// runtime's order is compared with the reference's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_seq: Option<u64>,
}

/// The audit's `entryFailure`: what ended the entry badly, as the run's evidence chain has it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntryFailure {
    /// `exception`, `exit`, … (the evidence chain's `failure.kind`).
    pub kind: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl Audit {
    /// How the entry ended when it did not end well (`exited with code 1 (Error: … at
    /// result/final.js:2:26)`), else `None`; an audit that records no exit code (a hand-made one)
    /// says nothing either way, and an exit without a place says no more than the code does.
    pub fn entry_ended(&self) -> Option<String> {
        let how = self
            .entry_failure
            .as_ref()
            .filter(|f| f.kind != "exit" || f.file.is_some())
            .map(|f| f.describe());
        match (self.exit_code, &how) {
            (Some(0), _) | (None, None) => None,
            (Some(code), Some(how)) => Some(format!("exited with code {code} ({how})")),
            (Some(code), None) => Some(format!("exited with code {code}")),
            (None, Some(how)) => Some(format!("failed ({how})")),
        }
    }
}

impl EntryFailure {
    /// `Error: boom at result/final.js:12:5`.
    pub fn describe(&self) -> String {
        match (&self.file, self.line, self.column) {
            (Some(file), Some(line), Some(column)) => {
                format!("{} at {file}:{line}:{column}", self.message)
            }
            (Some(file), Some(line), None) => format!("{} at {file}:{line}", self.message),
            (Some(file), None, _) => format!("{} in {file}", self.message),
            _ => self.message.clone(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkAttempt {
    /// `net`, `tls`, `http`, `https`, `fetch`, `dgram`, `dns`, `socket`, `urllib`, `requests`.
    #[serde(default)]
    pub module: Option<String>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub body_digest: Option<String>,
    /// Additive: the address family (`ipv4`, `ipv6`, …) the kernel-level guard saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// Additive: which process of the entry's tree tried (pid and name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<String>,
}

impl NetworkAttempt {
    pub fn describe(&self) -> String {
        let target = self.url.clone().or_else(|| {
            self.host.as_ref().map(|h| match self.port {
                Some(p) => format!("{h}:{p}"),
                None => h.clone(),
            })
        });
        let mut text = [self.module.clone(), self.method.clone(), target]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        // A connection to port 53 is a name being looked up: what was to be reached comes after.
        if self.port == Some(53) && self.url.is_none() {
            text.push_str(" (a name lookup)");
        }
        match (self.pid, self.process.as_deref()) {
            (Some(pid), Some(process)) => text.push_str(&format!(" by `{process}` (pid {pid})")),
            (Some(pid), None) => text.push_str(&format!(" by pid {pid}")),
            _ => {}
        }
        text
    }
}
