//! Requests built, read and compared.

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
