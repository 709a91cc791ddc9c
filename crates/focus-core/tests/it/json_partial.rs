//! The partial-JSON parser on streamed tool-call arguments: cut strings, escapes,
//! numbers, literals and keys; nested containers; and every prefix of every
//! JSONTestSuite `y_` document.

use focus_core::json::{parse, parse_partial, Value};
use focus_testkit::conformance_dir;

fn partial(text: &str) -> String {
    parse_partial(text).to_json_string()
}

#[test]
fn cut_strings_keep_their_text() {
    assert_eq!(partial(r#"{"path": "src/ma"#), r#"{"path":"src/ma"}"#);
    assert_eq!(partial(r#"{"path": ""#), r#"{"path":""}"#);
    assert_eq!(partial(r#""just a str"#), r#""just a str""#);
}

#[test]
fn empty_and_blank_input_give_an_empty_object() {
    assert_eq!(partial(""), "{}");
    assert_eq!(partial(" \n\t"), "{}");
    assert_eq!(partial("{"), "{}");
    assert_eq!(partial("{ "), "{}");
}

#[test]
fn keys_without_values_are_dropped() {
    assert_eq!(partial(r#"{"a": 1, "b"#), r#"{"a":1}"#);
    assert_eq!(partial(r#"{"a": 1, "b""#), r#"{"a":1}"#);
    assert_eq!(partial(r#"{"a": 1, "b": "#), r#"{"a":1}"#);
    assert_eq!(partial(r#"{"a": 1,"#), r#"{"a":1}"#);
    assert_eq!(partial(r#"{"a"#), "{}");
}

#[test]
fn nested_containers_are_closed_in_order() {
    assert_eq!(partial(r#"{"a": [1, 2"#), r#"{"a":[1,2]}"#);
    assert_eq!(
        partial(r#"{"a": [{"b": [1, {"c": "d"#),
        r#"{"a":[{"b":[1,{"c":"d"}]}]}"#
    );
    assert_eq!(partial(r#"{"a": [[], {}, ["#), r#"{"a":[[],{},[]]}"#);
    assert_eq!(partial("[[[["), "[[[[]]]]");
    assert_eq!(partial(r#"{"a": {"b": {"#), r#"{"a":{"b":{}}}"#);
}

#[test]
fn escapes_cut_in_the_middle_are_dropped() {
    assert_eq!(partial(r#"{"a": "x\"#), r#"{"a":"x"}"#);
    assert_eq!(partial(r#"{"a": "x\\"#), r#"{"a":"x\\"}"#);
    assert_eq!(partial(r#"{"a": "x\u"#), r#"{"a":"x"}"#);
    assert_eq!(partial(r#"{"a": "x\u12"#), r#"{"a":"x"}"#);
    assert_eq!(partial(r#"{"a": "x\u00e9"#), r#"{"a":"xé"}"#);
    assert_eq!(partial(r#"{"a": "x\ud83d"#), r#"{"a":"x"}"#);
    assert_eq!(partial(r#"{"a": "x\ud83d\"#), r#"{"a":"x"}"#);
    assert_eq!(partial(r#"{"a": "x\ud83d\ude0"#), r#"{"a":"x"}"#);
    assert_eq!(partial(r#"{"a": "x\ud83d\ude00"#), r#"{"a":"x😀"}"#);
    assert_eq!(partial(r#"{"a": "line\nnext"#), r#"{"a":"line\nnext"}"#);
}

#[test]
fn cut_numbers_keep_their_valid_prefix() {
    assert_eq!(partial(r#"{"a": -"#), "{}");
    assert_eq!(partial(r#"{"a": 1."#), r#"{"a":1}"#);
    assert_eq!(partial(r#"{"a": 1e"#), r#"{"a":1}"#);
    assert_eq!(partial(r#"{"a": 1.5e+"#), r#"{"a":1.5}"#);
    assert_eq!(partial(r#"{"a": -0."#), r#"{"a":-0}"#);
    assert_eq!(partial(r#"{"a": 12"#), r#"{"a":12}"#);
    assert_eq!(partial("[1, 2, 3"), "[1,2,3]");
}

#[test]
fn half_literals_are_dropped() {
    assert_eq!(partial(r#"{"a": tr"#), "{}");
    assert_eq!(partial(r#"{"a": true"#), r#"{"a":true}"#);
    assert_eq!(partial(r#"[null, fals"#), "[null]");
    assert_eq!(partial("nul"), "{}");
}

#[test]
fn broken_input_keeps_what_came_before_the_break() {
    assert_eq!(partial(r#"{"a": 1 "b": 2}"#), r#"{"a":1}"#);
    assert_eq!(partial(r#"{"a": [1, }"#), r#"{"a":[1]}"#);
    assert_eq!(partial(r#"{"a": "\ud800x"}"#), "{\"a\":\"\u{fffd}x\"}");
    assert_eq!(partial("{\"a\": \"raw\ttab\"}"), r#"{"a":"raw\ttab"}"#);
    assert_eq!(partial(r#"{"a": 1} trailing"#), r#"{"a":1}"#);
}

#[test]
fn deep_prefixes_stop_at_the_depth_limit_without_overflow() {
    let deep = "[".repeat(100_000);
    let v = parse_partial(&deep);
    assert!(matches!(v, Value::Array(_)));
    let objects = "{\"a\":".repeat(50_000);
    assert!(matches!(parse_partial(&objects), Value::Object(_)));
}

#[test]
fn streaming_a_long_argument_gives_growing_prefixes() {
    let content = "fn main() {\n    println!(\"héllo \\u00e9 😀\");\n}\n".repeat(50);
    let full = Value::from(content.as_str()).to_json_string();
    let doc = format!("{{\"path\": \"src/main.rs\", \"content\": {full}}}");
    let mut previous_len = 0;
    for (cut, _) in doc.char_indices() {
        let v = parse_partial(&doc[..cut]);
        let got = v["content"].as_str().unwrap_or("");
        assert!(
            content.starts_with(got),
            "cut {cut}: {got:?} is not a prefix"
        );
        assert!(got.len() >= previous_len, "cut {cut}: content shrank");
        previous_len = got.len();
    }
    assert_eq!(
        parse_partial(&doc)["content"].as_str(),
        Some(content.as_str())
    );
}

/// Every prefix of every `y_` document gives a value that is itself valid JSON; an
/// object document gives an object at every non-empty prefix; the whole document
/// gives exactly what the strict parser gives.
#[test]
fn every_prefix_of_every_y_file_gives_a_value() {
    let Some(dir) = conformance_dir("json") else {
        return;
    };
    let mut files = 0;
    for entry in std::fs::read_dir(dir.join("test_parsing")).expect("readable dir") {
        let path = entry.expect("dir entry").path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if !name.starts_with("y_") {
            continue;
        }
        files += 1;
        let bytes = std::fs::read(&path).expect("readable case");
        let text = std::str::from_utf8(&bytes).expect("y_ files are UTF-8");
        let strict = parse(&bytes).expect("y_ files are valid");
        let is_object = matches!(strict, Value::Object(_));
        for (cut, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let v = parse_partial(&text[..cut]);
            let again = parse(v.to_json_string().as_bytes());
            assert_eq!(again.as_ref(), Ok(&v), "{name} cut at {cut}");
            if is_object {
                assert!(matches!(v, Value::Object(_)), "{name} cut at {cut}: {v:?}");
            }
        }
        assert_eq!(parse_partial(text), strict, "{name} complete");
    }
    assert_eq!(files, 95);
}
