//! What the model sees: [`build_context`] turns the branch from the root to the leaf
//! into messages, the way pi's `buildSessionContext` does.
//!
//! Walking the branch root first:
//! - the last `thinking_level_change` sets the thinking level (default `off`);
//! - the last `model_change`, or assistant message, sets the model;
//! - the last `compaction` splits the branch: the model gets its summary, then the
//!   kept entries (from `firstKeptEntryId` up to the compaction), then everything
//!   after it.
//!
//! `message` entries give their message; `custom_message` and `branch_summary`
//! entries become custom-role messages (`custom`, `branchSummary`), and the
//! compaction a `compactionSummary`; [`super::convert::convert_to_llm`] later turns
//! those into user messages. Every other entry only sets state.

use super::entry::{push_custom_message, CompactionEntry, Entry, EntryKind};
use super::time::parse_iso8601;
use focus_core::json::{Object, Value};
use focus_core::message::{CustomMessage, Message};

/// The state at the leaf: messages, model and thinking level.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionContext {
    /// The messages for the agent (custom roles still custom).
    pub messages: Vec<Message>,
    /// The thinking level in force (`off` unless set).
    pub thinking_level: String,
    /// The model in force: `(provider, model id)`.
    pub model: Option<(String, String)>,
}

impl SessionContext {
    /// The thinking level as a type; `None` if the file holds a spelling focus does
    /// not know.
    pub fn thinking(&self) -> Option<focus_core::provider::ThinkingLevel> {
        focus_core::provider::ThinkingLevel::parse(&self.thinking_level)
    }
}

/// Builds the context for `branch` (root first, as [`super::SessionTree::branch`] gives it).
pub fn build_context(branch: &[&Entry]) -> SessionContext {
    let state = BranchState::of(branch);
    let (model, thinking_level) = state.owned();
    let mut context = SessionContext {
        messages: Vec::new(),
        thinking_level,
        model,
    };
    let Some((at, summary)) = state.compaction else {
        context.messages = messages_of(branch);
        return context;
    };
    context
        .messages
        .push(compaction_summary_message(summary, &branch[at].timestamp));
    // If the first kept entry is not on this branch, nothing before the compaction is kept.
    let kept_from = branch[..at]
        .iter()
        .position(|e| e.id == summary.first_kept_entry_id)
        .unwrap_or(at);
    let kept: Vec<&Entry> = branch[kept_from..at]
        .iter()
        .chain(&branch[at + 1..])
        .copied()
        .collect();
    context.messages.extend(messages_of(&kept));
    context
}

/// The model `(provider, model id)` and thinking level in force at the end of
/// `branch`: [`build_context`]'s `model` and `thinking_level` without copying a
/// single message (a resumed session needs them before it needs the history).
pub fn model_and_thinking(branch: &[&Entry]) -> (Option<(String, String)>, String) {
    BranchState::of(branch).owned()
}

/// What the entries of a branch set, borrowed from them while walking (a long
/// branch has thousands of assistant messages, each naming the model) and copied
/// once at the end.
struct BranchState<'a> {
    thinking_level: Option<&'a String>,
    model: Option<(&'a str, &'a str)>,
    /// The last compaction and its position in the branch.
    compaction: Option<(usize, &'a CompactionEntry)>,
}

