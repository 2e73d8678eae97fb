//! `tracer schema FORMAT`: the JSON Schema of a file format, generated from the Rust types that
//! read and write it (schemars), never written by hand.

use anyhow::Result;

use crate::cli::{SchemaArgs, SchemaFormat};
use crate::conformance::audit_format::Audit;
use crate::conformance::check::Diff;
use crate::conformance::contract::Contract;
use crate::output::print_json;
use crate::trace::event::Event;
use crate::trace::evidence::Evidence;
use crate::trace::session::Session;

pub fn schema(args: SchemaArgs) -> Result<u8> {
    print_json(&generate(args.format)?)
}

/// The schema of `format` as a JSON value.
pub fn generate(format: SchemaFormat) -> Result<serde_json::Value> {
    let schema = match format {
        SchemaFormat::Session => schemars::schema_for!(Session),
        SchemaFormat::Event => schemars::schema_for!(Event),
        // `evidence.json` holds `null` when the run did not fail.
        SchemaFormat::Evidence => schemars::schema_for!(Option<Evidence>),
        SchemaFormat::Contract => schemars::schema_for!(Contract),
        SchemaFormat::Audit => schemars::schema_for!(Audit),
        SchemaFormat::Diff => schemars::schema_for!(Diff),
    };
    Ok(serde_json::to_value(schema)?)
}
