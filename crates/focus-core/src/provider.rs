//! How the agent calls a model: the [`Provider`] trait and the provider-neutral
//! stream of [`StreamEvent`]s it reports.
//!
//! A provider turns focus's history into one API's wire format, sends it, and
//! decodes the streamed answer. It knows nothing of the agent loop; the loop knows
//! nothing of HTTP. Contract: once [`Provider::stream`] is called, every failure is
//! reported in the returned message (`stop_reason` `Error` or `Aborted`, with
//! `error_message`), never by panicking, and exactly one terminal event (`Done` or
//! `Error`) is emitted last.

use crate::cancel::CancelToken;
use crate::json::Value;
use crate::message::{AssistantMessage, Message, StopReason};

/// How hard a reasoning model should think.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ThinkingLevel {
    /// No reasoning (or the least the model allows).
    #[default]
    Off,
    /// The smallest budget.
    Minimal,
    /// A small budget.
    Low,
    /// A medium budget.
    Medium,
    /// A large budget.
    High,
    /// The largest budget the model offers.
    XHigh,
}

impl ThinkingLevel {
    /// All levels, in increasing order.
    pub const ALL: [ThinkingLevel; 6] = [
        ThinkingLevel::Off,
        ThinkingLevel::Minimal,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
        ThinkingLevel::XHigh,
    ];

    /// The spelling used in flags, settings and sessions: `off` … `xhigh`.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingLevel::Off => "off",
            ThinkingLevel::Minimal => "minimal",
            ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            ThinkingLevel::High => "high",
            ThinkingLevel::XHigh => "xhigh",
        }
    }

    /// Parses the spelling of [`ThinkingLevel::as_str`].
    pub fn parse(s: &str) -> Option<ThinkingLevel> {
        ThinkingLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == s)
    }
}

/// A tool as the model sees it: a name, a description and a JSON Schema.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, written for a model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// What a model is and what it can do. The registry (in focus-providers) fills these;
/// the harness reads `context_window` for compaction.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModelInfo {
    /// The id sent to the API (`claude-sonnet-4-5`, `gpt-4o`, `llama3.2`…).
    pub id: String,
    /// A human-friendly name.
    pub name: String,
    /// The wire API: `anthropic-messages`, `openai-completions`, `openai-responses`,
    /// `google-generative-ai`.
    pub api: String,
    /// The provider name (`anthropic`, `openai`, `ollama`…).
    pub provider: String,
    /// The API base URL.
    pub base_url: String,
    /// Context window in tokens.
    pub context_window: u64,
    /// Whether `context_window` is a guess: neither the server (llama.cpp's
    /// `/props`, a `/v1/models` entry) nor models.json said it. The footer and
    /// `/session` say so.
    pub context_window_assumed: bool,
    /// The most output tokens one call may produce.
    pub max_tokens: u64,
    /// Whether the model supports reasoning.
    pub reasoning: bool,
    /// Whether the model accepts images.
    pub accepts_images: bool,
    /// Dollars per million tokens: input, output, cache read, cache write.
    pub price: Price,
}

impl ModelInfo {
    /// How the model is named to the user: [`model_label`] of its provider and id.
    pub fn label(&self) -> String {
        model_label(&self.provider, &self.id)
    }
}

/// `provider/id`, as models are named on the command line; an id that is a file
/// path (llama.cpp lists its model as `/models/qwen.gguf`) reads
/// `provider:/models/qwen.gguf` instead of `provider//models/qwen.gguf`.
pub fn model_label(provider: &str, id: &str) -> String {
    if id.starts_with('/') {
        format!("{provider}:{id}")
    } else {
        format!("{provider}/{id}")
    }
}

/// Dollars per million tokens.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Price {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cache reads.
    pub cache_read: f64,
    /// Cache writes.
    pub cache_write: f64,
}

/// Per-call knobs.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RequestOptions {
    /// Reasoning effort.
    pub thinking: ThinkingLevel,
    /// Output token cap; `None` uses the model's `max_tokens`.
    pub max_tokens: Option<u64>,
    /// Sampling temperature; `None` leaves the provider default.
    pub temperature: Option<f64>,
    /// A stable id for the conversation (some providers use it for caching).
    pub session_id: Option<String>,
}

/// Everything one model call needs.
#[derive(Clone, Copy, Debug)]
pub struct ModelRequest<'a> {
    /// The system prompt.
    pub system_prompt: &'a str,
    /// The history, already converted for the model (no `Message::Custom`).
    pub messages: &'a [Message],
    /// The tools the model may call.
    pub tools: &'a [ToolSpec],
    /// Per-call knobs.
    pub options: &'a RequestOptions,
    /// What stops the call: once it fires, the provider ends the message with
    /// `StopReason::Aborted` (pi's `signal` in a stream's options).
    pub cancel: &'a CancelToken,
}

