//! Errors that reach the user, each knowing its exit code.
//!
//! Commands use `anyhow` inside; at the boundary an error is either one of these (with its code) or
//! an `anyhow::Error` that is reported as "could not trace" unless it wraps one of these.

use crate::exit;

/// An error with a published exit code. Messages name the file, the line and what to do.
#[derive(Debug, thiserror::Error)]
pub enum TracerError {
    /// Bad flags or bad input the user can fix: exit 2.
    #[error("{0}")]
    Usage(String),
    /// The tool could not trace or run what it was asked to: exit 4.
    #[error("{0}")]
    CannotTrace(String),
    /// Ctrl-C or SIGTERM stopped the work before it was done: 130 or 143, and no verdict.
    #[error("{message}")]
    Interrupted { code: u8, message: String },
}

impl TracerError {
    pub fn usage(message: impl Into<String>) -> Self {
        TracerError::Usage(message.into())
    }

    pub fn cannot_trace(message: impl Into<String>) -> Self {
        TracerError::CannotTrace(message.into())
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            TracerError::Usage(_) => exit::USAGE,
            TracerError::CannotTrace(_) => exit::CANNOT_TRACE,
            TracerError::Interrupted { code, .. } => *code,
        }
    }
}

/// The exit code for any error a command returned: a `TracerError` anywhere in the chain decides,
/// otherwise the tool could not do its job (4).
pub fn exit_code_of(error: &anyhow::Error) -> u8 {
    error
        .chain()
        .find_map(|cause| cause.downcast_ref::<TracerError>())
        .map_or(exit::CANNOT_TRACE, TracerError::exit_code)
}
