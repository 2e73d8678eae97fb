//! An uncaught error's `cause` chain (`new Error("config unreadable", { cause: e })`), and the
//! errors an `AggregateError` holds (`[errors]: [ … ]`, `Promise.any`'s), read from
//! the error as Node printed it on stderr (`[cause]: SyntaxError: …` and its frames, one level of
//! indentation deeper each): the inspector's report of the exception carries the error's own
//! stack text only, and reading `cause` off the live error could run the program's code (an
//! accessor), which tracer never does.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::trace::event::Frame;
use crate::trace::mapper;

/// The most causes kept, nearest first.
pub const MAX_CAUSES: usize = 8;

/// One error of the chain, as Node printed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Cause {
    /// Its first line as printed: `SyntaxError: Unexpected end of JSON input`, or a value that is
    /// not an error (`'just text'`).
    pub message: String,
    /// Where it was made: the first frame of the program's own code in its printed stack (else
    /// its first frame that is a file), mapped like any position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// The causes of the error whose first printed line is `message`, from the last place `tail`
/// (free of terminal escapes) prints it at the start of a line, up to the end of its printed
/// object (the `}` that closes it at the start of a line); empty when it printed none.
pub fn read(
    tail: &str,
    message: &str,
    workspace: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Vec<Cause> {
    let lines: Vec<&str> = tail.lines().collect();
    let Some(start) = lines.iter().rposition(|l| *l == message) else {
        return Vec::new();
    };
    let mut out: Vec<Cause> = Vec::new();
    // The current cause's frames, as stack text.
    let mut frames = String::new();
    let finish = |cause: &mut Cause, frames: &str| place(cause, frames, workspace, is_own_code);
    for line in &lines[start + 1..] {
        if line.starts_with('}') || line.starts_with("Node.js v") {
            break;
        }
        let trimmed = line.trim_start();
        if let Some(said) = trimmed.strip_prefix("[cause]: ") {
            if let Some(last) = out.last_mut() {
                finish(last, &frames);
            }
            frames.clear();
            if out.len() == MAX_CAUSES {
                return out;
            }
            out.push(Cause {
                message: said.trim_end_matches(" {").to_owned(),
                file: None,
                line: None,
                column: None,
            });
        } else if !out.is_empty() && trimmed.starts_with("at ") {
            frames.push_str("    ");
            frames.push_str(trimmed.trim_end_matches(" {"));
            frames.push('\n');
        }
    }
    if let Some(last) = out.last_mut() {
        finish(last, &frames);
    }
    out
}

/// The errors an `AggregateError` whose first printed line is `message` (or `[message]`, as Node
/// prints an error without frames) holds, as Node printed them under `[errors]: [`, each where it
/// was made; at most [`MAX_CAUSES`], empty when it printed none.
pub fn held(
    tail: &str,
    message: &str,
    workspace: &Path,
    is_own_code: &dyn Fn(&str) -> bool,
) -> Vec<Cause> {
    let bracketed = format!("[{message}]");
    let lines: Vec<&str> = tail.lines().collect();
    let Some(start) = lines.iter().rposition(|l| {
        !message.is_empty() && (l.starts_with(message) || l.starts_with(&bracketed))
    }) else {
        return Vec::new();
    };
    let Some(open) = lines[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with('}'))
        .position(|l| *l == "  [errors]: [")
    else {
        return Vec::new();
    };
    let mut out: Vec<Cause> = Vec::new();
    let mut frames = String::new();
    for line in &lines[start + 2 + open..] {
        if line.starts_with("  ]") || !line.starts_with("    ") {
            break;
        }
        // The errors it holds are indented 4, their frames 8; anything deeper is theirs.
        let (indent, text) = (line.len() - line.trim_start().len(), line.trim());
        if indent == 8 && text.starts_with("at ") {
            frames.push_str("    ");
            frames.push_str(text.trim_end_matches([',', '{', ' ']));
            frames.push('\n');
        } else if indent == 4 && !text.starts_with(['}', ']']) {
            if let Some(last) = out.last_mut() {
                place(last, &frames, workspace, is_own_code);
            }
            frames.clear();
            if out.len() == MAX_CAUSES {
                return out;
            }
            out.push(Cause {
                message: text.trim_end_matches([',', '{', ' ']).to_owned(),
                file: None,
                line: None,
                column: None,
            });
        }
    }
    if let Some(last) = out.last_mut() {
        place(last, &frames, workspace, is_own_code);
    }
    out
}

/// `cause`'s site: the first frame of the program's own code in `frames` (stack text), else its
/// first frame that is a file, mapped like any position.
fn place(cause: &mut Cause, frames: &str, workspace: &Path, is_own_code: &dyn Fn(&str) -> bool) {
    let mapped = mapper::mapped_stack_text_frames(frames, workspace);
    let site = mapped
        .iter()
        .find(|f| is_own_code(&f.file))
        .or_else(|| mapped.first());
    if let Some(Frame {
        file, line, column, ..
    }) = site.filter(|f| !f.unmapped)
    {
        cause.file = Some(file.clone());
        cause.line = Some(*line);
        cause.column = Some(*column);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_of_causes_is_read_with_each_one_s_own_frame() {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("cz.js");
        std::fs::write(&app, "x\n".repeat(8).replace('x', &" ".repeat(60))).unwrap();
        let a = app.display();
        let tail = format!(
            "{a}:6\n  throw err;\n  ^\n\nTypeError: server cannot start\n    at start ({a}:6:49)\n    ... 5 lines matching cause stack trace ...\n    at node:internal/main/run_main_module:28:49 {{\n  code: 'E_START',\n  [cause]: Error: config unreadable\n      at readConfig ({a}:3:48)\n      at node:internal/main/run_main_module:28:49 {{\n    [cause]: SyntaxError: Unexpected end of JSON input\n        at JSON.parse (<anonymous>)\n        at parse ({a}:1:36)\n  }}\n}}\n\nNode.js v20.20.2\n"
        );
        let causes = read(
            &tail,
            "TypeError: server cannot start",
            dir.path(),
            &|_: &str| true,
        );
        let at = |c: &Cause| (c.message.clone(), c.line, c.column);
        assert_eq!(
            causes.iter().map(at).collect::<Vec<_>>(),
            [
                ("Error: config unreadable".to_owned(), Some(3), Some(48)),
                (
                    "SyntaxError: Unexpected end of JSON input".to_owned(),
                    Some(1),
                    Some(36)
                ),
            ]
        );
        assert_eq!(causes[0].file.as_deref(), Some(a.to_string().as_str()));
        // A cause that is no error; an error printed without one; another error's causes.
        let text = "Error: x\n    at [eval]:1:7 {\n  [cause]: 'just text'\n}\n";
        assert_eq!(
            read(text, "Error: x", dir.path(), &|_: &str| true)
                .iter()
                .map(at)
                .collect::<Vec<_>>(),
            [("'just text'".to_owned(), None, None)]
        );
        assert!(
            read(
                "Error: y\n    at f (/w/a.js:1:1)\n",
                "Error: y",
                dir.path(),
                &|_: &str| true
            )
            .is_empty()
        );
        assert!(read(text, "Error: other", dir.path(), &|_: &str| true).is_empty());
    }

    #[test]
    fn the_errors_an_aggregate_error_holds_are_read_each_with_its_own_frame() {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("agg.js");
        std::fs::write(&app, "x\n".repeat(4).replace('x', &" ".repeat(60))).unwrap();
        let a = app.display();
        // `Promise.any`'s: no frame of its own, so Node prints it in brackets.
        let tail = format!(
            "node:internal/process/promises:391\n    triggerUncaughtException(err, true /* fromPromise */);\n    ^\n\n[AggregateError: All promises were rejected] {{\n  [errors]: [\n    Error: eu unreachable\n        at Timeout._onTimeout ({a}:2:24)\n        at listOnTimeout (node:internal/timers:581:17),\n    TypeError: us unreachable\n        at Timeout._onTimeout ({a}:3:9)\n  ]\n}}\n\nNode.js v20.20.2\n"
        );
        let held = held(
            &tail,
            "AggregateError: All promises were rejected",
            dir.path(),
            &|_: &str| true,
        );
        let at = |c: &Cause| (c.message.clone(), c.line, c.column);
        assert_eq!(
            held.iter().map(at).collect::<Vec<_>>(),
            [
                ("Error: eu unreachable".to_owned(), Some(2), Some(24)),
                ("TypeError: us unreachable".to_owned(), Some(3), Some(9)),
            ]
        );
        // An error that holds none, and another error's list.
        assert!(held_of("Error: x\n    at f ({a}:1:1)\n", "Error: x", dir.path()).is_empty());
        assert!(held_of(&tail, "Error: other", dir.path()).is_empty());
    }

    fn held_of(tail: &str, message: &str, dir: &Path) -> Vec<Cause> {
        held(tail, message, dir, &|_: &str| true)
    }
}
