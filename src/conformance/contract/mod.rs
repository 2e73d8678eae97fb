//! The contract (`trace-runtime-contract/v3`): its serde types, the streaming builder that turns
//! the events of one capture into items and raw timelines, and its Markdown rendering. It never
//! reads files itself (the reader does) and never compares anything with a runtime (the check
//! does).
//!
//! Determinism: items are in first-seen (`seq`) order, values in first-seen order, timelines by
//! their first event with the global one last, and JSON objects have sorted keys, so the same
//! trace always gives the same bytes.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conformance::hash::{self, Hasher};
use crate::conformance::policy::Policy;
use crate::conformance::raw_trace::{AccessLine, State, Summary};
use crate::conformance::requests::{Request, RequestBuilder};

mod builder;
#[cfg(test)]
mod tests;

pub use builder::{Builder, IDENTITY, IDENTITY_PER_RECEIVER, OUTCOMES_BY_ARGS, TimelineBuilder};

pub const VERSION: &str = "trace-runtime-contract/v3";
/// Where the contract lives, relative to the case folder.
pub const JSON_PATH: &str = "notes/trace-runtime-contract.json";
pub const MD_PATH: &str = "notes/trace-runtime-contract.md";

/// Every dimension of an item, in the spec's order.
pub const DIMENSIONS: [&str; 16] = [
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
    "args",
    "returnValue",
    "exception",
    "sideEffect",
];

/// The interfaces whose objects have indexed or named properties (WebIDL's legacy platform
/// objects, as Chromium exposes them): their own keys are computed by the environment's code, which
/// jsdom and happy-dom run as a `Proxy`'s traps, and running those is not invisible to the page
/// (happy-dom's `ownKeys` of a `<select>` caches its option list: an option appended next is not
/// selected). The probe does not list the own keys of a value whose prototype chain holds one of
/// them, in the browser or in an environment, and a contract built from a trace that has them
/// leaves them out ([`keys_computed`]): not sampled, on either side.
pub const KEYS_COMPUTED_BY: [&str; 40] = [
    "HTMLCollection",
    "HTMLAllCollection",
    "HTMLFormControlsCollection",
    "HTMLOptionsCollection",
    "NodeList",
    "RadioNodeList",
    "NamedNodeMap",
    "DOMTokenList",
    "DOMStringList",
    "DOMStringMap",
    "Storage",
    "CSSStyleDeclaration",
    "CSSRuleList",
    "StyleSheetList",
    "MediaList",
    "FileList",
    "DataTransferItemList",
    "DOMRectList",
    "HTMLFormElement",
    "HTMLSelectElement",
    "PluginArray",
    "Plugin",
    "MimeTypeArray",
    "TouchList",
    "SVGLengthList",
    "SVGNumberList",
    "SVGPointList",
    "SVGStringList",
    "SVGTransformList",
    "TextTrackList",
    "TextTrackCueList",
    "AudioTrackList",
    "VideoTrackList",
    "SourceBufferList",
    "CSSNumericArray",
    "CSSTransformValue",
    "CSSUnparsedValue",
    "SpeechRecognitionResultList",
    "SpeechRecognitionResult",
    "SpeechGrammarList",
];

/// The dimensions that list a value's own keys.
pub const KEY_LISTS: [&str; 4] = ["keys", "ownNames", "ownSymbols", "ownKeys"];

/// Whether a `prototypeChain` (the field's JSON text: an array of names) holds an interface of
/// [`KEYS_COMPUTED_BY`], whose objects' own keys are not sampled.
pub fn keys_computed(chain: &str) -> bool {
    let names: Vec<String> = match serde_json::from_str(chain) {
        Ok(names) => names,
        Err(_) => return false,
    };
    names
        .iter()
        .any(|name| KEYS_COMPUTED_BY.contains(&name.as_str()))
}

/// The index of a dimension in [`DIMENSIONS`] (a `match`: this runs for every field of every line).
fn dimension_index(name: &str) -> Option<usize> {
    Some(match name {
        "owner" => 0,
        "descriptor" => 1,
        "getterOwner" => 2,
        "setterOwner" => 3,
        "brand" => 4,
        "constructorName" => 5,
        "instanceOf" => 6,
        "keys" => 7,
        "ownNames" => 8,
        "ownSymbols" => 9,
        "ownKeys" => 10,
        "prototypeChain" => 11,
        "args" => 12,
        "returnValue" => 13,
        "exception" => 14,
        "sideEffect" => 15,
        _ => return None,
    })
}

