//! Rendering CDP `RemoteObject`s as short strings, and capping every string the trace keeps.
//!
//! Shallow only: a value is rendered from `value`, `unserializableValue`, `description` or the
//! preview V8 already sent. It never keeps an `objectId` and never asks the runtime for more.

use serde_json::Value;

/// The most characters one value keeps.
pub const VALUE_LIMIT: usize = 500;
/// The most characters of stderr kept as the tail.
pub const STDERR_TAIL_LIMIT: usize = 4000;

/// `text` without terminal escape sequences: colours and other CSI sequences (`\x1b[31m`), and OSC
/// sequences such as hyperlinks (`\x1b]8;;url\x07`). What a program printed in colour, as read.
pub fn strip_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    static ESCAPE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
            .expect("valid regex")
    });
    if !text.contains('\x1b') {
        return std::borrow::Cow::Borrowed(text);
    }
    ESCAPE.replace_all(text, "")
}

/// The lines a terminal would show for one line of output that moves its cursor (faucet and other
/// reporters redraw a test's line in place: `\r# adds\x1b[K`, `\x1b[1A\x1b[1G✓ adds\x1b[1B`): each
/// stretch between a carriage return or a cursor movement is a line of its own, its styles taken
/// off, the empty ones left out. A line without either is itself (styles taken off).
pub fn screen_lines(text: &str) -> Vec<String> {
    static MOVE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\r|\x1b\[[0-9;]*[ABCDEFGHf]").expect("valid regex")
    });
    if !text.contains('\r') && !MOVE.is_match(text) {
        return vec![strip_ansi(text).into_owned()];
    }
    MOVE.split(text)
        .map(|part| strip_ansi(part).into_owned())
        .filter(|part| !part.trim().is_empty())
        .collect()
}

/// Cuts `text` to `limit` characters; a cut value ends with a marker saying how much was cut.
pub fn cap(text: String, limit: usize) -> (String, bool) {
    cap_known_length(text, limit, 0)
}

/// As `cap`, for a text its sender may have cut short: `total` is how many characters the whole
/// text had (what arrived counts if it is more), and the marker counts what is left out of that.
pub fn cap_known_length(text: String, limit: usize, total: usize) -> (String, bool) {
    let (kept_end, kept_chars, arrived) = match text.char_indices().nth(limit) {
        Some((at, _)) => (at, limit, limit + text[at..].chars().count()),
        None => {
            let chars = text.chars().count();
            (text.len(), chars, chars)
        }
    };
    let rest = total.max(arrived) - kept_chars;
    if rest == 0 {
        return (text, false);
    }
    let mut kept = text[..kept_end].to_owned();
    kept.push_str(&format!("… [{rest} more chars]"));
    (kept, true)
}

/// Renders one `RemoteObject` the way a console would show it, shallowly.
pub fn render(object: &Value) -> String {
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    let subtype = object.get("subtype").and_then(Value::as_str);
    if let Some(unserializable) = object.get("unserializableValue").and_then(Value::as_str) {
        return unserializable.to_owned();
    }
    match (kind, subtype) {
        ("undefined", _) => "undefined".to_owned(),
        ("object", Some("null")) => "null".to_owned(),
        ("string", _) => object
            .get("value")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        ("number" | "boolean", _) => object
            .get("value")
            .map(Value::to_string)
            .unwrap_or_default(),
        ("object", Some("error")) => describe(object),
        ("object", _) => match object.get("preview") {
            Some(preview) => render_preview(preview, object),
            None => describe(object),
        },
        _ => describe(object),
    }
}

/// Renders console arguments as one line, as `console.log` prints them (`util.format`): a first
/// argument that is a string is a format (`%s`, `%d`, `%i`, `%f`, `%j`, `%o`, `%O`, `%c`, `%%`),
/// each specifier taking the next argument; the rest follow, separated by spaces.
pub fn render_args(args: &[Value]) -> String {
    let mut out = String::new();
    let mut rest = args;
    if let [first, more @ ..] = args
        && let Some(format) = string_value(first)
        && format.contains('%')
    {
        let (text, used) = format_with(format, more);
        out.push_str(&text);
        rest = &more[used..];
    } else if let [first, more @ ..] = args {
        out.push_str(&render(first));
        rest = more;
    }
    for arg in rest {
        if out.len() > VALUE_LIMIT * 4 {
            break;
        }
        out.push(' ');
        out.push_str(&render(arg));
    }
    out
}

fn string_value(object: &Value) -> Option<&str> {
    (object.get("type").and_then(Value::as_str) == Some("string"))
        .then(|| object.get("value").and_then(Value::as_str))
        .flatten()
}

