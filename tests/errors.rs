//! Refusals and failures to trace: containment (exit 2, nothing spawned), a missing target (2),
//! bad flags (2), a missing or unusable Node (4). Each error is a clear message, never a panic.

use crate::support::{Output, Tracer};

#[track_caller]
fn assert_clear_error(out: &Output, code: i32, mentions: &str) {
    out.assert_code(code);
    let stderr = out.stderr();
    assert!(
        stderr.contains(mentions),
        "the message should mention {mentions:?}:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        out.stdout().is_empty(),
        "nothing on stdout: {}",
        out.stdout()
    );
}

#[track_caller]
fn assert_no_session(out: &Output) {
    assert!(
        out.session_ids().is_empty(),
        "no session is recorded: {:?}",
        out.session_ids()
    );
}

#[test]
fn a_target_outside_the_workspace_is_refused_and_never_run() {
    let tracer = Tracer::new().outside_fixture("marker.js");
    let target = tracer.outside().join("marker.js");
    let out = tracer.arg("run").arg(&target).run();
    assert_clear_error(&out, 2, "outside the workspace");
    assert!(
        !out.outside().join("ran").exists(),
        "the program was spawned"
    );
    assert_no_session(&out);
}

#[test]
fn a_symlink_leading_outside_the_workspace_is_refused() {
    let tracer = Tracer::new().outside_fixture("marker.js");
    std::os::unix::fs::symlink(
        tracer.outside().join("marker.js"),
        tracer.workspace().join("link.js"),
    )
    .unwrap();
    let out = tracer.args(["run", "link.js"]).run();
    assert_clear_error(&out, 2, "outside the workspace");
    assert!(
        !out.outside().join("ran").exists(),
        "the program was spawned"
    );
    assert_no_session(&out);
}

#[test]
fn a_working_directory_outside_the_workspace_is_refused() {
    let tracer = Tracer::new().fixture("marker.js");
    let outside = tracer.outside().to_owned();
    let out = tracer
        .args(["run", "--cwd"])
        .arg(&outside)
        .arg("marker.js")
        .run();
    assert_clear_error(&out, 2, "outside the workspace");
    assert!(
        !out.workspace().join("ran").exists(),
        "the program was spawned"
    );
    assert_no_session(&out);
}

#[test]
fn an_explicit_workspace_decides_containment() {
    // The target is inside the current directory but outside --workspace.
    let tracer = Tracer::new().fixture("marker.js").file("sub/keep.txt", "");
    let out = tracer
        .args(["run", "--workspace", "sub", "marker.js"])
        .run();
    assert_clear_error(&out, 2, "outside the workspace");
    assert!(!out.workspace().join("ran").exists());
}

#[test]
fn a_missing_target_is_a_usage_error() {
    let out = Tracer::new().args(["run", "nope.js"]).run();
    assert_clear_error(&out, 2, "nope.js");
    assert_no_session(&out);
}

#[test]
fn bad_flags_are_usage_errors() {
    let out = Tracer::new()
        .fixture("ok.js")
        .args(["run", "--no-such-flag", "ok.js"])
        .run();
    out.assert_code(2);
    let out = out.tracer().args(["run", "--timeout", "0", "ok.js"]).run();
    assert_clear_error(&out, 2, "--timeout");
    let out = out
        .tracer()
        .args(["run", "--max-events", "lots", "ok.js"])
        .run();
    out.assert_code(2);
}

