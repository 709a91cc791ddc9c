//! The two rules every run keeps, written as checkers that tests (and other
//! crates: the session writer, the RPC server) can run on real data.
//!
//! **History**: every tool call of an assistant message is answered by exactly one
//! tool result, in the order the calls were made, ids matching, before anything
//! else (the next assistant message, a user message, anything) — and the history
//! never ends with a call unanswered. Providers reject anything else.
//!
//! **Events**: `AgentStart`, then turns, then one `AgentEnd`. Inside a turn
//! (`TurnStart` … `TurnEnd`): messages and tool executions, never nested in one
//! another; every `MessageStart` has one `MessageEnd` (same role); `MessageUpdate`
//! only inside an assistant message; every `ToolExecutionStart` has one
//! `ToolExecutionEnd` with the same id before the turn ends (updates in between).
//! `TurnEnd` lists the tool results that ended in the turn; `AgentEnd` lists every
//! message that ended in the run, in order.

use crate::event::AgentEvent;
use crate::message::{Message, ToolCall};

/// Checks the history rule; the error names the first offending message by index.
///
/// # Errors
///
/// The history breaks the rule: the message says which message (by index) and how (a call
/// unanswered, a result without its call, out of order).
pub fn check_history(messages: &[Message]) -> Result<(), String> {
    let mut pending: Vec<&ToolCall> = Vec::new(); // calls of messages[owner]
    let mut owner = 0;
    let mut next = 0; // the call answered next
    for (i, message) in messages.iter().enumerate() {
        if let Some(call) = pending.get(next) {
            match message {
                Message::ToolResult(result) if result.tool_call_id == call.id => next += 1,
                Message::ToolResult(result) => {
                    return Err(format!(
                        "messages[{i}]: tool result for call {:?}, but call {:?} ({}) of messages[{owner}] must be answered next",
                        result.tool_call_id, call.id, call.name
                    ))
                }
                other => {
                    return Err(format!(
                        "messages[{i}]: {} message before call {:?} ({}) of messages[{owner}] was answered",
                        other.role(),
                        call.id,
                        call.name
                    ))
                }
            }
            continue;
        }
        match message {
            Message::ToolResult(result) => {
                return Err(format!(
                    "messages[{i}]: tool result for call {:?} answers no pending tool call",
                    result.tool_call_id
                ))
            }
            Message::Assistant(assistant) => {
                pending.clear(); // reuses the buffer: no allocation per message
                pending.extend(assistant.tool_calls());
                owner = i;
                next = 0;
            }
            _ => {}
        }
    }
    match pending.get(next) {
        Some(call) => Err(format!(
            "the history ends before call {:?} ({}) of messages[{owner}] was answered",
            call.id, call.name
        )),
        None => Ok(()),
    }
}

/// A copy of `messages` that keeps the history rule: after each assistant message,
/// its calls' results in call order (taken from the tool results that follow it),
/// a synthesized error result `No result provided.` for each call without one, and
/// stray tool results (answering no call of that message) dropped.
///
/// The loop never produces a history that needs this; histories loaded from
/// elsewhere can (pi keeps an aborted message's calls unanswered and patches them
/// the same way when it sends). The loop applies it to the view sent to the model
/// only, and only when [`check_history`] fails.
pub fn repair_history(messages: &[Message]) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    let mut i = 0;
    while i < messages.len() {
        let message = &messages[i];
        i += 1;
        match message {
            Message::Assistant(assistant) => {
                out.push(message.clone());
                let first_result = i;
                while matches!(messages.get(i), Some(Message::ToolResult(_))) {
                    i += 1;
                }
                let mut results: Vec<Option<&Message>> =
                    messages[first_result..i].iter().map(Some).collect();
                for call in assistant.tool_calls() {
                    let found = results.iter_mut().find(
                        |r| matches!(r, Some(Message::ToolResult(t)) if t.tool_call_id == call.id),
                    );
                    match found.and_then(Option::take) {
                        Some(result) => out.push(result.clone()),
                        None => out.push(Message::ToolResult(crate::message::ToolResultMessage {
                            tool_call_id: call.id.clone(),
                            tool_name: call.name.clone(),
                            content: vec![crate::message::Content::text("No result provided.")],
                            details: crate::json::Value::Null,
                            is_error: true,
                            timestamp: 0,
                        })),
                    }
                }
            }
            Message::ToolResult(_) => {} // answers no call: dropped
            _ => out.push(message.clone()),
        }
    }
    out
}

/// The calls of the last assistant message that have no result yet (empty when the
/// history is well-formed at its end). Used to repair a history after a failure.
pub fn unanswered_calls(messages: &[Message]) -> Vec<&ToolCall> {
    let Some(last) = messages
        .iter()
        .rposition(|m| matches!(m, Message::Assistant(_)))
    else {
        return Vec::new();
    };
    let answered = messages[last + 1..]
        .iter()
        .take_while(|m| matches!(m, Message::ToolResult(_)))
        .count();
    let calls: Vec<&ToolCall> = messages[last]
        .as_assistant()
        .map_or_else(Vec::new, |a| a.tool_calls().collect());
    calls.into_iter().skip(answered).collect()
}

