//! [`is_context_overflow`]: did this call fail because the conversation no longer
//! fits the model's context window? The providers never retry such a failure; the
//! harness compacts and retries once when it sees one. Both ask this one function,
//! so they cannot disagree about what an overflow is.
//!
//! Providers say so in their own words; the phrases below are the ones pi collected
//! (pi.md §1.10), matched case-insensitively without a regex engine.

use crate::message::{AssistantMessage, StopReason};

/// Phrases that mean "context overflow". `#` stands for one or more digits.
const PHRASES: &[&str] = &[
    "prompt is too long",
    "input is too long for requested model",
    "exceeds the context window",
    "maximum prompt length is #",
    "reduce the length of the messages",
    "maximum context length is # tokens",
    "exceeds the limit of #",
    "exceeds the available context size",
    "greater than the context length",
    "context window exceeds limit",
    "exceeded model token limit",
    "too large for model with # maximum context length",
    "model_context_window_exceeded",
    "context_length_exceeded",
    "context length exceeded",
    "context_length exceeded",
    "context length_exceeded",
    "too many tokens",
    "token limit exceeded",
];

/// Whether `message` reports a context overflow: an error whose text matches a
/// known phrase (or `input token count … exceeds the maximum`, or Cerebras's bare
/// `400/413 (no body)`), or a "silent" overflow where a server truncated the input
/// and answered anyway (`stop` with input + cache reads above `context_window`;
/// pass 0 to skip that check).
pub fn is_context_overflow(message: &AssistantMessage, context_window: u64) -> bool {
    if message.stop_reason == StopReason::Error {
        let text = message
            .error_message
            .as_deref()
            .unwrap_or("")
            .to_ascii_lowercase();
        if PHRASES.iter().any(|p| matches_phrase(&text, p)) {
            return true;
        }
        if let Some(at) = text.find("input token count") {
            if text[at..].contains("exceeds the maximum") {
                return true;
            }
        }
        let trimmed = text.trim_start();
        for code in ["400", "413"] {
            if let Some(rest) = trimmed.strip_prefix(code) {
                let rest = rest.trim_start();
                let rest = rest
                    .strip_prefix("status code")
                    .unwrap_or(rest)
                    .trim_start();
                if rest.starts_with("(no body)") {
                    return true;
                }
            }
        }
        return false;
    }
    context_window > 0
        && message.stop_reason == StopReason::Stop
        && message.usage.input.saturating_add(message.usage.cache_read) > context_window
}

/// Whether `text` contains `phrase`, where one `#` in the phrase matches 1+ digits.
fn matches_phrase(text: &str, phrase: &str) -> bool {
    let Some(hash) = phrase.find('#') else {
        return text.contains(phrase);
    };
    let (head, tail) = (&phrase[..hash], &phrase[hash + 1..]);
    let mut from = 0;
    while let Some(pos) = text[from..].find(head) {
        let after = from + pos + head.len();
        let digits = text[after..].bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && text[after + digits..].starts_with(tail) {
            return true;
        }
        from = after;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> AssistantMessage {
        AssistantMessage {
            stop_reason: StopReason::Error,
            error_message: Some(text.into()),
            ..Default::default()
        }
    }

    #[test]
    fn known_phrases_match_and_others_do_not() {
        for text in [
            "prompt is too long: 213462 tokens > 200000 maximum",
            "This model's maximum context length is 128000 tokens. However, you requested 130000",
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
            "400 status code (no body)",
            "Error: context_length_exceeded",
            "Requested 9000 tokens, exceeds the limit of 8192",
        ] {
            assert!(is_context_overflow(&error(text), 0), "{text}");
        }
        for text in [
            "rate limit exceeded",
            "maximum context length is big tokens",
            "401 Unauthorized",
        ] {
            assert!(!is_context_overflow(&error(text), 0), "{text}");
        }
    }

    #[test]
    fn a_json_error_body_is_read_through() {
        let text = "400 {\"error\":\"prompt is too long: 210000 tokens > 200000 maximum\"}";
        assert!(is_context_overflow(&error(text), 200_000));
        assert!(!is_context_overflow(&error("boom"), 200_000));
    }

    #[test]
    fn silent_overflow_uses_the_window() {
        let mut m = AssistantMessage::default();
        m.usage.input = 150_000;
        assert!(is_context_overflow(&m, 128_000));
        assert!(!is_context_overflow(&m, 200_000));
        assert!(!is_context_overflow(&m, 0));
        m.usage.input = u64::MAX;
        m.usage.cache_read = u64::MAX;
        assert!(is_context_overflow(&m, 128_000), "saturates, no overflow");
    }
}
