//! `tracer run` on programs that fail (and one that does not): events, positions, evidence, exit codes.

use tracer::trace::event::{Event, Kind, Stream};
use tracer::trace::evidence::Confidence;
use tracer::trace::session::Status;

use crate::support::{Tracer, event_paths, evidence_paths, of_kind, output_lines};

/// No frame Node owns (`node:…`, `internal/…`) is ever shown as a position.
#[track_caller]
fn assert_only_user_paths(events: &[Event], evidence: Option<&tracer::trace::evidence::Evidence>) {
    let mut paths: Vec<String> = events.iter().flat_map(event_paths).collect();
    if let Some(evidence) = evidence {
        paths.extend(evidence_paths(evidence));
    }
    for path in paths {
        assert!(
            !path.starts_with("node:") && !path.contains("internal/") && path.starts_with('/'),
            "a position names {path:?}: only absolute paths of user files may appear"
        );
    }
}

#[test]
fn scripts_records_the_script_events_of_every_process_a_command_starts() {
    // `--scripts` once paid for the Debugger domain in a command's processes and recorded the
    // script events of the program's alone (none under `sh -c`, `npm test`).
    let out = Tracer::new()
        .file("app.js", "console.log('hi');\n")
        .args(["run", "--scripts", "--", "sh", "-c", "node app.js"])
        .run();
    out.assert_code(0);
    let script = out.workspace().join("app.js").display().to_string();
    let events = out.events();
    let scripts = of_kind(&events, Kind::Script);
    let app = scripts
        .iter()
        .find(|e| e.file.as_deref() == Some(script.as_str()))
        .unwrap_or_else(|| panic!("no script event for {script}: {events:#?}"));
    assert_eq!(app.worker.as_deref(), Some("child 1"), "{app:?}");
    // Without the flag, none.
    let without = out
        .tracer()
        .args(["run", "--", "sh", "-c", "node app.js"])
        .run();
    assert!(of_kind(&without.events(), Kind::Script).is_empty());
}

#[test]
fn a_long_argument_is_cut_with_a_mark_and_a_process_is_described_on_one_line() {
    // c8 runs its watchdog as `node -e` and a 20-line script: the summary's process line spanned
    // 7 lines, and the session cut the script at 200 characters without saying so.
    let script = format!("process.exit(3)\n//{}\n", "x".repeat(300));
    let out = Tracer::new()
        .args(["run", "--", "sh", "-c", "node -e \"$0\"", &script])
        .run();
    out.assert_code(1);
    let session = out.session();
    let node = session
        .processes
        .iter()
        .find(|p| p.exec_argv.first().map(String::as_str) == Some("-e"))
        .unwrap_or_else(|| panic!("{:#?}", session.processes));
    let cut = &node.exec_argv[1];
    assert!(cut.ends_with('…') && cut.chars().count() == 200, "{cut}");
    let line = out
        .stderr()
        .lines()
        .find(|l| l.contains("node -e"))
        .unwrap_or_else(|| panic!("{}", out.stderr()))
        .to_owned();
    assert!(
        line.contains("process.exit(3)\\n//xxx") && line.contains("exited with 3"),
        "{line}"
    );
}

