//! A run's whole lifecycle, on a thread of its own: the loop's run, then what
//! follows it — the history taken back (the session's context when the run
//! compacted mid-way), warnings passed on, a compaction when the context passed
//! the threshold, and after a context overflow a compaction and one retry —
//! every step reported, in order, on one queue of [`ConversationEvent`]s, which
//! ends with `RunEnded`. A manual compaction (`/compact`) is a lifecycle of its
//! own that only compacts.
//!
//! The front end reads that queue ([`Conversation::poll`](super::Conversation::poll))
//! and steers or aborts through the run's [`AgentHandle`]; the abort also stops
//! a compaction after the run, whose summary call watches the same token.

use super::event::{CompactionEnded, CompactionReason, ConversationEvent};
use super::hooks::{ConversationHooks, ToolSource};
use super::store::Store;
use crate::compaction::in_run::failure;
use crate::compaction::overflow::RECOVERY_FAILED;
use crate::compaction::{
    compact, estimate_context_tokens, prepare_compaction, record_compaction, should_compact,
    CompactionError, CompactionSettings, OverflowAction, OverflowRecovery, MAX_COMPACTION_FAILURES,
};
use focus_core::agent::{run_agent, AgentConfig, AgentHandle, EventSender};
use focus_core::cancel::CancelToken;
use focus_core::event::{AgentEvent, Compacted, EndReason};
use focus_core::message::{Message, StopReason};
use focus_core::provider::Provider;
use focus_core::sync::lock;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// What a lifecycle does.
pub(super) enum Work {
    /// Run these prompts (none: continue), then what follows a run.
    Run(Vec<Message>),
    /// Compact now, with these extra instructions for the summary.
    Compact(Option<String>),
}

/// Everything a lifecycle needs, moved to its thread.
pub(super) struct Lifecycle {
    /// The run's configuration (session writer and in-run compaction plugged in).
    pub config: AgentConfig,
    /// The history the run starts from.
    pub history: Vec<Message>,
    /// The run's remote control (its token also stops a compaction).
    pub handle: AgentHandle,
    /// The conversation's session.
    pub session: Arc<Mutex<Store>>,
    /// When and how to compact.
    pub settings: CompactionSettings,
    /// Automatic compactions that failed in a row (shared with the conversation).
    pub failures: Arc<AtomicU32>,
    /// Set by the in-run compaction when it compacted the session.
    pub run_compacted: Arc<AtomicBool>,
    /// The session hooks (`PreCompact`, a `Stop` hook's failures).
    pub hooks: Option<Arc<dyn ConversationHooks>>,
    /// Tools that may change (an MCP server that dies is told at once).
    pub tool_source: Option<Arc<dyn ToolSource>>,
    /// Where the events go.
    pub events: EventSender<ConversationEvent>,
    /// The run's `AgentEnd`, held until what follows the run is decided, so
    /// that a run nothing follows ends with `AgentEnd` and `RunEnded` together
    /// (a front end never sees the run over but the conversation still busy).
    pub held_end: Option<AgentEvent>,
}

impl Lifecycle {
    /// Does `work` to the end; returns the history the conversation goes on
    /// from. The last event sent is the lifecycle's last (`RunEnded`, or a
    /// manual compaction's end).
    pub fn run(mut self, work: Work) -> Vec<Message> {
        match work {
            Work::Run(prompts) => {
                let reason = self.run_prompts(prompts);
                self.send(ConversationEvent::RunEnded(reason));
            }
            Work::Compact(instructions) => self.compact_manually(instructions.as_deref()),
        }
        if let Some(end) = self.held_end.take() {
            let _ = self.events.send(ConversationEvent::Agent(end));
        }
        self.history
    }

    /// Sends `event`; the held `AgentEnd` first, in one go with it, so a front
    /// end never sees the run over before it sees what follows (`RunEnded`,
    /// a compaction's start).
    fn send(&mut self, event: ConversationEvent) {
        let end = self.held_end.take().map(ConversationEvent::Agent);
        let _ = self.events.send_all(end.into_iter().chain([event]));
    }

    /// Runs, then compacts or retries as the run's end asks; the final reason.
    fn run_prompts(&mut self, prompts: Vec<Message>) -> EndReason {
        let mut recovery = OverflowRecovery::new();
        let mut prompts = prompts;
        loop {
            let reason = self.run_once(std::mem::take(&mut prompts));
            // A run the user stopped is not followed by a compaction.
            if reason == EndReason::Aborted || self.handle.cancel_token().is_cancelled() {
                return EndReason::Aborted;
            }
            match self.after_run(&mut recovery) {
                AfterRun::Done => {
                    // Steering or a follow-up sent as the run was deciding to
                    // stop came too late for it: it starts the next one.
                    prompts = self.handle.drain_queued();
                    if prompts.is_empty() {
                        return reason;
                    }
                    recovery = OverflowRecovery::new();
                }
                AfterRun::Retry => self.send(ConversationEvent::RetryAfterOverflow),
                AfterRun::Aborted => return EndReason::Aborted,
                AfterRun::GaveUp(note) => {
                    self.send(ConversationEvent::RecoveryFailed(note.clone()));
                    return EndReason::Error(note);
                }
            }
        }
    }

