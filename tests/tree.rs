//! `tracer run -- COMMAND`: a command's whole Node process tree, through the bootloader (npm,
//! `node --test`, shell shims, shebang flags, children started with `execArgv`, silent forks,
//! detached children, a real test runner from npm), and what a program can do to the channel.

use std::path::{Path, PathBuf};

use tracer::trace::event::{Event, Kind};
use tracer::trace::session::Status;

use crate::support::{
    Tracer, alive, assert_nothing_left_running, in_a_cleared_environment, of_kind,
};

/// The example package whose tests fail (`examples/test-suite`), copied into a new workspace
/// (without its `node_modules`).
fn test_suite() -> Tracer {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/test-suite");
    let mut tracer = Tracer::new();
    for file in [
        "package.json",
        "lib/cart.js",
        "test/cart.test.js",
        "spec/cart.spec.js",
        "vitest/cart.spec.mjs",
        "tape/cart.js",
        "uvu/cart.js",
        "qunit/cart.js",
        "features/cart.feature",
        "features/step_definitions/cart.steps.js",
    ] {
        tracer = tracer.file(file, std::fs::read(example.join(file)).unwrap());
    }
    tracer
}

/// The files of `examples/test-suite`'s second failing test for every runner (`lib/inventory.js`).
const SECOND_FILE: [&str; 10] = [
    "lib/inventory.js",
    "test/inventory.test.js",
    "spec/inventory.spec.js",
    "vitest/inventory.spec.mjs",
    "__tests__/inventory.js",
    "tape/inventory.js",
    "uvu/inventory.js",
    "qunit/inventory.js",
    "features/inventory.feature",
    "features/step_definitions/inventory.steps.js",
];

/// `examples/test-suite` in a new workspace, its installed `node_modules` linked in, and the
/// workspace's path: when `package` is installed there (`.ci/run` runs `npm ci`) and npm is on PATH;
/// else `None` (skipped, saying so).
fn test_suite_with_modules(package: &str, test: &str) -> Option<(Tracer, PathBuf)> {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/test-suite/node_modules");
    if !modules.join(package).is_dir() {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: needs {} (`npm ci` in examples/test-suite)",
            modules.join(package).display()
        );
        return None;
    }
    npm_or_skip(test)?;
    let tracer = test_suite();
    std::os::unix::fs::symlink(&modules, tracer.workspace().join("node_modules")).unwrap();
    let dir = tracer.workspace().to_owned();
    Some((tracer, dir))
}

/// `npm` on PATH, else `None` (skipped, saying so).
fn npm_or_skip(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("npm"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "SKIPPED {test}: needs npm on PATH");
    }
    found
}

