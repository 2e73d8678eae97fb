//! `tracer replay`: the captured events on their timeline with source context, the honest
//! wording, the failure marked, `--kind`/`--grep`, the original `.ts` through a source map.
//! (The interactive stepper needs a terminal; its keys are unit-tested in `src/commands/replay.rs`.)

use crate::support::Tracer;

#[test]
fn prints_the_whole_timeline_with_source_context_when_not_on_a_terminal() {
    let run = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    run.assert_code(1);
    let replay = run.tracer().args(["replay", "latest"]).run();
    replay.assert_code(0);
    let out = replay.stdout();
    assert!(
        out.contains("no time travel, no variable inspection"),
        "{out}"
    );
    let kept = run.events().len();
    assert!(
        out.contains(&format!("{kept} of {kept} captured events shown")),
        "{out}"
    );
    // Every kept event appears once, in order.
    let ids: Vec<u64> = out
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    let expected: Vec<u64> = run.events().iter().map(|e| e.id).collect();
    assert_eq!(ids, expected);
    // The console call on line 5 with two lines of context either side, read from the file.
    assert!(out.contains("value answer is 42"), "{out}");
    assert!(out.contains("--> throws.js:5:9"), "{out}");
    for line in [
        "   3 | console.log(\"starting\", 1);",
        "   4 | const answer = 41 + 1;",
        "   5 | console.log(\"answer is\", answer);",
        "   6 | throw new Error(\"boom: answer was \" + answer);",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
    // The failure is marked and has its message.
    let failure = out
        .lines()
        .find(|l| l.contains("<- the failure"))
        .expect("the failure is marked");
    assert!(failure.contains("exception"), "{failure}");
    assert!(out.contains("message Error: boom: answer was 42"));
}

#[test]
fn kind_and_grep_filter_the_events() {
    let run = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    let replay = run
        .tracer()
        .args(["replay", "--kind", "console", "--kind", "exit"])
        .run();
    replay.assert_code(0);
    let out = replay.stdout();
    let kinds: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| l.split_whitespace().nth(3).unwrap())
        .collect();
    assert_eq!(kinds, ["console", "console", "exit"], "{out}");

    let replay = run
        .tracer()
        .args(["replay", "--grep", "answer is \\d+"])
        .run();
    replay.assert_code(0);
    let out = replay.stdout();
    let shown = out.lines().filter(|l| l.starts_with('#')).count();
    // The console call and the stdout line it printed.
    assert_eq!(shown, 2, "{out}");
    assert!(out.contains("2 of"), "{out}");

    let replay = run
        .tracer()
        .args(["replay", "--grep", "no such text"])
        .run();
    replay.assert_code(0);
    assert!(
        replay
            .stdout()
            .contains("no captured event matches --kind/--grep")
    );

    let bad = run.tracer().args(["replay", "--grep", "("]).run();
    bad.assert_code(2);
    assert!(
        bad.stderr()
            .contains("--grep is not a valid regular expression")
    );
}

#[test]
fn source_mapped_events_show_the_original_typescript() {
    let run = Tracer::new()
        .fixture("ts/app.ts")
        .fixture("ts/app.js")
        .fixture("ts/app.js.map")
        .args(["run", "ts/app.js"])
        .run();
    run.assert_code(1);
    let replay = run.tracer().args(["replay", "--kind", "exception"]).run();
    replay.assert_code(0);
    let out = replay.stdout();
    assert!(out.contains("--> ts/app.ts:20:"), "{out}");
    assert!(
        out.contains("  20 |     throw new Error(message);"),
        "{out}"
    );
    assert!(out.contains("  18 |     const message: string"), "{out}");
    assert!(out.contains("generated ts/app.js:"), "{out}");
}

#[test]
fn unknown_sessions_are_usage_errors() {
    let replay = Tracer::new().args(["replay", "latest"]).run();
    replay.assert_code(2);
    assert!(
        replay.stderr().contains("no sessions"),
        "{}",
        replay.stderr()
    );
    let replay = Tracer::new().args(["replay", "../../etc"]).run();
    replay.assert_code(2);
}

/// On a terminal the replay is interactive. Needs util-linux `script` for a pseudo-terminal;
/// without it the test says so and checks nothing else.
#[test]
fn on_a_terminal_the_keys_step_through_the_events() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let run = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    run.assert_code(1);
    let Some(script) = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("script"))
        .find(|p| p.is_file())
    else {
        eprintln!("skipped: no `script` on PATH to make a pseudo-terminal");
        return;
    };
    let command = format!("{} replay --color never", env!("CARGO_BIN_EXE_tracer"));
    let mut child = Command::new(script)
        .args(["-qec", &command, "/dev/null"])
        .current_dir(run.workspace())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"n\nf\nq\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert!(out.status.success(), "{stdout}");
    let total = run.events().len();
    let failure = run
        .events()
        .iter()
        .position(|e| e.kind == tracer::trace::event::Kind::Exception)
        .unwrap();
    let shown: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with('['))
        .map(|l| l.split(']').next().unwrap())
        .collect();
    assert_eq!(
        shown,
        [
            format!("[1/{total}"),
            format!("[2/{total}"),
            format!("[{}/{total}", failure + 1)
        ],
        "{stdout}"
    );
    assert!(stdout.contains("replay>"), "{stdout}");
}

/// A program's coloured output (a test runner's) is replayed as text: no terminal escape the
/// program wrote reaches the terminal that replays it.
#[test]
fn the_program_s_terminal_escapes_are_replayed_as_text() {
    let run = Tracer::new()
        .file(
            "colours.js",
            "console.log('\\x1b[31mred\\x1b[39m and \\x1b]8;;file:///x\\x07a link\\x1b]8;;\\x07');\nprocess.stdout.write('\\x1b[1mbold\\x1b[0m\\n');\n",
        )
        .args(["run", "colours.js"])
        .run();
    run.assert_code(0);
    let replay = run.tracer().args(["replay", "latest"]).run();
    replay.assert_code(0);
    let out = replay.stdout();
    assert!(!out.contains('\x1b'), "{out:?}");
    assert!(out.contains("red and a link"), "{out}");
    assert!(out.contains("bold"), "{out}");
}
