//! The requests the browser sent against the ones the environment tried, request by request, in
//! order.

use super::*;

pub(super) fn forbidden(name: &str) -> bool {
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
    /// Attempts the tool's network guard counted that no request of the audit describes (made by
    /// another process of the environment's, or below Node's network modules), when none is
    /// described (additive): then the requests are not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undescribed: Option<u64>,
}

impl RequestsReport {
    /// `requestsMatched`: `None` when there was nothing to compare the trace's requests with, or
    /// when the environment tried to reach the network in ways no request of its describes.
    pub fn matched(&self) -> Option<bool> {
        if self.undescribed.is_some() {
            return None;
        }
        self.observed.map(|_| self.differences.is_empty())
    }

    /// Takes `attempts` the network guard counted (`seen`: how they were seen) where the audit
    /// describes no request at all: the comparison of requests cannot stand.
    pub fn attempts_undescribed(&mut self, attempts: u64, seen: &str) {
        let described = self.observed.unwrap_or(0).max(self.network.unwrap_or(0));
        if attempts == 0 || described > 0 || self.observed.is_none() {
            return;
        }
        self.undescribed = Some(attempts);
        self.note = Some(format!(
            "the environment tried to reach the network {attempts} time(s) ({seen}) and no request \
             of its is described (a process of its own, such as a child `node` loading a script, \
             or a connection made below Node's network modules): requests were not compared"
        ));
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
pub(super) fn summary(r: &Request) -> Value {
    json!({
        "via": r.via,
        "method": r.method,
        "url": r.url,
        "headerNames": r.header_names,
    })
}

pub(super) fn compare_one(n: usize, e: &Request, o: &Request, report: &mut RequestsReport) {
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
pub(super) fn normalize_url(url: &str, base: &str) -> String {
    let joined = match url::Url::parse(base) {
        Ok(base) => base.join(url),
        Err(_) => url::Url::parse(url),
    };
    joined.map_or_else(|_| url.to_owned(), |u| u.to_string())
}
