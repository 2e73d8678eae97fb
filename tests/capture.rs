//! What the capture records: console calls once each, values, source maps that fail, failures
//! inside `node_modules`, a program killed by a signal, the session id the program sees, colour.

use tracer::trace::event::Kind;
use tracer::trace::evidence::Confidence;
use tracer::trace::session::Status;

use crate::support::{Tracer, assert_nothing_left_running, in_a_cleared_environment, of_kind};

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
    // console.time (line 8) prints nothing and is not reported by the inspector. Levels are the
    // methods as written (the inspector says `startGroup`, `endGroup`).
    assert_eq!(
        calls,
        [
            (4, "table"),
            (5, "count"),
            (6, "group"),
            (7, "groupEnd"),
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

/// Runs `script` (with `extra` fixtures beside it), whose source map cannot be used: the trace still
/// has the generated position (line 4) and a note naming the map.
fn assert_traces_with_generated_positions(script: &str, extra: &[&str], map: &str) {
    let mut tracer = Tracer::new().fixture(script);
    for fixture in extra {
        tracer = tracer.fixture(fixture);
    }
    let out = tracer.args(["run", script]).run();
    out.assert_code(1);
    let path = out.workspace().join(script).display().to_string();
    let events = out.events();
    let exception = *of_kind(&events, Kind::Exception)
        .first()
        .expect("an exception event");
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(path.as_str()), Some(4))
    );
    assert!(
        events
            .iter()
            .any(|e| e.note.as_deref().is_some_and(|n| n.contains(map))),
        "a note says {map} could not be used"
    );
    assert_eq!(out.evidence().unwrap().failure.line, Some(4));
}

#[test]
fn a_missing_source_map_still_traces_with_generated_positions_and_a_note() {
    assert_traces_with_generated_positions("broken_map.js", &[], "missing.js.map");
}

#[test]
fn a_broken_source_map_still_traces_with_generated_positions_and_a_note() {
    assert_traces_with_generated_positions(
        "garbage_map.js",
        &["garbage_map.js.map"],
        "garbage_map.js.map",
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
fn neither_the_program_nor_its_descendants_outlive_a_killed_tracer() {
    let tmpdir = tempfile::tempdir().unwrap();
    let mut running = Tracer::new()
        .fixture("forever.js")
        .env("TMPDIR", tmpdir.path())
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
    // PR_SET_PDEATHSIG reaches the program itself; the tracer's watchdog kills the rest of its
    // process group (the `sleep` grandchild).
    assert_nothing_left_running(node, &[node, sleep]);
    // And removes the bootloader's folder, which the tracer removes at its end.
    let left = || -> Vec<_> {
        let entries = std::fs::read_dir(tmpdir.path()).unwrap();
        entries.map(|e| e.unwrap().file_name()).collect()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !left().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(left(), Vec::<std::ffi::OsString>::new(), "left in TMPDIR");
}

#[test]
fn an_es_module_graph_runs_and_its_failure_is_in_the_dependency() {
    let out = Tracer::new()
        .fixture("esm_deps/main.mjs")
        .fixture("esm_deps/dep.mjs")
        .args(["run", "--timeout", "60", "esm_deps/main.mjs"])
        .run();
    out.assert_code(1);
    let main = out
        .workspace()
        .join("esm_deps/main.mjs")
        .display()
        .to_string();
    let dep = out
        .workspace()
        .join("esm_deps/dep.mjs")
        .display()
        .to_string();
    let events = out.events();
    let logs: Vec<(&str, &str, u32)> = of_kind(&events, Kind::Console)
        .iter()
        .map(|e| {
            (
                e.value.as_deref().unwrap(),
                e.file.as_deref().unwrap(),
                e.line.unwrap(),
            )
        })
        .collect();
    assert_eq!(
        logs,
        [
            ("dep evaluated", dep.as_str(), 3),
            ("main evaluated", main.as_str(), 4)
        ]
    );
    let exception = *of_kind(&events, Kind::Exception)
        .first()
        .expect("an exception event");
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(dep.as_str()), Some(5))
    );
    let caller = exception.call_stack.get(1).expect("the caller's frame");
    assert_eq!((caller.file.as_str(), caller.line), (main.as_str(), 5));
    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.failure.message, "RangeError: value missing");
    // The failure is in dep.mjs, the closest console call in main.mjs: mapped, cause elsewhere.
    assert_eq!(evidence.confidence, Confidence::Medium);
}

