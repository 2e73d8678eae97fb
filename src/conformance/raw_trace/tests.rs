//! Traces written by hand, read back.

use super::*;
use crate::error::exit_code_of;

const HEADER: &str = r#"{"type":"header","schema":"tracer-trace/v1","baselineId":"b1"}"#;

fn access(seq: u64) -> String {
    format!(
        r#"{{"type":"access","seq":{seq},"api":"navigator.userAgent","accessType":"get","realm":"main","receiver":"Navigator","phase":"init"}}"#
    )
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn seqs(paths: &[PathBuf], dir: &Path) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    read_capture(paths, dir, |e, _| {
        out.push(e.seq);
        Ok(())
    })?;
    Ok(out)
}

fn error_of(result: Result<Vec<u64>>) -> (u8, String) {
    let err = result.expect_err("should be refused");
    (exit_code_of(&err), err.to_string())
}

#[test]
fn bom_crlf_blank_lines_and_a_complete_unterminated_last_line_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "\u{FEFF}{HEADER}\r\n{}\r\n\r\n   \n{}",
        access(1),
        access(2)
    );
    let path = write(dir.path(), "t.ndjson", text.as_bytes());
    assert_eq!(seqs(&[path], dir.path()).unwrap(), [1, 2]);
}

#[test]
fn malformed_line_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{HEADER}\n{}\n{{\"type\":\"access\",\n{}\n",
        access(1),
        access(3)
    );
    let path = write(dir.path(), "t.ndjson", text.as_bytes());
    let (code, msg) = error_of(seqs(&[path], dir.path()));
    assert_eq!(code, 2);
    assert!(msg.starts_with("t.ndjson:3: malformed JSON"), "{msg}");
}

#[test]
fn truncated_last_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{HEADER}\n{}\n{{\"type\":\"acc", access(1));
    let path = write(dir.path(), "t.ndjson", text.as_bytes());
    let (code, msg) = error_of(seqs(&[path], dir.path()));
    assert_eq!(code, 2);
    assert!(msg.contains("t.ndjson:3: truncated last line"), "{msg}");
}

#[test]
fn non_utf8_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = format!("{HEADER}\n").into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"access\",\"api\":\"\xff\"}\n");
    let path = write(dir.path(), "t.ndjson", &bytes);
    let (code, msg) = error_of(seqs(&[path], dir.path()));
    assert_eq!(code, 2);
    assert!(msg.contains("t.ndjson:2: not UTF-8"), "{msg}");
}

#[test]
fn missing_or_foreign_header_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let none = write(
        dir.path(),
        "a.ndjson",
        format!("{}\n", access(1)).as_bytes(),
    );
    let (_, msg) = error_of(seqs(&[none], dir.path()));
    assert!(msg.contains("a.ndjson:1: no header"), "{msg}");
    let other = write(
        dir.path(),
        "b.ndjson",
        b"{\"type\":\"header\",\"schema\":\"tracer-trace/v0\"}\n",
    );
    let (_, msg) = error_of(seqs(&[other], dir.path()));
    assert!(msg.contains("schema `tracer-trace/v0`"), "{msg}");
    let empty = write(dir.path(), "c.ndjson", b"");
    let (_, msg) = error_of(seqs(&[empty], dir.path()));
    assert!(msg.contains("c.ndjson: empty file"), "{msg}");
}

#[test]
fn seq_must_increase_within_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{HEADER}\n{}\n{}\n", access(5), access(5));
    let path = write(dir.path(), "t.ndjson", text.as_bytes());
    let (_, msg) = error_of(seqs(&[path], dir.path()));
    assert!(msg.contains("t.ndjson:3: seq 5 after seq 5"), "{msg}");
}

