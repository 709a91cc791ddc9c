//! Google Gemini (`google-generative-ai`):
//! `POST {base}/models/{model}:streamGenerateContent?alt=sse`.
//!
//! Request traps: the system prompt is `systemInstruction`; roles are `user` and
//! `model`, and consecutive same-role turns are merged; a tool call goes back as a
//! `functionCall` part with its `thoughtSignature` byte for byte (Gemini 3 rejects a
//! call without one); a tool result is a `functionResponse` part in a user turn;
//! tool parameter schemas must use the OpenAPI subset Gemini accepts, so
//! [`clean_schema`] strips the rest (`$schema`, `additionalProperties`, …).
//!
//! Stream: every event is a whole `GenerateContentResponse` (CRLF framed). Parts
//! with `thought: true` are thinking; usage is cumulative and repeated, the last
//! one wins; `finishReason` `STOP` also follows a function call; a blocked prompt
//! has `promptFeedback.blockReason` and no candidates.

use crate::builder::MessageBuilder;
use crate::decode::{count, event_json, StreamDecoder};
use crate::history::{self, joined_text, same_model, Target};
use crate::ids::IdRule;
use focus_core::json::{Object, Value};
use focus_core::json_object;
use focus_core::message::{Content, Message, StopReason, ToolResultMessage, Usage};
use focus_core::provider::{ModelInfo, ModelRequest, ThinkingLevel, ToolSpec};
use focus_core::shared_text::SharedText;
use focus_transport::sse::SseEvent;

/// The wire API name.
pub const API: &str = "google-generative-ai";

/// A placeholder signature Gemini documents for calls that have none (history
/// from another model), so Gemini 3 does not reject them.
pub const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

/// The URL for `base_url` (e.g. `https://generativelanguage.googleapis.com/v1beta`).
pub fn url(base_url: &str, model_id: &str) -> String {
    format!(
        "{}/models/{model_id}:streamGenerateContent?alt=sse",
        base_url.trim_end_matches('/')
    )
}

/// Schema keywords Gemini's function declarations accept; everything else is dropped.
const SCHEMA_KEYS: [&str; 17] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "items",
];

/// Returns `schema` reduced to what Gemini accepts: unknown keywords are removed
/// (recursively through `properties`, `items`, `anyOf`), `const` becomes a one-value
/// `enum`, a type list like `["string","null"]` becomes `type` + `nullable`, and
/// `minimum`/`maximum` are kept.
pub fn clean_schema(schema: &Value) -> Value {
    let Some(obj) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Object::new();
    for (key, value) in obj.iter() {
        match key {
            "properties" => {
                let mut props = Object::new();
                if let Some(p) = value.as_object() {
                    for (name, sub) in p.iter() {
                        props.insert(name, clean_schema(sub));
                    }
                }
                out.insert("properties", props);
            }
            "items" => {
                out.insert("items", clean_schema(value));
            }
            "anyOf" | "oneOf" => {
                let list: Vec<Value> = value
                    .as_array()
                    .map(|a| a.iter().map(clean_schema).collect())
                    .unwrap_or_default();
                out.insert("anyOf", list);
            }
            "type" => match value {
                Value::Array(types) => {
                    let real: Vec<&Value> = types
                        .iter()
                        .filter(|t| t.as_str() != Some("null"))
                        .collect();
                    if real.len() < types.len() {
                        out.insert("nullable", true);
                    }
                    if let Some(first) = real.first() {
                        out.insert("type", (*first).clone());
                    }
                }
                other => {
                    out.insert("type", other.clone());
                }
            },
            "const" => {
                out.insert("enum", vec![value.clone()]);
            }
            "minimum" | "maximum" => {
                out.insert(key, value.clone());
            }
            k if SCHEMA_KEYS.contains(&k) => {
                out.insert(k, value.clone());
            }
            _ => {}
        }
    }
    Value::Object(out)
}

fn is_gemini3(model: &ModelInfo) -> bool {
    model.id.contains("gemini-3")
}

/// Builds the request body (pure; golden-tested).
pub fn build_request(model: &ModelInfo, request: &ModelRequest<'_>) -> Value {
    let mut body = Object::new();
    body.insert("contents", contents(model, request.messages));
    if !request.system_prompt.is_empty() {
        body.insert(
            "systemInstruction",
            json_object! {"parts" => vec![json_object! {"text" => request.system_prompt}]},
        );
    }
    if !request.tools.is_empty() {
        let declarations: Vec<Value> = request.tools.iter().map(function_declaration).collect();
        body.insert(
            "tools",
            vec![json_object! {"functionDeclarations" => declarations}],
        );
    }
    body.insert("generationConfig", generation_config(model, request));
    Value::Object(body)
}