#[test]
fn a_script_that_logs_twice_then_throws() {
    let out = Tracer::new()
        .fixture("throws.js")
        .args(["run", "--scripts", "throws.js"])
        .run();
    out.assert_code(1);
    let script = out.workspace().join("throws.js").display().to_string();

    let session = out.session();
    assert_eq!(session.status, Status::Failed);
    assert_eq!(session.exit_code, Some(1));
    assert_eq!(session.exception_count, 1);
    assert_eq!(session.target, script);
    assert_eq!(session.event_count as usize, session.events.len());
    assert_eq!(session.dropped_events, 0);

    let events = &session.events;
    assert!(
        of_kind(events, Kind::Script)
            .iter()
            .any(|e| e.file.as_deref() == Some(script.as_str())),
        "no script event for {script}"
    );
    // tracer's own bootloader is no script of the user's: no event, stack or site names it.
    let text = serde_json::to_string(&session).unwrap();
    assert!(!text.contains("tracer-boot-"), "{text}");
    assert!(
        of_kind(events, Kind::Script)
            .iter()
            .all(|e| e.file.as_deref() == Some(script.as_str())),
        "{events:#?}"
    );
    let console: Vec<_> = of_kind(events, Kind::Console)
        .iter()
        .map(|e| {
            (
                e.value.clone().unwrap(),
                e.level.clone().unwrap(),
                e.file.clone().unwrap(),
                e.line.unwrap(),
            )
        })
        .collect();
    assert_eq!(
        console,
        [
            ("starting 1".to_owned(), "log".to_owned(), script.clone(), 3),
            (
                "answer is 42".to_owned(),
                "log".to_owned(),
                script.clone(),
                5
            ),
        ]
    );
    let exceptions = of_kind(events, Kind::Exception);
    assert_eq!(exceptions.len(), 1);
    let exception = exceptions[0];
    assert_eq!(
        exception.error_message.as_deref(),
        Some("Error: boom: answer was 42")
    );
    assert_eq!(exception.file.as_deref(), Some(script.as_str()));
    // `throw new Error(…)` on line 6: V8 puts the error at `new`, column 7 (1-based).
    assert_eq!((exception.line, exception.column), (Some(6), Some(7)));
    let exit = events.last().unwrap();
    assert_eq!((exit.kind, exit.exit_code), (Kind::Exit, Some(1)));

    let evidence = out.evidence().expect("a failed run has evidence");
    let failure = &evidence.failure;
    assert_eq!(failure.kind, Kind::Exception);
    assert_eq!(failure.file.as_deref(), Some(script.as_str()));
    assert!(
        failure
            .file
            .as_deref()
            .unwrap()
            .starts_with(out.workspace().to_str().unwrap())
    );
    assert_eq!(failure.line, Some(6));
    assert_eq!(
        failure.source_line.as_deref(),
        Some("throw new Error(\"boom: answer was \" + answer);")
    );
    assert_eq!(failure.message, "Error: boom: answer was 42");
    let cause = evidence
        .immediate_cause
        .as_ref()
        .expect("an immediate cause");
    assert_eq!(
        (cause.value.as_deref(), cause.line),
        (Some("answer is 42"), Some(5))
    );
    assert!(
        evidence
            .previous_state_transitions
            .iter()
            .any(|s| s.value.as_deref() == Some("starting 1"))
    );
    assert_eq!(evidence.confidence, Confidence::High);
    assert!(
        evidence.caveat.contains("correlation, not proof"),
        "caveat: {}",
        evidence.caveat
    );
    assert!(
        evidence
            .originating_value
            .as_deref()
            .unwrap()
            .starts_with("Error: boom: answer was 42")
    );
    assert_eq!(evidence.relevant_input.target, script);

    assert_only_user_paths(events, Some(&evidence));
    // The human summary on stderr points at the failing line.
    assert!(out.stderr().contains("throws.js:6"), "{}", out.dump());
}

#[test]
fn a_clean_run_exits_0_with_null_evidence() {
    let out = Tracer::new().fixture("ok.js").args(["run", "ok.js"]).run();
    out.assert_code(0);
    assert_eq!(out.stdout(), "all good\n");
    let session = out.session();
    assert_eq!(session.status, Status::Exited);
    assert_eq!(
        (
            session.exit_code,
            session.signal.as_deref(),
            session.exception_count
        ),
        (Some(0), None, 0)
    );
    assert!(out.evidence().is_none());
    let raw = std::fs::read_to_string(out.session_dir().join("evidence.json")).unwrap();
    assert_eq!(raw.trim(), "null");
    assert!(
        of_kind(&session.events, Kind::Console)
            .iter()
            .any(|e| e.value.as_deref() == Some("all good"))
    );
    assert_eq!(output_lines(&session.events, Stream::Stdout), ["all good"]);
    assert_eq!(session.capabilities.replay, "timeline");
    assert!(session.capabilities.inspector);
    assert!(
        session
            .capabilities
            .node_version
            .as_deref()
            .is_some_and(|v| v.starts_with('v'))
    );
}

