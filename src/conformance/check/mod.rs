//! The check: from the contract, the audit and the files on disk now, computes the diff
//! (`trace-runtime-diff/v1`): blocking findings with stable codes, P2 risks, unverified
//! dimensions, and `matched`, which exists nowhere else. It recomputes every hash from disk and
//! trusts none written in a file. It reads files and returns a [`Diff`]; writing the diff and
//! choosing the exit code is the command's job.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conformance::audit_format::{self, Audit, Observation, TimelineEntry};
use crate::conformance::contract::{self, Contract, Fold, Timeline, TimelineBuilder};
pub use crate::conformance::finding::Finding;
use crate::conformance::hash;
use crate::conformance::missing;
use crate::conformance::policy::{self, Class, Policy};
use crate::conformance::raw_trace;
use crate::conformance::requests::{self, RequestsReport};
use crate::conformance::seal;
use crate::conformance::worklist;

mod compare;
mod load;
mod metadata;
mod outcomes;
#[cfg(test)]
mod tests;
mod timelines;

pub use compare::agrees;
use compare::*;
use load::*;
use metadata::*;
use timelines::*;

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
    pub const ENTRY_FAILED: &str = "ENTRY_FAILED";
    pub const NO_PERFORMANCE_MARK: &str = "NO_PERFORMANCE_MARK";
    pub const PAGE_SCRIPT_ERROR: &str = "PAGE_SCRIPT_ERROR";
    pub const TIMELINE_NOT_RAW: &str = "TIMELINE_NOT_RAW";
    pub const TIMELINE_MISMATCH: &str = "TIMELINE_MISMATCH";
    pub const NO_GLOBAL_ORDER: &str = "NO_GLOBAL_ORDER";
    pub const MISSING_OBSERVATION: &str = "MISSING_OBSERVATION";
    pub const DIMENSION_MISMATCH: &str = "DIMENSION_MISMATCH";
    pub const OBSERVATION_CONTRADICTED: &str = "OBSERVATION_CONTRADICTED";
    pub const UNCLASSIFIED_HOST_API: &str = "UNCLASSIFIED_HOST_API";
    pub const NODE_LEAK: &str = "NODE_LEAK";
    pub const DYNAMIC_BRANCH: &str = "DYNAMIC_BRANCH";
    pub const EMPTY_CONTRACT: &str = "EMPTY_CONTRACT";
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
    /// Dimensions of observed items the environment's recording has no sample of.
    unsampled: Vec<Unverified>,
    bad_input: bool,
}

impl State {
    fn block(&mut self, finding: Finding) {
        self.blocking.push(finding);
    }

    fn unsampled(&mut self, item: &contract::Item, dim: &str) {
        match self.unsampled.iter_mut().find(|u| u.item == item.id) {
            Some(u) => u.dimensions.push(dim.to_owned()),
            None => self.unsampled.push(Unverified {
                item: item.id.clone(),
                priority: item.priority.clone(),
                api: item.api.clone(),
                access_type: item.access_type.clone(),
                dimensions: vec![dim.to_owned()],
            }),
        }
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
    // Nothing to compare is no conformance: a trace without an access (a page whose script never
    // ran, a recording that failed) would otherwise be `matched` by whatever the environment did.
    if let Some(c) = contract.as_ref().filter(|c| c.items.is_empty()) {
        let traces: Vec<&str> = c.traces.iter().map(|t| t.path.as_str()).collect();
        st.block(Finding::new(
            code::EMPTY_CONTRACT,
            format!(
                "the contract has no items: its trace ({}) recorded no access of the page's, so nothing could be compared",
                traces.join(", ")
            ),
            "record the page running the script again (`tracer record`), check that the trace has access lines, then `tracer contract build`",
        ));
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
        let attempts = a
            .network_attempts
            .unwrap_or(0)
            .max(a.transcript.len() as u64);
        let seen: Vec<String> = a.transcript.iter().map(|t| t.describe()).collect();
        requests.attempts_undescribed(attempts, &seen.join("; "));
    }
    // Beside the contract's pending dimensions, those the environment did not sample.
    for u in std::mem::take(&mut st.unsampled) {
        counts.unverified += u.dimensions.len();
        match unverified
            .iter_mut()
            .find(|p: &&mut Unverified| p.item == u.item)
        {
            Some(pending) => pending.dimensions.extend(u.dimensions),
            None => unverified.push(u),
        }
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
    // Each item's first and last access in the browser's trace, for the work list's leads.
    let order: HashMap<String, (u64, u64)> = contract
        .iter()
        .flat_map(|c| &c.items)
        .map(|item| (item.id.clone(), (item.first_seq, item.last_seq)))
        .collect();
    let diff = Diff {
        version: VERSION.to_owned(),
        generated_by: format!("tracer {}", env!("CARGO_PKG_VERSION")),
        matched: st.blocking.is_empty(),
        requests_matched: requests.matched(),
        groups: worklist::groups_beside(&st.blocking, &st.risks, &order),
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