/// The conversation as Gemini `contents`: the history repaired for this API,
/// each message as its parts (`user` or `model`), consecutive messages of one
/// role merged.
fn contents(model: &ModelInfo, messages: &[Message]) -> Vec<Value> {
    let target = Target {
        api: API,
        provider: &model.provider,
        model: &model.id,
        accepts_images: model.accepts_images,
        ids: IdRule::Any,
    };
    let history = history::repair(messages, &target);
    let mut contents: Vec<(&str, Vec<Value>)> = Vec::new();
    for message in &history {
        let (role, parts): (&str, Vec<Value>) = match message {
            Message::User(user) => ("user", user.content.iter().filter_map(user_part).collect()),
            Message::Assistant(assistant) => {
                let same = same_model(assistant, &target);
                let parts = assistant
                    .content
                    .iter()
                    .filter_map(|block| model_part(block, same, is_gemini3(model)))
                    .collect();
                ("model", parts)
            }
            Message::ToolResult(result) => ("user", function_response_parts(result)),
            Message::Custom(_) => continue,
        };
        if parts.is_empty() {
            continue;
        }
        match contents.last_mut() {
            Some((r, existing)) if *r == role => existing.extend(parts),
            _ => contents.push((role, parts)),
        }
    }
    contents
        .into_iter()
        .map(|(role, parts)| json_object! {"role" => role, "parts" => parts})
        .collect()
}

/// A tool result as a `functionResponse` part (its text under `output`, or
/// `error` when it failed; the call's id unless focus minted it), then its
/// images as inline data.
fn function_response_parts(result: &ToolResultMessage) -> Vec<Value> {
    let mut text = joined_text(&result.content);
    if text.is_empty() {
        text = if history::images(&result.content).is_empty() {
            "(no output)".into()
        } else {
            "(see attached image)".into()
        };
    }
    let key = if result.is_error { "error" } else { "output" };
    let mut response = Object::new();
    response.insert(key, text);
    let mut call = json_object! {"name" => result.tool_name.as_str(), "response" => response};
    if !result.tool_call_id.is_empty() && !result.tool_call_id.starts_with("gemini_") {
        call.as_object_mut()
            .unwrap()
            .insert("id", result.tool_call_id.as_str());
    }
    let mut parts = vec![json_object! {"functionResponse" => call}];
    parts.extend(
        history::images(&result.content)
            .into_iter()
            .map(|(m, d)| inline_data(m, d)),
    );
    parts
}

/// A tool the model may call, as a function declaration (its schema cleaned of
/// what Gemini refuses, [`clean_schema`]).
fn function_declaration(tool: &ToolSpec) -> Value {
    json_object! {
        "name" => tool.name.as_str(),
        "description" => tool.description.as_str(),
        "parameters" => clean_schema(&tool.parameters),
    }
}

/// `generationConfig`: the output cap (with room for the thinking budget,
/// which counts against it), the temperature, the thinking knobs.
fn generation_config(model: &ModelInfo, request: &ModelRequest<'_>) -> Object {
    let mut config = Object::new();
    // Thinking tokens count against maxOutputTokens: make room for the budget.
    let mut max_tokens = crate::thinking::max_tokens(model, request.options);
    if let (true, Some(budget)) = (
        model.reasoning,
        crate::thinking::budget(request.options.thinking),
    ) {
        max_tokens = max_tokens
            .saturating_add(budget)
            .min(model.max_tokens.max(max_tokens));
    }
    config.insert("maxOutputTokens", max_tokens);
    if let Some(t) = request.options.temperature {
        config.insert("temperature", t);
    }
    if model.reasoning {
        config.insert(
            "thinkingConfig",
            thinking_config(model, request.options.thinking),
        );
    }
    config
}

