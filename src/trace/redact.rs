//! Redaction: values a trace stores can hold secrets. Well-known token shapes (bearer tokens, JWTs,
//! cloud access keys, private key blocks, …) are replaced by a marker that says a redaction happened
//! (`[REDACTED:jwt]`), and so is anything matching a user's `--redact REGEX`. Applied once, where
//! events enter the stream, and to the other strings a session keeps (arguments, the stderr tail,
//! quoted source lines).

use std::borrow::Cow;

use std::sync::{Arc, LazyLock};

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

/// Patterns compiled together: a set that says which match, and each one to replace with.
struct Compiled {
    quick: RegexSet,
    patterns: Vec<(String, Regex)>,
}

impl Compiled {
    fn new(patterns: Vec<(String, Regex)>) -> Compiled {
        let quick = RegexSet::new(patterns.iter().map(|(_, r)| r.as_str()))
            .expect("patterns compiled once already");
        Compiled { quick, patterns }
    }

    /// `text` with every match replaced by `[REDACTED:name]`, or `None` when nothing matched.
    fn apply(&self, text: &str) -> Option<String> {
        if !self.quick.is_match(text) {
            return None;
        }
        let mut out = text.to_owned();
        for index in self.quick.matches(text).into_iter() {
            let (name, regex) = &self.patterns[index];
            out = regex
                .replace_all(&out, format!("[REDACTED:{name}]").as_str())
                .into_owned();
        }
        Some(out)
    }
}

/// The default shapes, compiled the first time a text might hold one (a few milliseconds that are
/// then not spent before the program starts).
static DEFAULT_SHAPES: LazyLock<Compiled> = LazyLock::new(|| {
    Compiled::new(
        DEFAULTS
            .iter()
            .map(|(name, pattern)| {
                (
                    (*name).to_owned(),
                    Regex::new(pattern).expect("valid default pattern"),
                )
            })
            .collect(),
    )
});

/// Whether `text` holds a piece every match of some default shape holds (`eyJ` for a JWT, `AKIA`
/// for an AWS key, …): false means no default shape can match. One pass over the bytes (it runs on
/// every console call's text: twelve substring searches were 5% of a flood's CPU).
fn might_hold_a_default_shape(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| {
        let rest = &bytes[i..];
        match bytes[i] {
            b'-' => rest.starts_with(b"-----BEGIN"),
            b'e' => rest.starts_with(b"eyJ"),
            b'A' => [b"AKIA", b"ASIA", b"AIza"]
                .iter()
                .any(|p| rest.starts_with(*p)),
            b'g' => {
                matches!(
                    rest,
                    [b'g', b'h', b'p' | b'o' | b'u' | b's' | b'r', b'_', ..]
                ) || rest.starts_with(b"github_pat_")
            }
            b'x' => rest.starts_with(b"xox"),
            b'b' | b'B' => rest
                .get(..6)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"bearer")),
            _ => false,
        }
    })
}

/// A set of patterns to redact.
#[derive(Clone)]
pub struct Redactor {
    defaults: bool,
    custom: Option<Arc<Compiled>>,
}

impl Redactor {
    /// The default shapes (unless `defaults` is false) and the user's patterns, named `custom`.
    pub fn new(defaults: bool, custom: &[String]) -> Result<Redactor, TracerError> {
        let mut patterns = Vec::new();
        for pattern in custom {
            let regex = Regex::new(pattern).map_err(|e| {
                TracerError::usage(format!(
                    "--redact `{pattern}` is not a valid regular expression: {e}"
                ))
            })?;
            patterns.push(("custom".to_owned(), regex));
        }
        Ok(Redactor {
            defaults,
            custom: (!patterns.is_empty()).then(|| Arc::new(Compiled::new(patterns))),
        })
    }

    /// A redactor that changes nothing.
    pub fn none() -> Redactor {
        Redactor::new(false, &[]).expect("no patterns")
    }

    fn defaults_may_apply(&self, text: &str) -> bool {
        self.defaults && might_hold_a_default_shape(text)
    }

    /// Whether `text` holds a match of any pattern.
    pub fn matches(&self, text: &str) -> bool {
        (self.defaults_may_apply(text) && DEFAULT_SHAPES.quick.is_match(text))
            || self.custom.as_ref().is_some_and(|c| c.quick.is_match(text))
    }

    /// `text` with every match replaced by `[REDACTED:name]`: the default shapes first, then the
    /// user's patterns.
    pub fn apply<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        if self.defaults_may_apply(text)
            && let Some(redacted) = DEFAULT_SHAPES.apply(&out)
        {
            out = Cow::Owned(redacted);
        }
        if let Some(custom) = &self.custom
            && let Some(redacted) = custom.apply(&out)
        {
            out = Cow::Owned(redacted);
        }
        out
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

    proptest::proptest! {
        /// The shortcut never hides a match: whenever a default shape matches, the text holds one
        /// of the pieces the shortcut looks for.
        #[test]
        fn the_shortcut_before_the_default_shapes_never_hides_a_match(
            text in "(?s)[a-zA-Z0-9 _./+=:-]{0,20}(eyJ[A-Za-z0-9_-]{8,12}\\.eyJ[A-Za-z0-9_-]{8,12}\\.[A-Za-z0-9_-]{8,12}|[Bb][Ee][Aa][Rr][Ee][Rr] [A-Za-z0-9]{16,20}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22}|xox[abprs]-[A-Za-z0-9-]{10}|AIza[0-9A-Za-z_-]{35}|-----BEGIN RSA PRIVATE KEY-----|[a-z]{0,10})[a-zA-Z0-9 _./+=:-]{0,20}"
        ) {
            if DEFAULT_SHAPES.quick.is_match(&text) {
                proptest::prop_assert!(might_hold_a_default_shape(&text), "{}", text);
            }
            let full = DEFAULT_SHAPES.apply(&text).unwrap_or_else(|| text.clone());
            proptest::prop_assert_eq!(Redactor::new(true, &[]).unwrap().apply(&text).into_owned(), full);
        }
    }

    #[test]
    fn the_shortcut_finds_each_piece_anywhere_and_passes_plain_text() {
        for piece in [
            "-----BEGIN",
            "eyJ",
            "AKIA",
            "ASIA",
            "AIza",
            "ghp_",
            "gho_",
            "ghu_",
            "ghs_",
            "ghr_",
            "github_pat_",
            "xox",
            "bearer",
            "BeArEr",
        ] {
            assert!(might_hold_a_default_shape(piece), "{piece}");
            assert!(
                might_hold_a_default_shape(&format!("é at the end {piece}")),
                "{piece}"
            );
            assert!(
                might_hold_a_default_shape(&format!("{piece} first")),
                "{piece}"
            );
        }
        for plain in [
            "",
            "line 12345",
            "ghx_ gh_ gh bear eyj AKI ASI AIz xo -----END ----",
            "b",
            "g",
        ] {
            assert!(!might_hold_a_default_shape(plain), "{plain}");
        }
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