#[test]
fn shards_merge_in_seq_order_whatever_the_argument_order() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.ndjson",
        format!("{HEADER}\n{}\n{}\n", access(2), access(4)).as_bytes(),
    );
    let b = write(
        dir.path(),
        "b.ndjson",
        format!("{HEADER}\n{}\n{}\n", access(1), access(3)).as_bytes(),
    );
    assert_eq!(
        seqs(&[a.clone(), b.clone()], dir.path()).unwrap(),
        [1, 2, 3, 4]
    );
    let mut names = Vec::new();
    let summary = read_capture(&[a.clone(), b.clone()], dir.path(), |_, n| {
        names = n.to_vec();
        Ok(())
    })
    .unwrap();
    assert_eq!(names, ["b.ndjson", "a.ndjson"]);
    assert_eq!(
        summary.trace_source_hash,
        hash::trace_source(&[b, a]).unwrap()
    );
    assert_eq!(summary.files[0].lines, 3);
}

#[test]
fn shared_seq_across_shards_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.ndjson",
        format!("{HEADER}\n{}\n", access(7)).as_bytes(),
    );
    let b = write(
        dir.path(),
        "b.ndjson",
        format!("{HEADER}\n{}\n", access(7)).as_bytes(),
    );
    let (code, msg) = error_of(seqs(&[a, b], dir.path()));
    assert_eq!(code, 2);
    assert!(
        msg.contains("seq 7 appears in a.ndjson:2 and in b.ndjson:2"),
        "{msg}"
    );
}

#[test]
fn shards_of_different_baselines_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.ndjson",
        format!("{HEADER}\n{}\n", access(1)).as_bytes(),
    );
    let other = HEADER.replace("b1", "b2");
    let b = write(
        dir.path(),
        "b.ndjson",
        format!("{other}\n{}\n", access(2)).as_bytes(),
    );
    let (_, msg) = error_of(seqs(&[a, b], dir.path()));
    assert!(msg.contains("b.ndjson (baselineId b2)"), "{msg}");
}

#[test]
fn absent_and_null_stay_distinct() {
    let dir = tempfile::tempdir().unwrap();
    let line = r#"{"type":"access","seq":1,"api":"a","accessType":"get","realm":"main","receiver":"R","phase":"p","exception":null,"extra":1}"#;
    let path = write(
        dir.path(),
        "t.ndjson",
        format!("{HEADER}\n{line}\n").as_bytes(),
    );
    read_capture(&[path], dir.path(), |e, _| {
        assert_eq!(e.field("exception"), Some(Value::Null));
        assert_eq!(e.field("owner"), None);
        assert_eq!(e.field("extra"), Some(Value::from(1)));
        // The key fields are taken out; the other fields keep their text as written.
        assert_eq!(e.raw_field("api"), None);
        assert_eq!(e.raw_field("extra"), Some("1"));
        Ok(())
    })
    .unwrap();
}

