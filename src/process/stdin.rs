//! What tracer's own standard input is, which a traced program inherits (or reads through tracer
//! from a terminal): whether it carries input a second run would need to be given again.

use std::io::IsTerminal;
use std::os::unix::fs::FileTypeExt;

/// `terminal`, `null` (`/dev/null`, or closed), `pipe` (a pipe or a socket), `file` (a regular
/// file), or `other` (another device).
pub fn kind() -> &'static str {
    if std::io::stdin().is_terminal() {
        return "terminal";
    }
    // The descriptor itself, through the process's own link to it.
    let Ok(meta) = std::fs::metadata("/dev/stdin") else {
        return "null";
    };
    let kind = meta.file_type();
    if kind.is_fifo() || kind.is_socket() {
        "pipe"
    } else if kind.is_file() {
        "file"
    } else if kind.is_char_device()
        && std::fs::metadata("/dev/null").is_ok_and(|null| {
            use std::os::unix::fs::MetadataExt;
            null.rdev() == meta.rdev()
        })
    {
        "null"
    } else {
        "other"
    }
}

/// Whether a standard input of `kind` can hold input a program read (a pipe's or a file's).
pub fn carries_input(kind: &str) -> bool {
    matches!(kind, "pipe" | "file")
}
