//! `tracer schema FORMAT`: the JSON Schema of a file format, generated from the Rust types that
//! read and write it (schemars), never written by hand. `contract`, `audit` and `diff` are named
//! so scripts can ask for them, but their types are not built yet: a usage error (exit 2).

use anyhow::Result;

use crate::cli::{SchemaArgs, SchemaFormat};
use crate::commands::show::print_json;
use crate::error::TracerError;
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
        SchemaFormat::Contract | SchemaFormat::Audit | SchemaFormat::Diff => {
            let name = clap::ValueEnum::to_possible_value(&format)
                .map(|v| v.get_name().to_owned())
                .unwrap_or_default();
            return Err(TracerError::usage(format!(
                "the {name} schema is not available yet: this build has no {name} files. \
                 Available: session, event, evidence"
            ))
            .into());
        }
    };
    Ok(serde_json::to_value(schema)?)
}
