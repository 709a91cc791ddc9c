//! The two rules every run keeps (skeleton).

use crate::event::AgentEvent;
use crate::message::Message;

/// Checks the event grammar.
pub fn check_event_grammar(_events: &[AgentEvent]) -> Result<(), String> {
    Ok(())
}

/// Checks the history invariant.
pub fn check_history(_messages: &[Message]) -> Result<(), String> {
    Ok(())
}
