//! CI annotations: after a run, the failure and the evidence's immediate cause as GitHub Actions
//! workflow commands (`::error file=…,line=…,col=…,title=…::message`), so they show on the line of a
//! pull request. Paths are relative to the workspace (`GITHUB_WORKSPACE`, else the current
//! directory); a position outside it is named in the message instead.
//!
//! Written on stdout, or on stderr when `--ndjson` owns stdout (the GitHub runner reads workflow
//! commands from both streams of a step). Reads the finished session and evidence; never the live
//! event stream.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::trace::event::Kind;
use crate::trace::evidence::Evidence;

/// An annotation format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// GitHub Actions workflow commands.
    Github,
}

/// The annotation format in effect: the one asked for (`Some(None)`: none), else `github` when
/// `GITHUB_ACTIONS=true`.
pub fn wanted(asked: Option<Option<Format>>) -> Option<Format> {
    match asked {
        Some(format) => format,
        None => {
            (std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true")).then_some(Format::Github)
        }
    }
}

/// Prints the annotations for a finished run; nothing when the run did not fail.
pub fn print(format: Format, evidence: Option<&Evidence>, ndjson: bool) {
    let Some(evidence) = evidence else {
        return;
    };
    let lines = match format {
        Format::Github => github(evidence, &workspace()),
    };
    let write = |out: &mut dyn Write| {
        for line in &lines {
            if writeln!(out, "{line}").is_err() {
                break;
            }
        }
        let _ = out.flush();
    };
    if ndjson {
        write(&mut std::io::stderr().lock());
    } else {
        write(&mut std::io::stdout().lock());
    }
}

/// `GITHUB_WORKSPACE` when set, else the current directory; canonical when it can be, since
/// session paths are.
fn workspace() -> PathBuf {
    let dir = std::env::var_os("GITHUB_WORKSPACE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    dir.canonicalize().unwrap_or(dir)
}

/// The GitHub workflow commands for a failure: one `::error` for the failure, one for the
/// immediate cause when it has a position.
pub fn github(evidence: &Evidence, workspace: &Path) -> Vec<String> {
    let failure = &evidence.failure;
    let mut lines = Vec::new();

    // A failure whose site is in node_modules or outside the workspace is annotated on the first
    // frame in the user's own code, where a pull request can show it.
    let (site, elsewhere) = match &failure.user_frame {
        Some(frame) => (
            Some((frame.file.as_str(), Some(frame.line), Some(frame.column))),
            failure
                .file
                .as_deref()
                .map(|f| format!("{f}:{}", failure.line.unwrap_or(0))),
        ),
        None => (
            failure
                .file
                .as_deref()
                .map(|f| (f, failure.line, failure.column)),
            None,
        ),
    };
    let mut message = match failure.kind {
        Kind::Exception => failure.message.clone(),
        _ => format!("the program failed: {}", failure.message),
    };
    if let Some(elsewhere) = elsewhere {
        message.push_str(&format!("\nthrown at {elsewhere}"));
    }
    if let Some(tail) = failure
        .stderr_tail
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        message.push_str("\nstderr ended with:\n");
        message.push_str(&crate::trace::evidence::tail_summary(tail, 5).join("\n"));
    }
    let title = match failure.kind {
        Kind::Exception => "tracer: uncaught exception",
        _ => "tracer: the program failed",
    };
    lines.push(error_line(site, title, &message, workspace));

    if let Some(cause) = &evidence.immediate_cause {
        let value = cause
            .value
            .as_deref()
            .map(|v| format!(" {:?}", crate::trace::values::strip_ansi(v)))
            .unwrap_or_default();
        let value = match cause.repeats {
            Some(n) => format!("{value} ×{n}"),
            None => value,
        };
        let message = format!(
            "{}{value}: the closest captured event before the failure ({}); correlation, not proof of cause",
            cause.detail, failure.message
        );
        let site = cause.file.as_deref().map(|f| (f, cause.line, cause.column));
        lines.push(error_line(
            site,
            "tracer: immediate cause",
            &message,
            workspace,
        ));
    }
    lines
}

fn error_line(
    site: Option<(&str, Option<u32>, Option<u32>)>,
    title: &str,
    message: &str,
    workspace: &Path,
) -> String {
    let mut properties = Vec::new();
    let mut message = message.to_owned();
    if let Some((file, line, column)) = site {
        match Path::new(file).strip_prefix(workspace) {
            Ok(relative) if !relative.as_os_str().is_empty() => {
                properties.push(format!(
                    "file={}",
                    escape_property(&relative.to_string_lossy())
                ));
                if let Some(line) = line {
                    properties.push(format!("line={line}"));
                }
                if let Some(column) = column {
                    properties.push(format!("col={column}"));
                }
            }
            _ => {
                let line = line.map(|l| format!(":{l}")).unwrap_or_default();
                message.push_str(&format!("\nat {file}{line} (outside the workspace)"));
            }
        }
    }
    properties.push(format!("title={}", escape_property(title)));
    format!(
        "::error {}::{}",
        properties.join(","),
        escape_data(&message)
    )
}

/// Escapes a message as GitHub workflow commands require.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`file=…`, `title=…`): the message escapes plus `:` and `,`.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_follow_the_workflow_command_format() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        // `%` first, so an escape is never escaped twice.
        assert_eq!(escape_data("%0A"), "%250A");
    }

    #[test]
    fn a_position_outside_the_workspace_goes_into_the_message() {
        let line = error_line(
            Some(("/elsewhere/lib.js", Some(3), Some(9))),
            "t",
            "boom",
            Path::new("/work"),
        );
        assert_eq!(
            line,
            "::error title=t::boom%0Aat /elsewhere/lib.js:3 (outside the workspace)"
        );
        let line = error_line(
            Some(("/work/src/a,b.js", Some(3), Some(9))),
            "t",
            "boom",
            Path::new("/work"),
        );
        assert_eq!(line, "::error file=src/a%2Cb.js,line=3,col=9,title=t::boom");
    }
}
