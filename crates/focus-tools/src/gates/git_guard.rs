//! Git reads configuration, and configuration runs programs: what keeps a
//! "read-only" `git status` from running code a repository ships.
//!
//! A repository's `config` can name programs git runs while it only inspects:
//! `core.fsmonitor` (run by `git status`), `core.pager`, `diff.external`,
//! `gpg.program` (with `log.showSignature`), and drivers chosen per file by
//! attributes: `diff.<driver>.textconv` and `.command`, `filter.<driver>.clean`,
//! `.smudge` and `.process`. Three defences stand together:
//!
//! 1. **The environment** ([`crate::git_env`]): every bash call in plan mode, and
//!    every call the judge finds read-only in the other modes, runs with the
//!    system and global configuration ignored and the keys git names
//!    (fsmonitor, pager, editor, hooks, credential helper, ssh command, gpg…)
//!    overridden through `GIT_CONFIG_COUNT`, which outranks the repository's
//!    own file; and `safe.bareRepository=explicit`.
//! 2. **The command line** ([`git_line_problem`]): a read-only judgement of a
//!    line that runs git is refused when the line could make git read another
//!    repository or lose that environment: `cd`/`pushd`/`popd`, `unset`,
//!    `typeset`/`declare` changes, `env` with options, `sudo`/`doas` (which reset
//!    the environment). `--git-dir`, `--work-tree`, `--bare` and `-C` to
//!    anything but `.` are refused by the program check
//!    (`readonly_programs`), and `GIT_*=` assignments by the judge.
//! 3. **The repository's files** ([`repository_runs_code`]): keys that cannot be
//!    listed in advance (a driver's name is the repository's choice) are looked
//!    for in the configuration the command would read — the git directory found
//!    from the project as git finds it (a `.git` file followed, a linked
//!    worktree's common directory, `include.path` and `includeIf` files,
//!    submodules' configurations under `modules/`) — and any driver command,
//!    `diff.external` (which cannot be unset), or a file that cannot be read,
//!    makes the command not read-only.

use std::path::{Path, PathBuf};

use super::judge::split_commands;

/// Keys whose value is a program git runs, under a section named by the
/// repository (`diff.<driver>.textconv`): `(section, key)`, lower case.
const DRIVER_KEYS: [(&str, &str); 7] = [
    ("diff", "textconv"),
    ("diff", "command"),
    ("filter", "clean"),
    ("filter", "smudge"),
    ("filter", "process"),
    ("merge", "driver"),
    ("credential", "helper"),
];

/// Whether `cmd` runs git (anywhere in the line, wrappers and `sh -c` looked
/// through); a line that cannot be parsed counts as running it.
pub fn runs_git(cmd: &str) -> bool {
    match split_commands(cmd) {
        Some(parts) => parts
            .iter()
            .any(|p| p.effective.split(' ').next() == Some("git")),
        None => true,
    }
}

/// Why a command line that runs git cannot be judged read-only, or `None`
/// when it does not run git or runs it where the environment holds.
pub fn git_line_problem(cmd: &str) -> Option<String> {
    let parts = split_commands(cmd)?;
    let program = |text: &str| text.split(' ').next().unwrap_or("").to_string();
    if !parts.iter().any(|p| program(&p.effective) == "git") {
        return None;
    }
    for part in &parts {
        let name = program(&part.effective);
        if matches!(
            name.as_str(),
            "cd" | "pushd" | "popd" | "unset" | "typeset" | "declare" | "export" | "set"
        ) {
            return Some(format!(
                "`{name}` on a line that runs git could make git read another repository or \
                 lose the environment that keeps its configuration from running programs"
            ));
        }
        if name == "git" {
            let wrappers = part
                .text
                .strip_suffix(part.effective.as_str())
                .unwrap_or("");
            let words: Vec<&str> = wrappers.split(' ').filter(|w| !w.is_empty()).collect();
            let env_option = words
                .iter()
                .skip_while(|w| **w != "env")
                .skip(1)
                .any(|w| w.starts_with('-'));
            if words.iter().any(|w| *w == "sudo" || *w == "doas") || env_option {
                return Some(
                    "git under `sudo`, `doas` or `env` with options runs without the environment \
                     that keeps its configuration from running programs"
                        .to_string(),
                );
            }
        }
    }
    None
}

