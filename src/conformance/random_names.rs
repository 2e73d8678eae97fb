//! Own-key names a page's library makes from a random number, which are other names in every
//! run, the browser's own included: jQuery keeps its data on a node under
//! `"jQuery" + ("3.7.1" + Math.random()).replace(/\D/g, "")` (`jQuery37107618275417829313`, and
//! `…3131` for its second store), React under `"__reactFiber$" + Math.random().toString(36).slice(2)`.
//! Two lists of own keys are compared, and their differences told, with those parts left out.

use std::borrow::Cow;

use serde_json::Value;

/// The shortest run of digits taken for a random number (a timestamp has 13, jQuery's 17 or more;
/// a count or an index fewer).
const DIGITS: usize = 10;
/// The shortest base-36 suffix after a `$` taken for a random one (React's are 8 to 11).
const SUFFIX: usize = 8;

/// `key` with each random part replaced by `#`: a run of [`DIGITS`] digits or more after a
/// non-digit, and a final
/// `$` followed by [`SUFFIX`] or more lowercase letters and digits, at least one a digit.
pub fn skeleton(key: &str) -> Cow<'_, str> {
    let bytes = key.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            // A key of digits alone is an index, never a library's name.
            if i - start >= DIGITS && start > 0 {
                out.push_str(&key[copied..start]);
                out.push('#');
                copied = i;
            }
            continue;
        }
        if bytes[i] == b'$' {
            let tail = &bytes[i + 1..];
            let random = tail.len() >= SUFFIX
                && tail
                    .iter()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
                && tail.iter().any(u8::is_ascii_digit);
            if random {
                out.push_str(&key[copied..=i]);
                out.push('#');
                copied = bytes.len();
                break;
            }
        }
        i += 1;
    }
    if copied == 0 {
        return Cow::Borrowed(key);
    }
    out.push_str(&key[copied..]);
    Cow::Owned(out)
}

/// Lists of own keys (a `keys`, `ownNames` or `ownKeys` dimension's values) with every string
/// key's random parts replaced (see [`skeleton`]); anything else as it is.
pub fn in_key_lists(values: &[Value]) -> Vec<Value> {
    values
        .iter()
        .map(|list| match list {
            Value::Array(keys) => Value::Array(
                keys.iter()
                    .map(|k| match k {
                        Value::String(s) => Value::String(skeleton(s).into_owned()),
                        other => other.clone(),
                    })
                    .collect(),
            ),
            other => other.clone(),
        })
        .collect()
}

/// Whether `dimension` holds lists of own keys.
pub fn is_key_list(dimension: &str) -> bool {
    matches!(dimension, "keys" | "ownNames" | "ownKeys")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_library_s_random_key_names_compare_without_their_random_part() {
        // jQuery 3.7.1's two stores in two runs.
        assert_eq!(skeleton("jQuery37107618275417829313"), "jQuery#");
        assert_eq!(skeleton("jQuery371093611090663902671"), "jQuery#");
        assert_eq!(skeleton("__reactFiber$k3j5l9x0q2"), "__reactFiber$#");
        assert_eq!(skeleton("__reactProps$0a1b2c3d4e"), "__reactProps$#");
        // Names that are no random number stay.
        for key in [
            "location",
            "0",
            "123456789",
            "12345678901",
            "data-2026",
            "__k",
            "$el",
            "__reactFiber$abcdefghij",
            "Symbol(impl)",
        ] {
            assert_eq!(skeleton(key), key);
        }
        let a = in_key_lists(&[json!([]), json!(["jQuery37107618275417829313", "id"])]);
        let b = in_key_lists(&[json!([]), json!(["jQuery37109361109066390267", "id"])]);
        assert_eq!(a, b);
        assert_ne!(
            in_key_lists(&[json!(["jQuery37107618275417829313"])]),
            in_key_lists(&[json!(["Symbol(impl)"])])
        );
    }
}
