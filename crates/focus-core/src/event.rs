//! What the agent reports: [`AgentEvent`]s, sent over a channel to every consumer
//! (terminal renderer, JSON printer, RPC server, session writer).
//!
//! The JSON forms ([`ToJson`] below) are pi's `--mode json` lines, field for field:
//! `{"type":"message_update","assistantMessageEvent":{"type":"text_delta",
//! "contentIndex":0,"delta":"Hi","partial":{…}},"message":{…}}`. focus adds a
//! `reason` to `agent_end` (pi has none) so a consumer knows why the run stopped.

use crate::json::{Object, ToJson, Value};
use crate::message::{AssistantMessage, Content, Message, ToolResultMessage};
use crate::provider::StreamEvent;
use crate::tool::ToolOutput;

/// Where a run sends its events: called once per event, in order, from the loop's
/// thread and from tool threads (hence `Sync`). It may block to slow the run down
/// (a bounded channel), and must not fail: a consumer that went away is ignored.
pub type EventSink<'a> = dyn Fn(AgentEvent) + Sync + 'a;

/// What a successful compaction did (the `result` of pi's `auto_compaction_end`).
#[derive(Clone, Debug, PartialEq)]
pub struct Compacted {
    /// The session entry that holds the summary.
    pub entry_id: String,
    /// The context's estimated size before, in tokens.
    pub tokens_before: u64,
    /// The context's estimated size after (summary plus kept messages), counted
    /// the same way.
    pub tokens_after: u64,
}

impl ToJson for Compacted {
    fn to_json(&self) -> Value {
        let mut o = Object::new();
        o.push("entryId".into(), self.entry_id.as_str().into());
        o.push("tokensBefore".into(), self.tokens_before.into());
        o.push("tokensAfter".into(), self.tokens_after.into());
        Value::Object(o)
    }
}

/// Why a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum EndReason {
    /// The model stopped calling tools and no follow-up was queued.
    Completed,
    /// The user aborted.
    Aborted,
    /// The model call failed; the message is the provider's.
    Error(String),
    /// The limit on model round-trips for one prompt was reached.
    TurnLimit(usize),
    /// Every tool call failed for this many consecutive turns.
    CircuitBreaker(usize),
    /// A Stop hook asked to go on once more after keeping this prompt going this
    /// many times ([`crate::agent::MAX_STOP_CONTINUATIONS`]): the loop guard ended
    /// the run.
    StopHookLimit(u32),
}

