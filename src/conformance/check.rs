//! The check: from the contract, the audit and the files on disk now, computes the diff
//! (`trace-runtime-diff/v1`): blocking findings with stable codes, P2 risks, unverified pending
//! dimensions, and `matched`, which exists nowhere else. It recomputes every hash from disk and
//! trusts none written in a file. It reads files and returns a [`Diff`]; writing the diff and
//! choosing the exit code is the command's job.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conformance::audit_format::{self, Audit, Observation, TimelineEntry};
use crate::conformance::contract::{self, Contract, Fold, Timeline, TimelineBuilder};
use crate::conformance::finding;
pub use crate::conformance::finding::Finding;
use crate::conformance::hash;
use crate::conformance::missing;
use crate::conformance::policy::{self, Class, Policy};
use crate::conformance::raw_trace;
use crate::conformance::requests::{self, RequestsReport};
use crate::conformance::seal;
use crate::conformance::worklist;

pub const VERSION: &str = "trace-runtime-diff/v1";
pub const JSON_PATH: &str = "notes/trace-runtime-diff.json";
pub const MD_PATH: &str = "notes/trace-runtime-diff.md";

/// Globals only Node has: a script that reaches one has found a Node leak.
pub const NODE_GLOBALS: &[&str] = &[
    "process",
    "Buffer",
    "require",
    "global",
    "module",
    "exports",
    "__dirname",
    "__filename",
    "setImmediate",
    "clearImmediate",
];

/// The stable codes of the diff. Each is documented in `docs/conformance.md`.
pub mod code {
    pub const MISSING_CONTRACT: &str = "MISSING_CONTRACT";
    pub const MISSING_AUDIT: &str = "MISSING_AUDIT";
    pub const UNREADABLE_INPUT: &str = "UNREADABLE_INPUT";
    pub const OLD_VERSION: &str = "OLD_VERSION";
    pub const STALE_CONTRACT: &str = "STALE_CONTRACT";
    pub const STALE_AUDIT: &str = "STALE_AUDIT";
    pub const MISSING_METADATA: &str = "MISSING_METADATA";
    pub const AUDIT_NOT_SEALED: &str = "AUDIT_NOT_SEALED";
    pub const AUDIT_SEAL_BROKEN: &str = "AUDIT_SEAL_BROKEN";
    pub const NETWORK_ATTEMPTED: &str = "NETWORK_ATTEMPTED";
    pub const NO_SANDBOX: &str = "NO_SANDBOX";
    pub const TIMELINE_NOT_RAW: &str = "TIMELINE_NOT_RAW";
    pub const TIMELINE_MISMATCH: &str = "TIMELINE_MISMATCH";
    pub const NO_GLOBAL_ORDER: &str = "NO_GLOBAL_ORDER";
    pub const MISSING_OBSERVATION: &str = "MISSING_OBSERVATION";
    pub const DIMENSION_MISMATCH: &str = "DIMENSION_MISMATCH";
    pub const OBSERVATION_CONTRADICTED: &str = "OBSERVATION_CONTRADICTED";
    pub const UNCLASSIFIED_HOST_API: &str = "UNCLASSIFIED_HOST_API";
    pub const NODE_LEAK: &str = "NODE_LEAK";
    pub const DYNAMIC_BRANCH: &str = "DYNAMIC_BRANCH";
}

/// One hash or id as the contract has it, as the audit has it, and as computed from disk now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Triple {
    pub contract: Option<String>,
    pub audit: Option<String>,
    pub disk: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hashes {
    pub baseline_id: Triple,
    pub trace_source_hash: Triple,
    pub contract_hash: Triple,
    pub runtime_source_hash: Triple,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub items: usize,
    pub p0: usize,
    pub p1: usize,
    pub p2: usize,
    pub observed: usize,
    pub blocking: usize,
    pub risks: usize,
    /// Pending dimensions over all items: listed, never counted as matched.
    pub unverified: usize,
    /// Items without an observation (blocking and risks), by the cause the tool checked
    /// (`environment-lacks`, `not-reached`, `probe-blind`). Additive.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub missing: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Unverified {
    pub item: String,
    pub priority: String,
    pub api: String,
    pub access_type: String,
    pub dimensions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    pub version: String,
    pub generated_by: String,
    /// True only when there is no blocking finding. Computed here and nowhere else.
    pub matched: bool,
    /// Whether the environment tried to send the requests the browser sent, request by request in
    /// order (additive; `null` when the audit has no request-level view). Request differences are
    /// reported in `requests`; they do not change `matched`.
    pub requests_matched: Option<bool>,
    pub counts: Counts,
    pub hashes: Hashes,
    pub blocking: Vec<Finding>,
    pub risks: Vec<Finding>,
    pub unverified: Vec<Unverified>,
    /// The request-semantics section (additive).
    pub requests: RequestsReport,
    /// The blocking findings grouped by what one change to the environment fixes, largest
    /// first (additive; see [`worklist`]).
    #[serde(default)]
    pub groups: Vec<worklist::Group>,
}

/// The diff, and whether an input was unreadable or of an unknown version (exit 2 rather than 3).
pub struct Outcome {
    pub diff: Diff,
    pub bad_input: bool,
}

#[derive(Default)]
struct State {
    blocking: Vec<Finding>,
    risks: Vec<Finding>,
    bad_input: bool,
}

impl State {
    fn block(&mut self, finding: Finding) {
        self.blocking.push(finding);
    }

    fn unreadable(&mut self, message: String) {
        self.bad_input = true;
        self.block(Finding::new(
            code::UNREADABLE_INPUT,
            message,
            "fix or regenerate the file (rebuild the contract, or audit again)",
        ));
    }
}

/// A JSON input file as the check found it.
enum Read {
    Missing,
    /// Unreadable or not JSON: already reported as `UNREADABLE_INPUT`.
    Unreadable,
    Value(Value),
}

fn read_value(path: &Path, shown: &str, state: &mut State) -> Read {
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Missing,
        Err(e) => {
            state.unreadable(format!("{}: cannot read: {e}", shown));
            return Read::Unreadable;
        }
    };
    match serde_json::from_slice::<Value>(&text) {
        Ok(value) => Read::Value(value),
        Err(e) => {
            state.unreadable(format!(
                "{}:{}:{}: not valid JSON ({e}); was it left half-written?",
                shown,
                e.line(),
                e.column()
            ));
            Read::Unreadable
        }
    }
}

