//! Where an ES module import that Node could not resolve is written: Node's error names the
//! importing file (`Cannot find module '/w/missing.mjs' imported from /w/app.mjs`) but no line,
//! and the error has no frame of the program's; the line is found by reading that file for the
//! specifier (text, never evaluated).

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::trace::sourcemaps::normalize;

/// The largest importing file read for the specifier.
const MAX_IMPORTER_BYTES: u64 = 4 * 1024 * 1024;

/// Node's resolution errors that name the importer: a module path, a package name, a directory.
static UNRESOLVED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:Cannot find (?P<kind>module|package) '(?P<what>[^']+)'|Directory import '(?P<dir>[^']+)' is not supported resolving ES modules) imported from (?P<importer>\S+)",
    )
    .expect("regex")
});

/// The site found: the importing file, the 1-based line and column of the specifier's opening
/// quote, and the line's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportSite {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// The import in the importer that `message` (a resolution error's) is about, when the importer
/// is a readable file and holds exactly the specifier that resolves to what Node could not find.
pub fn find(message: &str) -> Option<ImportSite> {
    let found = UNRESOLVED.captures(message)?;
    let importer = found["importer"].trim_end_matches(['.', ',', ':']);
    let importer = PathBuf::from(importer.strip_prefix("file://").unwrap_or(importer));
    let base = importer.parent()?.to_owned();
    let wanted: Box<dyn Fn(&str) -> bool> = match (found.name("kind"), found.name("what")) {
        (Some(kind), Some(what)) if kind.as_str() == "package" => {
            let name = what.as_str().to_owned();
            Box::new(move |spec: &str| {
                spec == name
                    || spec
                        .strip_prefix(name.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
        }
        (_, Some(what)) => resolves_to(base, what.as_str()),
        _ => resolves_to(base, found.name("dir")?.as_str()),
    };
    let meta = std::fs::metadata(&importer).ok()?;
    if !meta.is_file() || meta.len() > MAX_IMPORTER_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(&importer).ok()?;
    for (index, line) in text.lines().enumerate() {
        for (column, spec) in literals(line) {
            if wanted(spec) {
                return Some(ImportSite {
                    file: importer.display().to_string(),
                    line: u32::try_from(index + 1).ok()?,
                    column,
                });
            }
        }
    }
    None
}

/// A test of a relative or absolute specifier against the path Node could not find.
fn resolves_to(base: PathBuf, missing: &str) -> Box<dyn Fn(&str) -> bool> {
    let missing = normalize(Path::new(
        missing.strip_prefix("file://").unwrap_or(missing),
    ));
    Box::new(move |spec: &str| {
        let relative = spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('/');
        let spec = spec.strip_prefix("file://").unwrap_or(spec);
        relative && normalize(&base.join(spec)) == missing
    })
}

/// The string literals of one line of source, each with the 1-based column (in characters) of
/// its opening quote; a literal with an escape is left out (a specifier has none).
fn literals(line: &str) -> Vec<(u32, &str)> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().enumerate();
    while let Some((column, (start, quote))) = chars.next() {
        if !matches!(quote, '\'' | '"' | '`') {
            continue;
        }
        let rest = &line[start + 1..];
        let Some(end) = rest.find(quote) else {
            break;
        };
        let literal = &rest[..end];
        let skipped = literal.chars().count() + 1;
        if !literal.contains('\\') {
            if let Ok(column) = u32::try_from(column + 1) {
                out.push((column, literal));
            }
        }
        for _ in 0..skipped {
            chars.next();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_module_a_missing_package_and_a_directory_are_found_where_imported() {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("app.mjs");
        std::fs::write(
            &app,
            "// './util.mjs' in a comment is a literal too, but not of this line's import\nimport fs from 'node:fs';\nimport { a } from \"./lib/util.mjs\";\nimport b from 'left-pad/sub.js';\nimport c from './dir';\n",
        )
        .unwrap();
        let app_text = app.display().to_string();
        let lib = dir.path().join("lib/util.mjs");
        let at = |line, column| {
            Some(ImportSite {
                file: app_text.clone(),
                line,
                column,
            })
        };
        assert_eq!(
            find(&format!(
                "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '{}' imported from {app_text}",
                lib.display()
            )),
            at(3, 19)
        );
        assert_eq!(
            find(&format!(
                "Cannot find package 'left-pad' imported from {app_text}"
            )),
            at(4, 15)
        );
        assert_eq!(
            find(&format!(
                "Error [ERR_UNSUPPORTED_DIR_IMPORT]: Directory import '{}' is not supported resolving ES modules imported from {app_text}",
                dir.path().join("dir").display()
            )),
            at(5, 15)
        );
        // Not in the file, or no importer named: nothing is guessed.
        assert_eq!(
            find(&format!(
                "Cannot find module '{}' imported from {app_text}",
                dir.path().join("other.mjs").display()
            )),
            None
        );
        assert_eq!(find("Cannot find module './x'"), None);
    }
}
