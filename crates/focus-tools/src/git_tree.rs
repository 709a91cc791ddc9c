//! The working tree of a git repository as a tree object, and the patch
//! between two such trees: what `--output-diff` writes (the run's own
//! changes, for evaluation harnesses such as SWE-bench).
//!
//! [`snapshot`] records the working tree as it is — uncommitted changes and
//! untracked files included, ignored files not — without touching the
//! repository's index, stash or refs: git is given a temporary index file
//! (`GIT_INDEX_FILE`, a copy of the real one so unchanged files are not
//! hashed again), `git add -A` fills it and `git write-tree` stores the tree
//! (new objects go into the object store, unreferenced, as `git stash
//! create` would leave them). [`diff`] is `git diff --binary` between two such
//! trees, paths relative to the repository's top.
//!
//! The repository is untrusted: every git runs with the environment of
//! read-only git commands ([`crate::git_env::apply`]: no system or global
//! configuration, no pager, hooks, fsmonitor, credential helper…), the diff
//! with `--no-ext-diff --no-textconv`, and a repository whose configuration
//! names a program git would run on its files (a filter or diff driver,
//! `diff.external`: [`crate::gates::git_guard::repository_runs_code`]) is
//! refused rather than trusted.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A recorded working tree: the repository's top and the tree object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeSnapshot {
    /// The repository's top folder (where git runs).
    pub top: PathBuf,
    /// The tree object's id.
    pub tree: String,
}

/// Records the working tree of the repository `dir` is in.
///
/// # Errors
///
/// `dir` is in no git repository, its configuration names a program git
/// would run, git is missing, or a git command fails: the message says which.
pub fn snapshot(dir: &Path) -> Result<TreeSnapshot, String> {
    if let Some(found) = crate::gates::git_guard::repository_runs_code(dir) {
        return Err(format!(
            "the repository's configuration names a program git would run ({found}); \
             focus does not run git there"
        ));
    }
    let top = git(dir, &["rev-parse", "--show-toplevel"], None)
        .map_err(|e| format!("{} is not in a git repository ({e})", dir.display()))?;
    let top = PathBuf::from(top.trim_end_matches('\n'));
    let tree = write_tree(&top)?;
    Ok(TreeSnapshot { top, tree })
}

/// The patch from `start` to the working tree now (`git diff --binary`,
/// paths relative to the repository's top; empty when nothing changed).
///
/// # Errors
///
/// A git command fails; the message says which.
pub fn diff(start: &TreeSnapshot) -> Result<String, String> {
    let now = write_tree(&start.top)?;
    git(
        &start.top,
        &[
            "diff",
            "--binary",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            &start.tree,
            &now,
        ],
        None,
    )
}

/// `git add -A` into a temporary copy of the index, then `git write-tree`.
fn write_tree(top: &Path) -> Result<String, String> {
    // Unique: one snapshot at a time per process, each taking milliseconds.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let index =
        std::env::temp_dir().join(format!("focus-tree-{}-{nanos}.index", std::process::id()));
    let result = fill_index(top, &index);
    let _ = std::fs::remove_file(&index);
    result
}

fn fill_index(top: &Path, index: &Path) -> Result<String, String> {
    let real = git(top, &["rev-parse", "--git-path", "index"], None)?;
    let real = top.join(real.trim_end_matches('\n'));
    if real.is_file() {
        std::fs::copy(&real, index).map_err(|e| format!("cannot copy the index: {e}"))?;
    }
    git(top, &["add", "-A", "--", "."], Some(index))?;
    let tree = git(top, &["write-tree"], Some(index))?;
    Ok(tree.trim().to_string())
}

/// Runs `git args…` in `dir` with the read-only environment (and `index` as
/// its index file); its standard output, or an error naming the command.
fn git(dir: &Path, args: &[&str], index: Option<&Path>) -> Result<String, String> {
    let mut command = Command::new("git");
    command.args(args).current_dir(dir);
    crate::git_env::apply(&mut command);
    if let Some(index) = index {
        command.env("GIT_INDEX_FILE", index);
    }
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = crate::output::sanitize(why.trim());
        return Err(format!("`git {}` failed: {why}", args.join(" ")));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("`git {}` printed no text", args.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(dir: &Path, script: &str) {
        let ok = Command::new("sh")
            .args(["-c", script])
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "{script}");
    }

    fn repo(name: &str) -> Option<PathBuf> {
        if Command::new("git").arg("--version").output().is_err() {
            focus_testkit::skipped(&format!("git_tree {name}: git is not installed"));
            return None;
        }
        let dir =
            std::env::temp_dir().join(format!("focus-git-tree-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        sh(
            &dir,
            "git init -q && git config user.email t@t && git config user.name t \
             && printf 'one\\n' > src/a.txt && printf 'keep\\n' > b.txt && printf 'x\\n' > gone.txt \
             && printf 'ignored/\\n' > .gitignore && git add -A && git commit -qm start",
        );
        Some(dir)
    }

    #[test]
    fn the_diff_holds_the_runs_changes_only_and_the_index_is_untouched() {
        let Some(dir) = repo("changes") else { return };
        // Uncommitted state before the run is part of the start, not of the diff.
        sh(&dir, "printf 'two\\n' >> src/a.txt && printf 'mine\\n' > untracked-before.txt && git add src/a.txt");
        let index_before = std::fs::read(dir.join(".git/index")).unwrap();
        let start = snapshot(&dir.join("src")).unwrap();
        // The run: an edit, a new file, a removal, an ignored file.
        sh(
            &dir,
            "printf 'three\\n' >> src/a.txt && printf 'new\\n' > src/new.txt && rm gone.txt \
             && mkdir -p ignored && printf 'no\\n' > ignored/x.txt",
        );
        let patch = diff(&start).unwrap();
        assert!(
            patch.contains("diff --git a/src/a.txt b/src/a.txt"),
            "{patch}"
        );
        assert!(
            patch.contains("+three") && !patch.contains("+two"),
            "{patch}"
        );
        assert!(
            patch.contains("new file mode") && patch.contains("+new"),
            "{patch}"
        );
        assert!(
            patch.contains("deleted file mode") && patch.contains("-x"),
            "{patch}"
        );
        assert!(
            !patch.contains("untracked-before") && !patch.contains("ignored/"),
            "{patch}"
        );
        // The user's index, refs and stash are as they were.
        assert_eq!(std::fs::read(dir.join(".git/index")).unwrap(), index_before);
        assert!(!dir.join(".git/refs/stash").exists());
        // The patch applies to the starting state: a checkout of the start tree.
        let copy = dir.with_extension("copy");
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir_all(&copy).unwrap();
        std::fs::write(copy.join("run.patch"), &patch).unwrap();
        sh(
            &dir,
            &format!(
                "GIT_INDEX_FILE={copy}/index git read-tree {tree} && \
                 GIT_INDEX_FILE={copy}/index git checkout-index -a --prefix={copy}/tree/ && \
                 cd {copy}/tree && git apply ../run.patch && grep -q three src/a.txt && test ! -e gone.txt",
                copy = copy.display(),
                tree = start.tree
            ),
        );
        let _ = std::fs::remove_dir_all(&copy);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_repository_whose_config_runs_programs_is_refused() {
        let Some(dir) = repo("hostile") else { return };
        sh(&dir, "git config filter.evil.clean 'touch pwned; cat' && printf '* filter=evil\\n' > .gitattributes");
        let error = snapshot(&dir).unwrap_err();
        assert!(error.contains("runs a program"), "{error}");
        assert!(!dir.join("pwned").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