/// Whether a version string is one of the old versions `v1`/`v2` of `family`.
fn is_old(version: &str, family: &str) -> bool {
    version == format!("{family}/v1") || version == format!("{family}/v2")
}

fn family_of(version: &str) -> &str {
    version.rsplit_once('/').map_or(version, |(f, _)| f)
}

/// Where a path written in the contract is on disk.
fn resolve(case_dir: &Path, path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_owned()
    } else {
        case_dir.join(p)
    }
}

/// Runs the check on the case folder; `label` is the folder as the user named it, used in messages
/// so that the diff does not depend on where the case lives.
pub fn check(case_dir: &Path, label: &str) -> Outcome {
    let mut st = State::default();
    let mut hashes = Hashes::default();
    let contract_path = case_dir.join(contract::JSON_PATH);
    let audit_path = case_dir.join(audit_format::JSON_PATH);

    let shown = |rel: &str| format!("{label}/{rel}");
    let contract = load_contract(
        &contract_path,
        &shown(contract::JSON_PATH),
        label,
        &mut st,
        &mut hashes,
    );
    if let Some(c) = &contract {
        check_contract_against_disk(case_dir, c, &mut st, &mut hashes);
    }
    let policy = match Policy::load(case_dir) {
        Ok(p) => p.unwrap_or_default(),
        Err(e) => {
            st.unreadable(format!("{e:#}"));
            Policy::default()
        }
    };
    let audit = load_audit(&audit_path, &shown(audit_format::JSON_PATH), label, &mut st);
    match hash::runtime_source(&case_dir.join("result")) {
        Ok((h, _)) => hashes.runtime_source_hash.disk = Some(h),
        Err(e) => st.unreadable(format!("{e:#}")),
    }
    if let Some(a) = &audit {
        check_audit_metadata(case_dir, contract.as_ref(), a, &mut st, &mut hashes);
    }
    let mut counts = Counts::default();
    let mut unverified = Vec::new();
    if let Some(c) = &contract {
        counts.items = c.items.len();
        for item in &c.items {
            match item.priority.as_str() {
                "P0" => counts.p0 += 1,
                "P1" => counts.p1 += 1,
                _ => counts.p2 += 1,
            }
            if !item.pending.is_empty() {
                counts.unverified += item.pending.len();
                unverified.push(Unverified {
                    item: item.id.clone(),
                    priority: item.priority.clone(),
                    api: item.api.clone(),
                    access_type: item.access_type.clone(),
                    dimensions: item.pending.clone(),
                });
            }
        }
    }
    let mut requests = RequestsReport::default();
    if let (Some(c), Some(a)) = (&contract, &audit) {
        counts.observed = compare_items(c, a, &policy, &mut st);
        compare_timelines(c, &a.timeline, &mut st);
        requests = requests::compare_views(
            &c.requests,
            a.script_requests.as_deref(),
            a.requests.as_deref(),
        );
    }
    for f in st.blocking.iter().chain(&st.risks) {
        if let Some(cause) = f
            .cause
            .as_ref()
            .filter(|_| f.code == code::MISSING_OBSERVATION)
        {
            *counts.missing.entry(cause.clone()).or_default() += 1;
        }
    }
    counts.blocking = st.blocking.len();
    counts.risks = st.risks.len();
    let diff = Diff {
        version: VERSION.to_owned(),
        generated_by: format!("tracer {}", env!("CARGO_PKG_VERSION")),
        matched: st.blocking.is_empty(),
        requests_matched: requests.matched(),
        groups: worklist::groups(&st.blocking),
        counts,
        hashes,
        blocking: st.blocking,
        risks: st.risks,
        unverified,
        requests,
    };
    Outcome {
        diff,
        bad_input: st.bad_input,
    }
}

fn load_contract(
    path: &Path,
    shown: &str,
    label: &str,
    st: &mut State,
    hashes: &mut Hashes,
) -> Option<Contract> {
    let value = match read_value(path, shown, st) {
        Read::Value(value) => value,
        Read::Unreadable => return None,
        Read::Missing => {
            st.block(Finding::new(
                code::MISSING_CONTRACT,
                format!("no contract at {}", shown),
                format!("build it: `tracer contract build --case-dir {label}`"),
            ));
            return None;
        }
    };
    let version = value
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if version != contract::VERSION {
        if is_old(&version, family_of(contract::VERSION)) {
            st.block(Finding::new(
                code::OLD_VERSION,
                format!(
                    "{}: version `{version}`, this tracer reads `{}`",
                    shown,
                    contract::VERSION
                ),
                "rebuild the contract with `tracer contract build`",
            ));
        } else {
            st.unreadable(format!(
                "{}: version `{version}` is not `{}`",
                shown,
                contract::VERSION
            ));
        }
        return None;
    }
    let recomputed = hash::contract(&value);
    let contract: Contract = match serde_json::from_value(value) {
        Ok(c) => c,
        Err(e) => {
            st.unreadable(format!(
                "{}: not a valid {} file ({e})",
                shown,
                contract::VERSION
            ));
            return None;
        }
    };
    hashes.contract_hash.contract = Some(contract.contract_hash.clone());
    hashes.contract_hash.disk = Some(recomputed.clone());
    hashes.baseline_id.contract = contract.baseline_id.clone();
    hashes.trace_source_hash.contract = Some(contract.trace_source_hash.clone());
    if recomputed != contract.contract_hash {
        st.block(
            Finding::new(
                code::STALE_CONTRACT,
                "the contract's contractHash does not match its content: it was edited after it was built",
                "rebuild the contract with `tracer contract build`; never edit it by hand",
            )
            .dimension(
                "contractHash",
                Some(recomputed.into()),
                Some(contract.contract_hash.clone().into()),
            ),
        );
    }
    Some(contract)
}

