//! Between the contract and the exit probe (`inspector::exit_probe`): which contract items the tool
//! measures itself, and how its measurements become `source: "probe"` observations of the audit.
//! It runs nothing; the audit command asks the run engine for the measurement.
//!
//! - Measured: every P0/P1 item of realm `main` (the browser page's window), by its `api` path.
//!   Items of other realms (`iframe`, `worker`) are left to the entry.
//! - The observation that stands for the script's realm is the chosen context's (a `vm` context
//!   such as jsdom's window where scripts ran, else the main context); the measurements in every
//!   other context go to the audit's `probe.otherRealms`, for the reader, not for the check.
//! - Strings over 500 characters become `$string` digests, as in the recorded trace.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conformance::audit_format::Observation;
use crate::conformance::contract::Item;
use crate::inspector::exit_probe::{ProbeItem, ProbeReport, ProbeRequest, Realm};

/// The dimensions the probe measures; anything else in a measurement is ignored. (A construct's
/// `exception` is measured too but not reported: engines word their messages differently, and
/// whether the script saw one is the entry's to say.)
pub const DIMENSIONS: &[&str] = &[
    "owner",
    "descriptor",
    "getterOwner",
    "setterOwner",
    "brand",
    "constructorName",
    "instanceOf",
    "keys",
    "ownNames",
    "ownSymbols",
    "ownKeys",
    "prototypeChain",
];

/// The audit's `probe` section (additive): where the program was measured and what was found.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeSummary {
    /// `process.emit('exit')` or `process.reallyExit`; absent when the program never got there
    /// (killed, timed out, `emit` replaced), and then nothing was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_at: Option<String>,
    /// The execution contexts alive at exit; `chosen` marks the script's realm.
    #[serde(default)]
    pub realms: Vec<RealmSummary>,
    /// How many items were asked for.
    pub items: usize,
    /// The same items measured in the contexts that were not chosen.
    #[serde(default)]
    pub other_realms: Vec<Observation>,
    #[serde(default)]
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RealmSummary {
    pub context_id: i64,
    pub name: String,
    pub is_default: bool,
    pub scripts: u64,
    pub chosen: bool,
}

impl From<&Realm> for RealmSummary {
    fn from(r: &Realm) -> Self {
        RealmSummary {
            context_id: r.context_id,
            name: r.name.clone(),
            is_default: r.is_default,
            scripts: r.scripts,
            chosen: r.chosen,
        }
    }
}

/// The contract's items, or none when the contract cannot be read as one (the check says why).
pub fn items(contract: &Value) -> Vec<Item> {
    contract
        .get("items")
        .cloned()
        .and_then(|items| serde_json::from_value(items).ok())
        .unwrap_or_default()
}

/// What the probe measures for this contract.
pub fn request(items: &[Item]) -> ProbeRequest {
    ProbeRequest {
        items: items
            .iter()
            .filter(|i| i.priority != "P2" && i.realm == "main" && i.access_type != "event")
            .map(|i| ProbeItem {
                key: i.id.clone(),
                api: i.api.clone(),
                access_type: i.access_type.clone(),
                construct_no_args: i.access_type == "construct"
                    && i.expected.get("args").is_some_and(|all| {
                        !all.is_empty()
                            && all.iter().all(|a| a.as_array().is_some_and(Vec::is_empty))
                    }),
            })
            .collect(),
    }
}

/// The probe's observations of the script's realm, and the summary of the rest.
pub fn observations(
    report: &ProbeReport,
    items: &[Item],
    asked: usize,
) -> (Vec<Observation>, ProbeSummary) {
    let by_id: BTreeMap<&str, &Item> = items.iter().map(|i| (i.id.as_str(), i)).collect();
    let realm_name = |id: i64| {
        report
            .realms
            .iter()
            .find(|r| r.context_id == id)
            .map(|r| r.name.clone())
    };
    let chosen = report.chosen().map(|r| r.context_id);
    let mut mine = Vec::new();
    let mut others = Vec::new();
    for m in &report.measurements {
        let Some(item) = by_id.get(m.key.as_str()) else {
            continue;
        };
        let mut observations = BTreeMap::new();
        for (dim, value) in &m.dimensions {
            if DIMENSIONS.contains(&dim.as_str()) {
                let mut value = value.clone();
                crate::record::writer::digest_long_strings(&mut value);
                observations.insert(dim.clone(), vec![value]);
            }
        }
        let o = Observation {
            id: Some(item.id.clone()),
            api: item.api.clone(),
            access_type: item.access_type.clone(),
            realm: item.realm.clone(),
            // Empty when the path does not name the receiver (`X.prototype.m`): not compared.
            receiver: m.receiver.clone().unwrap_or_default(),
            phase: item.phase.clone(),
            source: Some("probe".to_owned()),
            context: realm_name(m.context_id),
            unresolved: m.unresolved.clone(),
            observations,
        };
        if Some(m.context_id) == chosen {
            mine.push(o);
        } else {
            others.push(o);
        }
    }
    let summary = ProbeSummary {
        paused_at: report.paused_at.clone(),
        realms: report.realms.iter().map(RealmSummary::from).collect(),
        items: asked,
        other_realms: others,
        problems: report.problems.clone(),
    };
    (mine, summary)
}
