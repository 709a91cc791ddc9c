//! Counting tokens without a tokenizer: about four characters per token, anchored to
//! the last usage the provider actually reported.
//!
//! The estimate is deliberately high (code and JSON run nearer three characters per
//! token, prose nearer five): compacting a little early is cheap, overflowing the
//! window is an error.

use focus_core::json::Value;
use focus_core::message::{Content, Message, StopReason};

/// What counts as the size of one image, in characters (pi: 4,800, i.e. 1,200 tokens).
pub const IMAGE_CHARS: u64 = 4_800;

/// When and how much to compact (`compaction` in settings.json).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Whether automatic compaction runs at all.
    pub enabled: bool,
    /// Tokens kept free for the answer: compaction starts when the context passes
    /// `context_window - reserve_tokens`.
    pub reserve_tokens: u64,
    /// Roughly how many tokens of recent history survive a compaction verbatim.
    pub keep_recent_tokens: u64,
}

impl Default for CompactionSettings {
    /// pi's defaults: enabled, 16,384 reserved, 20,000 kept.
    fn default() -> Self {
        CompactionSettings {
            enabled: true,
            reserve_tokens: 16_384,
            keep_recent_tokens: 20_000,
        }
    }
}

impl CompactionSettings {
    /// The settings as they apply to a window of `context_window` tokens: the
    /// reserve and the kept part are each at most a quarter of the window, so a
    /// small window (llama.cpp's 2,048 or 4,096) still has room to compact into
    /// and pi's 16,384 / 20,000 do not exceed it. A window of 0 (unknown) leaves
    /// them as they are.
    pub fn fitted(&self, context_window: u64) -> CompactionSettings {
        if context_window == 0 {
            return *self;
        }
        let quarter = (context_window / 4).max(1);
        CompactionSettings {
            reserve_tokens: self.reserve_tokens.min(quarter),
            keep_recent_tokens: self.keep_recent_tokens.min(quarter),
            ..*self
        }
    }
}

/// `ceil(chars / 4)`.
pub fn tokens_for_chars(chars: u64) -> u64 {
    chars.div_ceil(4)
}

/// The estimated size of one message, in tokens.
pub fn estimate_message_tokens(message: &Message) -> u64 {
    let chars = match message {
        Message::User(m) => content_chars(&m.content),
        Message::ToolResult(m) => content_chars(&m.content),
        Message::Assistant(m) => content_chars(&m.content),
        Message::Custom(c) => {
            let raw = &c.raw;
            let len = |v: &Value| v.as_str().map_or(0, |s| s.chars().count() as u64);
            match c.role.as_str() {
                "bashExecution" => len(&raw["command"]) + len(&raw["output"]),
                "compactionSummary" | "branchSummary" => len(&raw["summary"]),
                _ => match &raw["content"] {
                    Value::String(s) => s.chars().count() as u64,
                    other => content_chars(&crate::session::convert::content_blocks(other)),
                },
            }
        }
    };
    tokens_for_chars(chars)
}

fn content_chars(content: &[Content]) -> u64 {
    content
        .iter()
        .map(|block| match block {
            Content::Text { text, .. } => text.chars().count() as u64,
            Content::Thinking { thinking, .. } => thinking.chars().count() as u64,
            Content::ToolCall(call) => {
                (call.name.chars().count() + call.arguments.to_json_string().chars().count()) as u64
            }
            Content::Image { .. } => IMAGE_CHARS,
        })
        .sum()
}

/// The tokens an assistant message's call consumed, if its usage can be trusted
/// (not aborted, not an error, not zero).
pub fn reported_context_tokens(message: &Message) -> Option<u64> {
    let m = message.as_assistant()?;
    if matches!(m.stop_reason, StopReason::Aborted | StopReason::Error) {
        return None;
    }
    let u = &m.usage;
    let total = if u.total_tokens > 0 {
        u.total_tokens
    } else {
        // Saturating: the counts come from a server or a session file.
        u.input
            .saturating_add(u.output)
            .saturating_add(u.cache_read)
            .saturating_add(u.cache_write)
    };
    (total > 0).then_some(total)
}

