//! The reporters' texts as real runners printed them, read back.

use super::*;

fn output(lines: &[&str]) -> Vec<Event> {
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut event = Event::new(Kind::Output, i as f64, "stdout");
            event.id = i as u64 + 1;
            event.stream = Some(Stream::Stdout);
            event.value = Some((*line).to_owned());
            event
        })
        .collect()
}

/// Output events of lines each printed on its own stream, in this order.
fn output_on(lines: &[(Stream, &str)]) -> Vec<Event> {
    let mut events = output(&lines.iter().map(|(_, l)| *l).collect::<Vec<_>>());
    for (event, (stream, _)) in events.iter_mut().zip(lines) {
        event.stream = Some(*stream);
    }
    events
}

/// Each console call read back: its method, its text and its line.
fn levels_texts_lines(calls: &[Event]) -> Vec<(&str, &str, Option<u32>)> {
    calls
        .iter()
        .map(|c| {
            (
                c.level.as_deref().unwrap(),
                c.value.as_deref().unwrap(),
                c.line,
            )
        })
        .collect()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("test")).unwrap();
    std::fs::write(dir.path().join("test/add.test.js"), "x\n".repeat(10)).unwrap();
    dir
}

fn read(dir: &Path, lines: &[&str]) -> RunnerFailure {
    read_events(dir, &output(lines))
}

/// The first failing test of `events`, the user's own code being outside `node_modules`.
fn read_events(dir: &Path, events: &[Event]) -> RunnerFailure {
    first_failed(events, u64::MAX, &Folders::of_run(dir), &own_code).expect("a failing test")
}

fn own_code(f: &str) -> bool {
    !f.contains("node_modules") && !f.starts_with("node:")
}

/// Each failed test's name and message, in order.
fn names_and_messages(found: &[RunnerFailure]) -> Vec<(&str, &str)> {
    found
        .iter()
        .map(|t| (t.name.as_str(), t.message.as_str()))
        .collect()
}

/// The test's site is in `file`, at `line` and `column` (1-based, as printed).
#[track_caller]
fn assert_site(test: &RunnerFailure, file: &str, line: u32, column: u32) {
    let frame = test.frame.as_ref().expect("a site");
    assert!(frame.file.ends_with(file), "{frame:?}");
    assert_eq!((frame.line, frame.column), (line, column));
}

#[test]
fn node_test_s_tap_report() {
    let dir = workspace();
    let file = dir.path().join("test/add.test.js");
    let location = format!("  location: '{}:5:1'", file.display());
    let stack = format!("    TestContext.<anonymous> ({}:5:41)", file.display());
    let test = read(
        dir.path(),
        &[
            "TAP version 13",
            "# Subtest: adds two and two",
            "not ok 2 - adds two and two",
            "  ---",
            &location,
            "  failureType: 'testCodeFailure'",
            "  error: |-",
            "    Expected values to be strictly equal:",
            "    5 !== 4",
            "  stack: |-",
            "    Test.runInAsyncScope (node:async_hooks:206:9)",
            &stack,
            "  ...",
            "1..2",
        ],
    );
    assert_eq!(test.name, "adds two and two");
    // The values the assertion compared are part of the message.
    assert_eq!(
        test.message,
        "Expected values to be strictly equal: 5 !== 4"
    );
    let frame = test.frame.unwrap();
    assert_eq!((frame.line, frame.column), (5, 41));
    assert_eq!(test.event_id, 3);
    // Its `location:` is kept besides: where the stack's first own frame is another of the user's
    // files (`lib/`), the test's file tells which process ran it (it once had none).
    let declared = test.declared.unwrap();
    assert!(declared.file.ends_with("test/add.test.js"), "{declared:?}");
    assert_eq!((declared.line, declared.column), (5, 1));
    // Strings are compared as a diff under a legend: a one-line diff reads as the values, a
    // structure's stays as the legend says.
    let error = |diff: &[&'static str]| {
        let mut lines = vec![
            "not ok 1 - greets",
            "  ---",
            "  error: |-",
            "    Expected values to be strictly equal:",
            "    + actual - expected",
            "    ",
        ];
        lines.extend_from_slice(diff);
        lines.extend(["  code: 'ERR_ASSERTION'", "  ..."]);
        read(dir.path(), &lines).message
    };
    assert_eq!(
        error(&["    + 'hello world'", "    - 'Hello world'"]),
        "Expected values to be strictly equal: actual 'hello world', expected 'Hello world'"
    );
    assert_eq!(
        error(&["      [", "        1,", "    +   2", "    -   3", "      ]"]),
        "Expected values to be strictly equal: + actual - expected"
    );
}

