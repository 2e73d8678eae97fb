//! Reading sessions back: `tracer show`, `tracer evidence`, `tracer list`, `latest`, `last-failed`,
//! bad ids, and retention (`--keep`).

use tracer::trace::evidence::Evidence;
use tracer::trace::session::{Session, Status};

use crate::support::{Tracer, latest_in};

#[test]
fn show_evidence_and_list_read_the_sessions_back() {
    let failed = Tracer::new()
        .fixture("throws.js")
        .fixture("ok.js")
        .args(["run", "throws.js"])
        .run();
    failed.assert_code(1);
    let failed_id = failed.latest_id();
    let ok = failed.tracer().args(["run", "ok.js"]).run();
    ok.assert_code(0);
    let ok_id = ok.latest_id();
    assert_ne!(ok_id, failed_id);

    // show: latest by default, or an id, or last-failed.
    let show = ok.tracer().arg("show").run();
    show.assert_code(0);
    let session: Session = serde_json::from_str(&show.stdout()).expect("show prints a session");
    assert_eq!(
        (session.id.as_str(), session.status),
        (ok_id.as_str(), Status::Exited)
    );
    let show = ok.tracer().args(["show", &failed_id]).run();
    show.assert_code(0);
    let session: Session = serde_json::from_str(&show.stdout()).unwrap();
    assert_eq!(
        (session.id.as_str(), session.status),
        (failed_id.as_str(), Status::Failed)
    );
    assert_eq!(
        session,
        failed
            .tracer()
            .args(["show", "last-failed"])
            .run()
            .stdout()
            .parse_session()
    );

    // evidence: null for the successful run, the chain for the failed one.
    let evidence = ok.tracer().arg("evidence").run();
    evidence.assert_code(0);
    assert_eq!(evidence.stdout().trim(), "null");
    let evidence = ok.tracer().args(["evidence", "latest"]).run();
    assert_eq!(evidence.stdout().trim(), "null");
    for id in ["last-failed", failed_id.as_str()] {
        let evidence = ok.tracer().args(["evidence", id]).run();
        evidence.assert_code(0);
        let chain: Evidence =
            serde_json::from_str(&evidence.stdout()).expect("evidence prints the chain");
        assert_eq!(chain.failure.line, Some(6));
        assert_eq!(chain.failure.message, "Error: boom: answer was 42");
    }

    // list: newest first, one line per session.
    let list = ok.tracer().arg("list").run();
    list.assert_code(0);
    let stdout = list.stdout();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].contains(&ok_id) && lines[0].contains("ok.js"),
        "{stdout}"
    );
    assert!(
        lines[1].contains(&failed_id) && lines[1].contains("throws.js"),
        "{stdout}"
    );
    let list = ok.tracer().args(["list", "--json"]).run();
    list.assert_code(0);
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&list.stdout()).expect("list --json prints one JSON array");
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [ok_id.as_str(), failed_id.as_str()]);
    assert_eq!(rows[1]["status"], "failed");
    // --ndjson: the same objects, one per line.
    let list = ok.tracer().args(["list", "--ndjson"]).run();
    list.assert_code(0);
    let lines: Vec<serde_json::Value> = list
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).expect("list --ndjson prints JSON lines"))
        .collect();
    assert_eq!(lines, rows);
    // A command, as it was given; a session that cannot be read, left out and said so.
    let command = ok
        .tracer()
        .args(["run", "--", "node", "ok.js", "--flag"])
        .run();
    command.assert_code(0);
    std::fs::write(
        ok.workspace()
            .join(".tracer/sessions")
            .join(&failed_id)
            .join("session.json"),
        "{",
    )
    .unwrap();
    let list = ok.tracer().arg("list").run();
    list.assert_code(0);
    let stdout = list.stdout();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].ends_with("  node ok.js --flag"), "{stdout}");
    assert!(
        list.stderr()
            .contains(&format!("session {failed_id} is left out"))
            && list.stderr().contains("session.json:1:"),
        "{}",
        list.stderr()
    );
    // No sessions: an empty array, still JSON.
    let empty = Tracer::new().args(["list", "--json"]).run();
    empty.assert_code(0);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&empty.stdout()).unwrap(),
        serde_json::json!([])
    );
}

#[test]
fn every_file_tracer_writes_under_out_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let out = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    out.assert_code(1);
    let mut seen = Vec::new();
    for entry in walkdir::WalkDir::new(out.out_dir()) {
        let entry = entry.unwrap();
        let name = entry.path().display().to_string();
        if entry.file_type().is_symlink() {
            // `latest`, a link (which has no mode of its own) to this run's session, whose
            // folder is checked like the rest.
            assert_eq!(entry.file_name(), "latest", "{name} is a link");
            let id = latest_in(out.out_dir().as_path()).unwrap();
            assert_eq!(out.session_ids(), [id]);
            seen.push("latest".into());
            continue;
        }
        let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
        let wanted = if entry.file_type().is_dir() {
            0o700
        } else {
            0o600
        };
        assert_eq!(mode, wanted, "{name} is {mode:o}");
        seen.push(entry.file_name().to_string_lossy().into_owned());
    }
    for name in ["latest", "session.json", "events.ndjson", "evidence.json"] {
        assert!(
            seen.iter().any(|s| s == name),
            "{name} not written: {seen:?}"
        );
    }
}

trait ParseSession {
    fn parse_session(&self) -> Session;
}

impl ParseSession for String {
    fn parse_session(&self) -> Session {
        serde_json::from_str(self).unwrap_or_else(|e| panic!("not a session ({e}): {self:.500}"))
    }
}

