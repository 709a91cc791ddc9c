//! Compaction inside a run: between two model calls of one prompt, when a long
//! tool-using run fills the context, the session is compacted before the next
//! call instead of after the run (by then the call may have overflowed).
//!
//! It is the loop's `transform_context` ([`compaction_transform`]), so it runs at
//! a step boundary on the loop's thread: every message so far is in the session,
//! because the session writer is the loop's event observer (`AgentConfig::observe`),
//! which writes each finished message before anyone else sees it. The steps:
//!
//! 1. Once a compaction has happened in this run, the model's view is the
//!    session's context (summary plus kept messages plus what came after), not the
//!    loop's full history. In a small window its oldest tool output is pruned
//!    ([`super::prune`]) before anything else.
//! 2. When that view has passed the threshold (window minus reserve), plan the cut
//!    on the session's branch, ask the model for the summary — with the run's
//!    token, so an abort stops it — and append the compaction entry.
//! 3. Report both ends as `CompactionStart`/`CompactionEnd` events, in order with
//!    the run's other events. A failure keeps the history in full and counts
//!    towards [`MAX_COMPACTION_FAILURES`]; after that many in a row, automatic
//!    compaction stops trying until one succeeds.
//!
//! The session lock is held to plan and to record, never during the summary call:
//! a consumer reading the session (a footer, `get_state`) is not held up by a
//! model call.

use super::prune::{prune_target, prune_tool_outputs};
use super::run::{compact, prepare_compaction, record_compaction, CompactionError};
use super::tokens::{estimate_context_tokens, should_compact, CompactionSettings};
use crate::session::SessionManager;
use focus_core::agent::TransformContext;
use focus_core::cancel::CancelToken;
use focus_core::event::{AgentEvent, Compacted, EventSink};
use focus_core::message::Message;
use focus_core::provider::Provider;
use focus_core::sync::lock;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// After this many automatic compactions failed in a row, focus stops starting
/// new ones (each costs a model call) and says so; `/compact` still works, and a
/// success turns it back on.
pub const MAX_COMPACTION_FAILURES: u32 = 3;

/// What a run's compaction needs besides the session.
#[derive(Clone)]
pub struct InRunCompaction {
    /// The model that writes the summary (the conversation's).
    pub provider: Arc<dyn Provider>,
    /// Threshold, reserve, what to keep.
    pub settings: CompactionSettings,
    /// Automatic compactions that failed in a row, shared with the conversation.
    pub failures: Arc<AtomicU32>,
    /// Set when this run compacted: its history is then the session's context,
    /// not what the loop hands back.
    pub compacted: Arc<AtomicBool>,
    /// Runs before each compaction starts (Claude Code's `PreCompact` hook).
    pub before: Option<Arc<dyn Fn() + Send + Sync>>,
}

/// The loop's `transform_context` that compacts `session` mid-run (see the
/// module's text). `S` is whatever holds the conversation's session.
pub fn compaction_transform<S>(
    session: Arc<Mutex<S>>,
    run: InRunCompaction,
) -> Arc<TransformContext>
where
    S: AsMut<SessionManager> + Send + 'static,
{
    Arc::new(move |view, cancel, events| transform(&session, &run, view, cancel, events))
}

fn transform<S: AsMut<SessionManager>>(
    session: &Mutex<S>,
    run: &InRunCompaction,
    view: Vec<Message>,
    cancel: &CancelToken,
    events: &EventSink<'_>,
) -> Vec<Message> {
    let window = run.provider.model().context_window;
    let view = match run.compacted.load(Ordering::SeqCst) {
        true => lock(session).as_mut().context().messages,
        false => view,
    };
    // A small window loses its old tool output first (the session keeps it),
    // unless the user switched compaction off.
    let prune = |view: Vec<Message>| match prune_target(window).filter(|_| run.settings.enabled) {
        Some(target) => prune_tool_outputs(view, target).0,
        None => view,
    };
    let view = prune(view);
    if run.failures.load(Ordering::SeqCst) >= MAX_COMPACTION_FAILURES
        || !should_compact(estimate_context_tokens(&view), window, &run.settings)
    {
        return view;
    }
    let settings = run.settings.fitted(window);
    let plan = {
        let mut held = lock(session);
        let branch = held.as_mut().tree().current_branch();
        prepare_compaction(&branch, &settings)
    };
    // Nothing old enough to summarize: the call goes as it is (an overflow it
    // causes is recovered after the run).
    let Some(plan) = plan else { return view };
    events(AgentEvent::CompactionStart {
        reason: "threshold".into(),
    });
    if let Some(before) = &run.before {
        before();
    }
    let outcome = compact(run.provider.as_ref(), &plan, &settings, None, cancel)
        .and_then(|entry| record_compaction(lock(session).as_mut(), entry));
    match outcome {
        Ok(outcome) => {
            run.failures.store(0, Ordering::SeqCst);
            run.compacted.store(true, Ordering::SeqCst);
            let result = Compacted {
                entry_id: outcome.entry_id,
                tokens_before: outcome.tokens_before,
                tokens_after: outcome.tokens_after,
            };
            events(compaction_end(Ok(result)));
            let compacted = lock(session).as_mut().context().messages;
            prune(compacted)
        }
        Err(error) => {
            events(compaction_end(Err(failure(&error, &run.failures))));
            view
        }
    }
}

/// Why a compaction failed, as the end event says it; counts the failure unless
/// the user cancelled it or there was nothing to compact (not a failure: the
/// history is as short as it gets), and says when automatic compaction stops
/// trying.
pub fn failure(error: &CompactionError, failures: &AtomicU32) -> CompactionFailure {
    match error {
        CompactionError::Cancelled => {
            return CompactionFailure {
                aborted: true,
                message: error.to_string(),
            }
        }
        CompactionError::NothingToCompact => {
            return CompactionFailure {
                aborted: false,
                message: error.to_string(),
            }
        }
        _ => {}
    }
    let count = failures.fetch_add(1, Ordering::SeqCst) + 1;
    let mut message = error.to_string();
    if count >= MAX_COMPACTION_FAILURES {
        message.push_str(&format!(
            "; automatic compaction failed {MAX_COMPACTION_FAILURES} times in a row, so focus \
             stops trying (/compact still works, and a success turns it back on)"
        ));
    }
    CompactionFailure {
        aborted: false,
        message,
    }
}

/// A compaction that did not happen, as reported.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionFailure {
    /// Whether the user's abort stopped it.
    pub aborted: bool,
    /// What to tell the user.
    pub message: String,
}

/// The `CompactionEnd` event for an outcome (no retry follows an in-run
/// compaction: the call it preceded has not been made yet).
pub fn compaction_end(outcome: Result<Compacted, CompactionFailure>) -> AgentEvent {
    match outcome {
        Ok(result) => AgentEvent::CompactionEnd {
            result: Some(result),
            aborted: false,
            will_retry: false,
            error_message: None,
        },
        Err(failure) => AgentEvent::CompactionEnd {
            result: None,
            aborted: failure.aborted,
            will_retry: false,
            error_message: Some(failure.message),
        },
    }
}
