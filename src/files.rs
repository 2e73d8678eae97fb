//! Opening and reading a file that outside input names (a source map or a source file a script,
//! a map or a session points at; a trace a contract lists; a JSON file of tracer's): only a regular
//! file is read, and at most a given number of bytes of it, so a name like `/dev/zero` or a FIFO
//! neither hangs the tracer nor fills its memory; and a `file:` URL's percent-encoded path made
//! plain. It reads; what the bytes mean is the caller's business (JSON aside: a parse error names
//! the file, the line and the column).

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::{Context, Result};
use serde::de::DeserializeOwned;

use crate::error::TracerError;

/// Opens `path` for reading if it is a regular file (symlinks followed). A FIFO is opened
/// without blocking and then refused, like a device or a folder.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// The bytes of the regular file `path`, refused when it is larger than `limit` bytes.
pub fn read_capped(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_regular(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::other(format!("larger than {limit} bytes")));
    }
    Ok(bytes)
}

/// The most tracer reads of one JSON file it wrote (a session, its evidence, a contract, an audit).
pub const MAX_JSON_BYTES: u64 = 1 << 30;

/// Reads and parses a JSON file; a parse error names the file, the line and the column. Bytes
/// that are not UTF-8 are a parse error like any other (a usage error, exit 2), not a failure to
/// read the file. Only a regular file is read, and at most [`MAX_JSON_BYTES`] of it: a FIFO or a
/// link to `/dev/zero` in its place is refused at once.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes =
        read_capped(path, MAX_JSON_BYTES).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        TracerError::usage(format!(
            "{}:{}:{}: not a valid file of this version ({e}); it may have been edited or written by another tool",
            path.display(),
            e.line(),
            e.column()
        ))
        .into()
    })
}

/// Percent-decodes a URL path (`%20` -> space, UTF-8 sequences -> characters).
pub fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_folders_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path that lives for the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        for path in [Path::new("/dev/zero"), &fifo, dir.path()] {
            let e = read_capped(path, 1024).expect_err("refused");
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{}", path.display());
        }
    }

    #[test]
    fn a_file_over_the_limit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_capped(&path, 5).unwrap(), b"12345");
        let e = read_capped(&path, 4).unwrap_err();
        assert!(e.to_string().contains("larger than 4 bytes"), "{e}");
    }
}
