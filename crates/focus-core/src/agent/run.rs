//! The loop itself (skeleton).

use std::sync::mpsc::Sender;

use super::{AgentConfig, AgentHandle};
use crate::event::{AgentEvent, EndReason};
use crate::message::Message;

/// Runs the loop on the current thread until it ends; returns the full history.
pub fn run_agent(
    _config: &AgentConfig,
    history: Vec<Message>,
    _prompts: Vec<Message>,
    handle: &AgentHandle,
    events: &Sender<AgentEvent>,
) -> Vec<Message> {
    let _ = events.send(AgentEvent::AgentStart);
    handle.set_running(false);
    let _ = events.send(AgentEvent::AgentEnd {
        messages: Vec::new(),
        reason: EndReason::Error("not implemented".into()),
    });
    history
}