#[test]
fn a_typescript_failure_points_at_the_ts_line_and_keeps_the_generated_one() {
    let out = Tracer::new()
        .fixture("ts/app.ts")
        .fixture("ts/app.js")
        .fixture("ts/app.js.map")
        .args(["run", "ts/app.js"])
        .run();
    out.assert_code(1);
    let ts = out.workspace().join("ts/app.ts").display().to_string();
    let js = out.workspace().join("ts/app.js").display().to_string();

    let session = out.session();
    assert!(session.capabilities.source_mapping);
    let exception = *of_kind(&session.events, Kind::Exception)
        .first()
        .expect("an exception event");
    assert_eq!(exception.file.as_deref(), Some(ts.as_str()));
    assert_eq!(exception.line, Some(20));
    let generated = exception
        .generated
        .as_ref()
        .expect("the generated position is kept");
    assert_eq!((generated.file.as_str(), generated.line), (js.as_str(), 10));
    // The stack, mapped frame by frame: total() at line 20, called from the loop at line 30.
    let stack: Vec<(&str, u32)> = exception
        .call_stack
        .iter()
        .map(|f| (f.file.as_str(), f.line))
        .collect();
    assert_eq!(stack, [(ts.as_str(), 20), (ts.as_str(), 30)]);
    assert_eq!(exception.call_stack[0].function_name, "total");
    // The logging call inside total() maps to app.ts line 16 (app.js line 6).
    let counting = of_kind(&session.events, Kind::Console)
        .into_iter()
        .find(|e| e.value.as_deref() == Some("counting order 2"))
        .expect("the second console.log");
    assert_eq!(
        (counting.file.as_deref(), counting.line),
        (Some(ts.as_str()), Some(16))
    );
    assert_eq!(counting.generated.as_ref().map(|g| g.line), Some(6));

    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.failure.file.as_deref(), Some(ts.as_str()));
    assert_eq!(evidence.failure.line, Some(20));
    assert_eq!(
        evidence.failure.source_line.as_deref().map(str::trim),
        Some("throw new Error(message);")
    );
    let generated = evidence
        .failure
        .generated
        .as_ref()
        .expect("generated position in the evidence");
    assert_eq!((generated.file.as_str(), generated.line), (js.as_str(), 10));
    assert_eq!(evidence.confidence, Confidence::High);
    assert_only_user_paths(&session.events, Some(&evidence));
}

#[test]
fn an_es_module_failure() {
    let out = Tracer::new()
        .fixture("esm.mjs")
        .args(["run", "--scripts", "esm.mjs"])
        .run();
    out.assert_code(1);
    let module = out.workspace().join("esm.mjs").display().to_string();
    let events = out.events();
    assert!(
        of_kind(&events, Kind::Script)
            .iter()
            .any(|e| e.file.as_deref() == Some(module.as_str()))
    );
    let log = *of_kind(&events, Kind::Console)
        .first()
        .expect("a console event");
    assert_eq!(log.value.as_deref(), Some("module esm.mjs"));
    assert_eq!(
        (log.file.as_deref(), log.line),
        (Some(module.as_str()), Some(4))
    );
    let exception = *of_kind(&events, Kind::Exception)
        .first()
        .expect("an exception event");
    assert_eq!(
        exception.error_message.as_deref(),
        Some("TypeError: esm failure")
    );
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(module.as_str()), Some(5))
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(
        (evidence.failure.file.as_deref(), evidence.failure.line),
        (Some(module.as_str()), Some(5))
    );
    assert_eq!(evidence.confidence, Confidence::High);
    assert_only_user_paths(&events, Some(&evidence));
}

#[test]
fn an_unhandled_promise_rejection_is_an_exception() {
    let out = Tracer::new()
        .fixture("rejection.js")
        .args(["run", "rejection.js"])
        .run();
    out.assert_code(1);
    let script = out.workspace().join("rejection.js").display().to_string();
    let session = out.session();
    assert_eq!(session.status, Status::Failed);
    assert_eq!(session.exception_count, 1);
    let exception = *of_kind(&session.events, Kind::Exception)
        .first()
        .expect("an exception event");
    assert_eq!(
        exception.error_message.as_deref(),
        Some("Error: rejected: config missing")
    );
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(script.as_str()), Some(6))
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.failure.line, Some(6));
    assert_eq!(
        evidence.immediate_cause.and_then(|c| c.value).as_deref(),
        Some("loading")
    );
}

