//! The text reporters (`node --test`'s spec, mocha's, jest's, jasmine's, uvu's, vitest's,
//! @hapi/lab's): a failing test's block after its heading.

use super::*;
use crate::trace::event::Frame;

/// A line of the code a runner quotes under a frame (vitest's `14|   total(…)` and `   |   ^`,
/// jest's `> 16 |     throw …`).
static CODE_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^>?\s*\d*\s*\|").expect("valid regex"));

/// A failure's text under its heading: the message is its first line that is not blank (with the
/// values jest prints under it, `Expected: 18`, `Received: 16.2`, in parentheses, and uvu's one-line
/// diff, `++7 (Expected)`, `--6 (Actual)`, as `(expected 7, actual 6)`), the site the first frame in
/// the user's own code (`at …`; vitest's `❯ fn file:line:col`), and the last such frame of the same
/// stack: the test's own (its file calls the code that failed, `at Object.<anonymous>
/// (test/cart.test.ts:11:17)` under `at discountFor (src/pricing.ts:16:11)`).
pub(super) fn read_text_block(
    block: &[&str],
    folders: &Folders,
    is_own_code: &dyn Fn(&str) -> bool,
) -> (Option<String>, Option<Frame>, Option<Frame>) {
    let mut message = None;
    let mut site = None;
    let mut outermost = None;
    let mut extended = false;
    // jest's values under its message (`Expected: 18`, `Received: 16.2`).
    let mut values: Vec<&str> = Vec::new();
    // uvu's one-line diff (`++7    (Expected)`, `--6    (Actual)`).
    let mut diff: [Option<&str>; 2] = [None, None];
    // @hapi/lab's legend (`actual expected`) before its message, and the diff under it, whose
    // two values only its colours tell apart (`8090`).
    let mut legend = false;
    // node's assert diff after `+ actual - expected` (mocha prints the message as it is): its `+ …`
    // and `- …` lines, until mocha's own `+ expected - actual`; anything else makes it no
    // one-line diff.
    let mut node_diff: Option<Vec<&str>> = None;
    for line in block {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if message.is_none() && trimmed == "actual expected" {
            legend = true;
            continue;
        }
        if std::mem::take(&mut legend) {
            continue;
        }
        let frames = match trimmed.strip_prefix("❯ ") {
            Some(frame) => mapper::printed_stack_frames(&vitest_frame(frame), folders),
            None => mapper::printed_stack_frames(trimmed, folders),
        };
        if let Some(frame) = frames.first() {
            if is_own_code(&frame.file) {
                if site.is_none() {
                    site = Some(frame.clone());
                }
                outermost = Some(frame.clone());
            }
            continue;
        }
        if site.is_some() {
            // The stack goes on past the code vitest quotes under a frame (`14|   total(…)`,
            // `   |      ^`); anything else ends it.
            if CODE_LINE.is_match(trimmed) {
                continue;
            }
            break;
        }
        if trimmed.starts_with('>') || trimmed.starts_with('|') {
            continue;
        }
        if let Some(sides) = node_diff.as_mut() {
            if trimmed.starts_with("+ ") || trimmed.starts_with("- ") {
                if trimmed == "+ expected - actual" {
                    // mocha's own diff follows: node's ended.
                    break_node_diff(&mut message, sides);
                    node_diff = None;
                } else {
                    sides.push(trimmed);
                }
                continue;
            }
            // Not a one-line diff (an object's, `{`): the message stays as printed.
            sides.clear();
            node_diff = None;
        }
        if let Some(expected) = trimmed
            .strip_prefix("++")
            .and_then(|t| t.strip_suffix("(Expected)"))
        {
            diff[0] = diff[0].or(Some(expected.trim()));
            continue;
        }
        if let Some(actual) = trimmed
            .strip_prefix("--")
            .and_then(|t| t.strip_suffix("(Actual)"))
        {
            diff[1] = diff[1].or(Some(actual.trim()));
            continue;
        }
        if message.is_some()
            && values.len() < 4
            && (trimmed.starts_with("Expected") || trimmed.starts_with("Received"))
            && trimmed.contains(": ")
        {
            values.push(trimmed);
            continue;
        }
        match &mut message {
            None => message = Some(trimmed.to_owned()),
            // A message that announces what follows (`Expected values to be strictly equal:`):
            // its next line holds the values the runner compared (`2 !== 3`).
            Some(text) if announces(text) && !extended => {
                text.push(' ');
                text.push_str(trimmed);
                extended = true;
                if trimmed == "+ actual - expected" {
                    node_diff = Some(Vec::new());
                }
            }
            Some(_) => {}
        }
    }
    if let Some(sides) = node_diff {
        // No diff of mocha's after node's (`--no-diff`).
        break_node_diff(&mut message, &sides);
    }
    if let Some(text) = message.as_mut().filter(|_| !values.is_empty()) {
        text.push_str(&format!(" ({})", values.join("; ")));
    }
    if let (Some(text), [Some(expected), Some(actual)]) = (message.as_mut(), diff) {
        // uvu's operator after its message (`Expected values to be strictly equal:  (is)`).
        static OPERATOR: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"\s{2,}\(\w+\)$").expect("valid regex"));
        let end = OPERATOR.find(text).map_or(text.len(), |m| m.start());
        text.truncate(end);
        text.push_str(&format!(" (expected {expected}, actual {actual})"));
    }
    (message, site, outermost)
}

/// `Expected values to be strictly equal: + actual - expected` with the one-line diff under it
/// (`+ 'hello world'`, `- 'Hello world'`) as `… actual 'hello world', expected 'Hello world'`
/// (node's TAP and mocha's report of node's assertion).
pub(super) fn break_node_diff(message: &mut Option<String>, sides: &[&str]) {
    if let (Some(text), [actual, expected]) = (message.as_mut(), sides)
        && actual.starts_with("+ ")
        && expected.starts_with("- ")
        && let Some(head) = text.strip_suffix(" + actual - expected")
    {
        *text = format!(
            "{head} actual {}, expected {}",
            &actual[2..],
            &expected[2..]
        );
    }
}

/// Vitest's frame (`Module.add src/add.js:2:25`, `test/a.test.js:4:21`) as V8 prints one.
fn vitest_frame(frame: &str) -> String {
    match frame.rsplit_once(' ') {
        Some((function, location)) => format!("at {function} ({location})"),
        None => format!("at {frame}"),
    }
}
