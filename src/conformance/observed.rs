//! What the environment did, read back from the trace the probe recorded in it
//! (`case/tmp/node-trace.ndjson`): the audit's observations (`source: "node-trace"`) and its raw
//! timeline, derived with the same reader and the same item builder as the contract, so the same
//! access keys the same item in both runtimes and a dimension's values are collected by one rule.
//!
//! - An item of the recording is the contract item with the same `api`, `accessType`, `realm`,
//!   `phase` and `receiver`; failing that, the contract item that differs only by `receiver` (the
//!   observation keeps the runtime's receiver, which the check reports: a receiver that differs is
//!   a finding on the item, never a reason to re-key it); failing that, a host API the trace never
//!   recorded (no `id`), which the check classifies.
//! - The timeline is every state event of the recording in `seq` order, as it was appended while
//!   the environment ran: never sorted or rebuilt.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;

use crate::conformance::audit_format::{Observation, TimelineEntry};
use crate::conformance::contract::{Builder, Contract};
use crate::conformance::raw_trace;

/// The `source` of an observation derived from the tool's recording.
pub const SOURCE: &str = "node-trace";

/// The recording, as the audit holds it.
#[derive(Debug, Default)]
pub struct Observed {
    pub observations: Vec<Observation>,
    pub timeline: Vec<TimelineEntry>,
    pub accesses: u64,
}

/// Reads the recording at `path` and keys it to `contract`'s items.
pub fn from_trace(path: &Path, case_dir: &Path, contract: &Contract) -> Result<Observed> {
    let exact: HashMap<&str, &str> = contract
        .items
        .iter()
        .map(|item| (item.id.as_str(), item.id.as_str()))
        .collect();
    // (api, accessType, realm, phase) -> the first contract item with that key.
    let mut loose: HashMap<(&str, &str, &str, &str), &str> = HashMap::new();
    for item in &contract.items {
        loose
            .entry((&item.api, &item.access_type, &item.realm, &item.phase))
            .or_insert(&item.id);
    }
    let contract_id = |api: &str, access: &str, realm: &str, receiver: &str, phase: &str| {
        let own = crate::conformance::hash::item_id(api, access, realm, receiver, phase);
        exact
            .get(own.as_str())
            .or_else(|| loose.get(&(api, access, realm, phase)))
            .map(|id| (*id).to_owned())
    };

    let mut builder = Builder::new();
    let mut timeline = Vec::new();
    let summary = raw_trace::read_capture(&[path.to_owned()], case_dir, |event, names| {
        builder.add(event, names);
        if let Some(state) = &event.state
            && let Some(id) = contract_id(
                &event.api,
                &event.access_type,
                &event.realm,
                &event.receiver,
                &event.phase,
            )
        {
            timeline.push(TimelineEntry {
                contract_id: id,
                sequence: event.seq,
                object: state.object.clone(),
                event: state.event.clone(),
            });
        }
        Ok(())
    })?;
    let recorded = builder.finish(&summary, None, None);
    let observations = recorded
        .items
        .into_iter()
        .map(|item| Observation {
            id: contract_id(
                &item.api,
                &item.access_type,
                &item.realm,
                &item.receiver,
                &item.phase,
            ),
            api: item.api,
            access_type: item.access_type,
            realm: item.realm,
            receiver: item.receiver,
            phase: item.phase,
            source: Some(SOURCE.to_owned()),
            observations: item.expected,
        })
        .collect();
    Ok(Observed {
        observations,
        timeline,
        accesses: summary.events,
    })
}
