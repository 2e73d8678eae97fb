//! Each contract item against what the audit observed: the values, the descriptors, what is
//! missing and why.

use super::*;
use crate::conformance::random_names;
use crate::conformance::unwatchable;

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
pub(super) fn covered(some: &[Value], all: &[Value]) -> bool {
    some.iter().all(|v| all.iter().any(|w| agrees(v, w)))
}

/// Whether two sets of values are the same set, under [`agrees`].
pub(super) fn same_values(a: &[Value], b: &[Value]) -> bool {
    covered(a, b) && covered(b, a)
}

/// APIs whose results differ between any two runs (clocks, random sources, the handles of timers,
/// which count whatever else asked for one first), by the last parts of their path.
pub(super) const VOLATILE: &[&str] = &[
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

/// Clock readings in milliseconds since the page's time origin (a `DOMHighResTimeStamp`), which
/// differ between any two runs too. A reading since the epoch instead (jsdom's `Event.timeStamp`
/// is `Date.now()`) is another kind of number: a page subtracting it from `performance.now()` is
/// off by decades.
const SINCE_ORIGIN: &[&str] = &[
    "performance.now",
    "Performance.prototype.now",
    "Event.prototype.timeStamp",
];

/// A clock reading since the time origin is below this (about three years, in milliseconds); a
/// reading since the epoch is above it.
const EPOCH_MS: f64 = 1e11;

fn global_path(api: &str) -> &str {
    api.strip_prefix("window.")
        .or_else(|| api.strip_prefix("self."))
        .unwrap_or(api)
}

pub(super) fn is_volatile(api: &str) -> bool {
    let api = global_path(api);
    VOLATILE.contains(&api) || SINCE_ORIGIN.contains(&api)
}

/// Each value's kind as [`kinds`] gives it, and for a clock counting from the time origin, whether
/// a number counts from there or from the epoch.
pub(super) fn volatile_kinds(api: &str, values: &[Value]) -> Vec<Value> {
    let since_origin = SINCE_ORIGIN.contains(&global_path(api));
    kinds(values)
        .into_iter()
        .zip(values)
        .map(|(kind, value)| match value.as_f64() {
            Some(ms) if since_origin && ms.abs() >= EPOCH_MS => {
                Value::from("number of milliseconds since the epoch")
            }
            Some(_) if since_origin => Value::from("number of milliseconds since the time origin"),
            _ => kind,
        })
        .collect()
}

/// Each value's kind: a JSON type, or an encoding with its class (`{"$object":"Uint8Array"}`).
pub(super) fn kinds(values: &[Value]) -> Vec<Value> {
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
pub(super) const VALUE_FACTS: &[&str] = &[
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
pub(super) fn value_fact_not_applicable(dim: &str, measured: &BTreeMap<&str, Vec<Value>>) -> bool {
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
pub(super) fn is_tool_source(source: Option<&str>) -> bool {
    matches!(source, Some("node-trace" | "probe"))
}

/// The Node-only global an api reaches, if any.
pub(super) fn node_global(api: &str) -> Option<&'static str> {
    let mut parts = api.split('.');
    let mut head = parts.next().unwrap_or_default();
    if matches!(head, "window" | "self" | "globalThis") {
        head = parts.next().unwrap_or_default();
    }
    NODE_GLOBALS.iter().copied().find(|g| *g == head)
}

/// The receivers the contract has `o`'s path and access type on, in its order (at most 8 named).
fn other_receivers(c: &Contract, o: &Observation) -> Vec<String> {
    let mut receivers: Vec<String> = Vec::new();
    for item in &c.items {
        if item.api == o.api
            && item.access_type == o.access_type
            && item.realm == o.realm
            && !receivers.contains(&item.receiver)
        {
            receivers.push(item.receiver.clone());
        }
    }
    at_most(receivers, 8)
}

/// The first `n` of `names`, and how many more there are as one more name (`3 more`).
fn at_most(mut names: Vec<String>, n: usize) -> Vec<String> {
    if names.len() > n {
        let more = names.len() - n;
        names.truncate(n);
        names.push(format!("{more} more"));
    }
    names
}

/// Where the contract has `o`'s property and access type under another path and receiver (at
/// most 4 named), as a clause for its message: that the trace has the member, but not there
/// (happy-dom's `Element.prototype.textContent` set on a `div`, where the trace set
/// `Node.prototype.textContent` on a `pre` only); empty when it has none.
fn same_key_elsewhere(c: &Contract, o: &Observation) -> String {
    let key = crate::conformance::identity::property_key(&o.api);
    let mut places: Vec<String> = Vec::new();
    for item in &c.items {
        if item.access_type == o.access_type
            && item.realm == o.realm
            && crate::conformance::identity::property_key(&item.api) == key
        {
            let place = format!("{} on {}", item.api, item.receiver);
            if !places.contains(&place) {
                places.push(place);
            }
        }
    }
    if places.is_empty() {
        return String::new();
    }
    format!(
        " (it has {key} ({}) only as {})",
        o.access_type,
        at_most(places, 4).join(", ")
    )
}

/// Whether `dimension` holds lists of own keys.
fn is_key_list(dimension: &str) -> bool {
    matches!(dimension, "keys" | "ownNames" | "ownKeys")
}

/// The members the Web platform makes own properties of its objects (`[LegacyUnforgeable]`:
/// an event's `isTrusted`, a document's and a window's `location`, a window's `window`,
/// `document` and `top`): never a page's own key.
const PLATFORM_OWN_KEYS: [&str; 5] = ["isTrusted", "location", "window", "document", "top"];

/// The own keys the page itself puts on host objects (a library's expando: lit's `_$litPart$`,
/// jQuery's data key; random parts left out): some object carries each in both runtimes, and none
/// is a member the platform makes own. Which object carries one when it is read follows the
/// page's own order of work, which other differences change (lit, lacking `adoptedStyleSheets`,
/// renders by another path): own-key lists are compared without them.
fn page_keys(c: &Contract, a: &Audit) -> HashSet<String> {
    let keys_in = |dims: &BTreeMap<String, Vec<Value>>| -> HashSet<String> {
        dims.iter()
            .filter(|(dim, _)| is_key_list(dim))
            .flat_map(|(_, lists)| lists.iter().filter_map(Value::as_array).flatten())
            .filter_map(Value::as_str)
            .filter(|k| !PLATFORM_OWN_KEYS.contains(k))
            .map(|k| random_names::skeleton(k).into_owned())
            .collect()
    };
    let browser: HashSet<String> = c.items.iter().flat_map(|i| keys_in(&i.expected)).collect();
    a.observations
        .iter()
        .flat_map(|o| keys_in(&o.observations))
        .filter(|k| browser.contains(k))
        .collect()
}

/// Lists of own keys without the page's own keys ([`page_keys`]).
fn without_page_keys(lists: &[Value], page: &HashSet<String>) -> Vec<Value> {
    lists
        .iter()
        .map(|list| match list {
            Value::Array(keys) => Value::Array(
                keys.iter()
                    .filter(|k| {
                        k.as_str()
                            .is_none_or(|k| !page.contains(random_names::skeleton(k).as_ref()))
                    })
                    .cloned()
                    .collect(),
            ),
            other => other.clone(),
        })
        .collect()
}

/// Compares every item with its observations; returns how many items were observed.
pub(super) fn compare_items(c: &Contract, a: &Audit, policy: &Policy, st: &mut State) -> usize {
    let ids: HashSet<&str> = c.items.iter().map(|i| i.id.as_str()).collect();
    let page_keys = page_keys(c, a);
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
            None => {
                let receivers = other_receivers(c, o);
                let unwatched = unwatchable::why(&o.api);
                // The environment reached the browser's only receiver too: this access is one more.
                let reached_too = match &receivers[..] {
                    [only] => a.observations.iter().any(|other| {
                        other.api == o.api
                            && other.access_type == o.access_type
                            && other.realm == o.realm
                            && &other.receiver == only
                    }),
                    _ => false,
                };
                let message = match (&receivers[..], unwatched) {
                    ([only], _) if reached_too => format!(
                        "the runtime reached {} ({}) on {}, which the trace never had it on: it had it on {only} only, which the environment reached too, so this is an access the browser did not make",
                        o.api, o.access_type, o.receiver
                    ),
                    ([], None) => format!(
                        "the runtime reached {} ({}) on {}, which the trace never recorded{}",
                        o.api,
                        o.access_type,
                        o.receiver,
                        same_key_elsewhere(c, o)
                    ),
                    ([], Some(why)) => format!(
                        "the runtime reached {} ({}), which the trace could not have recorded: {why}; if the script reaches it in the browser too, classify it as `dynamic-branch` in {}",
                        o.api,
                        o.access_type,
                        policy::RELATIVE_PATH
                    ),
                    (receivers, _) => format!(
                        "the runtime reached {} ({}) on {}, which the trace never had it on: it had it on {}, and which of them this receiver stands for cannot be told from its values",
                        o.api,
                        o.access_type,
                        o.receiver,
                        receivers.join(", ")
                    ),
                };
                let action = match (&receivers[..], unwatched) {
                    // The browser may well make it too, out of the recorder's sight: the
                    // script's own access is not what to remove.
                    ([], Some(_)) => format!(
                        "check in the browser whether the script makes this access too (it cannot be recorded there); if it does, classify it in {} as `dynamic-branch`",
                        policy::RELATIVE_PATH
                    ),
                    // The access is the script's own (the environment's are left out): what
                    // removes it is the environment making the script take the browser's path,
                    // where an earlier difference sent it another way.
                    _ => format!(
                        "look for an earlier difference that sent the script another way (the other groups; fixing it removes this access); if the script makes this access in the browser too, on another path, classify it in {} as `dynamic-branch`, or as `node-leak` where it reaches Node's own",
                        policy::RELATIVE_PATH
                    ),
                };
                st.block(
                    Finding::new(code::UNCLASSIFIED_HOST_API, message, action).on_observation(o),
                );
            }
        }
    }
    let mut observed = 0;
    let mut progress = missing::Progress {
        entry_ended: a.entry_ended(),
        page_error: a
            .recording
            .as_ref()
            .and_then(|r| r.page_errors.first())
            .map(|e| e.describe()),
        collections_answering_themselves: missing::collections_answering_themselves(
            &a.observations,
        ),
        own_names_given: missing::own_names_given(&a.observations),
        classes_given: missing::classes_given(
            &a.observations,
            // The classes the browser's objects had, and the interfaces whose members the
            // script read on them (a `click()`'s event is a `PointerEvent` reading
            // `MouseEvent.prototype.button`).
            c.items.iter().flat_map(|item| {
                [
                    item.receiver.as_str(),
                    item.api
                        .split_once(".prototype.")
                        .map_or("", |(iface, _)| iface),
                ]
            }),
            c.items
                .iter()
                .any(|item| missing::adds_a_listener(&item.api, &item.access_type)),
        ),
        ..missing::Progress::default()
    };
    // Where the page's script threw there, the objects the browser's script got later were never
    // asked of the environment: those of the APIs it has may be the environment's too.
    if progress.page_error.is_some()
        && let Some(recording) = &a.recording
    {
        let given = missing::classes_the_browser_got(&c.items, recording, &a.observations);
        for (class, api) in given {
            if !progress.classes_given.iter().any(|(c, _)| *c == class) {
                progress.classes_given.push((class, api));
            }
        }
    }
    for (index, item) in c.items.iter().enumerate() {
        let blocking_item = item.priority != "P2";
        let Some(observations) = by_id.get(&item.id) else {
            let mut findings = Vec::new();
            if let Some(recording) = &a.recording {
                let why = missing::explain(item, recording, &progress);
                let mut f =
                    Finding::new(code::MISSING_OBSERVATION, why.message, why.action).on(item);
                if why.cause == missing::ENVIRONMENT_LACKS {
                    progress.last_lacking = Some(missing::Reached::of(item, index));
                }
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
        progress.last_reached = Some(missing::Reached::of(item, index));
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
        // Dimensions come in name order: `args` before `returnValue`.
        let mut args_differed = false;
        let fewer_calls = match (
            item.expected.get(contract::OUTCOMES_BY_ARGS),
            measured.get(contract::OUTCOMES_BY_ARGS),
        ) {
            (Some(expected), Some(seen)) => outcomes::fewer_calls(expected, seen),
            _ => None,
        };
        for (dim, expected) in &item.expected {
            if dim == contract::OUTCOMES_BY_ARGS {
                // Compared by arguments, where the tool recorded both sides (a clock's or a
                // timer's values differ between any two runs).
                if let Some(seen) = measured.get(dim.as_str())
                    && !is_volatile(&item.api)
                {
                    let answered = outcomes::differing(expected, seen);
                    if !answered.is_empty() {
                        let f = outcomes::finding(item, &answered);
                        if blocking_item {
                            st.block(f)
                        } else {
                            st.risks.push(f)
                        }
                    }
                }
                continue;
            }
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
                // The item was observed, but the environment's recording has no sample of this
                // dimension (the recorders measure a value's structure on a member's first
                // accesses only, and an environment that made one more access before this item
                // sampled none of it here): not sampled is never a mismatch; it is unverified.
                st.unsampled(item, dim);
                continue;
            };
            if same_values(expected, seen) {
                continue;
            }
            // The environment made fewer of the calls (its run stopped, or took another way):
            // what the browser gave only for arguments never given here is not sampled, never a
            // difference. happy-dom's run of a page stopped after `createElement("template")`,
            // and "createElement never gives an HTMLDivElement" was said of calls it never got.
            if let Some(fewer) = fewer_calls.as_ref().filter(|_| !is_volatile(&item.api))
                && match dim.as_str() {
                    "returnValue" => same_values(&fewer.values, seen),
                    "exception" => same_values(&fewer.exceptions, seen),
                    d => VALUE_FACTS.contains(&d) && covered(seen, expected),
                }
            {
                st.unsampled(item, dim);
                continue;
            }
            // The browser's one object over its reads, the environment's one per receiver where
            // its reads span more of them (DOMPurify reading `attributes` of two forms in jsdom,
            // of one in Chromium): each receiver kept its object, as the browser's did.
            let one = [Value::from("one object")];
            if dim == contract::IDENTITY
                && expected.as_slice() == one
                && measured
                    .get(contract::IDENTITY_PER_RECEIVER)
                    .is_some_and(|per_receiver| per_receiver.as_slice() == one)
            {
                continue;
            }
            // A page's library names its own keys on host objects with a random number (jQuery's
            // data), or marks what it writes with one (lit's templates): other names in every
            // run, compared without it.
            if random_names::may_hold_random_names(dim)
                && same_values(
                    &random_names::in_values(expected),
                    &random_names::in_values(seen),
                )
            {
                continue;
            }
            // The page's own keys left out, what is left is the difference to tell.
            let page_keys_left_out;
            let (expected, seen) = if is_key_list(dim) {
                page_keys_left_out = (
                    without_page_keys(expected, &page_keys),
                    without_page_keys(seen, &page_keys),
                );
                let (expected, seen) = (&page_keys_left_out.0, &page_keys_left_out.1);
                if same_values(
                    &random_names::in_values(expected),
                    &random_names::in_values(seen),
                ) {
                    continue;
                }
                (expected, seen)
            } else {
                (expected, seen)
            };
            // A clock's or a random source's values differ between any two runs, the browser's
            // own included: what such an API returns is compared by kind, not by value.
            let clock = dim == "returnValue" && is_volatile(&item.api);
            let (expected_kinds, seen_kinds) = if clock {
                (
                    volatile_kinds(&item.api, expected),
                    volatile_kinds(&item.api, seen),
                )
            } else {
                (Vec::new(), Vec::new())
            };
            if clock && same_values(&expected_kinds, &seen_kinds) {
                continue;
            }
            // Other arguments: some call was given what no call in the browser was (the
            // browser's making more calls than the environment is no such thing).
            args_differed |= dim == "args" && !covered(seen, expected);
            if matches!(dim.as_str(), "returnValue" | "exception") {
                progress.differences.push(missing::Differed {
                    at: missing::Reached::of(item, index),
                    dimension: dim.clone(),
                    expected: Value::from(expected.clone()),
                    observed: Value::from(seen.clone()),
                    given_other: args_differed,
                    until: item.last_seq,
                });
            }
            let kinds_text = |kinds: &[Value]| {
                let mut texts: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
                texts.dedup();
                texts.join(", ")
            };
            let action = match long_strings_alike(expected, seen) {
                // A clock's values differ between any two runs: only their kind can be made the
                // browser's.
                _ if clock => format!(
                    "make {} give a {} as the browser does (here a {}); the values themselves differ between any two runs",
                    item.api,
                    kinds_text(&expected_kinds),
                    kinds_text(&seen_kinds)
                ),
                Some(lengths) => format!(
                    "change the environment so that {dim} is what the browser showed: the strings ({lengths} characters) begin alike and differ after the first {} characters, which is all a trace keeps of a string over {} beside its hash; compare the whole values by hand",
                    crate::conformance::raw_trace::PREVIEW,
                    crate::conformance::raw_trace::LONG_STRING
                ),
                None => format!("change the environment so that {dim} is what the browser showed"),
            };
            let f = Finding::new(
                code::DIMENSION_MISMATCH,
                format!("{}: {dim} differs from the browser", item.api),
                action,
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

/// Where every value on both sides is a long string's digest (`{"$string": "sha256:…", "length",
/// "preview"}`) with one preview, the strings' lengths (`2298 and 2301`): they differ past what the
/// trace keeps of them.
pub(super) fn long_strings_alike(expected: &[Value], seen: &[Value]) -> Option<String> {
    let mut preview = None;
    let mut lengths: Vec<String> = Vec::new();
    for value in expected.iter().chain(seen) {
        value.get("$string")?;
        let this = value.get("preview")?.as_str()?;
        if *preview.get_or_insert(this) != this {
            return None;
        }
        let length = value.get("length")?.to_string();
        if !lengths.contains(&length) {
            lengths.push(length);
        }
    }
    match lengths.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        [init @ .., last] => Some(format!("{} and {last}", init.join(", "))),
    }
}
