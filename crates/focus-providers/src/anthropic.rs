//! Anthropic Messages (`anthropic-messages`): `POST {base}/v1/messages`.
//!
//! Request traps: the system prompt is a top-level field, not a message; tool results
//! are `tool_result` blocks inside a *user* message (all results of one turn in one
//! message), so consecutive same-role messages must be merged to keep strict
//! user/assistant alternation; thinking blocks go back only with their signature
//! (without one they are sent as text); `temperature` must not be sent with thinking.
//!
//! Stream: `message_start` (usage so far), then per block `content_block_start`,
//! `content_block_delta`s (`text_delta`, `thinking_delta`, `signature_delta`,
//! `input_json_delta`, `citations_delta`), `content_block_stop`; then `message_delta`
//! (stop reason, cumulative usage) and `message_stop`. `ping` may come anywhere and
//! `error` carries in-band failures such as `overloaded_error`.

use crate::builder::MessageBuilder;
use crate::decode::{count, event_json, StreamDecoder};
use crate::history::{self, joined_text, Target};
use crate::ids::IdRule;
use focus_core::json::{Object, Value};
use focus_core::json_object;
use focus_core::message::{Content, Message, StopReason, ToolResultMessage, Usage};
use focus_core::provider::{ModelInfo, ModelRequest, ThinkingLevel, ToolSpec};
use focus_transport::sse::SseEvent;

/// The wire API name.
pub const API: &str = "anthropic-messages";

/// The `anthropic-version` header value.
pub const VERSION: &str = "2023-06-01";

/// The URL for `base_url` (`https://api.anthropic.com` or one ending in `/v1`).
pub fn url(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

/// Headers besides the API key.
pub fn headers(model: &ModelInfo, request: &ModelRequest<'_>) -> Vec<(String, String)> {
    let mut betas = vec!["fine-grained-tool-streaming-2025-05-14"];
    if thinking_budget(model, request).is_some() && !is_adaptive(model) {
        betas.push("interleaved-thinking-2025-05-14");
    }
    vec![
        ("anthropic-version".into(), VERSION.into()),
        ("anthropic-beta".into(), betas.join(",")),
    ]
}

/// Whether the model uses adaptive thinking (`thinking: {type: "adaptive"}` plus an
/// effort) rather than a token budget: Opus/Sonnet 4.6 and later, every 5.x model.
pub fn is_adaptive(model: &ModelInfo) -> bool {
    let Some((major, minor)) = claude_version(&model.id) else {
        return false;
    };
    major >= 5 || (major == 4 && minor >= 6)
}

/// The version in a Claude model id: `claude-opus-4-6` → (4, 6), `claude-sonnet-5`
/// → (5, 0), `claude-sonnet-4-5-20250929` → (4, 5). `None` for other ids.
fn claude_version(id: &str) -> Option<(u32, u32)> {
    let rest = ["opus-", "sonnet-", "haiku-", "fable-", "mythos-"]
        .iter()
        .find_map(|family| id.find(family).map(|at| &id[at + family.len()..]))?;
    let mut parts = rest.split(['-', '.']);
    let major: u32 = parts.next().filter(|p| p.len() <= 2)?.parse().ok()?;
    // A dated snapshot suffix (8 digits) is not a minor version.
    let minor = parts
        .next()
        .filter(|p| p.len() <= 2)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    Some((major, minor))
}

/// The thinking budget for the request, or `None` when thinking is off.
fn thinking_budget(model: &ModelInfo, request: &ModelRequest<'_>) -> Option<u64> {
    if !model.reasoning {
        return None;
    }
    crate::thinking::budget(request.options.thinking)
}

/// Builds the request body (pure; golden-tested).
pub fn build_request(model: &ModelInfo, request: &ModelRequest<'_>) -> Value {
    let mut max_tokens = crate::thinking::max_tokens(model, request.options);
    let mut body = Object::new();
    body.insert("model", model.id.as_str());
    let budget = thinking_budget(model, request);
    if let Some(budget) = budget {
        max_tokens = insert_thinking(
            &mut body,
            model,
            request.options.thinking,
            budget,
            max_tokens,
        );
    }
    body.insert("max_tokens", max_tokens);
    body.insert("stream", true);
    if !request.system_prompt.is_empty() {
        body.insert(
            "system",
            vec![json_object! {
                "type" => "text",
                "text" => request.system_prompt,
                "cache_control" => json_object! {"type" => "ephemeral"},
            }],
        );
    }
    body.insert("messages", wire_messages(model, request));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request.tools.iter().map(tool_definition).collect();
        body.insert("tools", tools);
    }
    if let (Some(t), None) = (request.options.temperature, budget) {
        body.insert("temperature", t);
    }
    Value::Object(body)
}

