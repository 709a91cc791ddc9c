//! Branch summaries: when the user moves the leaf away from a branch (`/tree`), what
//! happened on the abandoned branch can be summarized and attached where the user
//! lands, so the model knows what was already tried.
//!
//! The abandoned part is the old branch below the *common ancestor* (the deepest
//! entry both the old leaf and the target descend from). Tool results are left out
//! of the transcript (the calls and the answers tell the story), and the newest
//! messages are kept when the whole would not fit the summarizer's budget.

use super::prompts::summary_request;
use super::run::{summarize_text, CompactionError};
use super::tokens::{estimate_message_tokens, CompactionSettings};
use crate::session::context::entry_message;
use crate::session::SessionManager;
use focus_core::cancel::CancelToken;
use focus_core::message::Message;
use focus_core::provider::Provider;

/// Prefixed to every branch summary, as in pi.
pub const BRANCH_SUMMARY_PREAMBLE: &str =
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";

const BRANCH_INSTRUCTIONS: &str = "The transcript above is a branch of the conversation that the user has now left to go back to an earlier point. Summarize it for the assistant that continues from that earlier point:\n\n## What Was Tried\n- [Approaches, changes and commands on the branch]\n\n## Results\n- [What worked, what failed, with exact errors and file paths]\n\n## Worth Knowing\n- [Facts learned that stay true on the other branch, or \"(none)\"]\n\nBe brief.";

/// The messages on the current branch below the common ancestor of the leaf and
/// `target` (`None`: the root), oldest first, within `budget_tokens` (newest kept).
pub fn abandoned_messages(
    session: &SessionManager,
    target: Option<&str>,
    budget_tokens: u64,
) -> Vec<Message> {
    let tree = session.tree();
    let old = tree.current_branch();
    let new = tree.branch(target);
    let shared = old
        .iter()
        .zip(&new)
        .take_while(|(a, b)| a.id == b.id)
        .count();
    let mut picked = Vec::new();
    let mut used = 0;
    for entry in old[shared..].iter().rev() {
        let Some(message) = entry_message(entry) else {
            continue;
        };
        if matches!(message, Message::ToolResult(_)) {
            continue;
        }
        let cost = estimate_message_tokens(&message);
        if used + cost > budget_tokens && !picked.is_empty() {
            break;
        }
        used += cost;
        picked.push(message);
    }
    picked.reverse();
    picked
}

/// The summarizer's request for the branch left when the leaf moves to
/// `target`, within the budget a model of `context_window` tokens allows;
/// `None` when the move leaves nothing to summarize. The first of the three
/// steps of [`leave_branch_with_summary`], for callers that make the model
/// call elsewhere (the interactive mode, on a thread of its own).
pub fn branch_summary_request(
    session: &SessionManager,
    target: Option<&str>,
    context_window: u64,
    settings: &CompactionSettings,
) -> Option<String> {
    let window = if context_window == 0 {
        128_000
    } else {
        context_window
    };
    let budget = window.saturating_sub(settings.reserve_tokens).max(1_000);
    let messages = abandoned_messages(session, target, budget);
    (!messages.is_empty()).then(|| summary_request(&messages, None, BRANCH_INSTRUCTIONS))
}

/// The model's summary of a branch ([`branch_summary_request`]'s request),
/// with pi's preamble.
///
/// # Errors
///
/// The model call failed or was cancelled, or the answer held no summary.
pub fn summarize_branch(
    provider: &dyn Provider,
    request: &str,
    cancel: &CancelToken,
) -> Result<String, CompactionError> {
    let summary = summarize_text(provider, request, 2_048, cancel)?;
    Ok(format!("{BRANCH_SUMMARY_PREAMBLE}{summary}"))
}

/// Moves the leaf to `target` and records `summary` (of the branch that ended
/// at `old_leaf`) there as a `branch_summary` entry; returns its id.
///
/// # Errors
///
/// `target` is no entry of the session, or the entry cannot be written.
pub fn record_branch_summary(
    session: &mut SessionManager,
    target: Option<&str>,
    old_leaf: &str,
    summary: &str,
) -> Result<String, CompactionError> {
    session
        .move_leaf(target)
        .map_err(CompactionError::Session)?;
    session
        .append_branch_summary(old_leaf, summary)
        .map_err(CompactionError::Session)
}

/// Moves the leaf to `target`, first summarizing the branch being left and
/// attaching the summary there as a `branch_summary` entry. With nothing to
/// summarize it only moves. On failure nothing changes (the leaf stays put).
/// Returns the summary entry's id, if one was written.
///
/// # Errors
///
/// `target` is no entry, the summary could not be made (model call failed or cancelled), or it
/// cannot be written; nothing changed then.
pub fn leave_branch_with_summary(
    session: &mut SessionManager,
    provider: &dyn Provider,
    target: Option<&str>,
    settings: &CompactionSettings,
    cancel: &CancelToken,
) -> Result<Option<String>, CompactionError> {
    let window = provider.model().context_window;
    let old_leaf = session.leaf_id().unwrap_or("root").to_string();
    let Some(request) = branch_summary_request(session, target, window, settings) else {
        session
            .move_leaf(target)
            .map_err(CompactionError::Session)?;
        return Ok(None);
    };
    let summary = summarize_branch(provider, &request, cancel)?;
    record_branch_summary(session, target, &old_leaf, &summary).map(Some)
}
