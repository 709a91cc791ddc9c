//! [`EventLines`]: agent events as pi's JSON lines (`focus --mode json`, the RPC
//! mode's events), written as they come.
//!
//! pi's `message_update` line carries the whole message so far, twice: as the
//! event's `partial` and as `message`. The events themselves carry only what
//! changed (see [`AgentEvent::MessageUpdate`]), so this writer keeps its own copy of
//! the message being streamed and folds each update into it. The copy is kept in
//! the form it is printed in: for every block, the JSON around the growing part
//! (`{"type":"text","text":` … `}`) and the growing part itself, already escaped.
//! A delta is escaped once, when it arrives, and appended; a line is then a
//! handful of `write_all` calls of text that is ready. Nothing builds the message
//! as a [`Value`] or the line as one string, so memory stays at the size of the
//! answer however many lines are written.
//!
//! The lines grow with the answer (that is pi's format): N deltas write O(N²)
//! bytes, and this writer spends time in proportion to the bytes, not more.
//!
//! Tool-call arguments stream as JSON text; the `partial` shows them parsed. The
//! raw text is kept and re-read leniently only when it has grown by an eighth
//! since the last reading (or while it is short), so the shown arguments may lag
//! a little behind and the parsing costs O(N) over the whole call, not O(N²).
//!
//! A partial's `usage` and `stopReason` are those of the message when it started
//! streaming; the `message_end` line carries the final ones.

use std::io::{self, Write};

use crate::event::AgentEvent;
use crate::json::serialize::{write_escaped, write_string, write_value};
use crate::json::{parse_partial, ToJson, Value};
use crate::message::{Content, Message};
use crate::provider::StreamEvent;

/// Writes agent events as JSON lines, folding streamed updates into the partial
/// message pi's lines carry. One per output stream (it remembers the message
/// being streamed).
#[derive(Default)]
pub struct EventLines {
    /// The assistant message being streamed, between its start and its end.
    partial: Option<PartialJson>,
}

/// The streamed message, ready to print: `head` `[` blocks `]` `tail`.
struct PartialJson {
    /// The message's fields before its content, ending in `"content":`.
    head: String,
    /// The message's fields after its content, and the closing brace.
    tail: String,
    /// The content blocks, by index.
    blocks: Vec<BlockJson>,
}

/// One content block of the streamed message, ready to print.
enum BlockJson {
    /// A block that no longer changes: its whole JSON.
    Fixed(String),
    /// An open text or thinking block: `head` `"` `escaped` `"` `tail`.
    Text {
        head: String,
        escaped: String,
        tail: String,
    },
    /// An open tool call: `head` `arguments` `tail`, where `arguments` is the JSON
    /// of a lenient reading of `raw` when it was `read_at` bytes long.
    Call {
        head: String,
        raw: String,
        read_at: usize,
        arguments: String,
        tail: String,
    },
}

/// Below this many bytes, a tool call's arguments are re-read on every delta.
const ALWAYS_REREAD_BYTES: usize = 4096;

impl EventLines {
    /// A writer with no message in progress.
    pub fn new() -> EventLines {
        EventLines::default()
    }

    /// Writes `event` as one line (ending in `\n`) to `out`. Does not flush.
    ///
    /// # Errors
    ///
    /// What writing to `out` fails with (a closed pipe, a full disk).
    pub fn write(&mut self, event: &AgentEvent, out: &mut dyn Write) -> io::Result<()> {
        match event {
            AgentEvent::MessageStart {
                message: Message::Assistant(message),
            } => {
                self.partial = PartialJson::new(&Message::Assistant(message.clone()).to_json());
            }
            AgentEvent::MessageEnd {
                message: Message::Assistant(_),
            } => self.partial = None,
            AgentEvent::MessageUpdate { event, block } => {
                return self.write_update(event, block.as_ref(), out);
            }
            _ => {}
        }
        let mut line = event.to_json().to_json_string();
        line.push('\n');
        out.write_all(line.as_bytes())
    }

    /// Folds one update into the partial message and writes pi's line:
    /// `{"type":"message_update","assistantMessageEvent":{…,"partial":P},"message":P}`.
    fn write_update(
        &mut self,
        event: &StreamEvent,
        block: Option<&Content>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let mut fields = event.to_json_with_block(block).to_json_string();
        let Some(partial) = &mut self.partial else {
            // An update outside a message breaks the event grammar; print what
            // there is rather than invent a message.
            let line =
                format!("{{\"type\":\"message_update\",\"assistantMessageEvent\":{fields}}}\n");
            return out.write_all(line.as_bytes());
        };
        partial.apply(event, block);
        fields.pop(); // the closing brace: `partial` goes inside
        out.write_all(b"{\"type\":\"message_update\",\"assistantMessageEvent\":")?;
        out.write_all(fields.as_bytes())?;
        out.write_all(b",\"partial\":")?;
        partial.write(out)?;
        out.write_all(b"},\"message\":")?;
        partial.write(out)?;
        out.write_all(b"}\n")
    }
}

