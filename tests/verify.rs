//! `tracer verify`: re-runs the target with the same args and cwd as a new session that links to
//! the original, and tells a fix (0) from the same failure (1) and a new failure (1).

use tracer::trace::session::Status;

use crate::support::Tracer;

/// Fails unless `state.txt` in its working directory says `fixed`; the arguments pick the failure.
const PROGRAM: &str = r#"// Fails according to ./state.txt; prints its arguments.
const fs = require("node:fs");
console.log("args", process.argv.slice(2).join(" "));
const state = fs.readFileSync("state.txt", "utf8").trim();
if (state === "broken") {
  throw new Error("state is broken");
}
if (state === "other") {
  throw new TypeError("state is other");
}
"#;

fn failing_run() -> crate::support::Output {
    let run = Tracer::new()
        .file("app/main.js", PROGRAM)
        .file("data/state.txt", "broken")
        .args(["run", "--cwd", "data", "app/main.js", "one", "two"])
        .run();
    run.assert_code(1);
    run
}

#[test]
fn a_fix_exits_0_and_the_new_session_links_to_the_original() {
    let run = failing_run();
    let original = run.latest_id();
    std::fs::write(run.workspace().join("data/state.txt"), "fixed").unwrap();
    let verify = run.tracer().args(["verify", &original]).run();
    verify.assert_code(0);
    assert!(
        verify.stderr().contains("verify: fixed"),
        "{}",
        verify.dump()
    );
    assert!(verify.stderr().contains("Error: state is broken"));
    // The program ran with the same arguments and working directory.
    assert!(
        verify.stdout().contains("args one two"),
        "{}",
        verify.dump()
    );
    let session = verify.session();
    assert_ne!(session.id, original);
    assert_eq!(session.verifies.as_deref(), Some(original.as_str()));
    assert_eq!(session.args, ["one", "two"]);
    assert_eq!(
        session.cwd,
        run.workspace().join("data").display().to_string()
    );
    assert_eq!(session.status, Status::Exited);
    // The original is untouched and does not verify anything.
    let first = run.tracer().args(["show", &original]).run();
    assert!(!first.stdout().contains("\"verifies\""));
}

#[test]
fn the_same_failure_exits_1_and_says_so() {
    let run = failing_run();
    let original = run.latest_id();
    let verify = run.tracer().args(["verify", "latest"]).run();
    verify.assert_code(1);
    let stderr = verify.stderr();
    assert!(
        stderr.contains("still failing: the same failure"),
        "{stderr}"
    );
    assert!(stderr.contains("Error: state is broken at app/main.js:6:"));
    assert_eq!(
        verify.session().verifies.as_deref(),
        Some(original.as_str())
    );
}

#[test]
fn a_different_failure_exits_1_as_a_new_failure() {
    let run = failing_run();
    std::fs::write(run.workspace().join("data/state.txt"), "other").unwrap();
    let verify = run.tracer().args(["verify", "last-failed"]).run();
    verify.assert_code(1);
    let stderr = verify.stderr();
    assert!(stderr.contains("still failing: a new failure"), "{stderr}");
    assert!(stderr.contains("was: Error: state is broken"), "{stderr}");
    assert!(
        stderr.contains("now: TypeError: state is other"),
        "{stderr}"
    );
}

#[test]
fn the_same_message_at_another_site_is_a_new_failure() {
    let run = failing_run();
    // Two lines pushed in front: same kind, same message, another mapped site.
    let moved = format!("// moved\n// down\n{PROGRAM}");
    std::fs::write(run.workspace().join("app/main.js"), moved).unwrap();
    let verify = run.tracer().args(["verify"]).run();
    verify.assert_code(1);
    assert!(
        verify.stderr().contains("a new failure"),
        "{}",
        verify.stderr()
    );
}

#[test]
fn a_session_that_did_not_fail_verifies_when_it_still_succeeds() {
    let run = Tracer::new().fixture("ok.js").args(["run", "ok.js"]).run();
    run.assert_code(0);
    let verify = run.tracer().args(["verify"]).run();
    verify.assert_code(0);
    assert!(
        verify
            .stderr()
            .contains("the original run did not fail either")
    );
}

/// A run that failed on the input piped into it: `verify`, given none (its own stdin is empty),
/// would run the program on nothing and call it fixed; it refuses, naming the way to give the
/// input again, and given the same input it finds the same failure.
#[test]
fn a_run_that_had_piped_input_is_verified_only_when_given_input_again() {
    let program = "let input = '';\nprocess.stdin.on('data', (c) => { input += c; });\nprocess.stdin.on('end', () => { if (input.includes('boom')) throw new Error('refusing ' + input.trim()); });\n";
    let run = Tracer::new()
        .file("app.js", program)
        .stdin("hi boom\n")
        .args(["run", "app.js"])
        .run();
    run.assert_code(1);
    let original = run.latest_id();
    let session = run.session();
    assert_eq!(
        session.options.as_ref().and_then(|o| o.stdin.as_deref()),
        Some("pipe")
    );
    let verify = run.tracer().args(["verify", &original]).run();
    verify.assert_code(2);
    let stderr = verify.stderr();
    assert!(
        stderr.contains("standard input from a pipe")
            && stderr.contains(&format!("| tracer verify {original}")),
        "{stderr}"
    );
    let again = run
        .tracer()
        .stdin("hi boom\n")
        .args(["verify", &original])
        .run();
    again.assert_code(1);
    assert!(
        again.stderr().contains("still failing: the same failure"),
        "{}",
        again.dump()
    );
}
