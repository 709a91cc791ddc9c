//! The directory walk behind grep and find.
//!
//! Depth-first, each directory's entries sorted by name, so results come out in
//! a stable order (the model can page through them and a repeated call gives the
//! same answer). `.gitignore`/`.ignore` rules are honoured through an
//! [`IgnoreStack`] grown as the walk descends; `.git` directories are always
//! skipped; dotfiles are included (pi passes `--hidden` to its searchers: a
//! `.github/workflows` file is as much part of a project as `src/`). Symbolic
//! links are reported but never followed into, which rules out loops.

use std::path::{Path, PathBuf};

use crate::ignore::IgnoreStack;

/// Deepest directory level descended into.
pub const MAX_DEPTH: usize = 256;

/// One file or directory found.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Full path.
    pub path: PathBuf,
    /// Path relative to the walk root, `/`-separated.
    pub rel: String,
    /// Whether it is a directory (symbolic links never are).
    pub is_dir: bool,
}

/// What the visitor wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep walking.
    Continue,
    /// Stop the whole walk.
    Stop,
}

/// Walks the tree under `root` (not reporting `root` itself), calling `visit`
/// for every entry not ignored. `respect_ignore: false` reports ignored
/// entries too (but still skips `.git`). Unreadable directories are skipped
/// silently; their count is returned so the caller can mention them.
pub fn walk(root: &Path, respect_ignore: bool, visit: &mut dyn FnMut(&Entry) -> Flow) -> usize {
    let ignores = if respect_ignore {
        IgnoreStack::for_root(root)
    } else {
        IgnoreStack::default()
    };
    let mut unreadable = 0;
    walk_dir(
        root,
        "",
        &ignores,
        respect_ignore,
        0,
        visit,
        &mut unreadable,
    );
    unreadable
}

fn walk_dir(
    dir: &Path,
    rel_dir: &str,
    ignores: &IgnoreStack,
    respect_ignore: bool,
    depth: usize,
    visit: &mut dyn FnMut(&Entry) -> Flow,
    unreadable: &mut usize,
) -> Flow {
    let Ok(reader) = std::fs::read_dir(dir) else {
        *unreadable += 1;
        return Flow::Continue;
    };
    // The name as text (for rules and display) and as the OS has it: a name
    // that is not UTF-8 must still be opened by its real bytes.
    let mut entries: Vec<(String, bool, std::ffi::OsString)> = reader
        .filter_map(Result::ok)
        .map(|e| {
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            let os_name = e.file_name();
            (os_name.to_string_lossy().into_owned(), is_dir, os_name)
        })
        .collect();
    entries.sort_unstable();
    for (name, is_dir, os_name) in entries {
        if is_dir && name == ".git" {
            continue;
        }
        let rel = if rel_dir.is_empty() {
            name.clone()
        } else {
            format!("{rel_dir}/{name}")
        };
        if respect_ignore && ignores.is_ignored(&rel, is_dir) {
            continue;
        }
        let entry = Entry {
            path: dir.join(&os_name),
            rel,
            is_dir,
        };
        if visit(&entry) == Flow::Stop {
            return Flow::Stop;
        }
        if is_dir && depth < MAX_DEPTH {
            let child_ignores = if respect_ignore {
                ignores.push_dir(&entry.path, &entry.rel)
            } else {
                IgnoreStack::default()
            };
            if walk_dir(
                &entry.path,
                &entry.rel,
                &child_ignores,
                respect_ignore,
                depth + 1,
                visit,
                unreadable,
            ) == Flow::Stop
            {
                return Flow::Stop;
            }
        }
    }
    Flow::Continue
}