#[test]
fn unknown_and_malicious_ids_are_usage_errors() {
    let out = Tracer::new().fixture("ok.js").args(["run", "ok.js"]).run();
    out.assert_code(0);
    for command in ["show", "evidence"] {
        for id in [
            "20990101-000000-000-ffff",
            "../../etc",
            "../sessions",
            "/etc/passwd",
        ] {
            let out = out.tracer().args([command, id]).run();
            out.assert_code(2);
            assert!(out.stdout().is_empty(), "{command} {id}: {}", out.stdout());
            assert!(
                !out.stderr().is_empty() && !out.stderr().contains("panicked"),
                "{}",
                out.stderr()
            );
        }
        // No failed session yet.
        let out = out.tracer().args([command, "last-failed"]).run();
        out.assert_code(2);
    }
}

#[test]
fn reading_an_empty_store_is_a_usage_error() {
    let tracer = Tracer::new();
    let out = tracer.arg("show").run();
    out.assert_code(2);
    assert!(out.stderr().contains("no sessions"), "{}", out.stderr());
    out.tracer().arg("evidence").run().assert_code(2);
    let list = out.tracer().arg("list").run();
    list.assert_code(0);
    assert!(list.stdout().is_empty());
}

#[test]
fn keep_2_retains_the_two_newest_sessions() {
    let first = Tracer::new()
        .fixture("ok.js")
        .args(["run", "--keep", "2", "ok.js"])
        .run();
    first.assert_code(0);
    let mut ids = vec![first.latest_id()];
    for _ in 0..2 {
        let next = first.tracer().args(["run", "--keep", "2", "ok.js"]).run();
        next.assert_code(0);
        ids.push(next.latest_id());
    }
    assert_eq!(
        first.session_ids(),
        ids[1..],
        "the oldest session is removed"
    );
    assert_eq!(first.latest_id(), ids[2]);
    first.tracer().args(["show", &ids[0]]).run().assert_code(2);
    first.tracer().args(["show", &ids[1]]).run().assert_code(0);
}

#[test]
fn out_puts_the_sessions_where_asked() {
    let out = Tracer::new()
        .fixture("ok.js")
        .args(["run", "--out", "traces", "ok.js"])
        .run();
    out.assert_code(0);
    assert!(!out.out_dir().exists(), "nothing in the default .tracer");
    let id = latest_in(&out.workspace().join("traces")).unwrap();
    for file in ["session.json", "events.ndjson", "evidence.json"] {
        assert!(
            out.workspace()
                .join("traces/sessions")
                .join(&id)
                .join(file)
                .is_file(),
            "{file}"
        );
    }
    let show = out.tracer().args(["show", "--out", "traces"]).run();
    show.assert_code(0);
    assert_eq!(show.stdout().parse_session().id, id);
}

#[test]
fn retention_spares_a_session_whose_run_is_in_progress() {
    let mut long = Tracer::new()
        .fixture("forever.js")
        .fixture("ok.js")
        .args(["run", "--timeout", "60", "forever.js"])
        .spawn();
    long.wait_for_stdout_line("ready");
    let running = long.wait_for_captured_event(|_| true);
    assert_eq!(running.id, 1);
    let mut last = None;
    for _ in 0..2 {
        let out = Tracer::in_workspace_of(&long)
            .args(["run", "--keep", "1", "ok.js"])
            .run();
        out.assert_code(0);
        last = Some(out);
    }
    let last = last.unwrap();
    // Two sessions: the newest finished one, and the one still running (never removed).
    assert_eq!(last.session_ids().len(), 2, "{:?}", last.session_ids());
    long.signal(libc::SIGINT);
    let out = long.wait();
    out.assert_code(130);
    assert_eq!(out.session().status, Status::Stopped);
}

#[test]
fn retention_never_removes_a_folder_tracer_did_not_write() {
    // A folder of the user's under `sessions/`, named like a session (it sorts first, so it would
    // be the oldest), with a file in it: it is not a session, takes no `--keep` slot, and stays.
    let first = Tracer::new()
        .fixture("ok.js")
        .file(".tracer/sessions/00000000-mine/notes.txt", "my notes")
        .args(["run", "--keep", "1", "ok.js"])
        .run();
    first.assert_code(0);
    let second = first.tracer().args(["run", "--keep", "1", "ok.js"]).run();
    second.assert_code(0);
    let mine = first
        .workspace()
        .join(".tracer/sessions/00000000-mine/notes.txt");
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my notes");
    assert_eq!(
        first.session_ids(),
        ["00000000-mine".to_owned(), second.latest_id()],
        "one session kept, the user's folder left alone"
    );
    let list = first.tracer().args(["list", "--json"]).run();
    assert!(
        !list.stdout().contains("00000000-mine"),
        "{}",
        list.stdout()
    );
}

#[test]
fn a_fifo_or_a_device_in_place_of_a_session_file_is_refused_at_once() {
    let run = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    run.assert_code(1);
    let evidence = run.session_dir().join("evidence.json");
    std::fs::remove_file(&evidence).unwrap();
    let name = std::ffi::CString::new(evidence.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path that lives for the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    // Without the regular-files-only reader this waits forever for a writer (the harness's
    // watchdog would kill it); with it, a clear error naming the file.
    let out = run.tracer().args(["evidence", "latest"]).run();
    assert_ne!(out.code(), 0, "{}", out.dump());
    assert!(out.stderr().contains("evidence.json"), "{}", out.dump());
    std::fs::remove_file(&evidence).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &evidence).unwrap();
    let out = run.tracer().args(["evidence", "latest"]).run();
    assert_ne!(out.code(), 0, "{}", out.dump());
    assert!(
        out.stderr().contains("not a regular file"),
        "{}",
        out.dump()
    );
}
