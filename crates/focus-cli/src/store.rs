//! The session store as the CLI sees it: open the session the flags ask for, append
//! every finished message, and say where it lives. The format and the tree live in
//! focus-harness; this file is the thin seam to it.

use focus_core::json::Value;
use focus_core::message::Message;
use std::path::{Path, PathBuf};

/// Which session the command line asks for.
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

/// An open session (or none, for `--no-session`).
pub struct Store {
    path: Option<PathBuf>,
    id: String,
    header: Option<Value>,
}

impl Store {
    /// A store that keeps nothing.
    pub fn disabled() -> Store {
        Store {
            path: None,
            id: String::new(),
            header: None,
        }
    }

    /// Opens or creates the session `request` names, for working directory `cwd`,
    /// under `session_dir` (or the default), and returns it with the messages of its
    /// current branch.
    pub fn open(
        request: &SessionRequest,
        _cwd: &Path,
        _session_dir: Option<&Path>,
    ) -> Result<(Store, Vec<Message>), String> {
        match request {
            SessionRequest::Disabled => Ok((Store::disabled(), Vec::new())),
            // Wired to focus-harness once its session store lands.
            _ => Ok((Store::disabled(), Vec::new())),
        }
    }

    /// Appends one finished message to the session (a no-op without a session).
    pub fn append_message(&mut self, _message: &Message) -> Result<(), String> {
        Ok(())
    }

    /// The session file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The session id (empty without a session).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The session's display name, if it has one.
    pub fn name(&self) -> Option<&str> {
        None
    }

    /// The directory sessions are stored in when `--session-dir` was given.
    pub fn dir(&self) -> Option<&Path> {
        None
    }

    /// A new session with the branch before entry `entry_id` (a user message);
    /// returns it, its messages and the text of that user message.
    pub fn fork(&self, entry_id: &str) -> Result<(Store, Vec<Message>, String), String> {
        Err(format!(
            "cannot fork at {entry_id:?}: sessions are not available in this build"
        ))
    }

    /// The tree as JSON for `/tree` and RPC `get_session_tree`.
    pub fn tree_json(&self) -> Result<Value, String> {
        Err("sessions are not available in this build".into())
    }

    /// Moves the leaf to `entry_id`; returns the messages of the new branch.
    pub fn set_leaf(&mut self, entry_id: &str) -> Result<Vec<Message>, String> {
        Err(format!(
            "no entry {entry_id:?}: sessions are not available in this build"
        ))
    }

    /// The header line (`{"type":"session",…}`), printed first in JSON mode.
    pub fn header_json(&self) -> Option<&Value> {
        self.header.as_ref()
    }
}
