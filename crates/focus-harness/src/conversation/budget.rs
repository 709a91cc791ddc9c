//! The cost budget (`--max-cost`): [`guard`] wraps a run's event observer so
//! that, on the loop's own thread, the cost of every answer is added up and,
//! once it reaches the budget, the run is cancelled at the end of the turn —
//! before the loop's next model call, which checks the cancel token first.
//! The run then ends as an abort does: every tool call answered, the session
//! whole. Only a turn that called tools (after which the model would be
//! called again) is stopped so; a final answer stands. Estimated usage
//! counts, as the price table gives it, and so does what a subagent spent
//! (its `task` result's record, `crate::subagents::record`).

use focus_core::agent::EventObserver;
use focus_core::cancel::CancelToken;
use focus_core::event::AgentEvent;
use focus_core::message::Message;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// `writer`, plus the budget check: `spent` (USD, shared with the
/// conversation) grows by each assistant message's cost; at a turn's end with
/// `spent >= limit`, `reached` is set and `cancel` cancelled.
pub fn guard(
    writer: Arc<EventObserver>,
    limit: f64,
    spent: Arc<Mutex<f64>>,
    cancel: CancelToken,
    reached: Arc<AtomicBool>,
) -> Arc<EventObserver> {
    Arc::new(move |event: &AgentEvent| {
        writer(event);
        match event {
            AgentEvent::MessageEnd {
                message: Message::Assistant(message),
            } => {
                *focus_core::sync::lock(&spent) += message.usage.cost.total;
            }
            // What a subagent spent counts against its parent's budget.
            AgentEvent::MessageEnd {
                message: Message::ToolResult(result),
            } => {
                let child =
                    crate::subagents::record::child_usage(&result.tool_name, &result.details);
                if let Some(usage) = child {
                    *focus_core::sync::lock(&spent) += usage.cost.total;
                }
            }
            AgentEvent::TurnEnd { tool_results, .. }
                if !tool_results.is_empty() && *focus_core::sync::lock(&spent) >= limit =>
            {
                reached.store(true, Ordering::SeqCst);
                cancel.cancel();
            }
            _ => {}
        }
    })
}
