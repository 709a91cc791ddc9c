//! What a conversation is made of: messages and their content blocks.
//!
//! The JSON forms (see the `ToJson`/`FromJson` impls) are pi's, field for field, so a
//! session written by pi loads in focus and the other way round:
//! `{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1733234401000}`.

use crate::json::{FromJson, FromJsonError, Object, ToJson, Value};
pub use crate::shared_text::SharedText;

/// One block of message content.
#[derive(Clone, Debug, PartialEq)]
pub enum Content {
    /// Plain text. `signature` carries provider metadata for replay (OpenAI Responses
    /// message ids); JSON field `textSignature`.
    Text {
        text: SharedText,
        signature: Option<SharedText>,
    },
    /// Model reasoning. `signature` must go back to the provider unchanged (Anthropic's
    /// signature, a Responses reasoning item as JSON, the reasoning field name for Chat
    /// Completions). `redacted` marks Anthropic `redacted_thinking`, whose opaque data
    /// lives in `signature`.
    Thinking {
        thinking: SharedText,
        signature: Option<SharedText>,
        redacted: bool,
    },
    /// An image, base64-encoded. Never in assistant messages.
    Image { data: SharedText, mime_type: String },
    /// A call the model asks focus to make.
    ToolCall(ToolCall),
}

/// A tool call requested by the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The provider's id; the matching tool result carries it back.
    pub id: SharedText,
    /// The tool's name as the model spelled it.
    pub name: SharedText,
    /// The arguments, parsed (an object, `{}` when the model sent none).
    pub arguments: Value,
    /// Gemini's `thoughtSignature` (also used for other opaque per-call metadata).
    pub thought_signature: Option<SharedText>,
    /// Why the arguments the model streamed are not valid JSON (the parse error),
    /// when they are not. `arguments` then holds a lenient reading, to show and to
    /// send back; the loop never runs such a call and tells the model why. Not
    /// part of the JSON form: a session keeps the call and the error result.
    pub invalid_arguments: Option<String>,
}

/// Why an assistant message ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StopReason {
    /// The model finished its answer.
    #[default]
    Stop,
    /// The output token limit was hit.
    Length,
    /// The model wants tool calls run.
    ToolUse,
    /// The provider or the transport failed; see `error_message`.
    Error,
    /// The user aborted; content so far is kept.
    Aborted,
}

/// Tokens and money spent on one model call.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Usage {
    /// Input tokens not read from the cache.
    pub input: u64,
    /// Output tokens (reasoning included).
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// The total the provider reported, or the sum of the four above.
    pub total_tokens: u64,
    /// Cost in US dollars, by the same four parts.
    pub cost: Cost,
    /// The server sent no counts: these are focus's estimate (about four
    /// characters a token, from the request's and the answer's size). Shown
    /// with a `~`; written as `"estimated": true` only when set.
    pub estimated: bool,
}

/// Cost in US dollars.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Cost {
    /// For `Usage::input`.
    pub input: f64,
    /// For `Usage::output`.
    pub output: f64,
    /// For `Usage::cache_read`.
    pub cache_read: f64,
    /// For `Usage::cache_write`.
    pub cache_write: f64,
    /// The sum.
    pub total: f64,
}

/// A message from the user: text and images.
#[derive(Clone, Debug, PartialEq)]
pub struct UserMessage {
    /// Text and image blocks.
    pub content: Vec<Content>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
}

/// A message from the model.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks, in the order the model produced them.
    pub content: Vec<Content>,
    /// The wire API used (`anthropic-messages`, `openai-completions`, …).
    pub api: SharedText,
    /// The provider name (`anthropic`, `openai`, `ollama`, …).
    pub provider: SharedText,
    /// The model id.
    pub model: SharedText,
    /// Token counts and cost.
    pub usage: Usage,
    /// Why the message ended.
    pub stop_reason: StopReason,
    /// The provider's or transport's message when `stop_reason` is `Error` or `Aborted`.
    pub error_message: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// The provider's response id, when it gave one.
    pub response_id: Option<String>,
}

