//! Finding sessions: listing a directory's sessions or all of them, the most recent
//! one, and the one an id prefix names.

use super::entry::EntryKind;
use super::error::SessionError;
use super::paths::{id_from_file_name, SessionStore};
use super::reader::parse_session;
use super::time::parse_iso8601;
use focus_core::message::Message;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// A summary of one session file, for `--resume` pickers and `focus sessions`.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    /// The file.
    pub path: PathBuf,
    /// The session id.
    pub id: String,
    /// The working directory it belongs to.
    pub cwd: String,
    /// The display name, if set.
    pub name: Option<String>,
    /// The session it was forked from.
    pub parent_session: Option<String>,
    /// Creation time (header timestamp), ISO-8601.
    pub created: String,
    /// Last activity, milliseconds since the epoch: the newest user or assistant
    /// message, else the file's modification time.
    pub modified_ms: i64,
    /// How many `message` entries the file holds (all branches).
    pub message_count: usize,
    /// The first user message's text (`(no messages)` if none).
    pub first_message: String,
}

impl SessionStore {
    /// The sessions of `cwd`, most recently active first: those in focus's and
    /// pi's folders for it whose header names `cwd` (pi's folder may mix
    /// directories). Unreadable files are left out.
    pub fn list(&self, cwd: &Path) -> Vec<SessionInfo> {
        let wanted = cwd.to_string_lossy();
        let mut sessions: Vec<SessionInfo> = self
            .dirs_for(cwd)
            .iter()
            .flat_map(|dir| list_dir(dir))
            .filter(|info| info.cwd == wanted)
            .collect();
        sessions.sort_by_key(|s| std::cmp::Reverse(s.modified_ms));
        sessions
    }

    /// Every session of every directory, most recently active first.
    pub fn list_all(&self) -> Vec<SessionInfo> {
        let mut sessions: Vec<SessionInfo> = subdirs(self.root())
            .iter()
            .flat_map(|dir| list_dir(dir))
            .collect();
        sessions.sort_by_key(|s| std::cmp::Reverse(s.modified_ms));
        sessions
    }

    /// The session file of `cwd` modified last (by file time, as pi's
    /// `--continue`), among those whose header's `cwd` is `cwd`: a session of
    /// another directory sharing pi's folder is never continued.
    pub fn most_recent(&self, cwd: &Path) -> Option<PathBuf> {
        let wanted = cwd.to_string_lossy();
        self.dirs_for(cwd)
            .iter()
            .flat_map(|dir| session_files(dir))
            .filter(|path| header_cwd(path).is_some_and(|c| c == wanted))
            .max_by_key(|path| modified_ms(path))
    }

    /// The one session whose id starts with `prefix`: `cwd`'s sessions are searched
    /// first, then all.
    ///
    /// # Errors
    ///
    /// No session's id starts with `prefix`, or several do (the message lists them).
    pub fn find_by_id_prefix(&self, prefix: &str, cwd: &Path) -> Result<PathBuf, SessionError> {
        let matching = |files: Vec<PathBuf>| -> Vec<PathBuf> {
            files
                .into_iter()
                .filter(|p| id_from_file_name(p).is_some_and(|id| id.starts_with(prefix)))
                .collect()
        };
        let mut found = matching(
            self.dirs_for(cwd)
                .iter()
                .flat_map(|d| session_files(d))
                .collect(),
        );
        if found.is_empty() {
            found = matching(
                subdirs(self.root())
                    .iter()
                    .flat_map(|d| session_files(d))
                    .collect(),
            );
        }
        match found.len() {
            0 => Err(SessionError::NoSuchSession(prefix.into())),
            1 => Ok(found.remove(0)),
            _ => Err(SessionError::AmbiguousPrefix {
                prefix: prefix.into(),
                matches: found,
            }),
        }
    }
}

/// Reads one file's summary; `None` if it is not a readable session.
pub fn session_info(path: &Path) -> Option<SessionInfo> {
    let bytes = std::fs::read(path).ok()?;
    let parsed = parse_session(&bytes).ok()?;
    let header = parsed.header?;
    let mut info = SessionInfo {
        path: path.to_path_buf(),
        id: header.id,
        cwd: header.cwd,
        name: None,
        parent_session: header.parent_session,
        created: header.timestamp,
        modified_ms: 0,
        message_count: 0,
        first_message: String::new(),
    };
    for entry in &parsed.entries {
        match &entry.kind {
            EntryKind::SessionInfo { name: Some(name) } if !name.trim().is_empty() => {
                info.name = Some(name.trim().to_string())
            }
            EntryKind::Message(message) => {
                info.message_count += 1;
                let (text, at) = match message {
                    Message::User(m) => (text_of(&m.content), m.timestamp),
                    Message::Assistant(m) => (m.text(), m.timestamp),
                    _ => continue,
                };
                let at = if at > 0 {
                    at as i64
                } else {
                    parse_iso8601(&entry.timestamp).unwrap_or(0)
                };
                info.modified_ms = info.modified_ms.max(at);
                if info.first_message.is_empty() && matches!(message, Message::User(_)) {
                    info.first_message = text;
                }
            }
            _ => {}
        }
    }
    if info.modified_ms == 0 {
        info.modified_ms = parse_iso8601(&info.created).unwrap_or_else(|| modified_ms(path));
    }
    if info.first_message.is_empty() {
        info.first_message = "(no messages)".into();
    }
    Some(info)
}

fn text_of(content: &[focus_core::message::Content]) -> String {
    let parts: Vec<&str> = content.iter().filter_map(|c| c.as_text()).collect();
    parts.join(" ")
}

fn list_dir(dir: &Path) -> Vec<SessionInfo> {
    session_files(dir)
        .iter()
        .filter_map(|p| session_info(p))
        .collect()
}

fn session_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
        .collect()
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect()
}

/// The `cwd` of the file's session header, when its first line is one (read
/// within 64 KB: a header with a very long path still counts).
pub fn header_cwd(path: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    let file = std::fs::File::open(path).ok()?;
    let mut first_line = Vec::new();
    std::io::BufReader::new(file.take(64 * 1024))
        .read_until(b'\n', &mut first_line)
        .ok()?;
    let header = focus_core::json::parse(&first_line).ok()?;
    if header["type"].as_str() != Some("session") || header["id"].as_str().is_none() {
        return None;
    }
    header["cwd"].as_str().map(str::to_string)
}

fn modified_ms(path: &Path) -> i64 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64)
}
