//! The contract builder on traces written by hand.

use super::*;
use crate::conformance::raw_trace::read_capture;
use std::path::Path;

const TRACE: &str = concat!(
    r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1"}"#,
    "\n",
    r#"{"type":"access","seq":1,"nav":0,"api":"navigator.userAgent","accessType":"get","realm":"main","receiver":"Navigator","phase":"init","owner":"Navigator.prototype","returnValue":"UA1"}"#,
    "\n",
    r#"{"type":"access","seq":2,"nav":0,"api":"navigator.userAgent","accessType":"get","realm":"main","receiver":"Navigator","phase":"init","owner":"Navigator.prototype","returnValue":"UA2","exception":null}"#,
    "\n",
    r#"{"type":"access","seq":3,"nav":1,"api":"navigator.userAgent","accessType":"get","realm":"main","receiver":"Navigator","phase":"writer","returnValue":"UA1"}"#,
    "\n",
    r#"{"type":"access","seq":4,"api":"XMLHttpRequest.prototype.open","accessType":"call","realm":"main","receiver":"XMLHttpRequest","phase":"init","state":{"family":"xhr","object":"xhr#1","event":"open"}}"#,
    "\n",
    r#"{"type":"access","seq":5,"api":"XMLHttpRequest.event:readystatechange","accessType":"event","realm":"main","receiver":"XMLHttpRequest","phase":"init","state":{"family":"xhr","object":"xhr#1","event":"readystatechange"}}"#,
    "\n",
    r#"{"type":"access","seq":6,"api":"XMLHttpRequest.event:readystatechange","accessType":"event","realm":"main","receiver":"XMLHttpRequest","phase":"init","state":{"family":"xhr","object":"xhr#1","event":"readystatechange"}}"#,
    "\n",
);

fn build(dir: &Path, text: &str) -> Contract {
    let path = dir.join("t.ndjson");
    std::fs::write(&path, text).unwrap();
    let mut builder = Builder::new();
    let summary = read_capture(&[path], dir, |e, names| {
        builder.add(e, names);
        Ok(())
    })
    .unwrap();
    builder.finish(&summary, summary.baseline_id.clone(), None)
}

#[test]
fn one_item_per_key_every_value_and_pending_dimensions() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), TRACE);
    assert_eq!(
        c.items.len(),
        4,
        "init and writer phases are distinct items"
    );
    let ua = &c.items[0];
    assert_eq!(ua.count, 2);
    assert_eq!(
        ua.expected["returnValue"],
        [Value::from("UA1"), Value::from("UA2")]
    );
    assert_eq!(ua.expected["exception"], [Value::Null], "null is evidence");
    assert!(ua.pending.contains(&"descriptor".to_owned()));
    assert!(!ua.pending.contains(&"exception".to_owned()));
    assert!(!ua.expected.contains_key("descriptor"), "never defaulted");
    assert_eq!(ua.priority, "P1");
    assert_eq!(c.items[1].navs, [1]);
    assert_eq!(c.items[2].priority, "P0", "stateful");
}

#[test]
fn timelines_are_folded_with_a_hash_of_the_unfolded_sequence() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), TRACE);
    assert_eq!(c.timelines.len(), 2);
    let xhr = &c.timelines[0];
    assert_eq!((xhr.object.as_str(), xhr.events), ("xhr#1", 3));
    assert_eq!(
        xhr.folded.iter().map(|f| f.times).collect::<Vec<_>>(),
        [1, 2]
    );
    let mut tb = TimelineBuilder::default();
    tb.push(&c.items[2].id, "open");
    tb.push(&c.items[3].id, "readystatechange");
    tb.push(&c.items[3].id, "readystatechange");
    assert_eq!(
        tb.finish("xhr".into(), "x".into(), String::new())
            .sequence_hash,
        xhr.sequence_hash
    );
    assert_eq!(c.timelines[1].object, "*");
}

#[test]
fn dimension_index_follows_the_list() {
    for (i, name) in DIMENSIONS.iter().enumerate() {
        assert_eq!(dimension_index(name), Some(i));
    }
    assert_eq!(dimension_index("stack"), None);
}

#[test]
fn direct_serialization_is_the_canonical_form() {
    // A contract with every optional part present (requests, family, policy).
    let dir = tempfile::tempdir().unwrap();
    let trace = concat!(
        r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1"}"#,
        "\n",
        r#"{"type":"access","seq":1,"realm":"main","phase":"p","api":"XMLHttpRequest.prototype.open","accessType":"call","receiver":"XMLHttpRequest","args":["GET","/x"],"exception":null,"state":{"family":"xhr","object":"xhr#1","event":"open"},"returnValue":{"z":1,"a":[{"y":2,"b":3}]}}"#,
        "\n",
        r#"{"type":"access","seq":2,"realm":"main","phase":"p","api":"XMLHttpRequest.prototype.send","accessType":"call","receiver":"XMLHttpRequest","args":["x"],"exception":null,"state":{"family":"xhr","object":"xhr#1","event":"send"}}"#,
        "\n",
    );
    let mut contract = build(dir.path(), trace);
    contract.policy = Some(PolicyEntry {
        path: "p".into(),
        sha256: "s".into(),
    });
    contract.contract_hash = compute_hash(&contract);
    assert!(!contract.requests.is_empty());
    let value = serde_json::to_value(&contract).unwrap();
    let mut pretty = serde_json::to_vec_pretty(&value).unwrap();
    pretty.push(b'\n');
    assert_eq!(
        String::from_utf8(to_json_bytes(&contract)).unwrap(),
        String::from_utf8(pretty).unwrap(),
        "declare the fields in the byte order of their JSON names"
    );
    assert_eq!(contract.contract_hash, hash::contract(&value));
}