/// One thing that happened in a run. The order is a grammar, checked by
/// [`crate::agent::check_event_grammar`] (see `agent::invariants` and docs/loop.md):
/// `AgentStart`, then turns, then `AgentEnd`; inside a turn, every `MessageStart`
/// has one `MessageEnd`, every `ToolExecutionStart` one `ToolExecutionEnd`;
/// `MessageUpdate` only between an assistant message's start and end.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentEvent {
    /// The run began.
    AgentStart,
    /// The run ended (always the last event).
    AgentEnd {
        /// The messages the run added to the history, in order.
        messages: Vec<Message>,
        /// Why it ended.
        reason: EndReason,
    },
    /// A turn (one model call and the tool calls it asked for) began.
    TurnStart,
    /// A turn ended.
    TurnEnd {
        /// The assistant message of the turn.
        message: AssistantMessage,
        /// The results of its tool calls, in the order they were asked for.
        tool_results: Vec<ToolResultMessage>,
    },
    /// A message entered the history (user, tool result) or began streaming (assistant).
    MessageStart {
        /// The message (for an assistant message, the partial one so far).
        message: Message,
    },
    /// The streaming assistant message changed. The event says what changed, never
    /// the whole message so far: a consumer that needs the partial message folds the
    /// updates into its own copy ([`crate::event_lines::EventLines`] does, for pi's
    /// JSON lines). An answer of N deltas thus costs O(N) to report, not O(N²).
    MessageUpdate {
        /// What changed: the block's index and, for a delta, the new text.
        event: StreamEvent,
        /// The block `event` is about, for the start and end events (`text_start`
        /// … `toolcall_end`): as it opened (a tool call's id and name) or as it
        /// closed (its whole text, signature, parsed arguments). Cheap to carry: a
        /// closed block's texts are shared, not copied. `None` for deltas.
        block: Option<Content>,
    },
    /// A message is final.
    MessageEnd {
        /// The final message.
        message: Message,
    },
    /// A tool call is about to run (or to be refused: validation, gate, abort).
    ToolExecutionStart {
        /// The id of the call.
        call_id: String,
        /// The tool's name as the model spelled it.
        tool_name: String,
        /// The arguments.
        args: Value,
    },
    /// The model call failed before anything was streamed and will be tried again
    /// after `delay_ms` (pi's `auto_retry_start`).
    AutoRetryStart {
        /// The attempt about to be made (2, 3, …).
        attempt: u32,
        /// The most attempts that will be made.
        max_attempts: u32,
        /// The wait before it, in milliseconds.
        delay_ms: u64,
        /// Why the previous attempt failed.
        error_message: String,
    },
    /// The retried call ended (pi's `auto_retry_end`): after its message's
    /// `MessageEnd`.
    AutoRetryEnd {
        /// Whether the last attempt gave an answer.
        success: bool,
        /// The number of that attempt.
        attempt: u32,
        /// Why it failed, when it did.
        final_error: Option<String>,
    },
    /// The history is being compacted before the next model call, inside the run
    /// (pi's `auto_compaction_start`): it passed the threshold, or the model said it
    /// was too long. The summary is a model call of its own; an abort cancels it.
    CompactionStart {
        /// `threshold` or `overflow`.
        reason: String,
    },
    /// The compaction announced by `CompactionStart` ended (pi's
    /// `auto_compaction_end`).
    CompactionEnd {
        /// What it did, when it succeeded.
        result: Option<Compacted>,
        /// Whether the user's abort stopped it.
        aborted: bool,
        /// Whether the failed call will be made again on the compacted history.
        will_retry: bool,
        /// Why it failed, when it did (the history is then kept in full).
        error_message: Option<String>,
    },
    /// A running tool reported partial output.
    ToolExecutionUpdate {
        /// The id of the call.
        call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The arguments.
        args: Value,
        /// The output so far.
        partial: ToolOutput,
    },
    /// A tool call finished (successfully or not). When calls run in parallel these
    /// come in completion order; the tool-result messages keep the asked order.
    ToolExecutionEnd {
        /// The id of the call.
        call_id: String,
        /// The tool's name.
        tool_name: String,
        /// What the model will read (after the gate's `after_call`).
        output: ToolOutput,
    },
}

impl EndReason {
    /// The JSON spelling: `completed`, `aborted`, `error`, `turnLimit`, `circuitBreaker`,
    /// `stopHookLimit`.
    pub fn as_str(&self) -> &'static str {
        match self {
            EndReason::Completed => "completed",
            EndReason::Aborted => "aborted",
            EndReason::Error(_) => "error",
            EndReason::TurnLimit(_) => "turnLimit",
            EndReason::CircuitBreaker(_) => "circuitBreaker",
            EndReason::StopHookLimit(_) => "stopHookLimit",
        }
    }
}

impl std::fmt::Display for EndReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EndReason::Completed => write!(f, "completed"),
            EndReason::Aborted => write!(f, "aborted by the user"),
            EndReason::Error(message) => write!(f, "error: {message}"),
            EndReason::TurnLimit(n) => write!(
                f,
                "stopped after {n} model round-trips (the turn limit); send a message to go on"
            ),
            EndReason::CircuitBreaker(n) => write!(
                f,
                "stopped after {n} consecutive turns in which every tool call failed"
            ),
            EndReason::StopHookLimit(n) => write!(
                f,
                "stopped: a Stop hook asked to go on after keeping this prompt going {n} times \
                 (the loop guard); send a message to go on"
            ),
        }
    }
}

impl ToJson for ToolOutput {
    /// pi's `AgentToolResult`: `{"content":[…],"details":…}` (`details` only when set).
    fn to_json(&self) -> Value {
        let mut o = Object::new();
        o.push("content".into(), self.content.to_json());
        if !self.details.is_null() {
            o.push("details".into(), self.details.clone());
        }
        Value::Object(o)
    }
}

