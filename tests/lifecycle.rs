//! How a run ends: timeouts, Ctrl-C, SIGTERM, a program killed by a signal, a killed tracer, and
//! programs that start workers or fork children.
//! Each stop checks that the files are written and that no process of the program is left.

use tracer::trace::event::{Event, Kind};
use tracer::trace::session::Status;

use crate::support::{
    Output, Tracer, assert_nothing_left_running, eventually, of_kind, program_pids, walk,
};

/// The console event of `forever.js` saying it is ready.
fn is_ready(event: &Event) -> bool {
    event.kind == Kind::Console && event.value.as_deref() == Some("ready")
}

/// Common checks for a run that was stopped: files complete, events kept, nothing left running.
fn assert_stopped_cleanly(out: &Output, status: Status, node: u32, sleep: u32) {
    let session = out.session();
    assert_eq!(session.status, status, "{}", out.dump());
    assert_eq!(
        session.pid,
        Some(node),
        "session.json names the program's pid"
    );
    assert!(session.ended_at.is_some());
    assert!(
        session.events.iter().any(is_ready),
        "events captured before the stop are kept"
    );
    assert_eq!(session.events.last().map(|e| e.kind), Some(Kind::Exit));
    // evidence.json is written (and parses) whatever it says.
    let _ = out.evidence();
    assert!(
        !out.session_dir().join(".running").exists(),
        "the session is no longer marked running"
    );
    assert_nothing_left_running(node, &[node, sleep]);
}

#[test]
fn timeout_stops_a_program_that_never_ends() {
    let out = Tracer::new()
        .fixture("forever.js")
        .args(["run", "--timeout", "4", "forever.js"])
        .run();
    out.assert_code(124);
    let (node, sleep) = program_pids(&out.stdout());
    assert_stopped_cleanly(&out, Status::Timeout, node, sleep);
}

#[test]
fn ctrl_c_stops_the_run_and_writes_the_files() {
    let mut running = Tracer::new()
        .fixture("forever.js")
        .args(["run", "forever.js"])
        .spawn();
    let (node, sleep) = program_pids(&running.wait_for_stdout_line("pids"));
    running.wait_for_stdout_line("ready");
    running.wait_for_captured_event(is_ready);
    running.signal(libc::SIGINT);
    let out = running.wait();
    out.assert_code(130);
    assert_stopped_cleanly(&out, Status::Stopped, node, sleep);
}

#[test]
fn sigterm_stops_the_run_and_writes_the_files() {
    let mut running = Tracer::new()
        .fixture("forever.js")
        .args(["run", "forever.js"])
        .spawn();
    let (node, sleep) = program_pids(&running.wait_for_stdout_line("pids"));
    running.wait_for_stdout_line("ready");
    running.wait_for_captured_event(is_ready);
    running.signal(libc::SIGTERM);
    let out = running.wait();
    out.assert_code(143);
    assert_stopped_cleanly(&out, Status::Stopped, node, sleep);
}

#[test]
fn a_worker_that_logs_and_throws_is_traced_and_tagged() {
    // --timeout: a worker left waiting for a debugger would hang the run; fail fast instead.
    let out = Tracer::new()
        .fixture("worker.js")
        .args(["run", "--timeout", "60", "worker.js"])
        .run();
    out.assert_code(1);
    let script = out.workspace().join("worker.js").display().to_string();
    let session = out.session();
    assert_eq!(session.status, Status::Failed);
    assert!(session.capabilities.workers);
    let log = of_kind(&session.events, Kind::Console)
        .into_iter()
        .find(|e| e.value.as_deref() == Some("hello from the worker"))
        .expect("the worker's console.log is captured");
    assert!(
        log.worker
            .as_deref()
            .is_some_and(|w| w.starts_with("worker")),
        "tagged: {:?}",
        log.worker
    );
    assert_eq!(
        (log.file.as_deref(), log.line),
        (Some(script.as_str()), Some(7))
    );
    let exception = *of_kind(&session.events, Kind::Exception)
        .last()
        .expect("the worker's error is captured");
    assert!(
        exception
            .error_message
            .as_deref()
            .unwrap_or("")
            .contains("worker failed"),
        "{exception:?}"
    );
    let evidence = out.evidence().unwrap();
    assert_eq!(
        (evidence.failure.file.as_deref(), evidence.failure.line),
        (Some(script.as_str()), Some(8))
    );
    assert!(evidence.failure.message.contains("worker failed"));
}

