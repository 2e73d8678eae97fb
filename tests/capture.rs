//! What the capture records: console calls once each, values, source maps that fail, failures
//! inside `node_modules`, a program killed by a signal, the session id the program sees, colour.

use tracer::trace::event::Kind;
use tracer::trace::evidence::Confidence;
use tracer::trace::session::Status;

use crate::support::{Tracer, alive, of_kind};

#[test]
fn console_methods_node_reports_twice_are_recorded_once() {
    let out = Tracer::new()
        .fixture("console_twice.js")
        .args(["run", "console_twice.js"])
        .run();
    out.assert_code(0);
    let events = out.events();
    let calls: Vec<(u32, &str)> = of_kind(&events, Kind::Console)
        .iter()
        .map(|e| (e.line.unwrap(), e.level.as_deref().unwrap()))
        .collect();
    // console.time (line 8) prints nothing and is not reported by the inspector.
    assert_eq!(
        calls,
        [
            (4, "table"),
            (5, "count"),
            (6, "startGroup"),
            (7, "endGroup"),
            (9, "timeEnd"),
            (10, "assert"),
            (11, "trace"),
            (12, "log")
        ]
    );
}

#[test]
fn values_without_a_json_form_are_rendered() {
    let out = Tracer::new()
        .fixture("values.js")
        .args(["run", "values.js"])
        .run();
    out.assert_code(0);
    let events = out.events();
    let console = *of_kind(&events, Kind::Console)
        .first()
        .expect("a console event");
    assert_eq!(
        console.value.as_deref(),
        Some("NaN -0 10n null undefined true text 1.5")
    );
    assert!(!console.truncated);
}

#[test]
fn a_missing_source_map_still_traces_with_generated_positions_and_a_note() {
    let out = Tracer::new()
        .fixture("broken_map.js")
        .args(["run", "broken_map.js"])
        .run();
    out.assert_code(1);
    let script = out.workspace().join("broken_map.js").display().to_string();
    let events = out.events();
    let exception = *of_kind(&events, Kind::Exception)
        .first()
        .expect("an exception event");
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(script.as_str()), Some(4))
    );
    assert!(
        events.iter().any(|e| e
            .note
            .as_deref()
            .is_some_and(|n| n.contains("missing.js.map"))),
        "a note says the map could not be used"
    );
    assert_eq!(out.evidence().unwrap().failure.line, Some(4));
}

#[test]
fn a_broken_source_map_still_traces_with_generated_positions_and_a_note() {
    let out = Tracer::new()
        .fixture("garbage_map.js")
        .fixture("garbage_map.js.map")
        .args(["run", "garbage_map.js"])
        .run();
    out.assert_code(1);
    let script = out.workspace().join("garbage_map.js").display().to_string();
    let events = out.events();
    let exception = *of_kind(&events, Kind::Exception)
        .first()
        .expect("an exception event");
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(script.as_str()), Some(4))
    );
    assert!(
        events.iter().any(|e| e
            .note
            .as_deref()
            .is_some_and(|n| n.contains("garbage_map.js.map"))),
        "a note says the map is broken"
    );
}

#[test]
fn a_failure_inside_node_modules_names_the_users_own_frame() {
    let out = Tracer::new()
        .fixture("uses_lib.js")
        .fixture_as("lib.js", "node_modules/lib/index.js")
        .args(["run", "uses_lib.js"])
        .run();
    out.assert_code(1);
    let lib = out
        .workspace()
        .join("node_modules/lib/index.js")
        .display()
        .to_string();
    let app = out.workspace().join("uses_lib.js").display().to_string();
    let evidence = out.evidence().unwrap();
    assert_eq!(
        (evidence.failure.file.as_deref(), evidence.failure.line),
        (Some(lib.as_str()), Some(4))
    );
    let user = evidence
        .failure
        .user_frame
        .as_ref()
        .expect("the user's own frame is named");
    assert_eq!((user.file.as_str(), user.line), (app.as_str(), 5));
    assert_eq!(
        evidence
            .immediate_cause
            .as_ref()
            .and_then(|c| c.value.as_deref()),
        Some("parsing")
    );
    assert_eq!(evidence.confidence, Confidence::High);
}

#[test]
fn the_program_sees_its_session_id() {
    let out = Tracer::new()
        .fixture("session_env.js")
        .args(["run", "session_env.js"])
        .run();
    out.assert_code(0);
    assert_eq!(out.stdout(), format!("session {}\n", out.latest_id()));
}

#[test]
fn a_program_killed_by_a_signal_fails_with_that_signal() {
    let out = Tracer::new()
        .fixture("self_kill.js")
        .args(["run", "self_kill.js"])
        .run();
    out.assert_code(1);
    let session = out.session();
    assert_eq!(session.status, Status::Failed);
    assert_eq!(
        (session.exit_code, session.signal.as_deref()),
        (None, Some("SIGKILL"))
    );
    let exit = session.events.last().unwrap();
    assert_eq!(
        (exit.kind, exit.signal.as_deref()),
        (Kind::Exit, Some("SIGKILL"))
    );
    let evidence = out.evidence().expect("a killed program has evidence");
    assert_eq!(
        (evidence.failure.kind, evidence.failure.signal.as_deref()),
        (Kind::Exit, Some("SIGKILL"))
    );

    let child = out
        .tracer()
        .args(["run", "--exit-code", "child", "self_kill.js"])
        .run();
    child.assert_code(137);
}

#[test]
fn exit_code_child_after_an_uncaught_exception_is_1() {
    let out = Tracer::new()
        .fixture("throws.js")
        .args(["run", "--exit-code", "child", "throws.js"])
        .run();
    out.assert_code(1);
    assert_eq!(out.session().exit_code, Some(1));
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

#[test]
fn the_program_does_not_outlive_a_killed_tracer() {
    let mut running = Tracer::new()
        .fixture("forever.js")
        .args(["run", "forever.js"])
        .spawn();
    let line = running.wait_for_stdout_line("pids");
    let mut words = line
        .split_whitespace()
        .skip(1)
        .map(|w| w.parse::<u32>().unwrap());
    let (node, sleep) = (words.next().unwrap(), words.next().unwrap());
    running.wait_for_stdout_line("ready");
    running.signal(libc::SIGKILL);
    let out = running.wait();
    assert!(out.code_or_signal().is_err(), "the tracer was killed");
    // PR_SET_PDEATHSIG reaches the program itself (its descendants only where a PID namespace is
    // available, which this test does not require). Wait a little for the kernel's kill to land.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while alive(node) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let survived = alive(node);
    for pid in [node, sleep] {
        // SAFETY: kill(2) on pids the program printed; cleanup only.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    assert!(
        !survived,
        "node (pid {node}) outlived the tracer killed with SIGKILL"
    );
}
