//! OpenAI Responses (`openai-responses`): `POST {base}/responses`.
//!
//! Request traps: the history is a flat list of *input items*, not messages: user
//! and assistant messages, `reasoning` items (sent back whole, encrypted content
//! included, because focus sends `store: false`), `function_call` items and
//! `function_call_output` items paired by `call_id`. Tools are flat
//! (`{type, name, parameters}`), unlike Chat Completions. focus stores a call's id as
//! `call_id|item_id` so both halves survive a round trip.
//!
//! Stream: typed `response.*` events. Output items open with
//! `response.output_item.added` and close with `response.output_item.done`, keyed by
//! `output_index`; deltas arrive as `response.output_text.delta`,
//! `response.reasoning_summary_text.delta`, `response.reasoning_text.delta` and
//! `response.function_call_arguments.delta`. Usage and the final status come in
//! `response.completed` (or `response.incomplete` / `response.failed`). Some servers
//! send no `event:` lines, so the JSON `type` is what is dispatched on.

use crate::builder::MessageBuilder;
use crate::decode::{count, event_json, StreamDecoder};
use crate::history::{self, joined_text, same_model, Target};
use crate::ids::IdRule;
use focus_core::json::{parse_str, Object, Value};
use focus_core::json_object;
use focus_core::message::{
    AssistantMessage, Content, Message, StopReason, ToolResultMessage, Usage,
};
use focus_core::provider::{ModelInfo, ModelRequest, ThinkingLevel, ToolSpec};
use focus_transport::sse::SseEvent;

/// The wire API name.
pub const API: &str = "openai-responses";

/// The URL for `base_url` (e.g. `https://api.openai.com/v1`).
pub fn url(base_url: &str) -> String {
    format!("{}/responses", base_url.trim_end_matches('/'))
}

/// Splits focus's stored id `call_id|item_id` into its halves.
pub fn split_id(id: &str) -> (&str, Option<&str>) {
    match id.split_once('|') {
        Some((call, item)) => (call, Some(item)),
        None => (id, None),
    }
}

/// Builds the request body (pure; golden-tested).
pub fn build_request(model: &ModelInfo, request: &ModelRequest<'_>) -> Value {
    let mut body = Object::new();
    body.insert("model", model.id.as_str());
    body.insert("stream", true);
    body.insert("store", false);
    if !request.system_prompt.is_empty() {
        body.insert("instructions", request.system_prompt);
    }
    body.insert("input", input_items(model, request.messages));
    body.insert(
        "max_output_tokens",
        crate::thinking::max_tokens(model, request.options),
    );
    if let Some(t) = request.options.temperature {
        body.insert("temperature", t);
    }
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request.tools.iter().map(tool_definition).collect();
        body.insert("tools", tools);
    }
    if model.reasoning {
        insert_reasoning(&mut body, model, request.options.thinking);
    }
    if let Some(key) = &request.options.session_id {
        body.insert("prompt_cache_key", key.as_str());
    }
    Value::Object(body)
}

/// The conversation as Responses `input` items: the history repaired for this
/// API, each message as the items it becomes.
fn input_items(model: &ModelInfo, messages: &[Message]) -> Vec<Value> {
    let target = Target {
        api: API,
        provider: &model.provider,
        model: &model.id,
        accepts_images: model.accepts_images,
        ids: IdRule::OpenAiResponses,
    };
    let history = history::repair(messages, &target);
    let mut input: Vec<Value> = Vec::new();
    for message in &history {
        match message {
            Message::User(user) => {
                input.push(json_object! {"role" => "user", "content" => input_parts(&user.content)})
            }
            Message::Assistant(assistant) => {
                let same = same_model(assistant, &target);
                assistant_items(assistant, same, &mut input);
            }
            Message::ToolResult(result) => tool_result_items(result, &mut input),
            Message::Custom(_) => {}
        }
    }
    input
}

