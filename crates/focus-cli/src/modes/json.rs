//! JSON mode (`--mode json`): the session header first (when there is a session),
//! then every agent event as one JSON object per line, exactly as documented in
//! docs/json-events.md. Nothing else is written to stdout; the exit code is
//! non-zero when the run ends in an error.

use crate::engine::Engine;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::json::Value;
use focus_core::message::Message;
use std::io::Write;

/// Runs `prompts` and prints every event; returns the exit code.
pub fn run(engine: &mut Engine, prompts: Vec<Message>) -> i32 {
    if let Some(header) = engine.store.header_json() {
        write_line(&header);
    }
    for prompt in prompts {
        let outcome = engine.run_blocking(
            vec![prompt],
            &mut |event| write_line(&event_json(event)),
            &mut |notice| write_line(notice),
        );
        if outcome.reason != EndReason::Completed {
            if let EndReason::Error(message) = &outcome.reason {
                errln!("focus: {message}");
            }
            if outcome.reason == EndReason::Aborted {
                return crate::EXIT_INTERRUPTED;
            }
            return crate::EXIT_FAILURE;
        }
    }
    0
}

/// Writes one JSON line to stdout and flushes it (consumers read line by line).
pub fn write_line(value: &Value) {
    let mut line = value.to_json_string();
    line.push('\n');
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.flush();
}

/// The JSON form of an event (pi's shape, defined in focus-core; see
/// docs/json-events.md).
pub fn event_json(event: &AgentEvent) -> Value {
    use focus_core::json::ToJson;
    event.to_json()
}
