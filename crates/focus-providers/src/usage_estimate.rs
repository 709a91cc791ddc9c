//! Usage when the server reports none. Some OpenAI-compatible servers (older
//! llama.cpp builds, proxies that drop the final chunk, vLLM without
//! `stream_options`) stream an answer and never say what it cost. Zero tokens
//! would make the footer, the session's totals and the compaction threshold lie;
//! an estimate, marked as one, is closer to the truth.
//!
//! The estimate is the common rule of thumb of four characters a token: the
//! request body as sent (system prompt, messages and tool schemas all count as
//! input) and the answer's text, thinking and tool-call arguments.

use focus_core::message::{AssistantMessage, Content, StopReason};

/// Characters per token in the estimate.
const CHARS_PER_TOKEN: usize = 4;

/// Fills in `message.usage` with an estimate, marked `estimated`, when the
/// server reported no tokens at all for an answer that arrived. `request_bytes`
/// is the size of the request body sent.
pub fn estimate_if_missing(message: &mut AssistantMessage, request_bytes: usize) {
    let usage = &message.usage;
    let reported = usage.input + usage.output + usage.cache_read + usage.cache_write > 0
        || usage.total_tokens > 0;
    if reported || matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
        return;
    }
    let answer_chars: usize = message
        .content
        .iter()
        .map(|content| match content {
            Content::Text { text, .. } => text.chars().count(),
            Content::Thinking { thinking, .. } => thinking.chars().count(),
            Content::ToolCall(call) => call.name.chars().count() + call.arguments.to_string().len(),
            Content::Image { .. } => 0,
        })
        .sum();
    let tokens = |chars: usize| chars.div_ceil(CHARS_PER_TOKEN) as u64;
    let usage = &mut message.usage;
    usage.input = tokens(request_bytes);
    usage.output = tokens(answer_chars);
    usage.total_tokens = usage.input + usage.output;
    usage.estimated = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::message::Usage;

    fn answer(text: &str, usage: Usage) -> AssistantMessage {
        AssistantMessage {
            content: vec![Content::text(text)],
            usage,
            stop_reason: StopReason::Stop,
            ..AssistantMessage::default()
        }
    }

    #[test]
    fn an_answer_without_counts_gets_an_estimate_marked_as_one() {
        let mut message = answer(&"x".repeat(40), Usage::default());
        estimate_if_missing(&mut message, 4_000);
        assert_eq!(message.usage.input, 1_000);
        assert_eq!(message.usage.output, 10);
        assert_eq!(message.usage.total_tokens, 1_010);
        assert!(message.usage.estimated);
    }

    #[test]
    fn reported_counts_and_failed_answers_are_left_alone() {
        let reported = Usage {
            input: 7,
            ..Usage::default()
        };
        let mut message = answer("hello", reported.clone());
        estimate_if_missing(&mut message, 4_000);
        assert_eq!(message.usage, reported);
        let mut failed = answer("", Usage::default());
        failed.stop_reason = StopReason::Error;
        estimate_if_missing(&mut failed, 4_000);
        assert_eq!(failed.usage, Usage::default());
    }
}