fn check_contract_against_disk(case_dir: &Path, c: &Contract, st: &mut State, hashes: &mut Hashes) {
    let rebuild = "rebuild the contract with `tracer contract build`, then audit again";
    let mut files = Vec::new();
    let mut all_present = true;
    for t in &c.traces {
        let path = resolve(case_dir, &t.path);
        match hash::of_file(&path) {
            Ok(now) if now == t.sha256 => {}
            Ok(now) => st.block(
                Finding::new(
                    code::STALE_CONTRACT,
                    format!("trace {} changed since the contract was built", t.path),
                    rebuild,
                )
                .dimension(
                    "traces",
                    Some(now.into()),
                    Some(t.sha256.clone().into()),
                ),
            ),
            Err(e) => {
                all_present = false;
                st.block(Finding::new(
                    code::STALE_CONTRACT,
                    format!("trace {} cannot be read now ({e})", t.path),
                    rebuild,
                ));
            }
        }
        files.push(path);
    }
    if all_present {
        match hash::trace_source(&files) {
            Ok(now) => {
                if now != c.trace_source_hash {
                    st.block(
                        Finding::new(
                            code::STALE_CONTRACT,
                            "traceSourceHash of the trace files on disk differs from the contract's",
                            rebuild,
                        )
                        .dimension(
                            "traceSourceHash",
                            Some(now.clone().into()),
                            Some(c.trace_source_hash.clone().into()),
                        ),
                    );
                }
                hashes.trace_source_hash.disk = Some(now);
            }
            Err(e) => st.unreadable(format!("hashing the trace files: {e}")),
        }
        if files.len() > 1 {
            // Shards must still form one capture with one global order.
            let mut baseline = None;
            match raw_trace::read_capture(&files, case_dir, |_, _| Ok(())) {
                Ok(summary) => baseline = Some(summary.baseline_id),
                Err(e) => st.block(Finding::new(
                    code::NO_GLOBAL_ORDER,
                    format!("the contract's traces have no single global order: {e:#}"),
                    "give the shards of one capture to `tracer contract build --trace`",
                )),
            }
            if let Some(b) = baseline {
                hashes.baseline_id.disk = b;
            }
        } else if let Some(first) = files.first() {
            match raw_trace::read_header(first, c.traces[0].path.clone()) {
                Ok(h) => hashes.baseline_id.disk = h.baseline_id,
                Err(e) => st.unreadable(format!("{e:#}")),
            }
        }
    }
    // A baseline given with --baseline-id to a header-less trace stays the contract's.
    if hashes.baseline_id.disk.is_none() {
        hashes.baseline_id.disk = c.baseline_id.clone();
    }
    if hashes.baseline_id.disk != c.baseline_id {
        st.block(
            Finding::new(
                code::STALE_CONTRACT,
                "the trace on disk has another baselineId than the contract",
                rebuild,
            )
            .dimension(
                "baselineId",
                hashes.baseline_id.disk.clone().map(Value::from),
                c.baseline_id.clone().map(Value::from),
            ),
        );
    }
    let policy_path = case_dir.join(policy::RELATIVE_PATH);
    let policy_now = hash::of_file(&policy_path).ok();
    let policy_then = c.policy.as_ref().map(|p| p.sha256.clone());
    if policy_now != policy_then {
        st.block(Finding::new(
            code::STALE_CONTRACT,
            format!(
                "{} changed since the contract was built",
                policy::RELATIVE_PATH
            ),
            rebuild,
        ));
    }
}

fn load_audit(path: &Path, shown: &str, label: &str, st: &mut State) -> Option<Audit> {
    let value = match read_value(path, shown, st) {
        Read::Value(value) => value,
        Read::Unreadable => return None,
        Read::Missing => {
            st.block(Finding::new(
                code::MISSING_AUDIT,
                format!("no audit at {}", shown),
                format!(
                    "audit the environment: `tracer audit --case-dir {label} --entry {label}/result/final.js`"
                ),
            ));
            return None;
        }
    };
    match value.get("probeVersion") {
        None | Some(Value::Null) => st.block(Finding::new(
            code::MISSING_METADATA,
            format!("{}: no probeVersion", shown),
            "audit again with `tracer audit`; only the tool writes the audit's metadata",
        )),
        Some(v) => {
            let version = v.as_str().unwrap_or_default();
            if version != audit_format::VERSION {
                if is_old(version, family_of(audit_format::VERSION)) {
                    st.block(Finding::new(
                        code::OLD_VERSION,
                        format!(
                            "{}: probeVersion `{version}`, this tracer reads `{}`",
                            shown,
                            audit_format::VERSION
                        ),
                        "audit again with `tracer audit`",
                    ));
                } else {
                    st.unreadable(format!(
                        "{}: probeVersion `{version}` is not `{}`",
                        shown,
                        audit_format::VERSION
                    ));
                }
                return None;
            }
        }
    }
    // Only an audit the tool wrote, unchanged since, is compared as the tool's.
    let again = format!(
        "audit again with `tracer audit --case-dir {label}`: only an audit tracer wrote, unchanged, is checked"
    );
    match seal::verify(&value, seal::state_dir().as_deref()) {
        seal::Verdict::Valid => {}
        seal::Verdict::Missing => st.block(Finding::new(
            code::AUDIT_NOT_SEALED,
            format!("{shown}: the audit carries no seal (`integrity`)"),
            again.clone(),
        )),
        seal::Verdict::NoKey(why) => st.block(Finding::new(
            code::AUDIT_NOT_SEALED,
            format!("{shown}: the audit's seal cannot be verified here ({why})"),
            again.clone(),
        )),
        seal::Verdict::Mismatch => st.block(Finding::new(
            code::AUDIT_SEAL_BROKEN,
            format!("{shown}: the audit's seal does not verify: it was changed after `tracer audit` wrote it, or made with another key"),
            again.clone(),
        )),
    }
    match serde_json::from_value::<Audit>(value) {
        Ok(a) => Some(a),
        Err(e) => {
            st.unreadable(format!(
                "{}: not a valid {} file ({e})",
                shown,
                audit_format::VERSION
            ));
            None
        }
    }
}