#[test]
fn same_trace_same_bytes_and_hash_checks_out() {
    let dir = tempfile::tempdir().unwrap();
    let a = to_json_bytes(&build(dir.path(), TRACE));
    let b = to_json_bytes(&build(dir.path(), TRACE));
    assert_eq!(a, b);
    let value: Value = serde_json::from_slice(&a).unwrap();
    assert_eq!(value["contractHash"], Value::from(hash::contract(&value)));
}

#[test]
fn policy_lowers_only_untagged_stateless_items() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.ndjson");
    std::fs::write(&path, TRACE).unwrap();
    let policy: Policy = serde_json::from_str(
        r#"{"version":"trace-runtime-policy/v1","lower":[{"api":"navigator.*","reason":"noise"},{"api":"XMLHttpRequest*","reason":"no"}]}"#,
    )
    .unwrap();
    let mut builder = Builder::new();
    let summary = read_capture(&[path], dir.path(), |e, n| {
        builder.add(e, n);
        Ok(())
    })
    .unwrap();
    let entry = PolicyEntry {
        path: "p".into(),
        sha256: "s".into(),
    };
    let c = builder.finish(&summary, None, Some((&policy, entry)));
    assert_eq!(c.items[0].priority, "P2");
    assert_eq!(c.items[2].priority, "P0");
}

/// The own keys of a collection (an interface with indexed or named properties) are not sampled:
/// a trace that has them (an older recording) gives a contract without them; another value's
/// own keys are kept.
#[test]
fn a_collection_s_own_keys_are_left_out_of_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let trace = concat!(
        r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1"}"#,
        "\n",
        r#"{"type":"access","seq":1,"api":"navigator.plugins","accessType":"get","realm":"main","receiver":"Navigator","phase":"init","prototypeChain":["PluginArray","Object"],"keys":["0","1"],"ownKeys":["0","1"],"ownNames":["0","1"],"ownSymbols":[],"brand":"[object PluginArray]"}"#,
        "\n",
        r#"{"type":"access","seq":2,"api":"navigator.connection","accessType":"get","realm":"main","receiver":"Navigator","phase":"init","prototypeChain":["NetworkInformation","EventTarget","Object"],"keys":[],"ownSymbols":[]}"#,
        "\n",
    );
    let c = build(dir.path(), trace);
    let plugins = c
        .items
        .iter()
        .find(|i| i.api == "navigator.plugins")
        .unwrap();
    for dimension in KEY_LISTS {
        assert!(!plugins.expected.contains_key(dimension), "{plugins:?}");
    }
    assert_eq!(
        plugins.expected["brand"],
        [Value::from("[object PluginArray]")]
    );
    let connection = c
        .items
        .iter()
        .find(|i| i.api == "navigator.connection")
        .unwrap();
    assert_eq!(connection.expected["keys"], [Value::Array(vec![])]);
    assert!(keys_computed(r#"["RadioNodeList","NodeList","Object"]"#));
    assert!(!keys_computed(
        r#"["HTMLDivElement","HTMLElement","Element","Node","EventTarget","Object"]"#
    ));
}

/// A call's arguments are kept with what came of them: an exception by its name and type (its
/// message is each engine's own wording), a value with its objects named by class (their ids
/// only link lines within one trace), each distinct pair once.
#[test]
fn each_call_s_arguments_are_kept_with_what_came_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let call = |seq: u32, rest: &str| {
        format!(
            r#"{{"type":"access","seq":{seq},"api":"document.querySelectorAll","accessType":"call","realm":"main","receiver":"HTMLDocument","phase":"init",{rest}}}"#
        )
    };
    let trace = [
        r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1"}"#.to_owned(),
        call(1, r#""args":["li"],"exception":null,"returnValue":{"$object":"NodeList","id":"o1"}"#),
        call(2, r#""args":["li"],"exception":null,"returnValue":{"$object":"NodeList","id":"o2"}"#),
        call(3, r#""args":["li:first"],"exception":{"type":"DOMException","message":"'li:first' is not a valid selector.","name":"SyntaxError"}"#),
        call(4, r#""args":[{"$object":"HTMLDivElement","id":"o3"}],"exception":null"#),
        call(5, r#""args":["p"]"#),
    ]
    .join("\n");
    let c = build(dir.path(), &trace);
    assert_eq!(
        c.items[0].expected[OUTCOMES_BY_ARGS],
        [
            serde_json::json!([["li"], {"threw": false, "value": {"$object": "NodeList"}}]),
            serde_json::json!([["li:first"], {"threw": {"name": "SyntaxError", "type": "DOMException"}}]),
            serde_json::json!([[{"$object": "HTMLDivElement"}], {"threw": false}]),
        ],
        "a call with nothing recorded of its outcome (seq 5) has no pair"
    );
    assert!(!c.items[0].pending.contains(&OUTCOMES_BY_ARGS.to_owned()));
}
