//! Files a run changed by any means, `bash` included: [`TreeSnapshot`] is
//! what a stat of every file under the working directory said (size,
//! modification time, inode, type), taken before a run and again after it
//! when a tool that may write anywhere ran; [`TreeSnapshot::changed_since`]
//! lists what was created, modified or removed in between. `write` and
//! `edit` name their files themselves ([`super::summary`]); this finds the
//! rest for the result record's `files_changed`.
//!
//! Kept small on purpose: `.git` is not looked into (git's own bookkeeping
//! is no change of the user's), symbolic links are not followed, and a tree
//! of more than [`MAX_ENTRIES`] entries is not tracked at all (the snapshot
//! says so, and nothing is reported rather than something partial).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The most entries a snapshot holds; a larger tree is not tracked.
pub const MAX_ENTRIES: usize = 50_000;

/// What a stat of one entry said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stat {
    len: u64,
    mtime: i64,
    mtime_nsec: i64,
    ino: u64,
    mode: u32,
}

/// Every entry under a directory, with its stat, at one moment.
#[derive(Clone, Debug, Default)]
pub struct TreeSnapshot {
    entries: HashMap<PathBuf, Stat>,
    /// Whether the walk saw everything (not past [`MAX_ENTRIES`]).
    pub complete: bool,
}

impl TreeSnapshot {
    /// Stats everything under `root` (paths kept relative to it), `.git`
    /// left out; unreadable folders are skipped.
    pub fn take(root: &Path) -> TreeSnapshot {
        let mut entries = HashMap::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(relative) = stack.pop() {
            let Ok(listing) = std::fs::read_dir(root.join(&relative)) else {
                continue;
            };
            for entry in listing.flatten() {
                let name = entry.file_name();
                if relative.as_os_str().is_empty() && name == ".git" {
                    continue;
                }
                let Ok(meta) = entry.metadata() else { continue };
                let path = relative.join(&name);
                if meta.is_dir() {
                    stack.push(path.clone());
                }
                entries.insert(
                    path,
                    Stat {
                        len: meta.len(),
                        mtime: meta.mtime(),
                        mtime_nsec: meta.mtime_nsec(),
                        ino: meta.ino(),
                        mode: meta.mode(),
                    },
                );
                if entries.len() > MAX_ENTRIES {
                    return TreeSnapshot {
                        entries: HashMap::new(),
                        complete: false,
                    };
                }
            }
        }
        TreeSnapshot {
            entries,
            complete: true,
        }
    }

    /// The files (not folders) created, changed or removed since `before`,
    /// relative to the root, sorted; nothing when either walk was incomplete.
    pub fn changed_since(&self, before: &TreeSnapshot) -> Vec<String> {
        if !self.complete || !before.complete {
            return Vec::new();
        }
        let is_dir = |stat: &Stat| stat.mode & 0o170000 == 0o040000;
        let mut changed: Vec<String> = Vec::new();
        for (path, stat) in &self.entries {
            let differs = before.entries.get(path) != Some(stat);
            if differs && !is_dir(stat) {
                changed.push(path.to_string_lossy().into_owned());
            }
        }
        for (path, stat) in &before.entries {
            if !self.entries.contains_key(path) && !is_dir(stat) {
                changed.push(path.to_string_lossy().into_owned());
            }
        }
        changed.sort();
        changed
    }
}

/// Whether a call of `tool` may change files the summary would not otherwise
/// know of: anything but the built-in tools that only read, and `write` and
/// `edit`, which name their file.
pub fn may_change_files(tool: &str) -> bool {
    !matches!(
        tool,
        "read" | "ls" | "grep" | "find" | "write" | "edit" | "glob"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_modified_and_removed_files_are_found_and_git_is_not_looked_into() {
        let root = std::env::temp_dir().join(format!("focus-changed-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("src/kept.rs"), "a").unwrap();
        std::fs::write(root.join("src/edited.rs"), "a").unwrap();
        std::fs::write(root.join("gone.txt"), "a").unwrap();
        let before = TreeSnapshot::take(&root);
        assert!(before.complete);
        std::fs::write(root.join("src/edited.rs"), "ab").unwrap();
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        std::fs::create_dir_all(root.join("new/deep")).unwrap();
        std::fs::write(root.join("new/deep/made.txt"), "x").unwrap();
        std::fs::write(root.join(".git/index"), "x").unwrap();
        let after = TreeSnapshot::take(&root);
        assert_eq!(
            after.changed_since(&before),
            ["gone.txt", "new/deep/made.txt", "src/edited.rs"]
        );
        // An incomplete walk reports nothing rather than something partial.
        let incomplete = TreeSnapshot::default();
        assert!(after.changed_since(&incomplete).is_empty());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn only_tools_that_may_write_anywhere_call_for_a_second_walk() {
        assert!(may_change_files("bash"));
        assert!(may_change_files("github__create_file"));
        assert!(!may_change_files("read"));
        assert!(!may_change_files("write"));
    }
}