#[test]
fn a_non_zero_exit_code_without_exit_is_a_failure_with_the_stderr_tail() {
    let out = Tracer::new()
        .fixture("stderr_flood.js")
        .args(["run", "stderr_flood.js"])
        .run();
    out.assert_code(1);
    let session = out.session();
    assert_eq!(
        (session.status, session.exit_code),
        (Status::Failed, Some(2))
    );
    let tail = &session.stderr_tail;
    assert!(
        tail.ends_with("stderr line 199 ...........................................\n"),
        "{tail:?}"
    );
    assert!(
        tail.chars().count() <= 4100,
        "the tail is capped near 4000 characters: {}",
        tail.chars().count()
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(
        (evidence.failure.kind, evidence.failure.exit_code),
        (Kind::Exit, Some(2))
    );
    assert!(
        evidence
            .failure
            .stderr_tail
            .as_deref()
            .is_some_and(|t| t.contains("stderr line 199"))
    );
}

#[test]
fn a_capped_stderr_tail_is_marked() {
    let out = Tracer::new()
        .fixture("stderr_flood.js")
        .args(["run", "stderr_flood.js"])
        .run();
    out.assert_code(1);
    let tail = out.session().stderr_tail;
    assert!(!tail.contains("stderr line 000"), "the start was cut");
    assert!(
        tail.contains('…'),
        "the cut is marked (like values: `…`): {:.120}",
        tail
    );
}

#[test]
fn a_small_max_events_is_still_a_maximum() {
    for max in [15u64, 20] {
        let out = Tracer::new()
            .fixture("flood.js")
            .args([
                "run",
                "--ndjson",
                "--max-events",
                &max.to_string(),
                "flood.js",
                "100",
            ])
            .run();
        out.assert_code(1);
        let streamed = out.stdout_events().len() as u64;
        let session = out.session();
        assert!(
            session.event_count <= max && session.events.len() as u64 <= max,
            "--max-events {max} kept {} events",
            session.events.len()
        );
        assert_eq!(session.dropped_events, streamed - session.event_count);
        // The evidence still has what it needs: the exception and its immediate cause.
        let evidence = out.evidence().unwrap();
        assert_eq!(evidence.failure.line, Some(8));
        assert_eq!(
            evidence.immediate_cause.and_then(|c| c.value).as_deref(),
            Some("last words before the failure")
        );
    }
}

#[test]
fn cwd_sets_the_programs_working_directory() {
    let out = Tracer::new()
        .fixture("cwd.js")
        .file("sub/.keep", "")
        .args(["run", "--cwd", "sub", "cwd.js"])
        .run();
    out.assert_code(0);
    let sub = out.workspace().join("sub");
    assert_eq!(out.stdout(), format!("cwd {}\n", sub.display()));
    assert_eq!(out.session().cwd, sub.display().to_string());
}

#[test]
fn arguments_after_a_double_dash_go_to_the_program() {
    let out = Tracer::new()
        .fixture("flood.js")
        .args(["run", "flood.js", "--", "2"])
        .run();
    out.assert_code(1);
    assert_eq!(out.session().args, ["2"]);
    assert!(
        out.stdout().starts_with("flood 0\nflood 1\nlast words"),
        "{}",
        out.dump()
    );
}

#[test]
fn a_thrown_string_from_a_timer_is_the_failure() {
    let out = Tracer::new()
        .fixture("throw_string.js")
        .args(["run", "throw_string.js"])
        .run();
    out.assert_code(1);
    let script = out
        .workspace()
        .join("throw_string.js")
        .display()
        .to_string();
    let events = out.events();
    let exception = *of_kind(&events, Kind::Exception)
        .first()
        .expect("an exception event");
    assert_eq!(exception.value.as_deref(), Some("plain string thrown"));
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(script.as_str()), Some(5))
    );
    assert_eq!(
        exception
            .call_stack
            .first()
            .map(|f| f.function_name.as_str()),
        Some("fire")
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.failure.message, "plain string thrown");
    assert_eq!(
        evidence.originating_value.as_deref(),
        Some("plain string thrown")
    );
    assert_eq!(evidence.confidence, Confidence::High);
}

