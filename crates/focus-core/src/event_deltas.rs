//! [`write_delta_line`]: agent events as a linear stream of JSON lines
//! (`focus --mode json --events deltas`), whose size grows with the answer,
//! not with its square.
//!
//! pi's lines (see [`crate::event_lines`]) repeat the whole message so far on
//! every `message_update`, and the finished message again in `turn_end` and
//! `agent_end`. Here each piece of the answer is written once:
//! - `message_update` carries only the stream event (`text_delta` with its
//!   `delta`, `text_end` with its `contentIndex`…), never the partial message
//!   nor the closed block's content;
//! - `message_end` carries the whole message, once, at its end;
//! - `turn_end` carries nothing more (its message and tool results were each
//!   written at their own `message_end`), and `agent_end` only why the run ended.
//!
//! Every other event is written as in pi's shape. docs/json-events.md shows both.

use std::io::{self, Write};

use crate::event::AgentEvent;
use crate::json::{ToJson, Value};

/// Writes `event` as one line (ending in `\n`) of the linear shape to `out`.
/// Does not flush.
///
/// # Errors
/// Whatever writing to `out` returns.
pub fn write_delta_line(event: &AgentEvent, out: &mut dyn Write) -> io::Result<()> {
    let mut json = match event {
        // Only the stream event's own fields, without the closed block.
        AgentEvent::MessageUpdate { event, .. } => {
            let mut o = crate::json::Object::new();
            o.push("type".into(), "message_update".into());
            o.push("assistantMessageEvent".into(), event.to_json());
            Value::Object(o)
        }
        other => other.to_json(),
    };
    if let Some(o) = json.as_object_mut() {
        match event {
            AgentEvent::TurnEnd { .. } => {
                o.remove("message");
                o.remove("toolResults");
            }
            AgentEvent::AgentEnd { .. } => {
                o.remove("messages");
            }
            _ => {}
        }
    }
    let mut line = json.to_json_string();
    line.push('\n');
    out.write_all(line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::write_delta_line;
    use crate::event::{AgentEvent, EndReason};
    use crate::json::parse_str;
    use crate::message::{AssistantMessage, Content, Message};
    use crate::provider::StreamEvent;

    fn line(event: &AgentEvent) -> String {
        let mut out = Vec::new();
        write_delta_line(event, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_delta_is_written_once_and_ends_carry_no_copy() {
        let delta = line(&AgentEvent::MessageUpdate {
            event: StreamEvent::TextDelta {
                index: 0,
                delta: "hé\"llo".into(),
            },
            block: Some(Content::text("much earlier text hé\"llo")),
        });
        assert_eq!(
            delta,
            "{\"type\":\"message_update\",\"assistantMessageEvent\":{\"type\":\"text_delta\",\"contentIndex\":0,\"delta\":\"hé\\\"llo\"}}\n"
        );
        let end = line(&AgentEvent::MessageUpdate {
            event: StreamEvent::TextEnd { index: 0 },
            block: Some(Content::text("the whole block")),
        });
        assert!(!end.contains("the whole block"), "{end}");
        let message = AssistantMessage {
            content: vec![Content::text("the answer")],
            ..AssistantMessage::default()
        };
        let turn = line(&AgentEvent::TurnEnd {
            message: message.clone(),
            tool_results: Vec::new(),
        });
        assert_eq!(turn, "{\"type\":\"turn_end\"}\n");
        let agent_end = line(&AgentEvent::AgentEnd {
            messages: vec![Message::Assistant(message.clone())],
            reason: EndReason::Completed,
        });
        assert!(!agent_end.contains("the answer"), "{agent_end}");
        let parsed = parse_str(agent_end.trim_end()).unwrap();
        assert_eq!(parsed["reason"].as_str(), Some("completed"));
        // The whole message, once, at its end.
        let message_end = line(&AgentEvent::MessageEnd {
            message: Message::Assistant(message),
        });
        assert_eq!(message_end.matches("the answer").count(), 1);
    }
}
