//! Running a compaction: [`prepare_compaction`] decides what to cut, [`compact`]
//! asks the model for the summary, [`compact_session`] does both and records the
//! result in the session.
//!
//! A failed summary is an error the caller must show; the history is then left
//! exactly as it was. Nothing is dropped unless its summary was written first.

use super::cut::{find_cut_point, last_exchange_cut, CutPoint};
use super::file_ops::FileOps;
use super::prompts::{
    first_summary_instructions, summary_request, update_summary_instructions,
    SUMMARIZER_SYSTEM_PROMPT, TURN_PREFIX_INSTRUCTIONS,
};
use super::tokens::{
    estimate_context_tokens, estimate_text_tokens, tokens_for_chars, CompactionSettings,
};
use crate::session::context::{build_context, entry_message};
use crate::session::entry::{CompactionEntry, Entry, EntryKind};
use crate::session::{SessionError, SessionManager};
use focus_core::cancel::CancelToken;
use focus_core::message::{Content, Message, StopReason, UserMessage};
use focus_core::provider::{ModelRequest, Provider, RequestOptions};
use std::fmt;

/// What a compaction will summarize and keep.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionPlan {
    /// The first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// Messages replaced by the summary.
    pub messages_to_summarize: Vec<Message>,
    /// When the cut splits a turn: that turn's messages before the cut, summarized
    /// separately so the kept rest of the turn makes sense.
    pub turn_prefix: Vec<Message>,
    /// The context's estimated size before compacting.
    pub tokens_before: u64,
    /// The summary of the previous compaction on this branch, to be updated.
    pub previous_summary: Option<String>,
    /// Files read and modified, including those of earlier compactions.
    pub file_ops: FileOps,
}

/// Why a compaction did not happen.
#[derive(Debug)]
pub enum CompactionError {
    /// There is nothing old enough to summarize.
    NothingToCompact,
    /// The user cancelled.
    Cancelled,
    /// The model call failed; the message is the provider's.
    Model(String),
    /// The summary could not be recorded.
    Session(SessionError),
}

impl fmt::Display for CompactionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompactionError::NothingToCompact => {
                write!(f, "nothing to compact: the history is already short")
            }
            CompactionError::Cancelled => {
                write!(f, "compaction cancelled; the history was kept in full")
            }
            CompactionError::Model(why) => write!(
                f,
                "compaction failed, the history was kept in full: summarizing failed: {why}"
            ),
            CompactionError::Session(e) => write!(f, "compaction could not be saved: {e}"),
        }
    }
}

impl std::error::Error for CompactionError {}

/// Plans a compaction of `branch` (root to leaf). `None` if the branch ends with a
/// compaction already or nothing would be summarized.
///
/// The window starts at the previous compaction's first kept entry (pi starts after
/// the compaction entry, which silently drops the entries that compaction had kept).
pub fn prepare_compaction(
    branch: &[&Entry],
    settings: &CompactionSettings,
) -> Option<CompactionPlan> {
    if let Some(EntryKind::Compaction(_)) = branch.last().map(|e| &e.kind) {
        return None;
    }
    let previous = branch
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, e)| match &e.kind {
            EntryKind::Compaction(c) => Some((i, c)),
            _ => None,
        });
    let start = match previous {
        Some((at, c)) => branch[..at]
            .iter()
            .position(|e| e.id == c.first_kept_entry_id)
            .unwrap_or(at + 1),
        None => 0,
    };
    let mut cut = find_cut_point(branch, start, branch.len(), settings.keep_recent_tokens);
    if cut.first_kept >= branch.len() {
        return None;
    }
    let messages = |range: std::ops::Range<usize>| -> Vec<Message> {
        branch[range]
            .iter()
            .filter(|e| !matches!(e.kind, EntryKind::Compaction(_)))
            .filter_map(|e| entry_message(e))
            .collect()
    };
    let summarizes_nothing = |cut: &CutPoint| {
        messages(start..cut.turn_start.unwrap_or(cut.first_kept)).is_empty()
            && messages(cut.turn_start.unwrap_or(cut.first_kept)..cut.first_kept).is_empty()
    };
    if summarizes_nothing(&cut) {
        // Everything fits the budget to keep: keep the last exchange only.
        cut = CutPoint {
            first_kept: last_exchange_cut(branch, start, branch.len())?,
            turn_start: None,
        };
        if summarizes_nothing(&cut) {
            return None;
        }
    }
    let history_end = cut.turn_start.unwrap_or(cut.first_kept);
    let messages_to_summarize = messages(start..history_end);
    let turn_prefix = messages(history_end..cut.first_kept);
    let mut file_ops = FileOps::default();
    if let Some((_, c)) = previous.filter(|(_, c)| !c.from_hook) {
        file_ops.add_details(&c.details);
    }
    for m in messages_to_summarize.iter().chain(&turn_prefix) {
        file_ops.add_message(m);
    }
    Some(CompactionPlan {
        first_kept_entry_id: branch[cut.first_kept].id.to_string(),
        messages_to_summarize,
        turn_prefix,
        tokens_before: estimate_context_tokens(&build_context(branch).messages),
        previous_summary: previous.map(|(_, c)| c.summary.clone()),
        file_ops,
    })
}

