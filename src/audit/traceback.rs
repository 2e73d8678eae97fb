//! A Python entry's stderr, passed on as it comes, and its last traceback read back: the
//! exception and the place it was raised, for the audit's `entryFailure`.

use std::io::{Read, Write};
use std::process::ChildStderr;
use std::sync::mpsc;
use std::time::Duration;

use crate::conformance::audit_format::EntryFailure;

/// The bytes of stderr kept for the traceback: its last lines are what is read.
const TAIL: usize = 16 * 1024;

/// Copies `stderr` to tracer's own as it comes, keeping its last [`TAIL`] bytes; they are
/// handed over when the pipe closes (see [`Tail::take`]).
pub struct Tail(mpsc::Receiver<Vec<u8>>);

impl Tail {
    pub fn pass_on(mut stderr: ChildStderr) -> Tail {
        let (done, tail) = mpsc::channel();
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 8192];
            let mut out = std::io::stderr();
            loop {
                match stderr.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        // Passing it on must not stop the entry: a closed stderr drops it.
                        let _ = out.write_all(&buf[..n]);
                        kept.extend_from_slice(&buf[..n]);
                        if kept.len() > TAIL {
                            kept.drain(..kept.len() - TAIL);
                        }
                    }
                }
            }
            let _ = done.send(kept);
        });
        Tail(tail)
    }

    /// The last bytes, once the entry's stderr closed; none when something the entry left behind
    /// still holds it open after `wait`.
    pub fn take(self, wait: Duration) -> Option<Vec<u8>> {
        self.0.recv_timeout(wait).ok()
    }
}

/// The exception of the last Python traceback in `tail` (its last line: `ValueError: boom`) and
/// the last place the traceback names (`File "…/final.py", line 12`); `None` without one.
pub fn python_failure(tail: &[u8]) -> Option<EntryFailure> {
    let text = String::from_utf8_lossy(tail);
    let start = text.rfind("Traceback (most recent call last):")?;
    let lines: Vec<&str> = text[start..].lines().collect();
    let message = lines
        .iter()
        .skip(1)
        .rev()
        .find(|l| !l.trim().is_empty() && !l.starts_with(' '))?
        .trim()
        .to_owned();
    let place = lines.iter().rev().find_map(|l| {
        let rest = l.trim_start().strip_prefix("File \"")?;
        let (file, rest) = rest.split_once("\", line ")?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        Some((file.to_owned(), digits.parse::<u32>().ok()?))
    });
    Some(EntryFailure {
        kind: "exception".to_owned(),
        message,
        file: place.as_ref().map(|(file, _)| file.clone()),
        line: place.map(|(_, line)| line),
        column: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_traceback_gives_the_exception_and_where_it_was_raised() {
        let stderr = b"some output\n\
Traceback (most recent call last):\n  File \"/c/result/other.py\", line 3, in <module>\n    x()\nKeyError: 'a'\n\
\nDuring handling of the above exception, another exception occurred:\n\n\
Traceback (most recent call last):\n  File \"/c/result/final.py\", line 7, in <module>\n    main()\n  \
File \"/c/result/lib.py\", line 12, in main\n    raise ValueError('the harness broke')\nValueError: the harness broke\n";
        let failure = python_failure(stderr).unwrap();
        assert_eq!(failure.message, "ValueError: the harness broke");
        assert_eq!(failure.file.as_deref(), Some("/c/result/lib.py"));
        assert_eq!(failure.line, Some(12));
        assert!(python_failure(b"no traceback here\n").is_none());
    }
}