/// One step of a streamed assistant message. `index` is the position of the block in
/// `AssistantMessage::content`; each event is delivered together with the partial
/// message it has just been applied to.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// The stream has begun; the partial message is empty.
    Start,
    /// A text block opened.
    TextStart { index: usize },
    /// Text appended to a block.
    TextDelta { index: usize, delta: String },
    /// A text block is complete.
    TextEnd { index: usize },
    /// A thinking block opened.
    ThinkingStart { index: usize },
    /// Reasoning appended to a block.
    ThinkingDelta { index: usize, delta: String },
    /// A thinking block is complete.
    ThinkingEnd { index: usize },
    /// A tool-call block opened (its id and name are known).
    ToolCallStart { index: usize },
    /// A fragment of the arguments' JSON text. The partial message's arguments stay
    /// as they opened (`{}`) until `ToolCallEnd`: parsing a growing text on every
    /// fragment would cost the square of its length.
    ToolCallDelta { index: usize, delta: String },
    /// A tool call is complete, its arguments parsed strictly (see
    /// `ToolCall::invalid_arguments` for text that was not valid JSON).
    ToolCallEnd { index: usize },
    /// The previous attempt failed before anything was streamed (an overload, a
    /// rate limit, a dropped connection); the provider waits `delay_ms` and makes
    /// attempt number `attempt` of at most `max_attempts`. Comes before `Start`,
    /// never after it (nothing is retried once the answer has begun).
    Retry {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        error: String,
    },
    /// The message ended normally (`Stop`, `Length` or `ToolUse`).
    Done { reason: StopReason },
    /// The message ended in failure (`Error` or `Aborted`); see `error_message`.
    Error { reason: StopReason },
}

impl StreamEvent {
    /// The index of the block the event is about (`None` for `Start`, `Done`, `Error`).
    pub fn index(&self) -> Option<usize> {
        match self {
            StreamEvent::TextStart { index }
            | StreamEvent::TextDelta { index, .. }
            | StreamEvent::TextEnd { index }
            | StreamEvent::ThinkingStart { index }
            | StreamEvent::ThinkingDelta { index, .. }
            | StreamEvent::ThinkingEnd { index }
            | StreamEvent::ToolCallStart { index }
            | StreamEvent::ToolCallDelta { index, .. }
            | StreamEvent::ToolCallEnd { index } => Some(*index),
            StreamEvent::Start
            | StreamEvent::Retry { .. }
            | StreamEvent::Done { .. }
            | StreamEvent::Error { .. } => None,
        }
    }

    /// Whether the event opens or closes a block (as opposed to a delta or the
    /// message's own start and end).
    pub fn opens_or_closes_a_block(&self) -> bool {
        self.index().is_some()
            && !matches!(
                self,
                StreamEvent::TextDelta { .. }
                    | StreamEvent::ThinkingDelta { .. }
                    | StreamEvent::ToolCallDelta { .. }
            )
    }

    /// The pi-compatible event type name (`text_delta`, `toolcall_end`, `done`…).
    pub fn type_name(&self) -> &'static str {
        match self {
            StreamEvent::Start => "start",
            StreamEvent::Retry { .. } => "retry",
            StreamEvent::TextStart { .. } => "text_start",
            StreamEvent::TextDelta { .. } => "text_delta",
            StreamEvent::TextEnd { .. } => "text_end",
            StreamEvent::ThinkingStart { .. } => "thinking_start",
            StreamEvent::ThinkingDelta { .. } => "thinking_delta",
            StreamEvent::ThinkingEnd { .. } => "thinking_end",
            StreamEvent::ToolCallStart { .. } => "toolcall_start",
            StreamEvent::ToolCallDelta { .. } => "toolcall_delta",
            StreamEvent::ToolCallEnd { .. } => "toolcall_end",
            StreamEvent::Done { .. } => "done",
            StreamEvent::Error { .. } => "error",
        }
    }
}

/// Receives each stream event together with the partial message after it.
pub type StreamSink<'a> = dyn FnMut(&StreamEvent, &AssistantMessage) + 'a;

/// A model that can be called. Implementations: the four HTTP adapters in
/// focus-providers, the offline demo model, and scripted providers in tests.
pub trait Provider: Send + Sync {
    /// The model this provider calls.
    fn model(&self) -> &ModelInfo;

    /// Streams one answer to `request`, calling `sink` for every event, and returns
    /// the final message. Never panics on bad input from the network; failures end
    /// the message with `StopReason::Error`, cancellation with `StopReason::Aborted`
    /// (keeping what was received). Must return promptly once `request.cancel`
    /// fires.
    fn stream(&self, request: &ModelRequest<'_>, sink: &mut StreamSink<'_>) -> AssistantMessage;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_never_double_the_slash() {
        assert_eq!(
            model_label("anthropic", "claude-sonnet-4-5"),
            "anthropic/claude-sonnet-4-5"
        );
        assert_eq!(
            model_label("llama.cpp", "/models/qwen.gguf"),
            "llama.cpp:/models/qwen.gguf"
        );
        assert_eq!(model_label("ollama", "qwen3:8b"), "ollama/qwen3:8b");
    }
}
