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

/// The probe's additive `request` field of a send/fetch/sendBeacon line:
/// `{"method","url","headerNames","body":{"shape","value","length"}}`.
fn apply_request_field(request: &mut Request, field: &Value) {
    if let Some(method) = field.get("method").and_then(Value::as_str) {
        request.method = Some(method.to_owned());
    }
    if let Some(url) = field.get("url").and_then(Value::as_str) {
        request.url = Some(url.to_owned());
    }
    if let Some(names) = field.get("headerNames").and_then(Value::as_array) {
        request.header_names = Some(
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        );
    }
    if let Some(body) = field.get("body").and_then(Value::as_object) {
        let shape = body.get("shape").and_then(Value::as_str);
        let mut b = match body.get("value") {
            Some(value @ (Value::String(_) | Value::Object(_))) => body_of_value(Some(value)),
            _ => Body::default(),
        };
        if let Some(shape) = shape {
            b.shape = Some(shape.to_owned());
        }
        if b.length.is_none() {
            b.length = body.get("length").and_then(Value::as_u64);
        }
        request.body = Some(b);
    }
}

/// What an XHR object has been told since its last `open`.
#[derive(Default)]
struct Opened {
    method: Option<String>,
    url: Option<String>,
    headers: Vec<String>,
}

/// Collects the requests of a trace from its events, in `seq` order. Memory grows with the
/// requests and the XHR objects, as the timelines do.
#[derive(Default)]
pub struct RequestBuilder {
    opened: HashMap<String, Opened>,
    requests: Vec<Request>,
}

impl RequestBuilder {
    /// Whether [`RequestBuilder::add`] does anything with `event` (a call of `open`,
    /// `setRequestHeader`, `send`, `fetch` or `sendBeacon`).
    pub fn wants(event: &AccessLine) -> bool {
        event.access_type == "call"
            && matches!(
                event.api.rsplit('.').next().unwrap_or(""),
                "open" | "setRequestHeader" | "send" | "fetch" | "sendBeacon"
            )
    }

    pub fn add(&mut self, event: &AccessLine) {
        if !RequestBuilder::wants(event) {
            return;
        }
        let member = event.api.rsplit('.').next().unwrap_or("");
        let threw = event.field("exception").is_some_and(|v| !v.is_null());
        let args = event.field("args");
        let args = args.as_ref().and_then(Value::as_array);
        let arg = |i: usize| args.and_then(|a| a.get(i));
        let arg_str = |i: usize| arg(i).and_then(Value::as_str).map(str::to_owned);
        let is_xhr = event.state.as_ref().is_some_and(|s| s.family == "xhr")
            || event.receiver == "XMLHttpRequest";
        let object = event.state.as_ref().map(|s| s.object.clone());
        let mut request = if is_xhr {
            let key = object.clone().unwrap_or_default();
            match member {
                "open" if !threw => {
                    self.opened.insert(
                        key,
                        Opened {
                            method: arg_str(0),
                            url: arg_str(1),
                            headers: Vec::new(),
                        },
                    );
                    return;
                }
                "setRequestHeader" if !threw => {
                    if let (Some(o), Some(name)) = (self.opened.get_mut(&key), arg_str(0)) {
                        o.headers.push(name);
                    }
                    return;
                }
                "send" if !threw => {
                    let opened = self.opened.get(&key);
                    Request {
                        via: "XMLHttpRequest".into(),
                        method: opened.and_then(|o| o.method.clone()),
                        url: opened.and_then(|o| o.url.clone()),
                        header_names: opened.map(|o| o.headers.clone()),
                        body: Some(body_of_value(arg(0))),
                        ..Request::default()
                    }
                }
                _ => return,
            }
        } else {
            match member {
                "fetch" if !threw => Request {
                    via: "fetch".into(),
                    // A string input is the URL; a Request object's is not in the line.
                    url: arg_str(0),
                    // No init: a GET without headers or body.
                    method: arg(1).is_none().then(|| "GET".to_owned()),
                    header_names: arg(1).is_none().then(Vec::new),
                    body: arg(1).is_none().then(|| shape_only("none")),
                    ..Request::default()
                },
                "sendBeacon" if !threw => Request {
                    via: "sendBeacon".into(),
                    method: Some("POST".into()),
                    url: arg_str(0),
                    header_names: Some(Vec::new()),
                    body: Some(body_of_value(arg(1))),
                    ..Request::default()
                },
                _ => return,
            }
        };
        if let Some(field) = event.field("request") {
            apply_request_field(&mut request, &field);
        }
        // A `data:`, `blob:`, `about:` or `javascript:` URL is answered without a network.
        if request.url.as_deref().is_some_and(is_local_url) {
            return;
        }
        request.seq = Some(event.seq);
        request.object = object;
        self.requests.push(request);
    }

