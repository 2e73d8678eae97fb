//! The stateful families' timelines, the runtime's against the contract's.

use super::*;

/// Per-object runtime timelines in order of their first event, and the global one.
pub(super) fn runtime_timelines(
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

pub(super) fn first_difference(expected: &[Fold], observed: &[Fold]) -> String {
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

pub(super) fn compare_timelines(c: &Contract, entries: &[TimelineEntry], st: &mut State) {
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
    let mut findings = Vec::new();
    // Objects first: the global timeline holds every object's events, so where an object's
    // own timeline differs the global one differs too, and saying so again is one difference
    // reported twice. The global timeline is judged only when every object's agrees: then what
    // differs is how the objects' events interleave.
    let (global_expected, objects_expected): (Vec<&Timeline>, Vec<&Timeline>) =
        c.timelines.iter().partition(|t| t.object == "*");
    for expected in objects_expected {
        let n = used.entry(expected.family.clone()).or_default();
        let observed = observed_by_family
            .get(&expected.family)
            .and_then(|v| v.get(*n))
            .cloned();
        *n += 1;
        let what = format!("the {} timeline of {}", expected.family, expected.object);
        findings.extend(timeline_finding(&what, expected, observed.as_ref(), action));
    }
    for (family, list) in &observed_by_family {
        let n = used.get(family).copied().unwrap_or(0);
        for extra in list.iter().skip(n) {
            findings.push(
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
    if findings.is_empty() {
        let observed = global.finish("*".into(), "*".into(), String::new());
        for expected in global_expected {
            findings.extend(timeline_finding(
                "the global timeline of stateful events (how the objects' events interleave)",
                expected,
                Some(&observed),
                action,
            ));
        }
    }
    for f in findings {
        st.block(f);
    }
}

/// The finding for one expected timeline against what the runtime did, if they differ.
fn timeline_finding(
    what: &str,
    expected: &Timeline,
    observed: Option<&Timeline>,
    action: &str,
) -> Option<Finding> {
    match observed {
        None => Some(
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
        Some(o) if o.sequence_hash != expected.sequence_hash => Some(
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
        Some(_) => None,
    }
}