#[test]
fn a_worker_s_console_call_runs_no_getter_of_the_program_s_that_node_does_not() {
    // The inspector's own report of a console call describes each argument, running a
    // `Symbol.toStringTag` getter once more than Node's console does: the worker's bootloader
    // takes its calls, as the main thread's does.
    let program = r#"const { Worker, isMainThread } = require('worker_threads');
if (isMainThread) new Worker(__filename);
else {
  let calls = 0;
  class Counted { get [Symbol.toStringTag]() { calls++; return 'C'; } }
  console.log(new Counted());
  console.log('getter calls', calls);
}
"#;
    let out = Tracer::new()
        .file("counted.js", program)
        .args(["run", "--timeout", "60", "counted.js"])
        .run();
    out.assert_code(0);
    assert_eq!(out.stdout(), "Counted [C] {}\ngetter calls 1\n");
    let session = out.session();
    let logged: Vec<_> = of_kind(&session.events, Kind::Console)
        .into_iter()
        .filter(|e| e.worker.as_deref() == Some("worker 1"))
        .map(|e| (e.value.clone().unwrap_or_default(), e.line))
        .collect();
    assert_eq!(
        logged,
        [
            ("Counted [C] {}".to_owned(), Some(6)),
            ("getter calls 1".to_owned(), Some(7))
        ]
    );
}

#[test]
fn a_workers_uncaught_error_is_tagged_and_positioned() {
    let out = Tracer::new()
        .fixture("worker.js")
        .args(["run", "--timeout", "60", "worker.js"])
        .run();
    out.assert_code(1);
    let script = out.workspace().join("worker.js").display().to_string();
    let events = out.events();
    let exception = *of_kind(&events, Kind::Exception)
        .last()
        .expect("the worker's error is captured");
    assert!(
        exception
            .worker
            .as_deref()
            .is_some_and(|w| w.starts_with("worker")),
        "the exception is tagged with the worker: {exception:?}"
    );
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(script.as_str()), Some(8)),
        "the exception event carries the throw's position"
    );
    let evidence = out.evidence().unwrap();
    assert!(
        evidence
            .failure
            .worker
            .as_deref()
            .is_some_and(|w| w.starts_with("worker"))
    );
}

#[test]
fn a_worker_or_child_error_the_program_handles_does_not_fail_the_run() {
    // Under plain node both programs exit 0: the verdict is the program's own exit.
    for (fixture, tag, message) in [
        ("worker_handled.js", "worker", "worker failed"),
        ("fork_throws.js", "child", "child failed"),
    ] {
        let out = Tracer::new()
            .fixture(fixture)
            .args(["run", "--timeout", "60", fixture])
            .run();
        out.assert_code(0);
        assert!(
            out.stderr().contains("tracer: ok · exit code 0"),
            "{fixture}: {}",
            out.stderr()
        );
        let session = out.session();
        assert_eq!(
            (session.status, session.exit_code),
            (Status::Exited, Some(0)),
            "{fixture}"
        );
        assert!(out.evidence().is_none(), "{fixture}: no failure, no chain");
        // The handled error is still in the trace, as an event of the worker or child.
        let exception = of_kind(&session.events, Kind::Exception)
            .into_iter()
            .find(|e| e.error_message.as_deref() == Some(&format!("Error: {message}")[..]))
            .unwrap_or_else(|| panic!("{fixture}: the error is an event\n{}", out.dump()));
        assert!(
            exception
                .worker
                .as_deref()
                .is_some_and(|w| w.starts_with(tag)),
            "{exception:?}"
        );
        assert!(out.stdout().contains(" exited with 1"), "{}", out.dump());
    }
}