impl StreamEvent {
    /// pi's `assistantMessageEvent` object without its `partial`: the event's own
    /// fields, plus the closed block's whole `content` for `text_end` and
    /// `thinking_end` and the parsed `toolCall` for `toolcall_end` (taken from
    /// `block`, the block as it closed).
    pub fn to_json_with_block(&self, block: Option<&Content>) -> Value {
        let mut json = self.to_json();
        let Some(o) = json.as_object_mut() else {
            return json;
        };
        match (self, block) {
            (StreamEvent::TextEnd { .. }, Some(Content::Text { text, .. })) => {
                o.push("content".into(), text.as_str().into());
            }
            (StreamEvent::ThinkingEnd { .. }, Some(Content::Thinking { thinking, .. })) => {
                o.push("content".into(), thinking.as_str().into());
            }
            (StreamEvent::ToolCallEnd { .. }, Some(Content::ToolCall(call))) => {
                o.push("toolCall".into(), call.to_json());
            }
            _ => {}
        }
        json
    }
}

/// A retry's fields as pi's `auto_retry_start` spells them (the stream event and
/// the agent event carry the same four).
fn push_retry(o: &mut Object, attempt: u32, max_attempts: u32, delay_ms: u64, error: &str) {
    o.push("attempt".into(), u64::from(attempt).into());
    o.push("maxAttempts".into(), u64::from(max_attempts).into());
    o.push("delayMs".into(), delay_ms.into());
    o.push("errorMessage".into(), error.into());
}

impl ToJson for StreamEvent {
    /// The event's own fields (`type`, `contentIndex`, `delta`, `reason`), without the
    /// partial message; see [`crate::event_lines::EventLines`] for pi's full line.
    fn to_json(&self) -> Value {
        let mut o = Object::new();
        o.push("type".into(), self.type_name().into());
        match self {
            StreamEvent::Start => {}
            StreamEvent::Retry {
                attempt,
                max_attempts,
                delay_ms,
                error,
            } => push_retry(&mut o, *attempt, *max_attempts, *delay_ms, error),
            StreamEvent::TextStart { index }
            | StreamEvent::TextEnd { index }
            | StreamEvent::ThinkingStart { index }
            | StreamEvent::ThinkingEnd { index }
            | StreamEvent::ToolCallStart { index }
            | StreamEvent::ToolCallEnd { index } => {
                o.push("contentIndex".into(), (*index).into());
            }
            StreamEvent::TextDelta { index, delta }
            | StreamEvent::ThinkingDelta { index, delta }
            | StreamEvent::ToolCallDelta { index, delta } => {
                o.push("contentIndex".into(), (*index).into());
                o.push("delta".into(), delta.as_str().into());
            }
            StreamEvent::Done { reason } | StreamEvent::Error { reason } => {
                o.push("reason".into(), reason.as_str().into());
            }
        }
        Value::Object(o)
    }
}

impl AgentEvent {
    /// Whether the event only adds text to a streaming block (a text, thinking or
    /// tool-argument delta): what a reader may take in batches, and what cannot
    /// change anything but that block.
    pub fn is_delta(&self) -> bool {
        matches!(
            self,
            AgentEvent::MessageUpdate {
                event: StreamEvent::TextDelta { .. }
                    | StreamEvent::ThinkingDelta { .. }
                    | StreamEvent::ToolCallDelta { .. },
                ..
            }
        )
    }

    /// The pi event type name (`agent_start`, `message_update`, `tool_execution_end`…).
    pub fn type_name(&self) -> &'static str {
        match self {
            AgentEvent::AgentStart => "agent_start",
            AgentEvent::AgentEnd { .. } => "agent_end",
            AgentEvent::TurnStart => "turn_start",
            AgentEvent::TurnEnd { .. } => "turn_end",
            AgentEvent::MessageStart { .. } => "message_start",
            AgentEvent::MessageUpdate { .. } => "message_update",
            AgentEvent::MessageEnd { .. } => "message_end",
            AgentEvent::AutoRetryStart { .. } => "auto_retry_start",
            AgentEvent::AutoRetryEnd { .. } => "auto_retry_end",
            AgentEvent::CompactionStart { .. } => "auto_compaction_start",
            AgentEvent::CompactionEnd { .. } => "auto_compaction_end",
            AgentEvent::ToolExecutionStart { .. } => "tool_execution_start",
            AgentEvent::ToolExecutionUpdate { .. } => "tool_execution_update",
            AgentEvent::ToolExecutionEnd { .. } => "tool_execution_end",
        }
    }
}

