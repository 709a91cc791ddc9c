//! History repair: makes any stored history safe to send to any API.
//!
//! Every API rejects some histories an agent naturally produces: a turn the user
//! aborted half-way (a tool call with no result), a tool result whose call was
//! dropped, an empty assistant message, thinking blocks from another vendor whose
//! signatures mean nothing here, tool-call ids in a format another API refuses, an
//! image sent to a text-only model. [`repair`] runs before every request builder and
//! returns a history with none of those; the builders then only translate shapes.

use crate::ids::IdRule;
use focus_core::message::{AssistantMessage, Content, Message, StopReason, ToolResultMessage};
use std::collections::HashMap;

/// The text of a synthesized result for a tool call that never got one.
pub const NO_RESULT: &str = "No result provided";

/// The text that replaces an image sent to a model without image input.
pub const IMAGE_OMITTED: &str = "(image omitted: this model does not accept images)";

/// What the history is being prepared for.
#[derive(Clone, Debug)]
pub struct Target<'a> {
    /// The wire API (`anthropic-messages`…).
    pub api: &'a str,
    /// The provider name.
    pub provider: &'a str,
    /// The model id.
    pub model: &'a str,
    /// Whether images may be sent.
    pub accepts_images: bool,
    /// How tool-call ids must look.
    pub ids: IdRule,
}

/// Whether `message` was produced by the target model itself (then its thinking
/// signatures and provider metadata are meaningful and are kept).
pub fn same_model(message: &AssistantMessage, target: &Target<'_>) -> bool {
    message.api == target.api
        && message.provider == target.provider
        && message.model == target.model
}

/// Returns a copy of `messages` that every API accepts:
///
/// - custom messages are dropped (the agent should have converted them already);
/// - assistant messages that ended in `error` or `aborted` are dropped whole (their
///   content is incomplete, their tool calls were never run), as pi does;
/// - thinking from another model becomes plain text (redacted thinking is dropped,
///   Gemini `thoughtSignature`s are removed); empty text and thinking is dropped;
/// - assistant messages left empty are dropped;
/// - every tool call gets exactly one result: results recorded after a later user
///   message are moved back next to their call, results for unknown or already
///   answered calls are dropped, and a call without one gets an error result
///   ([`NO_RESULT`]) right after its assistant message's other results;
/// - tool-call ids are rewritten to the target's [`IdRule`], consistently in calls
///   and results;
/// - images become a text note when the model does not accept them;
/// - a history that would begin with an assistant message begins with a user line
///   ([`EARLIER_CONVERSATION`]) instead.
pub fn repair(messages: &[Message], target: &Target<'_>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    let mut ids = crate::ids::IdMap::new(target.ids);
    // Calls of the latest assistant message still waiting for a result, in order.
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut answered: HashMap<String, ()> = HashMap::new();

    for message in results_after_their_calls(messages) {
        match message {
            Message::Custom(_) => {}
            Message::User(user) => {
                flush_pending(&mut pending, &mut out);
                let content = filter_images(&user.content, target.accepts_images);
                if content.iter().any(|c| !is_empty_block(c)) {
                    let mut user = user.clone();
                    user.content = content;
                    out.push(Message::User(user));
                }
            }
            Message::Assistant(assistant) => {
                flush_pending(&mut pending, &mut out);
                if matches!(
                    assistant.stop_reason,
                    StopReason::Error | StopReason::Aborted
                ) {
                    continue;
                }
                let same = same_model(assistant, target);
                let mut content = Vec::with_capacity(assistant.content.len());
                for block in &assistant.content {
                    match block {
                        Content::Thinking {
                            thinking, redacted, ..
                        } if !same => {
                            if !*redacted && !thinking.trim().is_empty() {
                                // The text is shared with the stored message, not copied.
                                content.push(Content::text(thinking.clone()));
                            }
                        }
                        Content::ToolCall(call) => {
                            let mut call = call.clone();
                            call.id = ids.map(&call.id).into();
                            if !same {
                                call.thought_signature = None;
                            }
                            pending.push((call.id.to_string(), call.name.to_string()));
                            content.push(Content::ToolCall(call));
                        }
                        Content::Image { .. } => {}
                        Content::Text { text, .. } if !same => {
                            if !text.is_empty() {
                                content.push(Content::text(text.clone()));
                            }
                        }
                        other => {
                            if !is_empty_block(other) {
                                content.push(other.clone());
                            }
                        }
                    }
                }
                if content.is_empty() {
                    continue;
                }
                let mut assistant = assistant.clone();
                assistant.content = content;
                out.push(Message::Assistant(assistant));
            }
            Message::ToolResult(result) => {
                let id = ids.map(&result.tool_call_id);
                let Some(position) = pending.iter().position(|(p, _)| *p == id) else {
                    continue; // no open call: an orphaned or duplicate result
                };
                pending.remove(position);
                answered.insert(id.clone(), ());
                let mut result = result.clone();
                result.tool_call_id = id.into();
                result.content = filter_images(&result.content, target.accepts_images);
                out.push(Message::ToolResult(result));
            }
        }
    }
    flush_pending(&mut pending, &mut out);
    if matches!(out.first(), Some(Message::Assistant(_))) {
        // A history cut by compaction or a branch can begin with the model's turn;
        // every API wants the user to speak first (Gemini and Anthropic refuse
        // otherwise), so the user is given a line that says what happened.
        out.insert(
            0,
            Message::User(focus_core::message::UserMessage::text(
                EARLIER_CONVERSATION,
                0,
            )),
        );
    }
    out
}

