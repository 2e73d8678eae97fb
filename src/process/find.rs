//! Finding executables: Node (`--node`, `TRACER_NODE`, else `PATH`), Chromium, any command on
//! `PATH`, with an error that says what to install when one is missing.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::TracerError;
use crate::process::spawn;

/// How to look for an executable and what to say when it is missing.
pub struct Wanted<'a> {
    /// What it is, in messages (`Node`, `Chromium`).
    pub what: &'a str,
    /// Where an explicit request comes from (`--node or TRACER_NODE`).
    pub source: &'a str,
    /// The names tried on `PATH` when nothing was requested, in order.
    pub defaults: &'a [&'a str],
    /// What the user can do about it (`install Node.js (20 or newer)`).
    pub hint: &'a str,
}
/// An executable: `requested` (a path, or a name looked up on `PATH`), else the first of
/// `wanted.defaults` on `PATH`. A missing one is "could not trace" (exit 4) with what to do.
pub fn find_executable(
    requested: Option<&Path>,
    wanted: &Wanted<'_>,
) -> Result<PathBuf, TracerError> {
    let Wanted {
        what,
        source,
        defaults,
        hint,
    } = wanted;
    if let Some(path) = requested {
        if path.components().count() > 1 {
            return if path.is_file() {
                Ok(path.to_owned())
            } else {
                Err(TracerError::cannot_trace(format!(
                    "{what} not found at {} (from {source}): point it at a {what} executable, or {hint}",
                    path.display()
                )))
            };
        }
        return search_path(path.as_os_str()).ok_or_else(|| {
            TracerError::cannot_trace(format!(
                "`{}` (from {source}) is not on PATH: give a full path, or {hint}",
                path.display()
            ))
        });
    }
    defaults
        .iter()
        .find_map(|name| search_path(OsStr::new(name)))
        .ok_or_else(|| {
            TracerError::cannot_trace(format!(
                "{what} not found: no {} on PATH. {}{}, or pass {source}",
                defaults.join(", "),
                hint[..1].to_uppercase(),
                &hint[1..]
            ))
        })
}
/// The Node executable: `--node`/`TRACER_NODE` when given, else `node` on `PATH`.
pub fn find_node(requested: Option<&Path>) -> Result<PathBuf, TracerError> {
    find_executable(
        requested,
        &Wanted {
            what: "Node",
            source: "--node or TRACER_NODE",
            defaults: &["node"],
            hint: "install Node.js (20 or newer)",
        },
    )
}
/// The first executable file called `name` in a folder of `PATH`.
pub fn search_path(name: &OsStr) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| spawn::executable(candidate))
}
