//! The agent loop: drives model calls and tool calls and reports everything as
//! [`AgentEvent`]s over a channel. Pure logic: providers and tools come in through
//! traits; no network, no files.
//!
//! Reading order: [`config`] (what a run needs), [`handle`] (how other threads steer
//! and abort it), [`run`] (the loop itself — the part that decides what happens next;
//! `context.rs` builds the model's view of the history for it),
//! [`execute`] (one batch of tool calls), [`schema`] (argument validation),
//! [`invariants`] (the two rules every run keeps, as reusable checkers), [`queue`]
//! (the bounded channel events travel on). docs/loop.md walks one prompt
//! through all of it. The tests drive the loop with `ScriptedProvider`, a
//! provider that streams canned replies, from the dev-only crate focus-testkit.
//!
//! ```
//! use std::sync::Arc;
//! use focus_core::agent::{spawn_agent, AgentConfig};
//! use focus_testkit::scripted::{Reply, ScriptedProvider};
//! use focus_core::message::{Message, UserMessage};
//! let provider = Arc::new(ScriptedProvider::new(vec![Reply::text("hello")]));
//! let run = spawn_agent(AgentConfig::new(provider), Vec::new(),
//!                       vec![Message::User(UserMessage::text("hi", 0))]);
//! let events: Vec<_> = run.events.iter().collect(); // ends after AgentEnd
//! let history = run.join();
//! assert_eq!(history.len(), 2);
//! assert!(focus_core::agent::check_event_grammar(&events).is_ok());
//! ```
//!
//! [`AgentEvent`]: crate::event::AgentEvent

pub mod config;
mod context;
pub mod execute;
pub mod handle;
pub mod invariants;
pub mod queue;
pub mod run;
pub mod schema;

use std::thread::JoinHandle;

pub use config::{
    AgentConfig, ConvertToLlm, EventObserver, PromptHooks, QueueMode, SystemPromptSource,
    TransformContext, MAX_STOP_CONTINUATIONS,
};
pub use handle::AgentHandle;
pub use invariants::{check_event_grammar, check_history, repair_history};
pub use queue::{event_queue, Batched, EventReceiver, EventSender};
pub use run::run_agent;

use crate::event::{AgentEvent, EndReason};
use crate::message::Message;

/// How many events a run may be ahead of its reader. When the reader falls this
/// far behind (a slow terminal, a pipe nobody drains), the loop waits: memory stays
/// flat however long the stream, and the model's stream waits in curl's buffer and
/// the socket instead of in focus.
pub const EVENT_QUEUE_CAPACITY: usize = 1024;

/// A run in progress on its own thread: read `events` until `AgentEnd` (the channel
/// then closes), use `handle` to steer or abort, and `join` for the history.
pub struct AgentRun {
    /// Every event of the run, in order; closes after `AgentEnd`.
    pub events: EventReceiver,
    /// Steer, queue follow-ups, abort.
    pub handle: AgentHandle,
    /// The loop's thread, or the untouched history if no thread could be started.
    thread: Result<JoinHandle<Vec<Message>>, Vec<Message>>,
}

impl AgentRun {
    /// Waits for the run to end and returns the full history (the given history plus
    /// everything the run added). Never panics: a panic inside the loop is reported as
    /// an `AgentEnd` with an error reason and the history so far (repaired so every
    /// tool call has a result) is returned.
    pub fn join(self) -> Vec<Message> {
        // `run_agent` catches panics itself, so `Err` here would need a panic in the
        // few lines that report one; an empty history is the only honest answer then.
        match self.thread {
            Ok(thread) => thread.join().unwrap_or_default(),
            Err(history) => history,
        }
    }
}

/// Starts a run on its own thread. Its events arrive on an [`EventReceiver`]
/// bounded at [`EVENT_QUEUE_CAPACITY`]: read them as they come (the run waits for
/// you).
///
/// With `prompts`, they are appended and the model is called. With empty `prompts`
/// this is *continue*: the history must end with a user or tool-result message (to
/// retry after an error, or go on after compaction); if it ends with an assistant
/// message (or is empty) the run ends at once with `EndReason::Error` explaining why.
pub fn spawn_agent(config: AgentConfig, history: Vec<Message>, prompts: Vec<Message>) -> AgentRun {
    let (sender, events) = event_queue(EVENT_QUEUE_CAPACITY);
    let handle = AgentHandle::new();
    handle.set_running(true);
    let loop_handle = handle.clone();
    // The history travels to the thread through a slot, so that if the OS refuses
    // to start a thread we still have it to hand back.
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some((config, history, prompts))));
    let thread_slot = slot.clone();
    let loop_sender = sender.clone();
    let spawned = std::thread::Builder::new()
        .name("focus-agent".into())
        .spawn(move || {
            let taken = thread_slot.lock().ok().and_then(|mut s| s.take());
            match taken {
                Some((config, history, prompts)) => {
                    let sink = |event| {
                        let _ = loop_sender.send(event);
                    };
                    run_agent(&config, history, prompts, &loop_handle, &sink)
                }
                None => Vec::new(),
            }
        });
    let thread = spawned.map_err(|error| {
        // Report the failure the way every run ends: AgentStart, AgentEnd(Error).
        let history = slot
            .lock()
            .ok()
            .and_then(|mut s| s.take())
            .map_or_else(Vec::new, |(_, history, _)| history);
        handle.set_running(false);
        let _ = sender.send(AgentEvent::AgentStart);
        let _ = sender.send(AgentEvent::AgentEnd {
            messages: Vec::new(),
            reason: EndReason::Error(format!("could not start the agent thread: {error}")),
        });
        history
    });
    AgentRun {
        events,
        handle,
        thread,
    }
}
