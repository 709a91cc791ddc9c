//! [`convert_to_llm`]: the last step before a provider, turning pi's custom message
//! roles into user messages (pi's `convertToLlm`), for `AgentConfig::convert_to_llm`.
//!
//! | role                | becomes a user message with                                      |
//! |---------------------|------------------------------------------------------------------|
//! | `compactionSummary` | the summary inside `<summary>` tags, introduced as a compaction   |
//! | `branchSummary`     | the summary inside `<summary>` tags, introduced as a branch       |
//! | `bashExecution`     | "Ran `cmd`" and the output (skipped if `excludeFromContext`)      |
//! | `custom`            | its content as is                                                |
//!
//! Any other unknown role is dropped: the provider could not encode it.

use focus_core::json::{FromJson, Value};
use focus_core::message::{Content, CustomMessage, Message, UserMessage};

/// Introduces a compaction summary (pi's `COMPACTION_SUMMARY_PREFIX`).
pub const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// Closes a compaction summary.
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// Introduces a branch summary (pi's `BRANCH_SUMMARY_PREFIX`).
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// Closes a branch summary.
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// [`convert_to_llm`] in the shape `AgentConfig::convert_to_llm` takes.
pub fn convert_to_llm_hook() -> std::sync::Arc<focus_core::agent::ConvertToLlm> {
    std::sync::Arc::new(convert_to_llm)
}

/// Converts a history for a provider: user, assistant and tool-result messages pass
/// through, custom roles become user messages or are dropped.
pub fn convert_to_llm(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Custom(c) => custom_to_user(c).map(Message::User),
            other => {
                // A hostile tool name is never sent back to the provider.
                let mut message = other.clone();
                focus_core::tool::sanitize_tool_names(&mut message);
                Some(message)
            }
        })
        .collect()
}

fn custom_to_user(message: &CustomMessage) -> Option<UserMessage> {
    let raw = &message.raw;
    let timestamp = raw["timestamp"].as_f64().map_or(0, |t| t.max(0.0) as u64);
    let text = |s: String| {
        Some(UserMessage {
            content: vec![Content::text(s)],
            timestamp,
        })
    };
    let summary = raw["summary"].as_str().unwrap_or("");
    match message.role.as_str() {
        "compactionSummary" => text(format!(
            "{COMPACTION_SUMMARY_PREFIX}{summary}{COMPACTION_SUMMARY_SUFFIX}"
        )),
        "branchSummary" => text(format!(
            "{BRANCH_SUMMARY_PREFIX}{summary}{BRANCH_SUMMARY_SUFFIX}"
        )),
        "bashExecution" => {
            if raw["excludeFromContext"].as_bool() == Some(true) {
                return None;
            }
            text(bash_execution_text(raw))
        }
        "custom" => Some(UserMessage {
            content: content_blocks(&raw["content"]),
            timestamp,
        }),
        _ => None,
    }
}

/// The text a `bashExecution` message (a `!command` the user ran) shows the model.
pub fn bash_execution_text(raw: &Value) -> String {
    let mut text = format!("Ran `{}`\n", raw["command"].as_str().unwrap_or(""));
    match raw["output"].as_str() {
        Some(output) if !output.is_empty() => text.push_str(&format!("```\n{output}\n```")),
        _ => text.push_str("(no output)"),
    }
    if raw["cancelled"].as_bool() == Some(true) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = raw["exitCode"].as_i64().filter(|&c| c != 0) {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    if raw["truncated"].as_bool() == Some(true) {
        if let Some(path) = raw["fullOutputPath"].as_str() {
            text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
        }
    }
    text
}

/// Content that may be a string or an array of text and image blocks; unreadable
/// blocks are dropped rather than failing the whole conversion.
pub fn content_blocks(content: &Value) -> Vec<Content> {
    match content {
        Value::String(s) => vec![Content::text(s.as_str())],
        Value::Array(items) => items
            .iter()
            .filter_map(|item| Content::from_json(item).ok())
            .filter(|c| matches!(c, Content::Text { .. } | Content::Image { .. }))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    fn custom(json: &str) -> Message {
        Message::from_json(&parse_str(json).unwrap()).unwrap()
    }

    fn only_text(messages: &[Message]) -> String {
        match messages {
            [Message::User(u)] => u.content[0].as_text().unwrap().to_string(),
            other => panic!("expected one user message, got {other:?}"),
        }
    }

    #[test]
    fn summaries_become_user_messages_with_pi_wrapping() {
        let c =
            custom(r#"{"role":"compactionSummary","summary":"S","tokensBefore":9,"timestamp":5}"#);
        assert_eq!(
            only_text(&convert_to_llm(&[c])),
            "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS\n</summary>"
        );
        let b = custom(r#"{"role":"branchSummary","summary":"B","fromId":"x","timestamp":5}"#);
        assert!(only_text(&convert_to_llm(&[b])).ends_with("<summary>\nB</summary>"));
    }

    #[test]
    fn bash_execution_and_custom_and_unknown_roles() {
        let bash = custom(
            r#"{"role":"bashExecution","command":"ls","output":"a\nb","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/o","timestamp":1}"#,
        );
        assert_eq!(
            only_text(&convert_to_llm(&[bash])),
            "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/o]"
        );
        let hidden = custom(
            r#"{"role":"bashExecution","command":"ls","output":"","exitCode":0,"cancelled":false,"truncated":false,"excludeFromContext":true,"timestamp":1}"#,
        );
        let ext = custom(
            r#"{"role":"custom","customType":"e","content":[{"type":"text","text":"note"}],"display":true,"timestamp":1}"#,
        );
        let weird = custom(r#"{"role":"somethingElse","timestamp":1}"#);
        let converted = convert_to_llm(&[hidden, ext, weird]);
        assert_eq!(only_text(&converted), "note");
    }
}
