//! `.gitignore` and `.ignore` rules.
//!
//! The semantics are git's (`man gitignore`):
//! - blank lines and `#` comments are skipped; `\#` and `\!` escape;
//!   trailing spaces are dropped unless escaped;
//! - `!pattern` re-includes what an earlier rule excluded; the last matching
//!   rule in a file wins;
//! - `pattern/` matches directories only;
//! - a pattern with a `/` at the start or in the middle is anchored: it matches
//!   the path relative to the directory holding the ignore file; without one
//!   it matches a name at any depth;
//! - rules in a deeper directory's file override those of its parents;
//! - once a directory is excluded nothing inside it is looked at, so a file in
//!   it cannot be re-included (the walk never descends there).
//!
//! `.ignore` files (ripgrep's and fd's convention for rules that are not git's
//! business) are read after `.gitignore` in the same directory, so they win.
//! The repository's own `.git/info/exclude` (rules a user keeps out of the shared
//! `.gitignore`) applies below every ignore file, as in git.

use std::path::Path;
use std::sync::Arc;

use crate::glob::Glob;

/// What the ignore rules say about a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A rule excludes it.
    Ignore,
    /// A `!` rule re-includes it.
    Include,
    /// No rule mentions it.
    Unmentioned,
}

/// One parsed line.
#[derive(Clone, Debug)]
struct Rule {
    glob: Glob,
    negated: bool,
    dir_only: bool,
    anchored: bool,
}

/// The rules of one directory's ignore files.
#[derive(Clone, Debug, Default)]
pub struct IgnoreRules {
    rules: Vec<Rule>,
}

impl IgnoreRules {
    /// Parses ignore-file text. Lines that are not valid globs are skipped (git
    /// does the same: a broken line must not break the walk).
    pub fn parse(text: &str) -> IgnoreRules {
        let mut rules = Vec::new();
        for raw in text.lines() {
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            let line = trim_unescaped_trailing_spaces(line);
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (negated, line) = match line.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (
                    false,
                    line.strip_prefix('\\')
                        .filter(|r| r.starts_with(['#', '!']))
                        .unwrap_or(line),
                ),
            };
            let (dir_only, line) = match line.strip_suffix('/') {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let anchored = line.contains('/');
            let line = line.strip_prefix('/').unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            if let Ok(glob) = Glob::new(line) {
                rules.push(Rule {
                    glob,
                    negated,
                    dir_only,
                    anchored,
                });
            }
        }
        IgnoreRules { rules }
    }

    /// Reads `.gitignore` then `.ignore` in `dir`; `None` if neither exists or
    /// both are empty of rules.
    pub fn load(dir: &Path) -> Option<IgnoreRules> {
        IgnoreRules::load_files(&[dir.join(".gitignore"), dir.join(".ignore")])
    }

    /// The rules of `files` read in turn (later ones win); `None` if none exists
    /// or all are empty of rules. Only regular files are read: a FIFO by that name
    /// would block the walk forever.
    fn load_files(files: &[std::path::PathBuf]) -> Option<IgnoreRules> {
        let mut text = String::new();
        for path in files {
            if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
                continue;
            }
            if let Ok(content) = std::fs::read(path) {
                text.push_str(&String::from_utf8_lossy(&content));
                text.push('\n');
            }
        }
        let rules = IgnoreRules::parse(&text);
        (!rules.rules.is_empty()).then_some(rules)
    }

    /// The verdict for `rel` (relative to this file's directory, `/`-separated).
    pub fn verdict(&self, rel: &str, is_dir: bool) -> Verdict {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        for rule in self.rules.iter().rev() {
            if rule.dir_only && !is_dir {
                continue;
            }
            let hit = if rule.anchored {
                rule.glob.is_match(rel)
            } else {
                rule.glob.is_match(name)
            };
            if hit {
                return if rule.negated {
                    Verdict::Include
                } else {
                    Verdict::Ignore
                };
            }
        }
        Verdict::Unmentioned
    }
}

fn trim_unescaped_trailing_spaces(line: &str) -> &str {
    let mut end = line.len();
    while end > 0 && line.as_bytes()[end - 1] == b' ' {
        if end >= 2 && line.as_bytes()[end - 2] == b'\\' {
            break;
        }
        end -= 1;
    }
    &line[..end]
}