#[test]
fn a_forked_child_does_not_hang_the_run() {
    let out = Tracer::new()
        .fixture("fork.js")
        .args(["run", "--timeout", "60", "fork.js"])
        .run();
    out.assert_code(0);
    let stdout = out.stdout();
    assert!(stdout.contains("hello from the child"), "{}", out.dump());
    assert!(stdout.contains("child exited with 0"), "{}", out.dump());
    let session = out.session();
    assert_eq!(
        (session.status, session.exit_code),
        (Status::Exited, Some(0))
    );
    assert!(
        of_kind(&session.events, Kind::Console)
            .iter()
            .any(|e| e.value.as_deref() == Some("child exited with 0")),
        "the parent's console call after the child's exit is captured"
    );
    if session.capabilities.forked_children {
        let child = of_kind(&session.events, Kind::Console)
            .into_iter()
            .find(|e| e.value.as_deref() == Some("hello from the child"))
            .expect("forkedChildren is claimed: the child's console call is traced");
        assert!(
            child
                .worker
                .as_deref()
                .is_some_and(|w| w.starts_with("child")),
            "tagged with the child: {child:?}"
        );
    }
}

#[test]
fn a_debugger_statement_does_not_stop_the_program() {
    let out = Tracer::new()
        .file(
            "app.js",
            "// A `debugger;` statement must not pause a traced program.\nconsole.log('before');\ndebugger;\nconsole.log('after');\n",
        )
        .args(["run", "--timeout", "30", "app.js"])
        .run();
    out.assert_code(0);
    assert_eq!(out.stdout(), "before\nafter\n");
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
fn a_bootloader_folder_left_by_a_tracer_killed_with_its_watchdog_is_removed_by_the_next_run() {
    // A program can kill tracer's watchdog and then tracer (same user, under `tracer run`):
    // nothing is left to remove the bootloader's folder. The next run in the same place sees
    // that its tracer is gone and removes it.
    let tmpdir = tempfile::tempdir().unwrap();
    let out = Tracer::new()
        .fixture("kills_the_watchdog.js")
        .fixture("ok.js")
        .env("TMPDIR", tmpdir.path())
        .args(["run", "kills_the_watchdog.js"])
        .run();
    assert_eq!(out.code_or_signal(), Err(libc::SIGKILL), "{}", out.dump());
    let left = || -> Vec<_> {
        let entries = std::fs::read_dir(tmpdir.path()).unwrap();
        entries.map(|e| e.unwrap().file_name()).collect()
    };
    let killed = left();
    assert_eq!(killed.len(), 1, "the killed tracer's folder is there");
    // A folder like it that holds something tracer did not write is never touched.
    let foreign = tmpdir.path().join("tracer-boot-foreign");
    std::fs::create_dir(&foreign).unwrap();
    let stamp = std::fs::read_dir(tmpdir.path().join(&killed[0]))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.ends_with("owner"))
        .expect("an owner stamp");
    std::fs::copy(&stamp, foreign.join("owner")).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();

    let next = out.tracer().env("TMPDIR", tmpdir.path());
    next.args(["run", "ok.js"]).run().assert_code(0);
    assert_eq!(left(), ["tracer-boot-foreign"], "left in TMPDIR");
    assert_eq!(
        std::fs::read_to_string(foreign.join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn ctrl_c_during_a_command_that_writes_files_is_130_and_leaves_no_temporary_file() {
    // `run`, `audit`, `record` and `verify` stop what they started first (their own tests); the
    // other commands only read and write files. An export whose reader has stopped reading
    // blocks on its full pipe: Ctrl-C then.
    let out = Tracer::new()
        .file(
            "chatty.js",
            "for (let i = 0; i < 3000; i++) console.log(`line ${i} `.padEnd(80, '.'));\n",
        )
        .args(["-q", "run", "chatty.js"])
        .run();
    out.assert_code(0);
    let export = out
        .tracer()
        .args(["export", "latest", "--format", "chrome-trace"])
        .spawn();
    // Blocked in write(2) on its stdout (`/proc/PID/syscall`: the number, then the arguments).
    let blocked = || {
        std::fs::read_to_string(format!("/proc/{}/syscall", export.pid()))
            .is_ok_and(|call| call.starts_with("1 0x1 "))
    };
    eventually("the export blocked on its full pipe", blocked);
    export.signal(libc::SIGINT);
    let interrupted = export.wait();
    assert_eq!(
        interrupted.code_or_signal(),
        Ok(130),
        "{}",
        interrupted.dump()
    );
    let temporary: Vec<_> = walk(out.workspace())
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".tmp-"))
        })
        .collect();
    assert!(temporary.is_empty(), "{temporary:?}");
}

