//! What the capture records: console calls once each (through the bootloader's capture, as Node
//! prints them, in a flood too), values, exceptions and their frames, the stderr tail, the event
//! cap.

use tracer::trace::event::Kind;
use tracer::trace::evidence::Confidence;
use tracer::trace::session::Status;

use crate::support::{Tracer, in_a_cleared_environment, of_kind};

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
fn a_stack_taken_while_the_console_prints_is_node_s_own_frame_for_frame() {
    // In a replaced stdout.write / stderr.write, for every method that prints, in a write that
    // throws and in an error thrown while a value is formatted: the same frames at the same
    // positions under tracer as under plain node, and Node's internal write function is Node's
    // own. (The bootloader's recording once added a frame of its file between Node's two.)
    let tracer = Tracer::new().fixture("console_frames.js");
    let plain_file = tracer.workspace().join("plain.txt");
    let plain = in_a_cleared_environment("node")
        .arg("console_frames.js")
        .arg(&plain_file)
        .current_dir(tracer.workspace())
        .output()
        .unwrap();
    assert!(plain.status.success(), "{plain:?}");
    let out = tracer
        .args(["run", "console_frames.js", "traced.txt"])
        .run();
    out.assert_code(0);
    let plain = std::fs::read_to_string(&plain_file).unwrap();
    let traced = std::fs::read_to_string(out.workspace().join("traced.txt")).unwrap();
    assert!(plain.contains("at console.value (node:internal/console/constructor:"));
    assert_eq!(plain, traced, "{}", out.dump());
    // Recorded all the same, each at the program's own line.
    let events = out.events();
    let calls: Vec<(&str, &str, Option<u32>)> = of_kind(&events, Kind::Console)
        .iter()
        .map(|e| {
            (
                e.level.as_deref().unwrap(),
                e.value.as_deref().unwrap(),
                e.line,
            )
        })
        .collect();
    assert_eq!(calls[0], ("log", "log", Some(19)), "{calls:?}");
    assert_eq!(calls[4], ("warn", "warn", Some(23)), "{calls:?}");
    assert_eq!(calls[5], ("dir", "{ a: 1 }", Some(24)), "{calls:?}");
    assert!(calls.contains(&("log", "lost", Some(35))), "{calls:?}");
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

#[test]
fn a_program_s_own_error_hooks_are_neither_called_nor_left_changed_by_the_console_capture() {
    // `Error.prepareStackTrace` and `Error.stackTraceLimit` as accessors are a known way for a
    // program to notice that something formats stacks: the capture takes each console call's
    // site without calling them, and leaves them as they were.
    let program = "let calls = 0;\n\
        Object.defineProperty(Error, 'stackTraceLimit', { get() { calls++; return 10; }, set() { calls++; }, configurable: true });\n\
        Object.defineProperty(Error, 'prepareStackTrace', { get() { calls++; return undefined; }, configurable: true });\n\
        console.log('first');\n\
        console.warn('second');\n\
        const kinds = ['prepareStackTrace', 'stackTraceLimit'].map((k) => typeof Object.getOwnPropertyDescriptor(Error, k).get);\n\
        console.log(`calls ${calls} ${kinds.join(',')}`);\n";
    let tracer = Tracer::new().file("hooks.js", program);
    let plain = in_a_cleared_environment("node")
        .arg("hooks.js")
        .current_dir(tracer.workspace())
        .output()
        .unwrap();
    assert!(plain.status.success(), "{plain:?}");
    let plain = String::from_utf8_lossy(&plain.stdout).into_owned();
    assert_eq!(plain, "first\ncalls 0 function,function\n");
    let out = tracer.args(["run", "hooks.js"]).run();
    out.assert_code(0);
    assert_eq!(out.stdout(), plain, "{}", out.dump());
    let events = out.events();
    let calls: Vec<(&str, Option<u32>)> = of_kind(&events, Kind::Console)
        .iter()
        .map(|e| (e.value.as_deref().unwrap(), e.line))
        .collect();
    assert_eq!(
        calls,
        [
            ("first", Some(4)),
            ("second", Some(5)),
            ("calls 0 function,function", Some(7))
        ],
        "each call at the program's own line"
    );
}
