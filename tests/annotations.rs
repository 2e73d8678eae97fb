//! `tracer run --annotations github`: the failure and its immediate cause as GitHub workflow
//! commands, paths relative to the workspace, escaped; on by default under `GITHUB_ACTIONS=true`;
//! on stderr when `--ndjson` owns stdout.

use crate::support::Tracer;

fn annotations(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("::")).collect()
}

#[test]
fn the_failure_and_its_cause_are_annotated_on_their_lines() {
    let run = Tracer::new()
        .fixture_as("throws.js", "src/throws.js")
        .args(["run", "--annotations", "github", "src/throws.js"])
        .run();
    run.assert_code(1);
    let stdout = run.stdout();
    let lines = annotations(&stdout);
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("::error file=src/throws.js,line=6,col=7,title=tracer%3A uncaught exception::Error: boom: answer was 42"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("::error file=src/throws.js,line=5,col=9,title=tracer%3A immediate cause::console.log \"answer is 42\""),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains("correlation, not proof of cause"));
}

#[test]
fn github_actions_turns_them_on_and_none_turns_them_off() {
    let run = Tracer::new()
        .fixture("throws.js")
        .env("GITHUB_ACTIONS", "true")
        .args(["run", "throws.js"])
        .run();
    assert_eq!(annotations(&run.stdout()).len(), 2, "{}", run.dump());
    let run = run
        .tracer()
        .env("GITHUB_ACTIONS", "true")
        .args(["run", "--annotations", "none", "throws.js"])
        .run();
    assert!(annotations(&run.stdout()).is_empty());
    assert!(annotations(&run.stderr()).is_empty());
    let run = run.tracer().args(["run", "throws.js"]).run();
    assert!(annotations(&run.stdout()).is_empty(), "off outside CI");
    // A run that succeeds has nothing to annotate.
    let ok = run
        .tracer()
        .file("ok.js", "console.log('fine')\n")
        .args(["run", "--annotations", "github", "ok.js"])
        .run();
    ok.assert_code(0);
    assert!(annotations(&ok.stdout()).is_empty());
}

#[test]
fn with_ndjson_they_go_to_stderr_and_stdout_stays_ndjson() {
    let run = Tracer::new()
        .fixture("throws.js")
        .args(["run", "--ndjson", "--annotations", "github", "throws.js"])
        .run();
    run.assert_code(1);
    let events = run.stdout_events(); // every stdout line parses as an event
    assert!(!events.is_empty());
    assert_eq!(annotations(&run.stderr()).len(), 2, "{}", run.stderr());
}

#[test]
fn paths_are_relative_to_github_workspace_and_messages_are_escaped() {
    let run = Tracer::new()
        .file(
            "pkg/lib/fail.js",
            "// Throws a message with a percent sign and a newline.\nthrow new Error('100% broken, really');\n",
        )
        .env("GITHUB_ACTIONS", "true");
    let pkg = run.workspace().join("pkg");
    let run = run
        .env("GITHUB_WORKSPACE", &pkg)
        .args(["run", "pkg/lib/fail.js"])
        .run();
    run.assert_code(1);
    let stdout = run.stdout();
    let first = annotations(&stdout)[0];
    assert!(
        first.starts_with("::error file=lib/fail.js,line=2,col=7,"),
        "{first}"
    );
    assert!(first.ends_with("::Error: 100%25 broken, really"), "{first}");

    // An exit without an exception: no position, the stderr tail escaped onto one line.
    let exit = run
        .tracer()
        .file(
            "exit.js",
            "// Writes two stderr lines, then exits 3.\nconsole.error('first\\nsecond');\nprocess.exit(3);\n",
        )
        .args(["run", "--annotations", "github", "exit.js"])
        .run();
    exit.assert_code(1);
    let stdout = exit.stdout();
    let first = annotations(&stdout)[0];
    assert!(
        first.starts_with(
            "::error title=tracer%3A the program failed::the program failed: exited with code 3"
        ),
        "{first}"
    );
    assert!(first.contains("%0Afirst%0Asecond"), "{first}");
}