/// Gemini's thinking knobs: a `thinkingLevel` on Gemini 3, a token budget on 2.5.
fn thinking_config(model: &ModelInfo, level: ThinkingLevel) -> Value {
    if is_gemini3(model) {
        let name = match level {
            ThinkingLevel::Off | ThinkingLevel::Minimal | ThinkingLevel::Low => "LOW",
            ThinkingLevel::Medium if !model.id.contains("pro") => "MEDIUM",
            _ => "HIGH",
        };
        return json_object! {"thinkingLevel" => name, "includeThoughts" => level != ThinkingLevel::Off};
    }
    let pro = model.id.contains("pro");
    let budget: i64 = match level {
        // 2.5 Pro cannot switch thinking off; 128 is its least.
        ThinkingLevel::Off if pro => 128,
        ThinkingLevel::Off => 0,
        ThinkingLevel::Minimal => 128,
        ThinkingLevel::Low => 2048,
        ThinkingLevel::Medium => 8192,
        ThinkingLevel::High | ThinkingLevel::XHigh if pro => 32768,
        ThinkingLevel::High | ThinkingLevel::XHigh => 24576,
    };
    json_object! {"thinkingBudget" => budget, "includeThoughts" => level != ThinkingLevel::Off}
}

fn inline_data(mime: &str, data: &str) -> Value {
    json_object! {"inlineData" => json_object! {"mimeType" => mime, "data" => data}}
}

fn user_part(block: &Content) -> Option<Value> {
    match block {
        Content::Text { text, .. } if !text.is_empty() => {
            Some(json_object! {"text" => text.as_str()})
        }
        Content::Image { data, mime_type } => Some(inline_data(mime_type, data)),
        _ => None,
    }
}

fn model_part(block: &Content, same: bool, gemini3: bool) -> Option<Value> {
    let with_signature = |mut part: Value, sig: &Option<SharedText>| {
        if let (true, Some(sig)) = (same, sig) {
            part.as_object_mut()
                .unwrap()
                .insert("thoughtSignature", sig.as_str());
        }
        part
    };
    match block {
        Content::Text { text, signature } if !text.is_empty() => Some(with_signature(
            json_object! {"text" => text.as_str()},
            signature,
        )),
        Content::Thinking {
            thinking,
            signature,
            redacted: false,
        } if !thinking.is_empty() => Some(with_signature(
            json_object! {"text" => thinking.as_str(), "thought" => true},
            signature,
        )),
        Content::ToolCall(call) => {
            let mut fc = json_object! {
                "name" => call.name.as_str(),
                "args" => if call.arguments.as_object().is_some() { call.arguments.clone() } else { Value::Object(Object::new()) },
            };
            if !call.id.starts_with("gemini_") {
                fc.as_object_mut().unwrap().insert("id", call.id.as_str());
            }
            let mut part = json_object! {"functionCall" => fc};
            let sig = match (&call.thought_signature, same) {
                (Some(s), true) => Some(s.as_str()),
                _ if gemini3 => Some(SKIP_SIGNATURE),
                _ => None,
            };
            if let Some(sig) = sig {
                part.as_object_mut()
                    .unwrap()
                    .insert("thoughtSignature", sig);
            }
            Some(part)
        }
        _ => None,
    }
}

/// Converts `usageMetadata` (`output` includes thinking tokens; `input` excludes
/// cached ones).
pub fn convert_usage(usage: &Value) -> Usage {
    let cached = count(&usage["cachedContentTokenCount"]);
    Usage {
        input: count(&usage["promptTokenCount"]).saturating_sub(cached),
        output: count(&usage["candidatesTokenCount"])
            .saturating_add(count(&usage["thoughtsTokenCount"])),
        cache_read: cached,
        cache_write: 0,
        total_tokens: count(&usage["totalTokenCount"]),
        ..Usage::default()
    }
}

/// Maps a `finishReason`; `Err` carries an error message.
///
/// # Errors
///
/// The reason says the answer was blocked or failed (`SAFETY`, `RECITATION`, an unknown reason):
/// the text is the error message.
pub fn map_finish_reason(reason: &str) -> Result<StopReason, String> {
    match reason {
        "STOP" | "FINISH_REASON_UNSPECIFIED" => Ok(StopReason::Stop),
        "MAX_TOKENS" => Ok(StopReason::Length),
        other => Err(format!("Gemini stopped the answer (finishReason {other})")),
    }
}

/// The stream decoder.
#[derive(Default)]
pub struct Decoder {
    /// The open text or thinking block: (index, is thinking).
    current: Option<(usize, bool)>,
    calls: usize,
    finish_seen: bool,
}

