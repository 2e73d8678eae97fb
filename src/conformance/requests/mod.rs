//! Request semantics: the requests a raw trace recorded (XHR `open`/`setRequestHeader`/`send`,
//! `fetch`, `sendBeacon`) and the requests the audited runtime tried to send, in one shape, and
//! their comparison request by request, in order, which gives `requestsMatched`.
//!
//! Both sides are descriptions, never requests: nothing here (or anywhere in the tool) sends one.
//! A field that a side did not record stays absent and is listed as unverified, never compared
//! against a default.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::conformance::hash;
use crate::conformance::raw_trace::AccessLine;

mod build;
mod compare;
#[cfg(test)]
mod tests;

use build::*;
pub use build::{RequestBuilder, from_runtime};
pub use compare::{RequestDifference, RequestsReport, comparable_headers, compare, compare_views};

/// One request, as the trace recorded it or as the runtime tried to send it. (Fields in the byte
/// order of their JSON names: contracts are serialized with sorted keys straight from the types.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Body>,
    /// In the order they were set (trace: by the script; audit: as the runtime would send them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_names: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Trace only: the object it belongs to (`xhr#1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// Trace only: the `seq` of the call that sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// What made it: `XMLHttpRequest`, `fetch`, `sendBeacon` in a trace; `undici` (fetch) or
    /// `http` (the `http`/`https` modules) in an audit.
    pub via: String,
}

impl Request {
    /// One line for people: `XMLHttpRequest POST http://… [X-Token, Content-Type] body text 7 B`.
    pub fn describe(&self) -> String {
        let unknown = || "?".to_owned();
        let headers = self
            .header_names
            .as_ref()
            .map_or_else(unknown, |h| format!("[{}]", h.join(", ")));
        let body = self.body.as_ref().map_or_else(unknown, |b| {
            let mut parts = vec![b.shape.clone().unwrap_or_else(unknown)];
            if let Some(length) = b.length {
                parts.push(format!("{length} B"));
            }
            parts.join(" ")
        });
        format!(
            "{} {} {} {headers} body {body}",
            self.via,
            self.method.clone().unwrap_or_else(unknown),
            self.url.clone().unwrap_or_else(unknown),
        )
    }
}

/// What is known of a request's body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Body {
    /// Audit only: the `Content-Type` the runtime would send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Length in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// `sha256:…` of the bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// `none`, `text`, `urlencoded`, `formdata`, `blob`, `bytes`, `stream`, `document`, `other`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<String>,
}

/// The body of a request as a script handed it over (a `tracer-trace/v1` `Val`).
fn body_of_value(value: Option<&Value>) -> Body {
    match value {
        None | Some(Value::Null) => shape_only("none"),
        Some(Value::String(text)) => text_body("text", text),
        Some(Value::Object(map)) if map.contains_key("$undefined") => shape_only("none"),
        Some(Value::Object(map)) if map.contains_key("$string") => Body {
            shape: Some("text".into()),
            sha256: map
                .get("$string")
                .and_then(Value::as_str)
                .map(str::to_owned),
            ..Body::default()
        },
        Some(Value::Object(map)) => {
            let class = map.get("$object").and_then(Value::as_str).unwrap_or("");
            shape_only(shape_of_class(class))
        }
        Some(_) => shape_only("other"),
    }
}

fn shape_only(shape: &str) -> Body {
    Body {
        shape: Some(shape.to_owned()),
        // No body is zero bytes.
        length: (shape == "none").then_some(0),
        ..Body::default()
    }
}

fn text_body(shape: &str, text: &str) -> Body {
    Body {
        shape: Some(shape.to_owned()),
        length: Some(text.len() as u64),
        sha256: Some(hash::of_bytes(text.as_bytes())),
        content_type: None,
    }
}

/// The body shape of an object of this class.
fn shape_of_class(class: &str) -> &'static str {
    match class {
        "URLSearchParams" => "urlencoded",
        "FormData" => "formdata",
        "Blob" | "File" => "blob",
        "ReadableStream" => "stream",
        "Document" | "XMLDocument" | "HTMLDocument" => "document",
        "ArrayBuffer" | "SharedArrayBuffer" | "DataView" | "Int8Array" | "Uint8Array"
        | "Uint8ClampedArray" | "Int16Array" | "Uint16Array" | "Int32Array" | "Uint32Array"
        | "Float32Array" | "Float64Array" | "BigInt64Array" | "BigUint64Array" => "bytes",
        _ => "other",
    }
}