    pub fn finish(self) -> Vec<Request> {
        self.requests
    }
}

/// Whether a URL is one a browser answers itself, without a request on the network.
fn is_local_url(url: &str) -> bool {
    let scheme = url.split(':').next().unwrap_or("").trim();
    url.contains(':')
        && ["data", "blob", "about", "javascript"]
            .iter()
            .any(|s| scheme.eq_ignore_ascii_case(s))
}

/// The requests the audit's request observer reported (`{"requests": [...], "dropped": n}`, from
/// `src/probe/requests.js` through `probe::node`), with body digests computed here.
pub fn from_runtime(report: &Value) -> Vec<Request> {
    let Some(list) = report.get("requests").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .map(|r| {
            let text = |name: &str| r.get(name).and_then(Value::as_str).map(str::to_owned);
            let body = r.get("body").map(|b| {
                let mut body = match b.get("text").and_then(Value::as_str) {
                    Some(text) => text_body("text", text),
                    None => Body::default(),
                };
                if let Some(shape) = b.get("shape").and_then(Value::as_str) {
                    body.shape = Some(shape.to_owned());
                }
                if body.length.is_none() {
                    body.length = b.get("length").and_then(Value::as_u64);
                }
                body.content_type = b
                    .get("contentType")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if body.shape.is_none() {
                    body.shape = body.content_type.as_deref().and_then(shape_of_content_type);
                }
                if body.shape.as_deref() == Some("none") && body.length.is_none() {
                    body.length = Some(0);
                }
                body
            });
            Request {
                via: text("via").unwrap_or_default(),
                method: text("method"),
                url: text("url"),
                header_names: r.get("headerNames").and_then(Value::as_array).map(|names| {
                    names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                }),
                body,
                ..Request::default()
            }
        })
        .collect()
}

/// The body shape a `Content-Type` implies, where it implies one.
fn shape_of_content_type(content_type: &str) -> Option<String> {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let shape = match essence.as_str() {
        "application/x-www-form-urlencoded" => "urlencoded",
        "multipart/form-data" => "formdata",
        _ => return None,
    };
    Some(shape.to_owned())
}

/// Header names a browser sets or refuses by itself (the Fetch standard's forbidden request
/// headers, plus the defaults it adds). The script cannot have sent these through the browser,
/// so they are not compared unless the script set them in the trace.
const BROWSER_CONTROLLED: &[&str] = &[
    "accept-charset",
    "accept-encoding",
    "access-control-request-headers",
    "access-control-request-method",
    "connection",
    "content-length",
    "cookie",
    "cookie2",
    "date",
    "dnt",
    "expect",
    "host",
    "keep-alive",
    "origin",
    "referer",
    "set-cookie",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "via",
];
/// Defaults a browser (and Node) adds when the script did not set them.
const DEFAULTS: &[&str] = &["accept", "accept-language", "content-type", "user-agent"];

fn forbidden(name: &str) -> bool {
    BROWSER_CONTROLLED.contains(&name) || name.starts_with("proxy-") || name.starts_with("sec-")
}

/// The script-set header names of both sides, lower-cased, in order, as they are compared.
pub fn comparable_headers(expected: &[String], observed: &[String]) -> (Vec<String>, Vec<String>) {
    let expected: Vec<String> = expected
        .iter()
        .map(|n| n.to_ascii_lowercase())
        .filter(|n| !forbidden(n))
        .collect();
    let observed = observed
        .iter()
        .map(|n| n.to_ascii_lowercase())
        .filter(|n| !forbidden(n) && (!DEFAULTS.contains(&n.as_str()) || expected.contains(n)))
        .collect();
    (expected, observed)
}

