//! The session store: `OUT/sessions/<id>/{session.json,events.ndjson,evidence.json}` and
//! `OUT/latest`, a symbolic link to the last finished session's folder (`sessions/<id>`). Every
//! JSON file is written atomically (a temporary file in the same folder, then a rename), and so is
//! `latest` (a new link renamed over the old one), so a crash never leaves half a file. Retention
//! keeps the newest `--keep` sessions and never removes one whose run is still in progress.
//!
//! `latest` is a link rather than a file holding the id because replacing a file by a rename costs
//! ext4 the old file's blocks and the new one's allocation, and a link, whose target lives in its
//! inode, does not: it is on the path from the program's exit to the summary.
//! A `latest` file written by an earlier tracer is still read.
//!
//! File modes: a session holds the program's output and values, so everything written under the
//! output folder is private to the user: files 0600 (`session.json`, `events.ndjson`,
//! `evidence.json`, the running marker), folders 0700 (`OUT`, `OUT/sessions` and each session's,
//! when tracer creates them; an existing folder keeps its mode). A link has no mode of its own;
//! `latest`'s target, a session's id, is a time and a number.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::error::TracerError;
use crate::trace::session::Session;

/// Marks a session whose run is in progress; holds the tracer's pid.
const RUNNING_MARKER: &str = ".running";
/// The link to the last finished session's folder.
const LATEST: &str = "latest";
/// The mode of every file tracer writes under the output folder (see the module documentation).
pub const FILE_MODE: u32 = 0o600;
/// The mode of every folder tracer creates under it.
pub const DIR_MODE: u32 = 0o700;

