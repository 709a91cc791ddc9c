//! The offline demo model: what `focus` uses when no model is configured, no API
//! key is in the environment and no local server answers.
//!
//! It is a real [`Provider`]: the agent loop calls it, its tool calls run through
//! the real tools and gates, and the conversation is saved like any other. It plays
//! a short scripted coding session (list the directory with `ls`, read a file,
//! explain what happened) and says plainly that it is a demo and how to configure a
//! real model. Each step is decided from the history it is given, so the script
//! survives steering, aborts and resumed sessions.

use focus_core::json::{parse_str, Value};
use focus_core::message::{now_ms, AssistantMessage, Content, Message, StopReason, ToolCall};
use focus_core::provider::{ModelInfo, ModelRequest, Provider, StreamEvent, StreamSink};
use std::time::Duration;

/// The provider name of the demo model.
pub const DEMO_PROVIDER: &str = "demo";
/// The model id of the demo model.
pub const DEMO_MODEL: &str = "focus-demo";

/// How to get a real model, shown at the end of every demo answer.
pub const SETUP_HINT: &str = "\
To use a real model, do one of these:
- set an API key: `export ANTHROPIC_API_KEY=...` (or OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, GROQ_API_KEY, ...), then run focus again;
- start a local server: `ollama serve` (focus finds it on 127.0.0.1:11434 or OLLAMA_HOST) or llama.cpp's `llama-server` on port 8080;
- or describe any OpenAI-compatible server in `models.json` in focus's config directory (FOCUS_HOME, default ~/.focus/agent).
`focus --list-models` shows what focus knows.";

/// The scripted model.
pub struct DemoProvider {
    info: ModelInfo,
    /// Pause between streamed words, so the demo looks like a model (zero in tests).
    word_delay: Duration,
}

impl DemoProvider {
    /// The demo model with a short, human-visible streaming pace.
    pub fn new() -> DemoProvider {
        DemoProvider::with_delay(Duration::from_millis(8))
    }

    /// The demo model with a chosen pace between streamed words.
    pub fn with_delay(word_delay: Duration) -> DemoProvider {
        DemoProvider {
            info: ModelInfo {
                id: DEMO_MODEL.into(),
                name: "focus offline demo".into(),
                api: "demo".into(),
                provider: DEMO_PROVIDER.into(),
                base_url: String::new(),
                context_window: 32_000,
                context_window_assumed: false,
                max_tokens: 4_096,
                reasoning: false,
                accepts_images: false,
                price: Default::default(),
            },
            word_delay,
        }
    }
}

impl Default for DemoProvider {
    fn default() -> Self {
        DemoProvider::new()
    }
}

/// One scripted answer: some text, then maybe a tool call.
struct Step {
    text: String,
    call: Option<(String, Value)>,
}

impl Provider for DemoProvider {
    fn model(&self) -> &ModelInfo {
        &self.info
    }

    fn stream(&self, request: &ModelRequest<'_>, sink: &mut StreamSink<'_>) -> AssistantMessage {
        let cancel = request.cancel;
        let step = next_step(request);
        let mut message = AssistantMessage {
            api: self.info.api.clone().into(),
            provider: self.info.provider.clone().into(),
            model: self.info.id.clone().into(),
            timestamp: now_ms(),
            ..AssistantMessage::default()
        };
        sink(&StreamEvent::Start, &message);
        message.content.push(Content::text(""));
        sink(&StreamEvent::TextStart { index: 0 }, &message);
        // The text grows here and enters the message when the block closes (or
        // the answer is cut short).
        let mut so_far = String::new();
        for word in step.text.split_inclusive(' ') {
            if cancel.is_cancelled() {
                message.content[0] = Content::text(so_far);
                message.stop_reason = StopReason::Aborted;
                message.error_message = Some("aborted by the user".into());
                sink(
                    &StreamEvent::Error {
                        reason: StopReason::Aborted,
                    },
                    &message,
                );
                return message;
            }
            if !self.word_delay.is_zero() {
                std::thread::sleep(self.word_delay);
            }
            so_far.push_str(word);
            let delta = StreamEvent::TextDelta {
                index: 0,
                delta: word.to_string(),
            };
            sink(&delta, &message);
        }
        message.content[0] = Content::text(so_far);
        sink(&StreamEvent::TextEnd { index: 0 }, &message);
        let output_words = step.text.split_whitespace().count() as u64;
        message.stop_reason = StopReason::Stop;
        if let Some((name, arguments)) = step.call {
            let call_id = format!("demo_{}", now_ms() % 1_000_000);
            let args_text = arguments.to_json_string();
            message.content.push(Content::ToolCall(ToolCall {
                id: call_id.clone().into(),
                name: name.clone().into(),
                arguments: Value::Object(Default::default()),
                thought_signature: None,
                invalid_arguments: None,
            }));
            sink(&StreamEvent::ToolCallStart { index: 1 }, &message);
            if let Some(Content::ToolCall(call)) = message.content.get_mut(1) {
                call.arguments = arguments;
            }
            let delta = StreamEvent::ToolCallDelta {
                index: 1,
                delta: args_text,
            };
            sink(&delta, &message);
            sink(&StreamEvent::ToolCallEnd { index: 1 }, &message);
            message.stop_reason = StopReason::ToolUse;
        }
        let input_chars: usize = request.system_prompt.len()
            + request
                .messages
                .iter()
                .map(|m| m.to_json_string_len())
                .sum::<usize>();
        message.usage.input = (input_chars / 4) as u64;
        message.usage.output = output_words;
        message.usage.total_tokens = message.usage.input + output_words;
        sink(
            &StreamEvent::Done {
                reason: message.stop_reason,
            },
            &message,
        );
        message
    }
}

