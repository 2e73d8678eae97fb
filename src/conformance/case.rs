//! The case folder the conformance loop works in, as the user names it.

use std::path::{Path, PathBuf};

use anyhow::Result;

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