/// What the same command prints and returns without tracer, in `dir`.
fn plain(dir: &Path, program: &str, args: &[&str]) -> (i32, String) {
    let out = in_a_cleared_environment(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A test report without its timings, which differ from run to run.
fn without_durations(report: &str) -> String {
    report
        .lines()
        .filter(|l| !l.contains("duration_ms") && !l.contains("passing (") && !l.contains("ms)"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first traced child process of the session's tree.
#[track_caller]
fn first_child<'a>(
    out: &crate::support::Output,
    session: &'a tracer::trace::session::Session,
) -> &'a tracer::trace::session::Process {
    session
        .processes
        .iter()
        .find(|p| p.role == "child")
        .unwrap_or_else(|| panic!("{}", out.dump()))
}

/// The evidence names the failing test `name`, its message holds `message`, its site is in `file`.
#[track_caller]
fn assert_failing_test(
    out: &crate::support::Output,
    name: &str,
    message: &str,
    file: &str,
) -> tracer::trace::evidence::Evidence {
    let evidence = out.evidence().expect("evidence for a failed run");
    let test = evidence.failure.test.as_ref().expect("the failing test");
    assert_eq!(test.name, name);
    assert!(test.message.contains(message), "{test:?}");
    assert!(
        evidence
            .failure
            .file
            .as_deref()
            .is_some_and(|f| f.ends_with(file)),
        "{:?}",
        evidence.failure
    );
    evidence
}

#[test]
fn npm_test_running_node_test_is_traced_process_by_process_and_names_the_failing_test() {
    if npm_or_skip("npm_test_running_node_test").is_none() {
        return;
    }
    let tracer = test_suite();
    let dir = tracer.workspace().to_owned();
    let (plain_code, plain_stdout) = plain(&dir, "npm", &["test"]);
    let out = tracer.args(["-q", "run", "--", "npm", "test"]).run();
    // The command's own exit code, and its report as without tracer.
    assert_eq!(plain_code, 1);
    out.assert_code(1);
    assert_eq!(
        without_durations(&out.stdout()),
        without_durations(&plain_stdout),
        "{}",
        out.dump()
    );
    assert!(!out.stdout().contains("Debugger"), "{}", out.stdout());
    let session = out.session();
    assert_eq!(session.status, Status::Failed);
    assert_eq!(session.exit_code, Some(1));
    // npm is a launcher; node --test's runner has no inspector; the test file's process is a
    // track of its own.
    let roles: Vec<(&str, Option<&str>)> = session
        .processes
        .iter()
        .map(|p| (p.role.as_str(), p.label.as_deref()))
        .collect();
    assert!(roles.contains(&("launcher", None)), "{roles:?}");
    // npm runs the script through a shell: listed between npm and the runner, not traced.
    assert!(
        session
            .processes
            .iter()
            .any(|p| p.role == "launcher" && p.argv.first().is_some_and(|a| a.ends_with("sh"))),
        "{:#?}",
        session.processes
    );
    assert!(roles.contains(&("untraced", None)), "{roles:?}");
    let child = session
        .processes
        .iter()
        .find(|p| p.label.as_deref() == Some("child 1"))
        .unwrap_or_else(|| panic!("{:#?}", session.processes));
    assert!(
        child.argv.iter().any(|a| a.ends_with("test/cart.test.js")),
        "{child:?}"
    );
    assert_eq!(child.exiting_with, Some(1));
    assert_eq!(child.exit_code, Some(1), "as the kernel told it");
    let runner = session
        .processes
        .iter()
        .find(|p| p.role == "untraced")
        .unwrap();
    assert_eq!(
        child.ppid, runner.pid,
        "the tree: the test file's parent is the runner"
    );
    // The failing test, its assertion's message and its site in the test file.
    let evidence = assert_failing_test(
        &out,
        "takes ten percent off with TEN",
        "strictly equal",
        "test/cart.test.js",
    );
    assert_eq!(
        (evidence.failure.line, evidence.failure.column),
        (Some(11), Some(10))
    );
    assert!(
        evidence.failure.failed_processes[0]
            == format!(
                "{} child 1: node test/cart.test.js · exited with 1",
                child.pid
            ),
        "{:?}",
        evidence.failure.failed_processes
    );
    // Replay lists the tree; the Chrome trace gives the test file's process its own track.
    let replay = out.tracer().args(["replay", "latest"]).run();
    let shown = replay.stdout();
    assert!(shown.contains("processes"), "{shown}");
    assert!(
        shown.contains(&format!("{} child 1: node test/cart.test.js", child.pid)),
        "{shown}"
    );
    let export = out
        .tracer()
        .args(["export", "latest", "--format", "chrome-trace"])
        .run();
    let trace: serde_json::Value = serde_json::from_str(&export.stdout()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    assert!(
        events.iter().any(|e| e["name"] == "process_name"
            && e["pid"] == u64::from(child.pid)
            && e["args"]["name"]
                .as_str()
                .unwrap()
                .starts_with("child 1: node")),
        "{events:#?}"
    );
    // Every process is named once (the program's pid too, though the tree lists it as well).
    let mut named: Vec<u64> = events
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["pid"].as_u64().unwrap())
        .collect();
    let count = named.len();
    named.sort_unstable();
    named.dedup();
    assert_eq!(named.len(), count, "{events:#?}");
    // `tracer verify` runs the same command again: the same failure, and the same target (the
    // command `npm`, not the JavaScript file its link names).
    let verify = out.tracer().args(["verify", "latest"]).run();
    verify.assert_code(1);
    assert!(verify.stderr().contains("same"), "{}", verify.dump());
    assert_eq!(verify.session().target, session.target);
    assert!(
        verify.session().processes.len() >= session.processes.len(),
        "{:#?}",
        verify.session().processes
    );
}

#[test]
fn node_with_its_own_flags_runs_as_a_command() {
    let out = test_suite()
        .args(["-q", "run", "--", "node", "--test", "test/"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    assert_eq!(
        evidence.failure.test.as_ref().map(|t| t.name.as_str()),
        Some("takes ten percent off with TEN")
    );
    // A flag where the target goes says what to write instead.
    let out = Tracer::new().args(["run", "--test", "x.js"]).run();
    out.assert_code(2);
    let out = Tracer::new().args(["run", "--", "--test", "x.js"]).run();
    out.assert_code(2);
    assert!(
        out.stderr().contains("tracer run [OPTIONS] -- node --test"),
        "{}",
        out.stderr()
    );
}

/// mocha from the npm registry, when `examples/test-suite`'s `node_modules` are there (`.ci/run`
/// installs them; skipped, saying so, without).
#[test]
fn a_real_test_runner_from_npm_names_the_failing_test_and_its_assertion() {
    let Some((tracer, dir)) = test_suite_with_modules("mocha", "a_real_test_runner_from_npm")
    else {
        return;
    };
    let (plain_code, plain_stdout) = plain(&dir, "npm", &["run", "test:mocha"]);
    let out = tracer
        .args(["-q", "run", "--", "npm", "run", "test:mocha"])
        .run();
    assert_eq!(plain_code, 1);
    out.assert_code(1);
    assert_eq!(
        without_durations(&out.stdout()),
        without_durations(&plain_stdout)
    );
    let session = out.session();
    // mocha's own process is traced: its console calls are its track's events.
    let mocha = session
        .processes
        .iter()
        .find(|p| p.role == "child" && p.argv.iter().any(|a| a.contains("mocha")))
        .unwrap_or_else(|| panic!("{:#?}", session.processes));
    let label = mocha.label.clone().expect("traced");
    // mocha sets its code in an `exit` listener of its own, after the bootloader's: the code
    // it ended with is the kernel's.
    assert_eq!(mocha.exiting_with, Some(0), "{mocha:?}");
    assert_eq!(mocha.exit_code, Some(1), "{mocha:?}");
    assert!(
        mocha.failed() && mocha.describe(&session.cwd).ends_with("· exited with 1"),
        "{mocha:?}"
    );
    assert!(
        of_kind(&session.events, Kind::Console)
            .iter()
            .any(|e| e.worker.as_deref() == Some(label.as_str())),
        "{}",
        out.dump()
    );
    let evidence = assert_failing_test(
        &out,
        "total › takes ten percent off with TEN",
        "AssertionError",
        "spec/cart.spec.js",
    );
    assert_eq!(evidence.failure.line, Some(11));
    assert_eq!(
        evidence.failure.failed_processes,
        [mocha.describe(&session.cwd)],
        "the runner's process, which exited with 1, and not npm or its shell"
    );
}

/// `npm test --workspaces`: npm runs each package's runner in the package's folder, and mocha
/// prints its stack paths from there (`spec/cart.spec.js:11:12`). The failed test's site is the
/// package's file, not the root's file of the same name, nor none.
#[test]
fn a_workspace_runner_s_relative_paths_start_from_its_package_s_folder() {
    let Some((tracer, dir)) =
        test_suite_with_modules("mocha", "a_workspace_runner_s_relative_paths")
    else {
        return;
    };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/test-suite");
    let read = |file: &str| std::fs::read(example.join(file)).unwrap();
    let tracer = tracer
        .file(
            "package.json",
            r#"{"name":"shop-root","private":true,"workspaces":["packages/shop"],"scripts":{"test":"npm test --workspaces"}}"#,
        )
        .file(
            "packages/shop/package.json",
            r#"{"name":"shop","version":"1.0.0","private":true,"scripts":{"test":"mocha spec/"}}"#,
        )
        .file("packages/shop/lib/cart.js", read("lib/cart.js"))
        .file("packages/shop/spec/cart.spec.js", read("spec/cart.spec.js"));
    // The root's own file of the same name, which a path read from the root's folder would name.
    assert!(dir.join("spec/cart.spec.js").is_file());
    let (plain_code, _) = plain(&dir, "npm", &["test"]);
    assert_eq!(plain_code, 1);
    let out = tracer.args(["-q", "run", "--", "npm", "test"]).run();
    out.assert_code(1);
    let session = out.session();
    let mocha = session
        .processes
        .iter()
        .find(|p| p.role == "child" && p.argv.iter().any(|a| a.contains("mocha")))
        .unwrap_or_else(|| panic!("{:#?}", session.processes));
    let package = dir.canonicalize().unwrap().join("packages/shop");
    assert_eq!(
        mocha.cwd.as_deref(),
        Some(package.to_str().unwrap()),
        "{mocha:?}"
    );
    let evidence = assert_failing_test(
        &out,
        "total › takes ten percent off with TEN",
        "AssertionError",
        "packages/shop/spec/cart.spec.js",
    );
    assert_eq!(evidence.failure.line, Some(11), "{}", out.dump());
    assert_eq!(
        evidence.failure.tests[0].process.as_deref(),
        mocha.label.as_deref(),
        "{:?}",
        evidence.failure.tests
    );
}

/// vitest from the npm registry (its forks pool: a worker process per test file), when
/// `examples/test-suite`'s `node_modules` are there (skipped, saying so, without).
#[test]
fn vitest_from_npm_is_traced_and_its_failing_test_named_at_its_assertion() {
    let Some((tracer, dir)) = test_suite_with_modules("vitest", "vitest_from_npm") else {
        return;
    };
    // vitest's report without its clock and durations (`Start at 18:20:10`, `… 6ms`).
    let steady = |report: &str| -> String {
        report
            .lines()
            .filter(|l| !l.contains("Start at") && !l.contains("Duration"))
            .map(|l| {
                let cut = l.trim_end().trim_end_matches("ms");
                match cut.rsplit_once(' ') {
                    Some((head, tail))
                        if cut.len() < l.trim_end().len() && tail.parse::<f64>().is_ok() =>
                    {
                        head
                    }
                    _ => l,
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (plain_code, plain_stdout) = plain(&dir, "npm", &["run", "test:vitest"]);
    let out = tracer
        .args(["-q", "run", "--", "npm", "run", "test:vitest"])
        .run();
    assert_eq!(plain_code, 1, "{plain_stdout}");
    out.assert_code(1);
    assert_eq!(steady(&out.stdout()), steady(&plain_stdout));
    let session = out.session();
    // vitest's own process and its test file's worker process are traced.
    let traced: Vec<&str> = session
        .processes
        .iter()
        .filter(|p| p.role == "child")
        .filter_map(|p| p.argv.get(1).map(String::as_str))
        .collect();
    assert!(
        traced.iter().any(|a| a.ends_with("vitest"))
            && traced.iter().any(|a| a.contains("tinypool")),
        "{:#?}",
        session.processes
    );
    let evidence = assert_failing_test(
        &out,
        "total > takes ten percent off with TEN",
        "AssertionError: expected 16.2 to be 18",
        "vitest/cart.spec.mjs",
    );
    // vitest's own claim, 1-based as printed: `toBe` on line 13.
    assert_eq!(
        (evidence.failure.line, evidence.failure.column),
        (Some(13), Some(56))
    );
    assert_eq!(
        evidence.failure.source_line.as_deref().map(str::trim),
        Some("expect(total([{ price: 10, quantity: 2 }], 'TEN')).toBe(18);")
    );
}

#[test]
fn a_shell_script_shim_and_a_shebang_with_flags() {
    let tracer = Tracer::new()
        .file(
            "node_modules/.bin/tool",
            "#!/bin/sh\n# A .bin shim as pnpm writes them: a shell script that starts node.\nbasedir=$(dirname \"$0\")\nnode \"$basedir/../tool/cli.js\" \"$@\"\necho \"shim done $?\"\n",
        )
        .file(
            "node_modules/tool/cli.js",
            "console.log('cli', process.argv.slice(2).join(' '));\n",
        )
        .file(
            "bang.js",
            "#!/usr/bin/env -S node --max-old-space-size=64\n\
             const mb = require('v8').getHeapStatistics().heap_size_limit / 1048576;\n\
             console.log(mb < 200 ? 'small heap' : 'default heap');\n",
        );
    use std::os::unix::fs::PermissionsExt;
    let shim = tracer.workspace().join("node_modules/.bin/tool");
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = tracer
        .args(["-q", "run", "--", "node_modules/.bin/tool", "a", "b"])
        .run();
    out.assert_code(0);
    assert!(out.stdout().contains("cli a b"), "{}", out.dump());
    assert!(out.stdout().contains("shim done 0"), "{}", out.dump());
    let session = out.session();
    assert!(
        of_kind(&session.events, Kind::Console)
            .iter()
            .any(
                |e| e.value.as_deref() == Some("cli a b") && e.worker.as_deref() == Some("child 1")
            ),
        "{}",
        out.dump()
    );
    let out = out.tracer().args(["-q", "run", "bang.js"]).run();
    out.assert_code(0);
    assert_eq!(out.stdout().trim(), "small heap", "{}", out.dump());
}

/// A package manager's own script run directly (`tracer run -- ./node_modules/.bin/pnpm test`, a
/// symlink to its `bin/pnpm.cjs`): tracer runs it with Node, its bootloader reports a launcher, and
/// the run is traced as a command whose Node processes are its children. It had ended in "Node
/// exited before its inspector started" (exit 4) with pnpm 9 and yarn 1.
#[test]
fn a_package_manager_run_as_a_script_is_a_launcher_and_its_children_are_traced() {
    let tracer = Tracer::new()
        .file(
            "node_modules/pnpm/bin/pnpm.cjs",
            "#!/usr/bin/env node
             // Runs the package's test as pnpm does: a shell, then node.
             const { spawnSync } = require('child_process');
             const r = spawnSync('sh', ['-c', 'node test.js'], { stdio: 'inherit' });
             process.exitCode = r.status;
",
        )
        .file(
            "test.js",
            "console.log('testing');
throw new TypeError('the test failed');
",
        );
    let bin = tracer.workspace().join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink("../pnpm/bin/pnpm.cjs", bin.join("pnpm")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let script = tracer.workspace().join("node_modules/pnpm/bin/pnpm.cjs");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = tracer
        .args(["-q", "run", "--", "./node_modules/.bin/pnpm", "test"])
        .run();
    // The program failed (exit 1), not tracer (4).
    out.assert_code(1);
    let session = out.session();
    let roles: Vec<&str> = session.processes.iter().map(|p| p.role.as_str()).collect();
    assert_eq!(roles.first(), Some(&"launcher"), "{:#?}", session.processes);
    assert!(roles.contains(&"child"), "{:#?}", session.processes);
    assert_eq!(session.exit_code, Some(1));
    let evidence = out.evidence().expect("evidence for a failed run");
    assert!(
        evidence.failure.message.contains("the test failed"),
        "{:?}",
        evidence.failure
    );
    assert!(
        evidence
            .failure
            .file
            .as_deref()
            .is_some_and(|f| f.ends_with("test.js")),
        "{:?}",
        evidence.failure
    );
}

/// A test file that throws as it loads is the failure (an uncaught exception in your code), and
/// another file's failed test is still listed beside it (it was once missing from the evidence).
#[test]
fn a_file_that_throws_as_it_loads_does_not_hide_another_file_s_failed_test() {
    let out = test_suite()
        .file(
            "lib/limits.js",
            "const limits = { max: 3 };\nif (limits.max < 5) throw new TypeError('limits too small: ' + limits.max);\n",
        )
        .file("test/limits.test.js", "require('../lib/limits');\n")
        .args(["-q", "run", "--", "node", "--test", "test/"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    assert!(
        evidence.failure.message.contains("limits too small"),
        "{:#?}",
        evidence.failure
    );
    assert!(evidence.failure.test.is_none(), "{:#?}", evidence.failure);
    assert!(
        evidence
            .failure
            .tests
            .iter()
            .any(|t| t.name == "takes ten percent off with TEN"),
        "{:#?}",
        evidence.failure.tests
    );
}

/// The summary lists at most 8 failed processes and says how many more the evidence holds (a
/// runner forking without end once printed 210 lines of them).
#[test]
fn the_summary_lists_a_few_failed_processes_and_counts_the_rest() {
    let out = Tracer::new()
        .file(
            "many.js",
            "const { spawnSync } = require('node:child_process');\n\
             for (let i = 0; i < 11; i++) spawnSync(process.execPath, ['-e', 'process.exitCode = 1']);\n\
             process.exitCode = 1;\n",
        )
        .args(["run", "many.js"])
        .run();
    out.assert_code(1);
    let stderr = out.stderr();
    let listed = stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("process: "))
        .count();
    assert_eq!(listed, 8, "{stderr}");
    assert!(stderr.contains("… 3 more failed processes"), "{stderr}");
    let evidence = out.evidence().unwrap();
    assert_eq!(evidence.failure.failed_processes.len(), 11);
}

/// Node's own flags (`process.execArgv`, which `process.argv` leaves out) are listed with each
/// process, where they were given (the process list once showed `node c.js` for `node
/// --no-warnings --stack-size=900 c.js`).
#[test]
fn a_process_s_own_node_flags_are_listed_with_it() {
    let out = Tracer::new()
        .file("c.js", "process.exitCode = 3;\n")
        .file(
            "p.js",
            "const { spawnSync } = require('node:child_process');\n\
             const r = spawnSync(process.execPath, ['--no-warnings', '--stack-size=900', 'c.js'], { stdio: 'inherit' });\n\
             process.exit(r.status);\n",
        )
        .args(["-q", "run", "--", "node", "--no-deprecation", "p.js"])
        .run();
    out.assert_code(1);
    let session = out.session();
    let flags = |role: &str| {
        let process = session.processes.iter().find(|p| p.role == role);
        process.map(|p| p.exec_argv.clone()).unwrap_or_default()
    };
    assert_eq!(
        flags("program"),
        ["--no-deprecation"],
        "{:#?}",
        session.processes
    );
    assert_eq!(flags("child"), ["--no-warnings", "--stack-size=900"]);
    let replay = out.tracer().args(["replay", "latest"]).run().stdout();
    assert!(
        replay.contains("child 1: node --no-warnings --stack-size=900 c.js · exited with 3"),
        "{replay}"
    );
}

#[test]
fn children_started_with_exec_argv_and_silent_forks_are_traced_and_never_wait_or_see_an_inspector()
{
    let out = Tracer::new()
        .file(
            "kids.js",
            "// A child started with the parent's execArgv, then a silent fork; each says whether\n\
             // it finds an inspector open (ava, for one, refuses to run in CI when it does).\n\
             const { spawn, fork } = require('node:child_process');\n\
             const open = () => [require('inspector').url(), require('inspector/promises').url()].map(String).join(',');\n\
             if (process.argv[2] === 'child') {\n\
               console.log('child', JSON.stringify(process.execArgv), open());\n\
               process.exit(3);\n\
             }\n\
             console.log('parent', JSON.stringify(process.execArgv), open());\n\
             spawn(process.execPath, [...process.execArgv, __filename, 'child'], { stdio: 'inherit' })\n\
               .on('exit', (code) => {\n\
                 console.log('spawned exited', code);\n\
                 const silent = fork(__filename, ['child'], { silent: true });\n\
                 let said = '';\n\
                 silent.stdout.on('data', (d) => (said += d));\n\
                 silent.on('exit', (code) => console.log('silent exited', code, said.trim()));\n\
               });\n",
        )
        .args(["-q", "run", "--timeout", "60", "kids.js"])
        .run();
    out.assert_code(0);
    let session = out.session();
    // No --timeout: nothing waited for a debugger.
    assert_eq!(session.status, Status::Exited, "{}", out.dump());
    let stdout = out.stdout();
    // No flag of tracer's in any execArgv, and no inspector open as far as the program can tell.
    let none = "[] undefined,undefined";
    assert!(stdout.contains(&format!("parent {none}")), "{stdout}");
    assert!(stdout.contains(&format!("child {none}")), "{stdout}");
    assert!(stdout.contains("spawned exited 3"), "{stdout}");
    assert!(
        stdout.contains(&format!("silent exited 3 child {none}")),
        "{stdout}"
    );
    let children: Vec<_> = session
        .processes
        .iter()
        .filter(|p| p.role == "child")
        .collect();
    assert_eq!(children.len(), 2, "{:#?}", session.processes);
    assert!(children.iter().all(|c| c.exiting_with == Some(3)));
    // The program's own end is the run's (tracer is its parent).
    let program = session.processes.iter().find(|p| p.role == "program");
    assert_eq!(program.and_then(|p| p.exit_code), Some(0), "{program:?}");
    let pids: Vec<u32> = session.processes.iter().map(|p| p.pid).collect();
    assert_nothing_left_running(session.pid.unwrap(), &pids);
    for label in ["child 1", "child 2"] {
        assert!(
            of_kind(&session.events, Kind::Console)
                .iter()
                .any(|e| e.worker.as_deref() == Some(label)
                    && e.value.as_deref() == Some(&format!("child {none}"))),
            "{label}: {}",
            out.dump()
        );
    }
}

#[test]
fn a_detached_child_does_not_outlive_the_run() {
    let out = Tracer::new()
        .file(
            "detach.js",
            "// Starts a detached Node child (its own session and process group) that would run\n\
             // forever, and leaves without waiting for it.\n\
             const { spawn } = require('node:child_process');\n\
             if (process.argv[2] === 'child') {\n\
               console.log('child up', process.pid);\n\
               setInterval(() => {}, 1000);\n\
             } else {\n\
               const c = spawn(process.execPath, [__filename, 'child'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });\n\
               c.unref();\n\
               setTimeout(() => console.log('parent done'), 500);\n\
             }\n",
        )
        .args(["-q", "run", "--timeout", "60", "detach.js"])
        .run();
    out.assert_code(0);
    let session = out.session();
    let child = first_child(&out, &session);
    assert!(out.stdout().contains("parent done"), "{}", out.dump());
    assert_nothing_left_running(session.pid.unwrap(), &[child.pid]);
    assert!(!alive(child.pid));
}

#[test]
fn a_detached_child_that_reports_after_its_parent_exited_does_not_outlive_the_run() {
    // The parent leaves at once: its detached child reports as the run is ending, holding the
    // run's stdout. It is stopped then (before its first line, or with the leftovers), never
    // released to finish its timer while the run waits for its output.
    let out = Tracer::new()
        .file(
            "leave.js",
            "// Starts a detached Node child that prints after 3 s, and exits at once.\n\
             const { spawn } = require('node:child_process');\n\
             const c = spawn(process.execPath, ['-e', 'setTimeout(() => console.log(\"daemon done\"), 3000)'], { detached: true, stdio: 'inherit' });\n\
             console.log('daemon', c.pid);\n\
             process.exit(0);\n",
        )
        .args(["-q", "run", "--timeout", "60", "leave.js"])
        .run();
    out.assert_code(0);
    let stdout = out.stdout();
    assert!(!stdout.contains("daemon done"), "{}", out.dump());
    let pid: u32 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("daemon "))
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}", out.dump()));
    let session = out.session();
    assert_nothing_left_running(session.pid.unwrap(), &[pid]);
    assert!(!alive(pid));
}

#[test]
fn node_s_test_coverage_is_the_program_s_alone() {
    // `node --test --experimental-test-coverage`: the coverage table names the program's files,
    // as without tracer, never tracer's bootloader (which every traced process loads).
    let tracer = Tracer::new()
        .file(
            "lib.js",
            "exports.half = (n) => n / 2;\nexports.unused = () => 0;\n",
        )
        .file(
            "test/lib.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\nconst { half } = require('../lib.js');\ntest('halves', () => assert.strictEqual(half(4), 2));\n",
        );
    let coverage = |stdout: &str| -> Vec<String> {
        stdout
            .lines()
            .filter(|l| l.starts_with("# ") && l.contains('|'))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let plain = crate::support::in_a_cleared_environment("node")
        .args(["--test", "--experimental-test-coverage"])
        .current_dir(tracer.workspace())
        .output()
        .expect("node runs");
    assert!(plain.status.success(), "{plain:?}");
    let plain = coverage(&String::from_utf8_lossy(&plain.stdout));
    assert!(plain.iter().any(|l| l.contains("lib.js")), "{plain:#?}");
    let out = tracer
        .args([
            "-q",
            "run",
            "--timeout",
            "60",
            "--",
            "node",
            "--test",
            "--experimental-test-coverage",
        ])
        .run();
    out.assert_code(0);
    assert_eq!(coverage(&out.stdout()), plain, "{}", out.dump());
}

#[test]
fn a_helper_process_s_error_outside_the_program_s_code_does_not_hide_the_failed_test() {
    // As c8 does: a helper `node -e …` whose output nobody reads fails to compile, then the
    // tests run and one fails. The failure is the test, not the helper's SyntaxError.
    let out = Tracer::new()
        .file(
            "cover.js",
            "// Starts a helper that dies of a SyntaxError (stdio ignored), then the tests.\n\
             const { spawnSync } = require('node:child_process');\n\
             spawnSync(process.execPath, ['-e', ')'], { stdio: 'ignore' });\n\
             const run = spawnSync(process.execPath, ['--test', 'test/'], { stdio: 'inherit' });\n\
             process.exit(run.status);\n",
        )
        .file(
            "test/a.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => {\n  assert.strictEqual(1 + 1, 3);\n});\n",
        )
        .args(["-q", "run", "--timeout", "60", "cover.js"])
        .run();
    out.assert_code(1);
    let session = out.session();
    assert!(
        of_kind(&session.events, Kind::Exception).iter().any(|e| e
            .error_message
            .as_deref()
            .is_some_and(|m| m.contains("SyntaxError"))),
        "the helper's error is recorded: {}",
        out.dump()
    );
    let failure = out.evidence().unwrap().failure;
    assert_eq!(failure.kind, Kind::Exit, "{failure:?}");
    let names: Vec<&str> = failure.tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["adds"], "{failure:?}");
    assert_eq!(failure.tests[0].line, Some(4), "{failure:?}");
}

#[test]
fn a_report_the_program_writes_itself_is_never_attached_to() {
    let out = Tracer::new()
        .file(
            "forge.js",
            "// Writes reports of its own on the bootloader's channel (the descriptor it inherited):\n\
             // a second one for itself, naming a server it listens on; one for a pid that is not\n\
             // its own (1); one for a port nobody of this run holds. Then a child that is not Node\n\
             // (python3) listens on loopback and reports its own port.\n\
             const fs = require('node:fs');\n\
             const net = require('node:net');\n\
             const { spawnSync } = require('node:child_process');\n\
             const fd = Number(process.env.TRACER_BOOT.split(':')[0]);\n\
             const server = net.createServer((s) => { console.log('tracer connected to the fake'); s.destroy(); });\n\
             server.listen(0, '127.0.0.1', () => {\n\
               const port = server.address().port;\n\
               const say = (o) => fs.writeSync(fd, JSON.stringify(o) + '\\n');\n\
               say({ pid: process.pid, ppid: 1, argv: [], url: `ws://127.0.0.1:${port}/x` });\n\
               say({ pid: 1, ppid: 0, argv: [], url: `ws://127.0.0.1:${port}/y` });\n\
               say({ pid: process.pid + 100000, ppid: 0, argv: [], url: 'ws://127.0.0.1:9/z' });\n\
               const python = spawnSync('python3', ['-c', [\n\
                 'import json, os, socket',\n\
                 'fd = int(os.environ[\"TRACER_BOOT\"].split(\":\")[0])',\n\
                 's = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1); s.settimeout(1.5)',\n\
                 'url = \"ws://127.0.0.1:%d/x\" % s.getsockname()[1]',\n\
                 'os.write(fd, json.dumps({\"pid\": os.getpid(), \"url\": url}).encode())',\n\
                 'try:\\n    s.accept(); print(\"tracer connected to the python forger\")\\nexcept socket.timeout:\\n    print(\"python: no connection\")',\n\
               ].join('\\n')], { encoding: 'utf8' });\n\
               process.stdout.write(python.stdout + python.stderr);\n\
               setTimeout(() => server.close(), 500);\n\
             });\n",
        )
        .args(["-q", "run", "--timeout", "60", "forge.js"])
        .run();
    out.assert_code(0);
    assert!(
        !out.stdout().contains("tracer connected to the fake"),
        "{}",
        out.dump()
    );
    assert!(
        out.stdout().contains("python: no connection"),
        "{}",
        out.dump()
    );
    let session = out.session();
    assert!(
        session
            .events
            .iter()
            .any(|e| e.detail.contains("second report for process")),
        "{}",
        out.dump()
    );
    let refused: Vec<_> = session
        .processes
        .iter()
        .filter(|p| {
            p.note
                .as_deref()
                .is_some_and(|n| n.starts_with("not attached"))
        })
        .collect();
    // The two reports that named another process, and the one of a process that is not Node.
    assert_eq!(refused.len(), 3, "{:#?}", session.processes);
    let notes: Vec<&str> = refused.iter().filter_map(|p| p.note.as_deref()).collect();
    assert_eq!(
        notes
            .iter()
            .filter(|n| n.contains("the report was refused: it names process"))
            .count(),
        2,
        "{notes:#?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("not the Node tracer starts")),
        "{notes:#?}"
    );
}

#[test]
fn a_package_folder_runs_its_main() {
    let out = test_suite().args(["-q", "run", "."]).run();
    out.assert_code(0);
    assert_eq!(out.stdout().trim(), "total 16.2", "{}", out.dump());
    assert!(out.session().target.ends_with("lib/cart.js"));
}

#[test]
fn a_detached_child_does_not_outlive_a_killed_tracer() {
    let mut running = Tracer::new()
        .file(
            "detach.js",
            "// A detached Node child (its own session and process group) that runs forever, and a\n\
             // parent that runs forever too.\n\
             const { spawn } = require('node:child_process');\n\
             if (process.argv[2] === 'child') {\n\
               console.log('child up', process.pid);\n\
               setInterval(() => {}, 1000);\n\
             } else {\n\
               spawn(process.execPath, [__filename, 'child'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });\n\
               console.log('parent up', process.pid);\n\
               setInterval(() => {}, 1000);\n\
             }\n",
        )
        .args(["-q", "run", "--timeout", "60", "detach.js"])
        .spawn();
    let parent: u32 = running.wait_for_stdout_line("parent up").trim()["parent up ".len()..]
        .parse()
        .unwrap();
    let child: u32 = running.wait_for_stdout_line("child up").trim()["child up ".len()..]
        .parse()
        .unwrap();
    running.signal(libc::SIGKILL);
    let killed = running.wait();
    assert_eq!(killed.code_or_signal(), Err(libc::SIGKILL));
    // The watchdog kills the program's group and the child that left it.
    assert_nothing_left_running(parent, &[parent, child]);
}

#[test]
fn a_token_in_a_child_s_arguments_is_redacted_in_the_process_list() {
    let token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    let out = Tracer::new()
        .file(
            "token.js",
            "// Starts a child with a token among its arguments.\n\
             const { spawnSync } = require('node:child_process');\n\
             if (process.argv[2] !== 'child') spawnSync(process.execPath, [__filename, 'child', process.argv[2]], { stdio: 'inherit' });\n",
        )
        .args(["-q", "run", "token.js", token])
        .run();
    out.assert_code(0);
    let session = out.session();
    let child = first_child(&out, &session);
    assert!(
        child.argv.iter().any(|a| a.contains("[REDACTED:")),
        "{child:?}"
    );
    let written = std::fs::read_to_string(out.session_dir().join("session.json")).unwrap();
    assert!(!written.contains(token), "the token is in session.json");
}

#[test]
fn processes_past_the_cap_are_released_untraced_and_run_to_their_end() {
    // 68 Node children, four at a time: the first 64 are traced, the rest released untraced, and
    // every one runs to its end. (Whether a release waited for Node's announcement is not seen
    // from here; the driver's unit tests check that ordering against a stand-in inspector.)
    let out = Tracer::new()
        .file(
            "many.js",
            "const { execFile } = require('node:child_process');\n\
             const total = 68;\n\
             let started = 0;\n\
             let done = 0;\n\
             const next = () => {\n\
               if (started === total) return;\n\
               const i = started++;\n\
               execFile(process.execPath, ['-e', `console.log('kid ${i}')`], (e, said) => {\n\
                 if (e) {\n\
                   console.log('failed', i, e.message);\n\
                   process.exitCode = 1;\n\
                 } else {\n\
                   process.stdout.write(said);\n\
                 }\n\
                 if (++done === total) console.log('all done');\n\
                 else next();\n\
               });\n\
             };\n\
             for (let k = 0; k < 4; k++) next();\n",
        )
        .args(["-q", "run", "--timeout", "120", "many.js"])
        .run();
    out.assert_code(0);
    let stdout = out.stdout();
    assert!(stdout.contains("all done"), "{stdout}");
    for i in 0..68 {
        assert!(stdout.contains(&format!("kid {i}\n")), "kid {i}: {stdout}");
    }
    let session = out.session();
    assert_eq!(session.status, Status::Exited, "{}", out.dump());
    let untraced = session
        .processes
        .iter()
        .filter(|p| {
            p.note
                .as_deref()
                .is_some_and(|n| n.starts_with("released untraced"))
        })
        .count();
    let traced = session
        .processes
        .iter()
        .filter(|p| p.label.as_deref().is_some_and(|l| l.starts_with("child ")))
        .count();
    assert_eq!((traced, untraced), (64, 4), "{:#?}", session.processes);
    let pids: Vec<u32> = session.processes.iter().map(|p| p.pid).collect();
    assert_nothing_left_running(session.pid.unwrap(), &pids);
}

#[test]
fn the_bootloader_s_folder_is_in_tmpdir_when_it_is_set_else_in_memory_and_gone_after_the_run() {
    let prints = "console.log(process.env.TRACER_BOOT.split(':').slice(2).join(':'));\n";
    // With TMPDIR set: there, as for every temporary file.
    let tmpdir = tempfile::tempdir().unwrap();
    let out = Tracer::new()
        .file("where.js", prints)
        .env("TMPDIR", tmpdir.path())
        .args(["-q", "run", "where.js"])
        .run();
    out.assert_code(0);
    let folder = PathBuf::from(out.stdout().trim());
    assert_eq!(folder.parent(), Some(tmpdir.path()), "{}", out.dump());
    assert!(!folder.exists(), "{} is left behind", folder.display());
    assert_eq!(std::fs::read_dir(tmpdir.path()).unwrap().count(), 0);

    // Without it: /dev/shm where that is a memory file system open to all as /tmp is.
    let out = Tracer::new()
        .file("where.js", prints)
        .args(["-q", "run", "where.js"])
        .run();
    out.assert_code(0);
    let folder = PathBuf::from(out.stdout().trim());
    let shm_like_tmp = std::fs::metadata("/dev/shm").is_ok_and(|m| {
        use std::os::unix::fs::PermissionsExt;
        m.is_dir() && m.permissions().mode() & 0o7777 == 0o1777
    }) && std::process::Command::new("stat")
        .args(["-f", "-c", "%T", "/dev/shm"])
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "tmpfs");
    let wanted = if shm_like_tmp { "/dev/shm" } else { "/tmp" };
    assert_eq!(folder.parent(), Some(Path::new(wanted)), "{}", out.dump());
    assert!(!folder.exists(), "{} is left behind", folder.display());
}

/// Two test files that each fail, under `node --test`: the evidence names every failed test with
/// its message (the values the assertion compared), its site and the process that ran it; the
/// chain is made of the failing process's events only (never a log line of the other file's
/// process); the summary lists both tests before the chain.
/// `node --test` told to write its report to a file: no failed test can be named from the output,
/// and the note says where the report went (nothing said so).
#[test]
fn a_report_written_to_a_file_is_named_where_no_test_is() {
    let out = Tracer::new()
        .file(
            "test/cart.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\n\
             test('takes ten percent off', () => {\n  assert.strictEqual(16.2, 18);\n});\n",
        )
        .args([
            "run",
            "--",
            "node",
            "--test",
            "--test-reporter=junit",
            "--test-reporter-destination=out.xml",
            "test/",
        ])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    assert!(evidence.failure.tests.is_empty(), "{:#?}", evidence.failure);
    let note = evidence.chain_note.as_deref().unwrap_or_default();
    assert!(
        note.contains("wrote its report to out.xml"),
        "{evidence:#?}"
    );
}

/// `node --test` runs a file's tests in one process and reports them once all ran: the calls of a
/// later, passing test came closest to the report and were once the failed test's immediate
/// cause. A call made in a test's own code names that test (`testName`), and a failed test's chain
/// stops where the process moved on to another test's code, a call after an `await` (which names
/// no test) staying its own.
#[test]
fn a_later_passing_test_s_calls_are_no_cause_of_a_failed_test_s() {
    let out = Tracer::new()
        .file(
            "lib/ledger.js",
            "exports.parse = (s) => { console.log(`parsing ${s}`); return Number(s); };\n",
        )
        .file(
            "test/ledger.test.js",
            "const { test, describe } = require('node:test');\nconst assert = require('node:assert');\n\
             const { parse } = require('../lib/ledger');\n\
             test('balances', () => {\n  assert.strictEqual(parse('1') + parse('-2'), 0);\n});\n\
             test('parses', () => {\n  assert.strictEqual(parse('12'), 12);\n});\n\
             describe('later', () => {\n  test('waits', async () => {\n    parse('3');\n    await new Promise((r) => setTimeout(r, 5));\n    console.log('after the wait');\n    assert.ok(false);\n  });\n  test('next', () => {\n    parse('4');\n  });\n});\n",
        )
        .args(["run", "--color", "never", "--", "node", "--test", "test/"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let cause = evidence.immediate_cause.as_ref().expect("a cause");
    assert_eq!(cause.value.as_deref(), Some("parsing -2"), "{cause:#?}");
    let chains: Vec<(&str, Vec<&str>)> = evidence
        .failure
        .tests
        .iter()
        .map(|t| {
            (
                t.name.as_str(),
                t.chain.iter().filter_map(|s| s.value.as_deref()).collect(),
            )
        })
        .collect();
    assert_eq!(
        chains,
        [
            ("balances", vec!["parsing -2", "parsing 1"]),
            ("waits", vec!["after the wait", "parsing 3"]),
        ]
    );
    let made_in: Vec<(String, Option<String>)> = out
        .events()
        .into_iter()
        .filter(|e| e.kind == Kind::Console && e.worker.is_some())
        .map(|e| (e.value.unwrap_or_default(), e.test_name))
        .collect();
    let named = |v: &str, t: Option<&str>| (v.to_owned(), t.map(str::to_owned));
    assert_eq!(
        made_in,
        [
            named("parsing 1", Some("balances")),
            named("parsing -2", Some("balances")),
            named("parsing 12", Some("parses")),
            named("parsing 3", Some("later > waits")),
            named("after the wait", None),
            named("parsing 4", Some("later > next")),
        ]
    );
}

#[test]
fn every_failed_test_is_named_and_the_chain_is_the_failing_process_s() {
    let out = Tracer::new()
        .file(
            "test/math.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\n\
             test('adds big numbers', () => {\n  console.log('in math');\n  assert.strictEqual(1 + 1, 3);\n});\n",
        )
        .file(
            "test/other.test.js",
            "const test = require('node:test');\ntest('other fails', () => {\n  console.log('in other');\n  throw new Error('boom in other');\n});\n",
        )
        .args(["run", "--color", "never", "--", "node", "--test", "--test-concurrency=1"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let tests = &evidence.failure.tests;
    let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["adds big numbers", "other fails"], "{tests:#?}");
    assert_eq!(
        tests[0].message,
        "Expected values to be strictly equal: 2 !== 3"
    );
    assert!(
        tests[0]
            .file
            .as_deref()
            .unwrap()
            .ends_with("test/math.test.js")
    );
    assert_eq!(tests[0].line, Some(5));
    assert!(
        tests[1]
            .file
            .as_deref()
            .unwrap()
            .ends_with("test/other.test.js")
    );
    assert_eq!(tests[1].line, Some(4));
    assert_ne!(tests[0].process, tests[1].process, "{tests:#?}");
    assert!(tests.iter().all(|t| t.process.is_some()), "{tests:#?}");
    // The chain: the first failed test's process, never the other file's.
    let cause = evidence.immediate_cause.as_ref().expect("a cause");
    assert_eq!(cause.value.as_deref(), Some("in math"), "{cause:#?}");
    assert_eq!(cause.worker, tests[0].process);
    assert!(
        evidence
            .previous_state_transitions
            .iter()
            .all(|s| s.worker == tests[0].process),
        "{:#?}",
        evidence.previous_state_transitions
    );
    let stderr = out.stderr();
    assert!(stderr.contains("failed tests: 2"), "{stderr}");
    assert!(stderr.contains("✗ other fails: boom in other"), "{stderr}");
    // Each failed test is an event of the stream (`jq 'select(.kind=="test")'`), before the exit.
    let events = out.events();
    let tests: Vec<&Event> = events.iter().filter(|e| e.kind == Kind::Test).collect();
    let seen: Vec<(&str, Option<&str>, Option<&str>)> = tests
        .iter()
        .map(|e| (e.detail.as_str(), e.status.as_deref(), e.worker.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            (
                "adds big numbers",
                Some("failed"),
                evidence.failure.tests[0].process.as_deref()
            ),
            (
                "other fails",
                Some("failed"),
                evidence.failure.tests[1].process.as_deref()
            ),
        ]
    );
    assert_eq!(tests[1].line, Some(4));
    assert_eq!(events.last().map(|e| e.kind), Some(Kind::Exit));
    assert!(out.events_file().iter().any(|e| e.kind == Kind::Test));
}

/// After several failed tests, the summary's stderr tail is said to be the end of the whole output
/// (here the last test's stack), not the frames of the test it names first.
#[test]
fn the_stderr_tail_after_several_failed_tests_is_not_the_first_one_s() {
    let tap = "TAP version 13\\n# Subtest: first fails\\nnot ok 1 - first fails\\n  ---\\n  duration_ms: 1\\n  failureType: 'testCodeFailure'\\n  error: 'first broke'\\n  code: 'ERR_TEST_FAILURE'\\n  ...\\n# Subtest: second fails\\nnot ok 2 - second fails\\n  ---\\n  duration_ms: 1\\n  failureType: 'testCodeFailure'\\n  error: 'second broke'\\n  code: 'ERR_TEST_FAILURE'\\n  ...\\n1..2";
    let out = Tracer::new()
        .file(
            "runner.js",
            format!(
                "// A runner's TAP report of two failing tests, then the last one's stack on stderr.\n\
                 console.log(\"{tap}\");\n\
                 console.error('Error: second broke\\n    at second (runner.js:30:9)');\n\
                 process.exitCode = 1;\n"
            ),
        )
        .args(["run", "--color", "never", "runner.js"])
        .run();
    out.assert_code(1);
    let stderr = out.stderr();
    assert!(stderr.contains("failed tests: 2"), "{stderr}");
    assert!(
        stderr
            .contains("stderr ended with (the end of the output, after every failed test above):"),
        "{stderr}"
    );
}

/// jest running one test file prints each console call as it is made (`  console.log`, before
/// the file's `FAIL` line) instead of in a `● Console` section: the call is read back all the
/// same, on the process that ran the file, and is the failed test's own line (it once was
/// neither).
#[test]
fn jest_running_one_file_has_its_console_calls_read_back() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/test-suite");
    let Some((mut tracer, _)) = test_suite_with_modules("jest", "jest_running_one_file") else {
        return;
    };
    for file in SECOND_FILE {
        tracer = tracer.file(file, std::fs::read(example.join(file)).unwrap());
    }
    let out = tracer
        .args(["-q", "run", "--", "npx", "jest", "__tests__/inventory.js"])
        .run();
    out.assert_code(1);
    let events = out.events();
    let calls: Vec<(&str, Option<&str>)> = of_kind(&events, Kind::Console)
        .iter()
        .map(|e| (e.value.as_deref().unwrap_or(""), e.file.as_deref()))
        .collect();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].0, "stock after the order {\"apples\":1}");
    assert!(
        calls[0].1.is_some_and(|f| f.ends_with("lib/inventory.js")),
        "{calls:?}"
    );
    let evidence = out.evidence().expect("evidence");
    let test = &evidence.failure.tests[0];
    let printed = test.chain.iter().find(|s| s.value.is_some());
    assert_eq!(
        printed.and_then(|s| s.value.as_deref()),
        Some("stock after the order {\"apples\":1}"),
        "{:#?}",
        test.chain
    );
    assert_eq!(printed.unwrap().worker, test.process, "{test:?}");
}

/// Each runner of `examples/test-suite` with a failing test in each of two files (node --test,
/// mocha, mocha `--parallel` (whose main process lists a file's tests once a worker ran the whole
/// file: each test's chain once was empty), jest, vitest, tape, which prints its TAP through the
/// console, mocha's dot reporter, jasmine and uvu, which print a mark per test and name none until
/// the report (both tests once had the same chain, both files' lines), jasmine `--parallel`,
/// QUnit's TAP, cucumber-js;
/// each from the npm registry but
/// node's, skipped, saying so, without `npm ci`): both failed tests are named with their sites and the values the runner printed, both
/// are `test` events of the stream, and each has a chain of its own: the second file's test has
/// its own code's line (`lib/inventory.js`), the first none of it (the chain once took the other
/// file's lines, and jest's and vitest's replaced consoles gave none).
#[test]
fn every_runner_names_both_failed_tests_each_with_its_own_chain() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/test-suite");
    let cases = [
        (
            "test",
            None,
            " - ",
            "test/cart.test.js",
            "test/inventory.test.js",
        ),
        (
            "test:mocha",
            Some("mocha"),
            " › ",
            "spec/cart.spec.js",
            "spec/inventory.spec.js",
        ),
        (
            "test:mocha-parallel",
            Some("mocha"),
            " › ",
            "spec/cart.spec.js",
            "spec/inventory.spec.js",
        ),
        (
            "test:jest",
            Some("jest"),
            " › ",
            "__tests__/cart.js",
            "__tests__/inventory.js",
        ),
        (
            "test:vitest",
            Some("vitest"),
            " > ",
            "vitest/cart.spec.mjs",
            "vitest/inventory.spec.mjs",
        ),
        (
            "test:tape",
            Some("tape"),
            " - ",
            "tape/cart.js",
            "tape/inventory.js",
        ),
        // A mark per test as it ends (`.`, `!`; jasmine's `F`), no test named until the report.
        (
            "test:mocha-dot",
            Some("mocha"),
            " › ",
            "spec/cart.spec.js",
            "spec/inventory.spec.js",
        ),
        (
            "test:jasmine",
            Some("jasmine"),
            " ",
            "spec/cart.spec.js",
            "spec/inventory.spec.js",
        ),
        // jasmine `--parallel`: its `cluster` workers are given the coordinator's arguments, every
        // spec file (each test was once placed on the coordinator, which ran none, with no chain).
        (
            "test:jasmine-parallel",
            Some("jasmine"),
            " ",
            "spec/cart.spec.js",
            "spec/inventory.spec.js",
        ),
        // uvu writes its marks and report on stdout, its tests' lines came through the console
        // late at times (each chain once changed from run to run).
        (
            "test:uvu",
            Some("uvu"),
            " - ",
            "uvu/cart.js",
            "uvu/inventory.js",
        ),
        // QUnit prints TAP through its console, its keys padded (`actual  : 16.2`; no test was
        // read once).
        (
            "test:qunit",
            Some("qunit"),
            " > ",
            "qunit/cart.js",
            "qunit/inventory.js",
        ),
        // cucumber-js: a scenario is the test (it was once named by its failed step, `Then the
        // total is 18 # features/…`), a mark per step, the scenario's window from its first.
        (
            "test:cucumber",
            Some("@cucumber/cucumber"),
            " - ",
            "features/step_definitions/cart.steps.js",
            "features/step_definitions/inventory.steps.js",
        ),
    ];
    for (script, package, separator, cart, inventory) in cases {
        let setup = match package {
            Some(package) => {
                test_suite_with_modules(package, "every_runner_names_both_failed_tests")
            }
            None => npm_or_skip("every_runner_names_both_failed_tests").map(|_| {
                let tracer = test_suite();
                let dir = tracer.workspace().to_owned();
                (tracer, dir)
            }),
        };
        let Some((mut tracer, _)) = setup else {
            continue;
        };
        for file in SECOND_FILE.into_iter().chain(["__tests__/cart.js"]) {
            tracer = tracer.file(file, std::fs::read(example.join(file)).unwrap());
        }
        let out = tracer.args(["-q", "run", "--", "npm", "run", script]).run();
        out.assert_code(1);
        let evidence = out.evidence().expect("evidence");
        let tests = &evidence.failure.tests;
        let find = |leaf: &str| {
            tests
                .iter()
                .find(|t| t.name.ends_with(leaf))
                .unwrap_or_else(|| panic!("{script}: no failed test {leaf:?} in {tests:#?}"))
        };
        assert_eq!(tests.len(), 2, "{script}: {tests:#?}");
        let first = find("takes ten percent off with TEN");
        let second = find("an urgent order takes its items once");
        if separator != " - " {
            assert!(
                second.name.starts_with(&format!("stock{separator}")),
                "{script}: {second:?}"
            );
        }
        for (test, file, values) in [
            (first, cart, ["16.2", "18"]),
            (second, inventory, ["1", "3"]),
        ] {
            assert!(
                test.file.as_deref().is_some_and(|f| f.ends_with(file)) && test.line.is_some(),
                "{script}: the assertion's site: {test:?}"
            );
            for value in values {
                assert!(test.message.contains(value), "{script}: {test:?}");
            }
        }
        let own = |test: &tracer::trace::evidence::FailedTest| -> Vec<String> {
            test.chain.iter().filter_map(|s| s.value.clone()).collect()
        };
        for test in [first, second] {
            assert!(test.process.is_some(), "{script}: no process: {test:?}");
        }
        if script == "test:jest" {
            // jest prints a file's console calls together, after its tests ran (`● Console`):
            // which test made each is not known, so no test's chain names one (the failure's
            // chain says why: `evidence::…jest_s_console_section…`).
            assert!(
                first.chain.is_empty() && second.chain.is_empty(),
                "{script}: {tests:#?}"
            );
            continue;
        }
        assert_eq!(
            own(second).first().map(String::as_str),
            Some("stock after the order {\"apples\":1}"),
            "{script}: {:#?}",
            second.chain
        );
        // Each test is placed on the process that ran its file, and the line its code printed on
        // that process's track (vitest's workers are told by the files they parsed).
        let printed = second.chain.iter().find(|s| s.value.is_some()).unwrap();
        assert_eq!(printed.worker, second.process, "{script}: {printed:?}");
        assert!(
            own(first).iter().all(|v| !v.contains("stock after")),
            "{script}: the other file's line in the first test's chain: {:#?}",
            first.chain
        );
        // The replay lists both, one line each, before the timeline.
        let replay = out.tracer().args(["replay", "latest"]).run().stdout();
        let timeline = replay.find("\n#1 ").unwrap_or(replay.len());
        assert!(
            replay[..timeline].contains("failed tests: 2")
                && replay[..timeline].contains(&second.name),
            "{script}: {replay}"
        );
        let events = out.events();
        let failed: Vec<&str> = of_kind(&events, Kind::Test)
            .iter()
            .filter(|e| e.status.as_deref() == Some("failed"))
            .map(|e| e.detail.as_str())
            .collect();
        assert_eq!(failed.len(), 2, "{script}: {failed:?}");
    }
}

#[test]
fn a_process_with_its_own_inspect_flag_is_listed_untraced_with_a_warning_and_its_url() {
    // Port 0: the kernel's choice, so that no other test's or user's 9229 is in the way.
    let out = Tracer::new()
        .file("ok.js", "console.log('done');\n")
        .args(["run", "--", "node", "--inspect=127.0.0.1:0", "ok.js"])
        .run();
    out.assert_code(0);
    assert!(out.stdout().contains("done"), "{}", out.dump());
    let session = out.session();
    let process = session
        .processes
        .iter()
        .find(|p| p.role == "untraced")
        .unwrap_or_else(|| panic!("the process is listed: {:#?}", session.processes));
    let note = process.note.as_deref().unwrap_or_default();
    assert!(
        note.contains("its own --inspect=127.0.0.1:0 flag")
            && note.contains("(ws://127.0.0.1:")
            && note.contains("drop the flag"),
        "{note}"
    );
    assert!(
        out.stderr().contains(&format!(
            "warning: process {} (node --inspect=127.0.0.1:0 ",
            process.pid
        )),
        "a run that passes still says what it did not trace: {}",
        out.stderr()
    );
}

/// `tsc` with source maps, then `node --test dist/`: the runner's report names the built files
/// (`location: '…/dist/test/price.test.js:10:22'`), its site maps to `src/price.ts`, which no process
/// runs: the failed test is still the process's that ran its built file (it was once none).
#[test]
fn a_test_of_tsc_s_output_is_the_process_s_that_ran_the_built_file() {
    let tracer = [
        "src/price.ts",
        "test/price.test.ts",
        "dist/src/price.js",
        "dist/src/price.js.map",
        "dist/test/price.test.js",
        "dist/test/price.test.js.map",
    ]
    .iter()
    .fold(Tracer::new(), |t, f| t.fixture(&format!("ts-test/{f}")));
    let out = tracer
        .args(["run", "--", "node", "--test", "ts-test/dist/"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let test = evidence.failure.tests.first().expect("the failed test");
    assert_eq!(test.name, "prices coffee");
    let source = out
        .workspace()
        .join("ts-test/src/price.ts")
        .display()
        .to_string();
    assert_eq!(
        (test.file.as_deref(), test.line),
        (Some(source.as_str()), Some(7))
    );
    assert_eq!(test.process.as_deref(), Some("child 1"), "{test:?}");
}

/// `test_suite_with_modules` with every runner's second failing test and jest's first.
fn whole_test_suite(package: &str, test: &str) -> Option<(Tracer, PathBuf)> {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/test-suite");
    let (mut tracer, dir) = test_suite_with_modules(package, test)?;
    for file in SECOND_FILE.into_iter().chain(["__tests__/cart.js"]) {
        tracer = tracer.file(file, std::fs::read(example.join(file)).unwrap());
    }
    Some((tracer, dir))
}

/// The label of the process of `out`'s run whose script ends with `script` (`program` for the
/// program's).
fn label_running(out: &crate::support::Output, script: &str) -> Option<String> {
    let session = out.session();
    let process = session
        .processes
        .iter()
        .find(|p| p.argv.get(1).is_some_and(|a| a.ends_with(script)));
    process.map(|p| p.label.clone().unwrap_or_else(|| "program".to_owned()))
}

/// `tracer run` of mocha on `spec/` beside a second Node process, as c8 and nyc run it: the run,
/// which failed, and mocha's label.
fn mocha_beside_another_node_process(tracer: Tracer) -> (crate::support::Output, String) {
    let out = tracer
        .args([
            "run",
            "--color",
            "never",
            "--",
            "sh",
            "-c",
            "node -e 'setTimeout(() => {}, 100)' & node_modules/.bin/mocha spec/; code=$?; wait; exit $code",
        ])
        .run();
    out.assert_code(1);
    let mocha = label_running(&out, "node_modules/.bin/mocha").expect("mocha traced");
    (out, mocha)
}

/// mocha beside another Node process, as c8 and nyc run it (beside their own and a watchdog): no
/// argument names a test file and mocha is not the run's only Node process, but its module cache
/// held both files, so both failed tests are mocha's (they once named no process).
#[test]
fn mocha_beside_another_node_process_is_named_by_the_files_it_loaded() {
    let Some((tracer, _)) = whole_test_suite("mocha", "mocha_beside_another_node_process") else {
        return;
    };
    let (out, mocha) = mocha_beside_another_node_process(tracer);
    let evidence = out.evidence().unwrap();
    let tests = &evidence.failure.tests;
    assert_eq!(tests.len(), 2, "{tests:#?}");
    for test in tests {
        assert_eq!(test.process.as_deref(), Some(mocha.as_str()), "{test:#?}");
    }
    let session = out.session();
    let listed = session
        .processes
        .iter()
        .find(|p| p.label.as_deref() == Some(mocha.as_str()))
        .unwrap();
    let own = |file: &str| out.workspace().join(file).display().to_string();
    for file in ["spec/cart.spec.js", "spec/inventory.spec.js", "lib/cart.js"] {
        assert!(listed.modules.contains(&own(file)), "{file}: {listed:#?}");
    }
    assert!(
        listed.modules.iter().all(|m| !m.contains("/node_modules/")),
        "{listed:#?}"
    );
}

/// jest in band (its timing cache says the files are fast) with coverage: it still starts two
/// `jest-worker` processes, which parse none of the test files (their own scripts are recorded):
/// the tests are jest's own process's (they once named none).
#[test]
fn jest_in_band_beside_its_coverage_workers_runs_the_tests() {
    let Some((tracer, dir)) = whole_test_suite("jest", "jest_in_band_beside_its_coverage_workers")
    else {
        return;
    };
    let cache = dir.join(".jest-cache");
    let coverage = dir.join(".coverage");
    let jest_args = [
        "node_modules/.bin/jest".to_owned(),
        "--coverage".to_owned(),
        format!("--coverageDirectory={}", coverage.display()),
        format!("--cacheDirectory={}", cache.display()),
        "-w".to_owned(),
        "2".to_owned(),
        "__tests__/".to_owned(),
    ];
    // A first run fills the timing cache, after which jest runs the two files in band.
    let warm = in_a_cleared_environment("node")
        .args(&jest_args)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(warm.status.code(), Some(1), "{warm:?}");
    let mut args = vec!["run".to_owned(), "--".to_owned(), "node".to_owned()];
    args.extend(jest_args);
    let out = tracer.args(args).run();
    out.assert_code(1);
    let jest = label_running(&out, "node_modules/.bin/jest").expect("jest traced");
    let session = out.session();
    let workers = session
        .processes
        .iter()
        .filter(|p| {
            p.argv
                .get(1)
                .is_some_and(|a| a.ends_with("processChild.js"))
        })
        .count();
    // Two for coverage; on a loaded machine two more may run the files first.
    assert!(workers >= 2, "{:#?}", session.processes);
    let tests = &out.evidence().unwrap().failure.tests;
    assert_eq!(tests.len(), 2, "{tests:#?}");
    for test in tests {
        // On a loaded machine the cached times can be too long for jest to run in band: its
        // workers then run the files, and parse them.
        let file = test.file.as_deref().unwrap_or_default();
        let ran = session
            .events
            .iter()
            .find(|e| e.kind == Kind::Script && e.file.as_deref() == Some(file))
            .map_or(jest.as_str(), |e| e.worker.as_deref().unwrap_or("program"));
        assert_eq!(test.process.as_deref(), Some(ran), "{test:#?}");
    }
}

/// concurrently (from npm) runs `node --test` and mocha at once and relays each one's lines after
/// its label (`[node] …`), writing the label apart from the line: the inspector's lines of its
/// children go whole, labels and all (they were passed on, and a label was left in front of the
/// next line: `[node] [node] TAP version 13`), and every failed test of both runners is read
/// through the labels, at its site, on the process that ran its file (none was read).
#[test]
fn two_runners_relayed_by_concurrently_are_read_through_its_labels() {
    let Some((tracer, dir)) =
        test_suite_with_modules("concurrently", "two_runners_relayed_by_concurrently")
    else {
        return;
    };
    let tracer = SECOND_FILE
        .iter()
        .filter(|f| f.starts_with("test/") || f.starts_with("spec/") || f.starts_with("lib/"))
        .fold(tracer, |t, f| {
            t.file(
                f,
                std::fs::read(
                    Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("examples/test-suite")
                        .join(f),
                )
                .unwrap(),
            )
        });
    let (plain_code, plain_stdout) = plain(&dir, "npm", &["run", "test:both"]);
    let out = tracer
        .args(["-q", "run", "--", "npm", "run", "test:both"])
        .run();
    assert_eq!(plain_code, 1);
    out.assert_code(1);
    let stdout = out.stdout();
    for inspector in ["Debugger", "For help, see", "ws://"] {
        assert!(!stdout.contains(inspector), "{stdout}");
    }
    // The same lines as without tracer (the two runners' lines interleave differently each run).
    let lines = |text: &str| {
        let mut lines: Vec<String> = without_durations(text).lines().map(str::to_owned).collect();
        lines.sort();
        lines
    };
    assert_eq!(lines(&stdout), lines(&plain_stdout));
    let evidence = out.evidence().expect("evidence for a failed run");
    let session = out.session();
    let ran = |test: &tracer::trace::evidence::FailedTest| {
        let process = test
            .process
            .as_deref()
            .unwrap_or_else(|| panic!("no process: {test:?}"));
        session
            .processes
            .iter()
            .find(|p| p.label.as_deref() == Some(process))
            .map(|p| p.argv.join(" "))
            .unwrap_or_default()
    };
    let mut found: Vec<(String, String, Option<u32>, bool)> = evidence
        .failure
        .tests
        .iter()
        .map(|t| {
            let file = t.file.clone().unwrap_or_default();
            let runner = if file.contains("/spec/") {
                "mocha"
            } else {
                "test/"
            };
            (
                t.name.clone(),
                file.rsplit('/').take(2).collect::<Vec<_>>().join("<"),
                t.line,
                ran(t).contains(runner),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            (
                "an urgent order takes its items once".into(),
                "inventory.test.js<test".into(),
                Some(7),
                true
            ),
            (
                "stock › an urgent order takes its items once".into(),
                "inventory.spec.js<spec".into(),
                Some(7),
                true
            ),
            (
                "takes ten percent off with TEN".into(),
                "cart.test.js<test".into(),
                Some(11),
                true
            ),
            (
                "total › takes ten percent off with TEN".into(),
                "cart.spec.js<spec".into(),
                Some(11),
                true
            ),
        ],
        "{}",
        out.dump()
    );
}

/// A program runs two checks at once and fails because one did: the chain's lead is the failed
/// check's own last line, not the other's later "cache: ok" (a process that ended with 0), whose
/// events are left out, saying so.
#[test]
fn a_process_that_ended_with_0_is_no_lead_for_a_sibling_s_failure() {
    let out = Tracer::new()
        .file(
            "parent.js",
            "const { spawn } = require('node:child_process');\n\
             const run = (file) => new Promise((resolve) => spawn(process.execPath, [file], { stdio: 'inherit' }).on('exit', resolve));\n\
             Promise.all([run('check-db.js'), run('check-cache.js')]).then((codes) => { process.exitCode = codes.some((c) => c !== 0) ? 1 : 0; });\n",
        )
        .file(
            "check-db.js",
            "console.log('db: connecting');\nsetTimeout(() => { console.log('db: migration 7 missing'); process.exitCode = 1; }, 20);\n",
        )
        .file(
            "check-cache.js",
            "console.log('cache: warming');\nsetTimeout(() => console.log('cache: ok'), 600);\n",
        )
        .args(["run", "--color", "never", "parent.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let cause = evidence.immediate_cause.as_ref().expect("a cause");
    assert_eq!(
        cause.value.as_deref(),
        Some("db: migration 7 missing"),
        "{evidence:#?}"
    );
    assert!(
        evidence.previous_state_transitions.iter().all(|s| !s
            .value
            .as_deref()
            .unwrap_or("")
            .starts_with("cache")),
        "{evidence:#?}"
    );
    let note = evidence.chain_note.as_deref().unwrap_or("");
    assert!(note.contains("ended with 0 are left out"), "{note}");
}

/// An ES module spec is in no module cache, and its test made no console call: beside another Node
/// process, its failed test is named by the process whose console printed mocha's report of it
/// (mocha reports through `console.log` in the process that ran the test; it once named none).
#[test]
fn an_es_module_spec_s_failed_test_is_named_by_the_process_that_reported_it() {
    let Some((tracer, _)) = whole_test_suite("mocha", "an_es_module_spec_s_failed_test") else {
        return;
    };
    let spec = "import assert from 'node:assert';\n\
                describe('module', () => {\n  it('adds in a module', () => {\n    assert.strictEqual(1 + 1, 3);\n  });\n});\n";
    let tracer = tracer.file("spec/module.spec.mjs", spec);
    let (out, mocha) = mocha_beside_another_node_process(tracer);
    let evidence = out.evidence().unwrap();
    let module = evidence
        .failure
        .tests
        .iter()
        .find(|t| t.name.contains("adds in a module"))
        .unwrap_or_else(|| panic!("{:#?}", evidence.failure.tests));
    assert!(
        module
            .file
            .as_deref()
            .is_some_and(|f| f.ends_with("spec/module.spec.mjs")),
        "{module:#?}"
    );
    assert_eq!(
        module.process.as_deref(),
        Some(mocha.as_str()),
        "{module:#?}"
    );
}

/// `node --test` reports a test file that threw as it loaded as a test named by the file, "test
/// failed" at its first line: each such test takes its process's own uncaught exception, message
/// and site (a module it imported, `settings.js:3`; a syntax error of its own). With two such
/// files, the one that did not lead was named only "test failed" at `file:1`.
#[test]
fn a_test_file_that_threw_as_it_loaded_is_its_exception_s_failure() {
    let out = Tracer::new()
        .file(
            "settings.js",
            "// settings\nconst text = '{ mode: 1 }';\nmodule.exports = JSON.parse(text);\n",
        )
        .file(
            "test/a.test.js",
            "const settings = require('../settings.js');\nrequire('node:test')('a', () => {});\n",
        )
        .file(
            "test/c.test.js",
            "require('node:test')('c', () => {});\nconst x = {a: 1,,};\n",
        )
        .args([
            "run",
            "--color",
            "never",
            "--",
            "node",
            "--test",
            "--test-concurrency=1",
        ])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let mut found: Vec<(String, String, Option<u32>)> = evidence
        .failure
        .tests
        .iter()
        .map(|t| {
            let file = t
                .file
                .as_deref()
                .unwrap_or("")
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_owned();
            (file, t.message.clone(), t.line)
        })
        .collect();
    found.sort();
    assert_eq!(found.len(), 2, "{:#?}", evidence.failure.tests);
    assert_eq!(found[0].0, "c.test.js");
    assert!(
        found[0].1.starts_with("SyntaxError: Unexpected token"),
        "{found:?}"
    );
    assert_eq!(found[0].2, Some(2));
    assert_eq!(found[1].0, "settings.js");
    assert!(
        found[1].1.starts_with("SyntaxError:") && found[1].1.contains("JSON"),
        "{found:?}"
    );
    assert_eq!(found[1].2, Some(3));
}