/// `util.format(format, ...args)` for the specifiers it knows; returns the text and how many
/// arguments the specifiers took. A specifier with no argument left stays as written.
fn format_with(format: &str, args: &[Value]) -> (String, usize) {
    let mut out = String::new();
    let mut used = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(&spec) = chars.peek() else {
            out.push('%');
            break;
        };
        if spec == '%' {
            chars.next();
            out.push('%');
            continue;
        }
        if !matches!(spec, 's' | 'd' | 'i' | 'f' | 'j' | 'o' | 'O' | 'c') {
            out.push('%');
            continue;
        }
        chars.next();
        let Some(arg) = args.get(used) else {
            out.push('%');
            out.push(spec);
            continue;
        };
        used += 1;
        match spec {
            's' => out.push_str(&render(arg)),
            'd' => out.push_str(&number_of(arg, |n| n)),
            'i' => out.push_str(&number_of(arg, f64::trunc)),
            'f' => out.push_str(&number_of(arg, |n| n)),
            'j' => out.push_str(&json_of(arg)),
            'o' | 'O' => out.push_str(&inspect(arg)),
            // `%c` takes a CSS argument and prints nothing.
            _ => {}
        }
        if out.len() > VALUE_LIMIT * 4 {
            break;
        }
    }
    (out, used)
}

/// `Number(arg)` (then `to_int`) as `%d`, `%i` and `%f` print it; a bigint keeps its `n`.
fn number_of(arg: &Value, to_int: impl Fn(f64) -> f64) -> String {
    if let Some(unserializable) = arg.get("unserializableValue").and_then(Value::as_str) {
        return unserializable.to_owned();
    }
    let kind = arg.get("type").and_then(Value::as_str).unwrap_or("");
    let subtype = arg.get("subtype").and_then(Value::as_str);
    let n = match (kind, subtype) {
        ("number", _) => arg.get("value").and_then(Value::as_f64).unwrap_or(f64::NAN),
        ("boolean", _) => f64::from(u8::from(arg.get("value") == Some(&Value::Bool(true)))),
        ("string", _) => {
            let text = arg
                .get("value")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim();
            if text.is_empty() {
                0.0
            } else {
                text.parse().unwrap_or(f64::NAN)
            }
        }
        ("object", Some("null")) => 0.0,
        _ => f64::NAN,
    };
    let n = to_int(n);
    if n.is_nan() {
        "NaN".to_owned()
    } else if n == 0.0 && n.is_sign_negative() {
        "-0".to_owned()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        Value::from(n).to_string().trim_end_matches(".0").to_owned()
    }
}

/// `JSON.stringify(arg)` for what the preview carries.
fn json_of(arg: &Value) -> String {
    match arg.get("type").and_then(Value::as_str) {
        Some("string") => Value::from(string_value(arg).unwrap_or("")).to_string(),
        Some("undefined") => "undefined".to_owned(),
        _ => render(arg),
    }
}

/// `util.inspect(arg)`: as `render`, but a string is quoted.
fn inspect(arg: &Value) -> String {
    match string_value(arg) {
        Some(text) => format!("'{text}'"),
        None => render(arg),
    }
}

fn describe(object: &Value) -> String {
    object
        .get("description")
        .and_then(Value::as_str)
        .or_else(|| object.get("className").and_then(Value::as_str))
        .unwrap_or("")
        .to_owned()
}

fn render_preview(preview: &Value, object: &Value) -> String {
    let properties = preview.get("properties").and_then(Value::as_array);
    let overflow = preview
        .get("overflow")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let is_array = preview.get("subtype").and_then(Value::as_str) == Some("array");
    let Some(properties) = properties else {
        return describe(object);
    };
    let mut parts: Vec<String> = properties
        .iter()
        .map(|p| {
            let name = p.get("name").and_then(Value::as_str).unwrap_or("");
            let value = render_property(p);
            if is_array {
                value
            } else {
                format!("{name}: {value}")
            }
        })
        .collect();
    if overflow {
        parts.push("…".to_owned());
    }
    let body = parts.join(", ");
    if is_array {
        format!("[{body}]")
    } else {
        let class = object
            .get("className")
            .and_then(Value::as_str)
            .unwrap_or("Object");
        let prefix = if class == "Object" {
            String::new()
        } else {
            format!("{class} ")
        };
        if body.is_empty() {
            format!("{prefix}{{}}")
        } else {
            format!("{prefix}{{ {body} }}")
        }
    }
}