/// node-tap 21 (TAP 14, subtests indented): a failed assertion has no `error:`; the test is
/// the `# Subtest:` around it, the site its `stack:` (else its `at:`).
#[test]
fn node_tap_s_report() {
    let dir = workspace();
    let lines = [
        "TAP version 14",
        "1..1",
        "# Subtest: test/add.test.js",
        "    # Subtest: adds one and two",
        "        ok 1 - should be equal",
        "        1..1",
        "    ok 1 - adds one and two # time=7.536ms",
        "    ",
        "    # Subtest: takes ten percent off with TEN",
        "        not ok 1 - should be equal",
        "          ---",
        "          compare: ===",
        "          at:",
        "            fileName: test/add.test.js",
        "            lineNumber: 4",
        "            columnNumber: 57",
        "            typeName: Test",
        "          stack: |",
        "            Test.<anonymous> (test/add.test.js:4:57)",
        "          source: >",
        "            t.test('takes ten percent off with TEN', async t => { t.equal(total(x), 18); });",
        "            error: 'a line of the excerpt, not a key',",
        "          diff: |",
        "            --- expected",
        "            +++ actual",
        "            @@ -1,1 +1,1 @@",
        "            -18",
        "            +16.2",
        "          ...",
        "        ",
        "        1..1",
        "    not ok 2 - takes ten percent off with TEN # time=23.994ms",
        "      ---",
        "      at:",
        "        fileName: test/add.test.js",
        "        lineNumber: 4",
        "        columnNumber: 3",
        "        isToplevel: true",
        "      ...",
    ];
    let test = read(dir.path(), &lines);
    assert_eq!(test.name, "takes ten percent off with TEN");
    assert_eq!(test.message, "should be equal (expected 18, actual 16.2)");
    assert_site(&test, "test/add.test.js", 4, 57);
    // The test's own `not ok 2 - … # time=…` after the failed assertion in it, and the file's,
    // close what was reported: one failed test.
    let mut closed = lines.to_vec();
    closed.extend([
        "    1..2",
        "not ok 1 - test/add.test.js # time=48.166ms",
        "  ---",
        "  exitCode: 1",
        "  ...",
    ]);
    let all = all_failed(
        &output(&closed),
        u64::MAX,
        &Folders::of_run(dir.path()),
        &own_code,
    );
    let named = names_and_messages(&all);
    assert_eq!(
        named,
        [(
            "takes ten percent off with TEN",
            "should be equal (expected 18, actual 16.2)"
        )]
    );
    // Without `stack:`, `at:` is the site; without a one-line diff, the assertion alone.
    let bare: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.contains("Test.<anonymous>") && !l.contains("+16.2"))
        .collect();
    let test = read(dir.path(), &bare);
    assert_eq!(test.message, "should be equal");
    assert_eq!(test.frame.map(|f| (f.line, f.column)), Some((4, 57)));
}

/// node-tap 21: an error thrown in `lib/` has its `at:` there; the test's file, which tells the
/// process that ran it, is the outermost frame of the user's code in its `stack:` (none was
/// named: `✗ reserves an unknown item: unknown item: plum  lib/inventory.js:12`).
#[test]
fn node_tap_s_thrown_error_in_a_library_file_is_its_test_file_s() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("lib")).unwrap();
    let lines = format!("{}\n", "x".repeat(40)).repeat(20);
    std::fs::write(dir.path().join("lib/inventory.js"), &lines).unwrap();
    std::fs::write(dir.path().join("test/inventory.test.js"), &lines).unwrap();
    let test = read(
        dir.path(),
        &[
            "TAP version 14",
            "# Subtest: test/inventory.test.js",
            "    # Subtest: reserves an unknown item",
            "        not ok 1 - unknown item: plum",
            "          ---",
            "          stack: |",
            "            reserve (lib/inventory.js:12:11)",
            "            Test.<anonymous> (test/inventory.test.js:15:11)",
            "          at:",
            "            fileName: lib/inventory.js",
            "            lineNumber: 12",
            "            columnNumber: 11",
            "            functionName: reserve",
            "          tapCaught: returnedPromiseRejection",
            "          ...",
            "        1..1",
            "    not ok 3 - reserves an unknown item # time=5.207ms",
        ],
    );
    assert_eq!(test.message, "unknown item: plum");
    assert_site(&test, "lib/inventory.js", 12, 11);
    let declared = test.declared.expect("the test's file");
    assert!(
        declared.file.ends_with("test/inventory.test.js"),
        "{declared:?}"
    );
}

/// node-tap's timeout: `not ok 2 - timeout!` with `expired: TAP` in the test that ran past it
/// (the test was once missing), then the test's and the file's own `not ok`, which close it: the
/// `at:` of the test's is the site (there was none, and so no process ran the test).
#[test]
fn node_tap_s_timeout() {
    let dir = workspace();
    write_lines(dir.path(), "test/stock.test.js");
    let lines = [
        "# Subtest: test/stock.test.js",
        "    # Subtest: reserves two of five, never ends",
        "        ok 1 - should be equal",
        "        not ok 2 - timeout!",
        "          ---",
        "          signal: null",
        "          expired: TAP",
        "          ...",
        "        ",
        "        1..2",
        "    not ok 2 - reserves two of five, never ends # time=3992.663ms",
        "      ---",
        "      at:",
        "        fileName: test/stock.test.js",
        "        lineNumber: 6",
        "        columnNumber: 3",
        "      ...",
        "    1..2",
        "not ok 2 - timeout!",
        "  ---",
        "  expired: test/stock.test.js",
        "  ...",
    ];
    let all = all_failed(
        &output(&lines),
        u64::MAX,
        &Folders::of_run(dir.path()),
        &own_code,
    );
    assert_eq!(
        names_and_messages(&all),
        [("reserves two of five, never ends", "timeout!")]
    );
    assert_site(&all[0], "test/stock.test.js", 6, 3);
}

#[test]
fn a_skipped_or_todo_test_and_a_failed_suite_are_no_failing_test() {
    let dir = workspace();
    let own = |_: &str| true;
    let lines = [
        "not ok 1 - later # TODO",
        "not ok 2 - suite",
        "  ---",
        "  failureType: 'subtestsFailed'",
        "  error: '1 subtest failed'",
        "  ...",
    ];
    assert!(
        first_failed(
            &output(&lines),
            u64::MAX,
            &Folders::of_run(dir.path()),
            &own
        )
        .is_none()
    );
}

#[test]
fn mocha_s_report() {
    let dir = workspace();
    let test = read(
        dir.path(),
        &[
            "  add",
            "    ✔ adds one and two",
            "    1) adds two and two",
            "",
            "  1 passing (20ms)",
            "  1 failing",
            "",
            "  1) add",
            "       adds two and two:",
            "",
            "      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
            "",
            "5 !== 4",
            "      at Context.<anonymous> (test/add.test.js:6:12)",
            "      at process.processImmediate (node:internal/timers:483:21)",
        ],
    );
    assert_eq!(test.name, "add › adds two and two");
    assert_eq!(
        test.message,
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 5 !== 4"
    );
    assert_site(&test, "test/add.test.js", 6, 12);
}