impl PartialJson {
    /// The message as it started streaming (`None` if it is not a JSON object
    /// with `content`, which `Message::to_json` always gives).
    fn new(message: &Value) -> Option<PartialJson> {
        let (head, tail) = split_at_key(message, "content")?;
        let blocks = match message.get("content") {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .map(|b| BlockJson::Fixed(b.to_json_string()))
                .collect(),
            _ => Vec::new(),
        };
        Some(PartialJson { head, tail, blocks })
    }

    /// Applies one stream event: a block opens or closes (and is then `block`), or
    /// a delta is appended.
    fn apply(&mut self, event: &StreamEvent, block: Option<&Content>) {
        let Some(index) = event.index() else { return };
        let opened = matches!(
            event,
            StreamEvent::TextStart { .. }
                | StreamEvent::ThinkingStart { .. }
                | StreamEvent::ToolCallStart { .. }
        );
        if let (Some(block), true) = (block, event.opens_or_closes_a_block()) {
            let json = if opened {
                BlockJson::open(block)
            } else {
                BlockJson::Fixed(block.to_json().to_json_string())
            };
            match index.cmp(&self.blocks.len()) {
                std::cmp::Ordering::Less => self.blocks[index] = json,
                std::cmp::Ordering::Equal => self.blocks.push(json),
                // A block opened out of order: the event grammar forbids it.
                std::cmp::Ordering::Greater => {}
            }
            return;
        }
        let delta = match event {
            StreamEvent::TextDelta { delta, .. }
            | StreamEvent::ThinkingDelta { delta, .. }
            | StreamEvent::ToolCallDelta { delta, .. } => delta,
            _ => return,
        };
        match self.blocks.get_mut(index) {
            Some(BlockJson::Text { escaped, .. }) => write_escaped(delta, escaped),
            Some(BlockJson::Call {
                raw,
                read_at,
                arguments,
                ..
            }) => {
                raw.push_str(delta);
                if raw.len() <= ALWAYS_REREAD_BYTES || raw.len() - *read_at >= raw.len() / 8 {
                    *read_at = raw.len();
                    *arguments = parse_partial(raw).to_json_string();
                }
            }
            Some(BlockJson::Fixed(_)) | None => {}
        }
    }

    /// Writes the message as it is now.
    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(self.head.as_bytes())?;
        out.write_all(b"[")?;
        for (i, block) in self.blocks.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            block.write(out)?;
        }
        out.write_all(b"]")?;
        out.write_all(self.tail.as_bytes())
    }
}

impl BlockJson {
    /// The printable form of a block that has just opened.
    fn open(block: &Content) -> BlockJson {
        let json = block.to_json();
        let split = |key| split_at_key(&json, key);
        match block {
            Content::Text { text, .. } | Content::Thinking { thinking: text, .. } => {
                let key = if matches!(block, Content::Text { .. }) {
                    "text"
                } else {
                    "thinking"
                };
                match split(key) {
                    Some((head, tail)) => {
                        let mut escaped = String::new();
                        write_escaped(text, &mut escaped);
                        BlockJson::Text {
                            head,
                            escaped,
                            tail,
                        }
                    }
                    None => BlockJson::Fixed(json.to_json_string()),
                }
            }
            Content::ToolCall(call) => match split("arguments") {
                Some((head, tail)) => BlockJson::Call {
                    head,
                    raw: String::new(),
                    read_at: 0,
                    arguments: call.arguments.to_json_string(),
                    tail,
                },
                None => BlockJson::Fixed(json.to_json_string()),
            },
            Content::Image { .. } => BlockJson::Fixed(json.to_json_string()),
        }
    }

    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            BlockJson::Fixed(json) => out.write_all(json.as_bytes()),
            BlockJson::Text {
                head,
                escaped,
                tail,
            } => {
                out.write_all(head.as_bytes())?;
                out.write_all(b"\"")?;
                out.write_all(escaped.as_bytes())?;
                out.write_all(b"\"")?;
                out.write_all(tail.as_bytes())
            }
            BlockJson::Call {
                head,
                arguments,
                tail,
                ..
            } => {
                out.write_all(head.as_bytes())?;
                out.write_all(arguments.as_bytes())?;
                out.write_all(tail.as_bytes())
            }
        }
    }
}

