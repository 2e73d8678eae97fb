//! `tracer export [ID] --format chrome-trace|ndjson|json [-o FILE]`: a recorded session in a format
//! other tools open. Written atomically with `-o`, else on stdout.
//!
//! `chrome-trace`: `output::chrome_trace`.
//!
//! `ndjson` is the kept events as they are in `session.json`, one per line; `json` the session.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;

use anyhow::Result;

use crate::cli::{ExportArgs, ExportFormat};
use crate::error::TracerError;
use crate::exit;
use crate::output::chrome_trace::chrome_trace;
use crate::output::store::{self, Store};

pub fn export(args: ExportArgs) -> Result<u8> {
    let store = Store::new(&args.store.out);
    let id = store.resolve(&args.id)?;
    let session = store.load(&id)?;
    let bytes = match args.format {
        ExportFormat::ChromeTrace => {
            let mut bytes = serde_json::to_vec(&chrome_trace(&session))?;
            bytes.push(b'\n');
            bytes
        }
        ExportFormat::Ndjson => {
            let mut bytes = Vec::new();
            for event in &session.events {
                serde_json::to_writer(&mut bytes, event)?;
                bytes.push(b'\n');
            }
            bytes
        }
        ExportFormat::Json => {
            let mut bytes = serde_json::to_vec_pretty(&session)?;
            bytes.push(b'\n');
            bytes
        }
    };
    match &args.output {
        Some(path) => {
            store::write_atomic(path, &bytes).map_err(|e| {
                TracerError::usage(format!("cannot write {}: {e} (check -o)", path.display()))
            })?;
            // The temporary file was private; an export is meant to be shared.
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644));
        }
        None => {
            let mut out = std::io::stdout().lock();
            // A closed stdout (`| head`) is not an error.
            let _ = out.write_all(&bytes).and_then(|()| out.flush());
        }
    }
    Ok(exit::SUCCESS)
}
