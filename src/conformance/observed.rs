//! What the environment did, read back from the trace the probe recorded in it
//! (`case/tmp/node-trace.ndjson`): the audit's observations (`source: "node-trace"`) and its raw
//! timeline, derived with the same reader and the same item builder as the contract, so the same
//! access keys the same item in both runtimes and a dimension's values are collected by one rule.
//!
//! - An item of the recording is the contract item that touched the same thing, with the
//!   reference's path and phase (see [`crate::conformance::identity`]); the observation keeps the
//!   runtime's receiver, which the check reports. An access that matches none is a host API the
//!   trace never recorded (no `id`), which the check classifies. The accesses are gone through
//!   twice (kept from one reading of the file, up to a bound): the first time learns which
//!   reference receiver a receiver the reference never had stands for.
//! - The timeline is every state event of the recording in `seq` order, as it was appended while
//!   the environment ran: never sorted or rebuilt.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;

use crate::conformance::audit_format::{Observation, TimelineEntry};
use crate::conformance::contract::{Builder, Contract};
use crate::conformance::identity::Matcher;
use crate::conformance::raw_trace::{self, AccessLine, MergedShards};
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

/// How much of the recording's text the first reading keeps for the second (about as much memory
/// again is spent on the accesses' other fields): a recording of real libraries' pages fits
/// many times over, and one past it costs a second reading of the file, never more memory.
const KEPT_BYTES: usize = 64 << 20;

/// Reads the recording at `path` and keys it to `contract`'s items.
pub fn from_trace(path: &Path, case_dir: &Path, contract: &Contract) -> Result<Observed> {
    from_trace_keeping(path, case_dir, contract, KEPT_BYTES)
}