/// What is open while checking the event grammar.
#[derive(Default)]
struct Open {
    agent: bool,
    ended: bool,
    turn: bool,
    message: Option<String>, // role of the open message
    tools: Vec<String>,      // ids of running tool calls
    turn_results: Vec<Message>,
    run_messages: Vec<Message>,
}

/// Checks the event grammar; the error names the first offending event by index.
///
/// # Errors
///
/// The events break the grammar: the message says which event (by index) and what was expected
/// there.
pub fn check_event_grammar(events: &[AgentEvent]) -> Result<(), String> {
    let mut open = Open::default();
    for (i, event) in events.iter().enumerate() {
        step(&mut open, event).map_err(|e| format!("events[{i}] ({}): {e}", event.type_name()))?;
    }
    match (open.agent, open.ended) {
        (false, _) => Err("no AgentStart".into()),
        (true, false) => Err("the events end without AgentEnd".into()),
        (true, true) => Ok(()),
    }
}

fn step(open: &mut Open, event: &AgentEvent) -> Result<(), String> {
    if open.ended {
        return Err("event after AgentEnd".into());
    }
    if !open.agent && !matches!(event, AgentEvent::AgentStart) {
        return Err("event before AgentStart".into());
    }
    let in_turn = |open: &Open| {
        if open.turn {
            Ok(())
        } else {
            Err("outside a turn".to_string())
        }
    };
    let no_message = |open: &Open| match &open.message {
        Some(role) => Err(format!("while a {role} message is open")),
        None => Ok(()),
    };
    match event {
        AgentEvent::AgentStart if open.agent => return Err("second AgentStart".into()),
        AgentEvent::AgentStart => open.agent = true,
        AgentEvent::AgentEnd { messages, .. } => {
            if open.turn {
                return Err("a turn is still open".into());
            }
            if *messages != open.run_messages {
                return Err(format!(
                    "lists {} messages, but {} messages ended in the run",
                    messages.len(),
                    open.run_messages.len()
                ));
            }
            open.ended = true;
        }
        AgentEvent::TurnStart if open.turn => return Err("a turn is already open".into()),
        AgentEvent::TurnStart => open.turn = true,
        AgentEvent::TurnEnd { tool_results, .. } => {
            in_turn(open)?;
            no_message(open)?;
            if let Some(id) = open.tools.first() {
                return Err(format!("tool call {id:?} is still running"));
            }
            let ended: Vec<Message> = tool_results
                .iter()
                .cloned()
                .map(Message::ToolResult)
                .collect();
            if ended != open.turn_results {
                return Err(
                    "tool_results differ from the tool results that ended in the turn".into(),
                );
            }
            open.turn_results.clear();
            open.turn = false;
        }
        AgentEvent::MessageStart { message } => {
            in_turn(open)?;
            no_message(open)?;
            if let Some(id) = open.tools.first() {
                return Err(format!("while tool call {id:?} is running"));
            }
            open.message = Some(message.role().to_string());
        }
        AgentEvent::MessageUpdate { .. } => match open.message.as_deref() {
            Some("assistant") => {}
            Some(role) => return Err(format!("update of a {role} message")),
            None => return Err("no message is open".into()),
        },
        AgentEvent::MessageEnd { message } => {
            match open.message.take() {
                Some(role) if role == message.role() => {}
                Some(role) => {
                    return Err(format!(
                        "ends a {} message, but a {role} message is open",
                        message.role()
                    ))
                }
                None => return Err("no message is open".into()),
            }
            if matches!(message, Message::ToolResult(_)) {
                open.turn_results.push(message.clone());
            }
            open.run_messages.push(message.clone());
        }
        // A retry or a compaction happens between a turn's start and its model
        // message.
        AgentEvent::AutoRetryStart { .. }
        | AgentEvent::AutoRetryEnd { .. }
        | AgentEvent::CompactionStart { .. }
        | AgentEvent::CompactionEnd { .. } => {
            in_turn(open)?;
            no_message(open)?;
        }
        AgentEvent::ToolExecutionStart { call_id, .. } => {
            in_turn(open)?;
            no_message(open)?;
            if open.tools.contains(call_id) {
                return Err(format!("tool call {call_id:?} is already running"));
            }
            open.tools.push(call_id.clone());
        }
        AgentEvent::ToolExecutionUpdate { call_id, .. } => {
            if !open.tools.contains(call_id) {
                return Err(format!("tool call {call_id:?} is not running"));
            }
        }
        AgentEvent::ToolExecutionEnd { call_id, .. } => {
            match open.tools.iter().position(|id| id == call_id) {
                Some(at) => {
                    open.tools.remove(at);
                }
                None => return Err(format!("tool call {call_id:?} is not running")),
            }
        }
    }
    Ok(())
}
