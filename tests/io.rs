//! What passes through and what is streamed: `--ndjson` purity and a closed pipe, stdin, the
//! inspector's own lines kept out of the program's stderr, and a user's `NODE_OPTIONS=--inspect`.

use tracer::trace::event::{Event, Kind, Stream};
use tracer::trace::session::{Session, Status};

use crate::support::{Output, Tracer, of_kind, output_lines, parse_ndjson};

const INSPECTOR_LINES: [&str; 4] = [
    "Debugger listening",
    "For help, see",
    "Debugger attached",
    "Waiting for the debugger",
];

#[test]
fn ndjson_stdout_carries_only_events() {
    let out = Tracer::new()
        .fixture("mixed_output.js")
        .args(["run", "--ndjson", "mixed_output.js"])
        .run();
    out.assert_code(0);
    let streamed = out.stdout_events(); // panics on any line that is not an event
    assert!(!streamed.is_empty());
    assert!(
        !out.stdout()
            .lines()
            .any(|l| l.contains("plain stdout line") && !l.starts_with('{'))
    );
    assert_eq!(
        streamed.last().map(|e| (e.kind, e.exit_code)),
        Some((Kind::Exit, Some(0)))
    );
    assert!(output_lines(&streamed, Stream::Stdout).contains(&"plain stdout line".to_owned()));
    assert!(output_lines(&streamed, Stream::Stderr).contains(&"plain stderr line".to_owned()));
    let console = *of_kind(&streamed, Kind::Console)
        .first()
        .expect("a console event");
    assert!(
        console.value.as_deref().unwrap().contains("answer"),
        "{console:?}"
    );
    // The stream and the session files hold the same events.
    let session = out.session();
    let ids = |events: &[Event]| events.iter().map(|e| e.id).collect::<Vec<_>>();
    assert_eq!(ids(&streamed), ids(&session.events));
    assert_eq!(ids(&out.events_file()), ids(&session.events));
}

#[test]
fn ndjson_piped_to_head_1_still_completes_the_run() {
    let mut running = Tracer::new()
        .fixture("many_lines.js")
        .args(["run", "--ndjson", "many_lines.js"])
        .spawn();
    let first = running.read_one_line_and_close_stdout();
    let first = parse_ndjson(&first);
    assert_eq!(first.first().map(|e| e.id), Some(1));
    let (out, session) = ran_to_its_end(running);
    assert_eq!(session.dropped_events, 0);
    let console = of_kind(&session.events, Kind::Console);
    assert_eq!(console.len(), 2000, "every console call is in the session");
    assert_eq!(
        console.last().and_then(|e| e.value.as_deref()),
        Some("line 1999")
    );
    assert_eq!(session.events.last().map(|e| e.kind), Some(Kind::Exit));
    assert_eq!(out.events_file().last().map(|e| e.kind), Some(Kind::Exit));
    // The summary says the stream was cut, not the program.
    let exit = session.events.last().unwrap();
    assert!(
        exit.note
            .as_deref()
            .is_some_and(|n| n.contains("the --ndjson stream's reader went away")),
        "{exit:?}"
    );
}

/// `tracer run --ndjson long.js | head -1` of a program that writes to its stdout after the
/// reader went away (here 300 lines over a second and a half): the stream stops, the program runs
/// to its end with its own exit code, and the session on disk has all of it.
#[test]
fn ndjson_with_a_closed_reader_lets_the_program_write_on() {
    let mut running = Tracer::new()
        .file(
            "long.js",
            "let i = 0;
const t = setInterval(() => {
  process.stdout.write(`line ${i}\\n`);
  if (++i === 300) { clearInterval(t); require('node:fs').writeFileSync('done', 'yes'); }
}, 5);
",
        )
        .args(["run", "--ndjson", "long.js"])
        .spawn();
    let first = running.read_one_line_and_close_stdout();
    assert_eq!(parse_ndjson(&first).len(), 1, "{first}");
    let (_, session) = ran_to_its_end(running);
    let output = of_kind(&session.events, Kind::Output);
    assert!(
        output
            .iter()
            .any(|e| e.value.as_deref() == Some("line 299")),
        "every line is in the session"
    );
    assert!(of_kind(&session.events, Kind::Exception).is_empty());
}

