//! A saved conversation as blocks, for when it changes under the user: a
//! session opened with `-c`, `-r` or `--session`, `/resume`, `/tree`, `/fork`.
//! Tool results go under their calls; summaries (compaction, a left branch) are
//! marked blocks; a `!command` the user ran is a bash block.

use super::blocks::{Block, Kind, Streamed};
use super::tool_view::ToolBlock;
use crate::terminal::style::Style;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::{Content, Message, StopReason};
use std::collections::HashMap;

/// The blocks of `history`, all finished.
pub fn history_blocks(history: &[Message], style: Style) -> Vec<Block> {
    history_blocks_with_ends(history, style).0
}

/// The blocks of `history`, all finished, and for each message the number of
/// blocks made from it and the messages before it (where a note said after it
/// goes back: [`super::notes::interleave`]).
pub fn history_blocks_with_ends(history: &[Message], style: Style) -> (Vec<Block>, Vec<usize>) {
    let mut results = HashMap::new();
    let mut result_images = HashMap::new();
    for message in history {
        if let Message::ToolResult(r) = message {
            let images = super::images::ShownImage::all(&r.content);
            if !images.is_empty() {
                result_images.insert(r.tool_call_id.to_string(), images);
            }
            let text: Vec<&str> = r.content.iter().filter_map(Content::as_text).collect();
            results.insert(
                r.tool_call_id.to_string(),
                (text.join("\n"), r.details.clone(), r.is_error),
            );
        }
    }
    let mut blocks = Vec::new();
    let mut ends = Vec::with_capacity(history.len());
    for (i, message) in history.iter().enumerate() {
        // The blocks of the messages before this one.
        if i > 0 {
            ends.push(blocks.len());
        }
        match message {
            Message::User(u) => {
                let text: Vec<&str> = u.content.iter().filter_map(Content::as_text).collect();
                let images = super::images::ShownImage::all(&u.content);
                blocks.push(Block::done(Kind::User {
                    text: text.join("\n"),
                    images,
                }));
            }
            Message::Assistant(a) => {
                for content in &a.content {
                    match content {
                        Content::Text { text, .. } if !text.trim().is_empty() => {
                            blocks.push(Block::done(Kind::Answer(Streamed::new(text))));
                        }
                        Content::Thinking {
                            thinking,
                            redacted: false,
                            ..
                        } if !thinking.trim().is_empty() => {
                            blocks.push(Block::done(Kind::Thinking(Streamed::new(thinking))));
                        }
                        Content::ToolCall(call) => {
                            let result = results.remove(call.id.as_str());
                            let mut block =
                                ToolBlock::ended(&call.id, &call.name, &call.arguments, result);
                            if let Some(images) = result_images.remove(call.id.as_str()) {
                                block.show_images(images);
                            }
                            blocks.push(Block::done(Kind::Tool(Box::new(block))));
                        }
                        _ => {}
                    }
                }
                match a.stop_reason {
                    StopReason::Error => {
                        let error = a
                            .error_message
                            .as_deref()
                            .unwrap_or("the model call failed");
                        let error = focus_tools::output::sanitize(error);
                        blocks.push(Block::done(Kind::Note(
                            style.red(&format!("error: {error}")),
                        )));
                    }
                    StopReason::Aborted => {
                        blocks.push(Block::done(Kind::Note(style.dim("(aborted)"))));
                    }
                    _ => {}
                }
            }
            Message::ToolResult(_) => {}
            Message::Custom(c) if c.role == "bashExecution" => {
                // A `!command` the user ran (pi's message).
                blocks.push(execution_block(&c.raw));
            }
            Message::Custom(c) => {
                let label = match c.role.as_str() {
                    "compactionSummary" => "summary of the earlier conversation (compacted)",
                    "branchSummary" => "summary of a branch left behind",
                    _ => continue,
                };
                let text = c.raw["summary"].as_str().unwrap_or("").to_string();
                blocks.push(Block::done(Kind::Summary {
                    label: label.into(),
                    text,
                }));
            }
        }
    }
    if !history.is_empty() {
        ends.push(blocks.len());
    }
    (blocks, ends)
}

/// A `bashExecution` message (live, or from a saved session) as a bash block:
/// the command as its header, the output's tail under it, a failure marked.
pub fn execution_block(raw: &Value) -> Block {
    let mut output = raw["output"].as_str().unwrap_or("").to_string();
    let cancelled = raw["cancelled"].as_bool() == Some(true);
    let code = raw["exitCode"].as_i64().filter(|&c| c != 0);
    if cancelled {
        output.push_str("\n\n(command cancelled)");
    } else if let Some(code) = code {
        output.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    let details = json_object! {
        "exitCode" => raw["exitCode"].as_i64(),
        "truncated" => raw["truncated"].as_bool(),
        "fullOutputPath" => raw["fullOutputPath"].as_str(),
    };
    let block = ToolBlock::ended(
        "user-bash",
        "bash",
        &json_object! { "command" => raw["command"].as_str().unwrap_or("") },
        Some((output, details, cancelled || code.is_some())),
    );
    Block::done(Kind::Tool(Box::new(block)))
}

/// The marked block showing the compaction summary `history` starts from, if any.
pub fn summary_block(history: &[Message]) -> Option<Block> {
    let text = history.iter().find_map(|m| match m {
        Message::Custom(c) if c.role == "compactionSummary" => {
            Some(c.raw["summary"].as_str().unwrap_or("").to_string())
        }
        _ => None,
    })?;
    Some(Block::done(Kind::Summary {
        label: "summary of the earlier conversation (compacted)".into(),
        text,
    }))
}

/// The text of a user message.
pub fn message_text(message: &Message) -> String {
    match message {
        Message::User(u) => u
            .content
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::interactive::blocks::Look;
    use focus_core::message::UserMessage;

    #[test]
    fn a_message_text_is_a_user_message_text() {
        let user = Message::User(UserMessage {
            content: vec![
                Content::text("one"),
                Content::Image {
                    data: "".into(),
                    mime_type: "image/png".into(),
                },
                Content::text("two"),
            ],
            timestamp: 0,
        });
        assert_eq!(message_text(&user), "one\ntwo");
        let custom = Message::Custom(focus_core::message::CustomMessage {
            role: "note".into(),
            raw: Value::Null,
        });
        assert_eq!(message_text(&custom), "");
    }

    #[test]
    fn the_summary_of_a_compacted_history_is_a_marked_block() {
        assert!(summary_block(&[Message::User(UserMessage::text("hi", 0))]).is_none());
        let summary = focus_core::message::CustomMessage {
            role: "compactionSummary".into(),
            raw: json_object! { "summary" => "what happened" },
        };
        let block = summary_block(&[Message::Custom(summary)]).unwrap();
        assert!(matches!(
            &block.kind,
            Kind::Summary { text, .. } if text == "what happened"
        ));
    }

    #[test]
    fn a_history_becomes_blocks() {
        let history = vec![Message::User(UserMessage::text("hi there", 0))];
        let mut blocks = history_blocks(&history, Style::PLAIN);
        let look = Look {
            width: 40,
            style: Style::PLAIN,
            show_thinking: true,
            hyperlinks: false,
            graphics: None,
            host: Default::default(),
        };
        assert_eq!(blocks[0].rows(&look), ["", "› hi there"]);
    }
}