fn check_audit_metadata(
    case_dir: &Path,
    c: Option<&Contract>,
    a: &Audit,
    st: &mut State,
    hashes: &mut Hashes,
) {
    let again = "audit again with `tracer audit`: the audit was made against other files";
    hashes.baseline_id.audit = a.baseline_id.clone();
    hashes.contract_hash.audit = a.contract_hash.clone();
    hashes.trace_source_hash.audit = a.trace_source_hash.clone();
    hashes.runtime_source_hash.audit = a.runtime_source_hash.clone();
    let stale =
        |what: &str, expected: Option<&String>, observed: Option<&String>, st: &mut State| {
            if expected != observed {
                st.block(
                    Finding::new(
                        code::STALE_AUDIT,
                        format!("{what} differs between the audit and the files now"),
                        again,
                    )
                    .dimension(
                        what,
                        expected.cloned().map(Value::from),
                        observed.cloned().map(Value::from),
                    ),
                );
            }
        };
    if let Some(c) = c {
        stale(
            "baselineId",
            c.baseline_id.as_ref(),
            a.baseline_id.as_ref(),
            st,
        );
        stale(
            "contractHash",
            hashes.contract_hash.disk.as_ref(),
            a.contract_hash.as_ref(),
            st,
        );
        let trace_now = hashes
            .trace_source_hash
            .disk
            .clone()
            .unwrap_or_else(|| c.trace_source_hash.clone());
        stale(
            "traceSourceHash",
            Some(&trace_now),
            a.trace_source_hash.as_ref(),
            st,
        );
    }
    match &a.runtime_source_hash {
        None => st.block(Finding::new(
            code::MISSING_METADATA,
            "the audit has no runtimeSourceHash",
            "audit again with `tracer audit`; only the tool writes the audit's metadata",
        )),
        Some(recorded) if Some(recorded) != hashes.runtime_source_hash.disk.as_ref() => {
            let changed = match (
                &a.runtime_sources,
                hash::runtime_source(&case_dir.join("result")),
            ) {
                (Some(then), Ok((_, now))) => changed_files(then, &now),
                _ => "some file under result/ changed".to_owned(),
            };
            st.block(
                Finding::new(
                    code::STALE_AUDIT,
                    format!("case/result/ changed since the audit: {changed}"),
                    again,
                )
                .dimension(
                    "runtimeSourceHash",
                    hashes.runtime_source_hash.disk.clone().map(Value::from),
                    Some(recorded.clone().into()),
                ),
            );
        }
        Some(_) => {}
    }
    // The sandbox is what keeps the audited code from the tool (its memory, its key, its
    // processes): without it the verdict still stands, with that risk named.
    if !a.sandbox.as_ref().is_some_and(|s| s.in_force) {
        let why = a
            .sandbox
            .as_ref()
            .and_then(|s| s.reason.clone())
            .unwrap_or_else(|| "the audit records no sandbox".to_owned());
        let mut f = Finding::new(
            code::NO_SANDBOX,
            format!(
                "the entry ran without the sandbox ({why}): it could reach the tool as the same user"
            ),
            "audit where user namespaces are allowed (see docs/security.md, \"The audit's sandbox\")",
        );
        f.priority = Some("P2".into());
        st.risks.push(f);
    }
    match a.network_attempts {
        None => st.block(Finding::new(
            code::MISSING_METADATA,
            "the audit has no networkAttempts",
            "audit again with `tracer audit`; only the tool's network guard counts attempts",
        )),
        Some(n) if n > 0 || !a.transcript.is_empty() => {
            let list: Vec<String> = a.transcript.iter().map(|t| t.describe()).collect();
            st.block(
                Finding::new(
                    code::NETWORK_ATTEMPTED,
                    format!(
                        "the environment tried to reach the network {} time(s) while auditing{}",
                        n.max(a.transcript.len() as u64),
                        if list.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", list.join("; "))
                        }
                    ),
                    "remove the request, or make the environment send nothing in no-send mode",
                )
                .dimension("networkAttempts", Some(0.into()), Some(n.into())),
            );
        }
        Some(_) => {}
    }
}

/// "final.js changed, lib/x.js added, old.js removed".
fn changed_files(then: &[hash::SourceFile], now: &[hash::SourceFile]) -> String {
    let before: HashMap<&str, &str> = then
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    let after: HashMap<&str, &str> = now
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    let mut parts = Vec::new();
    for f in now {
        match before.get(f.path.as_str()) {
            None => parts.push(format!("result/{} added", f.path)),
            Some(h) if *h != f.sha256 => parts.push(format!("result/{} changed", f.path)),
            Some(_) => {}
        }
    }
    for f in then {
        if !after.contains_key(f.path.as_str()) {
            parts.push(format!("result/{} removed", f.path));
        }
    }
    if parts.is_empty() {
        "the files are the same but the hash differs".to_owned()
    } else {
        parts.join(", ")
    }
}

/// Whether two values say the same thing where both sampled it. Absent is "not sampled", at any
/// depth: inside an object (a descriptor, an `Fn`, an exception), a field only one side has is
/// not compared (`{"kind":"accessor","get":…}` agrees with the same plus `"set":null`). An
/// encoded value (`{"$undefined":true}`, `{"$object":…}`, …) is of one kind on both sides: its `$`
/// keys are compared as a set; its other fields (a plain object's `props`) as any object's.
/// `$object` ids only link lines within one trace and are never compared.
pub fn agrees(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let encoded = |m: &serde_json::Map<String, Value>| m.keys().any(|k| k.starts_with('$'));
            if encoded(x) || encoded(y) {
                let kinds = |m: &serde_json::Map<String, Value>| {
                    m.keys()
                        .filter(|k| k.starts_with('$'))
                        .cloned()
                        .collect::<HashSet<String>>()
                };
                if kinds(x) != kinds(y) {
                    return false;
                }
            }
            x.iter().all(|(k, v)| {
                if k == "id" && x.contains_key("$object") {
                    return true;
                }
                y.get(k).is_none_or(|w| agrees(v, w))
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| agrees(v, w))
        }
        _ => a == b,
    }
}

/// Whether every value of `some` agrees with one of `all`.
fn covered(some: &[Value], all: &[Value]) -> bool {
    some.iter().all(|v| all.iter().any(|w| agrees(v, w)))
}

/// Whether two sets of values are the same set, under [`agrees`].
fn same_values(a: &[Value], b: &[Value]) -> bool {
    covered(a, b) && covered(b, a)
}

