//! The protected paths ([`crate::protected`]) as a tool process sees them:
//! read-only mounts in its mount namespace.
//!
//! Inside the writable project, the git directory's `config`, `hooks/`,
//! `info/`… and the agents' folders (`.focus/`, `.claude/`, `.codex/`, `.pi/`)
//! stay read-only to tool processes in every mode but `--sandbox off`. The
//! kernel enforces it with bind mounts (`focus_sys::namespaces`): each
//! existing protected path is bound onto itself read-only ([`mount_points`]),
//! and a `.git` directory is bound onto itself writable, so it is a mount point
//! nobody can rename or remove (no tool moves `.git` aside to put a `.git` of
//! its own in its place). The index, objects and refs stay writable, so
//! `git add` and `git commit` work.
//!
//! A mount needs something to mount over, so for a path that does not exist:
//!
//! - inside an existing git directory, focus creates the missing parts
//!   `git init` always makes (`hooks/`, `info/`, an empty `config`) and
//!   protects them like the others ([`prepare_git_dirs`]), in the modes that
//!   write (plan mode changes nothing, and its Landlock rules keep the whole
//!   project read-only anyway);
//! - the rest (`.git` itself, `.focus/`, `.claude/`, `.codex/`, `.pi/`, a git
//!   directory's `modules/`, `worktrees/`, `config.worktree`, and `commondir`
//!   and `gitdir`, which an empty file would break) is not created, so the project is not littered with empty folders: instead
//!   [`MissingGuard`] notes which are absent before a command runs and, after
//!   it, moves any that appeared into the private temporary directory, and
//!   the tool result says so. Checked, not trusted: a background process the
//!   command left running can create one after the check; the next call's
//!   check finds it.

use std::path::{Path, PathBuf};

use crate::protected::protected_paths;

/// Parts of a git directory created empty when missing (git makes or accepts
/// them so), with whether each is a directory.
const CREATED_EMPTY: &[(&str, bool)] = &[("hooks", true), ("info", true), ("config", false)];

/// Creates the missing parts of the project's git directories that `git init` makes
/// (`hooks/`, `info/`, `config`), so they can be mounted read-only. Errors are ignored: a
/// part that could not be made is left to [`MissingGuard`].
pub fn prepare_git_dirs(project: &Path) {
    for path in protected_paths(project) {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            continue;
        };
        let Some(&(_, is_dir)) = CREATED_EMPTY.iter().find(|(n, _)| name == *n) else {
            continue;
        };
        if parent == project || !parent.is_dir() || std::fs::symlink_metadata(&path).is_ok() {
            continue;
        }
        let _ = if is_dir {
            std::fs::create_dir(&path)
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map(drop)
        };
    }
}

/// The mounts a tool's namespace gets: `(pinned, read_only)`. `pinned` holds
/// the `.git` directory (bound onto itself writable); `read_only` every other
/// existing protected path (a `.git` file included).
pub fn mount_points(project: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut pinned = Vec::new();
    let mut read_only = Vec::new();
    let dot_git = project.join(".git");
    for path in protected_paths(project) {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if path == dot_git && meta.is_dir() {
            pinned.push(path);
        } else if !read_only.contains(&path) {
            read_only.push(path);
        }
    }
    (pinned, read_only)
}

/// The protected paths absent before a command ran (see the module docs).
#[derive(Debug)]
pub struct MissingGuard {
    project: PathBuf,
    absent: Vec<PathBuf>,
}

impl MissingGuard {
    /// Notes which protected paths of `project` are absent now.
    pub fn before(project: &Path) -> MissingGuard {
        MissingGuard {
            project: project.to_path_buf(),
            absent: protected_paths(project)
                .into_iter()
                .filter(|p| std::fs::symlink_metadata(p).is_err())
                .collect(),
        }
    }

    /// Moves each noted path that exists now into `quarantine` (made if
    /// needed) and returns a note for the tool result, or `None` if nothing
    /// appeared.
    pub fn after(&self, quarantine: &Path) -> Option<String> {
        let mut moved = Vec::new();
        let mut failed = Vec::new();
        for path in &self.absent {
            if std::fs::symlink_metadata(path).is_err() {
                continue;
            }
            let shown = path
                .strip_prefix(&self.project)
                .unwrap_or(path)
                .display()
                .to_string();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let _ = std::fs::create_dir_all(quarantine);
            let mut target = quarantine.join(&*name);
            let mut n = 1;
            while std::fs::symlink_metadata(&target).is_ok() {
                target = quarantine.join(format!("{name}.{n}"));
                n += 1;
            }
            match std::fs::rename(path, &target) {
                Ok(()) => moved.push(format!("{shown} → {}", target.display())),
                Err(e) => failed.push(format!("{shown} ({e})")),
            }
        }
        if moved.is_empty() && failed.is_empty() {
            return None;
        }
        let mut note = format!(
            "[sandbox: tools may not create git's configuration (.git, its config, hooks, \
             commondir…) or the agents' folders (.focus, .claude, .codex, .pi) in the project \
             {}: they would run code outside the sandbox later.",
            self.project.display()
        );
        if !moved.is_empty() {
            note.push_str(&format!(" Moved aside: {}.", moved.join(", ")));
        }
        if !failed.is_empty() {
            note.push_str(&format!(" Could NOT move: {}.", failed.join(", ")));
        }
        note.push_str(" Ask the user, or use the write tool (it asks for approval).]");
        Some(note)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_file_points_at_the_git_dir_whose_parts_are_made_and_mounted() {
        let root = std::env::temp_dir().join(format!("focus-mounts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("project")).unwrap();
        std::fs::create_dir_all(root.join("real-git")).unwrap();
        std::fs::write(root.join("project/.git"), "gitdir: ../real-git\n").unwrap();
        let project = root.join("project").canonicalize().unwrap();
        let real = root.join("real-git").canonicalize().unwrap();
        prepare_git_dirs(&project);
        assert!(real.join("hooks").is_dir() && real.join("info").is_dir());
        assert!(real.join("config").is_file());
        assert!(
            !real.join("commondir").exists(),
            "an empty commondir would break git"
        );
        let (pinned, points) = mount_points(&project);
        assert!(pinned.is_empty());
        assert!(points.contains(&real.join("config")), "{points:?}");
        assert!(points.contains(&project.join(".git")), "{points:?}");
        let guard = MissingGuard::before(&project);
        std::fs::create_dir(project.join(".focus")).unwrap();
        std::fs::write(real.join("commondir"), "/elsewhere\n").unwrap();
        let note = guard.after(&root.join("quarantine")).expect("a note");
        assert!(
            note.contains(".focus") && note.contains("commondir"),
            "{note}"
        );
        assert!(!project.join(".focus").exists() && !real.join("commondir").exists());
        assert!(root.join("quarantine/.focus").is_dir());
        let _ = std::fs::remove_dir_all(&root);
    }
}