/// The estimated size of a whole context: the last trustworthy reported usage plus
/// estimates for the messages after it (or estimates for everything, if no call
/// reported usage yet).
///
/// Usage reported before the latest compaction measured the context as it was
/// *before* compacting (the kept messages still carry it), so only usage newer than
/// the compaction summary can anchor the estimate.
pub fn estimate_context_tokens(messages: &[Message]) -> u64 {
    let compacted_at = messages
        .iter()
        .rev()
        .find(|m| m.role() == "compactionSummary")
        .and_then(|m| match m {
            Message::Custom(c) => c.raw["timestamp"].as_u64(),
            _ => None,
        })
        .unwrap_or(0);
    let anchor = messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| {
            m.as_assistant()
                .is_some_and(|a| a.timestamp >= compacted_at)
        })
        .find_map(|(i, m)| reported_context_tokens(m).map(|t| (i, t)));
    let (from, base) = match anchor {
        Some((i, tokens)) => (i + 1, tokens),
        None => (0, 0),
    };
    messages[from..]
        .iter()
        .map(estimate_message_tokens)
        .fold(base, u64::saturating_add)
}

/// The tokens of `messages` estimated from their texts alone (characters / 4),
/// ignoring what the model reported: the one measure that can be set before and
/// after a compaction, when the context after has never been sent.
pub fn estimate_text_tokens(messages: &[Message]) -> u64 {
    messages
        .iter()
        .map(estimate_message_tokens)
        .fold(0, u64::saturating_add)
}

/// Whether a context of `context_tokens` should be compacted for a model with
/// `context_window` tokens: past the window minus the reserve, the reserve fitted
/// to the window ([`CompactionSettings::fitted`]).
pub fn should_compact(
    context_tokens: u64,
    context_window: u64,
    settings: &CompactionSettings,
) -> bool {
    let reserve = settings.fitted(context_window).reserve_tokens;
    settings.enabled
        && context_window > 0
        && context_tokens > context_window.saturating_sub(reserve)
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::message::{AssistantMessage, Usage, UserMessage};

    fn assistant(text: &str, total: u64, stop: StopReason) -> Message {
        Message::Assistant(AssistantMessage {
            content: vec![Content::text(text)],
            usage: Usage {
                total_tokens: total,
                ..Usage::default()
            },
            stop_reason: stop,
            ..AssistantMessage::default()
        })
    }

    #[test]
    fn estimate_is_anchored_to_the_last_trustworthy_usage() {
        let user = |t: &str| Message::User(UserMessage::text(t, 0));
        let history = vec![
            user("12345678"),                          // 2 tokens
            assistant("abcd", 1000, StopReason::Stop), // anchor
            user("123456789"),                         // 3 tokens
            assistant("x", 5000, StopReason::Error),   // untrusted: estimated, 1 token
        ];
        assert_eq!(estimate_context_tokens(&history), 1000 + 3 + 1);
        assert_eq!(estimate_context_tokens(&history[..1]), 2);
    }

    #[test]
    fn absurd_usage_from_a_session_file_saturates_instead_of_overflowing() {
        let mut huge = assistant("x", 0, StopReason::Stop);
        if let Message::Assistant(a) = &mut huge {
            a.usage.input = u64::MAX;
            a.usage.output = u64::MAX;
        }
        assert_eq!(reported_context_tokens(&huge), Some(u64::MAX));
        let after = Message::User(UserMessage::text("more text", 0));
        assert_eq!(estimate_context_tokens(&[huge, after]), u64::MAX);
    }

    #[test]
    fn threshold_is_window_minus_reserve() {
        let s = CompactionSettings::default();
        assert!(!should_compact(100_000 - 16_384, 100_000, &s));
        assert!(should_compact(100_000 - 16_383, 100_000, &s));
        let off = CompactionSettings {
            enabled: false,
            ..s
        };
        assert!(!should_compact(1_000_000, 100_000, &off));
    }

    #[test]
    fn reserve_and_keep_fit_small_windows() {
        let s = CompactionSettings::default();
        for window in [
            1_024, 2_048, 4_096, 8_192, 32_768, 65_536, 200_000, 1_000_000,
        ] {
            let fitted = s.fitted(window);
            assert!(fitted.reserve_tokens <= window / 4, "{window}");
            assert!(fitted.keep_recent_tokens <= window / 4, "{window}");
            assert!(fitted.reserve_tokens > 0 && fitted.keep_recent_tokens > 0);
            // Compaction starts somewhere inside the window, never before a
            // single token or beyond it.
            let threshold = window - fitted.reserve_tokens;
            assert!(!should_compact(threshold, window, &s), "{window}");
            assert!(should_compact(threshold + 1, window, &s), "{window}");
            assert!(threshold >= window * 3 / 4);
        }
        assert_eq!(s.fitted(1_000_000), s, "large windows keep pi's values");
        assert_eq!(s.fitted(0), s, "an unknown window changes nothing");
    }
}