/// APIs whose results differ between any two runs (clocks, random sources, the handles of timers,
/// which count whatever else asked for one first), by the last parts of their path.
const VOLATILE: &[&str] = &[
    "setTimeout",
    "setInterval",
    "requestAnimationFrame",
    "requestIdleCallback",
    "performance.now",
    "Performance.prototype.now",
    "Date.now",
    "Math.random",
    "crypto.getRandomValues",
    "Crypto.prototype.getRandomValues",
    "crypto.randomUUID",
    "Crypto.prototype.randomUUID",
    "performance.timeOrigin",
    "Performance.prototype.timeOrigin",
];

fn is_volatile(api: &str) -> bool {
    let api = api
        .strip_prefix("window.")
        .or_else(|| api.strip_prefix("self."))
        .unwrap_or(api);
    VOLATILE.contains(&api)
}

/// Each value's kind: a JSON type, or an encoding with its class (`{"$object":"Uint8Array"}`).
fn kinds(values: &[Value]) -> Vec<Value> {
    values
        .iter()
        .map(|v| match v {
            Value::Null => Value::from("null"),
            Value::Bool(_) => Value::from("boolean"),
            Value::Number(_) => Value::from("number"),
            Value::String(_) => Value::from("string"),
            Value::Array(_) => Value::from("array"),
            Value::Object(map) => Value::from(
                map.iter()
                    .find(|(k, _)| k.starts_with('$'))
                    .map(|(k, v)| {
                        format!(
                            "{k}:{}",
                            if k == "$object" {
                                v.as_str().unwrap_or("")
                            } else {
                                ""
                            }
                        )
                    })
                    .unwrap_or_else(|| "object".to_owned()),
            ),
        })
        .collect()
}

/// The dimensions measured on the value an access got or returned (only for an object).
const VALUE_FACTS: &[&str] = &[
    "brand",
    "constructorName",
    "instanceOf",
    "prototypeChain",
    "keys",
    "ownNames",
    "ownSymbols",
    "ownKeys",
];

/// Whether the tool's recording has no `dim` because no value it recorded for the item has such
/// facts: it recorded return values, and none is an object or a function.
fn value_fact_not_applicable(dim: &str, measured: &BTreeMap<&str, Vec<Value>>) -> bool {
    VALUE_FACTS.contains(&dim)
        && measured.get("returnValue").is_some_and(|values| {
            values.iter().all(|v| {
                !v.as_object()
                    .is_some_and(|o| o.contains_key("$object") || o.contains_key("$function"))
            })
        })
}

/// Whether an observation is the tool's own (derived from its recording of the runtime, or the
/// measurement of an older tracer's exit probe) rather than the entry's claim.
fn is_tool_source(source: Option<&str>) -> bool {
    matches!(source, Some("node-trace" | "probe"))
}

/// The Node-only global an api reaches, if any.
fn node_global(api: &str) -> Option<&'static str> {
    let mut parts = api.split('.');
    let mut head = parts.next().unwrap_or_default();
    if matches!(head, "window" | "self" | "globalThis") {
        head = parts.next().unwrap_or_default();
    }
    NODE_GLOBALS.iter().copied().find(|g| *g == head)
}

