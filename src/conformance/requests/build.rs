//! Requests as a recording tells them: from a trace's request-making calls (`RequestBuilder`), and
//! from the runtime's network layer (`from_runtime`).

use super::*;

/// The probe's additive `request` field of a send/fetch/sendBeacon line:
/// `{"method","url","headerNames","body":{"shape","value","length"}}`.
pub(super) fn apply_request_field(request: &mut Request, field: &Value) {
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
pub(super) struct Opened {
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
pub(super) fn is_local_url(url: &str) -> bool {
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
pub(super) fn shape_of_content_type(content_type: &str) -> Option<String> {
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
pub(super) const BROWSER_CONTROLLED: &[&str] = &[
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
pub(super) const DEFAULTS: &[&str] = &["accept", "accept-language", "content-type", "user-agent"];