/// Asks `provider` for the summary of `plan` and returns the compaction entry to
/// record. `instructions` (from `/compact <instructions>`) steer the summary.
///
/// # Errors
///
/// The model call failed or was cancelled, or its answer held no summary text.
pub fn compact(
    provider: &dyn Provider,
    plan: &CompactionPlan,
    settings: &CompactionSettings,
    instructions: Option<&str>,
    cancel: &CancelToken,
) -> Result<CompactionEntry, CompactionError> {
    // The answer's budget: the reserve fitted to the window (at least 1,024
    // tokens, or a quarter of a smaller window).
    let window = provider.model().context_window;
    let floor = if window == 0 {
        1_024
    } else {
        1_024.min(window / 4)
    };
    let budget = settings.fitted(window).reserve_tokens.max(floor);
    let mut base = match plan.previous_summary {
        Some(_) => update_summary_instructions(),
        None => first_summary_instructions(),
    };
    if let Some(extra) = instructions.filter(|s| !s.trim().is_empty()) {
        base.push_str(&format!("\n\nAdditional focus: {extra}"));
    }
    let history = if plan.messages_to_summarize.is_empty() {
        match &plan.previous_summary {
            Some(previous) => previous.clone(),
            None => "No prior history.".to_string(),
        }
    } else {
        let request = fitted_request(
            &plan.messages_to_summarize,
            plan.previous_summary.as_deref(),
            &base,
            window,
            budget * 4 / 5,
        );
        summarize_text(provider, &request, budget * 4 / 5, cancel)?
    };
    let mut summary = history;
    if !plan.turn_prefix.is_empty() {
        let request = fitted_request(
            &plan.turn_prefix,
            None,
            TURN_PREFIX_INSTRUCTIONS,
            window,
            budget / 2,
        );
        let prefix = summarize_text(provider, &request, budget / 2, cancel)?;
        summary.push_str("\n\n---\n\n**Turn Context (split turn):**\n\n");
        summary.push_str(&prefix);
    }
    summary.push_str(&plan.file_ops.summary_suffix());
    Ok(CompactionEntry {
        summary,
        first_kept_entry_id: plan.first_kept_entry_id.clone(),
        tokens_before: plan.tokens_before,
        details: plan.file_ops.to_details(),
        from_hook: false,
    })
}

/// The summary request for `messages`, without the oldest of them when the whole
/// would not fit a window of `window` tokens with `max_tokens` left for the
/// answer (a small window; 0 means unknown). Four characters a token plus an
/// eighth for text that tokenizes worse; the newest message is always kept.
fn fitted_request(
    messages: &[Message],
    previous: Option<&str>,
    instructions: &str,
    window: u64,
    max_tokens: u64,
) -> String {
    let mut from = 0;
    loop {
        let text = summary_request(&messages[from..], previous, instructions);
        let chars = text.chars().count() + SUMMARIZER_SYSTEM_PROMPT.len();
        let tokens = tokens_for_chars(chars as u64);
        let fits = tokens + tokens / 8 + max_tokens <= window;
        if window == 0 || fits || from + 1 >= messages.len() {
            return text;
        }
        from += 1;
    }
}

