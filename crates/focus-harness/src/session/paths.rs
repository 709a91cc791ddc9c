//! Where sessions live: `<FOCUS_HOME>/sessions/=<encoded cwd>/<timestamp>_<id>.jsonl`.
//!
//! `FOCUS_HOME` defaults to `~/.focus/agent` (pi: `~/.pi/agent`).
//!
//! pi names a working directory's folder by replacing `/`, `\` and `:` with
//! `-` ([`encode_cwd`]: `/home/u/proj` becomes `--home-u-proj--`). That is not
//! one-to-one: `/x/a-b` and `/x/a/b` share `--x-a-b--`, and `-c` in one
//! continued the other's conversation. focus names new folders with
//! [`encode_cwd_exact`], which escapes every byte that could be confused
//! (`/home/u/my-proj` becomes `=home-u-my%2Dproj`), and still reads pi's
//! folders ([`SessionStore::dirs_for`]). Whatever folder a session is found
//! in, it belongs to a working directory only if its header's `cwd` says so
//! (see `list.rs`).

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

/// focus's folder name for a working directory: one-to-one, so two
/// directories never share a folder. The leading `/` is dropped and every
/// other `/` becomes `-`; ASCII letters, digits, `.` and `_` stay; every other
/// byte (including `-`, `%`, `\`, `:`, spaces and non-ASCII) becomes `%XX`;
/// the name starts with `=`, which no pi folder does. A path that does not
/// start with `/` is marked `=%%` instead, so it cannot pose as an absolute one.
pub fn encode_cwd_exact(cwd: &str) -> String {
    let (mut out, body) = match cwd.strip_prefix('/') {
        Some(rest) => ("=".to_string(), rest),
        None => ("=%%".to_string(), cwd),
    };
    for &b in body.as_bytes() {
        match b {
            b'/' => out.push('-'),
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'_' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
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

    /// The directory where new sessions of `cwd` go ([`encode_cwd_exact`]).
    pub fn dir_for(&self, cwd: &Path) -> PathBuf {
        self.root.join(encode_cwd_exact(&cwd.to_string_lossy()))
    }

    /// pi's directory for `cwd` ([`encode_cwd`]); it may also hold sessions of
    /// other directories whose names encode the same way.
    pub fn legacy_dir_for(&self, cwd: &Path) -> PathBuf {
        self.root.join(encode_cwd(&cwd.to_string_lossy()))
    }

    /// Every directory that may hold sessions of `cwd`: focus's, then pi's.
    pub fn dirs_for(&self, cwd: &Path) -> [PathBuf; 2] {
        [self.dir_for(cwd), self.legacy_dir_for(cwd)]
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

    #[test]
    fn exact_cwd_encoding_never_merges_two_directories() {
        assert_eq!(encode_cwd("/x/a-b"), encode_cwd("/x/a/b"), "pi's collides");
        assert_eq!(encode_cwd_exact("/x/a/b"), "=x-a-b");
        assert_eq!(encode_cwd_exact("/x/a-b"), "=x-a%2Db");
        assert_eq!(encode_cwd_exact("/home/u/my proj"), "=home-u-my%20proj");
        assert_eq!(encode_cwd_exact("/"), "=");
        assert_eq!(encode_cwd_exact("x/a"), "=%%x-a");
        let cases = [
            "/x/a-b", "/x/a/b", "/x/a%2Db", "/x/a:b", "/x/a\\b", "/", "//", "/x/", "/x", "x",
            "%%x", "/é", "/%C3%A9", "/x/a.b", "/x/a_b", "/x-a/b", "/x/a-/b",
        ];
        let encoded: std::collections::BTreeSet<String> =
            cases.iter().map(|c| encode_cwd_exact(c)).collect();
        assert_eq!(encoded.len(), cases.len(), "{encoded:?}");
        for name in &encoded {
            assert!(!name.starts_with("--"), "never a pi folder name: {name}");
            assert!(!name.contains('/'), "one path component: {name}");
        }
    }
}