#[test]
fn a_program_writing_until_its_reader_goes_away_ends_with_epipe_as_under_node() {
    // `tracer run gen.js | head -1`, the output passed through: node alone gets EPIPE and exits 1;
    // under the tracer it ran forever. (With `--ndjson` the program's output is events, not what
    // the reader reads: see `ndjson_piped_to_head_1_still_completes_the_run`.)
    let mut running = Tracer::new()
        .fixture("gen.js")
        .args(["run", "gen.js"])
        .spawn();
    let first = running.read_one_line_and_close_stdout();
    assert_eq!(first, "line 0\n");
    let out = running.wait(); // the harness's watchdog fails the test if the run never ends
    out.assert_code(1);
    let session = out.session();
    assert_eq!(
        (session.status, session.exit_code),
        (Status::Failed, Some(1))
    );
    let exception = *of_kind(&session.events, Kind::Exception)
        .last()
        .expect("the program's EPIPE error");
    assert!(
        exception
            .error_message
            .as_deref()
            .is_some_and(|m| m.contains("EPIPE")),
        "{exception:?}"
    );
    assert!(
        out.stderr().contains("Error: write EPIPE"),
        "node's own message reaches stderr: {}",
        out.stderr()
    );
    let exit = session.events.last().unwrap();
    assert_eq!(exit.kind, Kind::Exit);
    assert!(
        exit.note
            .as_deref()
            .is_some_and(|n| n.contains("stdout's reader went away")),
        "{exit:?}"
    );
    // The failure is the program's own write, never a file of tracer's.
    let evidence = out.evidence().unwrap();
    assert!(
        !evidence
            .failure
            .file
            .as_deref()
            .unwrap_or_default()
            .contains("tracer-boot-"),
        "{evidence:#?}"
    );
}

#[test]
fn a_slow_ndjson_reader_loses_no_output_of_a_program_that_then_throws() {
    // Nobody reads the stream until the program has written everything and is about to throw:
    // the slowest reader there is.
    let tracer = Tracer::new().fixture("flood_throw.js");
    let done = tracer.workspace().join("done");
    let running = tracer.args(["run", "--ndjson", "flood_throw.js"]).spawn();
    let deadline = std::time::Instant::now() + crate::support::WATCHDOG;
    while !done.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the program never finished writing"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = running.wait();
    out.assert_code(1);
    let streamed = out.stdout_events();
    let lines = output_lines(&streamed, Stream::Stdout);
    assert_eq!(
        lines.len(),
        100_000,
        "every line the program wrote is streamed"
    );
    assert_eq!(lines.last().map(String::as_str), Some("line 99999"));
    assert!(
        of_kind(&streamed, Kind::Exception)
            .iter()
            .any(|e| e.error_message.as_deref() == Some("Error: after the flood"))
    );
    assert_eq!(streamed.last().map(|e| e.kind), Some(Kind::Exit));
    // What the session did not keep is counted, and adds up to what was streamed.
    let session = out.session();
    assert_eq!(
        session.event_count + session.dropped_events,
        streamed.len() as u64
    );
}

#[test]
fn stdin_is_passed_through() {
    let out = Tracer::new()
        .fixture("stdin.js")
        .stdin("hello tracer\n")
        .args(["run", "stdin.js"])
        .run();
    out.assert_code(0);
    assert_eq!(out.stdout(), "got: HELLO TRACER\n");
    assert!(output_lines(&out.events(), Stream::Stdout).contains(&"got: HELLO TRACER".to_owned()));
}

#[test]
fn inspector_lines_are_stripped_and_the_programs_error_text_kept() {
    let out = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    out.assert_code(1);
    let stderr = out.stderr();
    let session = out.session();
    let lines: Vec<String> = session
        .events
        .iter()
        .filter(|e| e.kind == Kind::Output)
        .filter_map(|e| e.value.clone())
        .collect();
    for inspector in INSPECTOR_LINES {
        assert!(
            !stderr.contains(inspector),
            "stderr shows the inspector's {inspector:?}:\n{stderr}"
        );
        assert!(
            !lines.iter().any(|l| l.contains(inspector)),
            "an output event holds {inspector:?}"
        );
        assert!(
            !session.stderr_tail.contains(inspector),
            "the stderr tail holds {inspector:?}"
        );
    }
    // Node prints the uncaught error after the debugger disconnects: it still belongs to the run.
    let script = out.workspace().join("throws.js").display().to_string();
    assert!(stderr.contains("Error: boom: answer was 42"), "{stderr}");
    assert!(stderr.contains(&format!("{script}:6")), "{stderr}");
    assert!(
        session.stderr_tail.contains("Error: boom: answer was 42"),
        "{}",
        session.stderr_tail
    );
    let stderr_events = output_lines(&session.events, Stream::Stderr);
    assert!(
        stderr_events.contains(&"Error: boom: answer was 42".to_owned()),
        "{stderr_events:?}"
    );
}

