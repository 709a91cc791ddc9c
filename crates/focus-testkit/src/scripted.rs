//! Test doubles for the agent loop: [`ScriptedProvider`] (a queue of canned
//! [`Reply`]s streamed the way a real provider streams) and [`FnTool`] (a tool
//! from a closure), for the tests and benchmarks of every crate.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use focus_core::agent::check_history;
use focus_core::cancel::CancelToken;
use focus_core::json::{parse_partial, parse_str, Object, Value};
use focus_core::message::{
    now_ms, AssistantMessage, Content, Message, SharedText, StopReason, ToolCall,
};
use focus_core::provider::{ModelInfo, ModelRequest, Provider, StreamEvent, StreamSink};
use focus_core::sync::lock;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

/// One canned model answer: steps streamed in order, then an ending.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    steps: Vec<Step>,
    end: End,
    piece_delay: Option<Duration>,
}

#[derive(Clone, Debug)]
enum Step {
    Text(String),
    Thinking(String),
    Call {
        id: String,
        name: String,
        arguments: String,
    },
    Cancel,
    Pause(Duration),
}

#[derive(Clone, Debug, Default)]
enum End {
    /// `ToolUse` if the reply has tool calls, else `Stop`.
    #[default]
    Auto,
    Done(StopReason),
    Fail(String),
    Hang,
}

/// Text and tool-call arguments are streamed in pieces of this many bytes (at most).
const PIECE: usize = 8;

impl Reply {
    /// An empty reply (ends with `Stop`); add steps with the builder methods.
    pub fn new() -> Reply {
        Reply::default()
    }

    /// A reply that says `text` and stops.
    pub fn text(text: &str) -> Reply {
        Reply::new().say(text)
    }

    /// A reply with one tool call (`arguments` is JSON text, streamed in pieces).
    pub fn tool_call(id: &str, name: &str, arguments: &str) -> Reply {
        Reply::new().call(id, name, arguments)
    }

    /// Adds a text block.
    pub fn say(mut self, text: &str) -> Reply {
        self.steps.push(Step::Text(text.to_string()));
        self
    }

    /// Adds a thinking block.
    pub fn think(mut self, text: &str) -> Reply {
        self.steps.push(Step::Thinking(text.to_string()));
        self
    }

    /// Adds a tool call; `arguments` is JSON text (invalid JSON is parsed leniently,
    /// as providers do).
    pub fn call(mut self, id: &str, name: &str, arguments: &str) -> Reply {
        self.steps.push(Step::Call {
            id: id.to_string(),
            name: name.to_string(),
            arguments: arguments.to_string(),
        });
        self
    }

    /// Cancels the run's token at this point of the stream, as if the user pressed
    /// Ctrl-C exactly here (deterministic aborts for tests).
    pub fn abort_here(mut self) -> Reply {
        self.steps.push(Step::Cancel);
        self
    }

    /// Waits (interruptibly) at this point of the stream.
    pub fn pause(mut self, duration: Duration) -> Reply {
        self.steps.push(Step::Pause(duration));
        self
    }

    /// Ends with this stop reason (`Stop`, `Length`, `ToolUse`).
    pub fn stop(mut self, reason: StopReason) -> Reply {
        self.end = End::Done(reason);
        self
    }

    /// Ends with a provider error after the steps (an error mid-stream).
    pub fn fail(mut self, message: &str) -> Reply {
        self.end = End::Fail(message.to_string());
        self
    }

    /// Never ends until the run is aborted.
    pub fn hang(mut self) -> Reply {
        self.end = End::Hang;
        self
    }

    /// Waits (interruptibly) before every streamed piece, so the reply streams at a
    /// visible pace (offline demos, abort tests).
    pub fn piece_delay(mut self, delay: Duration) -> Reply {
        self.piece_delay = Some(delay);
        self
    }
}

/// What the provider saw in one call.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// The system prompt.
    pub system_prompt: String,
    /// The messages, as sent.
    pub messages: Vec<Message>,
    /// The names of the tools offered.
    pub tools: Vec<String>,
}

/// A provider that answers from a queue of [`Reply`]s, streaming each the way a
/// real one does (`Start`, block start/delta/end events with the partial message,
/// one terminal event), honouring cancellation between pieces. When the queue is
/// empty it answers with a provider error, so a test whose script runs out fails
/// visibly. Every request's history is checked with [`check_history`].
pub struct ScriptedProvider {
    model: ModelInfo,
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    violations: Mutex<Vec<String>>,
    record: bool,
}

impl ScriptedProvider {
    /// A provider that will answer with `replies`, in order.
    pub fn new(replies: Vec<Reply>) -> ScriptedProvider {
        ScriptedProvider {
            model: ModelInfo {
                id: "scripted".into(),
                name: "Scripted test model".into(),
                api: "scripted".into(),
                provider: "scripted".into(),
                context_window: 128_000,
                max_tokens: 8_192,
                ..ModelInfo::default()
            },
            replies: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
            violations: Mutex::new(Vec::new()),
            record: true,
        }
    }

