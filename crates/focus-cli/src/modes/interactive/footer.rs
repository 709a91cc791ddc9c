//! The footer's numbers: token and cost totals of the whole session (every
//! branch, before and after compactions: what was spent), and the context the
//! next call will use (the last answer's usage on the current branch).

use crate::engine::Engine;
use focus_core::message::Message;
use focus_harness::session::EntryKind;

/// Tokens and cost spent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// Input tokens (cache reads included).
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Dollars.
    pub cost: f64,
}

/// The totals over every answer in the session file, or over the history when
/// the session is not kept in a tree (nothing saved yet).
pub fn session_totals(engine: &Engine) -> Totals {
    let tree = engine.store.manager().tree();
    let from_tree: Vec<&Message> = tree
        .entries()
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Message(m) => Some(m),
            _ => None,
        })
        .collect();
    if from_tree.is_empty() {
        totals(engine.history.iter())
    } else {
        totals(from_tree.into_iter())
    }
}

/// The totals of the answers among `messages`.
pub fn totals<'a>(messages: impl Iterator<Item = &'a Message>) -> Totals {
    let mut sum = Totals::default();
    for m in messages.filter_map(Message::as_assistant) {
        // Token counts come from servers and session files: saturate.
        let u = &m.usage;
        sum.input = sum
            .input
            .saturating_add(u.input)
            .saturating_add(u.cache_read);
        sum.output = sum.output.saturating_add(u.output);
        sum.cost += u.cost.total;
    }
    sum
}

/// The context the last answer of `history` used (0 before any).
pub fn context_tokens(history: &[Message]) -> u64 {
    history
        .iter()
        .rev()
        .filter_map(Message::as_assistant)
        .map(|m| {
            let u = &m.usage;
            [u.input, u.cache_read, u.cache_write, u.output]
                .into_iter()
                .fold(0u64, u64::saturating_add)
        })
        .find(|&used| used > 0)
        .unwrap_or(0)
}
