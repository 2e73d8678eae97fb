//! What the environment did, read back from the trace the probe recorded in it
//! (`case/tmp/node-trace.ndjson`): the audit's observations (`source: "node-trace"`) and its raw
//! timeline, derived with the same reader and the same item builder as the contract, so the same
//! access keys the same item in both runtimes and a dimension's values are collected by one rule.
//!
//! - An item of the recording is the contract item that touched the same thing, with the
//!   reference's path and phase (see [`crate::conformance::identity`]); the observation keeps the
//!   runtime's receiver, which the check reports. An access that matches none is a host API the
//!   trace never recorded (no `id`), which the check classifies. The recording is read twice: the
//!   first reading learns which reference receiver a receiver the reference never had stands for.
//! - The timeline is every state event of the recording in `seq` order, as it was appended while
//!   the environment ran: never sorted or rebuilt.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;

use crate::conformance::audit_format::{Observation, TimelineEntry};
use crate::conformance::contract::{Builder, Contract};
use crate::conformance::identity::Matcher;
use crate::conformance::raw_trace::{self, AccessLine};
use crate::conformance::requests::Request;

/// The `source` of an observation derived from the tool's recording.
pub const SOURCE: &str = "node-trace";

/// The recording, as the audit holds it.
#[derive(Debug, Default)]
pub struct Observed {
    pub observations: Vec<Observation>,
    pub timeline: Vec<TimelineEntry>,
    /// The requests the script made, as the reference's are built from its trace.
    pub requests: Vec<Request>,
    pub accesses: u64,
}

/// What keeps an access's phase apart from its item's id while the observations are built (see
/// [`from_trace`]); no phase holds it.
const APART: char = '\u{1f}';

/// Reads the recording at `path` and keys it to `contract`'s items.
pub fn from_trace(path: &Path, case_dir: &Path, contract: &Contract) -> Result<Observed> {
    let mut matcher = Matcher::new(contract, case_dir)?;
    // What each receiver the reference never had stands for is learned from the whole recording
    // first: the access that names it may come after others of the same receiver.
    raw_trace::read_capture(&[path.to_owned()], case_dir, |event, _| {
        matcher.learn(event);
        Ok(())
    })?;
    // The key an access is written under once matched (the reference's api and phase, the
    // runtime's receiver) -> its contract item.
    let mut matched: HashMap<(String, String, String, String, String), String> = HashMap::new();
    let mut builder = Builder::new();
    let mut timeline = Vec::new();
    let summary = raw_trace::read_capture(&[path.to_owned()], case_dir, |event, names| {
        let Some(found) = matcher.resolve(event) else {
            builder.add(event, names);
            return Ok(());
        };
        let item = &contract.items[found.item];
        let mut event = event.clone();
        event.api.clone_from(&item.api);
        event.phase.clone_from(&item.phase);
        let key = |event: &AccessLine| {
            (
                event.api.clone(),
                event.access_type.clone(),
                event.realm.clone(),
                event.receiver.clone(),
                event.phase.clone(),
            )
        };
        // Two items reached on one receiver of the environment (jsdom's `SVGElement` standing for
        // a `circle` on one object and a `rect` on another) are two observations: the second
        // item's accesses are kept apart under its id until they are written.
        if matched.get(&key(&event)).is_some_and(|id| *id != item.id) {
            event.phase = format!("{}{APART}{}", item.phase, item.id);
        }
        matched
            .entry(key(&event))
            .or_insert_with(|| item.id.clone());
        builder.add(&event, names);
        if let Some(state) = &event.state {
            timeline.push(TimelineEntry {
                contract_id: item.id.clone(),
                sequence: event.seq,
                object: state.object.clone(),
                event: state.event.clone(),
            });
        }
        Ok(())
    })?;
    let recorded = builder.finish(&summary, None, None);
    let requests = recorded.requests;
    let observations = recorded
        .items
        .into_iter()
        .map(|item| Observation {
            id: matched
                .get(&(
                    item.api.clone(),
                    item.access_type.clone(),
                    item.realm.clone(),
                    item.receiver.clone(),
                    item.phase.clone(),
                ))
                .cloned(),
            first_seq: Some(item.first_seq),
            api: item.api,
            access_type: item.access_type,
            realm: item.realm,
            receiver: item.receiver,
            phase: match item.phase.split_once(APART) {
                Some((phase, _)) => phase.to_owned(),
                None => item.phase,
            },
            source: Some(SOURCE.to_owned()),
            observations: item.expected,
        })
        .collect();
    Ok(Observed {
        observations,
        timeline,
        requests,
        accesses: summary.events,
    })
}