#[test]
fn process_exit_3_is_a_failure_with_its_code() {
    let out = Tracer::new()
        .fixture("exit3.js")
        .args(["run", "exit3.js"])
        .run();
    out.assert_code(1);
    let session = out.session();
    assert_eq!(
        (session.status, session.exit_code, session.exception_count),
        (Status::Failed, Some(3), 0)
    );
    let exit = session.events.last().unwrap();
    assert_eq!((exit.kind, exit.exit_code), (Kind::Exit, Some(3)));
    let evidence = out.evidence().expect("a non-zero exit has evidence");
    assert_eq!(
        (evidence.failure.kind, evidence.failure.exit_code),
        (Kind::Exit, Some(3))
    );
    assert_eq!(
        evidence.immediate_cause.and_then(|c| c.value).as_deref(),
        Some("exiting with 3")
    );
}

#[test]
fn exit_code_child_returns_the_programs_own_code() {
    let out = Tracer::new()
        .fixture("exit3.js")
        .args(["run", "--exit-code", "child", "exit3.js"])
        .run();
    out.assert_code(3);
    assert_eq!(out.session().exit_code, Some(3));
    let out = out
        .tracer()
        .fixture("ok.js")
        .args(["run", "--exit-code", "child", "ok.js"])
        .run();
    out.assert_code(0);
}

#[test]
fn a_console_flood_past_max_events_keeps_the_cap_and_the_evidence() {
    let out = Tracer::new()
        .fixture("flood.js")
        .args(["run", "--ndjson", "--max-events", "100", "flood.js"])
        .run();
    out.assert_code(1);
    let script = out.workspace().join("flood.js").display().to_string();
    // --ndjson streams every event, kept or not.
    let streamed = out.stdout_events();
    let ids: Vec<u64> = streamed.iter().map(|e| e.id).collect();
    assert_eq!(
        ids,
        (1..=streamed.len() as u64).collect::<Vec<_>>(),
        "streamed ids are 1, 2, 3, …"
    );
    assert!(
        streamed.len() > 10_000,
        "5001 console calls and their output lines: {}",
        streamed.len()
    );

    let session = out.session();
    assert_eq!(session.event_count, 100);
    assert_eq!(session.events.len(), 100);
    assert_eq!(session.dropped_events, streamed.len() as u64 - 100);
    assert_eq!(session.exception_count, 1);
    assert_eq!(session.events.last().map(|e| e.kind), Some(Kind::Exit));
    let exception = *of_kind(&session.events, Kind::Exception)
        .first()
        .expect("the exception is kept");
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(script.as_str()), Some(8))
    );

    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.failure.message, "Error: after the flood");
    assert_eq!(evidence.failure.line, Some(8));
    let cause = evidence
        .immediate_cause
        .expect("the immediate cause survives the cap");
    assert_eq!(
        (cause.value.as_deref(), cause.line),
        (Some("last words before the failure"), Some(7))
    );
    assert_eq!(
        evidence
            .previous_state_transitions
            .first()
            .and_then(|s| s.value.as_deref()),
        Some("flood 4999")
    );
    assert_eq!(evidence.confidence, Confidence::High);
    // events.ndjson stays bounded too: the first events, then only the exception and the exit.
    let file = out.events_file();
    assert!(
        file.len() <= 102,
        "events.ndjson holds {} events",
        file.len()
    );
    assert!(file.iter().any(|e| e.kind == Kind::Exception));
    assert_eq!(file.last().map(|e| e.kind), Some(Kind::Exit));
}