#[test]
fn a_program_out_of_heap_fails_with_the_reason_node_printed_not_an_earlier_error() {
    // The error printed first has a position: the abort, which has none, is still why it ended.
    let program = "console.error(new Error('cache miss').stack);\nconst kept = [];\nwhile (true) kept.push(new Array(1e5).fill(kept.length));\n";
    let out = Tracer::new()
        .file("grow.js", program)
        .args(["run", "--", "node", "--max-old-space-size=16", "grow.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().expect("an aborted program has evidence");
    let failure = &evidence.failure;
    assert_eq!(failure.kind, Kind::Exit, "{}", out.dump());
    assert!(
        failure.message.ends_with("JavaScript heap out of memory"),
        "the failure says why Node aborted: {}",
        failure.message
    );
    assert_eq!(
        (failure.file.as_deref(), failure.line),
        (None, None),
        "no position: Node printed none for the abort"
    );
    assert!(
        failure
            .note
            .as_deref()
            .unwrap_or_default()
            .contains("no position"),
        "{:?}",
        failure.note
    );
    // The summary after the program's own stderr (which has every native frame).
    let stderr = out.stderr();
    let summary = &stderr[stderr.rfind("\nfailure ").expect("a failure summary")..];
    assert!(
        summary.contains("    FATAL ERROR: Reached heap limit")
            && summary.contains("frames of Node's native stack")
            && !summary.contains("0x"),
        "the summary shows the fatal line and folds the native frames: {summary}"
    );
}

#[test]
fn a_program_that_aborts_fails_where_node_s_printed_javascript_stack_says() {
    let program = "function stop() {\n  console.log('stopping');\n  process.abort();\n}\nstop();\n";
    let out = Tracer::new()
        .file("stop.js", program)
        .args(["run", "stop.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().expect("an aborted program has evidence");
    let failure = &evidence.failure;
    assert_eq!(failure.signal.as_deref(), Some("SIGABRT"), "{}", out.dump());
    let file = out.workspace().join("stop.js").display().to_string();
    assert_eq!(
        (failure.file.as_deref(), failure.line, failure.column),
        (Some(file.as_str()), Some(3), Some(11)),
        "the site is the abort call: {failure:?}"
    );
    assert!(
        failure
            .note
            .as_deref()
            .unwrap_or_default()
            .contains("JavaScript stack Node printed"),
        "{:?}",
        failure.note
    );
    assert!(
        evidence.confidence_basis.starts_with("medium at most"),
        "read from text, so not high: {}",
        evidence.confidence_basis
    );
}

#[test]
fn a_worker_out_of_its_memory_limit_ends_as_without_tracer_not_the_whole_process() {
    // The `Debugger` domain tracer enables in a worker takes V8's near-heap-limit callback (to
    // pause before an out-of-memory crash): once it ran, Node's own (which ends the worker with
    // `ERR_WORKER_OUT_OF_MEMORY`) never did, and the whole process died of a fatal error.
    let program = "const { Worker } = require('worker_threads');\n\
                   const w = new Worker('const a = []; while (true) a.push(new Array(1e5).fill(1));', { eval: true, resourceLimits: { maxOldGenerationSizeMb: 16 } });\n\
                   w.on('error', (e) => console.log('worker error', e.code));\n\
                   w.on('exit', (code) => console.log('worker exited', code));\n";
    let out = Tracer::new()
        .file("limits.js", program)
        .args(["run", "--timeout", "60", "limits.js"])
        .run();
    out.assert_code(0);
    assert!(
        out.stdout()
            .contains("worker error ERR_WORKER_OUT_OF_MEMORY\nworker exited 1"),
        "{}",
        out.dump()
    );
}
