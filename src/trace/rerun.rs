//! What a re-run of a session says about its original failure (`tracer verify`): fixed, the same
//! failure (same kind, same message, same mapped site), a new one, or nothing (it did not finish).

use crate::trace::evidence::{Evidence, Failure};
use crate::trace::session::{Session, Status};

/// What the re-run says about the original failure.
#[derive(Debug, PartialEq)]
pub enum Verdict<'a> {
    /// The re-run succeeded; `was` is the original failure (none when the original did not fail).
    Fixed { was: Option<&'a Failure> },
    /// The re-run failed the same way.
    Same(&'a Failure),
    /// The re-run failed another way (or the original did not fail at all). `now` is `None` only
    /// for a failed session without evidence (a session file written by hand).
    New {
        was: Option<&'a Failure>,
        now: Option<&'a Failure>,
    },
    /// The re-run timed out or was stopped: no verdict (how it ended, in words).
    Unfinished(&'static str),
}

pub fn compare<'a>(
    original: Option<&'a Evidence>,
    rerun: &Session,
    now: Option<&'a Evidence>,
) -> Verdict<'a> {
    let was = original.map(|e| &e.failure);
    match rerun.status {
        Status::Timeout => return Verdict::Unfinished("timed out"),
        Status::Stopped => return Verdict::Unfinished("was stopped"),
        _ => {}
    }
    match now.map(|e| &e.failure) {
        None if !rerun.failed() => Verdict::Fixed { was },
        None => Verdict::New { was, now: None },
        Some(now) => match was {
            Some(was) if same_failure(was, now) => Verdict::Same(now),
            was => Verdict::New {
                was,
                now: Some(now),
            },
        },
    }
}

/// Same kind, same message, same mapped site.
fn same_failure(a: &Failure, b: &Failure) -> bool {
    a.kind == b.kind
        && a.message == b.message
        && (&a.file, a.line, a.column) == (&b.file, b.line, b.column)
}
