//! Turning a path the model wrote into a file on disk.
//!
//! Models write paths three ways: relative to the project (`src/main.rs`),
//! absolute, or home-relative (`~/notes.md`); pi also lets users paste
//! `@src/main.rs` from its editor, so a leading `@` is dropped. Relative paths
//! resolve against the tool's working directory, never the process's, because
//! the agent may run in one directory and work in another.
//!
//! Errors name the path twice, as given and as resolved
//! ([`describe`]): "no such file: src/mian.rs (/work/app/src/mian.rs)" lets the
//! model see both its typo and where focus actually looked.

use std::path::{Component, Path, PathBuf};

/// Resolves `given` against `cwd`: strips one leading `@`, expands `~` and
/// `~/…` with `$HOME`, joins relative paths to `cwd`, and removes `.` and `..`
/// components lexically. Fails on an empty path or when `~` cannot expand.
///
/// # Errors
///
/// An empty path, a NUL byte in it, or a `~` while `$HOME` is not set.
pub fn resolve(cwd: &Path, given: &str) -> Result<PathBuf, String> {
    let trimmed = given.strip_prefix('@').unwrap_or(given);
    if trimmed.trim().is_empty() {
        return Err(
            "The path is empty. Give a file path relative to the working directory or absolute."
                .to_string(),
        );
    }
    if trimmed.contains('\0') {
        return Err(format!("The path {given:?} contains a NUL byte."));
    }
    let expanded = if trimmed == "~" || trimmed.starts_with("~/") {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .ok_or_else(|| format!("Cannot expand \"~\" in {given:?}: HOME is not set."))?;
        let rest = trimmed.trim_start_matches('~').trim_start_matches('/');
        let mut path = PathBuf::from(home);
        if !rest.is_empty() {
            path.push(rest);
        }
        path
    } else {
        PathBuf::from(trimmed)
    };
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    };
    Ok(normalize(&joined))
}

/// Removes `.` components and folds `..` into its parent, without touching the
/// file system (so a path that does not exist yet can still be described).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// How an error names a path: `given (resolved)`, or just the path when both
/// spell the same.
pub fn describe(given: &str, resolved: &Path) -> String {
    let resolved_text = resolved.display().to_string();
    if given == resolved_text {
        printable(given).into_owned()
    } else {
        format!("{} ({})", printable(given), printable(&resolved_text))
    }
}

/// A path as tool output may show it: unchanged, or, when it holds control
/// characters (a model can send `\u{1b}[2J` in a path, and a file name may
/// hold one), quoted with them escaped, so the model sees exactly what it sent
/// and the user's terminal receives no escape sequence.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(char::is_control) {
        std::borrow::Cow::Owned(format!("{text:?}"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// `path` relative to `base` for display (forward slashes), or the whole path
/// when it is not under `base`.
pub fn relative_display(base: &Path, path: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// An error message for an I/O failure on a path: "Cannot `action` `path`: `reason`.",
/// with the common reasons spelled for a model.
pub fn io_error(action: &str, given: &str, resolved: &Path, err: &std::io::Error) -> String {
    let reason = match err.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    };
    format!("Cannot {action} {}: {reason}.", describe(given, resolved))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_working_directory() {
        let cwd = Path::new("/work/app");
        assert_eq!(
            resolve(cwd, "src/a.rs").unwrap(),
            PathBuf::from("/work/app/src/a.rs")
        );
        assert_eq!(
            resolve(cwd, "./src/../b.rs").unwrap(),
            PathBuf::from("/work/app/b.rs")
        );
        assert_eq!(
            resolve(cwd, "@src/a.rs").unwrap(),
            PathBuf::from("/work/app/src/a.rs")
        );
        assert_eq!(
            resolve(cwd, "/etc/hosts").unwrap(),
            PathBuf::from("/etc/hosts")
        );
        assert_eq!(resolve(cwd, ".").unwrap(), PathBuf::from("/work/app"));
    }

    #[test]
    fn tilde_expands_to_home() {
        let home = std::env::var("HOME").unwrap_or_default();
        if home.is_empty() {
            return;
        }
        let cwd = Path::new("/x");
        assert_eq!(resolve(cwd, "~").unwrap(), normalize(Path::new(&home)));
        assert_eq!(
            resolve(cwd, "~/n.md").unwrap(),
            normalize(&Path::new(&home).join("n.md"))
        );
        // `~user` is not expanded: it is an ordinary relative name.
        assert_eq!(resolve(cwd, "~bob").unwrap(), PathBuf::from("/x/~bob"));
    }

    #[test]
    fn bad_paths_are_errors_and_errors_name_both_forms() {
        let cwd = Path::new("/w");
        assert!(resolve(cwd, "").unwrap_err().contains("empty"));
        assert!(resolve(cwd, "  ").is_err());
        assert!(resolve(cwd, "a\0b").unwrap_err().contains("NUL"));
        let resolved = resolve(cwd, "x.rs").unwrap();
        assert_eq!(describe("x.rs", &resolved), "x.rs (/w/x.rs)");
        assert_eq!(describe("/w/x.rs", &resolved), "/w/x.rs");
        let err = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(
            io_error("read", "x.rs", &resolved, &err),
            "Cannot read x.rs (/w/x.rs): no such file or directory."
        );
        assert_eq!(relative_display(cwd, &resolved), "x.rs");
        assert_eq!(relative_display(Path::new("/q"), &resolved), "/w/x.rs");
        let hostile = resolve(cwd, "a\u{1b}[2J").unwrap();
        assert_eq!(
            describe("a\u{1b}[2J", &hostile),
            "\"a\\u{1b}[2J\" (\"/w/a\\u{1b}[2J\")"
        );
    }
}