/// A size estimate of a message for the demo's made-up token counts.
trait JsonLen {
    fn to_json_string_len(&self) -> usize;
}

impl JsonLen for Message {
    fn to_json_string_len(&self) -> usize {
        use focus_core::json::ToJson;
        self.to_json().to_json_string().len()
    }
}

/// Decides the next answer from the history since the last user message: no tool
/// results yet → list the directory; a listing → read a file from it; a file read
/// (or any failure) → explain and finish.
fn next_step(request: &ModelRequest<'_>) -> Step {
    let has_tool = |name: &str| request.tools.iter().any(|t| t.name == name);
    let last_user = request
        .messages
        .iter()
        .rposition(|m| matches!(m, Message::User(_)));
    let since_user = &request.messages[last_user.map_or(0, |i| i + 1)..];
    let prompt = last_user
        .and_then(|i| match &request.messages[i] {
            Message::User(u) => Some(
                u.content
                    .iter()
                    .filter_map(Content::as_text)
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            _ => None,
        })
        .unwrap_or_default();
    let results: Vec<(&str, String, bool)> = since_user
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult(r) => Some((
                r.tool_name.as_str(),
                r.content
                    .iter()
                    .filter_map(Content::as_text)
                    .collect::<Vec<_>>()
                    .join("\n"),
                r.is_error,
            )),
            _ => None,
        })
        .collect();
    let quoted = short(&prompt, 80);
    match results.last() {
        None if has_tool("ls") => Step {
            text: format!(
                "This is focus's built-in offline demo, not a real model: no model is configured, no API key is set and no local model server answered. \
                 I cannot really answer \"{quoted}\", but I can show you how focus works. First, I'll list this directory with the `ls` tool."
            ),
            call: Some(("ls".into(), parse_json(r#"{"path":"."}"#))),
        },
        Some(("ls", listing, false)) if has_tool("read") => match pick_file(listing) {
            Some(file) => Step {
                text: format!(
                    "The real `ls` tool returned:\n\n{}\n\nNext I'll read `{file}` with the `read` tool (first 20 lines).",
                    excerpt(listing)
                ),
                call: Some((
                    "read".into(),
                    focus_core::json_object! { "path" => file.as_str(), "limit" => 20 },
                )),
            },
            None => finish("I listed the directory but found no small text file to read.", &results),
        },
        _ => finish("", &results),
    }
}

/// The closing answer: what happened, and how to get a real model.
fn finish(note: &str, results: &[(&str, String, bool)]) -> Step {
    let mut text = String::from("Demo finished. ");
    if !note.is_empty() {
        text.push_str(note);
        text.push(' ');
    }
    if let Some((name, output, failed)) = results.last().filter(|(name, _, _)| *name != "ls") {
        let how = if *failed {
            "reported an error"
        } else {
            "returned"
        };
        text.push_str(&format!(
            "The real `{name}` tool {how}:\n\n{}\n\n",
            excerpt(output)
        ));
    }
    let ran: Vec<String> = results
        .iter()
        .map(|(name, _, failed)| {
            if *failed {
                format!("`{name}` (which reported an error)")
            } else {
                format!("`{name}`")
            }
        })
        .collect();
    if ran.is_empty() {
        text.push_str(
            "This is focus's built-in offline demo, not a real model: no model is configured, \
             no API key is set and no local model server answered. \
             No tools were available, so I only answered in text. \
             A real model reads your request and chooses tools to answer it.\n\n",
        );
    } else {
        text.push_str(&format!(
            "I called {} through focus's real agent loop: each call was checked by the permission gate, run by the tool, \
             and its result sent back to me, and, unless you passed --no-session, the exchange was saved in a session (see `focus -r`). \
             A real model would choose its own tools from your request.\n\n",
            ran.join(" and ")
        ));
    }
    text.push_str(SETUP_HINT);
    Step { text, call: None }
}

/// Picks a file worth reading from an `ls` listing: a README or manifest first,
/// else the first entry that looks like a file.
fn pick_file(listing: &str) -> Option<String> {
    let entries: Vec<&str> = listing
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.ends_with('/') && !l.starts_with('['))
        .collect();
    const PREFERRED: [&str; 6] = [
        "README.md",
        "README",
        "Cargo.toml",
        "package.json",
        "pyproject.toml",
        "Makefile",
    ];
    PREFERRED
        .iter()
        .find(|p| entries.contains(p))
        .map(|p| p.to_string())
        .or_else(|| {
            entries
                .iter()
                .find(|e| e.contains('.') && !e.contains(' '))
                .map(|e| e.to_string())
        })
}

/// The first lines of a tool's output as a fenced block for the answer (at most
/// [`EXCERPT_LINES`] lines of at most 100 columns, with a line saying how many
/// more there were).
fn excerpt(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    let mut shown: Vec<String> = lines
        .iter()
        .take(EXCERPT_LINES)
        .map(|l| crate::terminal::width::clip_to(l, 100))
        .collect();
    if lines.len() > EXCERPT_LINES {
        shown.push(format!("… {} more lines", lines.len() - EXCERPT_LINES));
    }
    if shown.is_empty() {
        shown.push("(no output)".into());
    }
    format!("```\n{}\n```", shown.join("\n"))
}

/// How many lines of a tool's output the demo quotes.
const EXCERPT_LINES: usize = 8;

fn parse_json(text: &str) -> Value {
    parse_str(text).unwrap_or(Value::Null)
}

/// `text` on one line in at most `max` columns.
fn short(text: &str, max: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::terminal::width::clip_to(&line, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::cancel::CancelToken;
    use focus_core::message::{ToolResultMessage, UserMessage};
    use focus_core::provider::{RequestOptions, ToolSpec};

    fn spec(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            parameters: Value::Null,
        }
    }

    fn result(name: &str, text: &str) -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: "c".into(),
            tool_name: name.into(),
            content: vec![Content::text(text)],
            details: Value::Null,
            is_error: false,
            timestamp: 0,
        })
    }

    fn run(messages: &[Message], tools: &[ToolSpec]) -> (AssistantMessage, usize) {
        let options = RequestOptions::default();
        let request = ModelRequest {
            system_prompt: "sys",
            messages,
            tools,
            options: &options,
            cancel: &CancelToken::new(),
        };
        let mut events = 0;
        let message =
            DemoProvider::with_delay(Duration::ZERO).stream(&request, &mut |_, _| events += 1);
        (message, events)
    }

    #[test]
    fn plays_ls_then_read_then_explains() {
        let tools = [spec("ls"), spec("read")];
        let mut history = vec![Message::User(UserMessage::text("hello", 0))];
        let (first, events) = run(&history, &tools);
        assert!(events > 4);
        assert_eq!(first.stop_reason, StopReason::ToolUse);
        assert!(first.text().contains("offline demo"));
        assert_eq!(first.tool_calls().next().unwrap().name, "ls");
        history.push(Message::Assistant(first));
        history.push(result("ls", "src/\nCargo.toml\nnotes.txt\n"));
        let (second, _) = run(&history, &tools);
        assert!(
            second
                .text()
                .contains("```\nsrc/\nCargo.toml\nnotes.txt\n```"),
            "the listing is shown: {}",
            second.text()
        );
        let call = second.tool_calls().next().unwrap();
        assert_eq!(call.name, "read");
        assert_eq!(call.arguments["path"].as_str(), Some("Cargo.toml"));
        history.push(Message::Assistant(second));
        history.push(result("read", "[package]"));
        let (third, _) = run(&history, &tools);
        assert!(
            third
                .text()
                .contains("The real `read` tool returned:\n\n```\n[package]\n```"),
            "the file is shown: {}",
            third.text()
        );
        assert_eq!(third.stop_reason, StopReason::Stop);
        assert!(third.text().contains("ANTHROPIC_API_KEY"));
        assert!(third.text().contains("ollama"));
    }

    #[test]
    fn without_tools_it_explains_at_once() {
        let history = vec![Message::User(UserMessage::text("hi", 0))];
        let (message, _) = run(&history, &[]);
        assert_eq!(message.stop_reason, StopReason::Stop);
        assert!(message.text().contains("No tools were available"));
    }

    #[test]
    fn cancellation_ends_with_aborted() {
        let options = RequestOptions::default();
        let history = vec![Message::User(UserMessage::text("hi", 0))];
        let cancel = CancelToken::new();
        cancel.cancel();
        let request = ModelRequest {
            system_prompt: "",
            messages: &history,
            tools: &[],
            options: &options,
            cancel: &cancel,
        };
        let message = DemoProvider::with_delay(Duration::ZERO).stream(&request, &mut |_, _| {});
        assert_eq!(message.stop_reason, StopReason::Aborted);
    }
}
