//! OpenAI Chat Completions and compatible servers (`openai-completions`):
//! `POST {base}/chat/completions`.
//!
//! Request traps: an assistant message with only tool calls leaves `content` out;
//! `function.arguments` is a JSON *string* (`"{}"` when empty); tool results are
//! `role: "tool"` messages, and images from a tool go in a following user message;
//! `stream_options.include_usage` is needed to get token counts at all; the output
//! cap leaves room for the prompt in the window ([`fit_max_tokens`]); servers
//! differ in many small ways, all kept in [`crate::compat`].
//!
//! Stream: `data:` chunks of `choices[].delta` (no `event:` names), ending with
//! `data: [DONE]`. Tool calls arrive as fragments keyed by `index` (some servers
//! repeat the id and name in every fragment); reasoning arrives in
//! `reasoning_content`, `reasoning` or `reasoning_text`; usage arrives in a last
//! chunk with empty `choices`. Errors may come as an `event: error` frame or a
//! top-level `error` object inside a chunk.

use crate::builder::MessageBuilder;
use crate::compat::{compat_for, Compat, ThinkingFormat};
use crate::decode::{count, event_json, StreamDecoder};
use crate::history::{self, joined_text, Target};
use crate::ids::IdRule;
use focus_core::json::{Object, Value};
use focus_core::json_object;
use focus_core::message::{
    AssistantMessage, Content, Message, StopReason, ToolCall, ToolResultMessage, Usage,
};
use focus_core::provider::{ModelInfo, ModelRequest, ThinkingLevel, ToolSpec};
use focus_transport::sse::SseEvent;

pub mod text_chunk;

/// The wire API name.
pub const API: &str = "openai-completions";

