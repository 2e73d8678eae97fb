//! `NODE_OPTIONS` as Node reads it: every `--inspect*`/`--debug*` flag removed however it is
//! spelled (so nothing can widen the inspector), words quoted for it, and whether a loader in it
//! (or a target Node does not run as it is) may make the code that runs differ from the files.

use std::ffi::OsStr;
use std::path::Path;

/// `NODE_OPTIONS` without any `--inspect*` or `--debug*` flag (and their separate values), read
/// the way Node reads the variable (double quotes group, a backslash inside them escapes the next
/// character, `_` and `-` are the same in a flag's name), so no spelling of such a flag survives.
pub fn strip_inspect_options(options: &str) -> String {
    let mut kept = Vec::new();
    let mut skip_value = false;
    for token in node_options_words(options) {
        if skip_value {
            skip_value = false;
            if !token.starts_with('-') {
                continue;
            }
        }
        let flag = token.trim_start_matches('-').replace('_', "-");
        if token.starts_with("--") && (flag.starts_with("inspect") || flag.starts_with("debug")) {
            skip_value = !token.contains('=') && flag.ends_with("port");
            continue;
        }
        kept.push(quote_node_option(&token));
    }
    kept.join(" ")
}
/// The words of a `NODE_OPTIONS` value, as Node splits them.
fn node_options_words(options: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_quotes = false;
    let mut started = false;
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_quotes => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            '"' => {
                in_quotes = !in_quotes;
                started = true;
            }
            c if c.is_whitespace() && !in_quotes => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    words
}
/// A word for `NODE_OPTIONS`: as it is when it holds no space, quote or backslash, else in double
/// quotes with `"` and `\` escaped (Node's own rule for that variable).
pub fn quote_node_option(value: &str) -> String {
    if !value.is_empty()
        && !value
            .chars()
            .any(|c| c.is_whitespace() || c == '"' || c == '\\')
    {
        return value.to_owned();
    }
    let mut quoted = String::from("\"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}
/// Whether the code that runs may not be the files on disk: a loader in `NODE_OPTIONS`
/// (`--import`, `--require`/`-r`, `--loader`, `--experimental-loader`) or a target Node does not
/// run as it is (anything but `.js`, `.mjs`, `.cjs`: `.ts`, `.tsx`, `.jsx`, …). The `Debugger`
/// domain is then worth its start-up cost: its `scriptParsed` events carry the source maps such a
/// loader hands the runtime, which the file on disk does not have.
pub fn loader_likely(target: &Path, node_options: Option<&str>) -> bool {
    let plain_js = target
        .extension()
        .and_then(OsStr::to_str)
        .is_some_and(|e| matches!(e, "js" | "mjs" | "cjs"));
    let loader = node_options.is_some_and(|options| {
        options.split_whitespace().any(|token| {
            let flag = token.split('=').next().unwrap_or(token);
            matches!(
                flag,
                "--import" | "--require" | "-r" | "--loader" | "--experimental-loader"
            )
        })
    });
    !plain_js || loader
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loader_or_a_target_node_does_not_run_as_it_is_is_noticed() {
        let js = Path::new("/w/app.js");
        assert!(!loader_likely(js, None));
        assert!(!loader_likely(js, Some("--max-old-space-size=100")));
        assert!(loader_likely(js, Some("--import tsx")));
        assert!(loader_likely(js, Some("--require=ts-node/register")));
        assert!(loader_likely(js, Some("-r @babel/register")));
        assert!(loader_likely(Path::new("/w/main.ts"), None));
        assert!(!loader_likely(Path::new("/w/main.mjs"), None));
    }

    #[test]
    fn strips_every_inspect_flag_and_keeps_the_rest() {
        assert_eq!(strip_inspect_options("--inspect"), "");
        assert_eq!(
            strip_inspect_options(
                "--max-old-space-size=100 --inspect=0.0.0.0:9229 --inspect-brk --trace-warnings"
            ),
            "--max-old-space-size=100 --trace-warnings"
        );
        assert_eq!(
            strip_inspect_options("--inspect-port 0.0.0.0:1 --no-warnings"),
            "--no-warnings"
        );
        assert_eq!(
            strip_inspect_options("--inspect-publish-uid=http --debug-port=1"),
            ""
        );
        // Every spelling Node reads as an inspector flag.
        assert_eq!(
            strip_inspect_options(
                r#""--\inspect=0.0.0.0:9229" --inspect_brk "--max-old-space-size=64""#
            ),
            "--max-old-space-size=64"
        );
        assert_eq!(
            strip_inspect_options(r#"--require "/a b/x.js""#),
            r#"--require "/a b/x.js""#
        );
    }
}