/// The result of one tool call, sent back to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResultMessage {
    /// The id of the tool call this answers.
    pub tool_call_id: SharedText,
    /// The tool's name.
    pub tool_name: SharedText,
    /// Text and image blocks for the model.
    pub content: Vec<Content>,
    /// Structured details for the user interface; `Value::Null` when none.
    pub details: Value,
    /// Whether the call failed.
    pub is_error: bool,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
}

/// A message kind the model never sees directly (pi's `bashExecution`, `custom`,
/// `compactionSummary`, `branchSummary`…). The agent's `convert_to_llm` step turns it
/// into a user message or drops it. The original JSON is kept whole for round trips.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomMessage {
    /// The `role` field.
    pub role: String,
    /// The whole message as JSON.
    pub raw: Value,
}

/// A message in an agent's history.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// From the user.
    User(UserMessage),
    /// From the model.
    Assistant(AssistantMessage),
    /// A tool's answer to a call.
    ToolResult(ToolResultMessage),
    /// Anything else (not sent to the model as is).
    Custom(CustomMessage),
}

impl StopReason {
    /// The wire spelling: `stop`, `length`, `toolUse`, `error`, `aborted`.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Stop => "stop",
            StopReason::Length => "length",
            StopReason::ToolUse => "toolUse",
            StopReason::Error => "error",
            StopReason::Aborted => "aborted",
        }
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<StopReason> {
        Some(match s {
            "stop" => StopReason::Stop,
            "length" => StopReason::Length,
            "toolUse" => StopReason::ToolUse,
            "error" => StopReason::Error,
            "aborted" => StopReason::Aborted,
            _ => return None,
        })
    }
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<SharedText>) -> Content {
        Content::Text {
            text: text.into(),
            signature: None,
        }
    }

    /// The text if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text, .. } => Some(text),
            _ => None,
        }
    }
}

impl UserMessage {
    /// A user message with one text block.
    pub fn text(text: impl Into<SharedText>, timestamp: u64) -> UserMessage {
        UserMessage {
            content: vec![Content::text(text)],
            timestamp,
        }
    }
}

impl AssistantMessage {
    /// The tool calls in this message, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|c| match c {
            Content::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    /// All text blocks joined (no separator).
    pub fn text(&self) -> String {
        self.content.iter().filter_map(Content::as_text).collect()
    }
}

impl Message {
    /// The `role` spelling: `user`, `assistant`, `toolResult`, or the custom role.
    pub fn role(&self) -> &str {
        match self {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::ToolResult(_) => "toolResult",
            Message::Custom(c) => &c.role,
        }
    }

    /// The assistant message, if this is one.
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            Message::Assistant(m) => Some(m),
            _ => None,
        }
    }
}

/// Milliseconds since the Unix epoch, now (0 if the clock is before 1970).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

// ---- JSON forms ----

impl ToJson for ToolCall {
    fn to_json(&self) -> Value {
        let mut o = Object::new();
        o.push("type".into(), "toolCall".into());
        o.push("id".into(), self.id.as_str().into());
        o.push("name".into(), self.name.as_str().into());
        o.push("arguments".into(), self.arguments.clone());
        if let Some(sig) = &self.thought_signature {
            o.push("thoughtSignature".into(), sig.as_str().into());
        }
        Value::Object(o)
    }
}

impl FromJson for ToolCall {
    fn from_json(v: &Value) -> Result<ToolCall, FromJsonError> {
        Ok(ToolCall {
            id: v.field("id")?,
            name: v.field("name")?,
            arguments: v
                .opt_field::<Value>("arguments")?
                .unwrap_or_else(|| Value::Object(Object::new())),
            thought_signature: v.opt_field("thoughtSignature")?,
            invalid_arguments: None,
        })
    }
}

impl ToJson for Content {
    fn to_json(&self) -> Value {
        let mut o = Object::new();
        match self {
            Content::Text { text, signature } => {
                o.push("type".into(), "text".into());
                o.push("text".into(), text.as_str().into());
                if let Some(sig) = signature {
                    o.push("textSignature".into(), sig.as_str().into());
                }
            }
            Content::Thinking {
                thinking,
                signature,
                redacted,
            } => {
                o.push("type".into(), "thinking".into());
                o.push("thinking".into(), thinking.as_str().into());
                if let Some(sig) = signature {
                    o.push("thinkingSignature".into(), sig.as_str().into());
                }
                if *redacted {
                    o.push("redacted".into(), true.into());
                }
            }
            Content::Image { data, mime_type } => {
                o.push("type".into(), "image".into());
                o.push("data".into(), data.as_str().into());
                o.push("mimeType".into(), mime_type.as_str().into());
            }
            Content::ToolCall(call) => return call.to_json(),
        }
        Value::Object(o)
    }
}

