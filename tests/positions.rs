//! Where a failure is: positions through source maps and loaders (and what cannot be mapped), a
//! failure inside `node_modules` or deep in a library named at the user's own frame, a syntax
//! error, an ES module graph, and the positions tools print (a CLI, a bundler, webpack, a test
//! runner, a linter).

use tracer::trace::event::{Event, Kind};
use tracer::trace::evidence::Confidence;

use crate::support::{Tracer, of_kind};

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

/// The first console call of a run of the `loader/` fixtures, and `loader/order.ts`'s path.
fn first_console_call(out: &crate::support::Output) -> (Event, String) {
    let order = out
        .workspace()
        .join("loader/order.ts")
        .display()
        .to_string();
    let events = out.events();
    let log = (*of_kind(&events, Kind::Console)
        .first()
        .expect("the console call"))
    .clone();
    (log, order)
}

/// `log` is placed at `loader/order.ts`'s console call (line 3, column 11), at `order`.
fn assert_at_the_console_call_in_order_ts(log: &Event, order: &str) {
    assert_eq!(
        (log.file.as_deref(), log.line, log.column),
        (Some(order), Some(3), Some(11)),
        "{log:?}"
    );
}

/// A workspace with the `loader/` fixtures: a tiny loader that puts 20 lines in front of `.ts` code.
fn with_loader() -> Tracer {
    [
        "hooks.mjs",
        "register.mjs",
        "order.ts",
        "main.ts",
        "main.js",
        "parent.js",
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
    let (log, order) = first_console_call(&out);
    assert_at_the_console_call_in_order_ts(&log, &order);
    assert_eq!(log.generated.as_ref().map(|g| g.line), Some(23));
}

#[test]
fn a_child_whose_own_flags_load_a_loader_has_its_positions_mapped() {
    // `tracer run -- npx tsx app.ts`: the loader is in the child's own flags, not in NODE_OPTIONS;
    // the map is known to the child's runtime only.
    let out = with_loader().args(["run", "loader/parent.js"]).run();
    out.assert_code(0);
    let (log, order) = first_console_call(&out);
    assert_eq!(log.worker.as_deref(), Some("child 1"), "{log:?}");
    assert_at_the_console_call_in_order_ts(&log, &order);
}

/// A preload that instruments `src/` as nyc does (five lines of its own before each file, and an
/// inline source map back to it).
const INSTRUMENTING_PRELOAD: &str = r#"// A preload that instruments src/ as nyc does: five lines of its own before each file, and an
// inline source map back to the file.
const Module = require('module');
const fs = require('fs');
const original = Module._extensions['.js'];
Module._extensions['.js'] = function (module, filename) {
  if (!filename.includes('/src/')) return original(module, filename);
  const text = fs.readFileSync(filename, 'utf8');
  const lines = text.split('\n').length;
  const mappings = ';;;;;AAAA' + ';AACA'.repeat(lines - 1);
  const map = { version: 3, sources: [filename], names: [], mappings };
  const head = 'var __cov = 0;\n__cov++;\n__cov++;\n__cov++;\n__cov++;\n';
  const code = head + text + '\n//# sourceMappingURL=data:application/json;base64,' +
    Buffer.from(JSON.stringify(map)).toString('base64') + '\n';
  module._compile(code, filename);
};
"#;

#[test]
fn a_preload_a_launcher_adds_to_node_options_has_its_positions_mapped() {
    // nyc runs its command with `--require …/node-preload.js` added to NODE_OPTIONS, and every
    // file is instrumented as it loads: its console calls were shown at the instrumented line
    // (here line 8 of src/lib.js, a comment) with no note, where the runtime's map says line 3.
    let out = Tracer::new()
        .file("shift.js", INSTRUMENTING_PRELOAD)
        .file("src/lib.js", r#"'use strict';
function work(n) {
  console.log('working on', n);
  return n * 2;
}
module.exports = { work };
// padding
// padding
// padding
// padding
// padding
// padding
"#)
        .file(
            "app.js",
            "console.log('result', require('./src/lib').work(21));\n",
        )
        .file("launch.js", r#"const { spawnSync } = require('child_process');
const env = { ...process.env, NODE_OPTIONS: (process.env.NODE_OPTIONS || '') + ' --require ' + __dirname + '/shift.js' };
process.exit(spawnSync(process.execPath, [__dirname + '/app.js'], { env, stdio: 'inherit' }).status);
"#)
        .args(["run", "launch.js"])
        .run();
    out.assert_code(0);
    assert!(out.stdout().contains("working on 21"), "{}", out.dump());
    let events = out.events();
    let call = of_kind(&events, Kind::Console)
        .into_iter()
        .find(|e| e.value.as_deref() == Some("working on 21"))
        .unwrap_or_else(|| panic!("{events:#?}"));
    assert!(
        call.file
            .as_deref()
            .is_some_and(|f| f.ends_with("src/lib.js"))
            && call.line == Some(3),
        "{call:?}"
    );
}

#[test]
fn a_loader_the_program_registers_itself_has_its_positions_mapped_through_the_runtime_s_map() {
    // `mocha --require ts-node/register`: nothing on the command line names the loader; the
    // program registers it itself, and its map is inline in the code it made. The first position
    // in a `.ts` file has tracer ask the running program for its scripts and their maps.
    let out = with_loader().args(["run", "loader/main.js"]).run();
    out.assert_code(1);
    let (log, order) = first_console_call(&out);
    assert_at_the_console_call_in_order_ts(&log, &order);
    assert_eq!(log.generated.as_ref().map(|g| g.line), Some(23));
    let evidence = out.evidence().unwrap();
    let failure = &evidence.failure;
    assert_eq!(failure.message, "Error: no pears today");
    assert_eq!(
        (failure.file.as_deref(), failure.line, failure.column),
        (Some(order.as_str()), Some(4), Some(37)),
        "{failure:?}"
    );
    assert_eq!(
        failure.source_line.as_deref(),
        Some(r#"  if (order.item === "pears") throw new Error("no pears today");"#)
    );
}

/// `node --import tsx --test`: a test past its timeout has no stack, only TAP's `location:`, a
/// position in the code the loader made. The test's process reported that code's map (its console
/// call was mapped through it), and the test's site is mapped through it too, read after the
/// process ended (it was "unmapped: no source map was known").
#[test]
fn a_test_report_s_location_in_code_a_loader_made_is_mapped_through_the_runtime_s_map() {
    let out = with_loader()
        .file(
            "loader/slow.test.ts",
            "import test from \"node:test\";\nconsole.log(\"waiting\");\n\ntest(\"answers within the deadline\", { timeout: 50 }, async () => {\n  await new Promise((resolve) => setTimeout(resolve, 400));\n});\n",
        )
        .args([
            "run",
            "--",
            "node",
            "--import",
            "./loader/register.mjs",
            "--test",
            "loader/slow.test.ts",
        ])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let test = evidence
        .failure
        .tests
        .first()
        .unwrap_or_else(|| panic!("{}", out.dump()));
    assert_eq!(test.name, "answers within the deadline");
    assert!(
        test.file
            .as_deref()
            .is_some_and(|f| f.ends_with("loader/slow.test.ts")),
        "{test:#?}"
    );
    assert_eq!(test.line, Some(4), "{test:#?}");
}

#[test]
fn a_source_edited_after_its_build_is_not_shown_for_the_build_s_positions() {
    // `node dist/app.js` after editing `app.ts` without rebuilding: the map's lines are the old
    // file's, and line 20 of the edited file is another line (it was once shown as the failure's,
    // with confidence high). The built file on disk is what ran: its position is shown, with a
    // warning.
    let tracer = Tracer::new()
        .fixture("ts/app.ts")
        .fixture("ts/app.js")
        .fixture("ts/app.js.map");
    let source = tracer.workspace().join("ts/app.ts");
    let text = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, format!("// edited\n// since the build\n{text}")).unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&source)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let out = tracer.args(["run", "ts/app.js"]).run();
    out.assert_code(1);
    let built = out.workspace().join("ts/app.js").display().to_string();
    let evidence = out.evidence().unwrap();
    let failure = &evidence.failure;
    assert_eq!(failure.file.as_deref(), Some(built.as_str()), "{failure:?}");
    assert_eq!(
        failure.source_line.as_deref().map(str::trim),
        Some("throw new Error(message);")
    );
    assert!(
        out.stderr().contains("warning:") && out.stderr().contains("(a stale build?)"),
        "{}",
        out.stderr()
    );
    let (log, _) = first_console_call(&out);
    assert_eq!(log.file.as_deref(), Some(built.as_str()), "{log:?}");
}

/// A bundle `dist/main.js` as webpack writes it (one line per line of `src/util.ts`), its map
/// naming the source `source` (webpack's own URL for it); `on_disk`: `src/util.ts` is there.
fn webpack_bundle(source: &str, on_disk: bool) -> Tracer {
    let util = "export function parse(q) {\n  console.log(\"parsing\", q);\n  if (typeof q !== \"number\") {\n    throw new TypeError(\"bad quantity \" + q);\n  }\n}\n";
    let bundle = "function parse(q) {\n  console.log(\"parsing\", q);\n  if (typeof q !== \"number\") {\n    throw new TypeError(\"bad quantity \" + q);\n  }\n}\nparse(\"two\");\n//# sourceMappingURL=main.js.map\n";
    let map = serde_json::json!({
        "version": 3, "file": "main.js", "sources": [source], "sourcesContent": [util],
        "names": [], "mappings": "AAAA;AACA;AACA;AACA;AACA;AACA",
    });
    let tracer = Tracer::new()
        .file("dist/main.js", bundle)
        .file("dist/main.js.map", map.to_string());
    if on_disk {
        tracer.file("src/util.ts", util)
    } else {
        tracer
    }
}

#[test]
fn a_webpack_source_is_found_from_the_project_s_folder_not_the_map_s() {
    // webpack names a module relative to its context (the project's folder): the file is
    // `src/util.ts`, never `dist/webpack:/app/src/util.ts` (once shown, confidence high).
    for source in ["webpack://app/./src/util.ts", "webpack:///./src/util.ts"] {
        let out = webpack_bundle(source, true)
            .args(["run", "dist/main.js"])
            .run();
        out.assert_code(1);
        let util = out.workspace().join("src/util.ts").display().to_string();
        let failure = out.evidence().unwrap().failure;
        assert_eq!(
            (failure.file.as_deref(), failure.line),
            (Some(util.as_str()), Some(4)),
            "{source}"
        );
    }
}

#[test]
fn a_source_the_map_names_that_is_not_here_leaves_the_built_file_s_position() {
    // A package shipping its build without its sources: the map's source is no file here, and
    // the built file that ran is shown, with a note naming the source.
    let out = webpack_bundle("webpack:///./src/util.ts", false)
        .args(["run", "dist/main.js"])
        .run();
    out.assert_code(1);
    let built = out.workspace().join("dist/main.js").display().to_string();
    let events = out.events();
    let exception = *of_kind(&events, Kind::Exception).first().unwrap();
    assert_eq!(
        (exception.file.as_deref(), exception.line),
        (Some(built.as_str()), Some(4))
    );
    assert!(
        exception.note.as_deref().is_some_and(
            |n| n.contains("webpack:///./src/util.ts:4:1") && n.contains("not a file here")
        ),
        "{exception:?}"
    );
    assert_eq!(
        out.evidence().unwrap().failure.file.as_deref(),
        Some(built.as_str())
    );
}

#[test]
fn a_transformed_position_that_fits_the_file_by_chance_is_still_unmapped() {
    // Two lines in front and no map: the console call (line 3) runs at line 5, column 11, which
    // order.ts has (`  return order.item;`). A `.ts` file is never what Node ran, and without a
    // map or the script's length that position is no line of it.
    let out = with_loader()
        .env("LOADER_NO_MAP", "1")
        .env("LOADER_PRELUDE_LINES", "2")
        .args(["run", "loader/main.js"])
        .run();
    out.assert_code(1);
    let (log, _) = first_console_call(&out);
    assert_eq!(log.generated.as_ref().map(|g| g.line), Some(5), "{log:?}");
    assert_eq!((log.line, log.column), (None, None), "{log:?}");
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
    let (log, order) = first_console_call(&out);
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
    assert_names_the_user_s_frame(&out, "uses_yamlish.js", 7);
}

/// The failure names the user's own frame at `file` (in the workspace), `line`, and its GitHub
/// annotation goes there.
#[track_caller]
fn assert_names_the_user_s_frame(out: &crate::support::Output, file: &str, line: u32) {
    let app = out.workspace().join(file).display().to_string();
    let evidence = out.evidence().unwrap();
    let user = evidence
        .failure
        .user_frame
        .as_ref()
        .unwrap_or_else(|| panic!("the user's own frame is named\n{}", out.dump()));
    assert_eq!((user.file.as_str(), user.line), (app.as_str(), line));
    let annotation = format!("::error file={file},line={line},");
    assert!(
        out.stdout().lines().any(|l| l.starts_with(&annotation)),
        "the annotation goes on the user's line\n{}",
        out.stdout()
    );
}

#[test]
fn a_failure_a_dozen_calls_deep_in_a_library_still_names_the_users_own_frame() {
    // A recursive parser throwing 12 calls below the user's line: a call stack cut at 10 frames
    // held the library's alone, and the failure was put in `node_modules`.
    let parser = "function parse(text, depth) {\n  if (depth === 0) throw new SyntaxError('unexpected end of input');\n  return parse(text, depth - 1);\n}\nexports.load = (text) => parse(text, 11);\n";
    let out = Tracer::new()
        .file("node_modules/deeplib/index.js", parser)
        .file(
            "app.js",
            "const lib = require('deeplib');\nconsole.log('loading config');\nlib.load('ports: [80');\n",
        )
        .args(["run", "--annotations", "github", "app.js"])
        .run();
    out.assert_code(1);
    assert_names_the_user_s_frame(&out, "app.js", 3);
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
    // One error printed: it is the failure, and no list repeats it.
    assert!(failure.printed_errors.is_empty(), "{failure:?}");
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

/// A compiler that prints several errors (tsc's three, as tsc 5 printed them): each is listed
/// with its mapped site, in the order printed, the first one the failure's (only the first was
/// once said). A single error lists none: it is the failure.
#[test]
fn every_error_a_compiler_printed_is_listed_with_its_site() {
    let errors = [
        "src/index.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        "src/index.ts(2,7): error TS2322: Type 'number' is not assignable to type 'string'.",
        "src/index.ts(4,3): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
    ];
    let program = format!(
        "{}process.exitCode = 2;\n",
        errors
            .iter()
            .map(|e| format!("console.log({e:?});\n"))
            .collect::<String>()
    );
    let out = Tracer::new()
        .file("tsc_like.js", program)
        .file(
            "src/index.ts",
            b"const a: number = 'x';\nconst b: string = 1;\nfunction f(x: number) { return x; }\nf('y');\n",
        )
        .args(["run", "tsc_like.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().expect("exit 2 is a failure");
    let listed: Vec<(&str, Option<u32>, Option<u32>)> = evidence
        .failure
        .printed_errors
        .iter()
        .map(|e| (e.message.as_str(), e.line, e.column))
        .collect();
    assert_eq!(
        listed,
        [
            (errors[0], Some(1), Some(7)),
            (errors[1], Some(2), Some(7)),
            (errors[2], Some(4), Some(3)),
        ]
    );
    assert!(
        evidence.failure.printed_errors[2]
            .file
            .ends_with("src/index.ts")
    );
    assert_eq!(evidence.failure.line, Some(1));
    assert!(
        out.stderr().contains("errors printed: 3"),
        "{}",
        out.stderr()
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
    // esbuild's column is 0-based: `"./missing"` starts at the 15th character.
    assert_eq!((failure.line, failure.column), (Some(5), Some(15)));
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
fn an_es_module_import_node_cannot_resolve_is_placed_where_the_importer_writes_it() {
    let out = Tracer::new()
        .file("lib/total.mjs", "export const total = (xs) => xs.reduce((a, b) => a + b, 0);\n")
        .file(
            "app.mjs",
            "// the sum of the orders\nimport fs from 'node:fs';\nimport { total } from './lib/totl.mjs';\nconsole.log(total([1, 2]));\n",
        )
        .args(["run", "app.mjs"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().expect("a failed import has evidence");
    let failure = &evidence.failure;
    assert!(
        failure.message.contains("ERR_MODULE_NOT_FOUND"),
        "{}",
        out.dump()
    );
    let app = out.workspace().join("app.mjs").display().to_string();
    assert_eq!(
        (failure.file.as_deref(), failure.line, failure.column),
        (Some(app.as_str()), Some(3), Some(23)),
        "the specifier's quote on the import's line: {failure:?}"
    );
    assert_eq!(
        failure.source_line.as_deref(),
        Some("import { total } from './lib/totl.mjs';")
    );
    assert!(
        evidence.confidence_basis.starts_with("medium at most"),
        "found by reading the file, so not high: {}",
        evidence.confidence_basis
    );
}

#[test]
fn an_uncaught_error_s_cause_chain_is_read_with_where_each_cause_was_made() {
    let program = "function parse(text) {\n  return JSON.parse(text);\n}\nfunction readConfig() {\n  try {\n    return parse('{');\n  } catch (e) {\n    throw new Error('config unreadable', { cause: e });\n  }\n}\ntry {\n  readConfig();\n} catch (e) {\n  throw new TypeError('server cannot start', { cause: e });\n}\n";
    let out = Tracer::new()
        .file("serve.js", program)
        .args(["run", "serve.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().expect("evidence");
    let failure = &evidence.failure;
    assert_eq!(
        failure.message,
        "TypeError: server cannot start",
        "{}",
        out.dump()
    );
    let file = out.workspace().join("serve.js").display().to_string();
    let causes: Vec<_> = failure
        .causes
        .iter()
        .map(|c| (c.message.as_str(), c.file.as_deref(), c.line, c.column))
        .collect();
    assert_eq!(causes.len(), 2, "{causes:?}");
    assert_eq!(
        causes[0],
        (
            "Error: config unreadable",
            Some(file.as_str()),
            Some(8),
            Some(11)
        )
    );
    assert!(causes[1].0.starts_with("SyntaxError: "), "{causes:?}");
    assert_eq!(
        (causes[1].1, causes[1].2, causes[1].3),
        (Some(file.as_str()), Some(2), Some(15)),
        "the frame of the program's own code under JSON.parse"
    );
    assert!(
        out.stderr()
            .contains("  caused by Error: config unreadable  serve.js:8:11"),
        "{}",
        out.stderr()
    );
}

/// Code given with `node -e` has no file: its failure is at `[eval]`, Node's name for it, with its
/// line from the command's own argument, saying so (it had no position at all), for the program and
/// for a child it starts the same way.
#[test]
fn code_given_to_a_worker_as_text_fails_at_worker_eval() {
    // `new Worker(code, { eval: true })`: Node prints `[worker eval]:4:16`; the failure once had
    // no position at all.
    let program = "const { Worker } = require('worker_threads');\nnew Worker(`\nconst x = 1;\nPromise.reject(new Error('eval worker rejected'));\n`, { eval: true });\n";
    let out = Tracer::new()
        .file("app.js", program)
        .args(["run", "--timeout", "60", "app.js"])
        .run();
    out.assert_code(1);
    let failure = out.evidence().unwrap().failure;
    assert_eq!(
        (failure.file.as_deref(), failure.line, failure.column),
        (Some("[worker eval]"), Some(3), Some(16)),
        "{failure:#?}"
    );
    assert!(
        failure
            .note
            .as_deref()
            .is_some_and(|n| n.contains("eval: true")),
        "{failure:#?}"
    );
}

#[test]
fn code_given_with_node_e_fails_at_eval_with_its_line() {
    let code = "const n = 2;\nfunction f() { throw new Error('boom ' + n); }\nf();";
    let out = Tracer::new().args(["run", "--", "node", "-e", code]).run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let failure = &evidence.failure;
    assert_eq!(
        (failure.file.as_deref(), failure.line, failure.column),
        (Some("[eval]"), Some(2), Some(22)),
        "{failure:#?}"
    );
    assert_eq!(
        failure.source_line.as_deref(),
        Some("function f() { throw new Error('boom ' + n); }")
    );
    assert!(
        failure
            .note
            .as_deref()
            .is_some_and(|n| n.contains("node -e")),
        "{failure:#?}"
    );
    assert!(out.stderr().contains("--> [eval]:2:22"), "{}", out.stderr());

    let parent = format!(
        "const {{ spawnSync }} = require('node:child_process');\n\
         const r = spawnSync(process.execPath, ['-e', {code:?}], {{ stdio: 'inherit' }});\n\
         process.exitCode = r.status;\n"
    );
    let out = Tracer::new()
        .file("parent.js", parent)
        .args(["run", "parent.js"])
        .run();
    out.assert_code(1);
    let failure = out.evidence().unwrap().failure;
    assert_eq!(
        (
            failure.file.as_deref(),
            failure.line,
            failure.source_line.as_deref()
        ),
        (
            Some("[eval]"),
            Some(2),
            Some("function f() { throw new Error('boom ' + n); }")
        ),
        "{failure:#?}"
    );
}

#[test]
fn an_error_a_helper_made_and_its_caller_threw_names_both_places() {
    // Node's report points at the `throw` (line 6); the stack starts where the error was made
    // (line 2). The throw's line was once recorded nowhere.
    let program = "function makeError(msg) {\n  return new Error(msg);\n}\nfunction check(v) {\n  console.log('checking', v);\n  if (v < 0) throw makeError('negative value ' + v);\n}\ncheck(-2);\n";
    let out = Tracer::new()
        .file("app.js", program)
        .args(["run", "--color", "never", "app.js"])
        .run();
    out.assert_code(1);
    let app = out.workspace().join("app.js").display().to_string();
    let failure = out.evidence().unwrap().failure;
    assert_eq!((failure.line, failure.column), (Some(2), Some(10)));
    let thrown = failure.thrown_at.expect("where it was thrown");
    assert_eq!(
        (thrown.file.as_str(), thrown.line, thrown.column),
        (app.as_str(), 6, 14)
    );
    let events = out.events();
    let exception = of_kind(&events, Kind::Exception)[0];
    assert_eq!(exception.thrown_at.as_ref().map(|p| p.line), Some(6));
    assert!(
        out.stderr().contains("thrown at app.js:6:14"),
        "{}",
        out.stderr()
    );
    // An error thrown where it was made names one place.
    let out = Tracer::new()
        .file(
            "app.js",
            "function f() {\n  throw new Error('here');\n}\nf();\n",
        )
        .args(["run", "app.js"])
        .run();
    out.assert_code(1);
    let failure = out.evidence().unwrap().failure;
    assert_eq!((failure.line, failure.thrown_at), (Some(2), None));
}

#[test]
fn a_log_later_in_a_function_the_error_passed_through_is_not_a_confident_cause() {
    // The `finally` block's log runs after `JSON.parse` threw and before the exception is
    // reported: by time it is the closest event, but it may not have come first.
    let program = "function load(text) {\n  console.log('parsing', text.length, 'bytes');\n  try {\n    return JSON.parse(text);\n  } finally {\n    console.log('closing file handle');\n  }\n}\nload('{\"port\": 80,}');\n";
    let out = Tracer::new()
        .file("app.js", program)
        .args(["run", "app.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let cause = evidence.immediate_cause.as_ref().expect("a cause");
    assert_eq!(cause.line, Some(6));
    assert_eq!(evidence.confidence, Confidence::Medium, "{evidence:#?}");
    assert!(
        evidence
            .confidence_basis
            .contains("may have run after the throw"),
        "{}",
        evidence.confidence_basis
    );
    // A log before the failing line of the same function stays a confident cause.
    let out = Tracer::new()
        .file(
            "app.js",
            program.replace(
                "  } finally {\n    console.log('closing file handle');\n  }\n",
                "  } finally {\n  }\n",
            ),
        )
        .args(["run", "app.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    assert_eq!(
        evidence.immediate_cause.as_ref().and_then(|c| c.line),
        Some(2)
    );
    assert_eq!(evidence.confidence, Confidence::High, "{evidence:#?}");
}

#[test]
fn an_error_without_frames_of_its_own_is_not_placed_at_an_error_it_holds() {
    // `Promise.any`'s AggregateError has no frame; Node prints the errors it holds, with theirs,
    // below it. Their first frame was once given as its site, with high confidence.
    let program = "const probe = (name, ms) => new Promise((_, rej) =>\n  setTimeout(() => rej(new Error(name + ' unreachable')), ms));\nasync function pick() {\n  console.log('trying mirrors');\n  return Promise.any([probe('eu', 5), probe('us', 10)]);\n}\npick().then((m) => console.log('using', m));\n";
    let out = Tracer::new()
        .file("main.js", program)
        .args(["run", "main.js"])
        .run();
    out.assert_code(1);
    let evidence = out.evidence().unwrap();
    let failure = &evidence.failure;
    assert!(
        failure.message.starts_with("AggregateError"),
        "{failure:#?}"
    );
    assert_eq!((failure.line, failure.column), (None, None), "{failure:#?}");
    assert_eq!(evidence.confidence, Confidence::Low);
    // The errors it holds are listed, each where it was made.
    let held: Vec<(&str, Option<u32>)> = failure
        .errors
        .iter()
        .map(|e| (e.message.as_str(), e.line))
        .collect();
    assert_eq!(
        held,
        [
            ("Error: eu unreachable", Some(2)),
            ("Error: us unreachable", Some(2))
        ]
    );
}

#[test]
fn a_path_printed_after_a_chdir_is_not_read_from_the_folder_the_program_left() {
    // `pkg/cfg.yml` is the file meant; the run's folder has a `cfg.yml` too, whose line 3 was
    // once the failure's site.
    let program = "process.chdir('pkg');\nconsole.error('cfg.yml:3:1: error: unknown key \"moed\"');\nprocess.exitCode = 1;\n";
    let out = Tracer::new()
        .file("lint.js", program)
        .file("cfg.yml", "name: root\nport: 80\nmode: fast\n")
        .file("pkg/cfg.yml", "name: pkg\nport: 81\nmoed: slow\n")
        .args(["run", "lint.js"])
        .run();
    out.assert_code(1);
    let pkg = out.workspace().join("pkg").canonicalize().unwrap();
    let session = out.session();
    let program = session
        .processes
        .iter()
        .find(|p| p.role == "program")
        .unwrap();
    assert_eq!(
        program.cwd_at_exit.as_deref(),
        Some(pkg.display().to_string().as_str())
    );
    let failure = out.evidence().unwrap().failure;
    let root_cfg = out.workspace().join("cfg.yml").display().to_string();
    assert_ne!(
        failure.file.as_deref(),
        Some(root_cfg.as_str()),
        "{failure:#?}"
    );
}
