//! The file changes of each turn in an HTML export: the `focus.checkpoint`
//! (and `focus.restore`) entries of the branch between two prompts, summed
//! into one block (files, lines added and removed, the paths the entries
//! name) shown at the end of the turn. A block is placed by how many user
//! prompts follow it, so it lands in the right place also in a conversation
//! whose start compaction summarized.

use crate::export::escape;
use focus_core::json::Value;
use focus_core::message::Message;
use focus_harness::checkpoint::{CHECKPOINT_TYPE, RESTORE_TYPE};
use focus_harness::session::{Entry, EntryKind};
use std::fmt::Write as _;

/// What one turn changed in the project's files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnFiles {
    /// User prompts on the branch after this block (0: the last turn).
    pub prompts_after: usize,
    /// Files changed, summed over the turn's checkpoints.
    pub files: u64,
    /// Lines added and removed.
    pub lines: (u64, u64),
    /// The paths named, each once, in order.
    pub paths: Vec<String>,
    /// How many of the turn's entries were rewinds (restores).
    pub restores: usize,
}

/// The turns of `branch` (root first) that changed files.
pub fn turn_files(branch: &[&Entry]) -> Vec<TurnFiles> {
    let total_prompts = branch.iter().filter(|e| is_prompt(e)).count();
    let mut seen_prompts = 0;
    let mut out = Vec::new();
    let mut current = TurnFiles::default();
    for entry in branch {
        if is_prompt(entry) {
            flush(&mut current, total_prompts - seen_prompts, &mut out);
            seen_prompts += 1;
            continue;
        }
        let EntryKind::Custom { custom_type, data } = &entry.kind else {
            continue;
        };
        if custom_type != CHECKPOINT_TYPE && custom_type != RESTORE_TYPE {
            continue;
        }
        if custom_type == RESTORE_TYPE {
            current.restores += 1;
        }
        let number = |key: &str| data.get(key).and_then(Value::as_u64).unwrap_or(0);
        current.files += number("files");
        current.lines.0 += number("linesAdded");
        current.lines.1 += number("linesRemoved");
        for path in data
            .get("paths")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(path) = path.as_str() {
                if !current.paths.iter().any(|p| p == path) {
                    current.paths.push(path.to_string());
                }
            }
        }
    }
    flush(&mut current, 0, &mut out);
    out
}

fn is_prompt(entry: &Entry) -> bool {
    matches!(&entry.kind, EntryKind::Message(Message::User(_)))
}

fn flush(current: &mut TurnFiles, prompts_after: usize, out: &mut Vec<TurnFiles>) {
    let turn = std::mem::take(current);
    if turn.files > 0 || !turn.paths.is_empty() {
        out.push(TurnFiles {
            prompts_after,
            ..turn
        });
    }
}

/// Appends `turn`'s block to `page`.
pub fn render(page: &mut String, turn: &TurnFiles) {
    let _ = write!(
        page,
        "<section class=\"msg files\"><details><summary>files changed: {} (+{} −{}){}</summary><ul>",
        turn.files,
        turn.lines.0,
        turn.lines.1,
        if turn.restores > 0 {
            format!(", {} by a rewind", turn.restores)
        } else {
            String::new()
        }
    );
    for path in &turn.paths {
        let _ = write!(page, "<li><code>{}</code></li>", escape(&sanitize(path)));
    }
    page.push_str("</ul></details></section>\n");
}

/// Control characters of a file name shown as `?` (a name is outside data).
fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_lists_escaped_paths_and_sums() {
        let mut page = String::new();
        render(
            &mut page,
            &TurnFiles {
                prompts_after: 0,
                files: 2,
                lines: (3, 1),
                paths: vec!["<b>.rs".into(), "a\u{1b}[31m".into()],
                restores: 0,
            },
        );
        assert!(page.contains("files changed: 2 (+3 −1)"), "{page}");
        assert!(page.contains("&lt;b&gt;.rs"), "{page}");
        assert!(
            page.contains("a?[31m") && !page.contains('\u{1b}'),
            "{page}"
        );
    }
}