#[test]
fn a_5_mb_string_is_capped_in_events_but_passed_through_whole() {
    let out = Tracer::new()
        .fixture("big.js")
        .args(["run", "big.js"])
        .run();
    out.assert_code(0);
    let size = 5 * 1024 * 1024;
    assert_eq!(
        out.stdout_bytes().len(),
        size + 1,
        "the program's stdout passes through uncut"
    );
    let events = out.events();
    let console = *of_kind(&events, Kind::Console)
        .first()
        .expect("a console event");
    assert!(console.truncated);
    let value = console.value.as_deref().unwrap();
    assert!(value.starts_with("xxxxxxxx"));
    assert!(
        value.chars().count() < 600,
        "console value is {} chars",
        value.chars().count()
    );
    assert!(
        value.contains("more chars]"),
        "the cut is marked: {:.100}",
        &value[value.len() - 60..]
    );
    let output = events
        .iter()
        .find(|e| e.kind == Kind::Output)
        .expect("an output event");
    assert!(output.truncated);
    assert!(output.value.as_deref().unwrap().chars().count() < 600);
    let session_size = std::fs::metadata(out.session_dir().join("session.json"))
        .unwrap()
        .len();
    assert!(
        session_size < 100_000,
        "session.json is {session_size} bytes"
    );
}

#[test]
fn a_path_with_spaces_and_non_ascii_characters() {
    let dir = "dir with spaces/ünïcödé 名前";
    let out = Tracer::new()
        .fixture_as("throws.js", format!("{dir}/app 1.js"))
        .args(["run", "--scripts", &format!("{dir}/app 1.js")])
        .run();
    out.assert_code(1);
    let script = out
        .workspace()
        .join(dir)
        .join("app 1.js")
        .display()
        .to_string();
    let session = out.session();
    assert_eq!(session.target, script);
    let exception = *of_kind(&session.events, Kind::Exception)
        .first()
        .expect("an exception event");
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(script.as_str()), Some(6))
    );
    assert!(
        of_kind(&session.events, Kind::Script)
            .iter()
            .any(|e| e.file.as_deref() == Some(script.as_str()))
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.failure.file.as_deref(), Some(script.as_str()));
    assert!(
        evidence
            .failure
            .source_line
            .as_deref()
            .unwrap()
            .starts_with("throw new Error(")
    );
    assert_eq!(evidence.confidence, Confidence::High);
}

#[test]
fn program_arguments_are_passed_after_the_target() {
    let out = Tracer::new()
        .fixture("flood.js")
        .args(["run", "flood.js", "3"])
        .run();
    out.assert_code(1);
    assert_eq!(
        out.stdout(),
        "flood 0\nflood 1\nflood 2\nlast words before the failure\n"
    );
    let session = out.session();
    assert_eq!(session.args, ["3"]);
    assert_eq!(out.evidence().unwrap().relevant_input.args, ["3"]);
}

#[test]
fn every_preload_of_the_user_s_runs_and_sees_only_the_user_s_preloads() {
    // `node -r a -r b`, and a `--require` in NODE_OPTIONS: tracer's bootloader is preloaded too,
    // and takes itself off the list the program sees without making Node skip the next one.
    let preload = |name: &str| {
        format!(
            "// A preload: says it ran, and the preloads the program sees.\n\
             console.log('{name}', JSON.stringify(process._preload_modules));\n"
        )
    };
    let tracer = Tracer::new()
        .file("a.js", preload("a"))
        .file("b.js", preload("b"))
        .file("main.js", "console.log('main');\n");
    let out = tracer
        .args([
            "-q", "run", "--", "node", "-r", "./a.js", "-r", "./b.js", "main.js",
        ])
        .run();
    out.assert_code(0);
    let listed = r#"["./a.js","./b.js"]"#;
    assert_eq!(
        out.stdout(),
        format!("a {listed}\nb {listed}\nmain\n"),
        "{}",
        out.dump()
    );
    let b = out.workspace().join("b.js").display().to_string();
    let out = out
        .tracer()
        .env("NODE_OPTIONS", format!("--require {b}"))
        .args(["-q", "run", "main.js"])
        .run();
    out.assert_code(0);
    assert_eq!(out.stdout(), format!("b [{b:?}]\nmain\n"), "{}", out.dump());
}

