//! Rendering CDP `RemoteObject`s as short strings, and capping every string the trace keeps.
//!
//! Shallow only: a value is rendered from `value`, `unserializableValue`, `description` or the
//! preview V8 already sent. It never keeps an `objectId` and never asks the runtime for more.

use serde_json::Value;

/// The most characters one value keeps.
pub const VALUE_LIMIT: usize = 500;
/// The most characters of stderr kept as the tail.
pub const STDERR_TAIL_LIMIT: usize = 4000;

/// Cuts `text` to `limit` characters; a cut value ends with a marker saying how much was cut.
pub fn cap(text: String, limit: usize) -> (String, bool) {
    match text.char_indices().nth(limit) {
        None => (text, false),
        Some((at, _)) => {
            let rest = text[at..].chars().count();
            let mut kept = text[..at].to_owned();
            kept.push_str(&format!("… [{rest} more chars]"));
            (kept, true)
        }
    }
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

/// Renders console arguments as one line, separated by spaces, like `console.log` prints them.
pub fn render_args(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&render(arg));
        if out.len() > VALUE_LIMIT * 4 {
            break;
        }
    }
    out
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