/// The conversation as Anthropic `messages`: the history repaired for this API
/// (tool turns as text when no tools are offered), each message as its content
/// blocks, consecutive messages of one role merged, and the last block of the
/// last user message marked for prompt caching.
fn wire_messages(model: &ModelInfo, request: &ModelRequest<'_>) -> Vec<Value> {
    let target = Target {
        api: API,
        provider: &model.provider,
        model: &model.id,
        accepts_images: model.accepts_images,
        ids: IdRule::Anthropic,
    };
    let mut messages = history::repair(request.messages, &target);
    if request.tools.is_empty() {
        messages = history::tool_turns_as_text(&messages);
    }
    let mut wire: Vec<(String, Vec<Value>)> = Vec::new();
    for message in &messages {
        let (role, blocks) = match message {
            Message::User(user) => ("user", user.content.iter().filter_map(user_block).collect()),
            Message::Assistant(assistant) => (
                "assistant",
                assistant
                    .content
                    .iter()
                    .filter_map(assistant_block)
                    .collect(),
            ),
            Message::ToolResult(result) => ("user", vec![tool_result_block(result)]),
            Message::Custom(_) => continue,
        };
        if blocks.is_empty() {
            continue;
        }
        match wire.last_mut() {
            Some((last, existing)) if last == role => existing.extend(blocks),
            _ => wire.push((role.to_string(), blocks)),
        }
    }
    // Prompt caching: mark the last block of the last user message.
    if let Some((_, blocks)) = wire.iter_mut().rev().find(|(r, _)| r == "user") {
        if let Some(Value::Object(last)) = blocks.last_mut() {
            last.insert("cache_control", json_object! {"type" => "ephemeral"});
        }
    }
    wire.into_iter()
        .map(|(role, content)| json_object! {"role" => role, "content" => content})
        .collect()
}

/// A tool result as a `tool_result` block: its text (or a placeholder when it
/// has none), its images, and `is_error` when it failed.
fn tool_result_block(result: &ToolResultMessage) -> Value {
    let mut content: Vec<Value> = Vec::new();
    let text = joined_text(&result.content);
    let pictures = history::images(&result.content);
    if !text.is_empty() || pictures.is_empty() {
        content.push(json_object! {"type" => "text", "text" => if text.is_empty() { "(no output)".to_string() } else { text }});
    } else {
        content.push(json_object! {"type" => "text", "text" => "(see attached image)"});
    }
    content.extend(pictures.into_iter().map(|(m, d)| image(m, d)));
    let mut block = json_object! {
        "type" => "tool_result",
        "tool_use_id" => result.tool_call_id.as_str(),
        "content" => content,
    };
    if result.is_error {
        block.as_object_mut().unwrap().insert("is_error", true);
    }
    block
}

/// Thinking at `level` with a `budget` of tokens: adaptive thinking with an
/// effort for the models that take it, else an explicit budget, which is added
/// to the output cap (within the model's own) and kept below it. Returns the
/// output cap to send.
fn insert_thinking(
    body: &mut Object,
    model: &ModelInfo,
    level: ThinkingLevel,
    budget: u64,
    mut max_tokens: u64,
) -> u64 {
    if is_adaptive(model) {
        body.insert("thinking", json_object! {"type" => "adaptive"});
        let effort = match level {
            ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            ThinkingLevel::XHigh if model.id.contains("opus") => "max",
            _ => "high",
        };
        body.insert("output_config", json_object! {"effort" => effort});
    } else {
        max_tokens = max_tokens
            .saturating_add(budget)
            .min(model.max_tokens.max(max_tokens));
        let budget = if max_tokens <= budget {
            max_tokens.saturating_sub(1024)
        } else {
            budget
        };
        body.insert(
            "thinking",
            json_object! {"type" => "enabled", "budget_tokens" => budget},
        );
    }
    max_tokens
}

