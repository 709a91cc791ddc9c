//! [`Engine`]: one conversation, shared by every mode. It holds the agent's
//! configuration, the history and the session, starts runs, and keeps the session
//! file in step with the events (one entry per finished message, written before the
//! next event is handled).

use crate::store::Store;
use focus_core::agent::{spawn_agent, AgentConfig, AgentRun};
use focus_core::event::{AgentEvent, EndReason};
use focus_core::message::{Message, StopReason};

/// A conversation: configuration, history, session.
pub struct Engine {
    /// Model, system prompt, tools, gate, options.
    pub config: AgentConfig,
    /// The messages so far (the current branch of the session).
    pub history: Vec<Message>,
    /// Where finished messages go.
    pub store: Store,
    /// A warning from the last session write, shown once by the mode.
    pub store_warning: Option<String>,
}

/// How a run ended, as the modes need it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// The loop's reason.
    pub reason: EndReason,
    /// The last assistant message's text (print mode's answer).
    pub final_text: String,
}

impl Engine {
    /// An engine with `config`, starting from `history`, saving into `store`.
    pub fn new(config: AgentConfig, history: Vec<Message>, store: Store) -> Engine {
        Engine {
            config,
            history,
            store,
            store_warning: None,
        }
    }

    /// Starts a run with `prompts` (empty = continue) on its own thread.
    pub fn spawn(&self, prompts: Vec<Message>) -> AgentRun {
        spawn_agent(self.config.clone(), self.history.clone(), prompts)
    }

    /// Keeps the session in step with one event: every finished message is appended.
    pub fn record(&mut self, event: &AgentEvent) {
        if let AgentEvent::MessageEnd { message } = event {
            if let Err(error) = self.store.append_message(message) {
                self.store_warning = Some(format!("could not save the session: {error}"));
            }
        }
    }

    /// Takes the history back from a finished run.
    pub fn finish(&mut self, run: AgentRun) {
        self.history = run.join();
    }

    /// Runs `prompts` to the end on this thread, handing every event to `on_event`
    /// after recording it. On a context-overflow error the history is compacted and
    /// the run retried once.
    pub fn run_blocking(
        &mut self,
        prompts: Vec<Message>,
        on_event: &mut dyn FnMut(&AgentEvent),
    ) -> RunOutcome {
        let mut outcome = self.run_once(prompts, on_event);
        if let EndReason::Error(message) = &outcome.reason {
            if is_context_overflow(message) && self.compact_for_retry() {
                outcome = self.run_once(Vec::new(), on_event);
            }
        }
        outcome
    }

    fn run_once(
        &mut self,
        prompts: Vec<Message>,
        on_event: &mut dyn FnMut(&AgentEvent),
    ) -> RunOutcome {
        let run = self.spawn(prompts);
        let mut reason = EndReason::Completed;
        for event in run.events.iter() {
            self.record(&event);
            if let AgentEvent::AgentEnd { reason: r, .. } = &event {
                reason = r.clone();
            }
            on_event(&event);
        }
        self.finish(run);
        let final_text = self
            .history
            .iter()
            .rev()
            .find_map(Message::as_assistant)
            .map(|m| m.text())
            .unwrap_or_default();
        RunOutcome { reason, final_text }
    }

    /// Drops the failed assistant message and compacts; `false` when nothing could
    /// be compacted (then the error stands).
    fn compact_for_retry(&mut self) -> bool {
        if let Some(Message::Assistant(last)) = self.history.last() {
            if last.stop_reason == StopReason::Error {
                self.history.pop();
            }
        }
        // Wired to focus-harness compaction once it lands.
        false
    }
}

/// Whether a provider's error message says the context was too long (the phrases
/// the major APIs and local servers use).
pub fn is_context_overflow(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "prompt is too long",
        "context length",
        "context_length_exceeded",
        "maximum context",
        "context window",
        "too many tokens",
        "exceeds the context",
        "input is too long",
        "request too large",
    ]
    .iter()
    .any(|phrase| m.contains(phrase))
}
