//! [`MessageBuilder`]: the assistant message under construction, shared by all four
//! stream decoders.
//!
//! A decoder only says *what happened* ("a text block opened", "these argument bytes
//! arrived", "the stop reason is `toolUse`"); the builder keeps the partial
//! [`AssistantMessage`] in step and hands every [`StreamEvent`] to the sink together
//! with the message as it is right after that event. Keeping this in one place is what
//! makes the four decoders small, and guarantees the event protocol (one `Start`
//! first, every opened block closed, exactly one terminal event) for all of them.

use focus_core::json::{parse_partial, parse_str, Object, Value};
use focus_core::message::{AssistantMessage, Content, StopReason, ToolCall, Usage};
use focus_core::provider::{StreamEvent, StreamSink};
use focus_core::shared_text::SharedText;

/// A sink that drops every event (for callers that only want the final message).
pub fn ignore_events(_: &StreamEvent, _: &AssistantMessage) {}

/// Builds one streamed assistant message and reports each step to a sink.
pub struct MessageBuilder<'a, 'b> {
    message: AssistantMessage,
    sink: &'a mut StreamSink<'b>,
    /// Raw argument text per content index (tool-call blocks only).
    raw_arguments: Vec<(usize, String)>,
    /// The text so far of each open text or thinking block, by content index. A
    /// text grows here, as a plain `String`, and enters the message (shared, never
    /// to change again) when its block closes.
    open_texts: Vec<(usize, String)>,
    /// Indexes of blocks opened but not yet closed.
    open: Vec<usize>,
    started: bool,
    finished: bool,
    events: usize,
    price: Option<focus_core::provider::Price>,
    /// A secret that must not appear in error messages (the API key).
    secret: Option<String>,
    /// Server events skipped as unreadable, and why the first one was.
    skipped: (usize, Option<String>),
}

impl<'a, 'b> MessageBuilder<'a, 'b> {
    /// A builder for a message from `api`/`provider`/`model`, reporting to `sink`.
    pub fn new(api: &str, provider: &str, model: &str, sink: &'a mut StreamSink<'b>) -> Self {
        MessageBuilder {
            message: AssistantMessage {
                api: api.into(),
                provider: provider.into(),
                model: model.into(),
                timestamp: focus_core::message::now_ms(),
                ..AssistantMessage::default()
            },
            sink,
            raw_arguments: Vec::new(),
            open_texts: Vec::new(),
            open: Vec::new(),
            started: false,
            finished: false,
            events: 0,
            price: None,
            secret: None,
            skipped: (0, None),
        }
    }

    /// Masks `secret` (the API key) as `***` in every error message set later, so
    /// a server that echoes the key does not put it in the partial messages either.
    pub fn with_secret(mut self, secret: Option<&str>) -> Self {
        self.secret = secret.filter(|s| s.len() >= 4).map(str::to_string);
        self
    }

    /// Prices usage as it arrives, so partial messages carry their cost too.
    pub fn with_price(mut self, price: &focus_core::provider::Price) -> Self {
        self.price = Some(price.clone());
        self
    }

    /// The message so far: its closed blocks whole; an open text or thinking block
    /// is empty until it closes, and a tool call's arguments are `{}` until then.
    pub fn message(&self) -> &AssistantMessage {
        &self.message
    }

    /// How many events have been sent to the sink (the retry logic needs to know
    /// whether anything was shown yet).
    pub fn events_emitted(&self) -> usize {
        self.events
    }

