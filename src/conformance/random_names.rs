//! Own-key names a page's library makes from a random number, which are other names in every
//! run, the browser's own included: jQuery keeps its data on a node under
//! `"jQuery" + ("3.7.1" + Math.random()).replace(/\D/g, "")` (`jQuery37107618275417829313`, and
//! `…3131` for its second store), React under `"__reactFiber$" + Math.random().toString(36).slice(2)`.
//! lit-html marks its templates with `"lit$" + Math.random().toFixed(9).slice(2) + "$"`, which a
//! page then reads back (an attribute, a comment, a shadow root's `innerHTML`). Two lists of own
//! keys, and two values a call returned or was given, are compared, and their differences told,
//! with those parts left out.

use std::borrow::Cow;

use serde_json::Value;

/// The shortest run of digits taken for a random number (a timestamp has 13, jQuery's 17 or more;
/// a count or an index fewer).
const DIGITS: usize = 10;
/// The shortest base-36 suffix after a `$` taken for a random one (React's are 8 to 11).
const SUFFIX: usize = 8;
/// The shortest run of digits between two `$` taken for a random number (lit's has 9).
const MARKED_DIGITS: usize = 7;

/// `key` with each random part replaced by `#`: a run of [`DIGITS`] digits or more after a
/// non-digit, a run of [`MARKED_DIGITS`] or more between two `$`, and a final `$` followed by
/// [`SUFFIX`] or more lowercase letters and digits, at least one a digit.
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
            let digits = tail.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits >= MARKED_DIGITS && tail.get(digits) == Some(&b'$') {
                out.push_str(&key[copied..=i]);
                out.push('#');
                i += 1 + digits;
                copied = i;
                continue;
            }
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

/// A dimension's values with every string in them, at any depth, its random parts replaced (see
/// [`skeleton`]). A long string's digest that carries the hash of its text without them
/// (`skeletonHash`) becomes that hash and its preview's skeleton, its length left out (a random
/// number's digits vary in count).
pub fn in_values(values: &[Value]) -> Vec<Value> {
    fn strip(value: &Value) -> Value {
        match value {
            Value::Object(fields) if fields.contains_key("$string") => {
                match fields.get("skeletonHash") {
                    Some(hash) => {
                        let preview = fields.get("preview").and_then(Value::as_str);
                        serde_json::json!({
                            "$string": hash,
                            "preview": preview.map(|p| skeleton(p).into_owned()),
                        })
                    }
                    None => value.clone(),
                }
            }
            Value::String(s) => Value::String(skeleton(s).into_owned()),
            Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (skeleton(k).into_owned(), strip(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    values.iter().map(strip).collect()
}

/// Whether `dimension` holds lists of own keys, or values a page's library may have made from a
/// random number (what a call returned or was given).
pub fn may_hold_random_names(dimension: &str) -> bool {
    matches!(
        dimension,
        "keys" | "ownNames" | "ownKeys" | "returnValue" | "args"
    )
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
            "$123456$",
            "price $1234567",
            "$1234567a$",
        ] {
            assert_eq!(skeleton(key), key);
        }
        let a = in_values(&[json!([]), json!(["jQuery37107618275417829313", "id"])]);
        let b = in_values(&[json!([]), json!(["jQuery37109361109066390267", "id"])]);
        assert_eq!(a, b);
        assert_ne!(
            in_values(&[json!(["jQuery37107618275417829313"])]),
            in_values(&[json!(["Symbol(impl)"])])
        );
    }

    /// lit-html's template marker, in an attribute it set and in the markup it made, in two
    /// runs of the same page.
    #[test]
    fn lit_s_marker_compares_without_its_random_digits() {
        assert_eq!(skeleton("lit$629050753$"), "lit$#$");
        assert_eq!(
            skeleton("<!--?lit$602014210$--><p>a</p><!--?lit$602014210$-->"),
            "<!--?lit$#$--><p>a</p><!--?lit$#$-->"
        );
        assert_eq!(
            in_values(&[json!([["title", "lit$629050753$"]])]),
            in_values(&[json!([["title", "lit$602014210$"]])])
        );
        assert_ne!(
            in_values(&[json!(["lit$629050753$"])]),
            in_values(&[json!(["lit"])])
        );
    }
}
