//! Reading the case's files for the check: the contract (and whether it still matches the trace
//! and the policy on disk), the audit.

use super::*;

pub(super) fn load_contract(
    path: &Path,
    shown: &str,
    label: &str,
    st: &mut State,
    hashes: &mut Hashes,
) -> Option<Contract> {
    let value = match read_value(path, shown, st) {
        Read::Value(value) => value,
        Read::Unreadable => return None,
        Read::Missing => {
            st.block(Finding::new(
                code::MISSING_CONTRACT,
                format!("no contract at {}", shown),
                format!("build it: `tracer contract build --case-dir {label}`"),
            ));
            return None;
        }
    };
    let version = value
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if version != contract::VERSION {
        if is_old(&version, family_of(contract::VERSION)) {
            st.block(Finding::new(
                code::OLD_VERSION,
                format!(
                    "{}: version `{version}`, this tracer reads `{}`",
                    shown,
                    contract::VERSION
                ),
                "rebuild the contract with `tracer contract build`",
            ));
        } else {
            st.unreadable(format!(
                "{}: version `{version}` is not `{}`",
                shown,
                contract::VERSION
            ));
        }
        return None;
    }
    let recomputed = hash::contract(&value);
    let contract: Contract = match serde_json::from_value(value) {
        Ok(c) => c,
        Err(e) => {
            st.unreadable(format!(
                "{}: not a valid {} file ({e})",
                shown,
                contract::VERSION
            ));
            return None;
        }
    };
    hashes.contract_hash.contract = Some(contract.contract_hash.clone());
    hashes.contract_hash.disk = Some(recomputed.clone());
    hashes.baseline_id.contract = contract.baseline_id.clone();
    hashes.trace_source_hash.contract = Some(contract.trace_source_hash.clone());
    if recomputed != contract.contract_hash {
        st.block(
            Finding::new(
                code::STALE_CONTRACT,
                "the contract's contractHash does not match its content: it was edited after it was built",
                "rebuild the contract with `tracer contract build`; never edit it by hand",
            )
            .dimension(
                "contractHash",
                Some(recomputed.into()),
                Some(contract.contract_hash.clone().into()),
            ),
        );
    }
    Some(contract)
}

pub(super) fn check_contract_against_disk(
    case_dir: &Path,
    c: &Contract,
    st: &mut State,
    hashes: &mut Hashes,
) {
    let rebuild = "rebuild the contract with `tracer contract build`, then audit again";
    let files: Vec<_> = c
        .traces
        .iter()
        .map(|t| resolve(case_dir, &t.path))
        .collect();
    // One read of the files gives each one's digest and the whole capture's; where one cannot be
    // read, each is hashed on its own so that the finding names it.
    let (whole, each) = match hash::trace_source_and_files(&files) {
        Ok((whole, each)) => (Some(whole), each.into_iter().map(Ok).collect()),
        Err(_) => (
            None,
            files.iter().map(|p| hash::of_file(p)).collect::<Vec<_>>(),
        ),
    };
    let mut all_present = true;
    for (t, digest) in c.traces.iter().zip(each) {
        match digest {
            Ok(now) if now == t.sha256 => {}
            Ok(now) => st.block(
                Finding::new(
                    code::STALE_CONTRACT,
                    format!("trace {} changed since the contract was built", t.path),
                    rebuild,
                )
                .dimension(
                    "traces",
                    Some(now.into()),
                    Some(t.sha256.clone().into()),
                ),
            ),
            Err(e) => {
                all_present = false;
                st.block(Finding::new(
                    code::STALE_CONTRACT,
                    format!("trace {} cannot be read now ({e})", t.path),
                    rebuild,
                ));
            }
        }
    }
    if all_present {
        let whole = match whole {
            Some(whole) => Ok(whole),
            None => hash::trace_source(&files),
        };
        match whole {
            Ok(now) => {
                if now != c.trace_source_hash {
                    st.block(
                        Finding::new(
                            code::STALE_CONTRACT,
                            "traceSourceHash of the trace files on disk differs from the contract's",
                            rebuild,
                        )
                        .dimension(
                            "traceSourceHash",
                            Some(now.clone().into()),
                            Some(c.trace_source_hash.clone().into()),
                        ),
                    );
                }
                hashes.trace_source_hash.disk = Some(now);
            }
            Err(e) => st.unreadable(format!("hashing the trace files: {e}")),
        }
        if files.len() > 1 {
            // Shards must still form one capture with one global order.
            let mut baseline = None;
            match raw_trace::read_capture(&files, case_dir, |_, _| Ok(())) {
                Ok(summary) => baseline = Some(summary.baseline_id),
                Err(e) => st.block(Finding::new(
                    code::NO_GLOBAL_ORDER,
                    format!("the contract's traces have no single global order: {e:#}"),
                    "give the shards of one capture to `tracer contract build --trace`",
                )),
            }
            if let Some(b) = baseline {
                hashes.baseline_id.disk = b;
            }
        } else if let Some(first) = files.first() {
            match raw_trace::read_header(first, c.traces[0].path.clone()) {
                Ok(h) => hashes.baseline_id.disk = h.baseline_id,
                Err(e) => st.unreadable(format!("{e:#}")),
            }
        }
    }
    // A baseline given with --baseline-id to a header-less trace stays the contract's.
    if hashes.baseline_id.disk.is_none() {
        hashes.baseline_id.disk = c.baseline_id.clone();
    }
    if hashes.baseline_id.disk != c.baseline_id {
        st.block(
            Finding::new(
                code::STALE_CONTRACT,
                "the trace on disk has another baselineId than the contract",
                rebuild,
            )
            .dimension(
                "baselineId",
                hashes.baseline_id.disk.clone().map(Value::from),
                c.baseline_id.clone().map(Value::from),
            ),
        );
    }
    let policy_path = case_dir.join(policy::RELATIVE_PATH);
    let policy_now = hash::of_file(&policy_path).ok();
    let policy_then = c.policy.as_ref().map(|p| p.sha256.clone());
    if policy_now != policy_then {
        st.block(Finding::new(
            code::STALE_CONTRACT,
            format!(
                "{} changed since the contract was built",
                policy::RELATIVE_PATH
            ),
            rebuild,
        ));
    }
}