#[test]
fn an_output_folder_that_is_a_file_is_a_usage_error_and_the_file_is_kept() {
    let out = Tracer::new()
        .fixture("ok.js")
        .file("notes.txt", "mine")
        .args(["run", "--out", "notes.txt", "ok.js"])
        .run();
    assert_clear_error(&out, 2, "notes.txt/sessions");
    assert!(out.stderr().contains("--out"), "{}", out.stderr());
    assert_eq!(
        std::fs::read_to_string(out.workspace().join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn a_missing_node_from_the_flag_cannot_trace() {
    let out = Tracer::new()
        .fixture("marker.js")
        .args(["run", "--node", "/nonexistent/node", "marker.js"])
        .run();
    assert_clear_error(&out, 4, "/nonexistent/node");
    assert!(!out.workspace().join("ran").exists());
}

#[test]
fn a_missing_node_from_tracer_node_cannot_trace() {
    let out = Tracer::new()
        .fixture("marker.js")
        .env("TRACER_NODE", "/nonexistent/node")
        .args(["run", "marker.js"])
        .run();
    assert_clear_error(&out, 4, "/nonexistent/node");
    assert!(!out.workspace().join("ran").exists());
}

#[test]
fn a_node_name_not_on_path_cannot_trace() {
    let out = Tracer::new()
        .fixture("marker.js")
        .args(["run", "--node", "no-such-node-here", "marker.js"])
        .run();
    assert_clear_error(&out, 4, "no-such-node-here");
}

#[test]
fn no_node_on_path_cannot_trace() {
    let out = Tracer::new()
        .fixture("marker.js")
        .env("PATH", "/nonexistent")
        .args(["run", "marker.js"])
        .run();
    assert_clear_error(&out, 4, "Node");
}

#[test]
fn a_node_that_prints_no_inspector_url_cannot_trace() {
    // `true` is an executable that exits at once: an unusable Node, not a missing one.
    let truth = ["/bin/true", "/usr/bin/true"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap();
    let out = Tracer::new()
        .fixture("ok.js")
        .args(["run", "--node", truth, "ok.js"])
        .run();
    out.assert_code(4);
    assert!(out.stderr().contains("inspector"), "{}", out.stderr());
    assert!(!out.stderr().contains("panicked"), "{}", out.stderr());
}

#[test]
fn a_directory_target_is_a_usage_error() {
    let out = Tracer::new()
        .file("dir/.keep", "")
        .args(["run", "dir"])
        .run();
    assert_clear_error(&out, 2, "dir");
    assert_no_session(&out);
}

/// Every `SECONDS` flag takes a finite number of seconds up to a year: a value out of range (one
/// that would overflow a duration, `nan`, `inf`) is a usage error that names the flag and the
/// range, never a panic.
#[test]
fn a_number_of_seconds_out_of_range_is_a_usage_error() {
    let flags: [(&[&str], &str); 6] = [
        (&["run", "x.js"], "--timeout"),
        (&["run", "x.js"], "--attach-timeout"),
        (&["verify", "latest"], "--timeout"),
        (&["audit", "--entry", "x.js"], "--timeout"),
        (&["record", "--baseline-id", "b", "x.html"], "--timeout"),
        (&["record", "--baseline-id", "b", "x.html"], "--settle"),
    ];
    for (command, flag) in flags {
        for value in ["1e20", "nan", "inf"] {
            let mut args = vec![command[0], flag, value];
            args.extend_from_slice(&command[1..]);
            let out = Tracer::new().args(&args).run();
            assert_clear_error(&out, 2, flag);
            assert!(
                out.stderr().contains("a number of seconds from 0 to"),
                "{}",
                out.stderr()
            );
        }
    }
}

/// The count flags at the ends of their range (0 and the largest number the type holds) are
/// taken or refused, never a panic: `--jobs` past 1024 is a usage error naming the flag (it made
/// `contract build` overflow), and the others run.
#[test]
fn the_count_flags_at_their_extremes_never_panic() {
    let out = Tracer::new()
        .args(["contract", "build", "--jobs", "18446744073709551615"])
        .run();
    assert_clear_error(&out, 2, "--jobs");
    for (flag, value) in [
        ("--max-events", "0"),
        ("--max-events", "18446744073709551615"),
        ("--keep", "0"),
        ("--keep", "18446744073709551615"),
    ] {
        let out = Tracer::new()
            .file("ok.js", "console.log('ran');\n")
            .args(["-q", "run", flag, value, "ok.js"])
            .run();
        out.assert_code(0);
        assert!(
            out.stdout().contains("ran"),
            "{flag} {value}: {}",
            out.dump()
        );
    }
}
