//! JSON mode (`--mode json`): the session header first (when there is a session),
//! then every agent event as one JSON object per line, exactly as documented in
//! docs/json-events.md. Nothing else is written to stdout; the exit code is
//! the outcome's (docs/cli.md), and the last line is the result record
//! (`{"type":"result",…}`, [`outcome`](super::outcome)). `--events deltas`
//! writes the agent events in the linear shape instead
//! ([`focus_core::event_deltas`]).
//!
//! The one call into the harness, as in print mode: `Conversation::run_to_end`.

use crate::args::headless::Headless;
use crate::engine::Engine;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::event_deltas::write_delta_line;
use focus_core::event_lines::EventLines;
use focus_core::json::Value;
use focus_core::message::Message;
use focus_harness::conversation::ConversationEvent;
use std::io::Write;

/// Runs `prompts` and prints every event, then the result record as the last
/// line; returns the exit code (docs/cli.md's table, [`outcome`](super::outcome)).
pub fn run(engine: &mut Engine, prompts: Vec<Message>, headless: &Headless) -> i32 {
    if let Some(header) = engine.conversation.session.lock().header_json() {
        write_line(&header);
    }
    let mut lines = EventLines::new();
    let deltas = headless.deltas_events;
    for prompt in prompts {
        let outcome = engine
            .conversation
            .run_to_end(vec![prompt], &mut |event| match event {
                ConversationEvent::Agent(event) if deltas => write_delta_event(event),
                _ => write_conversation_event(&mut lines, event),
            });
        if outcome.reason != EndReason::Completed {
            if let EndReason::Error(message) = &outcome.reason {
                errln!("focus: {message}");
            }
            break;
        }
    }
    let (code, record) = super::outcome::finish(engine, headless);
    write_line(&record);
    code
}

/// Writes one event of the conversation as a JSON line: the run's through
/// `lines` ([`write_event`]), the conversation's own in pi's shape (or
/// focus's, for a warning); `RunEnded` and the retry say nothing pi's lines
/// would.
pub fn write_conversation_event(lines: &mut EventLines, event: &ConversationEvent) {
    match event {
        ConversationEvent::Agent(event) => write_event(lines, event),
        other => {
            if let Some(line) = other.own_json() {
                write_line(&line);
            }
        }
    }
}

/// Writes one event as a line of the linear shape (`--events deltas`, see
/// [`focus_core::event_deltas`]) to stdout and flushes it.
pub fn write_delta_event(event: &AgentEvent) {
    let mut out = std::io::stdout().lock();
    let _ = write_delta_line(event, &mut out);
    let _ = out.flush();
}

/// Writes one JSON line to stdout and flushes it (consumers read line by line).
pub fn write_line(value: &Value) {
    let mut line = value.to_json_string();
    line.push('\n');
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.flush();
}

/// Writes one event as a JSON line to stdout (pi's shape, see docs/json-events.md)
/// and flushes it. `lines` folds streamed updates into the partial message pi's
/// `message_update` lines carry; the line goes out in pieces, never built whole.
pub fn write_event(lines: &mut EventLines, event: &AgentEvent) {
    let mut out = std::io::stdout().lock();
    let _ = lines.write(event, &mut out);
    let _ = out.flush();
}