/// mocha prints node's assertion message as it is: a string's one-line diff under `+ actual -
/// expected` (node's signs), then mocha's own diff under `+ expected - actual`. The values were
/// once lost (`… strictly equal: + actual - expected`); an object's diff is left as printed.
#[test]
fn mocha_s_report_of_node_s_one_line_diff_keeps_its_values() {
    let dir = workspace();
    let block = |diff: &[&'static str]| -> Vec<&'static str> {
        let mut lines = vec![
            "  1 failing",
            "",
            "  1) greets:",
            "",
            "      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
            "+ actual - expected",
            "",
        ];
        lines.extend_from_slice(diff);
        lines.extend_from_slice(&[
            "      + expected - actual",
            "",
            "      -hello world",
            "      +Hello world",
            "      ",
            "      at Context.<anonymous> (test/add.test.js:2:29)",
        ]);
        lines
    };
    let test = read(dir.path(), &block(&["+ 'hello world'", "- 'Hello world'"]));
    assert_eq!(
        test.message,
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: actual 'hello world', expected 'Hello world'"
    );
    assert_site(&test, "test/add.test.js", 2, 29);
    let test = read(dir.path(), &block(&["  {", "+   a: 1", "-   a: 2", "  }"]));
    assert_eq!(
        test.message,
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: + actual - expected"
    );
}

/// ava 6's default reporter: the listing (`✘ [fail]: …`), then each failing test's report
/// under its name.
#[test]
fn ava_s_report() {
    let dir = workspace();
    let thrown = format!(
        "      at file://{}/test/add.test.js:2:28",
        dir.path().display()
    );
    let lines = [
        "  ✔ add › adds one and two",
        "  ✘ [fail]: add › adds two and two",
        "  ✘ [fail]: add › throws Error thrown in test",
        "  ✘ [fail]: add › deep",
        "  ─",
        "",
        "  add › adds two and two",
        "",
        "  test/add.test.js:4",
        "",
        "   3: test('adds one and two', t => { t.is(add(1, 2), 3); });",
        "   4: test('adds two and two', t => { t.is(add(2, 2), 5); });",
        "   5:                                                                           ",
        "",
        "  Difference (- actual, + expected):",
        "",
        "  - 4",
        "  + 5",
        "",
        "  › file://test/add.test.js:4:39",
        "",
        "  add › throws",
        "",
        "  Error thrown in test:",
        "",
        "  SyntaxError {",
        "    message: 'Expected property name or \\'}\\' in JSON at position 1',",
        "  }",
        "",
        "  SyntaxError: Expected property name or '}' in JSON at position 1",
        "      at JSON.parse (<anonymous>)",
        &thrown,
        "",
        "  add › deep",
        "",
        "  test/add.test.js:6",
        "",
        "  Difference (- actual, + expected):",
        "",
        "    {",
        "  -   a: 2,",
        "  +   a: 3,",
        "    }",
        "",
        "  ─",
        "",
        "  3 tests failed",
    ];
    let test = read(dir.path(), &lines);
    assert_eq!(test.name, "add › adds two and two");
    assert_eq!(
        test.message,
        "Difference (- actual, + expected): actual 4, expected 5"
    );
    assert_site(&test, "test/add.test.js", 4, 39);
    assert_eq!(test.event_id, 7);
    // The second: a thrown error's own line; its site the test's frame in its stack.
    let second: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.contains("adds two and two"))
        .collect();
    let test = read(dir.path(), &second);
    assert_eq!(test.name, "add › throws");
    assert_eq!(
        test.message,
        "Error thrown in test: SyntaxError: Expected property name or '}' in JSON at position 1"
    );
    assert_site(&test, "test/add.test.js", 2, 28);
    // The third: a structure's difference stays as printed; no site is printed with it.
    let third: Vec<&str> = second
        .iter()
        .copied()
        .filter(|l| !l.contains("throws"))
        .collect();
    let test = read(dir.path(), &third);
    assert_eq!(
        (test.name.as_str(), test.message.as_str()),
        ("add › deep", "Difference (- actual, + expected):")
    );
    assert_eq!(test.frame, None);
}

/// ava 7: the listing prints a failure's message after the test's title (`async rejects Rejected
/// promise returned by test`); the report is headed by the title alone. Both failures are read,
/// the rejection with its error and the frame of the test file.
#[test]
fn ava_s_rejected_promise_is_a_failed_test_of_its_own() {
    let dir = workspace();
    std::fs::write(dir.path().join("test/math.test.js"), "x\n".repeat(20)).unwrap();
    let thrown = format!(
        "      at Timeout._onTimeout (file://{}/test/math.test.js:12:60)",
        dir.path().display()
    );
    let lines = [
        "  ✔ adds",
        "  ✘ [fail]: multiplies wrong",
        "  ✘ [fail]: async rejects Rejected promise returned by test",
        "  ─",
        "",
        "  multiplies wrong",
        "",
        "  test/math.test.js:8",
        "",
        "   8:   t.is(2 * 3, 7);              ",
        "",
        "  Difference (- actual, + expected):",
        "",
        "  - 6",
        "  + 7",
        "",
        "  › file://test/math.test.js:8:5",
        "",
        "  async rejects",
        "",
        "  Rejected promise returned by test. Reason:",
        "",
        "  Error {",
        "    message: 'boom async',",
        "  }",
        "",
        "  Error: boom async",
        &thrown,
        "      at listOnTimeout (node:internal/timers:581:17)",
        "",
        "  ─",
        "",
        "  2 tests failed",
    ];
    let found = all_failed(
        &output(&lines),
        u64::MAX,
        &Folders::of_run(dir.path()),
        &own_code,
    );
    let named = names_and_messages(&found);
    assert_eq!(
        named,
        [
            (
                "multiplies wrong",
                "Difference (- actual, + expected): actual 6, expected 7"
            ),
            (
                "async rejects",
                "Rejected promise returned by test. Reason: Error: boom async"
            ),
        ]
    );
    assert_site(&found[1], "test/math.test.js", 12, 60);
}