    /// One run of the loop, every event passed on (a failed session write and
    /// a dead MCP server told right after the event that met them); the run's
    /// reason. The history is then the loop's, or the session's context when
    /// the run compacted.
    fn run_once(&mut self, prompts: Vec<Message>) -> EndReason {
        // The previous run's end goes out before this run's start.
        if let Some(end) = self.held_end.take() {
            let _ = self.events.send(ConversationEvent::Agent(end));
        }
        let end = Mutex::new(None);
        let (session, source, events) = (&self.session, &self.tool_source, &self.events);
        let sink = |event: AgentEvent| {
            if event.is_delta() {
                let _ = events.send(ConversationEvent::Agent(event));
                return;
            }
            if let AgentEvent::AgentEnd { .. } = &event {
                *lock(&end) = Some(event);
                return;
            }
            let _ = events.send(ConversationEvent::Agent(event));
            // The session writer (the loop's observer) wrote before this.
            let written = lock(session).write_warning.take();
            let died = source
                .as_ref()
                .map(|s| s.take_warnings())
                .unwrap_or_default();
            for warning in written.into_iter() {
                let _ = events.send(ConversationEvent::Warning(warning));
            }
            for warning in died {
                let _ = events.send(ConversationEvent::Warning(format!("MCP: {warning}")));
            }
        };
        let history = std::mem::take(&mut self.history);
        let history = run_agent(&self.config, history, prompts, &self.handle, &sink);
        self.held_end = end.into_inner().unwrap_or_else(|e| e.into_inner());
        let reason = match &self.held_end {
            Some(AgentEvent::AgentEnd { reason, .. }) => reason.clone(),
            _ => EndReason::Error("the run stopped without an end event".into()),
        };
        self.history = match self.run_compacted.swap(false, Ordering::SeqCst) {
            true => lock(&self.session).context_messages(),
            false => history,
        };
        // A hook that failed during the run (a Stop hook) is told once, at its end.
        let failures = self.hooks.as_ref().map(|h| h.take_hook_failures());
        if let Some(failures) = failures.filter(|f| !f.is_empty()) {
            self.send(ConversationEvent::Warning(failures.join("; ")));
        }
        reason
    }

    /// After a run: compact and retry once on an overflow, or compact when the
    /// context passed the threshold (unless automatic compaction gave up).
    fn after_run(&mut self, recovery: &mut OverflowRecovery) -> AfterRun {
        let window = self.config.provider.model().context_window;
        let last = self
            .history
            .iter()
            .rev()
            .find_map(Message::as_assistant)
            .cloned();
        if let Some(last) = last {
            match recovery.after_run(&last, window) {
                OverflowAction::CompactAndRetry => {
                    return match self.announced(CompactionReason::Overflow) {
                        Ok(true) => AfterRun::Retry,
                        Ok(false) => AfterRun::Done,
                        Err(Stopped::Cancelled) => AfterRun::Aborted,
                        // An answer that arrived (the provider only reported more
                        // input than the window) stands; the failure is a warning.
                        Err(Stopped::Failed(error)) if last.stop_reason != StopReason::Error => {
                            self.send(ConversationEvent::Warning(format!(
                                "automatic compaction: {error}"
                            )));
                            AfterRun::Done
                        }
                        Err(Stopped::Failed(error)) => AfterRun::GaveUp(format!(
                            "the context is too long for the model and {error}"
                        )),
                    };
                }
                OverflowAction::GiveUp => return AfterRun::GaveUp(RECOVERY_FAILED.into()),
                OverflowAction::None => {}
            }
        }
        let tokens = estimate_context_tokens(&self.history);
        if should_compact(tokens, window, &self.settings)
            && self.failures.load(Ordering::SeqCst) < MAX_COMPACTION_FAILURES
            && self.has_something_to_compact(window)
        {
            match self.announced(CompactionReason::Threshold) {
                Err(Stopped::Cancelled) => return AfterRun::Aborted,
                Err(Stopped::Failed(error)) => self.send(ConversationEvent::Warning(format!(
                    "automatic compaction: {error}"
                ))),
                Ok(_) => {}
            }
        }
        AfterRun::Done
    }

