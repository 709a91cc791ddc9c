//! What front ends list before a rewind, read from the session's entries
//! alone (no file is read): the user's prompts on the current branch, each
//! with what its run changed ([`prompt_changes`]: `/rewind`, RPC
//! `get_checkpoints`), and whether an entry's file state differs from what
//! focus last recorded ([`differs_from_recorded`]: `/tree` offers to restore
//! the files then).

use super::history::{branch_ids, FileHistory, CHECKPOINT_TYPE};
use super::manifest::Manifests;
use crate::session::{EntryKind, SessionTree};
use focus_core::json::Value;
use focus_core::message::{Content, Message};
use std::collections::BTreeSet;

/// The most characters of a prompt's text kept.
pub const PROMPT_CHARS: usize = 200;

/// One prompt of the current branch and what its run changed: the
/// checkpoints after it and before the next prompt, but for the one taken
/// just before the next prompt (cause `prompt`: what changed meanwhile
/// outside the run, by the user or an editor).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptChanges {
    /// The user message's entry.
    pub entry_id: String,
    /// The entry a rewind "to before this prompt" goes to (`None`: the
    /// session's start).
    pub rewind_to: Option<String>,
    /// The prompt's text (its first [`PROMPT_CHARS`] characters).
    pub text: String,
    /// Files changed: the distinct paths when every checkpoint named all of
    /// its own (20 at most each), else the sum of their counts.
    pub files: u64,
    /// Lines added, summed over the checkpoints.
    pub lines_added: u64,
    /// Lines removed, summed over the checkpoints.
    pub lines_removed: u64,
    /// The paths the checkpoints name, each once, in order of appearance.
    pub paths: Vec<String>,
}

/// The user's prompts on the current branch of `tree`, oldest first.
pub fn prompt_changes(tree: &SessionTree) -> Vec<PromptChanges> {
    let mut prompts: Vec<PromptChanges> = Vec::new();
    // Per prompt: the sum of the checkpoints' counts, and whether each named
    // all of its paths.
    let mut summed = 0u64;
    let mut complete = true;
    let mut seen = BTreeSet::new();
    let finish = |prompt: &mut PromptChanges, summed: u64, complete: bool| {
        prompt.files = if complete {
            prompt.paths.len() as u64
        } else {
            summed
        };
    };
    for entry in tree.current_branch() {
        match &entry.kind {
            EntryKind::Message(Message::User(user)) => {
                if let Some(last) = prompts.last_mut() {
                    finish(last, summed, complete);
                }
                summed = 0;
                complete = true;
                seen.clear();
                let text: String = user
                    .content
                    .iter()
                    .filter_map(Content::as_text)
                    .collect::<Vec<_>>()
                    .join("\n")
                    .chars()
                    .take(PROMPT_CHARS)
                    .collect();
                prompts.push(PromptChanges {
                    entry_id: entry.id.to_string(),
                    rewind_to: entry.parent_id.as_ref().map(|p| p.to_string()),
                    text,
                    ..PromptChanges::default()
                });
            }
            EntryKind::Custom { custom_type, data } if custom_type == CHECKPOINT_TYPE => {
                let Some(prompt) = prompts.last_mut() else {
                    continue;
                };
                if data.get("cause").and_then(Value::as_str) == Some("prompt") {
                    continue;
                }
                let count = |key: &str| data.get(key).and_then(Value::as_u64).unwrap_or(0);
                let files = count("files");
                summed += files;
                prompt.lines_added += count("linesAdded");
                prompt.lines_removed += count("linesRemoved");
                let paths: Vec<&str> = data
                    .get("paths")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                complete &= paths.len() as u64 == files;
                for path in paths {
                    if seen.insert(path.to_string()) {
                        prompt.paths.push(path.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(last) = prompts.last_mut() {
        finish(last, summed, complete);
    }
    prompts
}

/// Whether the project's files at entry `target` (`None`: the session's
/// start) differ from what focus last recorded them to be: a move there
/// leaves files that a rewind of the code would change.
pub fn differs_from_recorded(
    tree: &SessionTree,
    manifests: &Manifests,
    target: Option<&str>,
) -> bool {
    let history = FileHistory::load(tree, manifests);
    if history.is_empty() {
        return false;
    }
    let wanted = history.state_at(&branch_ids(tree, target));
    let recorded = history.last_recorded();
    wanted
        .iter()
        .any(|(path, node)| recorded.get(path).unwrap_or(node) != node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::SessionManager;
    use focus_core::json::Object;
    use focus_core::message::UserMessage;

    fn checkpoint(s: &mut SessionManager, files: u64, paths: &[&str], added: u64) {
        let mut data = Object::new();
        data.insert("checkpoint", "x");
        data.insert("files", files);
        data.insert("linesAdded", added);
        data.insert("linesRemoved", 1u64);
        let listed: Vec<Value> = paths.iter().map(|p| Value::from(*p)).collect();
        data.insert("paths", listed);
        s.append_custom(CHECKPOINT_TYPE, Value::Object(data))
            .unwrap();
    }

    /// Each prompt gets the checkpoints after it (not the one taken before
    /// the next prompt: changes from outside the run); a path changed twice
    /// counts once; a checkpoint that named only some of its paths makes the
    /// count the sum.
    #[test]
    fn prompts_sum_the_checkpoints_of_their_run() {
        let mut s = SessionManager::in_memory(std::path::Path::new("/tmp"));
        let first = s
            .append_message(&Message::User(UserMessage::text("first\u{1b}", 0)))
            .unwrap();
        checkpoint(&mut s, 1, &["a.txt"], 2);
        checkpoint(&mut s, 2, &["a.txt", "b.txt"], 3);
        let second = s
            .append_message(&Message::User(UserMessage::text("second", 0)))
            .unwrap();
        checkpoint(&mut s, 30, &["c.txt"], 0);
        let mut outside = Object::new();
        outside.insert("checkpoint", "y");
        outside.insert("cause", "prompt");
        outside.insert("files", 1u64);
        outside.insert("paths", vec![Value::from("edited-by-the-user.txt")]);
        s.append_custom(CHECKPOINT_TYPE, Value::Object(outside))
            .unwrap();
        s.append_message(&Message::User(UserMessage::text("third", 0)))
            .unwrap();
        let listed = prompt_changes(s.tree());
        assert_eq!(listed.len(), 3);
        assert_eq!(listed[0].entry_id, first);
        assert_eq!(listed[0].rewind_to, None);
        assert_eq!(
            listed[0].text, "first\u{1b}",
            "kept as written; shown sanitized"
        );
        assert_eq!(listed[0].files, 2, "a.txt counted once");
        assert_eq!((listed[0].lines_added, listed[0].lines_removed), (5, 2));
        assert_eq!(listed[0].paths, ["a.txt", "b.txt"]);
        assert_eq!(listed[1].entry_id, second);
        let before_second = listed[1].rewind_to.as_deref();
        assert!(
            before_second.is_some() && before_second != Some(second.as_str()),
            "to the entry before the prompt: {before_second:?}"
        );
        assert_eq!(listed[1].files, 30, "not every path named: the sum");
        assert_eq!(
            listed[1].paths,
            ["c.txt"],
            "the user's edit is not the run's"
        );
        assert_eq!(listed[2].files, 0);
        assert!(listed[2].paths.is_empty());
    }
}