    /// Reports `model` as the model answering (the default is `scripted`).
    pub fn with_model(mut self, model: ModelInfo) -> ScriptedProvider {
        self.model = model;
        self
    }

    /// Stops recording requests and checking their history (benchmarks).
    pub fn without_recording(mut self) -> ScriptedProvider {
        self.record = false;
        self
    }

    /// Appends more replies to the queue.
    pub fn push(&self, reply: Reply) {
        lock(&self.replies).push_back(reply);
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.requests).clone()
    }

    /// How many replies are still queued.
    pub fn remaining(&self) -> usize {
        lock(&self.replies).len()
    }

    /// Every request whose history broke the tool-call pairing rule, explained.
    pub fn violations(&self) -> Vec<String> {
        lock(&self.violations).clone()
    }

    fn empty_message(&self) -> AssistantMessage {
        AssistantMessage {
            api: self.model.api.clone().into(),
            provider: self.model.provider.clone().into(),
            model: self.model.id.clone().into(),
            timestamp: now_ms(),
            ..AssistantMessage::default()
        }
    }
}

impl Provider for ScriptedProvider {
    fn model(&self) -> &ModelInfo {
        &self.model
    }

    fn stream(&self, request: &ModelRequest<'_>, sink: &mut StreamSink<'_>) -> AssistantMessage {
        let cancel = request.cancel;
        if self.record {
            if let Err(problem) = check_history(request.messages) {
                lock(&self.violations).push(problem);
            }
            lock(&self.requests).push(RecordedRequest {
                system_prompt: request.system_prompt.to_string(),
                messages: request.messages.to_vec(),
                tools: request.tools.iter().map(|t| t.name.clone()).collect(),
            });
        }
        let mut message = self.empty_message();
        sink(&StreamEvent::Start, &message);
        let Some(reply) = lock(&self.replies).pop_front() else {
            return finish_failed(
                &mut message,
                sink,
                "scripted provider: no reply left in the script",
            );
        };
        for step in &reply.steps {
            if cancel.is_cancelled() {
                return finish_aborted(&mut message, sink);
            }
            stream_step(step, &mut message, sink, cancel, reply.piece_delay);
        }
        if cancel.is_cancelled() {
            return finish_aborted(&mut message, sink);
        }
        let has_calls = message.tool_calls().next().is_some();
        let reason = match reply.end {
            End::Auto if has_calls => StopReason::ToolUse,
            End::Auto => StopReason::Stop,
            End::Done(reason) => reason,
            End::Fail(text) => return finish_failed(&mut message, sink, &text),
            End::Hang => {
                wait_for_cancel(cancel, None);
                return finish_aborted(&mut message, sink);
            }
        };
        message.stop_reason = reason;
        message.usage.output = message.content.len() as u64;
        sink(&StreamEvent::Done { reason }, &message);
        message
    }
}

fn stream_step(
    step: &Step,
    message: &mut AssistantMessage,
    sink: &mut StreamSink<'_>,
    cancel: &CancelToken,
    delay: Option<Duration>,
) {
    let index = message.content.len();
    // Streams pieces at the reply's pace; a cancel stops the step early (the
    // caller then ends the message as aborted).
    let pieces = |text: &str| -> Vec<String> { split(text).map(str::to_string).collect() };
    let paced = |_: &String| match delay {
        Some(delay) => !wait_for_cancel(cancel, Some(delay)),
        None => !cancel.is_cancelled(),
    };
    match step {
        Step::Text(text) => {
            message.content.push(Content::text(""));
            sink(&StreamEvent::TextStart { index }, message);
            // As a real provider does: the text grows in a String of its own and
            // enters the message, shared, when the block closes.
            let mut so_far = String::new();
            for piece in pieces(text).iter().take_while(|p| paced(p)) {
                so_far.push_str(piece);
                let delta = piece.to_string();
                sink(&StreamEvent::TextDelta { index, delta }, message);
            }
            message.content[index] = Content::text(so_far);
            sink(&StreamEvent::TextEnd { index }, message);
        }
        Step::Thinking(text) => {
            message.content.push(Content::Thinking {
                thinking: SharedText::new(),
                signature: None,
                redacted: false,
            });
            sink(&StreamEvent::ThinkingStart { index }, message);
            let mut so_far = String::new();
            for piece in pieces(text).iter().take_while(|p| paced(p)) {
                so_far.push_str(piece);
                let delta = piece.to_string();
                sink(&StreamEvent::ThinkingDelta { index, delta }, message);
            }
            if let Some(Content::Thinking { thinking, .. }) = message.content.get_mut(index) {
                *thinking = so_far.into();
            }
            sink(&StreamEvent::ThinkingEnd { index }, message);
        }
        Step::Call {
            id,
            name,
            arguments,
        } => {
            message.content.push(Content::ToolCall(ToolCall {
                id: id.clone().into(),
                name: name.clone().into(),
                arguments: Value::Object(Object::new()),
                thought_signature: None,
                invalid_arguments: None,
            }));
            sink(&StreamEvent::ToolCallStart { index }, message);
            for piece in pieces(arguments).iter().take_while(|p| paced(p)) {
                let delta = piece.to_string();
                sink(&StreamEvent::ToolCallDelta { index, delta }, message);
            }
            if cancel.is_cancelled() {
                return; // the call stays as far as it got, like a real cut-off stream
            }
            // As a real provider does: parsed strictly once, at the end.
            let (full, invalid) = match parse_str(arguments) {
                Ok(value) => (value, None),
                Err(error) => (parse_partial(arguments), Some(error.to_string())),
            };
            if let Some(Content::ToolCall(call)) = message.content.get_mut(index) {
                call.invalid_arguments = invalid;
            }
            set_arguments(message, index, full);
            sink(&StreamEvent::ToolCallEnd { index }, message);
        }
        Step::Cancel => cancel.cancel(),
        Step::Pause(duration) => {
            wait_for_cancel(cancel, Some(*duration));
        }
    }
}

