//! Recovering from a context-overflow error once (what counts as one is
//! [`focus_core::overflow::is_context_overflow`], the providers' own test).
//!
//! When a provider rejects a request because the context is too long, the CLI
//! compacts and retries — once. [`OverflowRecovery`] remembers whether the retry
//! has been spent, so a context that is still too long after compacting ends with
//! an error instead of a loop.

use focus_core::message::AssistantMessage;
pub use focus_core::overflow::is_context_overflow;

/// The once-only overflow retry of one prompt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OverflowRecovery {
    attempted: bool,
}

/// What to do after a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverflowAction {
    /// Not an overflow: carry on.
    None,
    /// Drop the failed answer from the context, compact, and run again.
    CompactAndRetry,
    /// Already retried once: report that recovery failed.
    GiveUp,
}

impl OverflowRecovery {
    /// A fresh state, for a new user prompt.
    pub fn new() -> OverflowRecovery {
        OverflowRecovery::default()
    }

    /// Decides what to do about `last`, the run's final assistant message.
    pub fn after_run(&mut self, last: &AssistantMessage, context_window: u64) -> OverflowAction {
        if !is_context_overflow(last, context_window) {
            return OverflowAction::None;
        }
        if self.attempted {
            return OverflowAction::GiveUp;
        }
        self.attempted = true;
        OverflowAction::CompactAndRetry
    }
}

/// The note shown when the retry also overflowed.
pub const RECOVERY_FAILED: &str = "Context overflow recovery failed after one compact-and-retry attempt. Try /compact with instructions, or start a new session.";

#[cfg(test)]
mod tests {
    use super::*;

    use focus_core::message::StopReason;

    fn failed(text: &str) -> AssistantMessage {
        AssistantMessage {
            stop_reason: StopReason::Error,
            error_message: Some(text.into()),
            ..AssistantMessage::default()
        }
    }

    #[test]
    fn overflow_is_recognised_and_retried_once() {
        let overflow =
            failed("400 {\"error\":\"prompt is too long: 210000 tokens > 200000 maximum\"}");
        assert!(is_context_overflow(&overflow, 200_000));
        assert!(!is_context_overflow(
            &failed("rate limit exceeded"),
            200_000
        ));
        let mut recovery = OverflowRecovery::new();
        assert_eq!(
            recovery.after_run(&overflow, 0),
            OverflowAction::CompactAndRetry
        );
        assert_eq!(recovery.after_run(&overflow, 0), OverflowAction::GiveUp);
        assert_eq!(
            OverflowRecovery::new().after_run(&failed("boom"), 0),
            OverflowAction::None
        );
    }
}
