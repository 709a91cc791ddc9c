//! What the agent reports: [`AgentEvent`]s, sent over a channel to every consumer
//! (terminal renderer, JSON printer, RPC server, session writer).

use crate::json::Value;
use crate::message::{AssistantMessage, Message, ToolResultMessage};
use crate::provider::StreamEvent;
use crate::tool::ToolOutput;

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
}

/// One thing that happened in a run. The order is a grammar (see
/// docs/ARCHITECTURE.md): `AgentStart`, then turns, then `AgentEnd`; inside a turn,
/// every `MessageStart` has one `MessageEnd`, every `ToolExecutionStart` one
/// `ToolExecutionEnd`.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentEvent {
    /// The run began.
    AgentStart,
    /// The run ended; `messages` are the messages it added to the history.
    AgentEnd {
        messages: Vec<Message>,
        reason: EndReason,
    },
    /// A turn (one model call and the tool calls it asked for) began.
    TurnStart,
    /// A turn ended.
    TurnEnd {
        message: AssistantMessage,
        tool_results: Vec<ToolResultMessage>,
    },
    /// A message entered the history (user, tool result) or began streaming (assistant).
    MessageStart { message: Message },
    /// The streaming assistant message changed.
    MessageUpdate {
        message: AssistantMessage,
        event: StreamEvent,
    },
    /// A message is final.
    MessageEnd { message: Message },
    /// A tool call is about to run.
    ToolExecutionStart {
        call_id: String,
        tool_name: String,
        args: Value,
    },
    /// A running tool reported partial output.
    ToolExecutionUpdate {
        call_id: String,
        tool_name: String,
        args: Value,
        partial: ToolOutput,
    },
    /// A tool call finished (successfully or not).
    ToolExecutionEnd {
        call_id: String,
        tool_name: String,
        output: ToolOutput,
    },
}
