//! Protected paths: the files inside a writable project that program the tools
//! which run there.
//!
//! A project is writable in default, accept-edits and auto mode, but some of
//! what lies inside it is not data, it is configuration that makes programs run
//! code: git's `config` (`core.fsmonitor`, `core.pager`, aliases…), `hooks/`,
//! `info/`, and the git directories of submodules and worktrees (in `.git`, or in the directory a `.git` *file* points to, and the
//! common directory of a linked worktree), the `.git` file itself (it names the
//! git directory), and the agents' own settings folders, `.focus/`, `.claude/`,
//! `.codex/` and `.pi/` (hooks and MCP servers that start with the next run).
//! A model that writes one of them plants what the next `git status` or the
//! next session executes, so the `write` and `edit` tools need an approval
//! naming the file for each write, in every mode (auto included), unless the
//! user turned the sandbox off ([`crate::gates::PermissionConfig::protect_paths`]).

use std::path::{Path, PathBuf};

/// The agents' settings folders inside a project.
pub const AGENT_FOLDERS: [&str; 4] = [".focus", ".claude", ".codex", ".pi"];

/// The parts of a git directory that make git run code.
/// (`modules/` and `worktrees/` hold the git directories of submodules and
/// linked worktrees, with configurations of their own that `git status` reads.)
pub const GIT_DIR_PARTS: [&str; 6] = [
    "config",
    "config.worktree",
    "hooks",
    "info",
    "modules",
    "worktrees",
];

/// Every protected path of `project` (resolved, symbolic links followed): each
/// is protected itself and, for a directory, everything beneath it. Paths that
/// do not exist yet are listed too (creating them is what must be approved).
pub fn protected_paths(project: &Path) -> Vec<PathBuf> {
    let project = crate::sandbox::resolve_existing(project);
    let mut paths: Vec<PathBuf> = AGENT_FOLDERS.iter().map(|f| project.join(f)).collect();
    let dot_git = project.join(".git");
    paths.push(dot_git.clone());
    for git_dir in git_dirs(&dot_git) {
        for part in GIT_DIR_PARTS {
            paths.push(git_dir.join(part));
        }
        paths.push(git_dir.join("commondir"));
        paths.push(git_dir.join("gitdir"));
    }
    paths.sort();
    paths.dedup();
    paths
}

/// The protected path `target` falls under (`target` absolute; it is resolved
/// with every symbolic link in its existing part followed), or `None`.
pub fn protected_by(project: &Path, target: &Path) -> Option<PathBuf> {
    let resolved = resolve_links(target);
    let paths = protected_paths(project);
    let dot_git = crate::sandbox::resolve_existing(&project.join(".git"));
    paths.into_iter().find(|p| {
        // `.git` as a directory protects only its parts listed above; `.git` as a
        // file (or not there yet) is protected itself.
        if *p == dot_git && dot_git.is_dir() {
            return resolved == dot_git;
        }
        resolved.starts_with(p)
    })
}

/// `path` (absolute) with every symbolic link followed, dangling ones too (a
/// link to a protected file that does not exist yet would create it), and `.`
/// and `..` folded; components that do not exist are kept as written. After 40
/// links the path is returned as far as it got.
pub fn resolve_links(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut pending: Vec<std::ffi::OsString> = Vec::new();
    for component in crate::path::normalize(path).components().rev() {
        if let Component::Normal(name) = component {
            pending.push(name.to_os_string());
        }
    }
    let mut current = PathBuf::from("/");
    let mut links = 0;
    while let Some(name) = pending.pop() {
        if name == ".." {
            current.pop();
            continue;
        }
        if name == "." {
            continue;
        }
        let candidate = current.join(&name);
        let is_link = std::fs::symlink_metadata(&candidate).is_ok_and(|m| m.is_symlink());
        if is_link && links < 40 {
            if let Ok(target) = std::fs::read_link(&candidate) {
                links += 1;
                if target.is_absolute() {
                    current = PathBuf::from("/");
                }
                for part in target.components().rev() {
                    match part {
                        Component::Normal(n) => pending.push(n.to_os_string()),
                        Component::ParentDir => pending.push("..".into()),
                        _ => {}
                    }
                }
                continue;
            }
        }
        current = candidate;
    }
    current
}

/// The git directories a project's `.git` leads to: `.git` itself when it is
/// a directory; the directory a `.git` file names (`gitdir: …`), and the
/// common directory that one names in its `commondir` file (a linked worktree).
fn git_dirs(dot_git: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let resolved = crate::sandbox::resolve_existing(dot_git);
    if resolved.is_dir() {
        dirs.push(resolved);
    } else if let Some(pointed) = read_pointer(dot_git, "gitdir:") {
        dirs.push(pointed);
    }
    if let Some(first) = dirs.first().cloned() {
        if let Ok(text) = std::fs::read_to_string(first.join("commondir")) {
            let common = text.trim();
            if !common.is_empty() {
                dirs.push(crate::sandbox::resolve_existing(&crate::path::normalize(
                    &first.join(common),
                )));
            }
        }
    }
    dirs
}

/// The path a `.git` file points to (`gitdir: PATH`, relative to the file's
/// directory), resolved.
fn read_pointer(file: &Path, prefix: &str) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let rest = text.lines().next()?.strip_prefix(prefix)?.trim();
    if rest.is_empty() {
        return None;
    }
    let base = file.parent()?;
    Some(crate::sandbox::resolve_existing(&crate::path::normalize(
        &base.join(rest),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_git_directory_a_dot_git_file_names_is_protected() {
        let root = std::env::temp_dir().join(format!("focus-protected-{}", std::process::id()));
        let project = root.join("p");
        let elsewhere = root.join("real-git");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(elsewhere.join("hooks")).unwrap();
        std::fs::write(project.join(".git"), "gitdir: ../real-git\n").unwrap();
        let project = project.canonicalize().unwrap();
        let elsewhere = elsewhere.canonicalize().unwrap();
        let hit = |p: &Path| protected_by(&project, p);
        assert!(hit(&elsewhere.join("config")).is_some());
        assert!(hit(&elsewhere.join("hooks/pre-commit")).is_some());
        assert!(hit(&project.join(".git")).is_some());
        assert!(hit(&project.join(".focus/settings.json")).is_some());
        assert!(hit(&elsewhere.join("objects/ab")).is_none());
        assert!(hit(&project.join("src/main.rs")).is_none());
        assert!(hit(&project.join(".github/x.yml")).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
