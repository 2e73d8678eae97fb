//! The audit's trusted metadata, checked against the files on disk: versions, hashes, the seal,
//! the sandbox, the network count.

use super::*;
use crate::conformance::audit_format::TOOL_MARK_PATH;

pub(super) fn check_audit_metadata(
    case_dir: &Path,
    c: Option<&Contract>,
    a: &Audit,
    st: &mut State,
    hashes: &mut Hashes,
) {
    let again = "audit again with `tracer audit`: the audit was made against other files";
    hashes.baseline_id.audit = a.baseline_id.clone();
    hashes.contract_hash.audit = a.contract_hash.clone();
    hashes.trace_source_hash.audit = a.trace_source_hash.clone();
    hashes.runtime_source_hash.audit = a.runtime_source_hash.clone();
    let stale =
        |what: &str, expected: Option<&String>, observed: Option<&String>, st: &mut State| {
            if expected != observed {
                st.block(
                    Finding::new(
                        code::STALE_AUDIT,
                        format!("{what} differs between the audit and the files now"),
                        again,
                    )
                    .dimension(
                        what,
                        expected.cloned().map(Value::from),
                        observed.cloned().map(Value::from),
                    ),
                );
            }
        };
    if let Some(c) = c {
        stale(
            "baselineId",
            c.baseline_id.as_ref(),
            a.baseline_id.as_ref(),
            st,
        );
        stale(
            "contractHash",
            hashes.contract_hash.disk.as_ref(),
            a.contract_hash.as_ref(),
            st,
        );
        let trace_now = hashes
            .trace_source_hash
            .disk
            .clone()
            .unwrap_or_else(|| c.trace_source_hash.clone());
        stale(
            "traceSourceHash",
            Some(&trace_now),
            a.trace_source_hash.as_ref(),
            st,
        );
    }
    match &a.runtime_source_hash {
        None => st.block(Finding::new(
            code::MISSING_METADATA,
            "the audit has no runtimeSourceHash",
            "audit again with `tracer audit`; only the tool writes the audit's metadata",
        )),
        Some(recorded) if Some(recorded) != hashes.runtime_source_hash.disk.as_ref() => {
            let changed = match (
                &a.runtime_sources,
                hash::runtime_source(&case_dir.join("result")),
            ) {
                (Some(then), Ok((_, now))) => changed_files(then, &now),
                _ => "some file under result/ changed".to_owned(),
            };
            st.block(
                Finding::new(
                    code::STALE_AUDIT,
                    format!("case/result/ changed since the audit: {changed}"),
                    again,
                )
                .dimension(
                    "runtimeSourceHash",
                    hashes.runtime_source_hash.disk.clone().map(Value::from),
                    Some(recorded.clone().into()),
                ),
            );
        }
        Some(_) => {}
    }
    // The sandbox is what keeps the audited code from the tool (its memory, its key, its
    // processes): without it the verdict still stands, with that risk named.
    if !a.sandbox.as_ref().is_some_and(|s| s.in_force) {
        let why = a
            .sandbox
            .as_ref()
            .and_then(|s| s.reason.clone())
            .unwrap_or_else(|| "the audit records no sandbox".to_owned());
        let mut f = Finding::new(
            code::NO_SANDBOX,
            format!(
                "the entry ran without the sandbox ({why}): it could reach the tool as the same user"
            ),
            "audit where user namespaces are allowed (see docs/security.md, \"The audit's sandbox\")",
        );
        f.priority = Some("P2".into());
        st.risks.push(f);
    }
    // The page's marks for tracer (`performance.mark("tracer:done")`, `tracer:phase=NAME`) are
    // kept out of every trace, so a `performance.mark` the environment lacks shows in no item,
    // while the page throws where it calls it (jsdom has none).
    if let Some(recording) = &a.recording
        && recording.realms.iter().any(|r| {
            r.probed_before.is_some()
                && r.kind.as_deref() == Some("main")
                && r.absent.iter().any(|p| p.path == TOOL_MARK_PATH)
        })
    {
        let mut f = Finding::new(
            code::NO_PERFORMANCE_MARK,
            format!(
                "the environment lacks {TOOL_MARK_PATH} in its `main` realm: a page that marks its phases or its end for tracer (`performance.mark(\"tracer:done\")`, `tracer:phase=NAME`) throws a TypeError there, and what follows the call does not run; tracer keeps its own marks out of the trace, so no item shows it"
            ),
            "provide performance.mark as the browser does, or check that the page makes no such call",
        );
        f.priority = Some("P2".into());
        st.risks.push(f);
    }
    // The page's own script failing there stops it as surely as the entry failing does, where
    // the environment catches the error and carries on (happy-dom running a UMD build whose
    // top-level `this` is not the window: every later item "not reached after Math.random").
    if let Some(recording) = &a.recording
        && let Some(first) = recording.page_errors.first()
    {
        let more = recording.page_errors.len() as u64 - 1 + recording.page_errors_left_out;
        let mut f = Finding::new(
            code::PAGE_SCRIPT_ERROR,
            format!(
                "the environment reported an error of the page's script: {}{}; what the script would have done after it there did not run (the trace does not say whether the browser's run had it too)",
                first.describe(),
                match more {
                    0 => String::new(),
                    1 => " (and 1 more: see the audit's recording.pageErrors)".to_owned(),
                    n => format!(" (and {n} more: see the audit's recording.pageErrors)"),
                }
            ),
            "find why the page's script throws there and not in the browser (a global it expects, the value of `this` at a script's top level, a member the environment lacks), then audit again",
        );
        f.priority = Some("P1".into());
        st.risks.push(f);
    }
    // An entry that failed may have been cut short after the last item the contract asks for:
    // the verdict stands on what was observed, with that named.
    if let Some(ended) = a.entry_ended() {
        let mut f = Finding::new(
            code::ENTRY_FAILED,
            format!(
                "the entry {ended}: what it would have done after that was not observed"
            ),
            "make the entry finish with exit code 0; `tracer evidence`, where the audit ran, explains the failure",
        )
        .dimension(
            "exitCode",
            Some(0.into()),
            a.exit_code.map(Value::from),
        );
        f.priority = Some("P2".into());
        st.risks.push(f);
    }
    match a.network_attempts {
        None => st.block(Finding::new(
            code::MISSING_METADATA,
            "the audit has no networkAttempts",
            "audit again with `tracer audit`; only the tool's network guard counts attempts",
        )),
        Some(n) if n > 0 || !a.transcript.is_empty() => {
            let list: Vec<String> = a.transcript.iter().map(|t| t.describe()).collect();
            st.block(
                Finding::new(
                    code::NETWORK_ATTEMPTED,
                    format!(
                        "the environment tried to reach the network {} time(s) while auditing{}",
                        n.max(a.transcript.len() as u64),
                        if list.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", list.join("; "))
                        }
                    ),
                    "remove the request, or make the environment send nothing in no-send mode",
                )
                .dimension("networkAttempts", Some(0.into()), Some(n.into())),
            );
        }
        Some(_) => {}
    }
}

/// "final.js changed, lib/x.js added, old.js removed".
pub(super) fn changed_files(then: &[hash::SourceFile], now: &[hash::SourceFile]) -> String {
    let before: HashMap<&str, &str> = then
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    let after: HashMap<&str, &str> = now
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    let mut parts = Vec::new();
    for f in now {
        match before.get(f.path.as_str()) {
            None => parts.push(format!("result/{} added", f.path)),
            Some(h) if *h != f.sha256 => parts.push(format!("result/{} changed", f.path)),
            Some(_) => {}
        }
    }
    for f in then {
        if !after.contains_key(f.path.as_str()) {
            parts.push(format!("result/{} removed", f.path));
        }
    }
    if parts.is_empty() {
        "the files are the same but the hash differs".to_owned()
    } else {
        parts.join(", ")
    }
}