    /// Whether the terminal event has been sent.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    fn emit(&mut self, event: StreamEvent) {
        self.events += 1;
        (self.sink)(&event, &self.message);
    }

    /// Sends `Start` once; every other event method calls it first.
    pub fn start(&mut self) {
        if !self.started {
            self.started = true;
            self.emit(StreamEvent::Start);
        }
    }

    /// Sets the provider's response id.
    pub fn set_response_id(&mut self, id: &str) {
        if !id.is_empty() {
            self.message.response_id = Some(id.to_string());
        }
    }

    /// Replaces the usage (decoders convert the provider's counts first). The total
    /// is filled in as the sum of the four parts when the provider gave none.
    pub fn set_usage(&mut self, mut usage: Usage) {
        if usage.total_tokens == 0 {
            // Saturating: the counts come from the server and may be absurd.
            usage.total_tokens = usage
                .input
                .saturating_add(usage.output)
                .saturating_add(usage.cache_read)
                .saturating_add(usage.cache_write);
        }
        if let Some(price) = &self.price {
            crate::registry::apply_cost(&mut usage, price);
        }
        self.message.usage = usage;
    }

    /// The usage so far (for decoders that merge counts from several events).
    pub fn usage(&self) -> &Usage {
        &self.message.usage
    }

    /// Sets the stop reason (the last call wins; `Error` is never downgraded).
    pub fn set_stop_reason(&mut self, reason: StopReason) {
        if self.message.stop_reason != StopReason::Error {
            self.message.stop_reason = reason;
        }
    }

    /// Marks the message as failed with `message` (the first error wins).
    pub fn set_error(&mut self, message: impl Into<String>) {
        self.message.stop_reason = StopReason::Error;
        if self.message.error_message.is_none() {
            let mut message = message.into();
            if let Some(secret) = &self.secret {
                message = message.replace(secret.as_str(), "***");
            }
            self.message.error_message = Some(message);
        }
    }

    /// Skips a server event that could not be read (data that is not JSON), keeping
    /// count: one bad line does not cost the whole answer. The count and the first
    /// reason end up in the message's `error_message` (see [`MessageBuilder::finish`]).
    pub fn skip_event(&mut self, why: impl Into<String>) {
        self.skipped.0 += 1;
        if self.skipped.1.is_none() {
            self.skipped.1 = Some(why.into());
        }
    }

    /// How many server events were skipped as unreadable.
    pub fn skipped_events(&self) -> usize {
        self.skipped.0
    }

    /// Opens a text block and returns its index.
    pub fn open_text(&mut self) -> usize {
        self.start();
        let index = self.push(Content::text(""));
        self.open_texts.push((index, String::new()));
        self.emit(StreamEvent::TextStart { index });
        index
    }

    /// Opens a thinking block and returns its index.
    pub fn open_thinking(&mut self) -> usize {
        self.start();
        let index = self.push(Content::Thinking {
            thinking: Default::default(),
            signature: None,
            redacted: false,
        });
        self.open_texts.push((index, String::new()));
        self.emit(StreamEvent::ThinkingStart { index });
        index
    }

    /// Adds a complete redacted-thinking block (Anthropic): opened and closed at once.
    pub fn add_redacted_thinking(&mut self, data: &str) {
        self.start();
        let index = self.push(Content::Thinking {
            thinking: "[Reasoning redacted]".into(),
            signature: Some(data.into()),
            redacted: true,
        });
        self.emit(StreamEvent::ThinkingStart { index });
        self.close(index);
    }

    /// Opens a tool-call block (id and name known) and returns its index.
    ///
    /// A missing or repeated id (some OpenAI-compatible servers send none, or the
    /// same one twice) is replaced by one unique in the message: the loop and every
    /// consumer pair a call with its result by id.
    pub fn open_tool_call(&mut self, id: &str, name: &str) -> usize {
        self.start();
        let position = self.message.content.len();
        let mut id = if id.is_empty() {
            format!("call_{position}")
        } else {
            id.to_string()
        };
        while self.message.tool_calls().any(|c| c.id == id) {
            id = format!("{id}_{position}");
        }
        let index = self.push(Content::ToolCall(ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: Value::Object(Object::new()),
            thought_signature: None,
            invalid_arguments: None,
        }));
        self.raw_arguments.push((index, String::new()));
        self.emit(StreamEvent::ToolCallStart { index });
        index
    }

    fn push(&mut self, content: Content) -> usize {
        self.message.content.push(content);
        let index = self.message.content.len() - 1;
        self.open.push(index);
        index
    }

    /// Whether the block at `index` is open.
    pub fn is_open(&self, index: usize) -> bool {
        self.open.contains(&index)
    }

    /// Appends to the text or thinking block at `index` (ignored for other kinds or
    /// closed blocks, and for empty deltas).
    pub fn append(&mut self, index: usize, delta: &str) {
        if delta.is_empty() {
            return;
        }
        let Some((_, text)) = self.open_texts.iter_mut().find(|(i, _)| *i == index) else {
            return;
        };
        text.push_str(delta);
        let delta = delta.to_string();
        let event = match self.message.content.get(index) {
            Some(Content::Thinking { .. }) => StreamEvent::ThinkingDelta { index, delta },
            _ => StreamEvent::TextDelta { index, delta },
        };
        self.emit(event);
    }

    /// Appends a fragment of a tool call's argument JSON. The text is kept whole
    /// and parsed once, strictly, when the call closes: the partial message's
    /// arguments stay `{}` until then (a consumer that wants a preview reads the
    /// deltas; re-parsing the growing text per fragment costs the square of it).
    pub fn append_arguments(&mut self, index: usize, fragment: &str) {
        if !self.is_open(index) {
            return;
        }
        let Some((_, raw)) = self.raw_arguments.iter_mut().find(|(i, _)| *i == index) else {
            return;
        };
        raw.push_str(fragment);
        self.emit(StreamEvent::ToolCallDelta {
            index,
            delta: fragment.to_string(),
        });
    }

    /// Adds a streamed piece of the open tool call's name at `index`. Servers differ:
    /// some split the name across chunks (`Ba`, `sh`), some send it only in a later
    /// chunk, some repeat it whole in every chunk (or send it growing). A piece
    /// that starts with the name so far replaces it (a repeat or a growing name);
    /// any other piece is appended.
    pub fn extend_tool_name(&mut self, index: usize, piece: &str) {
        if piece.is_empty() || !self.is_open(index) {
            return;
        }
        if let Some(Content::ToolCall(call)) = self.message.content.get_mut(index) {
            if piece.starts_with(call.name.as_str()) {
                call.name = piece.into();
            } else {
                call.name = format!("{}{piece}", call.name).into();
            }
        }
    }

    /// Whether argument text has arrived for the open tool call at `index`.
    pub fn has_argument_text(&self, index: usize) -> bool {
        self.raw_arguments
            .iter()
            .any(|(i, raw)| *i == index && !raw.is_empty())
    }

    /// Replaces the complete arguments of a tool call that arrived whole (Gemini).
    pub fn set_arguments(&mut self, index: usize, arguments: Value) {
        let text = arguments.to_json_string();
        if let Some((_, raw)) = self.raw_arguments.iter_mut().find(|(i, _)| *i == index) {
            raw.clear();
        }
        self.append_arguments(index, &text);
    }

    /// Sets a signature: on a thinking block (Anthropic signature, Responses
    /// reasoning item, Chat reasoning field), a text block (Responses message id) or
    /// a tool call (Gemini `thoughtSignature`).
    pub fn set_signature(&mut self, index: usize, value: &str) {
        match self.message.content.get_mut(index) {
            Some(Content::Thinking { signature, .. }) | Some(Content::Text { signature, .. }) => {
                *signature = Some(value.into())
            }
            Some(Content::ToolCall(call)) => call.thought_signature = Some(value.into()),
            _ => {}
        }
    }

    /// Appends to a thinking block's signature (Anthropic sends it in pieces).
    pub fn append_signature(&mut self, index: usize, piece: &str) {
        if let Some(Content::Thinking { signature, .. }) = self.message.content.get_mut(index) {
            // Signatures come in one piece or a few: joining them anew is cheap.
            let joined = format!("{}{piece}", signature.as_deref().unwrap_or(""));
            *signature = Some(SharedText::from(joined));
        }
    }

    /// Closes the block at `index`, emitting its end event. A tool call's arguments
    /// are parsed strictly here. Text that is not valid JSON (a stream cut off
    /// mid-string, a model that wrote nonsense) is never repaired into arguments to
    /// run: the call keeps a lenient reading to show, and `invalid_arguments` says
    /// why, so the loop answers it with the parse error instead of running it.
    /// Closing twice does nothing.
    pub fn close(&mut self, index: usize) {
        let Some(position) = self.open.iter().position(|&i| i == index) else {
            return;
        };
        self.open.remove(position);
        let grown = self
            .open_texts
            .iter()
            .position(|(i, _)| *i == index)
            .map(|p| self.open_texts.swap_remove(p).1);
        let event = match self.message.content.get_mut(index) {
            Some(Content::Text { text, .. }) => {
                *text = grown.unwrap_or_default().into();
                StreamEvent::TextEnd { index }
            }
            Some(Content::Thinking {
                thinking, redacted, ..
            }) => {
                // A redacted block was complete when it was added.
                if !*redacted {
                    *thinking = grown.unwrap_or_default().into();
                }
                StreamEvent::ThinkingEnd { index }
            }
            Some(Content::ToolCall(call)) => {
                if let Some(p) = self.raw_arguments.iter().position(|(i, _)| *i == index) {
                    let (_, raw) = self.raw_arguments.swap_remove(p);
                    if raw.trim().is_empty() {
                        call.arguments = Value::Object(Object::new());
                    } else {
                        match parse_str(&raw) {
                            Ok(arguments) => call.arguments = arguments,
                            Err(error) => {
                                call.arguments = parse_partial(&raw);
                                call.invalid_arguments = Some(error.to_string());
                            }
                        }
                    }
                }
                StreamEvent::ToolCallEnd { index }
            }
            _ => return,
        };
        self.emit(event);
    }

    /// Closes every open block, in the order they were opened.
    pub fn close_all(&mut self) {
        while let Some(&index) = self.open.first() {
            self.close(index);
        }
    }

    /// Ends the message: closes open blocks and sends exactly one terminal event
    /// (`Done` for stop/length/toolUse, `Error` for error/aborted), then returns the
    /// final message. A `Stop` message that holds tool calls becomes `ToolUse`
    /// (some servers never say why they stopped).
    pub fn finish(mut self) -> AssistantMessage {
        self.start();
        self.note_skipped_events();
        self.close_all();
        if self.message.stop_reason == StopReason::Stop
            && self.message.tool_calls().next().is_some()
        {
            self.message.stop_reason = StopReason::ToolUse;
        }
        if !self.finished {
            self.finished = true;
            let reason = self.message.stop_reason;
            let event = match reason {
                StopReason::Error | StopReason::Aborted => StreamEvent::Error { reason },
                _ => StreamEvent::Done { reason },
            };
            self.emit(event);
        }
        self.message
    }

    /// Says in the message that events were skipped: appended to the error of a
    /// failed message, or as the `error_message` of one that otherwise succeeded
    /// (its stop reason unchanged), so every mode can show the count.
    fn note_skipped_events(&mut self) {
        let (count, Some(first)) = (self.skipped.0, self.skipped.1.take()) else {
            return;
        };
        let note =
            format!("skipped {count} server event(s) that were not JSON; the first: {first}");
        let message = match self.message.error_message.take() {
            Some(error) => format!("{error} ({note})"),
            None => note,
        };
        self.message.error_message = Some(match &self.secret {
            Some(secret) => message.replace(secret.as_str(), "***"),
            None => message,
        });
    }

    /// Ends the message as aborted (the user cancelled), keeping what arrived.
    pub fn abort(mut self) -> AssistantMessage {
        self.message.stop_reason = StopReason::Aborted;
        if self.message.error_message.is_none() {
            self.message.error_message = Some("Request was aborted".into());
        }
        self.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_follow_the_protocol_and_arguments_parse_once_at_the_end() {
        let mut log: Vec<(String, String)> = Vec::new();
        let mut sink = |e: &StreamEvent, m: &AssistantMessage| {
            let args = m
                .tool_calls()
                .next()
                .map(|c| c.arguments.to_json_string())
                .unwrap_or_default();
            log.push((e.type_name().to_string(), args));
        };
        let mut b = MessageBuilder::new("x", "p", "m", &mut sink);
        let t = b.open_text();
        b.append(t, "hi");
        let c = b.open_tool_call("id1", "read");
        b.append_arguments(c, "{\"path\": \"src/ma");
        b.append_arguments(c, "in.rs\"}");
        let m = b.finish();
        assert_eq!(m.stop_reason, StopReason::ToolUse);
        assert_eq!(m.text(), "hi");
        let names: Vec<&str> = log.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "start",
                "text_start",
                "text_delta",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_delta",
                "text_end",
                "toolcall_end",
                "done"
            ]
        );
        assert_eq!(log[4].1, "{}", "no re-parsing while the text grows");
        assert_eq!(log[7].1, r#"{"path":"src/main.rs"}"#);
        assert_eq!(m.tool_calls().next().unwrap().invalid_arguments, None);
    }

    #[test]
    fn arguments_that_are_not_json_are_marked_not_repaired() {
        let mut sink = |_: &StreamEvent, _: &AssistantMessage| {};
        let mut b = MessageBuilder::new("x", "p", "m", &mut sink);
        let c = b.open_tool_call("id1", "bash");
        b.append_arguments(c, r#"{"command": "rm -rf ./build-cache-of-the-pro"#);
        let m = b.finish();
        let call = m.tool_calls().next().unwrap();
        let why = call.invalid_arguments.as_deref().expect("marked invalid");
        assert!(!why.is_empty());
        // The lenient reading is kept to show what the model sent.
        assert_eq!(
            call.arguments["command"].as_str(),
            Some("rm -rf ./build-cache-of-the-pro")
        );
    }

    #[test]
    fn absurd_usage_counts_saturate_in_the_total() {
        let mut sink = |_: &StreamEvent, _: &AssistantMessage| {};
        let mut b = MessageBuilder::new("x", "p", "m", &mut sink);
        b.set_usage(Usage {
            input: u64::MAX,
            output: 7,
            ..Usage::default()
        });
        assert_eq!(b.usage().total_tokens, u64::MAX);
    }

    #[test]
    fn missing_and_repeated_call_ids_are_made_unique() {
        let mut sink = |_: &StreamEvent, _: &AssistantMessage| {};
        let mut b = MessageBuilder::new("x", "p", "m", &mut sink);
        for id in ["", "", "dup", "dup", "call_0"] {
            let i = b.open_tool_call(id, "read");
            b.append_arguments(i, "{}");
        }
        let m = b.finish();
        let ids: Vec<&str> = m.tool_calls().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["call_0", "call_1", "dup", "dup_3", "call_0_4"]);
    }

    #[test]
    fn errors_end_with_one_error_event() {
        let mut names = Vec::new();
        let mut sink = |e: &StreamEvent, _: &AssistantMessage| names.push(e.type_name());
        let mut b = MessageBuilder::new("x", "p", "m", &mut sink);
        b.set_error("boom");
        b.set_stop_reason(StopReason::Stop);
        let m = b.finish();
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.error_message.as_deref(), Some("boom"));
        assert_eq!(names, ["start", "error"]);
    }
}