fn from_trace_keeping(
    path: &Path,
    case_dir: &Path,
    contract: &Contract,
    kept_bytes_max: usize,
) -> Result<Observed> {
    let mut matcher = Matcher::new(contract, case_dir)?;
    // What each receiver the reference never had stands for is learned from the whole recording
    // first: the access that names it may come after others of the same receiver. The accesses
    // are kept for the second reading while they fit in `kept_bytes_max`; a longer recording is
    // read again from the file.
    let paths = [path.to_owned()];
    let mut capture = MergedShards::open(&paths, case_dir)?;
    let names = capture.file_names();
    let mut kept = Some(Vec::new());
    let mut kept_bytes = 0usize;
    while let Some(event) = capture.next_event()? {
        matcher.learn(&event);
        if let Some(list) = &mut kept {
            kept_bytes += event.fields.text_len();
            if kept_bytes > kept_bytes_max {
                kept = None;
            } else {
                list.push(event);
            }
        }
    }
    let mut summary = capture.finish()?;
    // The key an access is written under once matched (the reference's api and phase, the
    // runtime's receiver) -> its contract item.
    let mut matched: HashMap<(String, String, String, String, String), String> = HashMap::new();
    let mut builder = Builder::new();
    let mut timeline = Vec::new();
    let mut resolve = |event: &AccessLine| {
        let Some(found) = matcher.resolve(event) else {
            builder.add(event, &names);
            return;
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
        builder.add(&event, &names);
        if let Some(state) = &event.state {
            timeline.push(TimelineEntry {
                contract_id: item.id.clone(),
                sequence: event.seq,
                object: state.object.clone(),
                event: state.event.clone(),
            });
        }
    };
    match kept {
        Some(list) => list.iter().for_each(&mut resolve),
        None => {
            summary = raw_trace::read_capture(&paths, case_dir, |event, _| {
                resolve(event);
                Ok(())
            })?;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::build;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/conformance");

    /// The contract of the `reference` trace's text, and the `environment` trace's observations
    /// against it (both written in `dir`).
    fn observed_against(dir: &Path, reference: &str, environment: &str) -> (Contract, Observed) {
        let reference_path = dir.join("reference.ndjson");
        std::fs::write(&reference_path, reference).unwrap();
        let environment_path = dir.join("environment.ndjson");
        std::fs::write(&environment_path, environment).unwrap();
        let (builder, summary) = build::read(
            std::slice::from_ref(&reference_path),
            dir,
            build::Options::new(1, build::DEFAULT_MAX_ITEMS),
            &|_, _| Ok(()),
        )
        .unwrap();
        let baseline = summary.baseline_id.clone();
        let contract = builder.finish(&summary, baseline, None);
        let observed = from_trace(&environment_path, dir, &contract).unwrap();
        (contract, observed)
    }

    /// jQuery's `buildFragment` calls `context.createElement` on the page's document
    /// (`document.createElement`) and on a document `createHTMLDocument` made
    /// (`Document.prototype.createElement`), from one script position: one thing for the matcher
    /// (a `Document` in jsdom, an `HTMLDocument` in Chromium). The other document's calls were
    /// once filed as the page document's (by that position, or as the n-th call of the two), and
    /// the check said `Document.prototype.createElement` never gave an `HTMLDivElement`.
    #[test]
    fn a_call_is_the_item_spelled_as_the_environment_spelled_it() {
        let dir = tempfile::tempdir().unwrap();
        let line = |seq: u32, api: &str, receiver: &str, tag: &str, at: (u32, u32)| {
            let class = match tag {
                "div" => "HTMLDivElement",
                _ => "HTMLBaseElement",
            };
            format!(
                r#"{{"type":"access","seq":{seq},"t":{seq}.0,"realm":"main","realmId":"main#0","nav":0,"phase":"init","api":"{api}","accessType":"call","receiver":"{receiver}","owner":"Document.prototype","args":["{tag}"],"constructorName":"{class}","returnValue":{{"$object":"{class}","id":"o{seq}"}},"exception":null,"stack":[{{"url":"https://a.test/app.js","line":{},"column":{},"functionName":"f"}}]}}"#,
                at.0, at.1
            )
        };
        let recording = |receiver: &str| {
            let lines = [
                r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1","recorder":{"name":"hand-written fixture","version":"0"},"startedAt":"2026-12-07T08:00:00Z"}"#.to_owned(),
                line(1, "document.createElement", receiver, "div", (3, 1)),
                line(2, "document.createElement", receiver, "div", (9, 9)),
                line(3, "Document.prototype.createElement", receiver, "base", (5, 1)),
                line(4, "Document.prototype.createElement", receiver, "div", (9, 9)),
                line(5, "document.createElement", receiver, "div", (3, 1)),
            ];
            lines.join("\n") + "\n"
        };
        let (_, observed) = observed_against(
            dir.path(),
            &recording("HTMLDocument"),
            &recording("Document"),
        );
        let args = |api: &str| {
            let o = observed
                .observations
                .iter()
                .find(|o| o.api == api && o.id.is_some())
                .unwrap_or_else(|| panic!("{api}: {:#?}", observed.observations));
            serde_json::Value::Array(o.observations["args"].clone())
        };
        assert_eq!(
            args("Document.prototype.createElement"),
            serde_json::json!([["base"], ["div"]])
        );
        assert_eq!(args("document.createElement"), serde_json::json!([["div"]]));
        let class = |api: &str| {
            observed
                .observations
                .iter()
                .find(|o| o.api == api)
                .map(|o| serde_json::Value::Array(o.observations["constructorName"].clone()))
        };
        assert_eq!(
            class("Document.prototype.createElement"),
            Some(serde_json::json!(["HTMLBaseElement", "HTMLDivElement"]))
        );
    }

    /// jsdom makes one `SVGElement` class for `rect`, `line` and `path`: each object's calls are
    /// the items of the class the browser's `createElementNS` gave for the same arguments. The
    /// line's `setAttribute` calls were once filed as the rect's (the first such item), and the
    /// line's item was then "not reached".
    #[test]
    fn an_object_stands_for_what_the_browser_s_call_gave_for_the_same_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let svg = "http://www.w3.org/2000/svg";
        let recording = |env: bool| {
            let class = |browser: &str| {
                if env {
                    "SVGElement".to_owned()
                } else {
                    browser.to_owned()
                }
            };
            let made = |seq: u32, tag: &str, browser: &str| {
                format!(
                    r#"{{"type":"access","seq":{seq},"t":{seq}.0,"realm":"main","realmId":"main#0","nav":0,"phase":"init","api":"document.createElementNS","accessType":"call","receiver":"HTMLDocument","owner":"Document.prototype","args":["{svg}","{tag}"],"returnValue":{{"$object":"{}","id":"o{seq}"}},"exception":null}}"#,
                    class(browser)
                )
            };
            let set = |seq: u32, on: u32, browser: &str, name: &str| {
                let id = if env {
                    format!(r#","receiverId":"o{on}""#)
                } else {
                    String::new()
                };
                format!(
                    r#"{{"type":"access","seq":{seq},"t":{seq}.0,"realm":"main","realmId":"main#0","nav":0,"phase":"init","api":"Element.prototype.setAttribute","accessType":"call","receiver":"{}"{id},"owner":"Element.prototype","args":["{name}","1"],"returnValue":{{"$undefined":true}},"exception":null}}"#,
                    class(browser)
                )
            };
            [
                r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1","recorder":{"name":"hand-written fixture","version":"0"},"startedAt":"2026-12-08T08:00:00Z"}"#.to_owned(),
                made(1, "rect", "SVGRectElement"),
                made(2, "line", "SVGLineElement"),
                set(3, 1, "SVGRectElement", "width"),
                set(4, 2, "SVGLineElement", "y2"),
                set(5, 2, "SVGLineElement", "x2"),
            ]
            .join("\n")
                + "\n"
        };
        let (contract, observed) =
            observed_against(dir.path(), &recording(false), &recording(true));
        let args_of = |receiver: &str| {
            let item = contract
                .items
                .iter()
                .find(|i| i.api == "Element.prototype.setAttribute" && i.receiver == receiver)
                .unwrap();
            observed
                .observations
                .iter()
                .find(|o| o.id.as_deref() == Some(item.id.as_str()))
                .map(|o| serde_json::Value::Array(o.observations["args"].clone()))
        };
        assert_eq!(
            args_of("SVGRectElement"),
            Some(serde_json::json!([["width", "1"]]))
        );
        assert_eq!(
            args_of("SVGLineElement"),
            Some(serde_json::json!([["y2", "1"], ["x2", "1"]]))
        );
    }

    #[test]
    fn a_recording_past_the_memory_bound_is_read_again_to_the_same_observations() {
        let dir = tempfile::tempdir().unwrap();
        let fixtures = Path::new(FIXTURES);
        let reference = [
            fixtures.join("basic.ndjson"),
            fixtures.join("requests.ndjson"),
        ];
        let mut contracts = Vec::new();
        for path in &reference {
            let (builder, summary) = build::read(
                std::slice::from_ref(path),
                dir.path(),
                build::Options::new(1, build::DEFAULT_MAX_ITEMS),
                &|_, _| Ok(()),
            )
            .unwrap();
            let baseline = summary.baseline_id.clone();
            contracts.push(builder.finish(&summary, baseline, None));
        }
        for (contract, recording) in contracts.iter().zip(&reference) {
            let kept = from_trace_keeping(recording, dir.path(), contract, KEPT_BYTES).unwrap();
            let read_again = from_trace_keeping(recording, dir.path(), contract, 0).unwrap();
            assert!(!kept.observations.is_empty());
            assert!(kept.observations.iter().any(|o| o.id.is_some()));
            let json = |o: &Observed| {
                serde_json::to_string(&(&o.observations, &o.timeline, &o.requests, o.accesses))
                    .unwrap()
            };
            assert_eq!(json(&kept), json(&read_again), "{}", recording.display());
        }
    }
}
