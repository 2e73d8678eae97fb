//! The audit's seal: an HMAC-SHA256 over the canonical JSON of the audit file (all of it but the
//! `integrity` field), with a key kept outside the case folder, in the user's state directory
//! (`$TRACER_STATE_DIR`, else `$XDG_STATE_HOME/tracer`, else `~/.local/state/tracer`; the key file
//! `audit-key` has mode 0600, its folder 0700). `tracer audit` seals what it writes; `tracer check`
//! verifies, and an audit whose seal is missing or does not verify is a blocking finding.
//!
//! What this stops: a hand edit of the audit, a script or an agent rewriting its JSON (setting
//! `networkAttempts` to 0, copying the contract's values into the observations) to turn a check
//! green. What it does not stop: someone who can read the key (the same user on the same machine),
//! who can compute a valid seal; and an audit made on another machine, or before the key was
//! replaced, does not verify here (audit again).

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::Value;
use sha2::Sha256;

use crate::conformance::hash::canonical_json;

/// The field that carries the seal.
pub const FIELD: &str = "integrity";
/// The seal's prefix.
const PREFIX: &str = "hmac-sha256:";
/// The key's file name in the state directory.
const KEY_FILE: &str = "audit-key";

/// The state directory the key lives in.
pub fn state_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("TRACER_STATE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_STATE_HOME") {
        return Some(PathBuf::from(dir).join("tracer"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".local/state/tracer"))
}