#[test]
fn an_inline_data_url_source_map_is_resolved() {
    let out = Tracer::new()
        .fixture("ts/inline.ts")
        .fixture("ts/inline.js")
        .args(["run", "ts/inline.js"])
        .run();
    out.assert_code(1);
    let ts = out.workspace().join("ts/inline.ts").display().to_string();
    let js = out.workspace().join("ts/inline.js").display().to_string();
    let events = out.events();
    let log = *of_kind(&events, Kind::Console)
        .first()
        .expect("a console event");
    assert_eq!(
        (log.file.as_deref(), log.line),
        (Some(ts.as_str()), Some(8))
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(
        (evidence.failure.file.as_deref(), evidence.failure.line),
        (Some(ts.as_str()), Some(11))
    );
    let generated = evidence
        .failure
        .generated
        .as_ref()
        .expect("generated position kept");
    assert_eq!((generated.file.as_str(), generated.line), (js.as_str(), 8));
    assert_only_user_paths(&events, Some(&evidence));
}

#[test]
fn script_events_are_recorded_only_when_asked_for() {
    let out = Tracer::new()
        .fixture("throws.js")
        .args(["run", "throws.js"])
        .run();
    out.assert_code(1);
    let session = out.session();
    assert!(of_kind(&session.events, Kind::Script).is_empty());
    assert!(!session.capabilities.scripts, "capabilities say what ran");
    let with = out.tracer().args(["run", "--scripts", "throws.js"]).run();
    with.assert_code(1);
    let session = with.session();
    assert!(!of_kind(&session.events, Kind::Script).is_empty());
    assert!(session.capabilities.scripts);
}

/// The chain shows what matters: five identical heartbeats are one step (`×5`), and the stderr
/// tail starts with the error's message, not with the last of its stack frames, without the
/// program's colour codes.
#[test]
fn the_chain_folds_repeated_events_and_shows_the_stderr_message_first() {
    let out = Tracer::new()
        .fixture("heartbeat_exit.js")
        .args(["run", "heartbeat_exit.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().expect("the run failed");
    let cause = evidence.immediate_cause.as_ref().expect("a cause");
    assert_eq!(
        (cause.value.as_deref(), cause.repeats),
        (Some("heartbeat"), Some(5)),
        "{}",
        out.dump()
    );
    assert!(
        evidence.previous_state_transitions.is_empty(),
        "{:?}",
        evidence.previous_state_transitions
    );
    let tail = evidence.failure.stderr_tail.as_deref().unwrap_or("");
    assert!(
        tail.contains("Error: lost the connection to the queue"),
        "{tail}"
    );
    assert!(!tail.contains('\x1b'), "{tail:?}");
    assert!(
        !evidence.failure.message.contains('\x1b'),
        "{}",
        evidence.failure.message
    );

    // What a user reads on stderr after the program's own output.
    let stderr = out.stderr();
    let summary = &stderr[stderr.find("tracer: failed").expect("a summary")..];
    assert!(!summary.contains('\x1b'), "{summary:?}");
    assert!(
        summary.contains("immediate cause console.log \"heartbeat\" ×5"),
        "{summary}"
    );
    let tail_shown: Vec<&str> = summary
        .lines()
        .skip_while(|l| l.trim() != "stderr ended with:")
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .map(str::trim)
        .collect();
    assert_eq!(
        tail_shown.first().copied(),
        Some("Error: lost the connection to the queue"),
        "{summary}"
    );
    assert!(
        tail_shown.iter().any(|l| l.ends_with("more frames")),
        "{summary}"
    );
}

#[test]
fn a_source_map_url_naming_a_fifo_neither_hangs_the_program_nor_tracer() {
    // Node given `--enable-source-maps` opens the map a script names, and a FIFO blocks it
    // forever; tracer reads maps itself, regular files only.
    let tracer = Tracer::new().file(
        "app.js",
        "// Names a FIFO as its source map, then throws.\n\
         console.log('ran');\n\
         throw new Error('boom');\n\
         //# sourceMappingURL=map.fifo\n",
    );
    let fifo = tracer.workspace().join("map.fifo");
    let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path that lives for the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let out = tracer.args(["run", "--timeout", "20", "app.js"]).run();
    out.assert_code(1);
    assert!(out.stdout().contains("ran"), "{}", out.dump());
    let evidence = out.evidence().expect("the failure's evidence");
    assert!(
        evidence.failure.message.contains("boom"),
        "{:?}",
        evidence.failure
    );
    assert_eq!(evidence.failure.line, Some(3));
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

/// A package reached through a symlink (pnpm's `node_modules`, npm workspaces, `npm link`) loads
/// from its real path, once, as under plain node: the bootloader's stat of its channel socket was
/// once left in the array Node 20's `realpathSync` reads, which then stopped resolving links (the
/// same package loaded twice, `instanceof` and singletons broken, ava crashing in its worker).
#[test]
fn a_package_linked_as_pnpm_links_it_loads_once_from_its_real_path() {
    let tracer = Tracer::new()
        .file(
            "node_modules/.pnpm/counter@1.0.0/node_modules/counter/index.js",
            "module.exports = { id: Math.random() };\n",
        )
        .file(
            "node_modules/.pnpm/plugin@1.0.0/node_modules/plugin/index.js",
            "module.exports = { counter: require('counter') };\n",
        )
        .file(
            "app.js",
            "const counter = require('counter');\n\
             console.log(require.resolve('counter').slice(process.cwd().length));\n\
             require('fs').statSync(__filename);\n\
             console.log('one counter:', counter === require('plugin').counter);\n",
        );
    let root = tracer.workspace().join("node_modules");
    let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, root.join(at)).unwrap();
    link(
        "../../counter@1.0.0/node_modules/counter",
        ".pnpm/plugin@1.0.0/node_modules/counter",
    );
    link(".pnpm/counter@1.0.0/node_modules/counter", "counter");
    link(".pnpm/plugin@1.0.0/node_modules/plugin", "plugin");
    let out = tracer.args(["-q", "run", "app.js"]).run();
    out.assert_code(0);
    assert_eq!(
        out.stdout(),
        "/node_modules/.pnpm/counter@1.0.0/node_modules/counter/index.js\none counter: true\n"
    );
}

#[test]
fn the_program_s_argv0_is_the_name_node_was_started_by() {
    // A shell passes `node`, not the path it found; a CLI's usage line printed `/usr/bin/node`.
    let program = "console.log(process.argv0);\n";
    for args in [
        &["run", "-q", "app.js"][..],
        &["run", "-q", "--", "node", "app.js"],
    ] {
        let out = Tracer::new().file("app.js", program).args(args).run();
        out.assert_code(0);
        assert_eq!(out.stdout(), "node\n", "{args:?}");
    }
}

#[test]
fn a_program_that_closes_its_inspector_is_said_to_have_left_the_trace() {
    // Its later console calls and its exception are not captured: once nothing said so, and the
    // chain named the last call before the close as the immediate cause.
    let program = "const inspector = require('inspector');\nconsole.log('before close');\ninspector.close();\nconsole.log('after close');\nsetTimeout(() => { console.log('about to fail'); null.x; }, 20);\n";
    let out = Tracer::new()
        .file("app.js", program)
        .args(["run", "--color", "never", "app.js"])
        .run();
    out.assert_code(1);
    assert_eq!(out.stdout(), "before close\nafter close\nabout to fail\n");
    let session = out.session();
    let note = session
        .processes
        .iter()
        .find(|p| p.role == "program")
        .and_then(|p| p.note.clone())
        .unwrap_or_default();
    assert!(
        note.starts_with("its inspector connection closed at "),
        "{note}"
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.confidence, Confidence::Low, "{evidence:#?}");
    assert!(
        out.stderr().contains("warning: process "),
        "{}",
        out.stderr()
    );
    // A program that ends as usual keeps its connection to the end.
    let out = Tracer::new()
        .file("app.js", "console.log('x');\nprocess.exit(3);\n")
        .args(["run", "app.js"])
        .run();
    out.assert_code(1);
    assert!(
        out.session().processes.iter().all(|p| p.note.is_none()),
        "{:#?}",
        out.session().processes
    );
}
