//! The diff as Markdown (`case/notes/trace-runtime-diff.md`), and the words the summary shares
//! with it.

use std::fmt::Write;

use serde_json::Value;

use super::cell;
use crate::conformance::check::*;
use crate::conformance::finding;

fn short(value: &Option<Value>) -> String {
    value
        .as_ref()
        .map_or_else(|| "(none)".to_owned(), |v| finding::clipped(v, 120))
}

/// `; missing: environment-lacks 5, not-reached 4` (nothing when no item is missing).
pub fn missing_words(counts: &Counts) -> String {
    if counts.missing.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = counts
        .missing
        .iter()
        .map(|(cause, n)| format!("{cause} {n}"))
        .collect();
    format!("; missing: {}", parts.join(", "))
}

/// The diff as Markdown.
pub fn to_markdown(d: &Diff) -> String {
    let mut md = String::new();
    let verdict = if d.matched {
        "**matched**"
    } else {
        "**not conformant**"
    };
    let _ = writeln!(md, "# Trace-runtime diff\n");
    let _ = writeln!(
        md,
        "Verdict: {verdict} ({} blocking, {} risks, {} unverified dimensions)\n",
        d.counts.blocking, d.counts.risks, d.counts.unverified
    );
    let _ = writeln!(
        md,
        "{} items (P0 {}, P1 {}, P2 {}), {} observed{}.\n",
        d.counts.items,
        d.counts.p0,
        d.counts.p1,
        d.counts.p2,
        d.counts.observed,
        missing_words(&d.counts)
    );
    let _ = writeln!(
        md,
        "## Hashes\n\n| | contract | audit | disk now |\n|---|---|---|---|"
    );
    let rows = [
        ("baselineId", &d.hashes.baseline_id),
        ("traceSourceHash", &d.hashes.trace_source_hash),
        ("contractHash", &d.hashes.contract_hash),
        ("runtimeSourceHash", &d.hashes.runtime_source_hash),
    ];
    for (name, t) in rows {
        let f = |v: &Option<String>| v.as_deref().map_or("—".to_owned(), |s| format!("`{s}`"));
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} |",
            f(&t.contract),
            f(&t.audit),
            f(&t.disk)
        );
    }
    if !d.groups.is_empty() {
        let _ = writeln!(
            md,
            "\n## Work list\n\nThe blocking findings grouped by what one change to the environment fixes, largest first; every finding is in the table below.\n\n| findings | change | items | browser | here | what to do |\n|---|---|---|---|---|---|"
        );
        for g in &d.groups {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                g.count,
                cell(&g.title),
                cell(&g.items.join(", ")),
                cell(&short(&g.expected)),
                cell(&short(&g.observed)),
                cell(&g.action)
            );
        }
    }
    for (title, list) in [("Blocking", &d.blocking), ("Risks (P2)", &d.risks)] {
        let _ = writeln!(md, "\n## {title}\n");
        if list.is_empty() {
            let _ = writeln!(md, "None.");
            continue;
        }
        let _ = writeln!(
            md,
            "| code | priority | item | api | dimension | expected | observed | message | what to do |\n|---|---|---|---|---|---|---|---|---|"
        );
        for f in list {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                f.code,
                f.priority.as_deref().unwrap_or(""),
                f.item
                    .as_deref()
                    .map(|i| format!("`{i}`"))
                    .unwrap_or_default(),
                cell(&format!(
                    "{} {}",
                    f.api.as_deref().unwrap_or(""),
                    f.access_type.as_deref().unwrap_or("")
                )),
                f.dimension.as_deref().unwrap_or(""),
                cell(&short(&f.expected)),
                cell(&short(&f.observed)),
                cell(&f.message),
                cell(&f.action)
            );
        }
    }
    let _ = writeln!(md, "\n## Unverified (dimensions one side did not sample)\n");
    if d.unverified.is_empty() {
        let _ = writeln!(md, "None.");
    }
    for u in &d.unverified {
        let _ = writeln!(
            md,
            "- `{}` {} `{}` {}: {}",
            u.item,
            u.priority,
            cell(&u.api),
            u.access_type,
            u.dimensions.join(", ")
        );
    }
    requests_markdown(&mut md, d);
    md
}

/// The request-semantics section of the Markdown diff.
fn requests_markdown(md: &mut String, d: &Diff) {
    let r = &d.requests;
    let verdict = match d.requests_matched {
        Some(true) => "**requests matched**",
        Some(false) => "**requests differ**",
        None => "**not compared**",
    };
    let observed = r.observed.map_or("—".to_owned(), |n| n.to_string());
    let views = match r.network {
        Some(network) => format!(
            "{observed} made by the script in the environment, {network} of them reaching Node's network layer"
        ),
        None => format!("{observed} tried by the environment"),
    };
    let _ = writeln!(
        md,
        "\n## Requests\n\n{verdict}: {} recorded in the browser, {views} (none sent: the guard refuses them).\n",
        r.expected
    );
    if let Some(note) = &r.note {
        let _ = writeln!(md, "{note}\n");
    }
    if !r.differences.is_empty() {
        let _ = writeln!(
            md,
            "| code | seen by | request | field | expected | observed | what to do |\n|---|---|---|---|---|---|---|"
        );
        for f in &r.differences {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |",
                f.code,
                f.source.as_deref().unwrap_or("—"),
                f.request,
                f.field.as_deref().unwrap_or(""),
                cell(&short(&f.expected)),
                cell(&short(&f.observed)),
                cell(&f.action)
            );
        }
    }
    if !r.unverified.is_empty() {
        let _ = writeln!(md, "\nNot recorded on one side, so not compared:\n");
        for u in &r.unverified {
            let _ = writeln!(md, "- {u}");
        }
    }
}
