//! The case folder the conformance loop works in: as the user names it, and where its traces are
//! found when none is named.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::conformance::raw_trace;
use crate::error::TracerError;

/// The case folder, which must exist.
pub fn canonical_dir(dir: &Path) -> Result<PathBuf> {
    dir.canonicalize().map_err(|e| {
        TracerError::usage(format!(
            "case folder {} cannot be used ({e}): check --case-dir",
            dir.display()
        ))
        .into()
    })
}

/// Where discovery looks, relative to the case folder.
pub const DISCOVERY_DIRS: [&str; 2] = ["ruyi-trace/logs", "trace"];

/// The `*.ndjson` files under the discovery folders, when they are one capture.
pub fn discover_traces(case_dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for dir in DISCOVERY_DIRS {
        let root = case_dir.join(dir);
        if !root.is_dir() {
            continue;
        }
        for entry in walkdir::WalkDir::new(&root)
            .sort_by_file_name()
            .follow_links(true)
        {
            let entry = entry.with_context(|| format!("listing {}", root.display()))?;
            if entry.file_type().is_file()
                && entry.path().extension().is_some_and(|e| e == "ndjson")
            {
                found.push(entry.into_path());
            }
        }
    }
    if found.is_empty() {
        return Err(TracerError::usage(format!(
            "no trace found: no *.ndjson under {0}/ruyi-trace/logs/ or {0}/trace/; pass --trace FILE",
            case_dir.display()
        ))
        .into());
    }
    let mut groups: Vec<(Option<String>, Vec<PathBuf>)> = Vec::new();
    for path in found {
        let header = raw_trace::read_header(&path, raw_trace::display_path(&path, case_dir))?;
        match groups.iter_mut().find(|(id, _)| *id == header.baseline_id) {
            Some((_, files)) => files.push(path),
            None => groups.push((header.baseline_id, vec![path])),
        }
    }
    if groups.len() > 1 {
        let mut list = String::new();
        for (id, files) in &groups {
            let names: Vec<String> = files
                .iter()
                .map(|f| raw_trace::display_path(f, case_dir))
                .collect();
            list.push_str(&format!(
                "\n  baselineId {}: {}",
                id.as_deref().unwrap_or("(none)"),
                names.join(", ")
            ));
        }
        return Err(TracerError::usage(format!(
            "several captures found, none is chosen:{list}\nselect one with --trace (give it several times for shards)"
        ))
        .into());
    }
    // One baseline: the files are taken as shards of one capture; the reader refuses them, naming
    // the colliding seq, if they have no single global order.
    Ok(groups.pop().map(|(_, files)| files).unwrap_or_default())
}
