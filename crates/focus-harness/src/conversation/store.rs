//! A conversation's session: open the session a front end asks for (the one
//! lookup rule for `-c`, `--session PATH|ID`, `-r` and `--session-dir`), append
//! every finished message, and say where it lives. The format, the tree and the
//! file handling are [`SessionManager`]'s; this file maps requests onto it and
//! turns its errors into sentences.
//!
//! `--session-dir DIR` keeps sessions directly in DIR (pi's meaning); otherwise
//! they go to `FOCUS_HOME/sessions/<encoded cwd>/`.

use crate::session::{EntryKind, SessionInfo, SessionManager, SessionStore};
use focus_core::json::{ToJson, Value};
use focus_core::message::{Content, Message};
use std::path::{Path, PathBuf};

/// Which session a front end asks for (the command line's flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionRequest {
    /// A new session (the default).
    New,
    /// `--no-session`: nothing on disk.
    Disabled,
    /// `-c`: the most recent session of this directory.
    ContinueRecent,
    /// `--session PATH|ID`.
    Open(String),
    /// `-r`, after the user chose: this file.
    Resume(PathBuf),
}

/// An open session (in memory only for `--no-session`).
pub struct Store {
    manager: SessionManager,
    cwd: PathBuf,
    session_dir: Option<PathBuf>,
    /// Warnings from loading (damaged lines skipped), shown once.
    pub load_warnings: Vec<String>,
    /// Why the last write from a run's loop failed, until the mode takes it.
    pub write_warning: Option<String>,
}

impl AsMut<SessionManager> for Store {
    /// The session, for the harness's compaction inside a run.
    fn as_mut(&mut self) -> &mut SessionManager {
        &mut self.manager
    }
}

impl Store {
    /// A store that keeps nothing on disk.
    pub fn disabled(cwd: &Path) -> Store {
        Store {
            manager: SessionManager::in_memory(cwd),
            cwd: cwd.to_path_buf(),
            session_dir: None,
            load_warnings: Vec::new(),
            write_warning: None,
        }
    }

    /// Opens or creates the session `request` names, for working directory `cwd`,
    /// under `session_dir` (or the default), and returns it with the messages of its
    /// current branch.
    ///
    /// # Errors
    ///
    /// The session cannot be found (no match for an id), opened (locked by another focus,
    /// unreadable) or created; the message says which and where.
    pub fn open(
        request: &SessionRequest,
        cwd: &Path,
        session_dir: Option<&Path>,
    ) -> Result<(Store, Vec<Message>), String> {
        let sessions = SessionStore::from_env();
        let mut load_warnings = Vec::new();
        let manager = match request {
            SessionRequest::Disabled => SessionManager::in_memory(cwd),
            SessionRequest::New => match session_dir {
                Some(dir) => SessionManager::create_in(dir, cwd, None),
                None => SessionManager::create(&sessions, cwd),
            }
            .unwrap_or_else(|e| {
                // A read-only or broken FOCUS_HOME must not keep the user from working.
                load_warnings.push(format!(
                    "cannot create a session file ({e}); this conversation will not be saved"
                ));
                SessionManager::in_memory(cwd)
            }),
            SessionRequest::ContinueRecent => match session_dir {
                Some(dir) => match newest_session_in(dir, cwd) {
                    Some(path) => SessionManager::open(&path),
                    None => SessionManager::create_in(dir, cwd, None),
                },
                None => SessionManager::continue_recent(&sessions, cwd),
            }
            .map_err(|e| e.to_string())?,
            SessionRequest::Resume(path) => {
                SessionManager::open(path).map_err(|e| e.to_string())?
            }
            SessionRequest::Open(spec) => open_spec(spec, cwd, session_dir, &sessions)?,
        };
        // The summary of skipped lines first: the warning shows at most five items.
        load_warnings.extend(manager.damage_note().map(str::to_string));
        load_warnings.extend(manager.load_problems().iter().map(|p| p.to_string()));
        let store = Store {
            manager,
            cwd: cwd.to_path_buf(),
            session_dir: session_dir.map(Path::to_path_buf),
            load_warnings,
            write_warning: None,
        };
        let history = store.context_messages();
        Ok((store, history))
    }

