//! [`AgentHandle`]: how other threads talk to a running loop — queue steering and
//! follow-up messages, abort, ask whether it still runs.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::config::QueueMode;
use crate::cancel::CancelToken;
use crate::message::Message;

/// A cloneable remote control for one run. `Send + Sync`; clones share state.
#[derive(Clone, Default)]
pub struct AgentHandle {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    queues: Mutex<Queues>,
    cancel: CancelToken,
    running: AtomicBool,
}

#[derive(Default)]
struct Queues {
    steering: VecDeque<Message>,
    follow_ups: VecDeque<Message>,
}

impl AgentHandle {
    /// A fresh handle: not running, not cancelled, empty queues. [`super::spawn_agent`]
    /// makes one for you; [`super::run_agent`] takes one you made.
    pub fn new() -> AgentHandle {
        AgentHandle::default()
    }

    /// Queues a message for the model to read as soon as the current step is done:
    /// after the current tool batch (never skipping its calls), before the next
    /// model call.
    pub fn steer(&self, m: Message) {
        self.queues().steering.push_back(m);
    }

    /// Queues a message for when the agent would otherwise stop.
    pub fn follow_up(&self, m: Message) {
        self.queues().follow_ups.push_back(m);
    }

    /// Cancels the model stream and running tools. The run ends with
    /// `EndReason::Aborted` and a valid history. Idempotent.
    pub fn abort(&self) {
        self.shared.cancel.cancel();
    }

    /// Whether the loop is still running (false once `AgentEnd` has been sent).
    pub fn is_running(&self) -> bool {
        self.shared.running.load(Ordering::SeqCst)
    }

    /// Takes every message still queued (steering first, then follow-ups). A message
    /// queued too late for the run (after it decided to stop, or after an abort)
    /// stays here: call this after the run to resubmit it.
    pub fn drain_queued(&self) -> Vec<Message> {
        let mut q = self.queues();
        let mut all: Vec<Message> = q.steering.drain(..).collect();
        all.extend(q.follow_ups.drain(..));
        all
    }

    /// The run's cancellation token (handed to the provider and to tools).
    pub fn cancel_token(&self) -> &CancelToken {
        &self.shared.cancel
    }

    pub(crate) fn set_running(&self, running: bool) {
        self.shared.running.store(running, Ordering::SeqCst);
    }

    /// Whether steering messages wait.
    pub(crate) fn has_steering(&self) -> bool {
        !self.queues().steering.is_empty()
    }

    /// Takes the queued steering messages: all, or only the oldest.
    pub(crate) fn take_steering(&self, mode: QueueMode) -> Vec<Message> {
        take(&mut self.queues().steering, mode)
    }

    /// Takes the queued follow-up messages: all, or only the oldest.
    pub(crate) fn take_follow_ups(&self, mode: QueueMode) -> Vec<Message> {
        take(&mut self.queues().follow_ups, mode)
    }

    /// Puts undelivered follow-ups (or prompts) back at the front of the follow-up
    /// queue, in order, so `drain_queued` can hand them back.
    pub(crate) fn requeue_follow_ups(&self, messages: Vec<Message>) {
        let mut q = self.queues();
        for m in messages.into_iter().rev() {
            q.follow_ups.push_front(m);
        }
    }

    fn queues(&self) -> MutexGuard<'_, Queues> {
        // A panic while holding this lock cannot leave the queues half-changed
        // (push/drain are atomic from our point of view), so poison is ignored.
        crate::sync::lock(&self.shared.queues)
    }
}

/// The messages a queue hands over at one poll (see [`QueueMode`]).
fn take(queue: &mut VecDeque<Message>, mode: QueueMode) -> Vec<Message> {
    match mode {
        QueueMode::All => queue.drain(..).collect(),
        QueueMode::OneAtATime => queue.pop_front().into_iter().collect(),
    }
}

impl std::fmt::Debug for AgentHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentHandle")
            .field("running", &self.is_running())
            .field("cancelled", &self.shared.cancel.is_cancelled())
            .finish()
    }
}