#[derive(Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    pub fn new(root: &Path) -> Self {
        Store {
            root: root.to_owned(),
        }
    }

    fn sessions(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// The folder of session `id`.
    pub fn dir(&self, id: &str) -> PathBuf {
        self.sessions().join(id)
    }

    /// Creates a new session folder with a fresh, time-ordered id, marked as running.
    pub fn create(&self) -> Result<String> {
        for attempt in 0u32..1000 {
            let id = self.propose(attempt);
            if self.claim(&id)? {
                return Ok(id);
            }
        }
        anyhow::bail!(
            "could not find a free session id in {}",
            self.sessions().display()
        )
    }

    /// A fresh, time-ordered session id (`20261130-093412-118-5f2a`: the time to the millisecond,
    /// then a salt from the pid and `attempt`), not yet claimed.
    pub fn propose(&self, attempt: u32) -> String {
        let stamp = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
        let stamp: String = stamp.chars().filter(char::is_ascii_digit).collect();
        let (date, rest) = stamp.split_at(8.min(stamp.len()));
        let (time, millis) = rest.split_at(6.min(rest.len()));
        let salt = (std::process::id() ^ attempt.wrapping_mul(0x9E37)) & 0xffff;
        format!("{date}-{time}-{millis}-{salt:04x}")
    }

    /// Makes the folder of session `id`, marked as running (the marker holds this process's pid).
    /// False when another run already holds that id: then propose another.
    pub fn claim(&self, id: &str) -> Result<bool> {
        let sessions = self.sessions();
        if let Err(e) = fs::DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(&sessions)
        {
            let message = format!(
                "creating the output folder {}: {e}; name a folder tracer may write in with --out",
                sessions.display()
            );
            // A path the user named that is a file, or where they may not write: a bad flag
            // value (exit 2), where a full disk is the tool's failure to trace (exit 4).
            let theirs = matches!(
                e.kind(),
                io::ErrorKind::NotADirectory
                    | io::ErrorKind::AlreadyExists
                    | io::ErrorKind::PermissionDenied
                    | io::ErrorKind::ReadOnlyFilesystem
            );
            return Err(if theirs {
                TracerError::usage(message).into()
            } else {
                anyhow::Error::new(e).context(message)
            });
        }
        match fs::DirBuilder::new()
            .mode(DIR_MODE)
            .create(sessions.join(id))
        {
            Ok(()) => {
                File::options()
                    .write(true)
                    .create_new(true)
                    .mode(FILE_MODE)
                    .open(sessions.join(id).join(RUNNING_MARKER))?
                    .write_all(std::process::id().to_string().as_bytes())?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => {
                Err(e).with_context(|| format!("creating a session in {}", sessions.display()))
            }
        }
    }

    /// Marks the session as no longer running and points `latest` at it: a new link, renamed over
    /// the old `latest` (a link, or a file an earlier tracer wrote).
    pub fn finish(&self, id: &str) -> Result<()> {
        let _ = fs::remove_file(self.dir(id).join(RUNNING_MARKER));
        let latest = self.root.join(LATEST);
        // The session's id is unique in this store, so no other run makes a link of this name
        // (and should something be there, it is not tracer's: the link fails, nothing is removed).
        let temp = self.root.join(format!(".tmp-latest-{id}"));
        let writing = || format!("writing {}", latest.display());
        std::os::unix::fs::symlink(Path::new("sessions").join(id), &temp).with_context(writing)?;
        fs::rename(&temp, &latest)
            .inspect_err(|_| {
                let _ = fs::remove_file(&temp);
            })
            .with_context(writing)
    }

    /// The id `latest` names: its link's target `sessions/<id>`, or the id in a `latest` file an
    /// earlier tracer wrote. `None` when it is missing or names anything else.
    fn latest(&self) -> Option<String> {
        let latest = self.root.join(LATEST);
        let id = match fs::read_link(&latest) {
            Ok(target) => {
                let mut parts = target.components();
                match (parts.next(), parts.next(), parts.next()) {
                    (Some(Component::Normal(dir)), Some(Component::Normal(id)), None)
                        if dir == "sessions" =>
                    {
                        id.to_str()?.to_owned()
                    }
                    _ => return None,
                }
            }
            Err(_) => read_small(&latest)?.trim().to_owned(),
        };
        valid_id(&id).then_some(id)
    }

    /// Opens the session's live `events.ndjson` for appending.
    pub fn events_file(&self, id: &str) -> Result<BufWriter<File>> {
        let path = self.dir(id).join("events.ndjson");
        let file = File::options()
            .create(true)
            .append(true)
            .mode(FILE_MODE)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        Ok(BufWriter::with_capacity(64 * 1024, file))
    }

    /// Writes `value` as pretty JSON to `name` in the session's folder, atomically.
    pub fn write_json<T: Serialize + ?Sized>(&self, id: &str, name: &str, value: &T) -> Result<()> {
        let path = self.dir(id).join(name);
        let mut bytes = serde_json::to_vec_pretty(value)?;
        bytes.push(b'\n');
        write_atomic(&path, &bytes).with_context(|| format!("writing {}", path.display()))
    }

    /// Session ids, oldest first: the folders under `sessions/` named as tracer names a session
    /// that hold a session tracer wrote (its `session.json`, or the marker of a run in progress).
    /// Anything else there is not a session: it is never listed, counted or removed.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = fs::read_dir(self.sessions())
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|entry| entry.file_name().into_string().ok())
            .filter(|name| valid_id(name) && self.is_session(name))
            .collect();
        ids.sort();
        ids
    }

    /// Whether folder `id` holds a session tracer wrote.
    fn is_session(&self, id: &str) -> bool {
        let dir = self.dir(id);
        ["session.json", RUNNING_MARKER]
            .iter()
            .any(|name| fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.file_type().is_file()))
    }

    /// Resolves `latest`, `last-failed` or an id to an existing session id.
    pub fn resolve(&self, wanted: &str) -> Result<String> {
        let id = match wanted {
            "latest" => self.latest().ok_or_else(|| {
                TracerError::usage(format!(
                    "no sessions in {}: run `tracer run app.js` first, or pass --out",
                    self.root.display()
                ))
            })?,
            "last-failed" => self
                .ids()
                .into_iter()
                .rev()
                .find(|id| self.load(id).is_ok_and(|s| s.failed()))
                .ok_or_else(|| {
                    TracerError::usage(format!("no failed session in {}", self.root.display()))
                })?,
            id if !valid_id(id) => {
                return Err(TracerError::usage(format!(
                    "`{id}` is not a session id: use an id from `tracer list`, `latest` or `last-failed`"
                ))
                .into());
            }
            id => id.to_owned(),
        };
        if !self.dir(&id).join("session.json").is_file() {
            return Err(TracerError::usage(format!(
                "unknown session `{id}` in {}: see `tracer list`",
                self.root.display()
            ))
            .into());
        }
        Ok(id)
    }

    pub fn load(&self, id: &str) -> Result<Session> {
        crate::files::read_json(&self.dir(id).join("session.json"))
    }

    /// Removes the oldest sessions beyond `keep`, sparing `current` (the run's own, which will be
    /// `latest`), any whose run is still in progress and the one `latest` names. (Runs sharing one
    /// `--out` can finish out of order: the session a run just finished and pointed `latest` at
    /// may be older than another run's, and must stay.)
    pub fn retain(&self, keep: usize, current: &str) {
        let ids = self.ids();
        let excess = ids.len().saturating_sub(keep);
        let latest = self.latest().unwrap_or_default();
        // `latest` still names the previous run while this one is under way: it is spared only
        // when `keep` leaves room for it beside `current`.
        let spare_latest = keep > 1 || latest == current;
        for id in ids.into_iter().take(excess) {
            if id == current || (spare_latest && id == latest) {
                continue;
            }
            let dir = self.dir(&id);
            let running = match read_small(&dir.join(RUNNING_MARKER)).ok_or(()) {
                Ok(pid) => match pid.trim().parse::<i32>() {
                    // SAFETY: kill with signal 0 only checks that the process exists.
                    Ok(pid) => (unsafe { libc::kill(pid, 0) }) == 0,
                    // A marker being written right now (created, pid not yet in it).
                    Err(_) => true,
                },
                Err(_) => false,
            };
            if !running {
                let _ = fs::remove_dir_all(dir);
            }
        }
    }
}