    /// A new session in `dir` recording `parent` as the session it came from
    /// (a subagent's: [`crate::subagents::child_store`]).
    ///
    /// # Errors
    ///
    /// The file cannot be created; the message says where.
    pub fn create_child(dir: &Path, cwd: &Path, parent: &Path) -> Result<Store, String> {
        let manager = SessionManager::create_in(dir, cwd, Some(parent))
            .map_err(|e| format!("cannot create a session in {}: {e}", dir.display()))?;
        Ok(Store {
            manager,
            cwd: cwd.to_path_buf(),
            session_dir: Some(dir.to_path_buf()),
            load_warnings: Vec::new(),
            write_warning: None,
        })
    }

    /// The warnings from opening the session (damaged lines skipped, no file
    /// could be created) as one line naming the file, at most five of them;
    /// `None` when there were none or they were already taken.
    pub fn take_load_warning(&mut self) -> Option<String> {
        if self.load_warnings.is_empty() {
            return None;
        }
        let warnings = std::mem::take(&mut self.load_warnings);
        let mut text = match self.path() {
            Some(path) => format!("{}: ", path.display()),
            None => String::new(),
        };
        text.push_str(&warnings[..warnings.len().min(5)].join("; "));
        if warnings.len() > 5 {
            text.push_str(&format!("; and {} more", warnings.len() - 5));
        }
        // The lines quoted come from a file: the front end sanitizes what it shows.
        Some(text)
    }

    /// The messages of the current branch (what the agent continues from).
    pub fn context_messages(&self) -> Vec<Message> {
        self.manager.context().messages
    }

    /// The model and thinking level recorded on the current branch.
    pub fn context_model(&self) -> (Option<(String, String)>, String) {
        self.manager.model_and_thinking()
    }