/// The user's first line when a history would begin with an assistant message.
pub const EARLIER_CONVERSATION: &str = "(The conversation so far continues below.)";

/// The messages in order, except that the results of an assistant message's tool
/// calls are moved right after it when they were recorded later than a message
/// that came in meanwhile (a user's steering message typed while tools ran), so a
/// real result is not mistaken for a missing one.
fn results_after_their_calls(messages: &[Message]) -> Vec<&Message> {
    let mut order = Vec::with_capacity(messages.len());
    let mut used = vec![false; messages.len()];
    for (i, message) in messages.iter().enumerate() {
        if used[i] {
            continue;
        }
        used[i] = true;
        order.push(message);
        let Message::Assistant(assistant) = message else {
            continue;
        };
        if matches!(
            assistant.stop_reason,
            StopReason::Error | StopReason::Aborted
        ) {
            continue;
        }
        let ids: Vec<&str> = assistant.tool_calls().map(|c| c.id.as_str()).collect();
        for (j, later) in messages.iter().enumerate().skip(i + 1) {
            match later {
                Message::Assistant(_) => break,
                Message::ToolResult(r) if !used[j] && ids.contains(&r.tool_call_id.as_str()) => {
                    used[j] = true;
                    order.push(later);
                }
                _ => {}
            }
        }
    }
    order
}

/// Synthesizes error results for calls that never got one.
fn flush_pending(pending: &mut Vec<(String, String)>, out: &mut Vec<Message>) {
    for (id, name) in pending.drain(..) {
        out.push(Message::ToolResult(ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: name.into(),
            content: vec![Content::text(NO_RESULT)],
            details: focus_core::json::Value::Null,
            is_error: true,
            timestamp: 0,
        }));
    }
}

fn is_empty_block(block: &Content) -> bool {
    match block {
        Content::Text { text, .. } => text.is_empty(),
        Content::Thinking {
            thinking,
            signature,
            redacted,
        } => !*redacted && thinking.is_empty() && signature.is_none(),
        _ => false,
    }
}

fn filter_images(content: &[Content], accepts_images: bool) -> Vec<Content> {
    let mut out = Vec::with_capacity(content.len());
    for block in content {
        match block {
            Content::Image { .. } if !accepts_images => {
                if out.last().and_then(Content::as_text) != Some(IMAGE_OMITTED) {
                    out.push(Content::text(IMAGE_OMITTED));
                }
            }
            other => out.push(other.clone()),
        }
    }
    out
}

/// Rewrites tool calls and tool results as plain text, for a request that defines
/// no tools: Anthropic rejects `tool_use`/`tool_result` blocks without tool
/// definitions (a summarization call over a history that used tools, for example).
/// Calls become `[called tool NAME with ARGS]` in the assistant message; results
/// become user messages `[result of tool NAME]: TEXT` (`(error)` marked).
pub fn tool_turns_as_text(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .map(|message| match message {
            Message::Assistant(a) => {
                let mut a = a.clone();
                for block in &mut a.content {
                    if let Content::ToolCall(call) = block {
                        *block = Content::text(format!(
                            "[called tool {} with {}]",
                            call.name,
                            call.arguments.to_json_string()
                        ));
                    }
                }
                Message::Assistant(a)
            }
            Message::ToolResult(r) => {
                let mark = if r.is_error { " (error)" } else { "" };
                let mut content = vec![Content::text(format!(
                    "[result of tool {}{mark}]: {}",
                    r.tool_name,
                    joined_text(&r.content)
                ))];
                content.extend(
                    r.content
                        .iter()
                        .filter(|c| matches!(c, Content::Image { .. }))
                        .cloned(),
                );
                Message::User(focus_core::message::UserMessage {
                    content,
                    timestamp: r.timestamp,
                })
            }
            other => other.clone(),
        })
        .collect()
}

/// All text blocks of a tool result or user message joined with newlines.
pub fn joined_text(content: &[Content]) -> String {
    let texts: Vec<&str> = content.iter().filter_map(Content::as_text).collect();
    texts.join("\n")
}

