//! Protected paths: the parts of a project that make programs run code.
//!
//! Inside the writable project, these stay read-only to tool processes in
//! every mode but `--sandbox off`:
//!
//! - in the git directory (`.git`, or wherever a `.git` file's `gitdir:`
//!   points): `config` (`core.fsmonitor`, `core.pager`, aliases…), `hooks/` and
//!   `info/` (`info/attributes` names filter drivers). The rest (`index`,
//!   `objects/`, `refs/`, `HEAD`, `logs/`) stays writable, so `git add` and
//!   `git commit` work;
//! - the agents' configuration: `.focus/`, `.claude/`, `.codex/`, `.pi/`.
//!
//! A `.git` directory itself is bound onto itself (writable): a mount point
//! cannot be renamed or removed, so no tool moves it aside to put its own
//! `.git` in its place. The kernel enforces the rest with read-only bind mounts in the tool's mount
//! namespace (`focus_sys::namespaces`). A mount needs something to mount
//! over, so for a path that does not exist yet:
//!
//! - inside an existing git directory, focus creates `hooks/` and `info/`
//!   (empty, as `git init` makes them) and an empty `config`, then protects
//!   them like the others ([`prepare_git_dir`]);
//! - at the project's top (`.git` itself, `.focus/`, `.claude/`, `.codex/`,
//!   `.pi/`), focus does not litter the project with empty folders: instead
//!   [`MissingGuard`] notes which are absent before a command runs and, after
//!   it (and before the next command), moves any that appeared into the
//!   private temporary directory, and the tool result says so. The same
//!   holds for the git directory's `commondir` (a file naming another
//!   directory whose `config` git would read). Checked, not
//!   trusted: a background process the command left running can create one
//!   after the check; the next call's check (or the end of the session) finds
//!   it.
//!
//! The `write` and `edit` tools are not processes; they ask for an approval
//! naming the file before writing a protected path ([`protected_paths`] lists
//! them for a project).

use std::path::{Path, PathBuf};

/// The agents' configuration folders at the top of a project.
pub const AGENT_DIRS: &[&str] = &[".focus", ".claude", ".codex", ".pi"];

/// What inside a git directory makes git run code.
pub const GIT_DIR_PARTS: &[&str] = &["config", "hooks", "info"];

/// The git directory of `project`: `.git` when it is a directory, the target
/// of a `.git` file's `gitdir:` line (relative to the project) when it is a
/// file; `None` when there is neither. Symbolic links are resolved.
pub fn git_dir(project: &Path) -> Option<PathBuf> {
    let dot_git = project.join(".git");
    let meta = std::fs::metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return dot_git.canonicalize().ok();
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let target = project.join(target);
    target.canonicalize().ok().filter(|p| p.is_dir())
}

/// Every protected path of `project` (existing or not), resolved where it
/// exists: the agents' folders, `.git` (the name) and the git directory's
/// `config`, `hooks` and `info`. For the `gitfiles` approvals and for the
/// sandbox's mounts.
pub fn protected_paths(project: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = AGENT_DIRS.iter().map(|d| project.join(d)).collect();
    out.push(project.join(".git"));
    if let Some(git) = git_dir(project) {
        out.extend(GIT_DIR_PARTS.iter().map(|p| git.join(p)));
    }
    out.iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .collect()
}

/// Whether `path` (resolved) is or lies beneath a protected path of `project`.
pub fn is_protected(project: &Path, path: &Path) -> bool {
    protected_paths(project).iter().any(|p| path.starts_with(p))
}

/// Creates the missing `hooks/`, `info/` and `config` of the project's git
/// directory (git's own layout), so they can be mounted read-only. Errors
/// are ignored: a path that could not be made is guarded by [`MissingGuard`]
/// only if it is at the top of the project, so a failure leaves it writable
/// — it is reported by the caller through [`mount_points`].
pub fn prepare_git_dir(project: &Path) {
    let Some(git) = git_dir(project) else { return };
    for dir in ["hooks", "info"] {
        let _ = std::fs::create_dir(git.join(dir));
    }
    let config = git.join("config");
    if std::fs::symlink_metadata(&config).is_err() {
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&config);
    }
}

