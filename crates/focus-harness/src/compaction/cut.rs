//! Where to cut: [`find_cut_point`] picks the first entry to keep so that roughly
//! `keep_recent_tokens` of recent history stays verbatim.
//!
//! Rules (pi's, plus one guard):
//! 1. Walk backwards from the newest entry adding message estimates; once the sum
//!    reaches the budget, cut at the first *valid cut point* at or after that entry.
//! 2. A valid cut point is a user, assistant, bashExecution, custom or summary
//!    message (or a `custom_message`/`branch_summary` entry) — never a tool result,
//!    which must stay right after the call it answers. focus adds: never a position
//!    where a tool call before it is still waiting for its result after it, so even a
//!    damaged or unusual history is not split between a call and its result.
//! 3. Settings entries just before the cut (model or thinking changes, labels) are
//!    kept with it.
//! 4. If the cut lands inside a turn (on an assistant message, not a user message),
//!    the turn's start is reported, so the turn's first part can be summarized on its
//!    own ([`CutPoint::turn_start`]).
//! 5. focus adds: when that would summarize nothing but there is more than one
//!    exchange, the cut keeps the last exchange ([`last_exchange_cut`]).

use super::tokens::estimate_message_tokens;
use crate::session::entry::{Entry, EntryKind};
use focus_core::message::{Content, Message};
use std::collections::HashSet;

/// Where to cut a branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutPoint {
    /// Index (in the entries given) of the first entry kept verbatim.
    pub first_kept: usize,
    /// When the cut splits a turn: the index of the message that started that turn.
    pub turn_start: Option<usize>,
}

/// Whether an entry may start the kept part, judged by its kind alone.
fn is_cut_kind(entry: &Entry) -> bool {
    match &entry.kind {
        EntryKind::Message(Message::ToolResult(_)) => false,
        EntryKind::Message(Message::Custom(c)) => matches!(
            c.role.as_str(),
            "bashExecution" | "custom" | "branchSummary" | "compactionSummary"
        ),
        EntryKind::Message(_) => true,
        EntryKind::BranchSummary { .. } | EntryKind::CustomMessage { .. } => true,
        _ => false,
    }
}

/// Whether an entry starts a turn (something the user, not the model, put there).
fn is_turn_start(entry: &Entry) -> bool {
    match &entry.kind {
        EntryKind::Message(Message::User(_)) => true,
        EntryKind::Message(Message::Custom(c)) => c.role == "bashExecution",
        EntryKind::BranchSummary { .. } | EntryKind::CustomMessage { .. } => true,
        _ => false,
    }
}

/// For each index in `start..end`: whether a tool call before it is still unanswered
/// there (so cutting there would separate the call from its result).
fn open_calls(entries: &[&Entry], start: usize, end: usize) -> Vec<bool> {
    let mut answered_later: HashSet<&str> = HashSet::new();
    for entry in &entries[start..end] {
        if let Some(Message::ToolResult(r)) = entry.message() {
            answered_later.insert(&r.tool_call_id);
        }
    }
    let mut pending: HashSet<&str> = HashSet::new();
    let mut open = Vec::with_capacity(end - start);
    for entry in &entries[start..end] {
        if let Some(Message::ToolResult(r)) = entry.message() {
            pending.remove(r.tool_call_id.as_str());
        }
        open.push(!pending.is_empty());
        if let Some(Message::Assistant(a)) = entry.message() {
            for block in &a.content {
                // Only calls that do get a result later in the window can be split.
                if let Content::ToolCall(call) = block {
                    if answered_later.contains(call.id.as_str()) {
                        pending.insert(&call.id);
                    }
                }
            }
        }
    }
    open
}

/// Finds the cut in `entries[start..end]` keeping about `keep_recent_tokens`.
/// With no valid cut point at all, keeps everything (`first_kept == start`).
pub fn find_cut_point(
    entries: &[&Entry],
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let open = open_calls(entries, start, end);
    let valid: Vec<usize> = (start..end)
        .filter(|&i| is_cut_kind(entries[i]) && !open[i - start])
        .collect();
    let Some(&first_valid) = valid.first() else {
        return CutPoint {
            first_kept: start,
            turn_start: None,
        };
    };
    let mut cut = first_valid;
    let mut kept_tokens = 0;
    for i in (start..end).rev() {
        let Some(message) = entries[i].message() else {
            continue;
        };
        kept_tokens += estimate_message_tokens(message);
        if kept_tokens >= keep_recent_tokens {
            if let Some(&c) = valid.iter().find(|&&c| c >= i) {
                cut = c;
            } else {
                cut = end; // nothing after here can start the kept part
            }
            break;
        }
    }
    if cut == end {
        // The newest messages alone exceed the budget and none may start the kept
        // part: keep from the last valid cut point.
        cut = *valid.last().expect("valid is not empty");
    }
    let message_cut = cut;
    // Keep the settings entries that lead up to the cut with it.
    while cut > start {
        let previous = entries[cut - 1];
        if matches!(
            previous.kind,
            EntryKind::Message(_) | EntryKind::Compaction(_)
        ) || is_cut_kind(previous)
        {
            break;
        }
        if open[cut - 1 - start] {
            break;
        }
        cut -= 1;
    }
    // Judged on the message the cut was chosen for, not on a settings entry pulled
    // in front of it.
    let turn_start = if is_turn_start(entries[message_cut]) {
        None
    } else {
        (start..cut).rev().find(|&i| is_turn_start(entries[i]))
    };
    CutPoint {
        first_kept: cut,
        turn_start,
    }
}

/// The cut that keeps only the last exchange: the newest turn start in
/// `entries[start + 1..end]` that may start the kept part. The fallback when
/// [`find_cut_point`] would summarize nothing (the whole history is smaller than
/// the budget to keep, yet past the threshold: in a small window the system
/// prompt and the tool definitions take most of it), so a history of more than
/// one exchange can always be compacted. `None` with a single exchange.
pub fn last_exchange_cut(entries: &[&Entry], start: usize, end: usize) -> Option<usize> {
    let open = open_calls(entries, start, end);
    (start + 1..end)
        .rev()
        .find(|&i| is_turn_start(entries[i]) && is_cut_kind(entries[i]) && !open[i - start])
}