/// uvu 0.5: `FAIL  "name"`, its message (its operator, `  (is)`, left out), its one-line diff
/// and the stack; every failed test.
#[test]
fn uvu_s_report() {
    let dir = workspace();
    std::fs::write(dir.path().join("test/math.js"), "x\n".repeat(20)).unwrap();
    let at = |function: &str, position: &str| {
        format!(
            "    at {function} ({}/test/math.js:{position})",
            dir.path().display()
        )
    };
    let first = at("Object.handler", "9:10");
    let second = at("Timeout._onTimeout", "13:60");
    let lines = [
        "math.js",
        "• ✘ ✘   (1 / 3)",
        "",
        "   FAIL  \"multiplies wrong\"",
        "    Expected values to be strictly equal:  (is)",
        "",
        "        ++7    (Expected)",
        "        --6    (Actual)",
        "",
        "    at assert (/w/node_modules/uvu/assert/index.js:33:8)",
        &first,
        "",
        "   FAIL  \"async rejects\"",
        "    boom async",
        "",
        &second,
        "",
        "  Total:     3",
        "  Passed:    1",
    ];
    let found = all_failed(
        &output(&lines),
        u64::MAX,
        &Folders::of_run(dir.path()),
        &own_code,
    );
    let named = names_and_messages(&found);
    assert_eq!(
        named,
        [
            (
                "multiplies wrong",
                "Expected values to be strictly equal: (expected 7, actual 6)"
            ),
            ("async rejects", "boom async"),
        ]
    );
    assert_site(&found[0], "test/math.js", 9, 10);
    assert_site(&found[1], "test/math.js", 13, 60);
}

/// jasmine 5's default reporter: `Message:` is no part of the test's name.
#[test]
fn jasmine_s_report() {
    let dir = workspace();
    let file = dir.path().join("test/add.test.js");
    let frame = format!(
        "        at UserContext.<anonymous> (file://{}:4:99)",
        file.display()
    );
    let test = read(
        dir.path(),
        &[
            "Randomized with seed 91623",
            "Started",
            ".F",
            "",
            "Failures:",
            "1) total takes ten percent off with TEN",
            "  Message:",
            "    Expected 16.2 to be 18.",
            "  Stack:",
            "        at <Jasmine>",
            &frame,
            "        at <Jasmine>",
            "",
            "2 specs, 1 failure",
        ],
    );
    assert_eq!(test.name, "total takes ten percent off with TEN");
    assert_eq!(test.message, "Expected 16.2 to be 18.");
    assert_site(&test, "test/add.test.js", 4, 99);
}

/// @hapi/lab 26's failure list: `  2) price discounts 100 by ten percent:`, then its legend
/// (`actual expected`) and a diff only its colours read (`8090`), then the message and the site.
#[test]
fn lab_s_report() {
    let dir = workspace();
    let file = dir.path().join("test/add.test.js");
    let frame = format!("      at {}:4:30", file.display());
    let test = read(
        dir.path(),
        &[
            "Failed tests:",
            "",
            "  2) price discounts 100 by ten percent:",
            "",
            "      actual expected",
            "",
            "      8090",
            "",
            "      Expected 80 to equal specified value: 90",
            "",
            &frame,
            "",
            "2 of 4 tests failed",
        ],
    );
    assert_eq!(test.name, "price discounts 100 by ten percent");
    assert_eq!(test.message, "Expected 80 to equal specified value: 90");
    assert_site(&test, "test/add.test.js", 4, 30);
}

/// jest's `● Console` section (what a file's tests printed, when it runs in a worker) comes
/// before its failures and names no test.
#[test]
fn jest_s_console_section_is_no_failing_test() {
    let dir = workspace();
    let test = read(
        dir.path(),
        &[
            "FAIL test/add.test.js",
            "  ● Console",
            "",
            "    console.log",
            "      about to call",
            "",
            "      at Object.log (test/add.test.js:4:13)",
            "",
            "  ● third › logs then throws",
            "",
            "    SyntaxError: Expected property name or '}' in JSON at position 1",
            "        at JSON.parse (<anonymous>)",
            "",
            "    > 5 |     JSON.parse('{');",
            "        |          ^",
            "",
            "      at Object.parse (test/add.test.js:5:10)",
        ],
    );
    assert_eq!(test.name, "third › logs then throws");
    assert!(test.message.starts_with("SyntaxError"), "{test:?}");
    assert_site(&test, "test/add.test.js", 5, 10);
}

#[test]
fn jest_s_report() {
    let dir = workspace();
    let test = read(
        dir.path(),
        &[
            "FAIL test/add.test.js",
            "  add",
            "    ✓ adds one and two (1 ms)",
            "    ✕ adds two and two (2 ms)",
            "",
            "  ● add › adds two and two",
            "",
            "    expect(received).toBe(expected) // Object.is equality",
            "",
            "    Expected: 4",
            "    Received: 5",
            "",
            "    > 6 |     expect(add(2, 2)).toBe(4);",
            "        |                       ^",
            "      at Object.toBe (test/add.test.js:6:23)",
        ],
    );
    assert_eq!(test.name, "add › adds two and two");
    assert_eq!(
        test.message,
        "expect(received).toBe(expected) // Object.is equality (Expected: 4; Received: 5)"
    );
    assert_eq!(test.frame.unwrap().column, 23);
}

/// Vitest prints its failures on stderr and its summary on stdout; when the summary's lines arrive
/// between a failure's heading and its message, the message is still the failure's own (it was
/// once `Test Files  2 failed (2)`).
#[test]
fn a_failure_s_block_is_read_from_its_own_stream_when_another_interleaves() {
    let dir = workspace();
    let lines = [
        (
            Stream::Stderr,
            " FAIL  test/add.test.js > add > adds two and two",
        ),
        (Stream::Stdout, " Test Files  1 failed (1)"),
        (Stream::Stdout, "      Tests  1 failed (1)"),
        (
            Stream::Stderr,
            "AssertionError: expected 4 to be 5 // Object.is equality",
        ),
        (Stream::Stderr, " ❯ test/add.test.js:4:21"),
    ];
    let test = read_events(dir.path(), &output_on(&lines));
    assert_eq!(
        test.message,
        "AssertionError: expected 4 to be 5 // Object.is equality"
    );
    assert_site(&test, "test/add.test.js", 4, 21);
}