/// The mounts a tool's namespace gets: `(pinned, read_only)`. `pinned` holds
/// the `.git` directory, bound onto itself writable so it is a mount point
/// (a mount point cannot be renamed or removed: no tool can move `.git` away
/// and put a `.git` of its own in its place); `read_only` holds every other
/// existing protected path (a `.git` file included).
pub fn mount_points(project: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut pinned = Vec::new();
    let mut read_only = Vec::new();
    for path in protected_paths(project) {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let top_git = path == project.join(".git");
        if top_git && meta.is_dir() {
            pinned.push(path);
        } else if !read_only.contains(&path) {
            read_only.push(path);
        }
    }
    (pinned, read_only)
}

/// The top-level protected names absent before a command ran (see the module
/// docs).
#[derive(Debug)]
pub struct MissingGuard {
    project: PathBuf,
    absent: Vec<PathBuf>,
}

impl MissingGuard {
    /// Notes which of `.git`, `.focus`, `.claude`, `.codex`, `.pi` (and the git
    /// directory's `commondir`) are absent from `project` now.
    pub fn before(project: &Path) -> MissingGuard {
        // A git directory's `commondir` names where git reads `config` from.
        let commondir = git_dir(project).map(|g| g.join("commondir"));
        let absent = AGENT_DIRS
            .iter()
            .copied()
            .chain([".git"])
            .map(|name| project.join(name))
            .chain(commondir)
            .filter(|p| std::fs::symlink_metadata(p).is_err())
            .collect();
        MissingGuard {
            project: project.to_path_buf(),
            absent,
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
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let _ = std::fs::create_dir_all(quarantine);
            let mut target = quarantine.join(&*name);
            let mut n = 1;
            while std::fs::symlink_metadata(&target).is_ok() {
                target = quarantine.join(format!("{name}.{n}"));
                n += 1;
            }
            match std::fs::rename(path, &target) {
                Ok(()) => moved.push(format!("{name} → {}", target.display())),
                Err(e) => failed.push(format!("{name} ({e})")),
            }
        }
        if moved.is_empty() && failed.is_empty() {
            return None;
        }
        let mut note = format!(
            "[sandbox: tools may not create {} in the project {}: they configure git and the \
             coding agents, which would run code outside the sandbox later.",
            [".git", ".focus", ".claude", ".codex", ".pi"].join(", "),
            self.project.display()
        );
        if !moved.is_empty() {
            note.push_str(&format!(" Moved aside: {}.", moved.join(", ")));
        }
        if !failed.is_empty() {
            note.push_str(&format!(" Could NOT move: {}.", failed.join(", ")));
        }
        note.push_str(" Ask the user to create it, or use the write tool (it asks for approval).]");
        Some(note)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_file_points_at_the_git_dir() {
        let root = std::env::temp_dir().join(format!("focus-protected-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("project")).unwrap();
        std::fs::create_dir_all(root.join("real-git")).unwrap();
        std::fs::write(root.join("project/.git"), "gitdir: ../real-git\n").unwrap();
        let project = root.join("project").canonicalize().unwrap();
        let real = root.join("real-git").canonicalize().unwrap();
        assert_eq!(git_dir(&project), Some(real.clone()));
        prepare_git_dir(&project);
        assert!(real.join("hooks").is_dir() && real.join("info").is_dir());
        assert!(real.join("config").is_file());
        let (pinned, points) = mount_points(&project);
        assert!(pinned.is_empty());
        assert!(points.contains(&real.join("config")), "{points:?}");
        assert!(points.contains(&project.join(".git")), "{points:?}");
        assert!(is_protected(&project, &real.join("hooks/pre-commit")));
        assert!(is_protected(
            &project,
            &project.join(".claude/settings.json")
        ));
        assert!(!is_protected(&project, &project.join("src/main.rs")));
        let guard = MissingGuard::before(&project);
        std::fs::create_dir(project.join(".focus")).unwrap();
        let note = guard.after(&root.join("quarantine")).expect("a note");
        assert!(note.contains(".focus"), "{note}");
        assert!(!project.join(".focus").exists());
        assert!(root.join("quarantine/.focus").is_dir());
        let _ = std::fs::remove_dir_all(&root);
    }
}
