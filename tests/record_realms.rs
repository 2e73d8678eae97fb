//! `tracer record`'s realms beyond the page's own, each probed before its first script: an
//! out-of-process iframe, a shared and a service worker (pages served on 127.0.0.1 by `serve`),
//! and each document the page navigates to. Skipped, with the reason printed, without Chromium.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;

use serde_json::Value;

use crate::support::browser::{FIXTURES, check, chromium_or_skip, find, lines, record_with};

/// Serves the files of `dir` over HTTP on 127.0.0.1 (a secure context, which service workers
/// need) until the test process ends; returns the port. GET only, one request per connection.
fn serve(dir: &Path) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = dir.to_owned();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            std::thread::spawn(move || answer(&dir, stream));
        }
    });
    port
}

fn answer(dir: &Path, mut stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header.trim().is_empty() => break,
            Ok(_) => {}
        }
    }
    let path = request.split(' ').nth(1).unwrap_or("/");
    let path = path
        .split('?')
        .next()
        .unwrap_or_default()
        .trim_start_matches('/');
    let file = (!path.contains("..")).then(|| dir.join(path));
    let (status, kind, body) = match file.and_then(|f| std::fs::read(f).ok()) {
        Some(body) if path.ends_with(".html") => ("200 OK", "text/html; charset=utf-8", body),
        Some(body) if path.ends_with(".js") => ("200 OK", "text/javascript", body),
        Some(body) => ("200 OK", "application/octet-stream", body),
        None => ("404 Not Found", "text/plain", b"not found".to_vec()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

/// Serves `tests/fixtures/record/FIXTURE/` on 127.0.0.1, records its `page.html` over HTTP, and
/// returns the case folder, the port, tracer's stderr and the trace's access lines.
fn record_served(browser: &Path, fixture: &str) -> (tempfile::TempDir, u16, String, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let port = serve(&Path::new(FIXTURES).join(fixture));
    let browser = browser.to_string_lossy().into_owned();
    let url = format!("http://127.0.0.1:{port}/page.html");
    // Each of these pages ends the recording with its `tracer:done` mark; the settle period is
    // long so that a navigation that is slow to start a renderer (the whole suite running on two
    // cores) does not end it first.
    let recorded = record_with(
        dir.path(),
        &browser,
        &["--timeout", "60", "--settle", "30", &url],
    );
    check(&recorded, "tracer record");
    let stderr = String::from_utf8_lossy(&recorded.stderr).into_owned();
    let all = lines(&dir.path().join("case/ruyi-trace/logs/current.ndjson"));
    (dir, port, stderr, all[1..].to_vec())
}

#[test]
fn an_out_of_process_iframe_is_probed_before_its_first_script() {
    let Some(browser) =
        chromium_or_skip("an_out_of_process_iframe_is_probed_before_its_first_script")
    else {
        return;
    };
    let (_dir, port, stderr, accesses) = record_served(&browser, "oopif");
    assert!(stderr.contains("tracer:done"), "{stderr}");
    assert!(!stderr.contains("not probed"), "{stderr}");
    let ua = find(&accesses, "navigator.userAgent", "get");
    assert_eq!(ua["realm"], "iframe", "{ua}");
    assert_eq!(ua["realmId"], "iframe#0", "{ua}");
    assert_eq!(ua["owner"], "Navigator.prototype", "{ua}");
    assert!(ua["returnValue"].as_str().unwrap().contains("Chrome"));
    let frame = &ua["stack"][0];
    assert_eq!(
        frame["url"],
        format!("http://localhost:{port}/frame.html"),
        "{frame}"
    );
    assert_eq!(frame["line"], 3, "the frame's first inline script: {frame}");
    // The page's own accesses stay in the main realm.
    let append = find(&accesses, "Node.prototype.appendChild", "call");
    assert_eq!(append["realmId"], "main#0");
}

/// `read` is the first probed worker of kind `realm` reading `navigator.hardwareConcurrency` on
/// the first line of `script`.
fn read_on_a_workers_first_line(read: &Value, realm: &str, script: &str) {
    assert_eq!(read["realm"], realm, "{read}");
    assert_eq!(read["realmId"], format!("{realm}#0"), "{read}");
    assert_eq!(read["owner"], "WorkerNavigator.prototype", "{read}");
    let frame = &read["stack"][0];
    assert_eq!(frame["url"], script, "{frame}");
    assert_eq!(frame["line"], 1, "the worker's first line: {frame}");
}

#[test]
fn a_shared_worker_is_probed_before_its_first_line() {
    let Some(browser) = chromium_or_skip("a_shared_worker_is_probed_before_its_first_line") else {
        return;
    };
    let (_dir, port, stderr, accesses) = record_served(&browser, "shared-worker");
    assert!(stderr.contains("tracer:done"), "{stderr}");
    assert!(stderr.contains("probe in sharedworker"), "{stderr}");
    let cores = find(&accesses, "navigator.hardwareConcurrency", "get");
    read_on_a_workers_first_line(
        cores,
        "sharedworker",
        &format!("http://127.0.0.1:{port}/shared.js"),
    );
}

#[test]
fn a_service_worker_is_probed_once_before_its_first_line() {
    let Some(browser) = chromium_or_skip("a_service_worker_is_probed_once_before_its_first_line")
    else {
        return;
    };
    let (_dir, port, stderr, accesses) = record_served(&browser, "service-worker");
    assert!(stderr.contains("tracer:done"), "{stderr}");
    // Attached twice (under the page and from the browser), probed once.
    assert_eq!(
        stderr.matches("probe in serviceworker").count(),
        1,
        "{stderr}"
    );
    let reads: Vec<&Value> = accesses
        .iter()
        .filter(|a| a["api"] == "navigator.hardwareConcurrency")
        .collect();
    assert_eq!(reads.len(), 1, "{reads:#?}");
    let cores = reads[0];
    read_on_a_workers_first_line(
        cores,
        "serviceworker",
        &format!("http://127.0.0.1:{port}/sw.js"),
    );
}

/// Every document the page navigates to is probed before its first script, on the same site
/// and on another site (a new renderer process): each is a new main realm with the next `nav`.
#[test]
fn each_document_the_page_navigates_to_is_a_new_probed_main_realm() {
    let Some(browser) =
        chromium_or_skip("each_document_the_page_navigates_to_is_a_new_probed_main_realm")
    else {
        return;
    };
    let (_dir, port, stderr, accesses) = record_served(&browser, "navigation");
    assert!(stderr.contains("tracer:done"), "{stderr}");
    let expected = [
        (
            "navigator.userAgent",
            "main#0",
            0,
            format!("http://127.0.0.1:{port}/page.html"),
        ),
        (
            "navigator.platform",
            "main#1",
            1,
            format!("http://127.0.0.1:{port}/second.html"),
        ),
        (
            "navigator.language",
            "main#2",
            2,
            format!("http://localhost:{port}/third.html"),
        ),
    ];
    let mut seqs = Vec::new();
    for (api, realm, nav, url) in &expected {
        let read = find(&accesses, api, "get");
        assert_eq!(read["realm"], "main", "{read}");
        assert_eq!(read["realmId"], *realm, "{read}");
        assert_eq!(read["nav"], *nav, "{read}");
        assert_eq!(read["stack"][0]["url"], *url, "{read}");
        seqs.push(read["seq"].as_u64().unwrap());
    }
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
}
