//! The final answer's shape (`--output-schema FILE`): [`OutputSchema`] says
//! which JSON Schema the last answer must validate against and how often the
//! model may be asked again; [`check`] reads an answer as a JSON value and
//! validates it with focus-core's tool-argument validator; [`ask_again`] is
//! the follow-up message naming what was wrong.
//! [`Conversation::run_to_end`](super::Conversation::run_to_end) uses them
//! after a run that completed.

use focus_core::agent::schema::validate;
use focus_core::json::Value;
use focus_core::message::{now_ms, Message, UserMessage};

/// The schema the final answer must validate against, and the retries.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSchema {
    /// The JSON Schema (the subset [`focus_core::agent::schema`] knows).
    pub schema: Value,
    /// How many times the model is asked again after an answer that does not
    /// validate (`--output-schema-retries`, default 2).
    pub retries: u32,
}

/// `answer` as a JSON value that validates against `schema` (surrounding
/// whitespace and a Markdown code fence around it are allowed), or why not.
///
/// # Errors
/// The parse error, or the validation errors joined by `; `.
pub fn check(schema: &Value, answer: &str) -> Result<Value, String> {
    let text = strip_fence(answer.trim());
    let value = focus_core::json::parse_str(text)
        .map_err(|e| format!("the answer is not a JSON value: {e}"))?;
    validate(schema, &value).map_err(|errors| {
        format!(
            "the answer does not match the schema: {}",
            errors.join("; ")
        )
    })?;
    Ok(value)
}

/// The message that asks the model for a valid answer, naming `error`.
pub fn ask_again(schema: &Value, error: &str) -> Message {
    Message::User(UserMessage::text(
        format!(
            "Your final answer must be only a JSON value that validates against this JSON Schema:\n{}\nYour last answer was rejected: {error}\nAnswer again with only the JSON value.",
            schema.to_json_string()
        ),
        now_ms(),
    ))
}

/// `text` without a surrounding ```` ``` ```` or ```` ```json ```` fence.
fn strip_fence(text: &str) -> &str {
    let Some(body) = text.strip_prefix("```") else {
        return text;
    };
    let body = body.strip_prefix("json").unwrap_or(body);
    body.strip_suffix("```").unwrap_or(body).trim()
}

#[cfg(test)]
mod tests {
    use super::check;
    use focus_core::json::parse_str;

    #[test]
    fn an_answer_must_parse_and_validate() {
        let schema = parse_str(
            r#"{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}"#,
        )
        .unwrap();
        assert!(check(&schema, "not json")
            .unwrap_err()
            .contains("not a JSON value"));
        assert!(check(&schema, r#"{"n":"x"}"#)
            .unwrap_err()
            .contains("does not match"));
        assert_eq!(
            check(&schema, "```json\n{\"n\":3}\n```").unwrap()["n"].as_i64(),
            Some(3)
        );
    }
}