impl FromJson for Content {
    fn from_json(v: &Value) -> Result<Content, FromJsonError> {
        let kind: String = v.field("type")?;
        Ok(match kind.as_str() {
            "text" => Content::Text {
                text: v.field("text")?,
                signature: v.opt_field("textSignature")?,
            },
            "thinking" => Content::Thinking {
                thinking: v.field("thinking")?,
                signature: v.opt_field("thinkingSignature")?,
                redacted: v.opt_field("redacted")?.unwrap_or(false),
            },
            "image" => Content::Image {
                data: v.field("data")?,
                mime_type: v.field("mimeType")?,
            },
            "toolCall" => Content::ToolCall(ToolCall::from_json(v)?),
            other => {
                return Err(FromJsonError::new(format!(
                    "unknown content type {other:?} (expected text, thinking, image or toolCall)"
                ))
                .at_key("type"))
            }
        })
    }
}

/// Reads `content`, which pi allows to be a plain string for user messages.
fn content_field(v: &Value) -> Result<Vec<Content>, FromJsonError> {
    match v.get("content") {
        Some(Value::String(s)) => Ok(vec![Content::text(s.as_str())]),
        Some(Value::Null) | None => Ok(Vec::new()),
        Some(_) => v.field("content"),
    }
}

impl ToJson for Usage {
    fn to_json(&self) -> Value {
        let mut usage = crate::json_object! {
            "input" => self.input,
            "output" => self.output,
            "cacheRead" => self.cache_read,
            "cacheWrite" => self.cache_write,
            "totalTokens" => self.total_tokens,
            "cost" => crate::json_object! {
                "input" => self.cost.input,
                "output" => self.cost.output,
                "cacheRead" => self.cost.cache_read,
                "cacheWrite" => self.cost.cache_write,
                "total" => self.cost.total,
            },
        };
        if self.estimated {
            if let Value::Object(o) = &mut usage {
                o.push("estimated".into(), true.into());
            }
        }
        usage
    }
}

impl FromJson for Usage {
    fn from_json(v: &Value) -> Result<Usage, FromJsonError> {
        let cost = match v.get("cost") {
            Some(c @ Value::Object(_)) => Cost {
                input: c.opt_field("input")?.unwrap_or(0.0),
                output: c.opt_field("output")?.unwrap_or(0.0),
                cache_read: c.opt_field("cacheRead")?.unwrap_or(0.0),
                cache_write: c.opt_field("cacheWrite")?.unwrap_or(0.0),
                total: c.opt_field("total")?.unwrap_or(0.0),
            },
            _ => Cost::default(),
        };
        Ok(Usage {
            input: v.opt_field("input")?.unwrap_or(0),
            output: v.opt_field("output")?.unwrap_or(0),
            cache_read: v.opt_field("cacheRead")?.unwrap_or(0),
            cache_write: v.opt_field("cacheWrite")?.unwrap_or(0),
            total_tokens: v.opt_field("totalTokens")?.unwrap_or(0),
            cost,
            estimated: v.opt_field("estimated")?.unwrap_or(false),
        })
    }
}

