//! Pruning old tool output: in a small context window, the oldest tool results
//! are replaced by a one-line note before anything is summarized.
//!
//! A window of a few thousand tokens holds two or three tool results; a
//! summary of them costs a model call and most of the window to write. The
//! TypeScript agent of design article 002 clears old tool calls before each
//! step instead, and so does focus for windows below [`PRUNE_BELOW_WINDOW`]:
//! [`prune_tool_outputs`] works on the messages about to be sent (the session
//! keeps every result in full), oldest first, until their text fits
//! [`prune_target`]. Results the model has not answered yet (those after the
//! last assistant message) are never pruned.
//!
//! The choice depends on the messages alone, so every call of a run prunes the
//! same results and the provider's reported usage keeps measuring what is sent.

use super::tokens::{estimate_message_tokens, estimate_text_tokens, tokens_for_chars};
use focus_core::message::{Content, Message};

/// Windows smaller than this get their old tool output pruned before compacting.
pub const PRUNE_BELOW_WINDOW: u64 = 32_768;

/// How many tokens of message text a window of `context_window` keeps before
/// old tool output is pruned: half the window (the system prompt, the tool
/// definitions and the answer need the rest). `None` for windows that are not
/// pruned (unknown, or at least [`PRUNE_BELOW_WINDOW`]).
pub fn prune_target(context_window: u64) -> Option<u64> {
    (context_window > 0 && context_window < PRUNE_BELOW_WINDOW).then_some(context_window / 2)
}

/// The note that replaces a pruned tool result.
pub fn pruned_note(tool_name: &str, chars: usize) -> String {
    format!(
        "[{tool_name} output of {chars} characters pruned to fit the context window; run it again if it is needed]"
    )
}

/// `messages` with the oldest tool results replaced by [`pruned_note`] until
/// their estimated text is at most `target_tokens` (or nothing more may be
/// pruned), and the tokens saved.
pub fn prune_tool_outputs(messages: Vec<Message>, target_tokens: u64) -> (Vec<Message>, u64) {
    let mut total = estimate_text_tokens(&messages);
    if total <= target_tokens {
        return (messages, 0);
    }
    // Results after the last assistant message are what the model is about to read.
    let protected_from = messages
        .iter()
        .rposition(|m| matches!(m, Message::Assistant(_)))
        .unwrap_or(0);
    let mut messages = messages;
    let mut saved = 0u64;
    for message in messages[..protected_from].iter_mut() {
        if total <= target_tokens {
            break;
        }
        let before = estimate_message_tokens(message);
        let Message::ToolResult(result) = message else {
            continue;
        };
        let chars: usize = result
            .content
            .iter()
            .filter_map(Content::as_text)
            .map(|t| t.chars().count())
            .sum();
        let note = pruned_note(&result.tool_name, chars);
        let gain = before.saturating_sub(tokens_for_chars(note.chars().count() as u64));
        if gain == 0 {
            continue; // already as short as the note (or pruned before)
        }
        result.content = vec![Content::text(note)];
        saved += gain;
        total = total.saturating_sub(gain);
    }
    (messages, saved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::message::{AssistantMessage, ToolResultMessage, UserMessage};

    fn result(text: &str) -> Message {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: "c".into(),
            tool_name: "bash".into(),
            content: vec![Content::text(text)],
            details: focus_core::json::Value::Null,
            is_error: false,
            timestamp: 0,
        })
    }

    fn assistant() -> Message {
        Message::Assistant(AssistantMessage::default())
    }

    #[test]
    fn the_oldest_results_go_first_and_the_newest_stay() {
        let big = "x".repeat(4_000); // 1,000 tokens each
        let history = vec![
            Message::User(UserMessage::text("go", 0)),
            assistant(),
            result(&big),
            assistant(),
            result(&big),
            assistant(),
            result(&big),
        ];
        let (pruned, saved) = prune_tool_outputs(history.clone(), 1_500);
        let text = |m: &Message| match m {
            Message::ToolResult(r) => r.content[0].as_text().unwrap().to_string(),
            _ => String::new(),
        };
        assert!(text(&pruned[2]).starts_with("[bash output of 4000 characters pruned"));
        assert!(text(&pruned[4]).starts_with("[bash output of 4000 characters pruned"));
        assert_eq!(text(&pruned[6]), big, "the result not yet answered stays");
        assert!(saved > 1_900 && saved < 2_000, "{saved}");
        assert_eq!(
            estimate_text_tokens(&history) - saved,
            estimate_text_tokens(&pruned)
        );
        // Under the target nothing changes; pruning again saves nothing more.
        assert_eq!(prune_tool_outputs(history.clone(), 10_000).1, 0);
        assert_eq!(prune_tool_outputs(pruned.clone(), 10).0, pruned);
        assert_eq!(prune_target(2_048), Some(1_024));
        assert_eq!(prune_target(200_000), None);
        assert_eq!(prune_target(0), None);
    }
}
