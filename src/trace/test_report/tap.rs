//! TAP (`node --test` when its output is not a terminal; node-tap's; tape's; QUnit's): a
//! failure's YAML block.

use super::*;
use crate::trace::event::Frame;

/// What a TAP failure's YAML block says.
pub(super) struct TapBlock {
    /// `error:` (inline, or `|-` with the message under it); QUnit's `message:` with its
    /// `expected:` and `actual:` (`failed (expected 90, actual 80)`).
    pub(super) message: Option<String>,
    /// The first frame of `stack:` in the user's own code (frames are `Fn (file:line:col)`,
    /// without `at`), else `location:` (where the test is declared; node --test) or `at:`
    /// (`fileName`, `lineNumber`, `columnNumber`, node-tap's; a frame on the line, tape's).
    pub(super) site: Option<Frame>,
    /// A failed assertion without `error:` (node-tap's `compare:`, `diff:`, `at:`; tape's
    /// `operator:`, `expected:`, `actual:`, `at:`): what its `diff:` says when it is one line
    /// against one, or its `expected:` and `actual:` (` (expected 18, actual 16.2)`), else empty.
    pub(super) assertion: Option<String>,
    /// Where the test is declared (`location:`), else the outermost frame of the user's code in
    /// `stack:` (node-tap's `at:` is where an error was thrown, `lib/inventory.js`), else where
    /// the assertion was made (`at:`): the test's file where the stack's first own frame is a
    /// library's of the user's (`lib/price.js`), which tells the process that ran the test.
    pub(super) declared: Option<Frame>,
}