/// The ignore files in force at one directory of a walk, deepest last.
///
/// Each layer knows where its directory is relative to the walk root: `prefix`
/// for a directory inside the walk (`"src/"`), or, for an ignore file in a
/// parent directory of the root (up to the repository top), `above`, the root's
/// path relative to that parent.
#[derive(Clone, Debug, Default)]
pub struct IgnoreStack {
    layers: Vec<Arc<Layer>>,
}

#[derive(Debug)]
struct Layer {
    rules: IgnoreRules,
    prefix: String,
    above: String,
}

impl IgnoreStack {
    /// The stack for a walk rooted at `root`: the repository's
    /// `.git/info/exclude`, the ignore files of the parent directories up to the
    /// one containing `.git` (if any), then the root's own.
    pub fn for_root(root: &Path) -> IgnoreStack {
        let mut stack = IgnoreStack::default();
        let mut ancestors = Vec::new();
        if root.join(".git").exists() {
            stack.push_exclude(root, "");
        } else {
            let mut above = String::new();
            let mut dir = root.to_path_buf();
            while let Some(parent) = dir.parent().map(Path::to_path_buf) {
                let name = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                above = if above.is_empty() {
                    format!("{name}/")
                } else {
                    format!("{name}/{above}")
                };
                ancestors.push((parent.clone(), above.clone()));
                if parent.join(".git").exists() {
                    break;
                }
                dir = parent;
            }
            // Without a repository above, parent rules do not apply (as in git).
            match ancestors.last() {
                Some((top, above)) if top.join(".git").exists() => {
                    stack.push_exclude(top, above);
                }
                _ => ancestors.clear(),
            }
        }
        for (dir, above) in ancestors.into_iter().rev() {
            if let Some(rules) = IgnoreRules::load(&dir) {
                stack.layers.push(Arc::new(Layer {
                    rules,
                    prefix: String::new(),
                    above,
                }));
            }
        }
        stack.push_dir(root, "")
    }

    /// The stack for the directory `dir` whose path from the root is `rel_dir`
    /// (`""` for the root): this stack plus `dir`'s own ignore files, if any.
    pub fn push_dir(&self, dir: &Path, rel_dir: &str) -> IgnoreStack {
        match IgnoreRules::load(dir) {
            None => self.clone(),
            Some(rules) => {
                let mut next = self.clone();
                let prefix = if rel_dir.is_empty() {
                    String::new()
                } else {
                    format!("{rel_dir}/")
                };
                next.layers.push(Arc::new(Layer {
                    rules,
                    prefix,
                    above: String::new(),
                }));
                next
            }
        }
    }

    /// Adds the repository's `.git/info/exclude` (`top` holds `.git`; `above` is
    /// the walk root's path from `top`, `""` when they are the same). A `.git` that
    /// is a file (a worktree or submodule pointing elsewhere) has none here.
    fn push_exclude(&mut self, top: &Path, above: &str) {
        let exclude = top.join(".git").join("info").join("exclude");
        if let Some(rules) = IgnoreRules::load_files(&[exclude]) {
            self.layers.push(Arc::new(Layer {
                rules,
                prefix: String::new(),
                above: above.to_string(),
            }));
        }
    }

