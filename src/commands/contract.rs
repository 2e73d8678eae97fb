//! `tracer contract build`: choose the trace files (given, or discovered as one capture), read
//! them into the contract builder (`conformance::build`, on every core for a single file), and write `case/notes/trace-runtime-contract.json` (and `.md`)
//! atomically. Nothing is written when the input is refused.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::cli::{ContractBuildArgs, GlobalArgs};
use crate::conformance::build;
use crate::conformance::case;
use crate::conformance::contract::{self, PolicyEntry};
use crate::conformance::hash;
use crate::conformance::policy::{self, Policy};
use crate::error::TracerError;
use crate::exit;
use crate::output::human::Styles;
use crate::output::store::write_atomic;

pub fn build(args: ContractBuildArgs, global: &GlobalArgs, styles: &Styles) -> Result<u8> {
    let case_dir = case::canonical_dir(&args.case_dir)?;
    let paths = if args.trace.is_empty() {
        case::discover_traces(&case_dir)?
    } else {
        args.trace
            .iter()
            .map(|t| {
                t.canonicalize().map_err(|e| {
                    TracerError::usage(format!(
                        "trace {} cannot be read ({e}): check --trace",
                        t.display()
                    ))
                    .into()
                })
            })
            .collect::<Result<Vec<PathBuf>>>()?
    };
    let policy = Policy::load(&case_dir)?;
    let policy_entry = match &policy {
        Some(_) => {
            let path = case_dir.join(policy::RELATIVE_PATH);
            Some(PolicyEntry {
                path: policy::RELATIVE_PATH.to_owned(),
                sha256: hash::of_file(&path)
                    .with_context(|| format!("hashing {}", path.display()))?,
            })
        }
        None => None,
    };

    let given = args.baseline_id.as_deref();
    let check_baseline = |header: Option<&str>, names: &[String]| -> Result<()> {
        match (header, given) {
            (Some(header), Some(given)) if header != given => Err(TracerError::usage(format!(
                "--baseline-id {given} does not match the trace's baselineId {header} ({}): \
                 pick the trace recorded against {given}, or drop --baseline-id",
                names.join(", ")
            ))
            .into()),
            _ => Ok(()),
        }
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let options = build::Options::new(jobs, args.max_items);
    let (builder, summary) = build::read(&paths, &case_dir, options, &check_baseline)?;
    let baseline_id = summary
        .baseline_id
        .clone()
        .or_else(|| given.map(str::to_owned));
    let (contract, json) =
        builder.finish_with_json(&summary, baseline_id, policy.as_ref().zip(policy_entry));

    let notes = case_dir.join("notes");
    std::fs::create_dir_all(&notes).with_context(|| format!("creating {}", notes.display()))?;
    let json_path = case_dir.join(contract::JSON_PATH);
    write_atomic(&json_path, &json).with_context(|| format!("writing {}", json_path.display()))?;
    let md_path = case_dir.join(contract::MD_PATH);
    if args.markdown {
        write_atomic(
            &md_path,
            crate::output::markdown::contract::to_markdown(&contract).as_bytes(),
        )
        .with_context(|| format!("writing {}", md_path.display()))?;
    }

    if !global.quiet {
        let count = |p: &str| contract.items.iter().filter(|i| i.priority == p).count();
        let pending = contract
            .items
            .iter()
            .filter(|i| !i.pending.is_empty())
            .count();
        let mut err = std::io::stderr().lock();
        let _ = writeln!(
            err,
            "{} {} items (P0 {}, P1 {}, P2 {}) from {} events in {} file(s); {} timelines; {} items with pending dimensions",
            styles.success.style("contract:"),
            contract.items.len(),
            count("P0"),
            count("P1"),
            count("P2"),
            summary.events,
            summary.files.len(),
            contract.timelines.len(),
            pending
        );
        let _ = writeln!(
            err,
            "  wrote {}",
            args.case_dir.join(contract::JSON_PATH).display()
        );
        if args.markdown {
            let _ = writeln!(
                err,
                "  wrote {}",
                args.case_dir.join(contract::MD_PATH).display()
            );
        }
    }
    if contract.items.is_empty() {
        // Said even with -q: the check will refuse this contract (EMPTY_CONTRACT).
        let _ = writeln!(
            std::io::stderr().lock(),
            "{} the trace has no access lines: the contract has no items, and `tracer check` compares nothing against it (EMPTY_CONTRACT); record the page running the script again",
            styles.warning.style("warning:")
        );
    }
    Ok(exit::SUCCESS)
}