/// Vitest 4's default reporter (4.1.12): its listing's `×` lines have no `→` message under them,
/// and its summary follows on stdout while its failures are on stderr. Only the `FAIL` report
/// is a failure (a listing line was once one too, with the summary as its message).
#[test]
fn vitest_4_s_report_names_each_failure_once() {
    let dir = workspace();
    let stdout = [
        " RUN  v4.1.12 /tmp/rt",
        "",
        " ❯ test/add.test.js (2 tests | 1 failed) 8ms",
        "     ✓ adds one and one 1ms",
        "     × adds two and two 7ms",
        "",
        " Test Files  1 failed (1)",
        "      Tests  1 failed | 1 passed (2)",
        "   Start at  11:37:53",
        "   Duration  495ms (transform 29ms, setup 0ms, import 51ms, tests 18ms, environment 0ms)",
    ];
    let stderr = [
        "",
        "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯",
        "",
        " FAIL  test/add.test.js > add > adds two and two",
        "AssertionError: expected 4 to be 5 // Object.is equality",
        "",
        " ❯ test/add.test.js:4:21",
        "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯",
    ];
    let lines: Vec<(Stream, &str)> = stdout
        .iter()
        .map(|l| (Stream::Stdout, *l))
        .chain(stderr.iter().map(|l| (Stream::Stderr, *l)))
        .collect();
    let failed = all_failed(
        &output_on(&lines),
        u64::MAX,
        &Folders::of_run(dir.path()),
        &own_code,
    );
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert_eq!(failed[0].name, "add > adds two and two");
    assert_eq!(
        failed[0].message,
        "AssertionError: expected 4 to be 5 // Object.is equality"
    );
    assert_site(&failed[0], "test/add.test.js", 4, 21);
}

/// Vitest 2's default reporter, as `npx vitest run` printed it (stdout and stderr in order):
/// the listing (`×` and `→`) is passed over for the report with the frames.
#[test]
fn vitest_s_report() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/add.js"), "x\n".repeat(4)).unwrap();
    let listing = [
        " RUN  v2.1.9 /tmp/vt",
        "stdout | test/add.test.js > add > adds one and two",
        "adding",
        " ❯ test/add.test.js (3 tests | 2 failed) 13ms",
        "   ✓ add > adds one and two 1ms",
        "   × add > adds two and two 9ms",
        "stderr | test/add.test.js > add > adds two and two",
        "about to fail",
        "     → expected 4 to be 5 // Object.is equality",
        "   × add > throws 1ms",
        "     → a is null",
        "",
        "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯",
        "",
    ];
    let first = [
        " FAIL  test/add.test.js > add > adds two and two",
        "AssertionError: expected 4 to be 5 // Object.is equality",
        "",
        "- Expected",
        "+ Received",
        "",
        " ❯ test/add.test.js:4:21",
        "      4|   expect(add(2, 2)).toBe(5);",
        "       |                     ^",
        "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/2]⎯",
    ];
    let second = [
        " FAIL  test/add.test.js > add > throws",
        "TypeError: a is null",
        " ❯ loadAndTransform node_modules/vite/dist/node/chunks/dep.js:51969:17",
        " ❯ Module.add src/add.js:2:25",
        "      2|   if (a === null) throw new TypeError('a is null');",
        " ❯ test/add.test.js:7:3",
    ];
    let all: Vec<&str> = listing
        .iter()
        .chain(&first)
        .chain(&second)
        .copied()
        .collect();
    let test = read(dir.path(), &all);
    assert_eq!(test.name, "add > adds two and two");
    assert_eq!(
        test.message,
        "AssertionError: expected 4 to be 5 // Object.is equality"
    );
    assert_site(&test, "test/add.test.js", 4, 21);
    assert_eq!(test.event_id, listing.len() as u64 + 1);
    // The second failure's site is the first frame in the user's own code (a function).
    let only_second: Vec<&str> = listing.iter().chain(&second).copied().collect();
    let test = read(dir.path(), &only_second);
    assert_eq!(
        (test.name.as_str(), test.message.as_str()),
        ("add > throws", "TypeError: a is null")
    );
    let frame = test.frame.unwrap();
    assert!(frame.file.ends_with("src/add.js"), "{frame:?}");
    assert_eq!(
        (frame.function_name.as_str(), frame.line, frame.column),
        ("Module.add", 2, 25)
    );
    // A file that failed to load is named by its path; its frames are vite's, not the user's.
    let suite = read(
        dir.path(),
        &[
            " FAIL  test/add.test.js [ test/add.test.js ]",
            "Error: Failed to load url ../src/missing.js (resolved id: ../src/missing.js). Does the file exist?",
            " ❯ loadAndTransform node_modules/vite/dist/node/chunks/dep.js:51969:17",
        ],
    );
    assert_eq!(suite.name, "test/add.test.js");
    assert!(
        suite.message.starts_with("Error: Failed to load url"),
        "{suite:?}"
    );
    assert_eq!(suite.frame, None);
    // Jest's file line is no test.
    let own = |_: &str| true;
    assert!(
        first_failed(
            &output(&["FAIL test/add.test.js", "  ✓ adds (1 ms)"]),
            u64::MAX,
            &Folders::of_run(dir.path()),
            &own
        )
        .is_none()
    );
}