/// A tool the model may call, as an Anthropic tool definition.
fn tool_definition(tool: &ToolSpec) -> Value {
    json_object! {
        "name" => tool.name.as_str(),
        "description" => tool.description.as_str(),
        "input_schema" => tool.parameters.clone(),
    }
}

fn image(mime: &str, data: &str) -> Value {
    json_object! {
        "type" => "image",
        "source" => json_object! {"type" => "base64", "media_type" => mime, "data" => data},
    }
}

fn user_block(block: &Content) -> Option<Value> {
    match block {
        Content::Text { text, .. } if !text.is_empty() => {
            Some(json_object! {"type" => "text", "text" => text.as_str()})
        }
        Content::Image { data, mime_type } => Some(image(mime_type, data)),
        _ => None,
    }
}

fn assistant_block(block: &Content) -> Option<Value> {
    match block {
        Content::Text { text, .. } if !text.trim().is_empty() => {
            Some(json_object! {"type" => "text", "text" => text.as_str()})
        }
        Content::Thinking {
            signature: Some(data),
            redacted: true,
            ..
        } => Some(json_object! {"type" => "redacted_thinking", "data" => data.as_str()}),
        Content::Thinking {
            thinking,
            signature: Some(signature),
            ..
        } if !signature.is_empty() => Some(json_object! {
            "type" => "thinking", "thinking" => thinking.as_str(), "signature" => signature.as_str(),
        }),
        // Thinking without a signature (an interrupted stream) is only text now.
        Content::Thinking { thinking, .. } if !thinking.trim().is_empty() => {
            Some(json_object! {"type" => "text", "text" => thinking.as_str()})
        }
        Content::ToolCall(call) => Some(json_object! {
            "type" => "tool_use",
            "id" => call.id.as_str(),
            "name" => call.name.as_str(),
            "input" => if call.arguments.as_object().is_some() { call.arguments.clone() } else { Value::Object(Object::new()) },
        }),
        _ => None,
    }
}

/// Maps Anthropic's `stop_reason`; `Err` carries an error message.
///
/// # Errors
///
/// The reason says the request failed (`refusal`, an unknown reason): the text is the error message
/// for the answer.
pub fn map_stop_reason(reason: &str) -> Result<StopReason, String> {
    match reason {
        "end_turn" | "pause_turn" | "stop_sequence" => Ok(StopReason::Stop),
        "max_tokens" | "model_context_window_exceeded" => Ok(StopReason::Length),
        "tool_use" => Ok(StopReason::ToolUse),
        "refusal" | "sensitive" => Err(format!(
            "the model declined to answer (stop_reason {reason})"
        )),
        other => Err(format!("unknown stop_reason {other:?}")),
    }
}

/// The stream decoder: a state machine over Anthropic's events.
#[derive(Default)]
pub struct Decoder {
    /// Anthropic block index → our content index (`None` for server-side blocks
    /// such as `server_tool_use` or `web_search_tool_result`, which are skipped).
    blocks: Vec<(u64, Option<usize>)>,
    stop_seen: bool,
    /// `message_stop` arrived: the stream is over (see `StreamDecoder::is_done`).
    message_stop_seen: bool,
    usage: Usage,
}

impl Decoder {
    fn block(&self, anthropic_index: u64) -> Option<usize> {
        self.blocks
            .iter()
            .rev()
            .find(|(i, _)| *i == anthropic_index)
            .and_then(|(_, ours)| *ours)
    }

    /// Merges a usage object; non-null fields win (`message_delta` counts are
    /// cumulative).
    fn merge_usage(&mut self, usage: &Value, out: &mut MessageBuilder<'_, '_>) {
        if usage.as_object().is_none() {
            return;
        }
        let set = |field: &mut u64, v: &Value| {
            if let Some(n) = v.as_u64() {
                *field = n;
            }
        };
        set(&mut self.usage.input, &usage["input_tokens"]);
        set(&mut self.usage.output, &usage["output_tokens"]);
        set(
            &mut self.usage.cache_read,
            &usage["cache_read_input_tokens"],
        );
        set(
            &mut self.usage.cache_write,
            &usage["cache_creation_input_tokens"],
        );
        let mut u = self.usage.clone();
        u.total_tokens = 0;
        out.set_usage(u);
    }
}

