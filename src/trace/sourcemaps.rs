//! Loading source maps for generated scripts: from the `sourceMapURL` the runtime reported (a file
//! relative to the script, a `file://` URL or a `data:` URL) or from the script's own trailing
//! `//# sourceMappingURL=` comment. Positions here stay 0-based; the mapper converts them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sourcemap::DecodedMap;

/// The largest map or script file read to find a map.
const MAX_MAP_BYTES: u64 = 64 * 1024 * 1024;

/// A parsed map and the folder its relative `sources` resolve against.
pub struct LoadedMap {
    map: DecodedMap,
    base: PathBuf,
    /// Each `webpack://` source's file as found (see `webpack_source`), looked for once.
    webpack: HashMap<u32, Option<PathBuf>>,
}

/// An original position found through a map: absolute path, 0-based line and column.
pub struct Original {
    pub path: PathBuf,
    pub line0: u32,
    pub column0: u32,
    pub name: Option<String>,
}

impl LoadedMap {
    /// Looks up a 0-based generated position; `None` when the map has no mapping on that line.
    pub fn lookup(&mut self, line0: u32, column0: u32) -> Option<Original> {
        let token = self.map.lookup_token(line0, column0)?;
        if token.get_dst_line() != line0 || token.get_src_line() == u32::MAX {
            return None;
        }
        let source = token.get_source()?;
        let path = match source.strip_prefix("file://") {
            Some(rest) => PathBuf::from(crate::files::percent_decode(rest)),
            None => {
                let base = &self.base;
                let found = self
                    .webpack
                    .entry(token.get_src_id())
                    .or_insert_with(|| webpack_source(base, source));
                match found {
                    Some(path) => path.clone(),
                    // Named as the map names it: no file of this name is here.
                    None if source.starts_with("webpack://") => PathBuf::from(source),
                    None => normalize(&self.base.join(source)),
                }
            }
        };
        Some(Original {
            path,
            line0: token.get_src_line(),
            column0: token.get_src_col(),
            name: token.get_name().map(str::to_owned),
        })
    }
}

/// How many folders up from the map a `webpack://` source is looked for.
const WEBPACK_CONTEXT_DEPTH: usize = 8;

/// The file a `webpack://` source names, or `None` where no such file is found. webpack writes a
/// module's path relative to its context (the project's folder, where it ran, not the map's):
/// `webpack://NAMESPACE/./src/x.ts` (webpack 5, the namespace the package's name),
/// `webpack:///./src/x.ts` (webpack 4), `webpack:///home/me/app/src/x.ts` (an absolute path), each
/// maybe with a `?query` webpack added to tell modules apart. The context is not in the map: the
/// path is looked for in the map's folder, then in each folder above it.
fn webpack_source(base: &Path, source: &str) -> Option<PathBuf> {
    let rest = source.strip_prefix("webpack://")?;
    let (_namespace, path) = rest.split_once('/')?;
    let path = path.split_once('?').map_or(path, |(path, _)| path);
    let path = crate::files::percent_decode(path.trim_start_matches("./"));
    if path.is_empty() {
        return None;
    }
    base.ancestors()
        .take(WEBPACK_CONTEXT_DEPTH)
        .chain([Path::new("/")])
        .map(|folder| normalize(&folder.join(&path)))
        .find(|candidate| candidate.is_file())
}

/// Finds and parses the map of the script at `script`. `Ok(None)`: the script has no map.
/// `Err(note)`: it names a map that is missing or broken; the note says which and why.
pub fn load(script: &Path, source_map_url: Option<&str>) -> Result<Option<LoadedMap>, String> {
    let reference = match source_map_url.filter(|u| !u.is_empty()) {
        Some(url) => url.to_owned(),
        None => match trailing_reference(script) {
            Some(url) => url,
            None => return Ok(None),
        },
    };
    let script_dir = script.parent().unwrap_or(Path::new("/"));
    if reference.starts_with("data:") {
        let map = sourcemap::decode_data_url(&reference).map_err(|e| {
            format!(
                "the inline source map of {} is broken: {e}",
                script.display()
            )
        })?;
        return Ok(Some(LoadedMap {
            map,
            base: script_dir.to_owned(),
            webpack: HashMap::new(),
        }));
    }
    let path = match reference.strip_prefix("file://") {
        Some(rest) => PathBuf::from(crate::files::percent_decode(rest)),
        None => normalize(&script_dir.join(crate::files::percent_decode(&reference))),
    };
    let bytes = read_capped(&path).map_err(|e| {
        format!(
            "source map {} of {} could not be read: {e}",
            path.display(),
            script.display()
        )
    })?;
    let map = sourcemap::decode_slice(&bytes)
        .map_err(|e| format!("source map {} is broken: {e}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("/")).to_owned();
    Ok(Some(LoadedMap {
        map,
        base,
        webpack: HashMap::new(),
    }))
}

/// The `//# sourceMappingURL=` reference at the end of a script file, if any.
fn trailing_reference(script: &Path) -> Option<String> {
    let bytes = read_capped(script).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    text.lines().rev().take(5).find_map(|line| {
        let line = line.trim();
        line.strip_prefix("//# sourceMappingURL=")
            .or_else(|| line.strip_prefix("//@ sourceMappingURL="))
            .map(|url| url.trim().to_owned())
    })
}

/// A map or script file: a regular file of at most `MAX_MAP_BYTES` (a map named `/dev/zero` is a
/// note, not a hang).
fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    crate::files::read_capped(path, MAX_MAP_BYTES)
}

/// Removes `.` and `..` components without touching the file system (`a/./b/../c` is `a/c`;
/// symlinks are kept as written).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