#[test]
fn a_clean_run_prints_no_inspector_lines() {
    let out = Tracer::new().fixture("ok.js").args(["run", "ok.js"]).run();
    out.assert_code(0);
    for inspector in INSPECTOR_LINES {
        assert!(!out.stderr().contains(inspector), "{}", out.stderr());
    }
    assert!(output_lines(&out.events(), Stream::Stderr).is_empty());
}

#[test]
fn node_options_inspect_neither_breaks_nor_widens_the_inspector() {
    for options in [
        "--inspect",
        "--inspect=0.0.0.0:9229 --max-old-space-size=200",
        "--inspect-brk=0.0.0.0:0",
        "--inspect-port=0.0.0.0:0 --inspect",
    ] {
        let out = Tracer::new()
            .fixture("inspector_url.js")
            .env("NODE_OPTIONS", options)
            .args(["run", "--timeout", "60", "inspector_url.js"])
            .run();
        out.assert_code(0);
        let stdout = out.stdout();
        let (listening, url) = stdout
            .lines()
            .find_map(|l| l.strip_prefix("inspector ")?.split_once(" url "))
            .unwrap_or_else(|| panic!("{}", out.dump()));
        // What the process listens on is its inspector, on loopback alone.
        assert!(
            !listening.is_empty()
                && listening
                    .split(',')
                    .all(|address| address.starts_with("127.0.0.1:")),
            "NODE_OPTIONS={options}: listening on {listening:?}"
        );
        assert_eq!(url, "undefined", "as without an inspector");
        let node_options = stdout
            .lines()
            .find_map(|l| l.strip_prefix("node_options "))
            .unwrap();
        // The program sees the bootloader's NODE_OPTIONS (documented), with none of the
        // user's inspector flags and no word a tool would take for one.
        assert!(
            !node_options.contains("--inspect") && !node_options.contains("0.0.0.0"),
            "NODE_OPTIONS={options}: the program saw {node_options}"
        );
        assert!(node_options.contains("--require "), "{node_options}");
        if options.contains("max-old-space-size") {
            assert!(
                node_options.ends_with(" --max-old-space-size=200\""),
                "other options are kept: {node_options}"
            );
        }
        let session = out.session();
        assert_eq!(session.status, Status::Exited);
        assert_eq!(
            of_kind(&session.events, Kind::Console).len(),
            2,
            "NODE_OPTIONS={options}"
        );
        assert!(
            !out.stderr().contains("Debugger listening"),
            "{}",
            out.stderr()
        );
    }
}

/// Waits for the run: the program ran to its end (it wrote `done`) and exited 0, and so did the
/// run; returns its output and session.
fn ran_to_its_end(running: crate::support::Running) -> (Output, Session) {
    let out = running.wait();
    out.assert_code(0);
    assert!(
        out.workspace().join("done").exists(),
        "the program ran to its end"
    );
    let session = out.session();
    assert_eq!(
        (session.status, session.exit_code),
        (Status::Exited, Some(0))
    );
    (out, session)
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let out = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    out.assert_code(1);
    assert!(
        !out.stderr().contains('\x1b'),
        "stderr is not a terminal: no colour\n{}",
        out.stderr()
    );
    let out = out
        .tracer()
        .args(["run", "--color", "always", "throws.js"])
        .run();
    out.assert_code(1);
    assert!(
        out.stderr().contains("\x1b["),
        "--color always colours\n{}",
        out.stderr()
    );
    let out = out
        .tracer()
        .args(["run", "--color", "never", "throws.js"])
        .run();
    out.assert_code(1);
    assert!(
        !out.stderr().contains('\x1b'),
        "--color never: no colour from tracer\n{}",
        out.stderr()
    );
}