/// The images in `content`, as `(mime type, base64 data)`.
pub fn images(content: &[Content]) -> Vec<(&str, &str)> {
    content
        .iter()
        .filter_map(|c| match c {
            Content::Image { data, mime_type } => Some((mime_type.as_str(), data.as_str())),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json_object;
    use focus_core::message::{ToolCall, UserMessage};

    fn call(id: &str) -> Content {
        Content::ToolCall(ToolCall {
            id: id.into(),
            name: "bash".into(),
            arguments: json_object! {},
            thought_signature: Some("sig".into()),
            invalid_arguments: None,
        })
    }

    fn assistant(content: Vec<Content>, reason: StopReason) -> Message {
        Message::Assistant(AssistantMessage {
            content,
            api: "anthropic-messages".into(),
            provider: "anthropic".into(),
            model: "claude".into(),
            stop_reason: reason,
            ..Default::default()
        })
    }

    fn result(id: &str) -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: "bash".into(),
            content: vec![Content::text("ok")],
            details: focus_core::json::Value::Null,
            is_error: false,
            timestamp: 0,
        })
    }

    fn target(api: &'static str) -> Target<'static> {
        Target {
            api,
            provider: "anthropic",
            model: "claude",
            accepts_images: false,
            ids: IdRule::for_api(api),
        }
    }

    #[test]
    fn orphans_are_answered_and_stray_results_dropped() {
        let history = vec![
            Message::User(UserMessage::text("go", 0)),
            assistant(vec![call("a"), call("b")], StopReason::ToolUse),
            result("b"),
            result("b"),
            result("zzz"),
            Message::User(UserMessage::text("next", 0)),
        ];
        let fixed = repair(&history, &target("anthropic-messages"));
        let roles: Vec<&str> = fixed.iter().map(Message::role).collect();
        assert_eq!(
            roles,
            ["user", "assistant", "toolResult", "toolResult", "user"]
        );
        let Message::ToolResult(synth) = &fixed[3] else {
            panic!()
        };
        assert_eq!(synth.tool_call_id, "a");
        assert!(synth.is_error);
        assert_eq!(joined_text(&synth.content), NO_RESULT);
    }

    #[test]
    fn a_result_recorded_after_a_steering_message_still_answers_its_call() {
        let history = vec![
            Message::User(UserMessage::text("go", 0)),
            assistant(vec![call("a")], StopReason::ToolUse),
            Message::User(UserMessage::text("also check the docs", 0)),
            result("a"),
        ];
        let fixed = repair(&history, &target("anthropic-messages"));
        let roles: Vec<&str> = fixed.iter().map(Message::role).collect();
        assert_eq!(roles, ["user", "assistant", "toolResult", "user"]);
        let Message::ToolResult(r) = &fixed[2] else {
            panic!()
        };
        assert!(!r.is_error, "the real result, not a synthesized one");
    }

    #[test]
    fn aborted_turns_are_dropped_with_their_results_and_images_become_notes() {
        let history = vec![
            Message::User(UserMessage {
                content: vec![
                    Content::text("look"),
                    Content::Image {
                        data: "AA==".into(),
                        mime_type: "image/png".into(),
                    },
                ],
                timestamp: 0,
            }),
            assistant(vec![Content::text("half"), call("x")], StopReason::Aborted),
            result("x"),
            assistant(vec![Content::text("")], StopReason::Stop),
        ];
        let fixed = repair(&history, &target("anthropic-messages"));
        assert_eq!(fixed.len(), 1);
        let Message::User(u) = &fixed[0] else {
            panic!()
        };
        assert_eq!(u.content[1].as_text(), Some(IMAGE_OMITTED));
    }

    #[test]
    fn foreign_thinking_becomes_text_and_ids_are_normalised() {
        let mut foreign = AssistantMessage {
            content: vec![
                Content::Thinking {
                    thinking: "hmm".into(),
                    signature: Some("s".into()),
                    redacted: false,
                },
                Content::Thinking {
                    thinking: "x".into(),
                    signature: Some("d".into()),
                    redacted: true,
                },
                call("call_1|fc:weird/id"),
            ],
            api: "openai-responses".into(),
            provider: "openai".into(),
            model: "gpt".into(),
            stop_reason: StopReason::ToolUse,
            ..Default::default()
        };
        foreign.usage.input = 1;
        let history = vec![Message::Assistant(foreign), result("call_1|fc:weird/id")];
        let fixed = repair(&history, &target("anthropic-messages"));
        // The history began with the model's turn: a user line goes first.
        let Message::User(first) = &fixed[0] else {
            panic!()
        };
        assert_eq!(first.content[0].as_text(), Some(EARLIER_CONVERSATION));
        let fixed = &fixed[1..];
        let Message::Assistant(a) = &fixed[0] else {
            panic!()
        };
        assert_eq!(a.content[0].as_text(), Some("hmm"));
        assert_eq!(a.content.len(), 2);
        let call = a.tool_calls().next().unwrap();
        assert!(call
            .id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        assert_eq!(call.thought_signature, None);
        let Message::ToolResult(r) = &fixed[1] else {
            panic!()
        };
        assert_eq!(r.tool_call_id, call.id);
    }
}
