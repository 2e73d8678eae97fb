//! The contract as Markdown (`case/notes/trace-runtime-contract.md`).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::cell;
use crate::conformance::contract::*;

/// The contract as Markdown: counts by priority and family, the items, the pending dimensions,
/// the timelines.
pub fn to_markdown(c: &Contract) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Trace-runtime contract\n");
    let _ = writeln!(md, "- version: `{}`", c.version);
    let _ = writeln!(
        md,
        "- baselineId: `{}`",
        c.baseline_id.as_deref().unwrap_or("none")
    );
    let _ = writeln!(md, "- traceSourceHash: `{}`", c.trace_source_hash);
    let _ = writeln!(md, "- contractHash: `{}`", c.contract_hash);
    let _ = writeln!(md, "- generatedBy: {}", c.generated_by);
    let _ = writeln!(
        md,
        "\n## Traces\n\n| path | lines | sha256 |\n|---|---|---|"
    );
    for t in &c.traces {
        let _ = writeln!(md, "| {} | {} | `{}` |", cell(&t.path), t.lines, t.sha256);
    }
    let mut by_priority: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_family: BTreeMap<&str, usize> = BTreeMap::new();
    for item in &c.items {
        *by_priority.entry(&item.priority).or_default() += 1;
        *by_family
            .entry(item.family.as_deref().unwrap_or("(stateless)"))
            .or_default() += 1;
    }
    let _ = writeln!(
        md,
        "\n## Counts\n\n{} items.\n\n| priority | items |\n|---|---|",
        c.items.len()
    );
    for (p, n) in &by_priority {
        let _ = writeln!(md, "| {p} | {n} |");
    }
    let _ = writeln!(md, "\n| family | items |\n|---|---|");
    for (f, n) in &by_family {
        let _ = writeln!(md, "| {f} | {n} |");
    }
    let _ = writeln!(
        md,
        "\n## Items\n\n| id | priority | api | accessType | realm | receiver | phase | count | tags | expected | pending |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for i in &c.items {
        let expected: Vec<&str> = i.expected.keys().map(String::as_str).collect();
        let _ = writeln!(
            md,
            "| `{}` | {} | `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
            i.id,
            i.priority,
            cell(&i.api),
            cell(&i.access_type),
            cell(&i.realm),
            cell(&i.receiver),
            cell(&i.phase),
            i.count,
            cell(&i.tags.join(", ")),
            expected.join(", "),
            i.pending.join(", ")
        );
    }
    let pending: Vec<&Item> = c.items.iter().filter(|i| !i.pending.is_empty()).collect();
    let _ = writeln!(
        md,
        "\n## Pending dimensions\n\nAwaiting a same-baseline sample; never filled with a default, never counted as matched.\n"
    );
    if pending.is_empty() {
        let _ = writeln!(md, "None.");
    }
    for i in pending {
        let _ = writeln!(
            md,
            "- `{}` `{}` {} ({}, {}): {}",
            i.id,
            cell(&i.api),
            i.access_type,
            i.realm,
            i.phase,
            i.pending.join(", ")
        );
    }
    let _ = writeln!(md, "\n## Timelines\n");
    if c.timelines.is_empty() {
        let _ = writeln!(md, "None.");
    }
    for t in &c.timelines {
        let folded: Vec<String> = t
            .folded
            .iter()
            .map(|f| {
                if f.times > 1 {
                    format!("{}×{}", f.event, f.times)
                } else {
                    f.event.clone()
                }
            })
            .collect();
        let _ = writeln!(
            md,
            "- {} `{}` ({} events, `{}`): {}",
            t.family,
            cell(&t.object),
            t.events,
            t.sequence_hash,
            folded.join(" → ")
        );
    }
    let _ = writeln!(md, "\n## Requests\n");
    if c.requests.is_empty() {
        let _ = writeln!(md, "None.");
    }
    for (i, r) in c.requests.iter().enumerate() {
        let _ = writeln!(md, "{}. {}", i + 1, cell(&r.describe()));
    }
    md
}