/// One difference between the trace's requests and the runtime's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestDifference {
    /// `REQUEST_MISSING`, `REQUEST_EXTRA` or `REQUEST_MISMATCH`.
    pub code: String,
    /// 1-based position in the order of requests.
    pub request: usize,
    /// `method`, `url`, `headerNames`, `body.shape`, `body.length`, `body.sha256`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Value>,
    pub message: String,
    pub action: String,
    /// Which view of the environment it comes from (additive): `script`, the requests the script
    /// made (its `open`/`setRequestHeader`/`send`, `fetch` and `sendBeacon` calls, recorded by the
    /// probe), or `network`, what reached Node's network layer. Absent in an audit with one view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The request section of the diff.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestsReport {
    /// Requests the trace recorded.
    pub expected: usize,
    /// Requests the runtime tried to send; absent when the audit has no request-level view.
    pub observed: Option<usize>,
    pub differences: Vec<RequestDifference>,
    /// Fields one side did not record, per request (`request 1: body.sha256`): not compared.
    pub unverified: Vec<String>,
    /// Why requests could not be compared at all, when they could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Requests that reached Node's network layer (where the guard refused them), when the
    /// script's own requests are what `observed` counts (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<usize>,
}

impl RequestsReport {
    /// `requestsMatched`: `None` when there was nothing to compare the trace's requests with.
    pub fn matched(&self) -> Option<bool> {
        self.observed.map(|_| self.differences.is_empty())
    }
}

/// Compares the trace's requests with the runtime's, request by request in order.
pub fn compare(expected: &[Request], observed: Option<&[Request]>) -> RequestsReport {
    let mut report = RequestsReport {
        expected: expected.len(),
        observed: observed.map(<[Request]>::len),
        ..RequestsReport::default()
    };
    let Some(observed) = observed else {
        report.note = Some(
            "the audit has no request-level view (a Python entry, or an audit written by an older tracer): requests were not compared".into(),
        );
        return report;
    };
    for i in 0..expected.len().max(observed.len()) {
        let n = i + 1;
        match (expected.get(i), observed.get(i)) {
            (Some(e), Some(o)) => compare_one(n, e, o, &mut report),
            (Some(e), None) => report.differences.push(RequestDifference {
                code: "REQUEST_MISSING".into(),
                request: n,
                field: None,
                expected: Some(summary(e)),
                observed: None,
                message: format!(
                    "request {n} ({}) was recorded in the browser but the environment never tried to send it",
                    e.via
                ),
                action: "make the environment issue this request at the same point (the guard will still refuse it)".into(),
                source: None,
            }),
            (None, Some(o)) => report.differences.push(RequestDifference {
                code: "REQUEST_EXTRA".into(),
                request: n,
                field: None,
                expected: None,
                observed: Some(summary(o)),
                message: format!(
                    "the environment tried to send request {n} ({}), which the browser never sent",
                    o.via
                ),
                action: "remove the request from the environment, or record the trace again if the page changed".into(),
                source: None,
            }),
            (None, None) => {}
        }
    }
    report
}

/// Compares the trace's requests with both views of the environment: the requests the script made
/// (`script`, from the tool's recording; `None` without one) and what reached the network layer
/// (`network`). The script's view decides, and the network's differences are reported beside it,
/// except when nothing reached the network at all: an environment that honours the no-network
/// mode records its requests instead of sending them, and that is no difference. Where the script
/// made none and the network saw some, the network's view alone decides, as without a recording.
pub fn compare_views(
    expected: &[Request],
    script: Option<&[Request]>,
    network: Option<&[Request]>,
) -> RequestsReport {
    let script = match script {
        // No recording, or a script that made none where requests reached the network (made below
        // the script, by an entry that is itself the program): the network's view alone.
        None => return compare(expected, network),
        Some(script) if script.is_empty() && network.is_some_and(|n| !n.is_empty()) => {
            return compare(expected, network);
        }
        Some(script) => script,
    };
    let tag = |mut report: RequestsReport, source: &str| {
        for d in &mut report.differences {
            d.source = Some(source.to_owned());
        }
        report
    };
    let mut report = tag(compare(expected, Some(script)), "script");
    report.network = network.map(<[Request]>::len);
    match network {
        Some(sent) if !sent.is_empty() => {
            let seen = tag(compare(expected, Some(sent)), "network");
            report.differences.extend(seen.differences);
        }
        Some(_) if !script.is_empty() => {
            report.note = Some(format!(
                "the script made {} request(s) and none reached Node's network layer: the environment recorded them instead of sending them (no-network mode)",
                script.len()
            ));
        }
        _ => {}
    }
    report
}

