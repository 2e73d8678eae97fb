//! The check on cases written by hand.

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
    let with_null = json!({"kind": "accessor", "configurable": true, "get": getter, "set": null});
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
    // An event's time since the time origin is a clock too, and one since the epoch (jsdom's
    // `Event.timeStamp`) is another kind.
    let stamp = "Event.prototype.timeStamp";
    assert!(is_volatile(stamp));
    assert!(same_values(
        &volatile_kinds(stamp, &[json!(360.6)]),
        &volatile_kinds(stamp, &[json!(1022.1), json!(2.5)])
    ));
    assert!(!same_values(
        &volatile_kinds(stamp, &[json!(360.6)]),
        &volatile_kinds(stamp, &[json!(1796641111501u64)])
    ));
    assert!(same_values(
        &volatile_kinds("Date.now", &[json!(1796641111501u64)]),
        &volatile_kinds("Date.now", &[json!(1796641111999u64)])
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

/// Two long strings alike in all a trace keeps of them but their lengths (Readability's article
/// `innerHTML`, 2 298 characters in Chromium, 2 301 in jsdom): the action says where they differ
/// and what to do (it once showed two equal previews and no way on).
#[test]
fn long_strings_that_begin_alike_are_said_to_differ_past_their_previews() {
    let long = |length: u64, hash: &str| json!({"$string": format!("sha256:{hash}"), "length": length, "preview": "<div id=\"readability-page-1\""});
    assert_eq!(
        long_strings_alike(&[long(2298, "a")], &[long(2301, "b")]).as_deref(),
        Some("2298 and 2301")
    );
    let other = json!({"$string": "sha256:c", "length": 2301, "preview": "<p>"});
    assert_eq!(long_strings_alike(&[long(2298, "a")], &[other]), None);
    assert_eq!(
        long_strings_alike(&[json!("short")], &[long(2301, "b")]),
        None
    );
}

/// One difference, one finding: an object whose own timeline differs is not reported again as
/// the global timeline (which holds its events), and the global one speaks when every object's
/// agrees but their events interleave in another order.
#[test]
fn a_timeline_difference_is_reported_once_and_the_interleaving_only_on_its_own() {
    let item = |id: &str| {
        json!({"accessType": "call", "api": id, "count": 2, "expected": {}, "family": "xhr",
               "firstSeq": 1, "id": id, "lastSeq": 2, "navs": [0], "pending": [], "phase": "init",
               "priority": "P1", "realm": "main", "receiver": "XMLHttpRequest",
               "stackSample": [], "tags": []})
    };
    let timeline = |object: &str, events: &[(&str, &str)]| {
        let mut b = TimelineBuilder::default();
        for (item, event) in events {
            b.push(item, event);
        }
        b.finish("xhr".into(), object.into(), String::new())
    };
    let (open, send) = (("open", "open"), ("send", "send"));
    let contract: Contract = serde_json::from_value(json!({
        "baselineId": null, "contractHash": "", "generatedBy": "test", "items": [item("open"), item("send")],
        "timelines": [], "traceSourceHash": "", "traces": [], "version": "1"
    }))
    .unwrap();
    let contract = Contract {
        timelines: vec![
            timeline("xhr#1", &[open, send]),
            timeline("xhr#2", &[open, send]),
            timeline("*", &[open, open, send, send]),
        ],
        ..contract
    };
    let entry = |sequence, object: &str, (id, event): (&str, &str)| TimelineEntry {
        contract_id: id.into(),
        sequence,
        object: object.into(),
        event: event.into(),
    };
    let run = |entries: &[TimelineEntry]| {
        let mut st = State::default();
        compare_timelines(&contract, entries, &mut st);
        st.blocking
            .into_iter()
            .map(|f| f.message)
            .collect::<Vec<_>>()
    };
    // The browser's order.
    let same = [
        entry(1, "a", open),
        entry(2, "b", open),
        entry(3, "a", send),
        entry(4, "b", send),
    ];
    assert_eq!(run(&same), Vec::<String>::new());
    // The first object sends before it opens: its timeline differs, and only it is reported.
    let swapped = [
        entry(1, "a", send),
        entry(2, "b", open),
        entry(3, "a", open),
        entry(4, "b", send),
    ];
    let found = run(&swapped);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("the xhr timeline of xhr#1 differs"),
        "{found:?}"
    );
    // Each object in the browser's order, one after the other: the interleaving differs.
    let serial = [
        entry(1, "a", open),
        entry(2, "a", send),
        entry(3, "b", open),
        entry(4, "b", send),
    ];
    let found = run(&serial);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("the global timeline"), "{found:?}");
}