    /// Appends one finished message to the session.
    ///
    /// # Errors
    ///
    /// The entry cannot be written to the session file.
    pub fn append_message(&mut self, message: &Message) -> Result<(), String> {
        self.manager
            .append_message(message)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Records a model switch.
    ///
    /// # Errors
    ///
    /// The entry cannot be written to the session file.
    pub fn append_model_change(&mut self, provider: &str, model: &str) -> Result<(), String> {
        self.manager
            .append_model_change(provider, model)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Records a thinking-level change.
    ///
    /// # Errors
    ///
    /// The entry cannot be written to the session file.
    pub fn append_thinking_change(&mut self, level: &str) -> Result<(), String> {
        self.manager
            .append_thinking_level_change(level)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// Names the session.
    ///
    /// # Errors
    ///
    /// The entry cannot be written to the session file.
    pub fn set_name(&mut self, name: &str) -> Result<(), String> {
        self.manager
            .set_name(name)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// The harness session (for compaction and export).
    pub fn manager(&self) -> &SessionManager {
        &self.manager
    }

    /// The harness session, mutable.
    pub fn manager_mut(&mut self) -> &mut SessionManager {
        &mut self.manager
    }

    /// The session file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.manager.path()
    }

    /// The session id.
    pub fn id(&self) -> &str {
        self.manager.id()
    }

    /// The session's display name, if it has one.
    pub fn name(&self) -> Option<&str> {
        self.manager.name()
    }

    /// The directory sessions are stored in when `--session-dir` was given.
    pub fn dir(&self) -> Option<&Path> {
        self.session_dir.as_deref()
    }

    /// Whether this session is only in memory.
    pub fn is_disabled(&self) -> bool {
        self.manager.path().is_none()
    }

    /// A new session with the branch before entry `entry_id` (a user message);
    /// returns it, its messages and the text of that user message (to edit and
    /// resend). Forking at another kind of entry keeps that entry.
    ///
    /// # Errors
    ///
    /// `entry_id` is no entry, or the new session cannot be written.
    pub fn fork(&self, entry_id: &str) -> Result<(Store, Vec<Message>, String), String> {
        let tree = self.manager.tree();
        let entry = tree.get(entry_id).ok_or_else(|| {
            format!("no entry {entry_id:?} in this session (see get_session_tree)")
        })?;
        let (fork_at, text) = match &entry.kind {
            EntryKind::Message(Message::User(u)) => (
                entry.parent_id.clone(),
                u.content
                    .iter()
                    .filter_map(Content::as_text)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => (Some(entry.id.clone()), String::new()),
        };
        let (store, history) = self.copy_branch(fork_at.as_deref())?;
        Ok((store, history, text))
    }

    /// pi's `/clone`: a new session holding the current branch whole (to the
    /// leaf), with its messages.
    ///
    /// # Errors
    ///
    /// The new session cannot be written.
    pub fn clone_branch(&self) -> Result<(Store, Vec<Message>), String> {
        self.copy_branch(self.manager.leaf_id())
    }

    /// A new session with the branch from the root to `at` (`None`: empty).
    fn copy_branch(&self, at: Option<&str>) -> Result<(Store, Vec<Message>), String> {
        let sessions = SessionStore::from_env();
        let manager = self
            .manager
            .fork(at, &sessions, &self.cwd)
            .map_err(|e| e.to_string())?;
        let store = Store {
            manager,
            cwd: self.cwd.clone(),
            session_dir: self.session_dir.clone(),
            load_warnings: Vec::new(),
            write_warning: None,
        };
        let history = store.context_messages();
        Ok((store, history))
    }

    /// Moves the leaf to `entry_id`; returns the messages of the new branch.
    ///
    /// # Errors
    ///
    /// `entry_id` is no entry of the session.
    pub fn set_leaf(&mut self, entry_id: &str) -> Result<Vec<Message>, String> {
        self.manager
            .move_leaf(Some(entry_id))
            .map_err(|e| e.to_string())?;
        Ok(self.context_messages())
    }

    /// The header line (`{"type":"session",…}`), printed first in JSON mode.
    pub fn header_json(&self) -> Option<Value> {
        if self.is_disabled() {
            return None;
        }
        Some(self.manager.header().to_json())
    }
}

/// Opens `--session PATH|ID`: an existing path, else an id prefix.
fn open_spec(
    spec: &str,
    cwd: &Path,
    session_dir: Option<&Path>,
    sessions: &SessionStore,
) -> Result<SessionManager, String> {
    let path = Path::new(spec);
    if spec.ends_with(".jsonl") || path.is_file() || spec.contains('/') {
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            // /dev/zero would be read until memory runs out, a FIFO would block.
            return Err(format!(
                "{spec} is not a session file (a directory, device or pipe)"
            ));
        }
        return SessionManager::open(path).map_err(|e| e.to_string());
    }
    if let Some(dir) = session_dir {
        let found: Vec<PathBuf> = jsonl_files(dir)
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.rsplit_once('_'))
                    .is_some_and(|(_, id)| id.starts_with(spec))
            })
            .collect();
        return match found.as_slice() {
            [one] => SessionManager::open(one).map_err(|e| e.to_string()),
            [] => Err(format!(
                "no session with id starting {spec:?} in {}",
                dir.display()
            )),
            _ => Err(format!(
                "several sessions match {spec:?}; give more of the id"
            )),
        };
    }
    SessionManager::open_by_id_prefix(sessions, spec, cwd).map_err(|e| e.to_string())
}

/// The `.jsonl` files in `dir`.
fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default()
}

/// The most recently modified session file in `dir`.
/// The newest session in `dir` whose header's `cwd` is `cwd` (`-c` with
/// `--session-dir`: a directory shared by several projects never continues
/// another project's conversation).
fn newest_session_in(dir: &Path, cwd: &Path) -> Option<PathBuf> {
    let wanted = cwd.to_string_lossy();
    jsonl_files(dir)
        .into_iter()
        .filter(|p| crate::session::list::header_cwd(p).is_some_and(|c| c == wanted))
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
}

/// The recent sessions for `cwd` (newest first), for `-r` and `/resume`.
pub fn recent_sessions(cwd: &Path, session_dir: Option<&Path>) -> Vec<SessionInfo> {
    match session_dir {
        Some(dir) => {
            let mut list: Vec<SessionInfo> = jsonl_files(dir)
                .iter()
                .filter_map(|p| crate::session::list::session_info(p))
                .collect();
            list.sort_by_key(|info| std::cmp::Reverse(info.modified_ms));
            list
        }
        None => SessionStore::from_env().list(cwd),
    }
}