/// A request in one line of JSON, for the diff.
fn summary(r: &Request) -> Value {
    json!({
        "via": r.via,
        "method": r.method,
        "url": r.url,
        "headerNames": r.header_names,
    })
}

fn compare_one(n: usize, e: &Request, o: &Request, report: &mut RequestsReport) {
    let mut differ = |field: &str, expected: Value, observed: Value, action: &str| {
        report.differences.push(RequestDifference {
            code: "REQUEST_MISMATCH".into(),
            request: n,
            field: Some(field.to_owned()),
            message: format!(
                "request {n}: {field} differs: the browser sent {}, the environment {}",
                hash::canonical_json(&expected),
                hash::canonical_json(&observed)
            ),
            expected: Some(expected),
            observed: Some(observed),
            action: action.to_owned(),
            source: None,
        });
    };
    let mut unverified = Vec::new();
    match (&e.method, &o.method) {
        (Some(em), Some(om)) if !em.eq_ignore_ascii_case(om) => differ(
            "method",
            json!(em),
            json!(om),
            "use the method the script passed to open()/fetch()",
        ),
        (Some(_), Some(_)) => {}
        _ => unverified.push("method"),
    }
    match (&e.url, &o.url) {
        (Some(eu), Some(ou)) => {
            let (en, on) = (normalize_url(eu, ou), normalize_url(ou, ou));
            if en != on {
                differ(
                    "url",
                    json!(eu),
                    json!(ou),
                    "resolve the URL against the same document URL as the browser (location/base)",
                );
            }
        }
        _ => unverified.push("url"),
    }
    match (&e.header_names, &o.header_names) {
        (Some(eh), Some(oh)) => {
            let (ec, oc) = comparable_headers(eh, oh);
            if ec != oc {
                differ(
                    "headerNames",
                    json!(ec),
                    json!(oc),
                    "set the same request headers, in the same order, as the script did in the browser",
                );
            }
        }
        _ => unverified.push("headerNames"),
    }
    let (eb, ob) = (
        e.body.clone().unwrap_or_default(),
        o.body.clone().unwrap_or_default(),
    );
    match (&eb.shape, &ob.shape) {
        (Some(es), Some(os)) if es != os => differ(
            "body.shape",
            json!(es),
            json!(os),
            "send the body as the same kind of value (string, URLSearchParams, FormData, bytes)",
        ),
        (Some(_), Some(_)) => {}
        _ => unverified.push("body.shape"),
    }
    match (eb.length, ob.length) {
        (Some(el), Some(ol)) if el != ol => differ(
            "body.length",
            json!(el),
            json!(ol),
            "send the same body bytes as the browser did",
        ),
        (Some(_), Some(_)) => {}
        _ => unverified.push("body.length"),
    }
    match (&eb.sha256, &ob.sha256) {
        (Some(ed), Some(od)) if ed != od => differ(
            "body.sha256",
            json!(ed),
            json!(od),
            "send the same body bytes as the browser did",
        ),
        (Some(_), Some(_)) => {}
        _ => unverified.push("body.sha256"),
    }
    if !unverified.is_empty() {
        report
            .unverified
            .push(format!("request {n}: {}", unverified.join(", ")));
    }
}

