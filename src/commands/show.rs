//! `tracer show` and `tracer evidence`: print a recorded session or its evidence chain as JSON on
//! stdout, for scripts and agents.

use anyhow::Result;
use serde_json::Value;

use crate::cli::SessionArgs;
use crate::output;
use crate::output::store::Store;

pub fn show(args: SessionArgs) -> Result<u8> {
    let store = Store::new(&args.store.out);
    let id = store.resolve(&args.id)?;
    let session = store.load(&id)?;
    output::print_json(&serde_json::to_value(&session)?)
}

pub fn evidence(args: SessionArgs) -> Result<u8> {
    let store = Store::new(&args.store.out);
    let id = store.resolve(&args.id)?;
    let evidence: Value = crate::files::read_json(&store.dir(&id).join("evidence.json"))?;
    output::print_json(&evidence)
}
