//! What Node or V8 printed on stderr when it aborted the process (a heap out of memory, a failed
//! internal check): the one line that says why, which the native stack printed after it would
//! otherwise bury (a process killed by SIGABRT prints no JavaScript error and no position).

use std::sync::LazyLock;

use regex::Regex;

/// Node's fatal error (`node::OnFatalError`, its out-of-memory handler): `FATAL ERROR: Reached
/// heap limit Allocation failed - JavaScript heap out of memory`.
static NODE_FATAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^FATAL ERROR: (.+?)\s*$").expect("regex"));
/// A failed assertion in Node's own C++: `node[42]: ../src/node_file.cc:3:void f(): Assertion
/// `(a) == (b)' failed.`
static NODE_ASSERT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\S+\[\d+\]: (?:.*?: )?(Assertion .+ failed\.?)\s*$").expect("regex")
});
/// A line of V8's fatal report block, `# Fatal error in …` and the lines after it (`# Check
/// failed: …`).
static V8_BLOCK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^# (\S.*?)\s*$").expect("regex"));

/// The banner above the JavaScript stack Node prints as it aborts.
pub const JS_STACK_BANNER: &str = "----- JavaScript stack trace -----";

/// A frame of that stack (`2: Module._compile (node:internal/…:1521:14)`).
pub fn is_numbered_frame(line: &str) -> bool {
    line.split_once(": ").is_some_and(|(number, site)| {
        !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) && !site.starts_with("0x")
    })
}

/// A frame of the native stack Node prints after a fatal error (` 3: 0x10fb205 v8::…`).
pub fn is_native_frame(line: &str) -> bool {
    let line = line.trim_start();
    let Some((number, rest)) = line.split_once(": 0x") else {
        return false;
    };
    !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
        && rest.bytes().next().is_some_and(|b| b.is_ascii_hexdigit())
}

/// The reason the runtime gave for aborting, from the last such report in `tail` (already free of
/// terminal escape sequences), or `None` when it printed none.
pub fn reason(tail: &str) -> Option<String> {
    let lines: Vec<&str> = tail.lines().collect();
    for (i, line) in lines.iter().enumerate().rev() {
        if let Some(found) = NODE_FATAL.captures(line) {
            return Some(found[1].to_owned());
        }
        if let Some(found) = NODE_ASSERT.captures(line) {
            return Some(found[1].to_owned());
        }
        if line.starts_with("# Fatal ") {
            // `# Fatal error in ../deps/v8/src/x.cc, line 4` then `# Check failed: y.`: the
            // check says why; the place is V8's source, not the program's.
            let said: Vec<String> = lines[i..]
                .iter()
                .skip(1)
                .take_while(|l| l.starts_with('#'))
                .filter_map(|l| V8_BLOCK.captures(l).map(|c| c[1].to_owned()))
                .filter(|l| !l.starts_with("FailureMessage"))
                .take(1)
                .collect();
            let head = V8_BLOCK.captures(line).map(|c| c[1].to_owned())?;
            return Some(match said.first() {
                Some(check) => format!("{head}: {check}"),
                None => head,
            });
        }
    }
    None
}

/// The JavaScript frames Node printed under `----- JavaScript stack trace -----` as it aborted
/// (`process.abort()`, a failed check in a native call), nearest first, as stack text (`    at
/// fn (file:line:col)`), or `None` when it printed none.
pub fn js_stack_text(tail: &str) -> Option<String> {
    let start = tail.rfind(JS_STACK_BANNER)?;
    let mut text = String::new();
    for line in tail[start..].lines().skip(1) {
        let line = line.trim();
        if line.is_empty() && text.is_empty() {
            continue;
        }
        let Some((_, site)) = line.split_once(": ").filter(|_| is_numbered_frame(line)) else {
            break;
        };
        text.push_str("    at ");
        text.push_str(site);
        text.push('\n');
    }
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_javascript_stack_node_printed_as_it_aborted_is_stack_text() {
        let tail = "x\n----- Native stack trace -----\n\n 1: 0xd3a3c0  [/usr/bin/node]\n\n----- JavaScript stack trace -----\n\n1: /w/c.js:1:27\n2: Module._compile (node:internal/modules/cjs/loader:1521:14)\n\n\n";
        assert_eq!(
            js_stack_text(tail).as_deref(),
            Some(
                "    at /w/c.js:1:27\n    at Module._compile (node:internal/modules/cjs/loader:1521:14)\n"
            )
        );
        assert_eq!(
            js_stack_text("FATAL ERROR: x\n 1: 0xb7 node::A() [node]\n"),
            None
        );
    }

    #[test]
    fn node_s_heap_out_of_memory_is_its_fatal_line() {
        let tail = "<--- JS stacktrace --->\n\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n----- Native stack trace -----\n\n 1: 0xb78db3 node::OOMErrorHandler(char const*, v8::OOMDetails const&) [node]\n 2: 0xee8300 v8::Utils::ReportOOMFailure() [node]\n";
        assert_eq!(
            reason(tail).as_deref(),
            Some("Reached heap limit Allocation failed - JavaScript heap out of memory")
        );
        assert!(is_native_frame(
            " 1: 0xb78db3 node::OOMErrorHandler() [node]"
        ));
        assert!(is_native_frame("16: 0x195e476  [/usr/bin/node]"));
        assert!(!is_native_frame("    at f (/w/a.js:1:2)"));
        assert!(!is_native_frame("port: 0x1f is taken"));
    }

    #[test]
    fn v8_s_failed_check_and_node_s_assertion_say_what_failed() {
        let v8 = "\n\n#\n# Fatal error in , line 0\n# Check failed: !holder->IsUndefined().\n#\n#\n#\n#FailureMessage Object: 0x7ffd\n----- Native stack trace -----\n\n 1: 0xb78db3 node::DumpBacktrace(_IO_FILE*) [node]\n";
        assert_eq!(
            reason(v8).as_deref(),
            Some("Fatal error in , line 0: Check failed: !holder->IsUndefined().")
        );
        let node = "node[4242]: ../src/node_file.cc:1524:void node::fs::Read(): Assertion `args[1]->IsInt32()' failed.\n 1: 0xb78db3 node::Abort() [node]\n";
        assert_eq!(
            reason(node).as_deref(),
            Some("Assertion `args[1]->IsInt32()' failed.")
        );
        assert_eq!(reason("Error: no\n    at f (/w/a.js:1:2)\n"), None);
    }
}