impl<'a> BranchState<'a> {
    /// Walks `branch` root first; the last setting of each kind wins.
    fn of(branch: &[&'a Entry]) -> BranchState<'a> {
        let mut state = BranchState {
            thinking_level: None,
            model: None,
            compaction: None,
        };
        for (i, entry) in branch.iter().enumerate() {
            match &entry.kind {
                EntryKind::ThinkingLevelChange { thinking_level } => {
                    state.thinking_level = Some(thinking_level)
                }
                EntryKind::ModelChange { provider, model_id } => {
                    state.model = Some((provider.as_str(), model_id.as_str()))
                }
                EntryKind::Message(Message::Assistant(m)) => {
                    state.model = Some((m.provider.as_str(), m.model.as_str()))
                }
                EntryKind::Compaction(c) => state.compaction = Some((i, c)),
                _ => {}
            }
        }
        state
    }

    /// The model and the thinking level (`off` unless set), copied.
    fn owned(&self) -> (Option<(String, String)>, String) {
        let model = self.model.map(|(p, id)| (p.to_string(), id.to_string()));
        let level = self.thinking_level.map_or("off", String::as_str);
        (model, level.to_string())
    }
}

/// Branches at least this long have their messages copied on several threads.
const PARALLEL_ENTRIES: usize = 2_000;

/// The messages of `entries`, in order.
///
/// The context is handed out by value while the tree keeps its entries, so every
/// message is copied. The texts are shared, not copied (`SharedText`), but a long
/// session still has tens of thousands of small allocations (ids, model names,
/// tool arguments), which split evenly over the cores (each thread copies a run of
/// consecutive entries; the runs are joined in order). The first run's vector is
/// made big enough for all of them, so joining moves only the later runs, and the
/// memory of one whole extra vector is never touched.
fn messages_of(entries: &[&Entry]) -> Vec<Message> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if entries.len() < PARALLEL_ENTRIES || threads < 2 {
        return entries.iter().filter_map(|e| entry_message(e)).collect();
    }
    let per_thread = entries.len().div_ceil(threads);
    let copy_run = |run: &[&Entry], capacity: usize| {
        let mut messages = Vec::with_capacity(capacity);
        messages.extend(run.iter().filter_map(|e| entry_message(e)));
        messages
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = entries
            .chunks(per_thread)
            .enumerate()
            .map(|(i, run)| {
                let capacity = if i == 0 { entries.len() } else { run.len() };
                scope.spawn(move || copy_run(run, capacity))
            })
            .collect();
        let mut all = Vec::new();
        for handle in handles {
            match handle.join() {
                Ok(mut run) if all.is_empty() => std::mem::swap(&mut all, &mut run),
                Ok(mut run) => all.append(&mut run),
                // Copying does not panic; should it anyway, do not hand out a
                // context with messages silently missing.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    })
}

/// The message an entry contributes to the context, if any.
pub fn entry_message(entry: &Entry) -> Option<Message> {
    match &entry.kind {
        EntryKind::Message(m) => Some(m.clone()),
        EntryKind::CustomMessage {
            custom_type,
            content,
            display,
            details,
        } => {
            let mut o = Object::new();
            o.push("role".into(), "custom".into());
            push_custom_message(&mut o, custom_type, content, *display, details);
            o.push("timestamp".into(), millis(&entry.timestamp).into());
            Some(custom("custom", o))
        }
        EntryKind::BranchSummary {
            from_id, summary, ..
        } if !summary.is_empty() => {
            let mut o = Object::new();
            o.push("role".into(), "branchSummary".into());
            o.push("summary".into(), summary.as_str().into());
            o.push("fromId".into(), from_id.as_str().into());
            o.push("timestamp".into(), millis(&entry.timestamp).into());
            Some(custom("branchSummary", o))
        }
        _ => None,
    }
}

/// The `compactionSummary` message that stands for everything a compaction cut.
pub fn compaction_summary_message(compaction: &CompactionEntry, timestamp: &str) -> Message {
    let mut o = Object::new();
    o.push("role".into(), "compactionSummary".into());
    o.push("summary".into(), compaction.summary.as_str().into());
    o.push("tokensBefore".into(), compaction.tokens_before.into());
    o.push("timestamp".into(), millis(timestamp).into());
    custom("compactionSummary", o)
}

fn custom(role: &str, raw: Object) -> Message {
    Message::Custom(CustomMessage {
        role: role.into(),
        raw: Value::Object(raw),
    })
}

fn millis(timestamp: &str) -> i64 {
    parse_iso8601(timestamp).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::message::UserMessage;

    fn entry(i: usize, kind: EntryKind) -> Entry {
        Entry {
            id: format!("{i:08x}").into(),
            parent_id: i.checked_sub(1).map(|p| format!("{p:08x}").into()),
            timestamp: "2026-01-01T00:00:00.000Z".into(),
            kind,
        }
    }

    /// A long branch (copied on several threads) gives the messages in file order,
    /// with compaction and custom entries handled as on a short one.
    #[test]
    fn long_branches_keep_order_and_compaction() {
        let mut entries: Vec<Entry> = (0..5_000)
            .map(|i| {
                let kind = if i % 11 == 5 {
                    EntryKind::Label {
                        target_id: "00000000".into(),
                        label: None,
                    }
                } else if i % 7 == 3 {
                    EntryKind::CustomMessage {
                        custom_type: "note".into(),
                        content: format!("n{i}").into(),
                        display: true,
                        details: Value::Null,
                    }
                } else {
                    EntryKind::Message(Message::User(UserMessage::text(format!("m{i}"), 1)))
                };
                entry(i, kind)
            })
            .collect();
        let text_of = |m: &Message| match m {
            Message::User(u) => u.content[0].as_text().unwrap_or("").to_string(),
            Message::Custom(c) => c.raw["content"].as_str().unwrap_or("").to_string(),
            other => format!("{other:?}"),
        };
        let expected = |range: std::ops::Range<usize>| -> Vec<String> {
            range
                .filter(|i| i % 11 != 5)
                .map(|i| {
                    if i % 7 == 3 {
                        format!("n{i}")
                    } else {
                        format!("m{i}")
                    }
                })
                .collect()
        };
        let branch: Vec<&Entry> = entries.iter().collect();
        let got: Vec<String> = build_context(&branch)
            .messages
            .iter()
            .map(text_of)
            .collect();
        assert_eq!(got, expected(0..5_000));

        // A compaction after entry 4,999 keeping from entry 1,000, then more entries.
        entries.push(entry(
            5_000,
            EntryKind::Compaction(CompactionEntry {
                summary: "S".into(),
                first_kept_entry_id: format!("{:08x}", 1_000),
                tokens_before: 9,
                details: Value::Null,
                from_hook: false,
            }),
        ));
        entries.extend((5_001..5_003).map(|i| {
            entry(
                i,
                EntryKind::Message(Message::User(UserMessage::text(format!("m{i}"), 1))),
            )
        }));
        let branch: Vec<&Entry> = entries.iter().collect();
        let messages = build_context(&branch).messages;
        assert_eq!(messages[0].role(), "compactionSummary");
        let got: Vec<String> = messages[1..].iter().map(text_of).collect();
        let mut want = expected(1_000..5_000);
        want.extend(["m5001".to_string(), "m5002".to_string()]);
        assert_eq!(got, want);
    }
}
