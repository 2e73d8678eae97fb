//! Redaction: values a trace stores can hold secrets. Well-known token shapes (bearer tokens, JWTs,
//! cloud access keys, private key blocks, …) are replaced by a marker that says a redaction happened
//! (`[REDACTED:jwt]`), and so is anything matching a user's `--redact REGEX`. Applied once, where
//! events enter the stream, and to the other strings a session keeps (arguments, the stderr tail,
//! quoted source lines).

use std::borrow::Cow;

use regex::{Regex, RegexSet};

use crate::error::TracerError;

/// The default shapes: (name used in the marker, pattern).
const DEFAULTS: [(&str, &str); 8] = [
    (
        "private-key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
    ),
    (
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    ("bearer", r"(?i)\bbearer\s+[A-Za-z0-9\-._~+/]{16,}=*"),
    ("aws-access-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("github-token", r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    ("github-token", r"\bgithub_pat_[A-Za-z0-9_]{22,}"),
    ("slack-token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
];

/// A set of patterns to redact.
#[derive(Clone)]
pub struct Redactor {
    quick: RegexSet,
    patterns: Vec<(String, Regex)>,
}

impl Redactor {
    /// The default shapes (unless `defaults` is false) and the user's patterns, named `custom`.
    pub fn new(defaults: bool, custom: &[String]) -> Result<Redactor, TracerError> {
        let mut patterns = Vec::new();
        if defaults {
            for (name, pattern) in DEFAULTS {
                patterns.push((
                    name.to_owned(),
                    Regex::new(pattern).expect("valid default pattern"),
                ));
            }
        }
        for pattern in custom {
            let regex = Regex::new(pattern).map_err(|e| {
                TracerError::usage(format!(
                    "--redact `{pattern}` is not a valid regular expression: {e}"
                ))
            })?;
            patterns.push(("custom".to_owned(), regex));
        }
        let quick = RegexSet::new(patterns.iter().map(|(_, r)| r.as_str()))
            .expect("patterns compiled once already");
        Ok(Redactor { quick, patterns })
    }

    /// A redactor that changes nothing.
    pub fn none() -> Redactor {
        Redactor::new(false, &[]).expect("no patterns")
    }

    /// Whether `text` holds a match of any pattern.
    pub fn matches(&self, text: &str) -> bool {
        !self.patterns.is_empty() && self.quick.is_match(text)
    }

    /// `text` with every match replaced by `[REDACTED:name]`.
    pub fn apply<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.patterns.is_empty() || !self.quick.is_match(text) {
            return Cow::Borrowed(text);
        }
        let mut out = text.to_owned();
        for index in self.quick.matches(text).into_iter() {
            let (name, regex) = &self.patterns[index];
            out = regex
                .replace_all(&out, format!("[REDACTED:{name}]").as_str())
                .into_owned();
        }
        Cow::Owned(out)
    }

    /// Redacts `text` in place.
    pub fn apply_mut(&self, text: &mut String) {
        if let Cow::Owned(redacted) = self.apply(text) {
            *text = redacted;
        }
    }
}

/// Redacts output line by line: a private key block spans lines, so a stream remembers being inside
/// one.
#[derive(Default)]
pub struct LineState {
    in_private_key: bool,
}

impl LineState {
    /// Redacts one line of a stream; `defaults` says whether the default shapes are on.
    pub fn apply(&mut self, redactor: &Redactor, defaults: bool, line: &mut String) {
        if defaults {
            let begins = line.contains("-----BEGIN ") && line.contains("PRIVATE KEY-----");
            let ends = line.contains("-----END ") && line.contains("PRIVATE KEY-----");
            if self.in_private_key || (begins && !ends) {
                self.in_private_key = !ends;
                *line = "[REDACTED:private-key]".to_owned();
                return;
            }
        }
        redactor.apply_mut(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_shapes_are_redacted_with_a_marker() {
        let r = Redactor::new(true, &[]).unwrap();
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_eq!(r.apply(&format!("token={jwt}")), "token=[REDACTED:jwt]");
        assert_eq!(
            r.apply("Authorization: Bearer abcdefghijklmnop12345"),
            "Authorization: [REDACTED:bearer]"
        );
        assert_eq!(
            r.apply("key AKIAIOSFODNN7EXAMPLE here"),
            "key [REDACTED:aws-access-key] here"
        );
        assert_eq!(
            r.apply("-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----"),
            "[REDACTED:private-key]"
        );
        assert_eq!(r.apply("nothing secret"), "nothing secret");
    }

    #[test]
    fn custom_patterns_and_no_defaults() {
        let r = Redactor::new(false, &["secret-[0-9]+".to_owned()]).unwrap();
        assert_eq!(r.apply("a secret-42 b"), "a [REDACTED:custom] b");
        assert_eq!(
            r.apply("key AKIAIOSFODNN7EXAMPLE"),
            "key AKIAIOSFODNN7EXAMPLE"
        );
        assert!(Redactor::new(true, &["(".to_owned()]).is_err());
    }

    #[test]
    fn a_key_block_over_several_lines_is_redacted_line_by_line() {
        let r = Redactor::new(true, &[]).unwrap();
        let mut state = LineState::default();
        let mut lines: Vec<String> = [
            "before",
            "-----BEGIN PRIVATE KEY-----",
            "MIIBVQIBADANBgkq",
            "-----END PRIVATE KEY-----",
            "after",
        ]
        .map(String::from)
        .to_vec();
        for line in &mut lines {
            state.apply(&r, true, line);
        }
        assert_eq!(
            lines,
            [
                "before",
                "[REDACTED:private-key]",
                "[REDACTED:private-key]",
                "[REDACTED:private-key]",
                "after"
            ]
        );
    }
}