/// Pushes the items an assistant message becomes: its reasoning items (only
/// back to the model that wrote them, `same`), `message` items for its text and
/// `function_call` items for its tool calls (with their item ids when `same`).
fn assistant_items(assistant: &AssistantMessage, same: bool, input: &mut Vec<Value>) {
    for block in &assistant.content {
        match block {
            Content::Thinking {
                signature: Some(item),
                ..
            } if same => {
                if let Ok(item @ Value::Object(_)) = parse_str(item) {
                    input.push(item);
                }
            }
            Content::Thinking { .. } => {}
            Content::Text { text, signature } => {
                let mut o = json_object! {
                    "type" => "message",
                    "role" => "assistant",
                    "content" => vec![json_object! {"type" => "output_text", "text" => text.as_str(), "annotations" => Vec::<Value>::new()}],
                    "status" => "completed",
                };
                if let (true, Some(id)) = (same, signature.as_deref().and_then(message_id)) {
                    o.as_object_mut().unwrap().insert("id", id);
                }
                input.push(o);
            }
            Content::ToolCall(call) => {
                let (call_id, item_id) = split_id(&call.id);
                let mut o = json_object! {
                    "type" => "function_call",
                    "call_id" => call_id,
                    "name" => call.name.as_str(),
                    "arguments" => call.arguments.to_json_string(),
                };
                if let (true, Some(item)) = (same, item_id) {
                    o.as_object_mut().unwrap().insert("id", item);
                }
                input.push(o);
            }
            Content::Image { .. } => {}
        }
    }
}

/// Pushes the items a tool result becomes: a `function_call_output` (its
/// text, or a placeholder when it has none), then a user message with the
/// images it returned, if any.
fn tool_result_items(result: &ToolResultMessage, input: &mut Vec<Value>) {
    let (call_id, _) = split_id(&result.tool_call_id);
    let mut text = joined_text(&result.content);
    let pictures = history::images(&result.content);
    if text.is_empty() {
        text = if pictures.is_empty() {
            "(no output)".into()
        } else {
            "(see attached image)".into()
        };
    }
    input.push(json_object! {
        "type" => "function_call_output",
        "call_id" => call_id,
        "output" => text,
    });
    if !pictures.is_empty() {
        let mut parts = vec![
            json_object! {"type" => "input_text", "text" => "Attached image(s) from tool result:"},
        ];
        parts.extend(pictures.into_iter().map(|(m, d)| input_image(m, d)));
        input.push(json_object! {"role" => "user", "content" => parts});
    }
}

/// A tool the model may call, as a Responses `function` tool.
fn tool_definition(tool: &ToolSpec) -> Value {
    json_object! {
        "type" => "function",
        "name" => tool.name.as_str(),
        "description" => tool.description.as_str(),
        "parameters" => tool.parameters.clone(),
        "strict" => false,
    }
}

/// The thinking `level` asked, as `reasoning.effort` (with encrypted reasoning
/// asked back, so it can be replayed); a model that cannot turn reasoning off
/// gets its lowest effort. For reasoning models only.
fn insert_reasoning(body: &mut Object, model: &ModelInfo, level: ThinkingLevel) {
    let effort = crate::thinking::effort(level, crate::thinking::supports_xhigh(&model.id));
    if let (None, Some(off)) = (effort, crate::thinking::off_effort(&model.id)) {
        body.insert("reasoning", json_object! {"effort" => off});
    }
    if let Some(effort) = effort {
        body.insert(
            "reasoning",
            json_object! {"effort" => effort, "summary" => "auto"},
        );
        body.insert("include", vec!["reasoning.encrypted_content"]);
    }
}

/// The text signature stored for an assistant message item: pi's
/// `TextSignatureV1`, `{"v":1,"id":"msg_…"}`, so sessions move between pi and focus.
pub fn text_signature(message_id: &str) -> String {
    json_object! {"v" => 1, "id" => message_id}.to_json_string()
}

/// The message item id in a text signature (pi's JSON form, or a bare `msg_…`).
pub fn message_id(signature: &str) -> Option<String> {
    if let Ok(v) = parse_str(signature) {
        return v["id"].as_str().map(str::to_string);
    }
    signature.starts_with("msg_").then(|| signature.to_string())
}

fn input_image(mime: &str, data: &str) -> Value {
    json_object! {"type" => "input_image", "image_url" => format!("data:{mime};base64,{data}")}
}

fn input_parts(content: &[Content]) -> Vec<Value> {
    content
        .iter()
        .filter_map(|c| match c {
            Content::Text { text, .. } => {
                Some(json_object! {"type" => "input_text", "text" => text.as_str()})
            }
            Content::Image { data, mime_type } => Some(input_image(mime_type, data)),
            _ => None,
        })
        .collect()
}

/// Converts a Responses `usage` object (`input` excludes cached tokens).
pub fn convert_usage(usage: &Value) -> Usage {
    let cached = count(&usage["input_tokens_details"]["cached_tokens"]);
    Usage {
        input: count(&usage["input_tokens"]).saturating_sub(cached),
        output: count(&usage["output_tokens"]),
        cache_read: cached,
        cache_write: 0,
        total_tokens: count(&usage["total_tokens"]),
        ..Usage::default()
    }
}