impl StreamDecoder for Decoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder<'_, '_>) {
        let data = match event_json(event) {
            Ok(v) => v,
            Err(e) => return out.skip_event(e),
        };
        let kind = data["type"].as_str().unwrap_or(event.event.as_str());
        match kind {
            "message_start" => {
                let message = &data["message"];
                out.set_response_id(message["id"].as_str().unwrap_or(""));
                self.merge_usage(&message["usage"], out);
            }
            "content_block_start" => {
                let index = count(&data["index"]);
                let block = &data["content_block"];
                let ours = match block["type"].as_str().unwrap_or("") {
                    "text" => {
                        let i = out.open_text();
                        out.append(i, block["text"].as_str().unwrap_or(""));
                        Some(i)
                    }
                    "thinking" => {
                        let i = out.open_thinking();
                        out.append(i, block["thinking"].as_str().unwrap_or(""));
                        Some(i)
                    }
                    "redacted_thinking" => {
                        out.add_redacted_thinking(block["data"].as_str().unwrap_or(""));
                        None
                    }
                    "tool_use" => Some(out.open_tool_call(
                        block["id"].as_str().unwrap_or(""),
                        block["name"].as_str().unwrap_or(""),
                    )),
                    _ => None,
                };
                self.blocks.push((index, ours));
            }
            "content_block_delta" => {
                let Some(i) = self.block(count(&data["index"])) else {
                    return;
                };
                let delta = &data["delta"];
                match delta["type"].as_str().unwrap_or("") {
                    "text_delta" => out.append(i, delta["text"].as_str().unwrap_or("")),
                    "thinking_delta" => out.append(i, delta["thinking"].as_str().unwrap_or("")),
                    "signature_delta" => {
                        out.append_signature(i, delta["signature"].as_str().unwrap_or(""))
                    }
                    "input_json_delta" => {
                        out.append_arguments(i, delta["partial_json"].as_str().unwrap_or(""))
                    }
                    _ => {} // citations_delta and future kinds carry nothing we keep
                }
            }
            "content_block_stop" => {
                if let Some(i) = self.block(count(&data["index"])) {
                    out.close(i);
                }
            }
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop_seen = true;
                    match map_stop_reason(reason) {
                        Ok(r) => out.set_stop_reason(r),
                        Err(e) => out.set_error(e),
                    }
                }
                self.merge_usage(&data["usage"], out);
            }
            "message_stop" => {
                self.stop_seen = true;
                self.message_stop_seen = true;
            }
            "error" => {
                let error = &data["error"];
                let message = error["message"].as_str().unwrap_or("unknown error");
                let kind = error["type"].as_str().unwrap_or("error");
                out.set_error(format!("{kind}: {message}"));
            }
            _ => {} // ping and unknown future events
        }
    }

    fn is_done(&self) -> bool {
        self.message_stop_seen
    }

    fn on_end(&mut self, out: &mut MessageBuilder<'_, '_>) {
        if !self.stop_seen {
            out.set_error("the stream ended before the model finished (no stop reason)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_thinking_follows_the_model_version() {
        let m = |id: &str| ModelInfo {
            id: id.into(),
            ..Default::default()
        };
        for id in [
            "claude-opus-4-6",
            "claude-sonnet-4-6",
            "claude-opus-5",
            "claude-opus-5-5",
            "claude-fable-5-1",
            "claude-opus-4-8",
        ] {
            assert!(is_adaptive(&m(id)), "{id}");
        }
        for id in [
            "claude-sonnet-4-5",
            "claude-sonnet-4-5-20250929",
            "claude-haiku-4-5",
            "claude-3-7-sonnet-20250219",
            "gpt-5",
        ] {
            assert!(!is_adaptive(&m(id)), "{id}");
        }
    }
}