/// Compares every item with its observations; returns how many items were observed.
fn compare_items(c: &Contract, a: &Audit, policy: &Policy, st: &mut State) -> usize {
    let ids: HashSet<&str> = c.items.iter().map(|i| i.id.as_str()).collect();
    let mut by_id: BTreeMap<String, Vec<&Observation>> = BTreeMap::new();
    for o in &a.observations {
        let id = o.id.clone().unwrap_or_else(|| {
            hash::item_id(&o.api, &o.access_type, &o.realm, &o.receiver, &o.phase)
        });
        if ids.contains(id.as_str()) {
            by_id.entry(id).or_default().push(o);
            continue;
        }
        // A host API the trace never recorded.
        if let Some(global) = node_global(&o.api) {
            let mut f = Finding::new(
                code::NODE_LEAK,
                format!(
                    "the script reached the Node-only global `{global}` ({})",
                    o.api
                ),
                "hide the Node global from the script's realm",
            )
            .on_observation(o);
            f.priority = Some("P1".into());
            st.block(f);
            continue;
        }
        match policy.class_of(&o.api, &o.access_type, &o.realm, &o.receiver, &o.phase) {
            Some(rule) if rule.class == Class::NodeLeak => {
                let mut f = Finding::new(
                    code::NODE_LEAK,
                    format!("{} is classified as a Node leak: {}", o.api, rule.reason),
                    "hide it from the script's realm",
                )
                .on_observation(o);
                f.priority = Some("P1".into());
                st.block(f);
            }
            Some(rule) => {
                let mut f = Finding::new(
                    code::DYNAMIC_BRANCH,
                    format!(
                        "{} was not in the trace; classified as a new dynamic branch: {}",
                        o.api, rule.reason
                    ),
                    "record a trace that takes this branch to verify it",
                )
                .on_observation(o);
                f.priority = Some("P2".into());
                st.risks.push(f);
            }
            None => st.block(
                Finding::new(
                    code::UNCLASSIFIED_HOST_API,
                    format!(
                        "the runtime reached {} ({}), which the trace never recorded",
                        o.api, o.access_type
                    ),
                    format!(
                        "remove the access, or classify it in {} as `dynamic-branch` or `node-leak`",
                        policy::RELATIVE_PATH
                    ),
                )
                .on_observation(o),
            ),
        }
    }
    let mut observed = 0;
    let mut progress = missing::Progress::default();
    for item in &c.items {
        let blocking_item = item.priority != "P2";
        let Some(observations) = by_id.get(&item.id) else {
            let mut findings = Vec::new();
            if let Some(recording) = &a.recording {
                let why = missing::explain(item, recording, &progress);
                let mut f =
                    Finding::new(code::MISSING_OBSERVATION, why.message, why.action).on(item);
                f.cause = Some(why.cause.to_owned());
                f.divergence = why.divergence;
                f.lacks = why.lacks;
                findings.push(f);
                for (dim, seen) in why.follows {
                    let expected = item.expected.get(dim).cloned().unwrap_or_default();
                    let mut f = Finding::new(
                        code::DIMENSION_MISMATCH,
                        format!("{}: {dim} follows from the member's absence", item.api),
                        format!("provide {} as the browser does", item.api),
                    )
                    .on(item)
                    .dimension(
                        dim,
                        Some(Value::from(expected)),
                        Some(Value::from(vec![seen])),
                    );
                    f.lacks = Some(item.api.clone());
                    findings.push(f);
                }
            } else {
                findings.push(
                    Finding::new(
                        code::MISSING_OBSERVATION,
                        format!(
                            "no runtime observation of {} ({})",
                            item.api, item.access_type
                        ),
                        "make the entry reach this API in audit mode, with the same phase and realm",
                    )
                    .on(item),
                );
            }
            for f in findings {
                if blocking_item {
                    st.block(f)
                } else {
                    st.risks.push(f)
                }
            }
            continue;
        };
        progress.last_reached = Some(missing::Reached {
            item: item.id.clone(),
            api: item.api.clone(),
            access_type: item.access_type.clone(),
        });
        observed += 1;
        // The tool's own recording of the runtime is what the environment is; an entry's claims
        // only fill in what the tool did not record, and contradict it at most once per dimension.
        let tool: Vec<&Observation> = observations
            .iter()
            .copied()
            .filter(|o| is_tool_source(o.source.as_deref()))
            .collect();
        let receivers = if tool.is_empty() {
            observations.clone()
        } else {
            tool.clone()
        };
        for o in &receivers {
            if o.receiver != item.receiver {
                let f = Finding::new(
                    code::DIMENSION_MISMATCH,
                    format!(
                        "{}: the receiver is {} in the runtime, {} in the trace",
                        item.api, o.receiver, item.receiver
                    ),
                    "make the API reachable on the same receiver as in the browser",
                )
                .on(item)
                .dimension(
                    "receiver",
                    Some(item.receiver.clone().into()),
                    Some(o.receiver.clone().into()),
                );
                if blocking_item {
                    st.block(f)
                } else {
                    st.risks.push(f)
                }
            }
        }
        // Every value the tool recorded, per dimension, over its observations of the item.
        let mut measured: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
        for o in &tool {
            for (dim, values) in &o.observations {
                measured
                    .entry(dim.as_str())
                    .or_default()
                    .extend(values.iter().cloned());
            }
        }
        for entry in observations
            .iter()
            .filter(|o| !is_tool_source(o.source.as_deref()))
        {
            for (dim, values) in &entry.observations {
                if let Some(measured) = measured.get(dim.as_str())
                    && !covered(values, measured)
                {
                    st.block(
                        Finding::new(
                            code::OBSERVATION_CONTRADICTED,
                            format!("{}: the entry reports a {dim} that the tool's own recording of the runtime contradicts", item.api),
                            "report what the runtime does; observations copied from the contract do not pass",
                        )
                        .on(item)
                        .dimension(dim, Some(Value::from(measured.clone())), Some(Value::from(values.clone()))),
                    );
                }
            }
        }
        for (dim, expected) in &item.expected {
            let seen = measured.get(dim.as_str()).or_else(|| {
                observations
                    .iter()
                    .filter(|o| !is_tool_source(o.source.as_deref()))
                    .find_map(|o| o.observations.get(dim))
            });
            let Some(seen) = seen else {
                // The tool recorded the item, and what the runtime returned has no such facts (a
                // `null` where the browser gave an object): the returnValue finding says it once.
                if value_fact_not_applicable(dim, &measured) || dim == contract::IDENTITY {
                    // `identity` needs two reads that returned an object: fewer is not sampled.
                    continue;
                }
                let f = Finding::new(
                    code::MISSING_OBSERVATION,
                    format!("{}: {dim} was not observed in the runtime", item.api),
                    "make the audit measure this dimension",
                )
                .on(item)
                .dimension(dim, Some(Value::from(expected.clone())), None);
                if blocking_item {
                    st.block(f)
                } else {
                    st.risks.push(f)
                }
                continue;
            };
            if same_values(expected, seen) {
                continue;
            }
            // A clock's or a random source's values differ between any two runs, the browser's
            // own included: what such an API returns is compared by kind, not by value.
            if dim == "returnValue"
                && is_volatile(&item.api)
                && same_values(&kinds(expected), &kinds(seen))
            {
                continue;
            }
            if matches!(dim.as_str(), "returnValue" | "exception") {
                progress.differences.push(missing::Differed {
                    at: missing::Reached {
                        item: item.id.clone(),
                        api: item.api.clone(),
                        access_type: item.access_type.clone(),
                    },
                    dimension: dim.clone(),
                    expected: Value::from(expected.clone()),
                    observed: Value::from(seen.clone()),
                });
            }
            let f = Finding::new(
                code::DIMENSION_MISMATCH,
                format!("{}: {dim} differs from the browser", item.api),
                format!("change the environment so that {dim} is what the browser showed"),
            )
            .on(item)
            .dimension(
                dim,
                Some(Value::from(expected.clone())),
                Some(Value::from(seen.clone())),
            );
            let blocks = if dim == "args" {
                item.priority == "P0"
            } else {
                blocking_item
            };
            if blocks {
                st.block(f);
            } else {
                let mut f = f;
                f.priority = Some("P2".into());
                st.risks.push(f);
            }
        }
    }
    observed
}

/// Per-object runtime timelines in order of their first event, and the global one.
fn runtime_timelines(
    c: &Contract,
    entries: &[TimelineEntry],
) -> (Vec<(String, TimelineBuilder)>, TimelineBuilder) {
    let family: HashMap<&str, &str> = c
        .items
        .iter()
        .filter_map(|i| i.family.as_deref().map(|f| (i.id.as_str(), f)))
        .collect();
    let mut order: Vec<(String, String, TimelineBuilder)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut global = TimelineBuilder::default();
    for e in entries {
        let i = *index.entry(e.object.as_str()).or_insert_with(|| {
            let f = family
                .get(e.contract_id.as_str())
                .copied()
                .unwrap_or("?")
                .to_owned();
            order.push((f, e.object.clone(), TimelineBuilder::default()));
            order.len() - 1
        });
        order[i].2.push(&e.contract_id, &e.event);
        global.push(&e.contract_id, &e.event);
    }
    (order.into_iter().map(|(f, _, b)| (f, b)).collect(), global)
}

