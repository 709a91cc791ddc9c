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

use super::entry::{CompactionEntry, Entry, EntryKind};
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
    let mut context = SessionContext {
        thinking_level: "off".into(),
        ..SessionContext::default()
    };
    let mut compaction: Option<(usize, &CompactionEntry)> = None;
    for (i, entry) in branch.iter().enumerate() {
        match &entry.kind {
            EntryKind::ThinkingLevelChange { thinking_level } => {
                context.thinking_level = thinking_level.clone()
            }
            EntryKind::ModelChange { provider, model_id } => {
                context.model = Some((provider.clone(), model_id.clone()))
            }
            EntryKind::Message(Message::Assistant(m)) => {
                context.model = Some((m.provider.clone(), m.model.clone()))
            }
            EntryKind::Compaction(c) => compaction = Some((i, c)),
            _ => {}
        }
    }
    let Some((at, summary)) = compaction else {
        context.messages = branch.iter().filter_map(|e| entry_message(e)).collect();
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
    context.messages.extend(
        branch[kept_from..at]
            .iter()
            .chain(&branch[at + 1..])
            .filter_map(|e| entry_message(e)),
    );
    context
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
            o.push("customType".into(), custom_type.as_str().into());
            o.push("content".into(), content.clone());
            o.push("display".into(), (*display).into());
            if !details.is_null() {
                o.push("details".into(), details.clone());
            }
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