/// The command-running key the configuration of the repository at `dir`
/// defines (as `file: key`), or why that configuration cannot be checked;
/// `None` when no repository is found or none of its files names a driver.
pub fn repository_runs_code(dir: &Path) -> Option<String> {
    let git_dir = discover_git_dir(dir)?;
    let mut files = vec![git_dir.join("config"), git_dir.join("config.worktree")];
    if let Some(common) = common_dir(&git_dir) {
        files.push(common.join("config"));
        files.push(common.join("config.worktree"));
        collect_module_configs(&common.join("modules"), &mut files, 0);
    }
    collect_module_configs(&git_dir.join("modules"), &mut files, 0);
    let mut seen = Vec::new();
    for file in files {
        if let Some(found) = scan_config(&file, &mut seen, 0) {
            return Some(found);
        }
    }
    None
}

/// The git directory git would use from `dir`: the first `.git` (directory,
/// or file naming one) in `dir` or above it. A bare repository is not
/// looked for (`safe.bareRepository=explicit` makes git refuse it).
pub fn discover_git_dir(dir: &Path) -> Option<PathBuf> {
    let mut at = Some(dir);
    while let Some(here) = at {
        let dot_git = here.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git);
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let pointed = text.lines().next()?.strip_prefix("gitdir:")?.trim();
            return Some(crate::path::normalize(&here.join(pointed)));
        }
        at = here.parent();
    }
    None
}

/// A linked worktree's common git directory (its `commondir` file).
fn common_dir(git_dir: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(git_dir.join("commondir")).ok()?;
    let rel = text.trim();
    (!rel.is_empty()).then(|| crate::path::normalize(&git_dir.join(rel)))
}

/// The `config` files of submodules' git directories under `modules` (nested
/// ones too, a few levels deep).
fn collect_module_configs(modules: &Path, files: &mut Vec<PathBuf>, depth: usize) {
    if depth > 4 {
        return;
    }
    for entry in std::fs::read_dir(modules).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.join("config").is_file() {
            files.push(path.join("config"));
            collect_module_configs(&path.join("modules"), files, depth + 1);
        } else if path.is_dir() {
            // A submodule named `a/b` lives in `modules/a/b`.
            collect_module_configs(&path, files, depth + 1);
        }
    }
}

/// Looks through one configuration file (and the files it includes) for a
/// driver command. A missing file is fine; one that exists but cannot be read,
/// or includes too deeply, counts as running code (it cannot be checked).
fn scan_config(file: &Path, seen: &mut Vec<PathBuf>, depth: usize) -> Option<String> {
    if seen.iter().any(|f| f == file) {
        return None;
    }
    seen.push(file.to_path_buf());
    if depth > 10 {
        return Some(format!("{}: includes nest too deeply", file.display()));
    }
    let text = match std::fs::read(file) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            return Some(format!(
                "{}: cannot be read to check it ({e})",
                file.display()
            ))
        }
    };
    let mut section = String::new();
    // git skips a byte order mark at the start; so must the search.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    for raw in text.lines() {
        let mut line = raw.trim();
        if line.starts_with('[') {
            let Some(end) = line.find(']') else {
                return Some(format!(
                    "{}: a section header git may read differently",
                    file.display()
                ));
            };
            section = line[1..end].trim().to_string();
            line = line[end + 1..].trim();
        }
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim().to_ascii_lowercase(), v.trim()),
            None => (line.to_ascii_lowercase(), "true"),
        };
        // `[diff "x"]` or the old `[diff.x]`: the section's first word decides.
        let base = section
            .split(|c: char| c == '.' || c.is_whitespace() || c == '"')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let has_subsection = section.contains('"') || section.contains('.');
        if has_subsection && DRIVER_KEYS.iter().any(|(s, k)| *s == base && *k == key) {
            return Some(format!(
                "{}: `{base}.….{key}` runs a program",
                file.display()
            ));
        }
        if !has_subsection && base == "diff" && key == "external" {
            return Some(format!(
                "{}: `diff.external` runs a program",
                file.display()
            ));
        }
        if base == "alias" && value.trim_start_matches('"').starts_with('!') {
            return Some(format!("{}: an alias runs a shell command", file.display()));
        }
        let includes = base == "include" || base == "includeif";
        if includes && key == "path" {
            let target = include_target(file, value.trim_matches('"'));
            if let Some(found) = scan_config(&target, seen, depth + 1) {
                return Some(found);
            }
        }
    }
    None
}

/// Where an `include.path` value points: `~/` from `$HOME`, a relative path
/// from the including file's directory.
fn include_target(file: &Path, value: &str) -> PathBuf {
    if let Some(rest) = value.strip_prefix("~/") {
        let home = std::env::var_os("HOME").unwrap_or_default();
        return PathBuf::from(home).join(rest);
    }
    let base = file.parent().unwrap_or(Path::new("/"));
    crate::path::normalize(&base.join(value))
}