#[test]
fn an_error_the_program_handles_is_no_failure() {
    let out = Tracer::new()
        .fixture("caught.js")
        .args(["run", "caught.js"])
        .run();
    out.assert_code(0);
    assert_eq!(out.stdout(), "handled: handled by the program\n");
    let session = out.session();
    assert_eq!(
        (session.status, session.exception_count),
        (Status::Exited, 0)
    );
    assert!(of_kind(&session.events, Kind::Exception).is_empty());
    assert!(out.evidence().is_none());
}

/// A workspace with the `loader/` fixtures: a tiny loader that puts 20 lines in front of `.ts` code.
fn with_loader() -> Tracer {
    [
        "hooks.mjs",
        "register.mjs",
        "order.ts",
        "main.ts",
        "main.js",
    ]
    .iter()
    .fold(Tracer::new(), |t, f| t.fixture(&format!("loader/{f}")))
}

#[test]
fn positions_under_a_loader_use_the_source_map_the_runtime_knows() {
    // `NODE_OPTIONS="--import tsx" tracer run src/main.ts`, with a loader of our own: its map is
    // known to the runtime only (inline in the transformed code), not in the file on disk.
    let out = with_loader()
        .env("NODE_OPTIONS", "--import ./loader/register.mjs")
        .args(["run", "loader/main.ts"])
        .run();
    out.assert_code(0);
    let order = out
        .workspace()
        .join("loader/order.ts")
        .display()
        .to_string();
    let events = out.events();
    let log = *of_kind(&events, Kind::Console)
        .first()
        .expect("the console call");
    assert_eq!(
        (log.file.as_deref(), log.line, log.column),
        (Some(order.as_str()), Some(3), Some(11)),
        "{log:?}"
    );
    assert_eq!(log.generated.as_ref().map(|g| g.line), Some(23));
}

#[test]
fn a_transformed_position_with_no_known_map_is_unmapped_never_confidently_wrong() {
    // A plain `.js` entry registers the loader itself, and the loader writes no map: the runtime's
    // positions (20 lines down) are not lines of the file on disk.
    let out = with_loader()
        .env("LOADER_NO_MAP", "1")
        .args(["run", "loader/main.js"])
        .run();
    out.assert_code(1);
    let order = out
        .workspace()
        .join("loader/order.ts")
        .display()
        .to_string();
    let events = out.events();
    let log = *of_kind(&events, Kind::Console).first().unwrap();
    assert_eq!(log.file.as_deref(), Some(order.as_str()));
    assert_eq!((log.line, log.column), (None, None), "{log:?}");
    assert_eq!(log.generated.as_ref().map(|g| g.line), Some(23));
    assert!(log.note.as_deref().is_some_and(|n| n.contains("unmapped")));
    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.failure.message, "Error: no pears today");
    assert_eq!(evidence.failure.line, None, "{:?}", evidence.failure);
    assert_eq!(evidence.failure.source_line, None);
    assert_eq!(evidence.confidence, Confidence::Low);
    assert!(
        out.stderr().contains("position unmapped"),
        "{}",
        out.stderr()
    );
}

#[test]
fn a_syntax_error_keeps_its_class_and_position() {
    // Node prints `syntax.js:3` and `SyntaxError: Identifier 'a' has already been declared`.
    for script in ["syntax.js", "syntax.mjs"] {
        let out = Tracer::new().fixture(script).args(["run", script]).run();
        out.assert_code(1);
        let file = out.workspace().join(script).display().to_string();
        let evidence = out.evidence().unwrap();
        let failure = &evidence.failure;
        assert_eq!(
            failure.message, "SyntaxError: Identifier 'a' has already been declared",
            "{script}"
        );
        assert_eq!(
            (failure.file.as_deref(), failure.line, failure.column),
            (Some(file.as_str()), Some(3), Some(7)),
            "{script}"
        );
        assert_eq!(failure.source_line.as_deref(), Some("const a = 2;"));
    }
}

