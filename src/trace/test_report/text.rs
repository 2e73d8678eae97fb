//! The text reporters (`node --test`'s spec, mocha's, jest's, jasmine's, vitest's): a failing
//! test's block after its heading.

use std::path::Path;

use super::*;
use crate::trace::event::Frame;

/// A failure's text under its heading: the message is its first line that is not blank, the site
/// the first frame in the user's own code (`at …`; vitest's `❯ fn file:line:col`).
pub(super) fn read_text_block(
    block: &[&str],
    cwd: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
) -> (Option<String>, Option<Frame>) {
    let mut message = None;
    let mut site = None;
    let mut extended = false;
    for line in block {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let frames = match trimmed.strip_prefix("❯ ") {
            Some(frame) => mapper::printed_stack_frames(&vitest_frame(frame), cwd),
            None => mapper::printed_stack_frames(trimmed, cwd),
        };
        if let Some(frame) = frames.first() {
            if is_own_code(&frame.file) {
                site = Some(frame.clone());
                break;
            }
            continue;
        }
        if trimmed.starts_with('>') || trimmed.starts_with('|') {
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
            }
            Some(_) => {}
        }
    }
    (message, site)
}

/// Vitest's frame (`Module.add src/add.js:2:25`, `test/a.test.js:4:21`) as V8 prints one.
fn vitest_frame(frame: &str) -> String {
    match frame.rsplit_once(' ') {
        Some((function, location)) => format!("at {function} ({location})"),
        None => format!("at {frame}"),
    }
}