impl ToJson for AgentEvent {
    /// The event as JSON, in pi's shape; `message_update` lacks pi's `partial` and
    /// `message` (see [`crate::event_lines::EventLines`], which adds them).
    fn to_json(&self) -> Value {
        let mut o = Object::new();
        o.push("type".into(), self.type_name().into());
        match self {
            AgentEvent::AgentStart | AgentEvent::TurnStart => {}
            AgentEvent::AgentEnd { messages, reason } => {
                o.push("messages".into(), messages.to_json());
                o.push("reason".into(), reason.as_str().into());
                match reason {
                    EndReason::Error(message) => {
                        o.push("errorMessage".into(), message.as_str().into())
                    }
                    EndReason::TurnLimit(n) | EndReason::CircuitBreaker(n) => {
                        o.push("limit".into(), (*n).into())
                    }
                    EndReason::StopHookLimit(n) => o.push("limit".into(), (*n as usize).into()),
                    EndReason::Completed | EndReason::Aborted => {}
                }
            }
            AgentEvent::TurnEnd {
                message,
                tool_results,
            } => {
                o.push(
                    "message".into(),
                    Message::Assistant(message.clone()).to_json(),
                );
                let results: Vec<Value> = tool_results
                    .iter()
                    .map(|r| Message::ToolResult(r.clone()).to_json())
                    .collect();
                o.push("toolResults".into(), Value::Array(results));
            }
            AgentEvent::MessageStart { message } | AgentEvent::MessageEnd { message } => {
                o.push("message".into(), message.to_json());
            }
            // Without the partial message, which the event does not carry; see
            // `event_lines` for pi's full line.
            AgentEvent::MessageUpdate { event, block } => {
                o.push(
                    "assistantMessageEvent".into(),
                    event.to_json_with_block(block.as_ref()),
                );
            }
            AgentEvent::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                error_message,
            } => push_retry(&mut o, *attempt, *max_attempts, *delay_ms, error_message),
            AgentEvent::AutoRetryEnd {
                success,
                attempt,
                final_error,
            } => {
                o.push("success".into(), (*success).into());
                o.push("attempt".into(), (*attempt as u64).into());
                if let Some(error) = final_error {
                    o.push("finalError".into(), error.as_str().into());
                }
            }
            AgentEvent::CompactionStart { reason } => {
                o.push("reason".into(), reason.as_str().into());
            }
            AgentEvent::CompactionEnd {
                result,
                aborted,
                will_retry,
                error_message,
            } => {
                let result = result.as_ref().map_or(Value::Null, Compacted::to_json);
                o.push("result".into(), result);
                o.push("aborted".into(), (*aborted).into());
                o.push("willRetry".into(), (*will_retry).into());
                if let Some(error) = error_message {
                    o.push("errorMessage".into(), error.as_str().into());
                }
            }
            AgentEvent::ToolExecutionStart {
                call_id,
                tool_name,
                args,
            } => {
                o.push("toolCallId".into(), call_id.as_str().into());
                o.push("toolName".into(), tool_name.as_str().into());
                o.push("args".into(), args.clone());
            }
            AgentEvent::ToolExecutionUpdate {
                call_id,
                tool_name,
                args,
                partial,
            } => {
                o.push("toolCallId".into(), call_id.as_str().into());
                o.push("toolName".into(), tool_name.as_str().into());
                o.push("args".into(), args.clone());
                o.push("partialResult".into(), partial.to_json());
            }
            AgentEvent::ToolExecutionEnd {
                call_id,
                tool_name,
                output,
            } => {
                o.push("toolCallId".into(), call_id.as_str().into());
                o.push("toolName".into(), tool_name.as_str().into());
                o.push("result".into(), output.to_json());
                o.push("isError".into(), output.is_error.into());
            }
        }
        Value::Object(o)
    }
}