#[test]
fn node_test_s_spec_report() {
    let dir = workspace();
    let file = dir.path().join("test/add.test.js");
    let frame = format!("      at TestContext.<anonymous> ({}:5:41)", file.display());
    let test = read(
        dir.path(),
        &[
            "✔ adds one and two (1.27ms)",
            "✖ adds two and two (1.36315ms)",
            "  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
            "  ",
            "  5 !== 4",
            &frame,
            "✖ failing tests:",
        ],
    );
    assert_eq!(test.name, "adds two and two");
    assert!(test.message.starts_with("AssertionError"), "{test:?}");
    assert_eq!(test.frame.unwrap().line, 5);
}

/// jest 29's `● Console` section, as `npx jest` printed it (in band: one process ran both files):
/// each call with its text, its file and the call site jest printed.
#[test]
fn jest_s_console_section_is_read_back_as_console_calls() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("lib")).unwrap();
    let lines = format!("{}\n", "x".repeat(40)).repeat(10);
    std::fs::write(dir.path().join("lib/cart.js"), &lines).unwrap();
    std::fs::write(dir.path().join("test/add.test.js"), &lines).unwrap();
    let events = output(&[
        "FAIL test/add.test.js",
        "  ● Console",
        "",
        "    console.log",
        "      total computed 16.2",
        "      and a second line",
        "",
        "      at log (lib/cart.js:7:11)",
        "",
        "    console.warn",
        "      checking TEN",
        "",
        "      3 | test('takes ten percent off with TEN', () => {",
        "    > 4 |   console.warn('checking TEN');",
        "        |           ^",
        "",
        "      at Object.warn (test/add.test.js:4:11)",
        "",
        "  ● add › adds two and two",
        "",
        "    expect(received).toBe(expected) // Object.is equality",
    ]);
    let calls = runner_console(&events, dir.path(), &[]);
    let seen = levels_texts_lines(&calls);
    assert_eq!(
        seen,
        [
            ("log", "total computed 16.2\nand a second line", Some(7)),
            ("warn", "checking TEN", Some(4)),
        ]
    );
    assert!(calls[0].file.as_deref().unwrap().ends_with("lib/cart.js"));
    let file = dir.path().join("test/add.test.js");
    assert_eq!(calls[1].test_file.as_deref(), file.to_str());
    assert!(
        calls[0]
            .note
            .as_deref()
            .unwrap()
            .starts_with("read from jest's report")
    );
    // A section comes after its file's tests all ran: its time is not the calls'.
    assert!(calls.iter().all(|c| c.printed_later));
}

/// jest 29 running one file (or `--verbose`) prints each call as it is made, 2 spaces in, before
/// its file's `FAIL`/`PASS` line: the call is that file's; the same two spaces and
/// `console.log` without jest's call site after them are someone's output, not a call.
#[test]
fn jest_s_calls_printed_as_made_are_read_back_with_the_file_after_them() {
    let dir = workspace();
    let lines = format!("{}\n", "x".repeat(40)).repeat(10);
    std::fs::write(dir.path().join("test/add.test.js"), &lines).unwrap();
    let events = output(&[
        "  console.log",
        "    just text a program printed",
        "",
        "  console.log",
        "    items [ { price: 10, quantity: 2 } ]",
        "",
        "      at Object.log (test/add.test.js:5:13)",
        "",
        "  console.warn",
        "    about to total",
        "",
        "      5 |     console.log('items', items);",
        "    > 6 |     console.warn('about to total');",
        "        |             ^",
        "",
        "      at Object.warn (test/add.test.js:6:13)",
        "",
        "FAIL test/add.test.js",
        "  total",
        "    ✕ takes ten percent off with TEN (15 ms)",
    ]);
    let calls = runner_console(&events, dir.path(), &[]);
    let seen = levels_texts_lines(&calls);
    assert_eq!(
        seen,
        [
            ("log", "items [ { price: 10, quantity: 2 } ]", Some(5)),
            ("warn", "about to total", Some(6)),
        ]
    );
    let file = dir.path().join("test/add.test.js");
    assert_eq!(calls[1].test_file.as_deref(), file.to_str());
    // Printed as they were made.
    assert!(calls.iter().all(|c| !c.printed_later));
}

/// vitest 2's blocks of what a test printed (`stdout | FILE > SUITE > TEST`).
#[test]
fn vitest_s_printed_blocks_are_read_back_as_console_calls() {
    let dir = workspace();
    let events = output(&[
        "stdout | test/add.test.js > add > adds two and two",
        "total computed 16.2",
        "",
        "stderr | test/add.test.js > add > adds two and two",
        "careful",
        "",
        " ❯ test/add.test.js (2 tests | 1 failed) 8ms",
    ]);
    let calls = runner_console(&events, dir.path(), &[]);
    let seen: Vec<(&str, &str)> = calls
        .iter()
        .map(|c| (c.level.as_deref().unwrap(), c.value.as_deref().unwrap()))
        .collect();
    assert_eq!(seen, [("log", "total computed 16.2"), ("error", "careful")]);
    assert!(
        calls[0]
            .note
            .as_deref()
            .unwrap()
            .ends_with("printed in the test `add > adds two and two`"),
        "{:?}",
        calls[0].note
    );
    assert_eq!(
        calls[1].test_name.as_deref(),
        Some("add > adds two and two")
    );
}

