//! Test helpers: scratch directories, a seeded random number generator, message
//! builders and a scripted provider.

use focus_core::json::Value;
use focus_core::message::{
    AssistantMessage, Content, Message, StopReason, ToolCall, ToolResultMessage, Usage, UserMessage,
};
use focus_core::provider::{ModelInfo, ModelRequest, Provider, StreamSink};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A fresh, empty directory under the system temp dir, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "focus-harness-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub use focus_testkit::rng::Rng;

pub fn user(text: &str) -> Message {
    Message::User(UserMessage::text(text, 1))
}

pub fn assistant(text: &str, calls: &[(&str, &str, Value)], total_tokens: u64) -> Message {
    let mut content = vec![Content::text(text)];
    for (id, name, args) in calls {
        content.push(Content::ToolCall(ToolCall {
            id: (*id).into(),
            name: (*name).into(),
            arguments: args.clone(),
            thought_signature: None,
            invalid_arguments: None,
        }));
    }
    Message::Assistant(AssistantMessage {
        content,
        api: "test".into(),
        provider: "scripted".into(),
        model: "m1".into(),
        usage: Usage {
            total_tokens,
            ..Usage::default()
        },
        stop_reason: if calls.is_empty() {
            StopReason::Stop
        } else {
            StopReason::ToolUse
        },
        timestamp: 2,
        ..AssistantMessage::default()
    })
}

pub fn tool_result(call_id: &str, text: &str) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: call_id.into(),
        tool_name: "read".into(),
        content: vec![Content::text(text)],
        details: Value::Null,
        is_error: false,
        timestamp: 3,
    })
}

/// A provider that answers from a script and records every request's text.
pub struct ScriptedProvider {
    info: ModelInfo,
    answers: Mutex<Vec<AssistantMessage>>,
    pub requests: Mutex<Vec<(String, String)>>,
}

impl ScriptedProvider {
    pub fn new(answers: Vec<AssistantMessage>) -> ScriptedProvider {
        ScriptedProvider {
            info: ModelInfo {
                id: "m1".into(),
                provider: "scripted".into(),
                context_window: 200_000,
                ..ModelInfo::default()
            },
            answers: Mutex::new(answers),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// The same provider with a context window of `window` tokens.
    pub fn with_window(mut self, window: u64) -> ScriptedProvider {
        self.info.context_window = window;
        self
    }

    pub fn text_answer(text: &str) -> AssistantMessage {
        AssistantMessage {
            content: vec![Content::text(text)],
            stop_reason: StopReason::Stop,
            ..AssistantMessage::default()
        }
    }

    pub fn error_answer(text: &str) -> AssistantMessage {
        AssistantMessage {
            stop_reason: StopReason::Error,
            error_message: Some(text.into()),
            ..AssistantMessage::default()
        }
    }
}

impl Provider for ScriptedProvider {
    fn model(&self) -> &ModelInfo {
        &self.info
    }

    fn stream(&self, request: &ModelRequest<'_>, _sink: &mut StreamSink<'_>) -> AssistantMessage {
        let text: Vec<String> = request
            .messages
            .iter()
            .map(|m| match m {
                Message::User(u) => u.content.iter().filter_map(Content::as_text).collect(),
                _ => String::new(),
            })
            .collect();
        self.requests
            .lock()
            .unwrap()
            .push((request.system_prompt.to_string(), text.join("\n")));
        let mut answers = self.answers.lock().unwrap();
        if answers.is_empty() {
            ScriptedProvider::error_answer("script exhausted")
        } else {
            answers.remove(0)
        }
    }
}

/// JSON equality where numbers compare by value (`0` equals `0.0`): JavaScript
/// has one number type, so pi writes a zero cost as `0` where focus writes `0.0`.
pub fn json_equivalent(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equivalent(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && json_equivalent(v1, v2))
        }
        _ => a == b,
    }
}
