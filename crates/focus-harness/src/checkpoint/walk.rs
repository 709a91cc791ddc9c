//! Which paths of the project a checkpoint looks at. The walk is a trait
//! ([`ProjectWalker`]) so the harness stays free of the tools: the CLI plugs
//! in focus-tools' walk, which honours `.gitignore` and `.ignore` rules; the
//! harness's own [`PlainWalker`] skips only `.git` (tests, and front ends
//! without the tools).

use std::fs;
use std::path::{Path, PathBuf};

/// Lists the project's tracked paths.
pub trait ProjectWalker: Send + Sync {
    /// Calls `visit` with every tracked path under `root`, relative to it,
    /// each directory before what it holds. Symbolic links are reported, never
    /// followed. Returns whether the listing is complete (a walker may stop
    /// early, at a limit of paths: then nothing may be taken as deleted).
    fn walk(&self, root: &Path, visit: &mut dyn FnMut(&Path)) -> bool;
    /// Whether `rel` (relative to `root`) is left out of tracking.
    fn excluded(&self, root: &Path, rel: &Path) -> bool;
    /// Calls `visit` with every tracked path below the folder `rel` (not `rel`
    /// itself), each directory before what it holds, as [`ProjectWalker::walk`]
    /// would list them: a folder that appeared since the last look. This
    /// default asks [`ProjectWalker::excluded`] about every path; a walker with
    /// costly rules may do better.
    fn walk_under(&self, root: &Path, rel: &Path, visit: &mut dyn FnMut(&Path)) {
        let mut stack: Vec<PathBuf> = vec![rel.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(root.join(&dir)) else {
                continue;
            };
            let mut names: Vec<_> = entries.flatten().collect();
            names.sort_by_key(|e| e.file_name());
            for entry in names.into_iter().rev() {
                let child = dir.join(entry.file_name());
                if self.excluded(root, &child) {
                    continue;
                }
                visit(&child);
                if entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                    stack.push(child);
                }
            }
        }
    }
}

/// Every path but `.git` folders: no ignore rules.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlainWalker;

impl ProjectWalker for PlainWalker {
    fn walk(&self, root: &Path, visit: &mut dyn FnMut(&Path)) -> bool {
        let mut stack: Vec<PathBuf> = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            let Ok(entries) = fs::read_dir(root.join(&rel)) else {
                continue;
            };
            let mut names: Vec<_> = entries.flatten().collect();
            names.sort_by_key(|e| e.file_name());
            for entry in names.into_iter().rev() {
                let name = entry.file_name();
                let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
                if is_dir && name == ".git" {
                    continue;
                }
                let child = rel.join(&name);
                visit(&child);
                if is_dir {
                    stack.push(child);
                }
            }
        }
        true
    }

    fn excluded(&self, _root: &Path, rel: &Path) -> bool {
        rel.components().any(|c| c.as_os_str() == ".git")
    }
}