impl StreamDecoder for Decoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder<'_, '_>) {
        let data = match event_json(event) {
            Ok(v) => v,
            Err(e) => return out.skip_event(e),
        };
        if !data["error"].is_null() {
            let message = data["error"]["message"].as_str().unwrap_or("unknown error");
            out.set_error(message.to_string());
            return;
        }
        if let Some(id) = data["responseId"].as_str() {
            out.set_response_id(id);
        }
        if data["usageMetadata"].as_object().is_some() {
            out.set_usage(convert_usage(&data["usageMetadata"]));
        }
        if let Some(reason) = data["promptFeedback"]["blockReason"].as_str() {
            self.finish_seen = true;
            out.set_error(format!("Gemini blocked the prompt (blockReason {reason})"));
        }
        let candidate = &data["candidates"][0];
        if let Some(parts) = candidate["content"]["parts"].as_array() {
            for part in parts {
                self.on_part(part, out);
            }
        }
        if let Some(reason) = candidate["finishReason"].as_str() {
            self.finish_seen = true;
            match map_finish_reason(reason) {
                Ok(r) => out.set_stop_reason(r),
                Err(e) => out.set_error(e),
            }
        }
    }

    fn on_end(&mut self, out: &mut MessageBuilder<'_, '_>) {
        if !self.finish_seen {
            out.set_error("the stream ended before the model finished (no finishReason)");
        }
    }
}

impl Decoder {
    fn on_part(&mut self, part: &Value, out: &mut MessageBuilder<'_, '_>) {
        let signature = part["thoughtSignature"].as_str();
        if let Some(text) = part["text"].as_str() {
            let thinking = part["thought"].as_bool() == Some(true);
            let index = match self.current {
                Some((i, t)) if t == thinking => i,
                other => {
                    if let Some((i, _)) = other {
                        out.close(i);
                    }
                    if text.is_empty() && signature.is_none() {
                        return; // an empty closing part opens nothing
                    }
                    let i = if thinking {
                        out.open_thinking()
                    } else {
                        out.open_text()
                    };
                    self.current = Some((i, thinking));
                    i
                }
            };
            out.append(index, text);
            if let Some(sig) = signature {
                out.set_signature(index, sig);
            }
        } else if part["functionCall"].as_object().is_some() {
            if let Some((i, _)) = self.current.take() {
                out.close(i);
            }
            let call = &part["functionCall"];
            let name = call["name"].as_str().unwrap_or("");
            self.calls += 1;
            let id = match call["id"].as_str() {
                Some(id) if !id.is_empty() => id.to_string(),
                // Gemini often sends no id; mint one that the request builder
                // recognises and leaves out again.
                // Unique across turns: the response id when there is one.
                _ => match out.message().response_id.clone() {
                    Some(rid) => format!("gemini_{name}_{rid}_{}", self.calls),
                    None => format!(
                        "gemini_{name}_{}_{}",
                        focus_core::message::now_ms(),
                        self.calls
                    ),
                },
            };
            let i = out.open_tool_call(&id, name);
            let args = match &call["args"] {
                v @ Value::Object(_) => v.clone(),
                _ => Value::Object(Object::new()),
            };
            out.set_arguments(i, args);
            if let Some(sig) = signature {
                out.set_signature(i, sig);
            }
            out.close(i);
        }
        // Other parts (executableCode, server toolCall/toolResponse…) are
        // server-side traffic: skipped.
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    #[test]
    fn schemas_are_reduced_to_what_gemini_accepts() {
        let schema = parse_str(
            r#"{"$schema":"x","type":"object","additionalProperties":false,"$defs":{"a":{}},
                "properties":{"mode":{"const":"fast"},"n":{"type":["integer","null"],"minimum":1,"default":3},
                "tags":{"type":"array","items":{"type":"string","examples":["a"]}},
                "pick":{"oneOf":[{"type":"string"},{"type":"number","exclusiveMinimum":0}]}},
                "required":["mode"]}"#,
        )
        .unwrap();
        let cleaned = clean_schema(&schema).to_json_string();
        assert_eq!(
            cleaned,
            r#"{"type":"object","properties":{"mode":{"enum":["fast"]},"n":{"nullable":true,"type":"integer","minimum":1},"tags":{"type":"array","items":{"type":"string"}},"pick":{"anyOf":[{"type":"string"},{"type":"number"}]}},"required":["mode"]}"#
        );
    }
}
