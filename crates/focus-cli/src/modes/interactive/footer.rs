//! The footer's numbers: token and cost totals of the whole session (every
//! branch, before and after compactions: what was spent), and the context the
//! next call will use (the last answer's usage on the current branch).

pub mod layout;

use crate::engine::Engine;
use focus_core::message::Message;
use focus_harness::session::EntryKind;
use std::path::Path;

/// Tokens and cost spent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// Input tokens (cache reads included).
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Dollars.
    pub cost: f64,
    /// Some counts are focus's estimate (the server sent none): shown with `~`.
    pub estimated: bool,
}

/// The totals over every answer in the session file, or over the history when
/// the session is not kept in a tree (nothing saved yet).
pub fn session_totals(engine: &Engine) -> Totals {
    let store = engine.conversation.session.lock();
    let tree = store.manager().tree();
    let from_tree: Vec<&Message> = tree
        .entries()
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Message(m) => Some(m),
            _ => None,
        })
        .collect();
    if from_tree.is_empty() {
        totals(engine.conversation.history.iter())
    } else {
        totals(from_tree.into_iter())
    }
}

/// The totals of the answers among `messages`, the subagents' (their `task`
/// results' records) included.
pub fn totals<'a>(messages: impl Iterator<Item = &'a Message>) -> Totals {
    let mut sum = Totals::default();
    for m in messages {
        let child;
        let u = match m {
            Message::Assistant(m) => &m.usage,
            Message::ToolResult(r) => {
                match focus_harness::subagents::record::child_usage(&r.tool_name, &r.details) {
                    Some(usage) => {
                        child = usage;
                        &child
                    }
                    None => continue,
                }
            }
            _ => continue,
        };
        // Token counts come from servers and session files: saturate.
        sum.input = sum
            .input
            .saturating_add(u.input)
            .saturating_add(u.cache_read);
        sum.output = sum.output.saturating_add(u.output);
        sum.cost += u.cost.total;
        sum.estimated |= u.estimated;
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

/// The git branch checked out in `cwd` or a directory above it (`.git/HEAD`
/// read directly: no process is started), or the short commit when detached.
/// `None` outside a repository.
pub fn git_branch(cwd: &Path) -> Option<String> {
    for dir in cwd.ancestors() {
        let git = dir.join(".git");
        let head_file = if git.is_dir() {
            git.join("HEAD")
        } else if git.is_file() {
            // A worktree or submodule: `gitdir: PATH`.
            let text = std::fs::read_to_string(&git).ok()?;
            let target = text.strip_prefix("gitdir:")?.trim();
            dir.join(target).join("HEAD")
        } else {
            continue;
        };
        let head = std::fs::read_to_string(head_file).ok()?;
        let head = head.trim();
        let name = match head.strip_prefix("ref: refs/heads/") {
            Some(branch) => branch.to_string(),
            None => head.chars().take(8).collect(),
        };
        // A file's content: shown printable and short.
        let name = crate::modes::print::clip(&name, 40);
        return Some(name);
    }
    None
}

/// `1234` → `1.2k`.
pub fn human(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_short() {
        assert_eq!(human(999), "999");
        assert_eq!(human(1234), "1.2k");
        assert_eq!(human(200_000), "200.0k");
        assert_eq!(human(2_500_000), "2.5M");
    }

    #[test]
    fn the_branch_of_a_repository_and_a_worktree() {
        let root = std::env::temp_dir().join(format!("focus-footer-{}", std::process::id()));
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        assert_eq!(
            git_branch(&repo.join("src/deep")).as_deref(),
            Some("feature/x")
        );
        let worktree = root.join("wt");
        std::fs::create_dir_all(root.join("gitdirs/wt")).unwrap();
        std::fs::create_dir_all(&worktree).unwrap();
        std::fs::write(worktree.join(".git"), "gitdir: ../gitdirs/wt\n").unwrap();
        std::fs::write(root.join("gitdirs/wt/HEAD"), "0123456789abcdef\n").unwrap();
        assert_eq!(git_branch(&worktree).as_deref(), Some("01234567"));
        let _ = std::fs::remove_dir_all(&root);
    }
}
