//! The check's verdict, concluded: the diff's JSON and Markdown written in the case, the JSON or
//! Markdown on stdout when asked, the summary (the findings, the work list, the requests) on
//! stderr, and the exit code. `tracer check` and `tracer audit` both end here.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use crate::conformance::check::{self, Diff};
use crate::exit;
use crate::output::human::Styles;
use crate::output::store::write_atomic;

/// How many blocking findings the human summary lists before pointing at the Markdown.
const SUMMARY_FINDINGS: usize = 12;

/// What the verdict puts on stdout besides the files it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Nothing,
    Json,
    Markdown,
}

/// Runs the check on `case_dir` (`given`: as the user named it), writes the diff's JSON and
/// Markdown there atomically, shows what was asked on stdout and, unless `quiet`, the summary on
/// stderr; returns 0 matched, 3 not conformant, 2 when an input was unreadable or of an unknown
/// version.
pub fn conclude(
    case_dir: &Path,
    given: &Path,
    shown: Shown,
    quiet: bool,
    styles: &Styles,
) -> Result<u8> {
    let label = given.display().to_string();
    let label = label.trim_end_matches('/');
    let outcome = check::check(case_dir, if label.is_empty() { "." } else { label });
    let diff = &outcome.diff;

    let notes = case_dir.join("notes");
    std::fs::create_dir_all(&notes).with_context(|| format!("creating {}", notes.display()))?;
    let json_path = case_dir.join(check::JSON_PATH);
    let mut json = serde_json::to_vec_pretty(&serde_json::to_value(diff)?)?;
    json.push(b'\n');
    write_atomic(&json_path, &json).with_context(|| format!("writing {}", json_path.display()))?;
    let markdown = crate::output::markdown::diff::to_markdown(diff);
    let md_path = case_dir.join(check::MD_PATH);
    write_atomic(&md_path, markdown.as_bytes())
        .with_context(|| format!("writing {}", md_path.display()))?;

    {
        let mut out = std::io::stdout().lock();
        // A closed stdout (`| head`) is not an error.
        match shown {
            Shown::Json => {
                let _ = out.write_all(&json);
            }
            Shown::Markdown => {
                let _ = out.write_all(markdown.as_bytes());
            }
            Shown::Nothing => {}
        }
        let _ = out.flush();
    }
    if !quiet {
        let mut err = std::io::stderr().lock();
        let _ = summary(
            &mut err,
            styles,
            diff,
            &given.join(check::MD_PATH).display().to_string(),
        );
    }
    Ok(if outcome.bad_input {
        exit::USAGE
    } else if diff.matched {
        exit::SUCCESS
    } else {
        exit::NOT_CONFORMANT
    })
}

fn summary(out: &mut impl Write, s: &Styles, d: &Diff, md: &str) -> std::io::Result<()> {
    if d.matched {
        write!(out, "{}", s.success.style("matched"))?;
    } else {
        write!(out, "{}", s.error.style("not conformant"))?;
    }
    writeln!(
        out,
        ": {} blocking, {} risks, {} unverified dimensions; {} of {} items observed (P0 {}, P1 {}, P2 {}){}",
        d.counts.blocking,
        d.counts.risks,
        d.counts.unverified,
        d.counts.observed,
        d.counts.items,
        d.counts.p0,
        d.counts.p1,
        d.counts.p2,
        crate::output::markdown::diff::missing_words(&d.counts)
    )?;
    // Findings about the files and the run (hashes, versions, the network, the sandbox, the
    // entry's exit), each as it is, those that block first; then the work list, one line per
    // change to the environment.
    let general: Vec<_> = d
        .blocking
        .iter()
        .map(|f| (f, &s.error, ""))
        .chain(d.risks.iter().map(|f| (f, &s.warning, " (risk)")))
        .filter(|(f, _, _)| f.api.is_none())
        .collect();
    for (f, style, risk) in general.iter().take(SUMMARY_FINDINGS) {
        let what = f
            .dimension
            .as_ref()
            .map(|dim| format!(" [{dim}]"))
            .unwrap_or_default();
        writeln!(out, "  {}{risk}{what}: {}", style.style(&f.code), f.message)?;
        writeln!(out, "    {} {}", s.dim.style("->"), f.action)?;
    }
    if general.len() > SUMMARY_FINDINGS {
        writeln!(out, "  ... and {} more", general.len() - SUMMARY_FINDINGS)?;
    }
    let groups: Vec<_> = d.groups.iter().filter(|g| !g.items.is_empty()).collect();
    if !groups.is_empty() {
        writeln!(
            out,
            "work list: the {} findings on items in {} group(s), largest first",
            groups.iter().map(|g| g.count).sum::<usize>(),
            groups.len()
        )?;
    }
    for g in groups.iter().take(SUMMARY_FINDINGS) {
        const SHOWN: usize = 4;
        let mut items = g
            .items
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if g.items.len() > SHOWN {
            items.push_str(&format!(" (+{} more)", g.items.len() - SHOWN));
        }
        writeln!(out, "  {:>3}  {}", g.count, s.error.style(&g.title))?;
        writeln!(out, "       {items}")?;
        writeln!(out, "       {} {}", s.dim.style("->"), g.action)?;
    }
    if groups.len() > SUMMARY_FINDINGS {
        writeln!(out, "  ... and {} more", groups.len() - SUMMARY_FINDINGS)?;
    }
    let r = &d.requests;
    match d.requests_matched {
        Some(true) => {
            writeln!(
                out,
                "{}: {} of {} recorded requests, in order",
                s.success.style("requests matched"),
                r.observed.unwrap_or(0),
                r.expected
            )?;
            if let Some(note) = &r.note {
                writeln!(out, "  {note}")?;
            }
        }
        Some(false) => {
            writeln!(
                out,
                "{}: {} recorded in the browser, {} tried by the environment",
                s.error.style("requests differ"),
                r.expected,
                r.observed.unwrap_or(0)
            )?;
            for f in r.differences.iter().take(SUMMARY_FINDINGS) {
                let seen_by = f
                    .source
                    .as_ref()
                    .map(|source| format!(" ({source})"))
                    .unwrap_or_default();
                writeln!(out, "  {}{seen_by}: {}", s.error.style(&f.code), f.message)?;
            }
        }
        None if r.expected > 0 || r.undescribed.is_some() => writeln!(
            out,
            "requests not compared: {}",
            r.note.as_deref().unwrap_or("no request-level view")
        )?,
        None => {}
    }
    writeln!(out, "  diff: {md}")
}