fn set_arguments(message: &mut AssistantMessage, index: usize, arguments: Value) {
    if let Some(Content::ToolCall(call)) = message.content.get_mut(index) {
        call.arguments = arguments;
    }
}

fn finish_aborted(message: &mut AssistantMessage, sink: &mut StreamSink<'_>) -> AssistantMessage {
    message.stop_reason = StopReason::Aborted;
    message.error_message = Some("Request was aborted".into());
    sink(
        &StreamEvent::Error {
            reason: StopReason::Aborted,
        },
        message,
    );
    message.clone()
}

fn finish_failed(
    message: &mut AssistantMessage,
    sink: &mut StreamSink<'_>,
    text: &str,
) -> AssistantMessage {
    message.stop_reason = StopReason::Error;
    message.error_message = Some(text.to_string());
    sink(
        &StreamEvent::Error {
            reason: StopReason::Error,
        },
        message,
    );
    message.clone()
}

/// Splits `text` into pieces of at most `PIECE` bytes, on character boundaries.
fn split(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let mut end = (start + PIECE).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let piece = &text[start..end];
        start = end;
        Some(piece)
    })
}

/// Waits until `cancel` fires or `timeout` passes (forever when `None`). Returns
/// whether it was cancelled. Wakes at once on cancel (no polling), so tools and
/// providers built on it abort promptly.
pub fn wait_for_cancel(cancel: &CancelToken, timeout: Option<Duration>) -> bool {
    let signal = Arc::new((Mutex::new(false), Condvar::new()));
    let notify = signal.clone();
    let _registration = cancel.on_cancel(move || {
        *lock(&notify.0) = true;
        notify.1.notify_all();
    });
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut fired = lock(&signal.0);
    while !*fired {
        match deadline {
            None => fired = signal.1.wait(fired).unwrap_or_else(|p| p.into_inner()),
            Some(deadline) => {
                let now = Instant::now();
                if now >= deadline {
                    return false;
                }
                fired = signal
                    .1
                    .wait_timeout(fired, deadline - now)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        }
    }
    true
}

type ToolFn = dyn Fn(&Value, &ToolContext<'_>) -> ToolOutput + Send + Sync;

/// A tool made from a closure, for tests and demos.
pub struct FnTool {
    name: String,
    parameters: Value,
    alone: bool,
    run: Box<ToolFn>,
}

impl FnTool {
    /// A tool called `name` with the JSON Schema `parameters` (JSON text; an invalid
    /// schema text becomes `{}`, accepting anything) that runs `run`.
    pub fn new(
        name: &str,
        parameters: &str,
        run: impl Fn(&Value, &ToolContext<'_>) -> ToolOutput + Send + Sync + 'static,
    ) -> FnTool {
        FnTool {
            name: name.to_string(),
            parameters: parse_str(parameters).unwrap_or_else(|_| Value::Object(Object::new())),
            alone: false,
            run: Box::new(run),
        }
    }

    /// Marks every call of this tool as one that must run alone.
    pub fn alone(mut self) -> FnTool {
        self.alone = true;
        self
    }

    /// `echo`: returns its `text` argument (a required string).
    pub fn echo() -> FnTool {
        FnTool::new(
            "echo",
            r#"{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}"#,
            |args, _| ToolOutput::text(args["text"].as_str().unwrap_or_default()),
        )
    }
}

impl Tool for FnTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        "A test tool."
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        (self.run)(args, ctx)
    }

    fn runs_alone(&self, _args: &Value) -> bool {
        self.alone
    }
}