#[test]
fn console_values_and_thrown_objects_read_as_node_prints_them() {
    let out = Tracer::new()
        .fixture("formatting.js")
        .args(["run", "formatting.js"])
        .run();
    out.assert_code(1);
    assert!(
        out.stdout().contains("cart has 3 items"),
        "node itself: {}",
        out.dump()
    );
    let events = out.events();
    let console: Vec<(&str, Option<&str>, Option<&str>)> = of_kind(&events, Kind::Console)
        .iter()
        .map(|e| (e.detail.as_str(), e.level.as_deref(), e.value.as_deref()))
        .collect();
    assert_eq!(
        console,
        [
            ("console.log", Some("log"), Some("cart has 3 items")),
            (
                "console.warn",
                Some("warn"),
                Some("careful: 'x' left { a: 1 }")
            ),
        ]
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(
        evidence.failure.message,
        "{ code: 42, msg: 'not an error' }"
    );
    assert_eq!(
        evidence.originating_value.as_deref(),
        Some("{ code: 42, msg: 'not an error' }")
    );
    assert_eq!(evidence.failure.line, Some(5));
}

#[test]
fn a_failure_deep_inside_a_library_names_the_users_own_frame() {
    // js-yaml's way: an error-like object whose captured stack reaches the user's top level only
    // in the text Node prints; the preview the inspector sends elides the middle of it.
    let out = Tracer::new()
        .fixture("uses_yamlish.js")
        .fixture_as("yamlish.js", "node_modules/yamlish/index.js")
        .args(["run", "--annotations", "github", "uses_yamlish.js"])
        .run();
    out.assert_code(1);
    let lib = out
        .workspace()
        .join("node_modules/yamlish/index.js")
        .display()
        .to_string();
    let app = out
        .workspace()
        .join("uses_yamlish.js")
        .display()
        .to_string();
    let evidence = out.evidence().unwrap();
    assert!(
        evidence
            .failure
            .message
            .starts_with("YAMLException: unexpected end of the stream"),
        "{}",
        evidence.failure.message
    );
    assert_eq!(
        (evidence.failure.file.as_deref(), evidence.failure.line),
        (Some(lib.as_str()), Some(14))
    );
    let user = evidence
        .failure
        .user_frame
        .as_ref()
        .unwrap_or_else(|| panic!("the user's own frame is named\n{}", out.dump()));
    assert_eq!((user.file.as_str(), user.line), (app.as_str(), 7));
    assert!(
        out.stdout()
            .lines()
            .any(|l| l.starts_with("::error file=uses_yamlish.js,line=7,")),
        "the annotation goes on the user's line\n{}",
        out.stdout()
    );
}

#[test]
fn a_clis_non_zero_exit_reads_its_printed_error_position() {
    let out = Tracer::new()
        .fixture_as("cli/tsc_like.js", "tsc_like.js")
        .fixture_as("cli/index.ts", "src/index.ts")
        .args(["run", "tsc_like.js", "-p", "."])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().expect("exit 2 is a failure");
    let failure = &evidence.failure;
    let index = out.workspace().join("src/index.ts").display().to_string();
    assert_eq!(failure.kind, Kind::Exit);
    assert_eq!(failure.exit_code, Some(2));
    assert!(
        failure.message.contains("error TS2322"),
        "{}",
        failure.message
    );
    assert_eq!(
        (failure.file.as_deref(), failure.line, failure.column),
        (Some(index.as_str()), Some(2), Some(7))
    );
    assert_eq!(
        failure.source_line.as_deref(),
        Some("const n: number = \"seven\";")
    );
    assert!(
        failure
            .note
            .as_deref()
            .is_some_and(|n| n.contains("read from the program's stdout")),
        "{failure:?}"
    );
    assert_eq!(evidence.confidence, Confidence::Medium);
    assert!(
        evidence.confidence_basis.contains("printed"),
        "{}",
        evidence.confidence_basis
    );
}

/// A bundler that prints its error on one line and the position on the next (esbuild's
/// `✘ [ERROR] Could not resolve "./missing"`, then `    src/main.js:5:14:`): the failure says what
/// failed and where, not the position alone.
#[test]
fn a_bundlers_error_line_above_its_position_is_the_failures_message() {
    let out = Tracer::new()
        .file("src/main.js", "const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\nimport x from \"./missing\";\n")
        .file(
            "build.js",
            "// esbuild's report of an import it cannot resolve, on stderr; exit 1.\n\
             process.stderr.write('✘ [ERROR] Could not resolve \"./missing\"\\n\\n    src/main.js:5:14:\\n      5 │ import x from \"./missing\";\\n\\n1 error\\n');\n\
             process.exitCode = 1;\n",
        )
        .args(["run", "build.js"])
        .run();
    out.assert_code(1);
    let failure = out.evidence().unwrap().failure;
    assert!(
        failure
            .message
            .contains("[ERROR] Could not resolve \"./missing\" (src/main.js:5:14)"),
        "{}",
        failure.message
    );
    assert_eq!((failure.line, failure.column), (Some(5), Some(14)));
}

/// webpack's report of a missing import: `ERROR in ./src/main.js 5:0-26` (a 0-based column), then
/// `Module not found: …` under it: both are the failure's message, the heading its site.
#[test]
fn webpacks_error_heading_is_the_site_and_the_line_under_it_the_message() {
    let out = Tracer::new()
        .file("src/main.js", "const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\nimport x from \"./missing\";\n")
        .file(
            "build.js",
            "// webpack's report of a missing import, on stdout; exit 1.\n\
             console.log(\"ERROR in ./src/main.js 5:0-26\\nModule not found: Error: Can't resolve './missing' in 'src'\\n\\nwebpack compiled with 1 error\");\n\
             process.exitCode = 1;\n",
        )
        .args(["run", "build.js"])
        .run();
    out.assert_code(1);
    let failure = out.evidence().unwrap().failure;
    assert!(
        failure.message.contains(
            "ERROR in ./src/main.js 5:0-26: Module not found: Error: Can't resolve './missing'"
        ),
        "{}",
        failure.message
    );
    assert!(failure.file.as_deref().unwrap().ends_with("src/main.js"));
    assert_eq!((failure.line, failure.column), (Some(5), Some(1)));
}

#[test]
fn a_test_runners_printed_stack_is_the_site_of_its_failing_exit() {
    let out = Tracer::new()
        .fixture_as("cli/runner_like.js", "math.test.js")
        .args(["run", "math.test.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let failure = &evidence.failure;
    let test = out.workspace().join("math.test.js").display().to_string();
    assert_eq!(
        (failure.file.as_deref(), failure.line),
        (Some(test.as_str()), Some(7)),
        "{failure:?}"
    );
    assert!(
        failure.message.contains("AssertionError"),
        "{}",
        failure.message
    );
    assert_eq!(evidence.confidence, Confidence::Medium);
}

#[test]
fn a_linters_two_line_report_is_read_as_the_failures_site() {
    let out = Tracer::new()
        .fixture_as("cli/eslint_like.js", "eslint_like.js")
        .fixture_as("cli/index.ts", "src/index.ts")
        .args(["run", "eslint_like.js", "src"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let failure = &evidence.failure;
    let index = out.workspace().join("src/index.ts").display().to_string();
    assert_eq!(
        (failure.file.as_deref(), failure.line, failure.column),
        (Some(index.as_str()), Some(2), Some(7)),
        "{failure:?}"
    );
    assert!(
        failure.message.contains("no-unused-vars"),
        "{}",
        failure.message
    );
    assert_eq!(evidence.confidence, Confidence::Medium);
}

/// An exception's frames do not depend on its stack text: a program whose own
/// `Error.prepareStackTrace` prints no frame still gets the whole call stack, from V8's structured
/// capture (deep while the program logs little).
#[test]
fn an_exception_gets_its_frames_even_when_its_stack_text_has_none() {
    let out = Tracer::new()
        .fixture("prepare_stack.js")
        .args(["run", "prepare_stack.js"])
        .run();
    out.assert_code(1);
    let events = out.events();
    let exception = of_kind(&events, Kind::Exception)[0];
    assert_eq!(
        exception.error_message.as_deref(),
        Some("Error: deep failure past 3 (no frames here)")
    );
    let frames: Vec<(&str, u32)> = exception
        .call_stack
        .iter()
        .map(|f| (f.function_name.as_str(), f.line))
        .collect();
    assert_eq!(
        frames,
        [("inner", 8), ("middle", 10), ("outer", 11), ("", 12)],
        "{}",
        out.dump()
    );
    assert!(
        exception
            .call_stack
            .iter()
            .all(|f| f.file.ends_with("prepare_stack.js"))
    );
    assert_eq!((exception.line, exception.column), (Some(8), Some(9)));
    // A console event still names its call site only.
    let console = of_kind(&events, Kind::Console)[0];
    assert_eq!(console.call_stack.len(), 1, "{:?}", console.call_stack);
}

#[test]
fn the_console_captured_through_the_bootloader_is_node_s_own_as_the_program_sees_it() {
    // Every console property, the frames of an error thrown while formatting, what
    // console.trace prints, the globals: the same under tracer as under plain node.
    let tracer = Tracer::new().fixture("console_unseen.js");
    let plain_file = tracer.workspace().join("plain.txt");
    let plain = in_a_cleared_environment("node")
        .arg("console_unseen.js")
        .arg(&plain_file)
        .current_dir(tracer.workspace())
        .output()
        .unwrap();
    assert!(plain.status.success(), "{plain:?}");
    let out = tracer
        .args(["run", "console_unseen.js", "traced.txt"])
        .run();
    out.assert_code(0);
    let plain = std::fs::read_to_string(&plain_file).unwrap();
    let traced = std::fs::read_to_string(out.workspace().join("traced.txt")).unwrap();
    assert_eq!(plain, traced, "{}", out.dump());
    // The trace has the calls, each once, with the text Node printed (console.trace's with its
    // stack), without the group's indentation.
    let events = out.events();
    let calls: Vec<(&str, &str)> = of_kind(&events, Kind::Console)
        .iter()
        .map(|e| (e.level.as_deref().unwrap(), e.value.as_deref().unwrap()))
        .collect();
    assert_eq!(calls[0], ("group", "outer"), "{calls:?}");
    assert_eq!(calls[1].0, "trace");
    assert!(calls[1].1.starts_with("Trace: here\n    at "), "{calls:?}");
    assert_eq!(
        calls[2..],
        [("groupEnd", "console.groupEnd"), ("log", "after")]
    );
}

#[test]
fn the_bootloader_makes_no_deprecation_warning_where_node_would_throw_one() {
    // The bootloader opens the inspector through Node's binding (not the `inspector` module),
    // except under --pending-deprecation, where that would warn (DEP0111): with
    // --throw-deprecation any warning of tracer's would end the program.
    let out = Tracer::new()
        .file("warned.js", "console.log('ran');\n")
        .env("NODE_OPTIONS", "--pending-deprecation --throw-deprecation")
        .args(["run", "warned.js"])
        .run();
    out.assert_code(0);
    assert!(!out.stderr().contains("DEP0111"), "{}", out.dump());
    let events = out.events();
    let values: Vec<&str> = of_kind(&events, Kind::Console)
        .iter()
        .filter_map(|e| e.value.as_deref())
        .collect();
    assert_eq!(values, ["ran"], "{}", out.dump());
    assert_eq!(
        out.session()
            .capabilities
            .node_version
            .as_deref()
            .map(|v| v.starts_with('v')),
        Some(true)
    );
}

#[test]
fn the_console_capture_is_built_without_changing_the_console() {
    // The bootloader builds its capture while tracer attaches and puts it in place only after
    // the release: building it must leave the console as it was. scripts/console-capture-cost.js
    // (a line of scripts/bench.sh) builds it twice from src/inspector/bootloader/console.js, checks that, and
    // prints what it cost.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = in_a_cleared_environment("node")
        .arg(root.join("scripts/console-capture-cost.js"))
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shape = regex::Regex::new(
        r"^first call \d+ us \(to its first statement \d+ us\), second call \d+ us\n$",
    )
    .unwrap();
    assert!(shape.is_match(&stdout), "{stdout}");
}

#[test]
fn console_values_are_the_text_node_printed() {
    let out = Tracer::new()
        .file(
            "printed.js",
            "console.log([1, 2], { a: [ { b: 1 } ] });\n\
             console.table([{ a: 1 }]);\n\
             console.dir({ deep: { er: 1 } }, { depth: 0 });\n\
             console.assert(false, 'nope %d', 3);\n\
             console.log();\n",
        )
        .args(["run", "printed.js"])
        .run();
    out.assert_code(0);
    let events = out.events();
    let values: Vec<(u32, &str)> = of_kind(&events, Kind::Console)
        .iter()
        .map(|e| (e.line.unwrap(), e.value.as_deref().unwrap()))
        .collect();
    assert_eq!(
        values,
        [
            (1, "[ 1, 2 ] { a: [ { b: 1 } ] }"),
            (
                2,
                "┌─────────┬───┐\n│ (index) │ a │\n├─────────┼───┤\n│ 0       │ 1 │\n└─────────┴───┘"
            ),
            (3, "{ deep: [Object] }"),
            (4, "Assertion failed: nope 3"),
            (5, ""),
        ],
        "{}",
        out.dump()
    );
}

#[test]
fn a_console_flood_loses_no_call_and_every_call_comes_before_the_failure() {
    let out = Tracer::new()
        .fixture("console_flood_then_throw.js")
        .args([
            "run",
            "--max-events",
            "50000",
            "console_flood_then_throw.js",
        ])
        .run();
    out.assert_code(1);
    let session = out.session();
    assert_eq!(session.dropped_events, 0);
    let events = &session.events;
    let console = of_kind(events, Kind::Console);
    // 20 000 in the loop, the warning, and the 'exit' listener's line.
    assert_eq!(console.len(), 20_002, "{}", out.dump());
    for (i, event) in console[..20_000].iter().enumerate() {
        assert_eq!(event.value.as_deref(), Some(format!("line {i}").as_str()));
        assert_eq!(event.line, Some(5));
    }
    assert_eq!(console[20_000].level.as_deref(), Some("warn"));
    assert_eq!(console[20_001].value.as_deref(), Some("exiting with 1"));
    let exception = of_kind(events, Kind::Exception)[0];
    assert_eq!(exception.line, Some(9));
    assert!(
        console
            .iter()
            .all(|c| c.id < exception.id && c.ts <= exception.ts)
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.failure.line, Some(9));
}

#[test]
fn the_inspector_s_own_console_reports_order_the_same_calls_the_same_way() {
    // TRACER_CONSOLE_CAPTURE=inspector: one protocol message per call, as before the bootloader
    // recorded the console. Same calls, same order, same places.
    let run = |inspector: bool| {
        let mut tracer = Tracer::new().fixture("console_twice.js");
        if inspector {
            tracer = tracer.env("TRACER_CONSOLE_CAPTURE", "inspector");
        }
        let out = tracer.args(["run", "console_twice.js"]).run();
        out.assert_code(0);
        of_kind(&out.events(), Kind::Console)
            .iter()
            .map(|e| {
                let file = e.file.as_deref().unwrap_or("");
                let file = file.rsplit('/').next().unwrap_or("").to_owned();
                (e.detail.clone(), e.line, e.column, file)
            })
            .collect::<Vec<_>>()
    };
    let batched = run(false);
    assert_eq!(batched.len(), 8);
    assert_eq!(batched, run(true));
}

#[test]
fn a_program_that_freezes_error_still_has_its_console_calls_and_their_places() {
    // The bootloader takes call sites by setting Error.prepareStackTrace for a moment; frozen, it
    // reads the stack's text instead.
    let out = Tracer::new()
        .file(
            "frozen.js",
            "console.log('before');\n\
             Object.freeze(Error);\n\
             console.log('after');\n\
             console.warn('warned');\n",
        )
        .args(["run", "frozen.js"])
        .run();
    out.assert_code(0);
    assert_eq!(out.stdout(), "before\nafter\n");
    let events = out.events();
    let calls: Vec<(&str, Option<u32>)> = of_kind(&events, Kind::Console)
        .iter()
        .map(|e| (e.value.as_deref().unwrap_or(""), e.line))
        .collect();
    assert_eq!(
        calls,
        [("before", Some(1)), ("after", Some(3)), ("warned", Some(4))],
        "{}",
        out.dump()
    );
}