/// `pnpm -r test` relays each package's TAP after `<package> <script>: `, announced by
/// `<package> <script>$ <command>`, the packages' lines interleaved: each package's failed test is
/// read from its own lines (none was read before); a line's own `Name: ` is left alone.
#[test]
fn a_workspace_runner_s_relayed_reports_are_read_package_by_package() {
    let dir = workspace();
    let events = output(&[
        "Scope: 2 of 3 workspace projects",
        "packages/a test$ node --test test/",
        "packages/b test$ node --test test/",
        "packages/b test: TAP version 13",
        "packages/a test: TAP version 13",
        "packages/b test: # Subtest: b greets",
        "packages/a test: # Subtest: a adds",
        "packages/b test: not ok 1 - b greets",
        "packages/a test: not ok 1 - a adds",
        "packages/b test:   ---",
        "packages/a test:   ---",
        "packages/b test:   error: 'b broke'",
        "packages/a test:   error: 'a broke'",
        "packages/b test:   ...",
        "packages/a test:   ...",
        "Error: not a package's line",
        "packages/b test: Failed",
    ]);
    let seen: Vec<(String, String)> =
        all_failed(&events, u64::MAX, &Folders::of_run(dir.path()), &|_| true)
            .into_iter()
            .map(|t| (t.name, t.message))
            .collect();
    assert_eq!(
        seen,
        [
            ("b greets".to_owned(), "b broke".to_owned()),
            ("a adds".to_owned(), "a broke".to_owned())
        ]
    );
    // Nothing announced, nothing taken off.
    let plain = output(&["TypeError [ERR_X]: not ok 1 - something"]);
    assert!(matches!(
        relay::unrelayed(&plain),
        std::borrow::Cow::Borrowed(_)
    ));
}

/// A source file of ten lines at `path` under `root`, for sites to be read in.
fn write_lines(root: &Path, path: &str) {
    let lines = format!("{}\n", "x".repeat(40)).repeat(10);
    std::fs::write(root.join(path), lines).unwrap();
}

/// Each failed test of `report` (lines of stdout, in a workspace at `root`): its name, its
/// message and its site's line.
fn names_messages_lines(report: &[String], root: &Path) -> Vec<(String, String, Option<u32>)> {
    let events = output(&report.iter().map(String::as_str).collect::<Vec<_>>());
    all_failed(&events, u64::MAX, &Folders::of_run(root), &|f| {
        !f.contains("node_modules")
    })
    .into_iter()
    .map(|t| (t.name, t.message, t.frame.map(|f| f.line)))
    .collect()
}

/// Asserts that `report` (tape's cart test through a reporter) is read as one failed test,
/// `takes ten percent off with TEN`, with both values and its line in `test/cart.js`.
fn assert_reads_only_the_cart_s_failure(report: &[String], root: &Path) {
    assert_eq!(
        names_messages_lines(report, root),
        [(
            "takes ten percent off with TEN".to_owned(),
            "should be strictly equal (expected 18, actual 16.2)".to_owned(),
            Some(7)
        )]
    );
}

/// tape's TAP through faucet (`tape test/*.js | faucet`), which redraws each test's line in place
/// with carriage returns and cursor movements: the failed test is the one faucet shows failing,
/// with its site (it was once named after the passing test before it, whose line the redraw hid
/// the next `# name` in).
#[test]
fn tape_through_faucet_is_read_as_the_terminal_shows_it() {
    let dir = workspace();
    write_lines(dir.path(), "test/cart.js");
    let root = dir.path().display().to_string();
    let report = [
        "\r# totals a cart without a code\x1b[K".to_owned(),
        "\r  ok \x1b[1m\x1b[32m1\x1b[0m should be strictly equal\x1b[K\r\x1b[1A\x1b[1G\x1b[1m\x1b[32m✓ totals a cart without a code\x1b[0m\x1b[1B\x1b[1G\r# takes ten percent off with TEN\x1b[K".to_owned(),
        "\r  not ok \x1b[1m\x1b[31m2\x1b[0m should be strictly equal\x1b[K".to_owned(),
        "\x1b[2A\x1b[1G\x1b[1m\x1b[31m⨯ takes ten percent off with TEN\x1b[0m\x1b[2B\x1b[1G    ---".to_owned(),
        "      operator: equal".to_owned(),
        "      expected: 18".to_owned(),
        "      actual:   16.2".to_owned(),
        format!("      at: Test.<anonymous> ({root}/test/cart.js:7:5)"),
        "    ...".to_owned(),
        "  ".to_owned(),
        "\r# tests 2\x1b[K".to_owned(),
    ];
    assert_reads_only_the_cart_s_failure(&report, dir.path());
}

/// tape's TAP through tap-spec (`tape test/*.js | tap-spec`): the failed test by the name above its
/// `✖ assertion`, with both values and its site, once (its recap of the failures is no second one;
/// the assertion's text was once the test's name, a rule of dashes its message).
#[test]
fn tape_through_tap_spec_names_the_test_once() {
    let dir = workspace();
    write_lines(dir.path(), "test/cart.js");
    let root = dir.path().display().to_string();
    let report = [
        "".to_owned(),
        "  totals a cart without a code".to_owned(),
        "".to_owned(),
        "    ✔ should be strictly equal".to_owned(),
        "".to_owned(),
        "  takes ten percent off with TEN".to_owned(),
        "".to_owned(),
        "    ✖ should be strictly equal".to_owned(),
        "    ---------------------------".to_owned(),
        "      operator: equal".to_owned(),
        "      expected: 18".to_owned(),
        "      actual:   16.2".to_owned(),
        format!("      at: Test.<anonymous> ({root}/test/cart.js:7:5)"),
        "".to_owned(),
        "  Failed Tests: There was 1 failure".to_owned(),
        "".to_owned(),
        "    takes ten percent off with TEN".to_owned(),
        "".to_owned(),
        "      ✖ should be strictly equal".to_owned(),
        "".to_owned(),
        "  total:     2".to_owned(),
        "  passing:   1".to_owned(),
        "  failing:   1".to_owned(),
    ];
    assert_reads_only_the_cart_s_failure(&report, dir.path());
}

