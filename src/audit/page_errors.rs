//! The errors of the page's own script that the environment reported while the entry ran (jsdom's
//! and happy-dom's console print an uncaught script error with its stack): read back from the
//! run's console events, for the audit's `recording.pageErrors`.

use crate::conformance::audit_format::PageError;
use crate::probe::node::{Origin, Rules};
use crate::trace::event::{Event, Kind};

/// How many distinct errors the audit lists; the rest are counted.
pub const KEPT: usize = 20;

/// The errors among the run's `console.error` calls whose stack's first frame is a script of the
/// page's (by `rules`: not Node's, not under `node_modules`, not the entry's folder), each once, in
/// order; and how many more there were past [`KEPT`].
pub fn from_events(events: &[Event], rules: &Rules) -> (Vec<PageError>, u64) {
    let mut kept: Vec<PageError> = Vec::new();
    let mut left_out = 0u64;
    let texts = events
        .iter()
        .filter(|e| e.kind == Kind::Console && e.level.as_deref() == Some("error"))
        .filter_map(|e| e.value.as_deref());
    for text in texts {
        for error in errors_in(text, rules) {
            if kept.contains(&error) {
                continue;
            }
            if kept.len() < KEPT {
                kept.push(error);
            } else {
                left_out += 1;
            }
        }
    }
    (kept, left_out)
}

/// Each `Name: message` line of `text` followed by a stack frame at a script of the page's.
fn errors_in(text: &str, rules: &Rules) -> Vec<PageError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((name, message)) = header(line) else {
            continue;
        };
        let Some((url, line_no, column)) = lines.get(i + 1).and_then(|next| frame(next)) else {
            continue;
        };
        if matches!(rules.origin(url), Origin::Named | Origin::Other) {
            out.push(PageError {
                name: name.to_owned(),
                message: message.to_owned(),
                url: url.to_owned(),
                line: line_no,
                column,
            });
        }
    }
    out
}

/// `ReferenceError: mylib is not defined` (an error's name ends in `Error` or `Exception`).
fn header(line: &str) -> Option<(&str, &str)> {
    let line = line
        .trim_start()
        .strip_prefix("Uncaught ")
        .unwrap_or(line.trim_start());
    let (name, message) = line.split_once(": ")?;
    let named = (name.ends_with("Error") || name.ends_with("Exception"))
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    named.then_some((name, message))
}

/// `    at f (URL:5:10)` or `    at URL:5:10`: the URL, line and column (1-based, as V8 prints).
fn frame(line: &str) -> Option<(&str, u32, u32)> {
    let rest = line.trim_start().strip_prefix("at ")?;
    let place = match rest.strip_suffix(')') {
        Some(inner) => &inner[inner.rfind('(')? + 1..],
        None => rest,
    };
    let (before, column) = place.rsplit_once(':')?;
    let (url, line_no) = before.rsplit_once(':')?;
    Some((url, line_no.parse().ok()?, column.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn console_error(text: &str) -> Event {
        serde_json::from_value(serde_json::json!({
            "id": 1, "ts": 0.0, "kind": "console", "runtime": "node", "detail": "console.error",
            "level": "error", "value": text,
        }))
        .unwrap()
    }

    /// happy-dom and jsdom print a page script's uncaught error with its stack; an error of the
    /// environment's own code, or of the entry's, is not the page's.
    #[test]
    fn an_error_whose_first_frame_is_the_page_s_is_the_page_s() {
        let rules = Rules {
            environment_dirs: vec![PathBuf::from("/case/result")],
            target_names: Default::default(),
        };
        let happy_dom = "ReferenceError: mylib is not defined\n    at Object.anonymous [as execute] (file:///w/page.html:5:10)\n    at #evaluateScript (file:///w/node_modules/happy-dom/lib/nodes/html-script-element/HTMLScriptElement.js:457:18)";
        let jsdom = "ReferenceError: mylib is not defined\n    at https://example.test/page.html:2:1\n    at Script.runInContext (node:vm:149:12)";
        let own =
            "TypeError: x is not a function\n    at parse (/w/node_modules/jsdom/lib/a.js:1:2)";
        let entry = "Error: config missing\n    at Object.<anonymous> (/case/result/final.js:2:26)";
        let events: Vec<Event> = [happy_dom, jsdom, own, entry, happy_dom]
            .into_iter()
            .map(console_error)
            .collect();
        let (errors, left_out) = from_events(&events, &rules);
        let shown: Vec<String> = errors
            .iter()
            .map(|e| {
                format!(
                    "{}: {} {}:{}:{}",
                    e.name, e.message, e.url, e.line, e.column
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "ReferenceError: mylib is not defined file:///w/page.html:5:10",
                "ReferenceError: mylib is not defined https://example.test/page.html:2:1",
            ]
        );
        assert_eq!(left_out, 0);
    }
}