fn render_property(property: &Value) -> String {
    let kind = property.get("type").and_then(Value::as_str).unwrap_or("");
    let value = property.get("value").and_then(Value::as_str).unwrap_or("");
    match kind {
        "string" => format!("'{value}'"),
        "function" => "[Function]".to_owned(),
        "object" if property.get("subtype").and_then(Value::as_str) == Some("null") => {
            "null".to_owned()
        }
        _ => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn caps_long_values_and_says_how_much_was_cut() {
        let (text, cut) = cap("é".repeat(510), 500);
        assert!(cut);
        assert!(text.starts_with(&"é".repeat(500)));
        assert!(text.ends_with("… [10 more chars]"));
        assert_eq!(cap("short".into(), 500), ("short".into(), false));
    }

    #[test]
    fn a_value_cut_short_by_its_sender_counts_what_its_whole_text_had() {
        // The bootloader sends the first 2048 characters of a 20 000-character text.
        let (text, cut) = cap_known_length("é".repeat(2048), 500, 20_000);
        assert!(cut);
        assert!(text.starts_with(&"é".repeat(500)));
        assert!(text.ends_with("… [19500 more chars]"));
        // Whole and short: nothing to say.
        assert_eq!(
            cap_known_length("short".into(), 500, 5),
            ("short".into(), false)
        );
        // A total smaller than what arrived is not believed.
        let (text, cut) = cap_known_length("x".repeat(600), 500, 3);
        assert!(cut);
        assert!(text.ends_with("… [100 more chars]"));
    }

    #[test]
    fn renders_primitives_and_unserializable_numbers() {
        assert_eq!(render(&json!({"type":"string","value":"hi"})), "hi");
        assert_eq!(render(&json!({"type":"number","value":42})), "42");
        assert_eq!(
            render(&json!({"type":"number","unserializableValue":"NaN"})),
            "NaN"
        );
        assert_eq!(
            render(&json!({"type":"bigint","unserializableValue":"12n"})),
            "12n"
        );
        assert_eq!(render(&json!({"type":"undefined"})), "undefined");
        assert_eq!(
            render(&json!({"type":"object","subtype":"null","value":null})),
            "null"
        );
    }

    #[test]
    fn console_arguments_follow_util_format() {
        let s = |v: &str| json!({"type":"string","value":v});
        let n = |v: i64| json!({"type":"number","value":v});
        let object = json!({"type":"object","className":"Object","description":"Object",
            "preview":{"type":"object","overflow":false,"properties":[{"name":"a","type":"number","value":"1"}]}});
        assert_eq!(
            render_args(&[s("%s has %d items"), s("cart"), n(3)]),
            "cart has 3 items"
        );
        assert_eq!(
            render_args(&[s("careful %o"), s("x"), object.clone()]),
            "careful 'x' { a: 1 }"
        );
        assert_eq!(
            render_args(&[
                s("%i%% of %f"),
                json!({"type":"number","value":42.9}),
                s("1.5")
            ]),
            "42% of 1.5"
        );
        assert_eq!(render_args(&[s("%j"), s("q")]), "\"q\"");
        assert_eq!(render_args(&[s("%c styled"), s("color: red")]), " styled");
        assert_eq!(render_args(&[s("left %d over")]), "left %d over");
        assert_eq!(render_args(&[s("%d"), object.clone()]), "NaN");
        assert_eq!(render_args(&[n(1), s("%s"), s("a")]), "1 %s a");
        assert_eq!(render_args(&[s("no specifiers"), n(2)]), "no specifiers 2");
    }

    #[test]
    fn renders_objects_from_the_preview_only() {
        let object = json!({"type":"object","className":"Object","description":"Object","objectId":"1",
            "preview":{"type":"object","overflow":false,"properties":[
                {"name":"a","type":"number","value":"1"},{"name":"b","type":"string","value":"x"}]}});
        assert_eq!(render(&object), "{ a: 1, b: 'x' }");
        let array = json!({"type":"object","subtype":"array","className":"Array","description":"Array(2)",
            "preview":{"type":"object","subtype":"array","overflow":true,"properties":[
                {"name":"0","type":"number","value":"1"}]}});
        assert_eq!(render(&array), "[1, …]");
    }
}

#[cfg(test)]
mod ansi_tests {
    use super::strip_ansi;

    #[test]
    fn colours_and_hyperlinks_are_removed() {
        assert_eq!(strip_ansi("\x1b[31mError:\x1b[39m x"), "Error: x");
        assert_eq!(strip_ansi("\x1b[1;4mbold\x1b[0m\x1b[2K"), "bold");
        assert_eq!(
            strip_ansi("\x1b]8;;file:///a.js\x07a.js\x1b]8;;\x07"),
            "a.js"
        );
        assert_eq!(strip_ansi("plain [31m"), "plain [31m");
    }
}