/// The dimensions that apply to an access type: those without evidence are `pending`. The spec
/// does not list them; this table is our reading of which fields describe each kind of access.
pub fn applicable(access_type: &str) -> &'static [&'static str] {
    match access_type {
        "get" => &[
            "owner",
            "descriptor",
            "getterOwner",
            "brand",
            "constructorName",
            "instanceOf",
            "prototypeChain",
            "returnValue",
            "exception",
        ],
        "set" => &[
            "owner",
            "descriptor",
            "setterOwner",
            "args",
            "exception",
            "sideEffect",
        ],
        "call" => &[
            "owner",
            "descriptor",
            "args",
            "returnValue",
            "exception",
            "sideEffect",
        ],
        "construct" => &[
            "owner",
            "brand",
            "constructorName",
            "instanceOf",
            "prototypeChain",
            "keys",
            "ownNames",
            "ownSymbols",
            "ownKeys",
            "args",
            "exception",
        ],
        "has" => &["owner", "returnValue", "exception"],
        "ownKeys" => &["keys", "ownNames", "ownSymbols", "ownKeys", "exception"],
        "delete" => &[
            "owner",
            "descriptor",
            "returnValue",
            "exception",
            "sideEffect",
        ],
        "event" => &[],
        _ => &DIMENSIONS,
    }
}

/// The stateful family an api belongs to by its interface, when the trace line has no `state`.
pub fn family_of_api(api: &str) -> Option<&'static str> {
    let mut parts = api.split('.');
    let mut head = parts.next().unwrap_or_default();
    if matches!(head, "window" | "self" | "globalThis") {
        head = parts.next().unwrap_or_default();
    }
    Some(match head {
        "XMLHttpRequest" | "XMLHttpRequestEventTarget" | "XMLHttpRequestUpload" => "xhr",
        "fetch" | "Request" | "Response" => "fetch",
        "Worker" | "SharedWorker" => "worker",
        "MessagePort" | "MessageChannel" | "BroadcastChannel" => "messageport",
        "MutationObserver" | "IntersectionObserver" | "ResizeObserver" | "PerformanceObserver" => {
            "observer"
        }
        "location" | "Location" | "history" | "History" => "navigation",
        _ => return None,
    })
}

// The fields of every type written into a contract are declared in the byte order of their JSON
// names, so that serializing the struct gives the keys sorted, exactly as the canonical form does:
// the contract is written and hashed without building a `Value` tree of it (see `to_json_bytes`
// and the test `direct_serialization_is_the_canonical_form`).

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Contract {
    pub baseline_id: Option<String>,
    /// Empty only while the hash is being computed (then not written).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub contract_hash: String,
    pub generated_by: String,
    pub items: Vec<Item>,
    /// The policy file the priorities were computed with, when there was one (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyEntry>,
    /// The requests the trace recorded, in order (additive; absent when there were none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<Request>,
    pub timelines: Vec<Timeline>,
    pub trace_source_hash: String,
    pub traces: Vec<TraceEntry>,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TraceEntry {
    pub lines: u64,
    /// Relative to the case folder when inside it, `/`-separated.
    pub path: String,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyEntry {
    pub path: String,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    pub access_type: String,
    pub api: String,
    pub count: u64,
    pub expected: BTreeMap<String, Vec<Value>>,
    /// The stateful family (`xhr`, `fetch`, ...) or absent (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    pub first_seq: u64,
    pub id: String,
    pub last_seq: u64,
    /// Why a policy lowered the item to P2 (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lowered_by: Option<String>,
    pub navs: Vec<u64>,
    pub pending: Vec<String>,
    pub phase: String,
    pub priority: String,
    pub realm: String,
    pub receiver: String,
    pub stack_sample: Vec<Value>,
    pub tags: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    /// Unfolded length (additive).
    pub events: u64,
    pub family: String,
    pub folded: Vec<Fold>,
    pub object: String,
    pub sequence_hash: String,
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Fold {
    pub event: String,
    pub item: String,
    pub times: u64,
}

/// `contractHash` of a contract as typed.
pub fn compute_hash(contract: &Contract) -> String {
    let mut hasher = Hasher::default();
    if contract.contract_hash.is_empty() {
        // Compact, keys in order: the canonical form, streamed into the digest.
        let _ = serde_json::to_writer(HashWriter(&mut hasher), contract);
    } else {
        let unhashed = Contract {
            contract_hash: String::new(),
            ..contract.clone()
        };
        let _ = serde_json::to_writer(HashWriter(&mut hasher), &unhashed);
    }
    hasher.finish()
}

/// Feeds what serde writes into a digest.
struct HashWriter<'a>(&'a mut Hasher);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The contract's JSON bytes as written to disk: sorted keys, two-space indent, final newline.
pub fn to_json_bytes(contract: &Contract) -> Vec<u8> {
    // The fields are declared in key order, so this is the sorted-key form (see the types).
    let mut bytes = serde_json::to_vec_pretty(contract).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
