//! `FromJson`/`ToJson` with nested structs, `Vec` and `Option`: values survive a
//! round trip, and every error names the path to the offending value.

use focus_core::json::{parse_str, FromJson, FromJsonError, ToJson, Value};
use focus_core::json_object;

#[derive(Debug, PartialEq)]
struct Conversation {
    messages: Vec<Message>,
}

#[derive(Debug, PartialEq)]
struct Message {
    role: String,
    content: Vec<Part>,
    name: Option<String>,
}

#[derive(Debug, PartialEq)]
struct Part {
    kind: String,
    text: Option<String>,
    scores: Option<Vec<Option<u8>>>,
}

impl FromJson for Conversation {
    fn from_json(value: &Value) -> Result<Self, FromJsonError> {
        Ok(Conversation {
            messages: value.field("messages")?,
        })
    }
}

impl FromJson for Message {
    fn from_json(value: &Value) -> Result<Self, FromJsonError> {
        Ok(Message {
            role: value.field("role")?,
            content: value.field("content")?,
            name: value.opt_field("name")?,
        })
    }
}

impl FromJson for Part {
    fn from_json(value: &Value) -> Result<Self, FromJsonError> {
        Ok(Part {
            kind: value.field("type")?,
            text: value.opt_field("text")?,
            scores: value.opt_field("scores")?,
        })
    }
}

impl ToJson for Part {
    fn to_json(&self) -> Value {
        json_object! { "type" => self.kind.to_json(), "text" => self.text.to_json(), "scores" => self.scores.to_json() }
    }
}

fn error_for(text: &str) -> String {
    let value = parse_str(text).expect("test input is valid JSON");
    match Conversation::from_json(&value) {
        Ok(c) => panic!("expected an error, got {c:?}"),
        Err(e) => e.to_string(),
    }
}

const GOOD: &str = r#"{"messages": [
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "assistant", "name": null, "content": [{"type": "text", "scores": [1, null, 255]}]}
]}"#;

#[test]
fn nested_values_convert() {
    let c = Conversation::from_json(&parse_str(GOOD).unwrap()).unwrap();
    assert_eq!(c.messages.len(), 2);
    assert_eq!(c.messages[0].content[0].text.as_deref(), Some("hi"));
    assert_eq!(c.messages[1].name, None);
    assert_eq!(
        c.messages[1].content[0].scores,
        Some(vec![Some(1), None, Some(255)])
    );
    let part = &c.messages[1].content[0];
    assert_eq!(Part::from_json(&part.to_json()).as_ref(), Ok(part));
}

#[test]
fn wrong_type_deep_inside_names_the_full_path() {
    let text = r#"{"messages": [
        {"role": "user", "content": []},
        {"role": "user", "content": []},
        {"role": "user", "content": []},
        {"role": "user", "content": [{"type": 7}]}
    ]}"#;
    assert_eq!(
        error_for(text),
        "messages[3].content[0].type: expected string, found number"
    );
}

#[test]
fn missing_field_names_its_path() {
    assert_eq!(
        error_for(r#"{"messages": [{"content": []}]}"#),
        "messages[0].role: missing field"
    );
    assert_eq!(error_for(r#"{}"#), "messages: missing field");
}

#[test]
fn option_and_vec_errors_keep_the_index() {
    assert_eq!(
        error_for(
            r#"{"messages": [{"role": "user", "content": [{"type": "t", "scores": [1, null, "x"]}]}]}"#
        ),
        "messages[0].content[0].scores[2]: expected integer, found string"
    );
    assert_eq!(
        error_for(
            r#"{"messages": [{"role": "user", "content": [{"type": "t", "scores": [300]}]}]}"#
        ),
        "messages[0].content[0].scores[0]: 300 is out of range for u8"
    );
    assert_eq!(
        error_for(
            r#"{"messages": [{"role": "user", "content": [{"type": "t", "scores": [2.5]}]}]}"#
        ),
        "messages[0].content[0].scores[0]: expected integer, found 2.5"
    );
    assert_eq!(
        error_for(r#"{"messages": [{"role": "user", "name": 5, "content": []}]}"#),
        "messages[0].name: expected string, found number"
    );
    assert_eq!(
        error_for(r#"{"messages": {"role": "user"}}"#),
        "messages: expected array, found object"
    );
    assert_eq!(error_for("[]"), "expected object, found array");
}

#[test]
fn error_path_is_available_apart_from_the_message() {
    let value = parse_str(r#"{"messages": [{"role": true, "content": []}]}"#).unwrap();
    let err = Conversation::from_json(&value).unwrap_err();
    assert_eq!(err.path(), "messages[0].role");
    assert_eq!(err.message, "expected string, found boolean");
}