/// The stream decoder.
#[derive(Default)]
pub struct Decoder {
    /// `output_index` → our content index (server-side items map to nothing).
    items: Vec<(u64, usize)>,
    finished: bool,
}

impl Decoder {
    fn item(&self, data: &Value) -> Option<usize> {
        let key = count(&data["output_index"]);
        self.items
            .iter()
            .rev()
            .find(|(k, _)| *k == key)
            .map(|(_, i)| *i)
    }
}

impl StreamDecoder for Decoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder<'_, '_>) {
        if event.data.trim() == "[DONE]" {
            return;
        }
        let data = match event_json(event) {
            Ok(v) => v,
            Err(e) => return out.skip_event(e),
        };
        let kind = data["type"].as_str().unwrap_or(event.event.as_str());
        match kind {
            "response.created" => {
                out.set_response_id(data["response"]["id"].as_str().unwrap_or(""));
            }
            "response.output_item.added" => {
                let item = &data["item"];
                let ours = match item["type"].as_str().unwrap_or("") {
                    "reasoning" => Some(out.open_thinking()),
                    "message" => Some(out.open_text()),
                    "function_call" => {
                        let id = format!(
                            "{}|{}",
                            item["call_id"].as_str().unwrap_or(""),
                            item["id"].as_str().unwrap_or("")
                        );
                        Some(out.open_tool_call(&id, item["name"].as_str().unwrap_or("")))
                    }
                    _ => None, // web_search_call and other server-side items
                };
                if let Some(i) = ours {
                    self.items.push((count(&data["output_index"]), i));
                }
            }
            "response.reasoning_summary_part.added" => {
                if let Some(i) = self.item(&data) {
                    if count(&data["summary_index"]) > 0 {
                        out.append(i, "\n\n");
                    }
                }
            }
            "response.reasoning_summary_text.delta"
            | "response.reasoning_text.delta"
            | "response.output_text.delta"
            | "response.refusal.delta" => {
                if let Some(i) = self.item(&data) {
                    out.append(i, data["delta"].as_str().unwrap_or(""));
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(i) = self.item(&data) {
                    out.append_arguments(i, data["delta"].as_str().unwrap_or(""));
                }
            }
            "response.output_item.done" => {
                let Some(i) = self.item(&data) else { return };
                let item = &data["item"];
                match item["type"].as_str().unwrap_or("") {
                    "reasoning" => out.set_signature(i, &item.to_json_string()),
                    "message" => {
                        if let Some(id) = item["id"].as_str() {
                            out.set_signature(i, &text_signature(id));
                        }
                    }
                    // The item repeats the arguments whole: take them only when
                    // none were streamed.
                    "function_call" if !out.has_argument_text(i) => {
                        if let Some(args) = item["arguments"].as_str() {
                            out.append_arguments(i, args);
                        }
                    }
                    _ => {}
                }
                out.close(i);
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.finished = true;
                let response = &data["response"];
                if response["usage"].as_object().is_some() {
                    out.set_usage(convert_usage(&response["usage"]));
                }
                match response["status"].as_str().unwrap_or("completed") {
                    "completed" | "in_progress" | "queued" => out.set_stop_reason(StopReason::Stop),
                    "incomplete" => {
                        let why = response["incomplete_details"]["reason"].as_str();
                        if why == Some("content_filter") {
                            out.set_error("the provider's content filter stopped the answer");
                        } else {
                            out.set_stop_reason(StopReason::Length);
                        }
                    }
                    status => {
                        let message = response["error"]["message"]
                            .as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| format!("the response ended with status {status}"));
                        out.set_error(message);
                    }
                }
            }
            "error" => {
                let message = data["message"]
                    .as_str()
                    .or(data["error"]["message"].as_str())
                    .unwrap_or("unknown error");
                let code = data["code"].as_str().or(data["error"]["code"].as_str());
                out.set_error(match code {
                    Some(code) => format!("{code}: {message}"),
                    None => message.to_string(),
                });
            }
            _ => {}
        }
    }

    fn is_done(&self) -> bool {
        self.finished
    }

    fn on_end(&mut self, out: &mut MessageBuilder<'_, '_>) {
        if !self.finished {
            out.set_error("the stream ended before the response completed");
        }
    }
}