/// A URL as compared: resolved against `base` (the runtime's URL, so that a relative URL in the
/// trace compares by its path), and normalized (default ports, percent-encoding, empty path).
fn normalize_url(url: &str, base: &str) -> String {
    let joined = match url::Url::parse(base) {
        Ok(base) => base.join(url),
        Err(_) => url::Url::parse(url),
    };
    joined.map_or_else(|_| url.to_owned(), |u| u.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, url: &str, headers: &[&str], body: Body) -> Request {
        Request {
            via: "test".into(),
            method: Some(method.into()),
            url: Some(url.into()),
            header_names: Some(headers.iter().map(|h| (*h).to_owned()).collect()),
            body: Some(body),
            ..Request::default()
        }
    }

    #[test]
    fn equal_requests_match_and_runtime_defaults_are_ignored() {
        let e = request(
            "post",
            "/api/x?y=1",
            &["X-Token", "Content-Type"],
            text_body("text", "{\"a\":1}"),
        );
        let mut body = text_body("text", "{\"a\":1}");
        body.content_type = Some("application/json".into());
        let o = request(
            "POST",
            "http://127.0.0.1:8080/api/x?y=1",
            &[
                "X-Token",
                "Content-Type",
                "Host",
                "Connection",
                "accept",
                "user-agent",
            ],
            body,
        );
        let report = compare(&[e], Some(&[o]));
        assert_eq!(report.matched(), Some(true), "{report:?}");
    }

    #[test]
    fn each_field_that_differs_is_named() {
        let e = request(
            "GET",
            "http://a.test/x",
            &["X-A", "X-B"],
            shape_only("none"),
        );
        let o = request(
            "POST",
            "http://a.test/y",
            &["X-B", "X-A"],
            text_body("text", "hi"),
        );
        let report = compare(&[e], Some(&[o]));
        let fields: Vec<_> = report
            .differences
            .iter()
            .filter_map(|d| d.field.clone())
            .collect();
        assert_eq!(
            fields,
            ["method", "url", "headerNames", "body.shape", "body.length"]
        );
        assert_eq!(report.matched(), Some(false));
    }

    #[test]
    fn missing_and_extra_requests_are_reported_in_order() {
        let a = request("GET", "http://a.test/", &[], shape_only("none"));
        let report = compare(&[a.clone(), a.clone()], Some(std::slice::from_ref(&a)));
        assert_eq!(report.differences[0].code, "REQUEST_MISSING");
        assert_eq!(report.differences[0].request, 2);
        let report = compare(&[], Some(&[a]));
        assert_eq!(report.differences[0].code, "REQUEST_EXTRA");
    }

    #[test]
    fn the_script_s_requests_decide_and_an_environment_that_sends_nothing_is_no_difference() {
        let sent = request("POST", "https://a.test/x", &["X-A"], shape_only("none"));
        let expected = [sent.clone()];
        // The environment recorded the request instead of sending it.
        let report = compare_views(&expected, Some(std::slice::from_ref(&sent)), Some(&[]));
        assert_eq!(report.matched(), Some(true));
        assert!(
            report
                .note
                .as_deref()
                .unwrap()
                .contains("recorded them instead")
        );
        // The script made another request: a difference seen by the script's view.
        let other = request("GET", "https://a.test/x", &["X-A"], shape_only("none"));
        let report = compare_views(&expected, Some(std::slice::from_ref(&other)), Some(&[]));
        assert_eq!(report.matched(), Some(false));
        assert_eq!(report.differences[0].source.as_deref(), Some("script"));
        // The script's request is right, and the network layer saw another: said, with its view.
        let report = compare_views(&expected, Some(std::slice::from_ref(&sent)), Some(&[other]));
        assert_eq!(report.matched(), Some(false));
        assert_eq!(report.differences[0].source.as_deref(), Some("network"));
        // A program whose requests are all below the script: the network's view.
        let report = compare_views(&expected, Some(&[]), Some(&[sent]));
        assert_eq!(report.matched(), Some(true));
    }

    #[test]
    fn no_request_view_means_no_verdict() {
        let report = compare(&[], None);
        assert_eq!(report.matched(), None);
        assert!(report.note.is_some());
    }

    #[test]
    fn unknown_fields_are_unverified_not_compared() {
        let e = Request {
            via: "fetch".into(),
            url: Some("http://a.test/".into()),
            ..Request::default()
        };
        let o = request("PUT", "http://a.test/", &["X-A"], shape_only("text"));
        let report = compare(&[e], Some(&[o]));
        assert_eq!(report.matched(), Some(true));
        assert_eq!(
            report.unverified,
            ["request 1: method, headerNames, body.shape, body.length, body.sha256"]
        );
    }

    #[test]
    fn local_urls_are_not_requests() {
        assert!(is_local_url("data:text/plain,hello"));
        assert!(is_local_url("Blob:https://a.test/1"));
        assert!(!is_local_url("/api/data:x"));
        assert!(!is_local_url("https://a.test/data:1"));
        assert!(!is_local_url("relative"));
    }

    #[test]
    fn long_bodies_compare_by_the_writers_digest() {
        let long = "x".repeat(600);
        let e = body_of_value(Some(
            &json!({"$string": hash::of_bytes(long.as_bytes()), "length": 600}),
        ));
        assert_eq!(e.sha256, text_body("text", &long).sha256);
        assert_eq!(
            body_of_value(Some(&json!({"$object": "FormData", "id": "o1"}))).shape,
            Some("formdata".into())
        );
    }
}