#[test]
fn values_are_held_to_what_a_full_parse_accepts() {
    // The line's own object is one level; serde_json reads 127 levels, the trace keeps room for
    // the files built from it.
    for (depth, ok) in [(MAX_DEPTH - 1, true), (MAX_DEPTH, false), (200, false)] {
        let line = format!(r#"{{"x":{}1{}}}"#, "[".repeat(depth), "]".repeat(depth));
        assert_eq!(values_parse_like_json(&line), ok, "depth {depth}");
    }
    for (depth, ok) in [(126, true), (127, false)] {
        let line = format!(r#"{{"x":{}1{}}}"#, "[".repeat(depth), "]".repeat(depth));
        assert_eq!(
            serde_json::from_str::<Value>(&line).is_ok(),
            ok,
            "as serde_json, depth {depth}"
        );
    }
    for (number, ok) in [
        ("1e308", true),
        ("1e400", false),
        ("-1E+999", false),
        ("1.5", true),
    ] {
        let line = format!(r#"{{"s":"1e400 \" [[","x":[{number}]}}"#);
        assert_eq!(values_parse_like_json(&line), ok, "{number}");
        assert_eq!(serde_json::from_str::<Value>(&line).is_ok(), ok, "{number}");
    }
}

#[test]
fn escaped_and_duplicate_names_read_like_json() {
    let dir = tempfile::tempdir().unwrap();
    // `"\u006fwner"` is `owner`; the second `returnValue` wins, as in serde_json's maps.
    let line = r#"{"type":"access","seq":1,"api":"a","accessType":"get","realm":"main","receiver":"R","phase":"p","\u006fwner":"X.prototype","returnValue":1,"returnValue": [2, {"a":"\n"}]}"#;
    let path = write(
        dir.path(),
        "t.ndjson",
        format!("{HEADER}\n{line}\n").as_bytes(),
    );
    read_capture(&[path], dir.path(), |e, _| {
        assert_eq!(e.field("owner"), Some(Value::from("X.prototype")));
        assert_eq!(e.raw_field("returnValue"), Some(r#"[2, {"a":"\n"}]"#));
        Ok(())
    })
    .unwrap();
}

/// The places serde_json gives a line's fields (the reading the scanner must match).
fn serde_places(line: &str) -> Option<Vec<(Range<usize>, Range<usize>)>> {
    let mut entries = Vec::new();
    let mut escaped_names = Vec::new();
    let mut de = serde_json::Deserializer::from_str(line);
    let visitor = FieldsVisitor {
        base: line.as_ptr() as usize,
        entries: &mut entries,
        escaped_names: &mut escaped_names,
    };
    serde::Deserializer::deserialize_map(&mut de, visitor)
        .and_then(|()| de.end())
        .ok()?;
    if !values_parse_like_json(line) || !escaped_names.is_empty() {
        return None;
    }
    Some(
        entries
            .into_iter()
            .map(|(name, value)| match name {
                Name::InLine(name) => (name, value),
                Name::Unescaped(_) => unreachable!("no escaped names"),
            })
            .collect(),
    )
}

/// Where the scanner says yes, serde_json reads the same places and accepts the values.
fn scanner_agrees(line: &str) -> Result<(), proptest::test_runner::TestCaseError> {
    let mut entries = Vec::new();
    if scan::object(line, &mut entries) {
        let scanned: Vec<_> = entries
            .into_iter()
            .map(|(name, value)| match name {
                Name::InLine(name) => (name, value),
                Name::Unescaped(_) => unreachable!("the scanner never unescapes"),
            })
            .collect();
        proptest::prop_assert_eq!(Some(scanned), serde_places(line), "{}", line);
    }
    Ok(())
}

#[test]
fn the_scanner_reads_only_what_serde_json_reads_and_as_it_does() {
    use proptest::prelude::*;
    for line in [
        r#"{}"#,
        r#" { "a" : 1 , "b":[ ] ,"c":{ } } "#,
        r#"{"a":-0.5,"b":0,"c":-0,"d":[true,false,null],"e":"é"}"#,
        r#"{"a":01}"#,
        r#"{"a":1.}"#,
        r#"{"a":1e5}"#,
        r#"{"a":"x\y"}"#,
        "{\"a\":\"tab\there\"}",
        r#"{"a":[1,]}"#,
        r#"{"a":1,}"#,
        r#"{"a":1}x"#,
        r#"{"a" 1}"#,
        r#"{"a":tru}"#,
        r#"{"a":"é","é":[{"x":[[]]}]}"#,
        "{\"a\":1}\u{0}",
    ] {
        scanner_agrees(line).unwrap();
    }
    // Lines of JSON-ish tokens, mostly broken, and lines of valid JSON.
    let token = prop::sample::select(vec![
        "{", "}", "[", "]", ":", ",", " ", "\"", "\"a\"", "\"b\"", "\\", "\\n", "\\u00", "0", "1",
        "-", ".", "5", "e", "E", "+", "true", "false", "null", "nul", "x", "\t", "\u{1}", "é",
    ]);
    let tokens = prop::collection::vec(token, 0..24).prop_map(|t| format!("{{{}", t.concat()));
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        "[ -~é\\\"\n]{0,8}".prop_map(serde_json::Value::from),
    ];
    let value = leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::btree_map("[a-c\"]{0,3}", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    });
    let objects = prop::collection::vec(("[a-d\\\\]{0,3}", value), 0..6).prop_map(|fields| {
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{}:{}", serde_json::Value::from(k.as_str()), v))
            .collect();
        format!("{{{}}}", body.join(","))
    });
    let mut runner = proptest::test_runner::TestRunner::default();
    runner
        .run(&prop_oneof![tokens, objects], |line| scanner_agrees(&line))
        .unwrap();
}
