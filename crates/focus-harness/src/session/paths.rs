//! Where sessions live: `<FOCUS_HOME>/sessions/--<encoded cwd>--/<timestamp>_<id>.jsonl`.
//!
//! `FOCUS_HOME` defaults to `~/.focus/agent` (pi: `~/.pi/agent`). The working
//! directory is encoded as pi does it (leading slash dropped, `/`, `\` and `:`
//! replaced by `-`, wrapped in `--`), so `/home/u/proj` becomes `--home-u-proj--`.

use std::path::{Path, PathBuf};

/// The environment variable that overrides focus's config directory.
pub const FOCUS_HOME_VAR: &str = "FOCUS_HOME";

/// focus's config directory: `$FOCUS_HOME` (with `~` expanded), else
/// `$HOME/.focus/agent`, else `.focus/agent` relative to the working directory.
pub fn focus_home() -> PathBuf {
    if let Some(dir) = std::env::var_os(FOCUS_HOME_VAR).filter(|d| !d.is_empty()) {
        return expand_tilde(Path::new(&dir));
    }
    home_dir().map_or_else(|| PathBuf::from(".focus/agent"), |h| h.join(".focus/agent"))
}

/// The user's home directory, from `HOME` (or `USERPROFILE` on Windows).
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// Replaces a leading `~` with the home directory.
pub fn expand_tilde(path: &Path) -> PathBuf {
    match (path.strip_prefix("~"), home_dir()) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => path.to_path_buf(),
    }
}

/// pi's directory name for a working directory: `/home/u/proj` → `--home-u-proj--`.
pub fn encode_cwd(cwd: &str) -> String {
    let trimmed = cwd
        .strip_prefix('/')
        .or_else(|| cwd.strip_prefix('\\'))
        .unwrap_or(cwd);
    let body: String = trimmed
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{body}--")
}

/// The file name for a session created at `timestamp` (ISO-8601): colons and dots
/// become dashes, as in pi (`2026-03-15T12-00-00-000Z_<id>.jsonl`).
pub fn session_file_name(timestamp: &str, session_id: &str) -> String {
    let stamp: String = timestamp
        .chars()
        .map(|c| if matches!(c, ':' | '.') { '-' } else { c })
        .collect();
    format!("{stamp}_{session_id}.jsonl")
}

/// The session id in a file name made by [`session_file_name`], if it has that shape.
pub fn id_from_file_name(path: &Path) -> Option<&str> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    stem.split_once('_')
        .map(|(_, id)| id)
        .filter(|id| !id.is_empty())
}

/// The directory tree that holds every session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionStore {
    root: PathBuf,
}

impl SessionStore {
    /// Sessions under `<home>/sessions`.
    pub fn new(home: impl Into<PathBuf>) -> SessionStore {
        SessionStore {
            root: home.into().join("sessions"),
        }
    }

    /// Sessions under [`focus_home`]`/sessions`.
    pub fn from_env() -> SessionStore {
        SessionStore::new(focus_home())
    }

    /// The `sessions` directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory for one working directory's sessions.
    pub fn dir_for(&self, cwd: &Path) -> PathBuf {
        self.root.join(encode_cwd(&cwd.to_string_lossy()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_encoding_and_file_names_match_pi() {
        assert_eq!(encode_cwd("/home/u/proj"), "--home-u-proj--");
        assert_eq!(encode_cwd("C:\\work\\x"), "--C--work-x--");
        assert_eq!(encode_cwd("/"), "----");
        let name = session_file_name("2026-03-15T12:00:00.000Z", "0190-ab");
        assert_eq!(name, "2026-03-15T12-00-00-000Z_0190-ab.jsonl");
        assert_eq!(id_from_file_name(Path::new(&name)), Some("0190-ab"));
        assert_eq!(id_from_file_name(Path::new("notes.jsonl")), None);
    }
}