pub(super) fn load_audit(path: &Path, shown: &str, label: &str, st: &mut State) -> Option<Audit> {
    let value = match read_value(path, shown, st) {
        Read::Value(value) => value,
        Read::Unreadable => return None,
        Read::Missing => {
            st.block(Finding::new(
                code::MISSING_AUDIT,
                format!("no audit at {}", shown),
                format!(
                    "audit the environment: `tracer audit --case-dir {label} --entry {label}/result/final.js`"
                ),
            ));
            return None;
        }
    };
    match value.get("probeVersion") {
        None | Some(Value::Null) => st.block(Finding::new(
            code::MISSING_METADATA,
            format!("{}: no probeVersion", shown),
            "audit again with `tracer audit`; only the tool writes the audit's metadata",
        )),
        Some(v) => {
            let version = v.as_str().unwrap_or_default();
            if version != audit_format::VERSION {
                if is_old(version, family_of(audit_format::VERSION)) {
                    st.block(Finding::new(
                        code::OLD_VERSION,
                        format!(
                            "{}: probeVersion `{version}`, this tracer reads `{}`",
                            shown,
                            audit_format::VERSION
                        ),
                        "audit again with `tracer audit`",
                    ));
                } else {
                    st.unreadable(format!(
                        "{}: probeVersion `{version}` is not `{}`",
                        shown,
                        audit_format::VERSION
                    ));
                }
                return None;
            }
        }
    }
    // Only an audit the tool wrote, unchanged since, is compared as the tool's.
    let again = format!(
        "audit again with `tracer audit --case-dir {label}`: only an audit tracer wrote, unchanged, is checked"
    );
    match seal::verify(&value, seal::state_dir().as_deref()) {
        seal::Verdict::Valid => {}
        seal::Verdict::Missing => st.block(Finding::new(
            code::AUDIT_NOT_SEALED,
            format!("{shown}: the audit carries no seal (`integrity`)"),
            again.clone(),
        )),
        seal::Verdict::NoKey(why) => st.block(Finding::new(
            code::AUDIT_NOT_SEALED,
            format!("{shown}: the audit's seal cannot be verified here ({why})"),
            again.clone(),
        )),
        seal::Verdict::Mismatch => st.block(Finding::new(
            code::AUDIT_SEAL_BROKEN,
            format!("{shown}: the audit's seal does not verify: it was changed after `tracer audit` wrote it, or made with another key"),
            again.clone(),
        )),
    }
    match serde_json::from_value::<Audit>(value) {
        Ok(a) => Some(a),
        Err(e) => {
            st.unreadable(format!(
                "{}: not a valid {} file ({e})",
                shown,
                audit_format::VERSION
            ));
            None
        }
    }
}
