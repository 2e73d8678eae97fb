//! The three hashes of the conformance loop, computed from files and never taken on trust:
//! `traceSourceHash` (trace bytes in merge order), `contractHash` (canonical JSON of the contract
//! without that field) and `runtimeSourceHash` (every file under `case/result/`). Also the digest
//! behind contract item ids. This module only hashes; it decides nothing.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `sha256:` followed by 64 lowercase hex digits.
pub fn format(digest: impl AsRef<[u8]>) -> String {
    format!("sha256:{}", hex::encode(digest))
}

/// sha256 of a byte string, formatted.
pub fn of_bytes(bytes: &[u8]) -> String {
    format(Sha256::digest(bytes))
}

/// An incremental sha256 that several callers can feed (the reader feeds it the raw bytes of every
/// trace file in merge order).
#[derive(Default, Clone)]
pub struct Hasher(Sha256);

impl Hasher {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub fn finish(self) -> String {
        format(self.0.finalize())
    }
}

/// sha256 of a file's bytes, streamed. Only a regular file is hashed: a contract can name any
/// path, and hashing `/dev/zero` would never end.
pub fn of_file(path: &Path) -> io::Result<String> {
    let mut file = crate::files::open_regular(path)?;
    let mut hasher = Hasher::default();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(hasher.finish());
        }
        hasher.update(&buf[..n]);
    }
}

/// `traceSourceHash`: sha256 over the bytes of the trace files, concatenated in merge order (raw
/// bytes, byte-order mark and line endings included).
pub fn trace_source(files: &[PathBuf]) -> io::Result<String> {
    let mut hasher = Hasher::default();
    let mut buf = vec![0u8; 256 * 1024];
    for path in files {
        let mut file = crate::files::open_regular(path)?;
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
    }
    Ok(hasher.finish())
}

/// [`trace_source`] and each file's own digest, reading every file once.
pub fn trace_source_and_files(files: &[PathBuf]) -> io::Result<(String, Vec<String>)> {
    // One file's digest is the whole capture's: hashed once.
    if let [only] = files {
        let digest = of_file(only)?;
        return Ok((digest.clone(), vec![digest]));
    }
    let mut whole = Hasher::default();
    let mut each = Vec::with_capacity(files.len());
    let mut buf = vec![0u8; 256 * 1024];
    for path in files {
        let mut file = crate::files::open_regular(path)?;
        let mut one = Hasher::default();
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            whole.update(&buf[..n]);
            one.update(&buf[..n]);
        }
        each.push(one.finish());
    }
    Ok((whole.finish(), each))
}

/// Canonical JSON: object keys sorted by their UTF-8 bytes, no whitespace, serde_json's number and
/// string formatting.
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::new();
    write_canonical(value, &mut out);
    // Only JSON text was written: UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                // Writing JSON into a Vec cannot fail.
                let _ = serde_json::to_writer(&mut *out, key);
                out.push(b':');
                write_canonical(&map[key], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

/// `contractHash`: sha256 of the canonical JSON of the contract without its `contractHash` field.
pub fn contract(contract: &Value) -> String {
    let mut value = contract.clone();
    contract_in_place(&mut value)
}

/// [`contract`] without a copy of the tree: `contractHash` is taken out for the digest and put
/// back as it was.
pub fn contract_in_place(contract: &mut Value) -> String {
    let taken = match contract {
        Value::Object(map) => map.remove("contractHash"),
        _ => None,
    };
    let digest = of_bytes(canonical_json(contract).as_bytes());
    if let (Value::Object(map), Some(taken)) = (contract, taken) {
        map.insert("contractHash".to_owned(), taken);
    }
    digest
}

/// One file under `case/result/` as it went into `runtimeSourceHash`.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct SourceFile {
    pub path: String,
    pub sha256: String,
}