fn first_difference(expected: &[Fold], observed: &[Fold]) -> String {
    let at = expected
        .iter()
        .zip(observed)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(observed.len()));
    let show = |f: Option<&Fold>| {
        f.map_or("(end)".to_owned(), |f| {
            format!("{}×{} ({})", f.event, f.times, f.item)
        })
    };
    format!(
        "at folded step {}: expected {}, observed {}",
        at + 1,
        show(expected.get(at)),
        show(observed.get(at))
    )
}

fn compare_timelines(c: &Contract, entries: &[TimelineEntry], st: &mut State) {
    let action_raw =
        "let the runtime append each event when it happens; never sort or rebuild the timeline";
    for pair in entries.windows(2) {
        if pair[1].sequence <= pair[0].sequence {
            st.block(Finding::new(
                code::TIMELINE_NOT_RAW,
                format!(
                    "the audit's timeline is not a raw runtime timeline: sequence {} follows {}",
                    pair[1].sequence, pair[0].sequence
                ),
                action_raw,
            ));
            return;
        }
    }
    if c.timelines.is_empty() && entries.is_empty() {
        return;
    }
    let (objects, global) = runtime_timelines(c, entries);
    let action = "make the environment fire the stateful events in the browser's order";
    // Objects are paired by family and order of first appearance: object ids are never
    // compared across runtimes.
    let mut observed_by_family: HashMap<String, Vec<Timeline>> = HashMap::new();
    for (family, builder) in objects {
        observed_by_family
            .entry(family.clone())
            .or_default()
            .push(builder.finish(family, String::new(), String::new()));
    }
    let mut used: HashMap<String, usize> = HashMap::new();
    for expected in &c.timelines {
        let observed = if expected.object == "*" {
            Some(global.clone().finish("*".into(), "*".into(), String::new()))
        } else {
            let n = used.entry(expected.family.clone()).or_default();
            let t = observed_by_family
                .get(&expected.family)
                .and_then(|v| v.get(*n))
                .cloned();
            *n += 1;
            t
        };
        let what = if expected.object == "*" {
            "the global timeline of stateful events".to_owned()
        } else {
            format!("the {} timeline of {}", expected.family, expected.object)
        };
        match observed {
            None => st.block(
                Finding::new(
                    code::TIMELINE_MISMATCH,
                    format!("{what}: no such object in the runtime timeline"),
                    action,
                )
                .dimension(
                    "timeline",
                    Some(serde_json::to_value(&expected.folded).unwrap_or_default()),
                    None,
                ),
            ),
            Some(o) if o.sequence_hash != expected.sequence_hash => st.block(
                Finding::new(
                    code::TIMELINE_MISMATCH,
                    format!(
                        "{what} differs {}",
                        first_difference(&expected.folded, &o.folded)
                    ),
                    action,
                )
                .dimension(
                    "timeline",
                    Some(serde_json::to_value(&expected.folded).unwrap_or_default()),
                    Some(serde_json::to_value(&o.folded).unwrap_or_default()),
                ),
            ),
            Some(_) => {}
        }
    }
    for (family, list) in &observed_by_family {
        let n = used.get(family).copied().unwrap_or(0);
        for extra in list.iter().skip(n) {
            st.block(
                Finding::new(
                    code::TIMELINE_MISMATCH,
                    format!("a {family} object in the runtime has no counterpart in the trace"),
                    action,
                )
                .dimension(
                    "timeline",
                    None,
                    Some(serde_json::to_value(&extra.folded).unwrap_or_default()),
                ),
            );
        }
    }
}

fn short(value: &Option<Value>) -> String {
    value
        .as_ref()
        .map_or_else(|| "(none)".to_owned(), |v| finding::clipped(v, 120))
}

/// `; missing: environment-lacks 5, not-reached 4` (nothing when no item is missing).
pub fn missing_words(counts: &Counts) -> String {
    if counts.missing.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = counts
        .missing
        .iter()
        .map(|(cause, n)| format!("{cause} {n}"))
        .collect();
    format!("; missing: {}", parts.join(", "))
}

/// The diff as Markdown.
pub fn to_markdown(d: &Diff) -> String {
    let mut md = String::new();
    let verdict = if d.matched {
        "**matched**"
    } else {
        "**not conformant**"
    };
    let _ = writeln!(md, "# Trace-runtime diff\n");
    let _ = writeln!(
        md,
        "Verdict: {verdict} ({} blocking, {} risks, {} unverified pending dimensions)\n",
        d.counts.blocking, d.counts.risks, d.counts.unverified
    );
    let _ = writeln!(
        md,
        "{} items (P0 {}, P1 {}, P2 {}), {} observed{}.\n",
        d.counts.items,
        d.counts.p0,
        d.counts.p1,
        d.counts.p2,
        d.counts.observed,
        missing_words(&d.counts)
    );
    let _ = writeln!(
        md,
        "## Hashes\n\n| | contract | audit | disk now |\n|---|---|---|---|"
    );
    let rows = [
        ("baselineId", &d.hashes.baseline_id),
        ("traceSourceHash", &d.hashes.trace_source_hash),
        ("contractHash", &d.hashes.contract_hash),
        ("runtimeSourceHash", &d.hashes.runtime_source_hash),
    ];
    for (name, t) in rows {
        let f = |v: &Option<String>| v.as_deref().map_or("—".to_owned(), |s| format!("`{s}`"));
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} |",
            f(&t.contract),
            f(&t.audit),
            f(&t.disk)
        );
    }
    if !d.groups.is_empty() {
        let _ = writeln!(
            md,
            "\n## Work list\n\nThe blocking findings grouped by what one change to the environment fixes, largest first; every finding is in the table below.\n\n| findings | change | items | browser | here | what to do |\n|---|---|---|---|---|---|"
        );
        for g in &d.groups {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                g.count,
                contract::cell(&g.title),
                contract::cell(&g.items.join(", ")),
                contract::cell(&short(&g.expected)),
                contract::cell(&short(&g.observed)),
                contract::cell(&g.action)
            );
        }
    }
    for (title, list) in [("Blocking", &d.blocking), ("Risks (P2)", &d.risks)] {
        let _ = writeln!(md, "\n## {title}\n");
        if list.is_empty() {
            let _ = writeln!(md, "None.");
            continue;
        }
        let _ = writeln!(
            md,
            "| code | priority | item | api | dimension | expected | observed | message | what to do |\n|---|---|---|---|---|---|---|---|---|"
        );
        for f in list {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                f.code,
                f.priority.as_deref().unwrap_or(""),
                f.item
                    .as_deref()
                    .map(|i| format!("`{i}`"))
                    .unwrap_or_default(),
                contract::cell(&format!(
                    "{} {}",
                    f.api.as_deref().unwrap_or(""),
                    f.access_type.as_deref().unwrap_or("")
                )),
                f.dimension.as_deref().unwrap_or(""),
                contract::cell(&short(&f.expected)),
                contract::cell(&short(&f.observed)),
                contract::cell(&f.message),
                contract::cell(&f.action)
            );
        }
    }
    let _ = writeln!(md, "\n## Unverified (pending dimensions)\n");
    if d.unverified.is_empty() {
        let _ = writeln!(md, "None.");
    }
    for u in &d.unverified {
        let _ = writeln!(
            md,
            "- `{}` {} `{}` {}: {}",
            u.item,
            u.priority,
            contract::cell(&u.api),
            u.access_type,
            u.dimensions.join(", ")
        );
    }
    requests_markdown(&mut md, d);
    md
}

