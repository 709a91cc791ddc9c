//! The shapes RPC mode writes besides events (docs/rpc.md): responses, and a
//! model or a queue mode in pi's spelling.

use focus_core::json::{Object, Value};
use focus_core::json_object;

/// A success response.
pub fn ok_response(id: Option<&Value>, command: &str, data: Option<Value>) -> Value {
    let mut o = Object::new();
    if let Some(id) = id {
        o.insert("id", id.clone());
    }
    o.insert("type", "response");
    o.insert("command", command);
    o.insert("success", true);
    if let Some(data) = data {
        o.insert("data", data);
    }
    Value::Object(o)
}

/// An error response.
pub fn error_response(id: Option<&Value>, command: &str, error: &str) -> Value {
    let mut o = Object::new();
    if let Some(id) = id {
        o.insert("id", id.clone());
    }
    o.insert("type", "response");
    o.insert("command", command);
    o.insert("success", false);
    o.insert("error", error);
    Value::Object(o)
}

/// pi's spelling of a queue mode.
pub fn queue_mode(mode: focus_core::agent::QueueMode) -> &'static str {
    match mode {
        focus_core::agent::QueueMode::All => "all",
        focus_core::agent::QueueMode::OneAtATime => "one-at-a-time",
    }
}

/// A model as JSON (pi's field names).
pub fn model_json(m: &focus_core::provider::ModelInfo) -> Value {
    json_object! {
        "id" => m.id.as_str(),
        "name" => m.name.as_str(),
        "api" => m.api.as_str(),
        "provider" => m.provider.as_str(),
        "baseUrl" => m.base_url.as_str(),
        "reasoning" => m.reasoning,
        "contextWindow" => m.context_window,
        "maxTokens" => m.max_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_echo_the_id() {
        let id = Value::from(7);
        assert_eq!(
            ok_response(Some(&id), "abort", None).to_json_string(),
            r#"{"id":7,"type":"response","command":"abort","success":true}"#
        );
        assert_eq!(
            error_response(None, "parse", "bad").to_json_string(),
            r#"{"type":"response","command":"parse","success":false,"error":"bad"}"#
        );
    }
}