    /// Whether `rel` (relative to the walk root) is ignored: the deepest file
    /// with an opinion decides.
    pub fn is_ignored(&self, rel: &str, is_dir: bool) -> bool {
        for layer in self.layers.iter().rev() {
            let verdict = if !layer.above.is_empty() {
                layer
                    .rules
                    .verdict(&format!("{}{rel}", layer.above), is_dir)
            } else {
                match rel.strip_prefix(layer.prefix.as_str()) {
                    Some(inner) => layer.rules.verdict(inner, is_dir),
                    None => continue,
                }
            };
            match verdict {
                Verdict::Ignore => return true,
                Verdict::Include => return false,
                Verdict::Unmentioned => {}
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_matching_rule_wins_and_negation_reincludes() {
        let rules = IgnoreRules::parse("*.log\n!keep.log\n# comment\n\n");
        assert_eq!(rules.verdict("a.log", false), Verdict::Ignore);
        assert_eq!(rules.verdict("deep/b.log", false), Verdict::Ignore);
        assert_eq!(rules.verdict("keep.log", false), Verdict::Include);
        assert_eq!(rules.verdict("a.txt", false), Verdict::Unmentioned);
    }

    #[test]
    fn directory_only_and_anchored_patterns() {
        let rules = IgnoreRules::parse("build/\n/root_only\ndocs/*.md\n");
        assert_eq!(rules.verdict("build", true), Verdict::Ignore);
        assert_eq!(rules.verdict("build", false), Verdict::Unmentioned);
        assert_eq!(rules.verdict("x/build", true), Verdict::Ignore);
        assert_eq!(rules.verdict("root_only", false), Verdict::Ignore);
        assert_eq!(rules.verdict("sub/root_only", false), Verdict::Unmentioned);
        assert_eq!(rules.verdict("docs/a.md", false), Verdict::Ignore);
        assert_eq!(rules.verdict("x/docs/a.md", false), Verdict::Unmentioned);
        assert_eq!(rules.verdict("docs/sub/a.md", false), Verdict::Unmentioned);
    }

    #[test]
    fn a_whitelist_ignores_everything_but_the_named_entries() {
        let rules = IgnoreRules::parse("/*\n!/src\n!Cargo.toml\n");
        assert_eq!(rules.verdict("target", true), Verdict::Ignore);
        assert_eq!(rules.verdict("README.md", false), Verdict::Ignore);
        assert_eq!(rules.verdict("src", true), Verdict::Include);
        assert_eq!(rules.verdict("Cargo.toml", false), Verdict::Include);
        assert_eq!(rules.verdict("src/main.rs", false), Verdict::Unmentioned);
    }

    #[test]
    fn nested_files_override_their_parents() {
        let root = std::env::temp_dir().join(format!("focus-ignore-nested-{}", std::process::id()));
        let sub = root.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(root.join(".gitignore"), "*.txt\n").unwrap();
        std::fs::write(sub.join(".gitignore"), "!keep.txt\n").unwrap();
        let stack = IgnoreStack::for_root(&root);
        let nested = stack.push_dir(&sub, "sub");
        assert!(nested.is_ignored("sub/other.txt", false));
        assert!(!nested.is_ignored("sub/keep.txt", false));
        assert!(stack.is_ignored("keep.txt", false));
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// `.git/info/exclude` applies from the repository top, to walks rooted there
    /// or below, and every `.gitignore` overrides it.
    #[test]
    fn the_repositorys_exclude_file_applies_below_every_gitignore() {
        let root =
            std::env::temp_dir().join(format!("focus-ignore-exclude-{}", std::process::id()));
        let sub = root.join("sub");
        std::fs::create_dir_all(root.join(".git/info")).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            root.join(".git/info/exclude"),
            "*.local\nscratch/\nsub/only-here\n",
        )
        .unwrap();
        std::fs::write(sub.join(".gitignore"), "!keep.local\n").unwrap();

        let top = IgnoreStack::for_root(&root);
        assert!(top.is_ignored("notes.local", false));
        assert!(top.is_ignored("scratch", true));
        assert!(top.is_ignored("sub/only-here", false));
        assert!(!top.is_ignored("notes.txt", false));
        let nested = top.push_dir(&sub, "sub");
        assert!(nested.is_ignored("sub/x.local", false));
        assert!(
            !nested.is_ignored("sub/keep.local", false),
            "a .gitignore wins"
        );

        // A walk rooted in the subdirectory sees the same rules.
        let below = IgnoreStack::for_root(&sub);
        assert!(below.is_ignored("x.local", false));
        assert!(below.is_ignored("only-here", false), "anchored at the top");
        assert!(!below.is_ignored("keep.local", false));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn escapes_and_trailing_spaces() {
        let rules = IgnoreRules::parse("\\#hash\n\\!bang\ntrail   \nspace\\ \n**/deep/**\n");
        assert_eq!(rules.verdict("#hash", false), Verdict::Ignore);
        assert_eq!(rules.verdict("!bang", false), Verdict::Ignore);
        assert_eq!(rules.verdict("trail", false), Verdict::Ignore);
        assert_eq!(rules.verdict("space ", false), Verdict::Ignore);
        assert_eq!(rules.verdict("a/deep/b/c", false), Verdict::Ignore);
    }
}
