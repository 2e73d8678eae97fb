//! `tracer show` and `tracer evidence`: print a recorded session or its evidence chain as JSON on
//! stdout, for scripts and agents.

use std::io::Write;

use anyhow::Result;
use serde_json::Value;

use crate::cli::SessionArgs;
use crate::exit;
use crate::output::store::Store;

pub fn show(args: SessionArgs) -> Result<u8> {
    let store = Store::new(&args.store.out);
    let id = store.resolve(&args.id)?;
    let session = store.load(&id)?;
    print_json(&serde_json::to_value(&session)?)
}

pub fn evidence(args: SessionArgs) -> Result<u8> {
    let store = Store::new(&args.store.out);
    let id = store.resolve(&args.id)?;
    let evidence: Value = crate::files::read_json(&store.dir(&id).join("evidence.json"))?;
    print_json(&evidence)
}

/// Pretty JSON on stdout; a closed stdout is not an error.
pub fn print_json(value: &Value) -> Result<u8> {
    let mut out = std::io::stdout().lock();
    let _ = serde_json::to_writer_pretty(&mut out, value);
    let _ = writeln!(out);
    Ok(exit::SUCCESS)
}