/// `runtimeSourceHash` over every regular file under `dir` (symlinks followed), with the per-file
/// digests so a check can name what changed.
///
/// The files are taken in the byte order of their relative paths (`/`-separated); for each, the
/// hash is fed the path, a NUL byte, the length in decimal, a NUL byte, and the file's bytes. A
/// missing folder hashes as no files.
pub fn runtime_source(dir: &Path) -> Result<(String, Vec<SourceFile>)> {
    let mut paths = Vec::new();
    if dir.exists() {
        for entry in walkdir::WalkDir::new(dir).follow_links(true) {
            let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
            if entry.file_type().is_file() {
                let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
                let name = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                paths.push((name, entry.path().to_owned()));
            }
        }
    }
    paths.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut hasher = Hasher::default();
    let mut files = Vec::with_capacity(paths.len());
    for (name, path) in paths {
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        hasher.update(name.as_bytes());
        hasher.update(b"\0");
        hasher.update(bytes.len().to_string().as_bytes());
        hasher.update(b"\0");
        hasher.update(&bytes);
        files.push(SourceFile {
            path: name,
            sha256: of_bytes(&bytes),
        });
    }
    Ok((hasher.finish(), files))
}

/// The id of a contract item: `c-` and the first 12 hex digits of the sha256 of the canonical JSON
/// array `[api, accessType, realm, receiver, phase]`.
pub fn item_id(api: &str, access_type: &str, realm: &str, receiver: &str, phase: &str) -> String {
    let key = Value::from(vec![api, access_type, realm, receiver, phase]);
    let digest = Sha256::digest(canonical_json(&key).as_bytes());
    format!("c-{}", &hex::encode(digest)[..12])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let v = json!({"b": 1, "a": {"d": [1, {"z": 0, "y": null}], "c": "x"}});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":{"c":"x","d":[1,{"y":null,"z":0}]},"b":1}"#
        );
    }

    #[test]
    fn contract_hash_ignores_its_own_field_only() {
        let a = json!({"version": "v", "contractHash": "sha256:old", "items": []});
        let b = json!({"version": "v", "items": []});
        assert_eq!(contract(&a), contract(&b));
        assert_ne!(
            contract(&a),
            contract(&json!({"version": "w", "items": []}))
        );
    }

    #[test]
    fn known_digest() {
        assert_eq!(
            of_bytes(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn item_ids_are_stable_and_distinct() {
        let a = item_id("navigator.userAgent", "get", "main", "Navigator", "init");
        assert_eq!(
            a,
            item_id("navigator.userAgent", "get", "main", "Navigator", "init")
        );
        assert_ne!(
            a,
            item_id("navigator.userAgent", "get", "main", "Navigator", "writer")
        );
        assert!(a.starts_with("c-") && a.len() == 14);
    }

    #[test]
    fn runtime_source_names_files_and_changes_with_content() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("final.js"), "a").unwrap();
        std::fs::write(dir.path().join("lib/x.js"), "b").unwrap();
        let (h1, files) = runtime_source(dir.path()).unwrap();
        assert_eq!(
            files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            ["final.js", "lib/x.js"]
        );
        std::fs::write(dir.path().join("lib/x.js"), "c").unwrap();
        let (h2, _) = runtime_source(dir.path()).unwrap();
        assert_ne!(h1, h2);
        let (empty, none) = runtime_source(&dir.path().join("missing")).unwrap();
        assert!(none.is_empty());
        assert_eq!(empty, of_bytes(b""));
    }

    #[test]
    fn a_capture_s_digests_are_its_files_bytes_one_file_or_several() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.ndjson");
        let b = dir.path().join("b.ndjson");
        std::fs::write(&a, "{\"seq\":1}\n").unwrap();
        std::fs::write(&b, "{\"seq\":2}\n").unwrap();
        let (whole, each) = trace_source_and_files(std::slice::from_ref(&a)).unwrap();
        assert_eq!(whole, of_bytes(b"{\"seq\":1}\n"));
        assert_eq!(each, std::slice::from_ref(&whole));
        let (whole, each) = trace_source_and_files(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(whole, of_bytes(b"{\"seq\":1}\n{\"seq\":2}\n"));
        assert_eq!(whole, trace_source(&[a.clone(), b.clone()]).unwrap());
        assert_eq!(each, [of_file(&a).unwrap(), of_file(&b).unwrap()]);
    }
}