/// The key in `dir`, made (32 random bytes, hex) the first time. Several processes making it at
/// once agree on one: each writes its own temporary file and links it into place only if none is
/// there yet.
pub fn key_in(dir: &Path) -> Result<Vec<u8>> {
    let path = dir.join(KEY_FILE);
    if let Some(key) = read_key(&path)? {
        return Ok(key);
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| {
            format!(
                "creating {} for the audit's key: set TRACER_STATE_DIR to a folder you can write",
                dir.display()
            )
        })?;
    let mut bytes = [0u8; KEY_BYTES];
    // SAFETY: getrandom fills the buffer it is given, at most its length.
    let filled = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if filled != bytes.len() as isize {
        bail!("no random bytes for the audit's key");
    }
    let temporary = dir.join(format!("{KEY_FILE}.{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .with_context(|| format!("writing {}", temporary.display()))?;
    file.write_all(hex::encode(bytes).as_bytes())?;
    file.sync_all()?;
    drop(file);
    let linked = std::fs::hard_link(&temporary, &path);
    let _ = std::fs::remove_file(&temporary);
    if let Err(e) = linked
        && e.kind() != std::io::ErrorKind::AlreadyExists
    {
        return Err(e).with_context(|| format!("writing {}", path.display()));
    }
    read_key(&path)?.with_context(|| format!("reading {}", path.display()))
}

/// The key's length in bytes (written as 64 hex digits).
const KEY_BYTES: usize = 32;

/// The key at `path`, taken only as tracer makes it: a regular file (not a link to one), owned by
/// this user, readable by nobody else, holding exactly 64 hex digits. Anything else (a planted
/// key with other modes, an empty file, a short key) is refused with what to do: a key that
/// tracer did not make is never used to seal.
fn read_key(path: &Path) -> Result<Option<Vec<u8>>> {
    use std::os::unix::fs::MetadataExt;
    let refuse = |why: &str| {
        anyhow::anyhow!(
            "{} is not an audit key tracer made ({why}): remove it, and the next `tracer audit` makes a new one",
            path.display()
        )
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    if !meta.file_type().is_file() {
        return Err(refuse("not a regular file"));
    }
    // SAFETY: geteuid has no preconditions.
    if meta.uid() != unsafe { libc::geteuid() } {
        return Err(refuse("owned by another user"));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(refuse("readable or writable by others"));
    }
    let bytes = crate::files::read_capped(path, 1024)
        .with_context(|| format!("reading {}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let key = hex::decode(text.trim()).map_err(|_| refuse("not 64 hex digits"))?;
    if key.len() != KEY_BYTES {
        return Err(refuse("not 64 hex digits"));
    }
    // 32 random bytes have some 30 distinct values; a key of a few (all zeros) was written by hand.
    let mut seen = [false; 256];
    key.iter().for_each(|&b| seen[usize::from(b)] = true);
    if seen.iter().filter(|&&s| s).count() < 8 {
        return Err(refuse("not a random key"));
    }
    Ok(Some(key))
}

/// The seal of `audit` (a JSON object; its own `integrity` is left out) under `key`.
pub fn seal(audit: &Value, key: &[u8]) -> String {
    let mut unsealed = audit.clone();
    if let Some(map) = unsealed.as_object_mut() {
        map.remove(FIELD);
    }
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(canonical_json(&unsealed).as_bytes());
    format!("{PREFIX}{}", hex::encode(mac.finalize().into_bytes()))
}

/// What the check finds of an audit's seal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Valid,
    /// No `integrity` field.
    Missing,
    /// The seal does not verify with the key here.
    Mismatch,
    /// No key could be read or made here (the reason).
    NoKey(String),
}

/// Verifies the seal of the audit file's content `audit` with the key in `dir`.
pub fn verify(audit: &Value, dir: Option<&Path>) -> Verdict {
    let Some(given) = audit.get(FIELD).and_then(Value::as_str) else {
        return Verdict::Missing;
    };
    let Some(dir) = dir else {
        return Verdict::NoKey("no state directory (set TRACER_STATE_DIR or HOME)".to_owned());
    };
    let key = match read_key(&dir.join(KEY_FILE)) {
        Ok(Some(key)) => key,
        Ok(None) => {
            return Verdict::NoKey(format!("no key in {}", dir.display()));
        }
        Err(e) => return Verdict::NoKey(format!("{e:#}")),
    };
    let expected = seal(audit, &key);
    // Compared in constant time, as MACs are.
    let same = expected.len() == given.len()
        && expected
            .bytes()
            .zip(given.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    if same {
        Verdict::Valid
    } else {
        Verdict::Mismatch
    }
}

/// The key as it was when an audit began: sealing with it later is refused when the file no
/// longer holds it (the audited code, running as this user, replaced it meanwhile).
pub struct HeldKey {
    dir: PathBuf,
    key: Vec<u8>,
}

impl HeldKey {
    /// The key in `dir`, made if there is none, read before the audited code runs.
    pub fn take(dir: &Path) -> Result<HeldKey> {
        Ok(HeldKey {
            dir: dir.to_owned(),
            key: key_in(dir)?,
        })
    }

    /// The key, if the file still holds it now.
    pub fn still_held(&self) -> Result<&[u8]> {
        match read_key(&self.dir.join(KEY_FILE))? {
            Some(now) if now == self.key => Ok(&self.key),
            _ => bail!(
                "{} changed while the audit ran (something replaced or removed the key): nothing is sealed; audit again",
                self.dir.join(KEY_FILE).display()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_key_tracer_did_not_make_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEY_FILE);
        let zeros = "0".repeat(64);
        for (contents, mode, why) in [
            ("", 0o600, "not 64 hex digits"),
            ("abcd", 0o600, "not 64 hex digits"),
            (zeros.as_str(), 0o644, "readable or writable by others"),
            (zeros.as_str(), 0o600, "not a random key"),
        ] {
            std::fs::write(&path, contents).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let e = key_in(dir.path()).unwrap_err();
            assert!(
                format!("{e:#}").contains(why),
                "{contents:?} {mode:o}: {e:#}"
            );
            assert!(format!("{e:#}").contains("remove it"), "{e:#}");
        }
        std::fs::remove_file(&path).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, &zeros).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        let e = key_in(dir.path()).unwrap_err();
        assert!(format!("{e:#}").contains("not a regular file"), "{e:#}");
    }

    #[test]
    fn a_key_replaced_during_the_audit_seals_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let held = HeldKey::take(dir.path()).unwrap();
        assert!(held.still_held().is_ok());
        std::fs::remove_file(dir.path().join(KEY_FILE)).unwrap();
        key_in(dir.path()).unwrap();
        let e = held.still_held().unwrap_err();
        assert!(
            format!("{e:#}").contains("changed while the audit ran"),
            "{e:#}"
        );
    }

    #[test]
    fn a_sealed_audit_verifies_and_any_edit_breaks_it() {
        let dir = tempfile::tempdir().unwrap();
        let key = key_in(dir.path()).unwrap();
        assert_eq!(key, key_in(dir.path()).unwrap(), "made once, then read");
        let mut audit = json!({"networkAttempts": 2, "observations": []});
        audit[FIELD] = seal(&audit, &key).into();
        assert_eq!(verify(&audit, Some(dir.path())), Verdict::Valid);
        audit["networkAttempts"] = 0.into();
        assert_eq!(verify(&audit, Some(dir.path())), Verdict::Mismatch);
        audit.as_object_mut().unwrap().remove(FIELD);
        assert_eq!(verify(&audit, Some(dir.path())), Verdict::Missing);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