/// tape 5's TAP: a failed assertion (`not ok 2 should be strictly equal`, no dash) with
/// `operator:`, `expected:`, `actual:` and `at:` and its stack, under the `# name` comment of its
/// test, the test's own output between them: each failed test named, with both values and its
/// site (none was read).
#[test]
fn tape_s_report() {
    let dir = workspace();
    write_lines(dir.path(), "test/price.test.js");
    write_lines(dir.path(), "test/stock.test.js");
    let root = dir.path().display().to_string();
    let report = [
        "TAP version 13".to_owned(),
        "# adds two numbers".to_owned(),
        "ok 1 should be strictly equal".to_owned(),
        "# discounts 100 by ten percent".to_owned(),
        "PRICE-LOG discounting 100".to_owned(),
        "not ok 2 should be strictly equal".to_owned(),
        "  ---".to_owned(),
        "    operator: equal".to_owned(),
        "    expected: 90".to_owned(),
        "    actual:   80".to_owned(),
        format!("    at: Test.<anonymous> ({root}/test/price.test.js:8:5)"),
        "    stack: |-".to_owned(),
        "      Error: should be strictly equal".to_owned(),
        format!(
            "          at Test.assert [as _assert] ({root}/node_modules/tape/lib/test.js:548:48)"
        ),
        format!("          at Test.<anonymous> ({root}/test/price.test.js:8:5)"),
        "  ...".to_owned(),
        "# reserves two of five".to_owned(),
        "not ok 3 should be strictly equal".to_owned(),
        "  ---".to_owned(),
        "    operator: equal".to_owned(),
        "    expected: 3".to_owned(),
        "    actual:   4".to_owned(),
        format!("    at: Test.<anonymous> ({root}/test/stock.test.js:8:5)"),
        "  ...".to_owned(),
        "".to_owned(),
        "1..3".to_owned(),
        "# tests 3".to_owned(),
        "# pass  1".to_owned(),
        "# fail  2".to_owned(),
    ];
    let seen = names_messages_lines(&report, dir.path());
    assert_eq!(
        seen,
        [
            (
                "discounts 100 by ten percent".to_owned(),
                "should be strictly equal (expected 90, actual 80)".to_owned(),
                Some(8)
            ),
            (
                "reserves two of five".to_owned(),
                "should be strictly equal (expected 3, actual 4)".to_owned(),
                Some(8)
            ),
        ]
    );
}

/// A test whose failure's first own frame is in another of the user's files (`lib/`) is placed on
/// the process that ran its file, which TAP's `location:` names (it once had no process).
#[test]
fn a_test_failing_in_a_library_of_the_user_s_is_placed_by_its_declaration() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("lib")).unwrap();
    std::fs::write(dir.path().join("lib/price.js"), "x\n".repeat(10)).unwrap();
    let test_file = dir.path().join("test/add.test.js");
    let location = format!("  location: '{}:5:1'", test_file.display());
    let stack = format!(
        "    discount ({}:3:9)",
        dir.path().join("lib/price.js").display()
    );
    let lines = [
        "not ok 1 - discounts",
        "  ---",
        &location,
        "  error: 'price missing'",
        "  stack: |-",
        &stack,
        "  ...",
    ];
    // Two processes, each running a test file: the site alone names neither.
    let process = |label: &str, file: &Path| crate::trace::session::Process {
        role: "child".into(),
        label: Some(label.into()),
        argv: vec!["node".into(), file.display().to_string()],
        ..Default::default()
    };
    let processes = [
        process("child 1", &dir.path().join("test/other.test.js")),
        process("child 2", &test_file),
    ];
    let found = reported(&output(&lines), u64::MAX, dir.path(), &own_code, &processes);
    let site = found[0].site.as_ref().unwrap();
    assert!(site.file.ends_with("lib/price.js"), "{site:?}");
    assert_eq!(found[0].process.as_deref(), Some("child 2"));
}

/// ava 6, a test file that throws as it loads: ava prints the file's `file:line` and a code
/// excerpt above the error, and the message was once `test/load.test.js:2` (the SyntaxError lost).
#[test]
fn ava_s_uncaught_exception_with_its_code_excerpt_has_the_error_as_message_and_the_line_as_site() {
    let dir = workspace();
    std::fs::create_dir_all(dir.path().join("test")).unwrap();
    std::fs::write(
        dir.path().join("test/load.test.js"),
        "const test = require('ava');\nconst cfg = JSON.parse('{\"port\": }');\n",
    )
    .unwrap();
    let test = read(
        dir.path(),
        &[
            "",
            "  Uncaught exception in test/load.test.js",
            "",
            "  test/load.test.js:2",
            "",
            "   1: const test = require('ava');         ",
            "   2: const cfg = JSON.parse('{\"port\": }');",
            "   3: test('never', t => t.pass());        ",
            "",
            "  SyntaxError: Unexpected token '}', \"{\"port\": }\" is not valid JSON",
            "",
            "  ✘ test/load.test.js exited with a non-zero exit code: 1",
            "  TypeError: fetch failed: ECONNREFUSED",
            "      at test/add.test.js:5:9",
        ],
    );
    assert_eq!(test.name, "Uncaught exception in test/load.test.js");
    assert!(
        test.message
            .starts_with("SyntaxError: Unexpected token '}'"),
        "{}",
        test.message
    );
    assert_site(&test, "test/load.test.js", 2, 1);
}

/// ava 6, a test file that could not load (worker threads, `--import=tsx` not applied to them):
/// ava reports no test, only the file's uncaught exception; it was once no failure at all.
#[test]
fn ava_s_uncaught_exception_in_a_test_file_is_a_failure_of_that_file() {
    let dir = workspace();
    let test = read(
        dir.path(),
        &[
            "",
            "  Uncaught exception in test/add.test.js",
            "",
            "  TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension \".ts\" for /w/test/add.test.ts",
            "",
            "  TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension \".ts\" for /w/test/add.test.ts",
            "      at Object.getFileProtocolModuleFormat [as file:] (node:internal/modules/esm/get_format:189:9)",
            "      at defaultGetFormat (node:internal/modules/esm/get_format:232:36)",
            "",
            "  ✘ test/add.test.js exited with a non-zero exit code: 1",
            "  ─",
            "",
            "  1 uncaught exception",
        ],
    );
    assert_eq!(test.name, "Uncaught exception in test/add.test.js");
    assert!(
        test.message
            .starts_with("TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension"),
        "{}",
        test.message
    );
}
