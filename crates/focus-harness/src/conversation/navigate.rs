//! Moving in the conversation's sessions: a fresh session (`/new`), another
//! file (`/resume`), a fork, another entry of the tree (with or without a
//! summary of the branch left), labels. Each replaces the history the next run
//! starts from; none may be called while a run or a compaction is going on
//! (the front end waits for `RunEnded`).

use super::driver::Conversation;
use super::store::{SessionRequest, Store};
use crate::compaction::leave_branch_with_summary;
use focus_core::cancel::CancelToken;
use std::path::Path;

impl Conversation {
    /// Starts a fresh session (same settings, empty history).
    ///
    /// # Errors
    ///
    /// The new session cannot be created (its folder or file cannot be made); the old one
    /// stays.
    pub fn new_session(&mut self, cwd: &Path) -> Result<(), String> {
        let request = if self.session.lock().is_disabled() {
            SessionRequest::Disabled
        } else {
            SessionRequest::New
        };
        let (mut store, history) = Store::open(&request, cwd, self.session.lock().dir())?;
        self.warnings.extend(store.take_load_warning());
        if let Some(gate) = &self.hooks {
            // Claude Code's `/clear`: the old session ends, a new one starts.
            gate.session_end("clear");
            gate.set_session(store.id(), store.path());
            let failures = gate.session_start("clear");
            if !failures.is_empty() {
                self.warnings.push(failures.join("; "));
            }
        }
        *self.session.lock() = store;
        self.history = history;
        Ok(())
    }

    /// Opens another session file and continues from its current leaf.
    ///
    /// # Errors
    ///
    /// No session file is at `path`, or it cannot be opened (locked by another focus,
    /// unreadable); the current session stays.
    pub fn switch_session(&mut self, path: &str, cwd: &Path) -> Result<(), String> {
        if !Path::new(path).is_file() {
            return Err(format!("no session file at {path}"));
        }
        let (mut store, history) = Store::open(
            &SessionRequest::Open(path.to_string()),
            cwd,
            self.session.lock().dir(),
        )?;
        self.warnings.extend(store.take_load_warning());
        if let Some(gate) = &self.hooks {
            // Claude Code's `/resume`.
            gate.set_session(store.id(), store.path());
            let failures = gate.session_start("resume");
            if !failures.is_empty() {
                self.warnings.push(failures.join("; "));
            }
        }
        *self.session.lock() = store;
        self.history = history;
        Ok(())
    }

    /// Forks: a new session holding the branch up to (not including) the user
    /// message `entry_id`, whose text is returned so the user can edit and resend it.
    ///
    /// # Errors
    ///
    /// `entry_id` is no user message of the session, or the new session cannot be written.
    pub fn fork(&mut self, entry_id: &str) -> Result<String, String> {
        let (store, history, text) = self.session.lock().fork(entry_id)?;
        *self.session.lock() = store;
        self.history = history;
        Ok(text)
    }

    /// Moves the current leaf to `entry_id` (continue from any entry).
    ///
    /// # Errors
    ///
    /// `entry_id` is no entry of the session.
    pub fn go_to_entry(&mut self, entry_id: &str) -> Result<(), String> {
        self.history = self.session.lock().set_leaf(entry_id)?;
        Ok(())
    }

    /// Moves the current leaf to `entry_id`, leaving the current branch; with
    /// `summarize`, the branch left behind is summarized first and the summary
    /// attached where the conversation goes on (a `branch_summary` entry, as pi
    /// writes), so the model keeps what was learned there. Returns the summary
    /// entry's id when one was written.
    ///
    /// # Errors
    ///
    /// `entry_id` is no entry, or the summary could not be made or written; the leaf stays
    /// then.
    pub fn leave_branch(
        &mut self,
        entry_id: &str,
        summarize: bool,
    ) -> Result<Option<String>, String> {
        if !summarize {
            self.go_to_entry(entry_id)?;
            return Ok(None);
        }
        let provider = self.config.provider.clone();
        let written = leave_branch_with_summary(
            self.session.lock().manager_mut(),
            provider.as_ref(),
            Some(entry_id),
            &self.compaction,
            &CancelToken::new(),
        )
        .map_err(|e| e.to_string())?;
        self.history = self.session.lock().context_messages();
        Ok(written)
    }

    /// Sets (or with `None` clears) the label on the entry `entry_id`.
    ///
    /// # Errors
    ///
    /// `entry_id` is no entry, or the label cannot be written.
    pub fn set_label(&mut self, entry_id: &str, label: Option<&str>) -> Result<(), String> {
        self.session
            .lock()
            .manager_mut()
            .set_label(entry_id, label)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}