/// One summarization call: the request as a single user message, no tools.
pub(crate) fn summarize_text(
    provider: &dyn Provider,
    request_text: &str,
    max_tokens: u64,
    cancel: &CancelToken,
) -> Result<String, CompactionError> {
    let messages = [Message::User(UserMessage::text(
        request_text,
        focus_core::message::now_ms(),
    ))];
    let options = RequestOptions {
        max_tokens: Some(max_tokens),
        ..RequestOptions::default()
    };
    let request = ModelRequest {
        system_prompt: SUMMARIZER_SYSTEM_PROMPT,
        messages: &messages,
        tools: &[],
        options: &options,
        cancel,
    };
    let answer = provider.stream(&request, &mut |_, _| {});
    match answer.stop_reason {
        StopReason::Aborted => return Err(CompactionError::Cancelled),
        StopReason::Error => {
            return Err(CompactionError::Model(
                answer
                    .error_message
                    .unwrap_or_else(|| "unknown error".into()),
            ))
        }
        _ => {}
    }
    if cancel.is_cancelled() {
        return Err(CompactionError::Cancelled);
    }
    let texts: Vec<&str> = answer.content.iter().filter_map(Content::as_text).collect();
    let text = texts.join("\n");
    if text.trim().is_empty() {
        return Err(CompactionError::Model(
            "the model returned an empty summary".into(),
        ));
    }
    Ok(text.trim().to_string())
}

/// What [`compact_session`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionOutcome {
    /// The new compaction entry's id.
    pub entry_id: String,
    /// Context tokens before, estimated from the texts (see [`estimate_text_tokens`]).
    pub tokens_before: u64,
    /// Context tokens after (summary plus kept messages), estimated the same way.
    pub tokens_after: u64,
}

/// Compacts the session's current branch: plan, summarize, append the entry. On
/// success the session's [`SessionManager::context`] is the compacted context; on
/// failure the session is unchanged.
///
/// # Errors
///
/// Nothing to compact, the summary could not be made, or the entry cannot be written; the session
/// is unchanged then.
pub fn compact_session(
    session: &mut SessionManager,
    provider: &dyn Provider,
    settings: &CompactionSettings,
    instructions: Option<&str>,
    cancel: &CancelToken,
) -> Result<CompactionOutcome, CompactionError> {
    let settings = &settings.fitted(provider.model().context_window);
    let plan = prepare_compaction(&session.tree().current_branch(), settings)
        .ok_or(CompactionError::NothingToCompact)?;
    // Before and after are counted the same way, from the texts: the model's own
    // count of the context before has no counterpart after (no call has been
    // made), and setting one against the other gave figures like "1212 → 34411".
    let entry = compact(provider, &plan, settings, instructions, cancel)?;
    record_compaction(session, entry)
}

/// Appends a summarized compaction `entry` to the session and measures what it
/// did: the context's size before and after, counted the same way.
///
/// # Errors
///
/// The entry cannot be written to the session file.
pub fn record_compaction(
    session: &mut SessionManager,
    entry: CompactionEntry,
) -> Result<CompactionOutcome, CompactionError> {
    let before = estimate_text_tokens(&session.context().messages);
    let entry_id = session
        .append_compaction(entry)
        .map_err(CompactionError::Session)?;
    Ok(CompactionOutcome {
        entry_id,
        tokens_before: before,
        tokens_after: estimate_text_tokens(&session.context().messages),
    })
}

/// Compacts when the session's context has passed the model's window minus the
/// reserve (the check the CLI runs after every agent run and before a prompt).
/// `Ok(None)`: no compaction was needed (or compaction is disabled).
///
/// # Errors
///
/// As [`compact_session`], when a compaction was needed.
pub fn compact_if_needed(
    session: &mut SessionManager,
    provider: &dyn Provider,
    settings: &CompactionSettings,
    cancel: &CancelToken,
) -> Result<Option<CompactionOutcome>, CompactionError> {
    let tokens = estimate_context_tokens(&session.context().messages);
    if !super::tokens::should_compact(tokens, provider.model().context_window, settings) {
        return Ok(None);
    }
    match compact_session(session, provider, settings, None, cancel) {
        Ok(outcome) => Ok(Some(outcome)),
        Err(CompactionError::NothingToCompact) => Ok(None),
        Err(other) => Err(other),
    }
}