/// The field names servers use for streamed reasoning, in order of preference.
pub const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// The URL for `base_url` (e.g. `https://api.openai.com/v1`).
pub fn url(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

/// Builds the request body (pure; golden-tested).
pub fn build_request(model: &ModelInfo, request: &ModelRequest<'_>) -> Value {
    build_request_with(model, request, compat_for(model))
}

/// [`build_request`] with the server quirks given (a models.json `compat`
/// override applied to the table's row).
pub fn build_request_with(model: &ModelInfo, request: &ModelRequest<'_>, compat: Compat) -> Value {
    let messages = chat_messages(model, request, compat);
    let tools: Vec<Value> = request.tools.iter().map(tool_definition).collect();
    let prompt_chars = request.system_prompt.len()
        + messages
            .iter()
            .map(|m| m.to_json_string().len())
            .sum::<usize>()
        + tools
            .iter()
            .map(|t| t.to_json_string().len())
            .sum::<usize>();
    let max_tokens = fit_max_tokens(
        crate::thinking::max_tokens(model, request.options),
        model.context_window,
        (prompt_chars as u64).div_ceil(4),
    );
    let mut body = Object::new();
    body.insert("model", model.id.as_str());
    body.insert("messages", messages);
    body.insert("stream", true);
    if compat.usage_in_streaming {
        body.insert("stream_options", json_object! {"include_usage" => true});
    }
    if compat.supports_store {
        body.insert("store", false);
    }
    body.insert(compat.max_tokens_field, max_tokens);
    if let Some(t) = request.options.temperature {
        body.insert("temperature", t);
    }
    if !tools.is_empty() {
        body.insert("tools", tools);
    }
    if model.reasoning {
        insert_thinking(&mut body, model, request.options.thinking, compat);
    }
    if let (Some(key), "openai") = (&request.options.session_id, compat.server) {
        body.insert("prompt_cache_key", key.as_str());
    }
    Value::Object(body)
}

/// The conversation as Chat Completions `messages`: the system prompt (as
/// `developer` for a reasoning model whose server takes that role), then the
/// history repaired for this API, each message in its wire shape, with images
/// returned by tools in a user message after each run of tool messages.
fn chat_messages(model: &ModelInfo, request: &ModelRequest<'_>, compat: Compat) -> Vec<Value> {
    let target = Target {
        api: API,
        provider: &model.provider,
        model: &model.id,
        accepts_images: model.accepts_images,
        ids: if compat.mistral_ids {
            IdRule::Mistral
        } else {
            IdRule::OpenAiChat
        },
    };
    let history = history::repair(request.messages, &target);
    let mut messages: Vec<Value> = Vec::new();
    if !request.system_prompt.is_empty() {
        let role = if model.reasoning && compat.supports_developer_role {
            "developer"
        } else {
            "system"
        };
        messages.push(json_object! {"role" => role, "content" => request.system_prompt});
    }
    // Images returned by tools wait here until the run of tool messages ends.
    let mut tool_images: Vec<Value> = Vec::new();
    for message in &history {
        if !matches!(message, Message::ToolResult(_)) && !tool_images.is_empty() {
            messages.push(tool_image_message(std::mem::take(&mut tool_images)));
        }
        match message {
            Message::User(user) => messages.push(user_message(&user.content)),
            Message::Assistant(assistant) => {
                messages.extend(assistant_message(assistant, model, compat));
            }
            Message::ToolResult(result) => {
                let (message, pictures) = tool_result_message(result, compat);
                messages.push(message);
                tool_images.extend(pictures);
            }
            Message::Custom(_) => {}
        }
    }
    if !tool_images.is_empty() {
        messages.push(tool_image_message(tool_images));
    }
    messages
}

/// An assistant message in its wire shape: its text, its tool calls, its
/// reasoning when the server wants it back; `None` when nothing is left to say
/// (only thinking, say).
fn assistant_message(
    assistant: &AssistantMessage,
    model: &ModelInfo,
    compat: Compat,
) -> Option<Value> {
    let mut o = Object::new();
    o.insert("role", "assistant");
    let text: String = assistant
        .content
        .iter()
        .filter_map(Content::as_text)
        .collect();
    let calls: Vec<Value> = assistant.tool_calls().map(tool_call).collect();
    // Only tool calls: `content` is left out, as the OpenAI SDK does
    // (every compatible server accepts that; llama.cpp and
    // llama-cpp-python answer 500 to `null`, which `supportsNullContent`
    // asks for).
    if !text.is_empty() || calls.is_empty() {
        o.insert("content", text);
    } else if compat.null_content {
        o.insert("content", Value::Null);
    }
    if compat.replay_reasoning {
        for block in &assistant.content {
            if let Content::Thinking {
                thinking,
                signature: Some(field),
                ..
            } = block
            {
                if REASONING_FIELDS.contains(&field.as_str()) {
                    o.insert(field.as_str(), thinking.as_str());
                }
            }
        }
        // A reasoning model that wants its reasoning back (DeepSeek in
        // thinking mode) refuses an assistant message without the field,
        // even one from another model or with no reasoning: send it empty.
        if model.reasoning && !REASONING_FIELDS.iter().any(|f| o.contains_key(f)) {
            o.insert("reasoning_content", "");
        }
    }
    if !calls.is_empty() {
        o.insert("tool_calls", calls);
    }
    let said_nothing = o
        .get("content")
        .map_or(true, |c| c.is_null() || c.as_str() == Some(""));
    if said_nothing && o.get("tool_calls").is_none() {
        return None;
    }
    Some(Value::Object(o))
}

/// A tool call in its wire shape: `function.arguments` a JSON *string*
/// (`"{}"` when empty).
fn tool_call(call: &ToolCall) -> Value {
    let args = match &call.arguments {
        Value::Object(obj) if obj.is_empty() => "{}".to_string(),
        Value::Object(_) => call.arguments.to_json_string(),
        _ => "{}".to_string(),
    };
    json_object! {
        "id" => call.id.as_str(),
        "type" => "function",
        "function" => json_object! {"name" => call.name.as_str(), "arguments" => args},
    }
}

/// A tool result as a `role: "tool"` message (its text, or a placeholder when
/// it has none), and the images it returned as image parts, which go in a user
/// message after the run of tool messages.
fn tool_result_message(result: &ToolResultMessage, compat: Compat) -> (Value, Vec<Value>) {
    let mut text = joined_text(&result.content);
    let pictures = history::images(&result.content);
    if text.is_empty() {
        text = if pictures.is_empty() {
            "(no output)".into()
        } else {
            "(see attached image)".into()
        };
    }
    let mut o = json_object! {
        "role" => "tool",
        "tool_call_id" => result.tool_call_id.as_str(),
        "content" => text,
    };
    if compat.tool_result_name {
        o.as_object_mut()
            .unwrap()
            .insert("name", result.tool_name.as_str());
    }
    let images = pictures
        .into_iter()
        .map(|(m, d)| image_part(m, d))
        .collect();
    (o, images)
}

/// A tool the model may call, as a `function` definition.
fn tool_definition(tool: &ToolSpec) -> Value {
    json_object! {
        "type" => "function",
        "function" => json_object! {
            "name" => tool.name.as_str(),
            "description" => tool.description.as_str(),
            "parameters" => tool.parameters.clone(),
        },
    }
}

/// The thinking `level` asked, in the request field the server reads
/// (`reasoning_effort`, `thinking`, `enable_thinking` or OpenRouter's
/// `reasoning`; [`ThinkingFormat`]). For reasoning models only.
fn insert_thinking(body: &mut Object, model: &ModelInfo, level: ThinkingLevel, compat: Compat) {
    match compat.thinking {
        ThinkingFormat::ReasoningEffort => {
            let effort = crate::thinking::effort(level, crate::thinking::supports_xhigh(&model.id));
            let effort = match (effort, compat.server) {
                (None, "openai") => crate::thinking::off_effort(&model.id),
                (effort, _) => effort,
            };
            if let Some(effort) = effort {
                body.insert("reasoning_effort", effort);
            }
        }
        ThinkingFormat::ZaiThinking => {
            let kind = if level == ThinkingLevel::Off {
                "disabled"
            } else {
                "enabled"
            };
            body.insert("thinking", json_object! {"type" => kind});
        }
        ThinkingFormat::EnableThinking => {
            body.insert("enable_thinking", level != ThinkingLevel::Off);
        }
        ThinkingFormat::OpenRouter => {
            if let Some(effort) = crate::thinking::effort(level, true) {
                body.insert("reasoning", json_object! {"effort" => effort});
            }
        }
        ThinkingFormat::None => {}
    }
}

/// The output cap for a prompt of about `prompt_tokens` in a window of
/// `context_window` tokens: `max_tokens`, lowered so prompt and answer fit the
/// window (a local server started with an 8,192-token window, asked for 8,192
/// tokens of answer, has no room for the prompt; vLLM refuses such a request).
/// The prompt is counted at four characters a token plus an eighth; the cap never
/// goes below the smaller of `max_tokens`, 512 and an eighth of the window (a
/// prompt that leaves less than that overflows whatever the cap). A window of 0
/// (unknown) changes nothing.
pub fn fit_max_tokens(max_tokens: u64, context_window: u64, prompt_tokens: u64) -> u64 {
    if context_window == 0 {
        return max_tokens;
    }
    let floor = max_tokens.min(512).min(context_window / 8).max(1);
    let room = context_window.saturating_sub(prompt_tokens + prompt_tokens / 8);
    max_tokens.min(room).max(floor)
}

fn image_part(mime: &str, data: &str) -> Value {
    json_object! {
        "type" => "image_url",
        "image_url" => json_object! {"url" => format!("data:{mime};base64,{data}")},
    }
}

fn tool_image_message(images: Vec<Value>) -> Value {
    let mut parts =
        vec![json_object! {"type" => "text", "text" => "Attached image(s) from tool result:"}];
    parts.extend(images);
    json_object! {"role" => "user", "content" => parts}
}

fn user_message(content: &[Content]) -> Value {
    if let [Content::Text { text, .. }] = content {
        return json_object! {"role" => "user", "content" => text.as_str()};
    }
    let parts: Vec<Value> = content
        .iter()
        .filter_map(|c| match c {
            Content::Text { text, .. } => {
                Some(json_object! {"type" => "text", "text" => text.as_str()})
            }
            Content::Image { data, mime_type } => Some(image_part(mime_type, data)),
            _ => None,
        })
        .collect();
    json_object! {"role" => "user", "content" => parts}
}

/// Maps a `finish_reason`; `Err` carries an error message.
///
/// # Errors
///
/// The reason says the answer failed (`content_filter`, an unknown reason): the text is the error
/// message.
pub fn map_finish_reason(reason: &str) -> Result<StopReason, String> {
    match reason {
        "stop" | "end" | "eos" => Ok(StopReason::Stop),
        "length" => Ok(StopReason::Length),
        "tool_calls" | "function_call" => Ok(StopReason::ToolUse),
        "content_filter" => Err("the provider's content filter stopped the answer".into()),
        other => Err(format!("unknown finish_reason {other:?}")),
    }
}

/// Converts a Chat Completions `usage` object (`input` excludes cached tokens;
/// `completion_tokens` already includes reasoning tokens).
pub fn convert_usage(usage: &Value) -> Usage {
    let cached = count(&usage["prompt_tokens_details"]["cached_tokens"]);
    Usage {
        input: count(&usage["prompt_tokens"]).saturating_sub(cached),
        output: count(&usage["completion_tokens"]),
        cache_read: cached,
        cache_write: 0,
        total_tokens: count(&usage["total_tokens"]),
        ..Usage::default()
    }
}

/// The open block the next text or reasoning delta continues.
#[derive(Clone, Copy, PartialEq)]
enum Current {
    None,
    Text(usize),
    Thinking(usize),
}

/// The stream decoder. Only choice index 0 is read (focus never asks for `n > 1`).
#[derive(Default)]
pub struct Decoder {
    current: Option<Current>,
    /// Tool-call `index` → (our content index, id).
    calls: Vec<(u64, usize, String)>,
    done_seen: bool,
    finish_seen: bool,
}

impl Decoder {
    fn continue_block(&mut self, thinking: bool, out: &mut MessageBuilder<'_, '_>) -> usize {
        match self.current.unwrap_or(Current::None) {
            Current::Text(i) if !thinking => i,
            Current::Thinking(i) if thinking => i,
            other => {
                if let Current::Text(i) | Current::Thinking(i) = other {
                    out.close(i);
                }
                let i = if thinking {
                    out.open_thinking()
                } else {
                    out.open_text()
                };
                self.current = Some(if thinking {
                    Current::Thinking(i)
                } else {
                    Current::Text(i)
                });
                i
            }
        }
    }

    fn on_choice(&mut self, choice: &Value, out: &mut MessageBuilder<'_, '_>) {
        let delta = &choice["delta"];
        for field in REASONING_FIELDS {
            if let Some(text) = delta[field].as_str().filter(|t| !t.is_empty()) {
                let i = self.continue_block(true, out);
                out.set_signature(i, field);
                out.append(i, text);
                break;
            }
        }
        for field in ["content", "refusal"] {
            if let Some(text) = delta[field].as_str().filter(|t| !t.is_empty()) {
                let i = self.continue_block(false, out);
                out.append(i, text);
            }
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for call in calls {
                let index = count(&call["index"]);
                let id = call["id"].as_str().unwrap_or("");
                let existing = self
                    .calls
                    .iter()
                    .rev()
                    .find(|(k, _, _)| *k == index)
                    .filter(|(_, _, known)| id.is_empty() || known == id)
                    .map(|(_, i, _)| *i);
                let ours = match existing {
                    Some(i) => {
                        // A name split across chunks (`Ba` + `sh`), or sent only in a
                        // later chunk; servers that repeat it whole are not doubled.
                        if let Some(name) = call["function"]["name"].as_str() {
                            out.extend_tool_name(i, name);
                        }
                        i
                    }
                    None => {
                        if let Some(Current::Text(i) | Current::Thinking(i)) = self.current.take() {
                            out.close(i);
                        }
                        let name = call["function"]["name"].as_str().unwrap_or("");
                        let i = out.open_tool_call(id, name);
                        self.calls.push((index, i, id.to_string()));
                        i
                    }
                };
                if let Some(fragment) = call["function"]["arguments"].as_str() {
                    out.append_arguments(ours, fragment);
                }
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_seen = true;
            match map_finish_reason(reason) {
                Ok(r) => out.set_stop_reason(r),
                Err(e) => out.set_error(e),
            }
        }
    }
}

/// The error message in an `{"error": …}` object (OpenRouter adds the upstream
/// provider's raw text under `metadata.raw`).
pub fn error_message(error: &Value) -> String {
    let mut message = match error {
        Value::String(s) => s.clone(),
        _ => error["message"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| error.to_json_string()),
    };
    if let Some(raw) = error["metadata"]["raw"].as_str() {
        message.push_str(": ");
        message.push_str(raw);
    }
    message
}

impl StreamDecoder for Decoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder<'_, '_>) {
        if event.data.trim() == "[DONE]" {
            self.done_seen = true;
            return;
        }
        // Most chunks only add text: read those without building a tree.
        if event.event.is_empty() {
            if let Some(chunk) = text_chunk::read_text_chunk(&event.data) {
                if let Some(id) = chunk.id {
                    if out.message().response_id.is_none() {
                        out.set_response_id(&id);
                    }
                }
                if !chunk.text.is_empty() {
                    let i = self.continue_block(false, out);
                    out.append(i, &chunk.text);
                }
                return;
            }
        }
        let data = match event_json(event) {
            Ok(v) => v,
            Err(e) => return out.skip_event(e),
        };
        if let Some(id) = data["id"].as_str() {
            if out.message().response_id.is_none() {
                out.set_response_id(id);
            }
        }
        if !data["error"].is_null() {
            out.set_error(error_message(&data["error"]));
        } else if event.event == "error" {
            out.set_error(error_message(&data));
        }
        if let Some(choices) = data["choices"].as_array() {
            for choice in choices {
                if count(&choice["index"]) == 0 {
                    self.on_choice(choice, out);
                    if choice["usage"].as_object().is_some() {
                        out.set_usage(convert_usage(&choice["usage"]));
                    }
                }
            }
        }
        if data["usage"].as_object().is_some() {
            out.set_usage(convert_usage(&data["usage"]));
        }
    }

    fn is_done(&self) -> bool {
        self.done_seen
    }

    fn on_end(&mut self, out: &mut MessageBuilder<'_, '_>) {
        if !self.done_seen && !self.finish_seen {
            out.set_error("the stream ended before the model finished (no [DONE])");
        }
    }
}