/// The request-semantics section of the Markdown diff.
fn requests_markdown(md: &mut String, d: &Diff) {
    let r = &d.requests;
    let verdict = match d.requests_matched {
        Some(true) => "**requests matched**",
        Some(false) => "**requests differ**",
        None => "**not compared**",
    };
    let observed = r.observed.map_or("—".to_owned(), |n| n.to_string());
    let views = match r.network {
        Some(network) => format!(
            "{observed} made by the script in the environment, {network} of them reaching Node's network layer"
        ),
        None => format!("{observed} tried by the environment"),
    };
    let _ = writeln!(
        md,
        "\n## Requests\n\n{verdict}: {} recorded in the browser, {views} (none sent: the guard refuses them).\n",
        r.expected
    );
    if let Some(note) = &r.note {
        let _ = writeln!(md, "{note}\n");
    }
    if !r.differences.is_empty() {
        let _ = writeln!(
            md,
            "| code | seen by | request | field | expected | observed | what to do |\n|---|---|---|---|---|---|---|"
        );
        for f in &r.differences {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |",
                f.code,
                f.source.as_deref().unwrap_or("—"),
                f.request,
                f.field.as_deref().unwrap_or(""),
                contract::cell(&short(&f.expected)),
                contract::cell(&short(&f.observed)),
                contract::cell(&f.action)
            );
        }
    }
    if !r.unverified.is_empty() {
        let _ = writeln!(md, "\nNot recorded on one side, so not compared:\n");
        for u in &r.unverified {
            let _ = writeln!(md, "- {u}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn object_ids_are_not_compared() {
        let a = [json!({"$object": "HTMLCanvasElement", "id": "o9"})];
        let b = [json!({"$object": "HTMLCanvasElement", "id": "o1"})];
        assert!(same_values(&a, &b));
        assert!(!same_values(
            &a,
            &[json!({"$object": "HTMLDivElement", "id": "o9"})]
        ));
    }

    #[test]
    fn a_field_one_side_did_not_sample_is_never_a_mismatch_at_any_depth() {
        let getter = json!({"name": "get userAgent", "length": 0, "native": true});
        let with_null =
            json!({"kind": "accessor", "configurable": true, "get": getter, "set": null});
        let without =
            json!({"kind": "accessor", "configurable": true, "get": {"name": "get userAgent"}});
        assert!(same_values(std::slice::from_ref(&with_null), &[without]));
        // A field both sampled still differs.
        let native_false = json!({"kind": "accessor", "get": {"native": false}});
        assert!(!same_values(&[with_null], &[native_false]));
        // Encoded values are whole.
        assert!(!agrees(
            &json!({"$undefined": true}),
            &json!({"$number": "NaN"})
        ));
        assert!(!agrees(&json!({"$undefined": true}), &json!({})));
        // A plain object's props compare where both sides have them.
        let tokyo = json!({"$object": "Object", "id": "o1", "props": {"timeZone": "Asia/Tokyo"}});
        let utc = json!({"$object": "Object", "id": "o2", "props": {"timeZone": "UTC"}});
        assert!(!agrees(&tokyo, &utc));
        assert!(agrees(&tokyo, &json!({"$object": "Object", "id": "o3"})));
        // Sets: every value on each side has its match on the other.
        assert!(!same_values(&[json!(1), json!(2)], &[json!(1)]));
        assert!(covered(&[json!(1)], &[json!(1), json!(2)]));
    }

    #[test]
    fn a_clocks_values_compare_by_kind() {
        assert!(is_volatile("performance.now") && is_volatile("window.Math.random"));
        assert!(is_volatile("setTimeout") && is_volatile("window.requestAnimationFrame"));
        assert!(!is_volatile("navigator.userAgent"));
        assert!(same_values(
            &kinds(&[json!(145.5)]),
            &kinds(&[json!(384.7)])
        ));
        assert!(!same_values(
            &kinds(&[json!(145.5)]),
            &kinds(&[json!("145")])
        ));
    }

    #[test]
    fn node_globals_are_found_through_window_too() {
        assert_eq!(node_global("process.env"), Some("process"));
        assert_eq!(node_global("globalThis.Buffer"), Some("Buffer"));
        assert_eq!(node_global("navigator.userAgent"), None);
    }

    #[test]
    fn changed_files_names_each_change() {
        let f = |p: &str, h: &str| hash::SourceFile {
            path: p.into(),
            sha256: h.into(),
        };
        let then = [f("final.js", "1"), f("old.js", "2")];
        let now = [f("final.js", "3"), f("new.js", "4")];
        assert_eq!(
            changed_files(&then, &now),
            "result/final.js changed, result/new.js added, result/old.js removed"
        );
    }

    #[test]
    fn first_difference_points_at_the_step() {
        let fold = |e: &str, n| Fold {
            item: "c-1".into(),
            event: e.into(),
            times: n,
        };
        let msg = first_difference(
            &[fold("open", 1), fold("send", 1)],
            &[fold("open", 1), fold("readystatechange", 2)],
        );
        assert!(msg.contains("step 2: expected send×1"), "{msg}");
    }
}