    /// Whether a compaction would summarize anything (a history of one
    /// exchange cannot be compacted; that is no failure, and nothing is
    /// announced).
    fn has_something_to_compact(&self, window: u64) -> bool {
        let store = lock(&self.session);
        let branch = store.manager().tree().current_branch();
        prepare_compaction(&branch, &self.settings.fitted(window)).is_some()
    }

    /// An automatic compaction between its two announcements; after an
    /// overflow, whether the run can be retried on the compacted history.
    fn announced(&mut self, reason: CompactionReason) -> Result<bool, Stopped> {
        self.send(ConversationEvent::CompactionStart(reason));
        if let Some(hooks) = &self.hooks {
            hooks.pre_compact("auto", None);
        }
        match self.compact_now(None) {
            Ok(result) => {
                self.failures.store(0, Ordering::SeqCst);
                let will_retry = reason == CompactionReason::Overflow && self.drop_trailing_error();
                let ended = CompactionEnded {
                    result: Some(result),
                    will_retry,
                    ..CompactionEnded::default()
                };
                self.send(ConversationEvent::CompactionEnd(reason, ended));
                Ok(will_retry)
            }
            Err(error) => {
                let failed = failure(&error, &self.failures);
                let ended = CompactionEnded {
                    aborted: failed.aborted,
                    error_message: Some(failed.message.clone()),
                    ..CompactionEnded::default()
                };
                self.send(ConversationEvent::CompactionEnd(reason, ended));
                Err(match error {
                    CompactionError::Cancelled => Stopped::Cancelled,
                    _ => Stopped::Failed(failed.message),
                })
            }
        }
    }

    /// `/compact`: the user's compaction, announced like the automatic ones (its
    /// failure does not count against automatic compaction).
    fn compact_manually(&mut self, instructions: Option<&str>) {
        let reason = CompactionReason::Manual;
        self.send(ConversationEvent::CompactionStart(reason));
        if let Some(hooks) = &self.hooks {
            hooks.pre_compact("manual", instructions);
        }
        let ended = match self.compact_now(instructions) {
            Ok(result) => {
                self.failures.store(0, Ordering::SeqCst);
                CompactionEnded {
                    result: Some(result),
                    ..CompactionEnded::default()
                }
            }
            Err(error) => CompactionEnded {
                aborted: matches!(error, CompactionError::Cancelled),
                error_message: Some(error.to_string()),
                ..CompactionEnded::default()
            },
        };
        self.send(ConversationEvent::CompactionEnd(reason, ended));
    }

    /// Plans on the session's branch, summarizes (stopped by the run's token)
    /// and records; the history is then the session's context.
    fn compact_now(&mut self, instructions: Option<&str>) -> Result<Compacted, CompactionError> {
        let provider: Arc<dyn Provider> = self.config.provider.clone();
        let compacted = compact_session(
            &self.session,
            provider.as_ref(),
            &self.settings,
            instructions,
            self.handle.cancel_token(),
        )?;
        self.history = lock(&self.session).context_messages();
        Ok(compacted)
    }

    /// Drops a failed assistant message at the end of the history (it is kept in
    /// the session file) so the run can continue; whether the history can continue.
    fn drop_trailing_error(&mut self) -> bool {
        if let Some(Message::Assistant(last)) = self.history.last() {
            if last.stop_reason == StopReason::Error {
                self.history.pop();
            }
        }
        matches!(
            self.history.last(),
            Some(Message::User(_)) | Some(Message::ToolResult(_))
        )
    }
}

/// Compacts `session` now: the plan is made and the entry recorded under the
/// session's lock, the summary call made without it (whoever asks meanwhile,
/// RPC `get_state`, is answered).
pub(super) fn compact_session(
    session: &Mutex<Store>,
    provider: &dyn Provider,
    settings: &CompactionSettings,
    instructions: Option<&str>,
    cancel: &CancelToken,
) -> Result<Compacted, CompactionError> {
    let plan = {
        let store = lock(session);
        let branch = store.manager().tree().current_branch();
        let window = provider.model().context_window;
        prepare_compaction(&branch, &settings.fitted(window))
    }
    .ok_or(CompactionError::NothingToCompact)?;
    let entry = compact(provider, &plan, settings, instructions, cancel)?;
    let outcome = record_compaction(lock(session).manager_mut(), entry)?;
    Ok(Compacted {
        entry_id: outcome.entry_id,
        tokens_before: outcome.tokens_before,
        tokens_after: outcome.tokens_after,
    })
}

/// What follows a run.
enum AfterRun {
    Done,
    Retry,
    GaveUp(String),
    Aborted,
}

/// Why an automatic compaction did not happen.
enum Stopped {
    Cancelled,
    Failed(String),
}