/// Splits an object's JSON around the value of `key`: the text before it (ending in
/// `"key":`) and after it (starting with `,` or the closing brace). `None` when
/// `value` is not an object holding `key`.
fn split_at_key(value: &Value, key: &str) -> Option<(String, String)> {
    let object = value.as_object()?;
    let (mut head, mut tail) = (String::from("{"), String::new());
    let mut found = false;
    for (k, v) in object.iter() {
        if k == key && !found {
            if head.len() > 1 {
                head.push(',');
            }
            write_string(k, &mut head);
            head.push(':');
            found = true;
            continue;
        }
        let out = if found { &mut tail } else { &mut head };
        if found || out.len() > 1 {
            out.push(',');
        }
        write_string(k, out);
        out.push(':');
        write_value(v, out, None);
    }
    tail.push('}');
    found.then_some((head, tail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_str;
    use crate::message::{AssistantMessage, ToolCall};

    fn lines(events: &[AgentEvent]) -> Vec<Value> {
        let mut writer = EventLines::new();
        let mut out = Vec::new();
        for e in events {
            writer.write(e, &mut out).unwrap();
        }
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| parse_str(l).unwrap())
            .collect()
    }

    fn update(event: StreamEvent, block: Option<Content>) -> AgentEvent {
        AgentEvent::MessageUpdate { event, block }
    }

    #[test]
    fn the_partial_is_the_fold_of_the_deltas_and_matches_the_final_message() {
        let call = ToolCall {
            id: "c1".into(),
            name: "write".into(),
            arguments: Value::Object(Default::default()),
            thought_signature: None,
            invalid_arguments: None,
        };
        let mut closed_call = call.clone();
        closed_call.arguments = parse_str(r#"{"path":"a\"b","content":"x\ny"}"#).unwrap();
        let start = AssistantMessage::default();
        let mut end = start.clone();
        end.content = vec![
            Content::text("he said \"hi\"\n"),
            Content::ToolCall(closed_call.clone()),
        ];
        let events = [
            AgentEvent::MessageStart {
                message: Message::Assistant(start),
            },
            update(StreamEvent::TextStart { index: 0 }, Some(Content::text(""))),
            update(
                StreamEvent::TextDelta {
                    index: 0,
                    delta: "he said \"h".into(),
                },
                None,
            ),
            update(
                StreamEvent::TextDelta {
                    index: 0,
                    delta: "i\"\n".into(),
                },
                None,
            ),
            update(
                StreamEvent::TextEnd { index: 0 },
                Some(Content::text("he said \"hi\"\n")),
            ),
            update(
                StreamEvent::ToolCallStart { index: 1 },
                Some(Content::ToolCall(call)),
            ),
            update(
                StreamEvent::ToolCallDelta {
                    index: 1,
                    delta: r#"{"path":"a\"b","con"#.into(),
                },
                None,
            ),
            update(
                StreamEvent::ToolCallEnd { index: 1 },
                Some(Content::ToolCall(closed_call)),
            ),
            AgentEvent::MessageEnd {
                message: Message::Assistant(end.clone()),
            },
        ];
        let out = lines(&events);
        assert_eq!(out.len(), events.len());
        let delta = &out[3];
        assert_eq!(delta["type"].as_str(), Some("message_update"));
        let partial = &delta["assistantMessageEvent"]["partial"];
        assert_eq!(partial, &delta["message"]);
        assert_eq!(
            partial["content"][0]["text"].as_str(),
            Some("he said \"hi\"\n")
        );
        let arguments = &out[6]["message"]["content"][1]["arguments"];
        assert_eq!(arguments["path"].as_str(), Some("a\"b"), "read leniently");
        let closed = &out[7];
        assert_eq!(
            closed["assistantMessageEvent"]["toolCall"]["arguments"]["content"].as_str(),
            Some("x\ny")
        );
        assert_eq!(
            closed["message"],
            Message::Assistant(end.clone()).to_json(),
            "after the last block closed, the partial is the final message"
        );
        assert_eq!(out[8]["message"], Message::Assistant(end).to_json());
    }

    #[test]
    fn the_key_split_keeps_every_other_field_in_order() {
        let value = parse_str(r#"{"a":1,"content":[2],"b":{"c":3}}"#).unwrap();
        let (head, tail) = split_at_key(&value, "content").unwrap();
        assert_eq!(format!("{head}[2]{tail}"), value.to_json_string());
        let first = parse_str(r#"{"content":[],"z":true}"#).unwrap();
        let (head, tail) = split_at_key(&first, "content").unwrap();
        assert_eq!(format!("{head}[]{tail}"), first.to_json_string());
        assert!(split_at_key(&first, "missing").is_none());
    }
}