pub(super) fn read_tap_block(
    block: &[&str],
    folders: &Folders,
    is_own_code: &dyn Fn(&str) -> bool,
) -> TapBlock {
    let mut message = None;
    let mut site = None;
    let mut location = None;
    // `location:` (node --test: where the test is declared), and the outermost frame of the
    // user's code in `stack:` (node-tap, whose `at:` is where it threw: `lib/`).
    let mut declared_at = None;
    let mut outermost = None;
    let mut assertion = false;
    let mut at: [Option<String>; 3] = [None, None, None];
    // tape's `expected:` and `actual:` (one line each).
    let mut compared: [Option<&str>; 2] = [None, None];
    let mut diff: Vec<&str> = Vec::new();
    let mut section = "";
    let mut extended = false;
    // node's assert after `+ actual - expected`: the `+ …` and `- …` lines of a one-line diff.
    let mut sides: Vec<&str> = Vec::new();
    let mut sides_other = false;
    // The block's keys are at the indentation of its first line after `---` (that of the `---`
    // itself in node's and node-tap's blocks, two more in tape's): a deeper line is a value's text
    // (a `source:` excerpt can hold `error: 'x'`), never a key.
    let mut key_indent: Option<usize> = None;
    // QUnit's `message:`.
    let mut said: Option<String> = None;
    let mut opened = false;
    for line in block {
        let trimmed = line.trim();
        if trimmed == "..." {
            break;
        }
        if trimmed == "---" && !opened {
            opened = true;
            continue;
        }
        if opened && key_indent.is_none() && !trimmed.is_empty() {
            key_indent = Some(indentation(line));
        }
        // QUnit pads a key to its block's widest (`actual  : 80`).
        if key_indent.is_none_or(|indent| indentation(line) == indent)
            && let Some((key, value)) = trimmed.split_once(':')
            && let key = key.trim_end()
            && !key.contains(' ')
            && matches!(
                key,
                "error"
                    | "message"
                    | "expired"
                    | "stack"
                    | "location"
                    | "failureType"
                    | "code"
                    | "name"
                    | "at"
                    | "diff"
                    | "compare"
                    | "source"
                    | "operator"
                    | "expected"
                    | "actual"
            )
        {
            let value = value.trim();
            section = key;
            match key {
                "expected" | "actual" if !value.is_empty() && !value.starts_with('|') => {
                    compared[usize::from(key == "actual")] = Some(value);
                }
                // tape: the assertion's site on the line (`at: Test.<anonymous> (FILE:L:C)`).
                "at" if !value.is_empty() => {
                    assertion = true;
                    location = mapper::printed_stack_frames(&format!("at {value}"), folders)
                        .into_iter()
                        .next()
                        .or(location);
                }
                "operator" => assertion = true,
                "error" if !value.starts_with('|') && !value.is_empty() => {
                    message = Some(unquote(value).to_owned());
                }
                // QUnit: the assertion's message (`failed` when the test gave none), with its
                // `actual:` and `expected:`.
                "message" if !value.starts_with('|') && !value.is_empty() => {
                    said = Some(unquote(value).to_owned());
                }
                "location" => {
                    let at = unquote(value);
                    location = mapper::printed_stack_frames(&format!("at {at}"), folders)
                        .into_iter()
                        .next();
                    declared_at = location.clone();
                }
                "failureType" if unquote(value) == "subtestsFailed" => {
                    // A suite whose tests failed: its tests were reported before it.
                    return TapBlock {
                        message: None,
                        site: None,
                        assertion: None,
                        declared: None,
                    };
                }
                // node-tap's timeout (`not ok 2 - timeout!`, `expired: TAP`).
                "at" | "diff" | "compare" | "expired" => assertion = true,
                _ => {}
            }
            continue;
        }
        match section {
            "error" if message.is_none() && !trimmed.is_empty() => {
                message = Some(trimmed.to_owned());
            }
            // A message that announces what follows (`Expected values to be strictly equal:`):
            // its next line holds the values the runner compared (`2 !== 3`).
            "error" if !trimmed.is_empty() && !extended => {
                if let Some(text) = message.as_mut().filter(|t| announces(t)) {
                    text.push(' ');
                    text.push_str(trimmed);
                    extended = true;
                }
            }
            "error"
                if extended
                    && message
                        .as_deref()
                        .is_some_and(|m| m.ends_with(": + actual - expected")) =>
            {
                if trimmed.starts_with("+ ") || trimmed.starts_with("- ") {
                    sides.push(trimmed);
                } else if !trimmed.is_empty() {
                    // A structure's difference (`[`, `1,` …) is left as the legend says.
                    sides_other = true;
                }
            }
            "stack" => {
                let frame_text = if trimmed.starts_with("at ") {
                    trimmed.to_owned()
                } else {
                    format!("at {trimmed}")
                };
                if let Some(own) = mapper::printed_stack_frames(&frame_text, folders)
                    .into_iter()
                    .find(|f| is_own_code(&f.file))
                {
                    if site.is_none() {
                        site = Some(own.clone());
                    }
                    outermost = Some(own);
                }
            }
            "at" => {
                if let Some((key, value)) = trimmed.split_once(": ") {
                    let slot = match key {
                        "fileName" => 0,
                        "lineNumber" => 1,
                        "columnNumber" => 2,
                        _ => continue,
                    };
                    at[slot] = Some(unquote(value.trim()).to_owned());
                }
            }
            "diff" if !trimmed.is_empty() => diff.push(trimmed),
            _ => {}
        }
    }
    if !sides_other {
        super::text::break_node_diff(&mut message, &sides);
    }
    if location.is_none()
        && let [Some(file), Some(line), Some(column)] = &at
    {
        location = mapper::printed_stack_frames(&format!("at {file}:{line}:{column}"), folders)
            .into_iter()
            .next();
    }
    if message.is_none()
        && let Some(said) = said
    {
        message = Some(match compared {
            [Some(expected), Some(actual)] => {
                format!("{said} (expected {expected}, actual {actual})")
            }
            _ => said,
        });
    }
    let assertion = (assertion && message.is_none()).then(|| match (diff.as_slice(), compared) {
        (["--- expected", "+++ actual", hunk, expected, actual], _)
            if hunk.starts_with("@@") && expected.starts_with('-') && actual.starts_with('+') =>
        {
            format!(" (expected {}, actual {})", &expected[1..], &actual[1..])
        }
        (_, [Some(expected), Some(actual)]) => format!(" (expected {expected}, actual {actual})"),
        _ => String::new(),
    });
    TapBlock {
        message,
        site: site.or_else(|| location.clone()),
        declared: declared_at.or(outermost).or(location),
        assertion,
    }
}