impl ToJson for Message {
    fn to_json(&self) -> Value {
        let mut o = Object::new();
        match self {
            Message::User(m) => {
                o.push("role".into(), "user".into());
                o.push("content".into(), m.content.to_json());
                o.push("timestamp".into(), m.timestamp.into());
            }
            Message::Assistant(m) => {
                o.push("role".into(), "assistant".into());
                o.push("content".into(), m.content.to_json());
                o.push("api".into(), m.api.as_str().into());
                o.push("provider".into(), m.provider.as_str().into());
                o.push("model".into(), m.model.as_str().into());
                o.push("usage".into(), m.usage.to_json());
                o.push("stopReason".into(), m.stop_reason.as_str().into());
                if let Some(e) = &m.error_message {
                    o.push("errorMessage".into(), e.as_str().into());
                }
                o.push("timestamp".into(), m.timestamp.into());
                if let Some(id) = &m.response_id {
                    o.push("responseId".into(), id.as_str().into());
                }
            }
            Message::ToolResult(m) => {
                o.push("role".into(), "toolResult".into());
                o.push("toolCallId".into(), m.tool_call_id.as_str().into());
                o.push("toolName".into(), m.tool_name.as_str().into());
                o.push("content".into(), m.content.to_json());
                if !m.details.is_null() {
                    o.push("details".into(), m.details.clone());
                }
                o.push("isError".into(), m.is_error.into());
                o.push("timestamp".into(), m.timestamp.into());
            }
            Message::Custom(c) => return c.raw.clone(),
        }
        Value::Object(o)
    }
}

impl FromJson for Message {
    fn from_json(v: &Value) -> Result<Message, FromJsonError> {
        let role: String = v.field("role")?;
        let timestamp = v.opt_field::<f64>("timestamp")?.map_or(0, |t| t as u64);
        Ok(match role.as_str() {
            "user" => Message::User(UserMessage {
                content: content_field(v)?,
                timestamp,
            }),
            "assistant" => {
                let reason: String = v.opt_field("stopReason")?.unwrap_or_else(|| "stop".into());
                let stop_reason = StopReason::parse(&reason).ok_or_else(|| {
                    FromJsonError::new(format!("unknown stop reason {reason:?}"))
                        .at_key("stopReason")
                })?;
                Message::Assistant(AssistantMessage {
                    content: content_field(v)?,
                    api: v.opt_field("api")?.unwrap_or_default(),
                    provider: v.opt_field("provider")?.unwrap_or_default(),
                    model: v.opt_field("model")?.unwrap_or_default(),
                    usage: v.opt_field("usage")?.unwrap_or_default(),
                    stop_reason,
                    error_message: v.opt_field("errorMessage")?,
                    timestamp,
                    response_id: v.opt_field("responseId")?,
                })
            }
            "toolResult" => Message::ToolResult(ToolResultMessage {
                tool_call_id: v.field("toolCallId")?,
                tool_name: v.opt_field("toolName")?.unwrap_or_default(),
                content: content_field(v)?,
                details: v.get("details").cloned().unwrap_or(Value::Null),
                is_error: v.opt_field("isError")?.unwrap_or(false),
                timestamp,
            }),
            _ => Message::Custom(CustomMessage {
                role,
                raw: v.clone(),
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;

    #[test]
    fn pi_assistant_message_round_trips() {
        let text = r#"{"role":"assistant","content":[{"type":"text","text":"I will run a command."},{"type":"toolCall","id":"toolu_1","name":"bash","arguments":{"command":"echo hi"}}],"api":"anthropic-messages","provider":"mock","model":"m","usage":{"input":100,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":103,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1796222846203,"responseId":"msg_mock2"}"#;
        let value = parse_str(text).unwrap();
        let message = Message::from_json(&value).unwrap();
        let Message::Assistant(m) = &message else {
            panic!("not assistant")
        };
        assert_eq!(m.stop_reason, StopReason::ToolUse);
        assert_eq!(
            m.tool_calls().next().unwrap().arguments["command"].as_str(),
            Some("echo hi")
        );
        let again = Message::from_json(&message.to_json()).unwrap();
        assert_eq!(again, message);
    }

    #[test]
    fn user_content_may_be_a_string_and_errors_name_the_path() {
        let m = Message::from_json(
            &parse_str(r#"{"role":"user","content":"Hello","timestamp":1}"#).unwrap(),
        )
        .unwrap();
        assert_eq!(m, Message::User(UserMessage::text("Hello", 1)));
        let bad = parse_str(r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":7}]}"#)
            .unwrap();
        let err = Message::from_json(&bad).unwrap_err();
        assert_eq!(
            err.to_string(),
            "content[1].type: expected string, found number"
        );
    }
}