/// A session id: letters, digits, `-`, `_`, `.`; never a path.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// A small text file tracer wrote (a run's marker, an earlier tracer's `latest`), through the regular-files-only
/// reader; `None` when it is missing, not a regular file, or over 4 KiB.
fn read_small(path: &Path) -> Option<String> {
    let bytes = crate::files::read_capped(path, 4096).ok()?;
    String::from_utf8(bytes).ok()
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename. The file is
/// [`FILE_MODE`] (the temporary file's own mode); a caller that shares it sets its own.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    let in_flight = temp.path().to_owned();
    lock_in_flight().push(in_flight.clone());
    let written = temp
        .write_all(bytes)
        .and_then(|()| temp.persist(path).map(drop).map_err(|e| e.error));
    lock_in_flight().retain(|p| *p != in_flight);
    written
}

/// The temporary files `write_atomic` is writing now, for `exit_on_interrupt`.
static IN_FLIGHT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn lock_in_flight() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

/// The signal `exit_on_interrupt` noted, if one came.
static INTERRUPTED: std::sync::OnceLock<Arc<AtomicUsize>> = std::sync::OnceLock::new();

/// The exit code of the Ctrl-C or SIGTERM a command that only reads and writes files received,
/// if it did: its work may have ended before `exit_on_interrupt`'s thread ran.
pub fn interrupted() -> Option<u8> {
    let signal = INTERRUPTED.get()?.load(Ordering::SeqCst);
    (signal != 0).then(|| crate::exit::for_signal(i32::try_from(signal).unwrap_or(127)))
}

/// For a command that only reads and writes files (it has no program to stop and no session to
/// finish): Ctrl-C or SIGTERM removes the temporary file being written, if any, and ends tracer
/// with 130 / 143, the shell's code for the signal. So an interrupted command leaves neither a
/// half-written output (outputs are renamed into place whole) nor a temporary file beside it.
pub fn exit_on_interrupt() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    // Noted in the handler itself, so that a command whose work ends before the thread below has
    // run still ends with the signal's code (`interrupted`).
    let noted = INTERRUPTED.get_or_init(|| Arc::new(AtomicUsize::new(0)));
    for signal in [SIGINT, SIGTERM] {
        let _ = signal_hook::flag::register_usize(signal, Arc::clone(noted), signal as usize);
    }
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            for temp in lock_in_flight().drain(..) {
                let _ = std::fs::remove_file(temp);
            }
            std::process::exit(i32::from(crate::exit::for_signal(signal)));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_is_a_link_into_sessions_and_an_earlier_tracer_s_file_is_still_read() {
        let root = tempfile::tempdir().unwrap();
        let store = Store::new(root.path());
        assert_eq!(store.latest(), None, "no run yet");
        let first = store.create().unwrap();
        store.finish(&first).unwrap();
        let link = std::fs::read_link(root.path().join("latest")).unwrap();
        assert_eq!(link, Path::new("sessions").join(&first));
        assert_eq!(store.latest().as_deref(), Some(first.as_str()));
        // A second run replaces the link; no temporary link is left beside it.
        let second = store.create().unwrap();
        store.finish(&second).unwrap();
        assert_eq!(store.latest().as_deref(), Some(second.as_str()));
        let names: Vec<_> = fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // Written by an earlier tracer: a file holding the id. Replaced by the next run's link.
        let latest = root.path().join("latest");
        fs::remove_file(&latest).unwrap();
        fs::write(&latest, format!("{first}\n")).unwrap();
        assert_eq!(store.latest().as_deref(), Some(first.as_str()));
        store.finish(&second).unwrap();
        assert!(fs::symlink_metadata(&latest).unwrap().is_symlink());
        // A link anywhere else names no session.
        for elsewhere in [
            "/etc",
            "../sessions/x",
            "sessions/../../etc",
            "sessions/a/b",
            "sessions",
        ] {
            fs::remove_file(&latest).unwrap();
            std::os::unix::fs::symlink(elsewhere, &latest).unwrap();
            assert_eq!(store.latest(), None, "{elsewhere}");
        }
    }

    #[test]
    fn an_id_is_claimed_once_and_the_next_attempt_proposes_another() {
        let root = tempfile::tempdir().unwrap();
        let store = Store::new(&root.path().join("out"));
        let id = store.propose(0);
        assert!(valid_id(&id), "{id}");
        assert!(
            store.claim(&id).unwrap(),
            "the first claim makes the folder"
        );
        assert!(store.dir(&id).join(RUNNING_MARKER).is_file());
        assert!(!store.claim(&id).unwrap(), "taken: another run holds it");
        assert_ne!(store.propose(1).rsplit('-').next(), id.rsplit('-').next());
    }

    #[test]
    fn ids_that_are_paths_are_refused() {
        assert!(valid_id("20261130-090312-123-ab12"));
        for bad in ["../../etc", "a/b", "", ".hidden", "..", "a b"] {
            assert!(!valid_id(bad), "{bad}");
        }
    }
}
