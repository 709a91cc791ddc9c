//! Forking: a new session file holding one branch of this one.
//!
//! The new file starts with a header whose `parentSession` names this file, then the
//! entries from the root to the chosen entry (their ids kept, so compactions still
//! find their first kept entry). Label entries are not copied as they were (they
//! may sit anywhere on the branch and point anywhere); instead every copied entry
//! that carries a label gets a fresh label entry at the end.

use super::entry::{Entry, EntryKind};
use super::error::SessionError;
use super::ids::unique_short_id;
use super::manager::SessionManager;
use super::paths::SessionStore;
use super::time::now_iso8601;
use super::tree::SessionTree;
use focus_core::json::ToJson;
use std::path::Path;

impl SessionManager {
    /// Forks a new session holding the branch from the root to `entry_id` (`None`:
    /// an empty session), with `parentSession` pointing here. Labels on the copied
    /// entries are carried over. The new session is written at once and returned
    /// open; an in-memory session forks into memory.
    ///
    /// # Errors
    ///
    /// `entry_id` is no entry of the session, or the new file cannot be written.
    pub fn fork(
        &self,
        entry_id: Option<&str>,
        store: &SessionStore,
        cwd: &Path,
    ) -> Result<SessionManager, SessionError> {
        if let Some(id) = entry_id.filter(|id| !self.tree.contains(id)) {
            return Err(SessionError::NoSuchEntry(id.into()));
        }
        let branch = self.tree.branch(entry_id);
        let mut copied: Vec<Entry> = branch
            .iter()
            .filter(|e| !matches!(e.kind, EntryKind::Label { .. }))
            .map(|e| (*e).clone())
            .collect();
        // Re-link around the dropped label entries and re-create labels at the end.
        for i in 0..copied.len() {
            copied[i].parent_id = i.checked_sub(1).map(|p| copied[p].id.clone());
        }
        let mut last = copied.last().map(|e| e.id.clone());
        let mut labels = Vec::new();
        for entry in &copied {
            if let Some(label) = self.tree.label(&entry.id) {
                let id = unique_short_id(|id| {
                    copied.iter().any(|e| e.id == id) || labels.iter().any(|l: &Entry| l.id == id)
                });
                labels.push(Entry {
                    id: id.clone().into(),
                    parent_id: last.replace(id.into()),
                    timestamp: now_iso8601().into(),
                    kind: EntryKind::Label {
                        target_id: entry.id.to_string(),
                        label: Some(label.to_string()),
                    },
                });
            }
        }
        copied.extend(labels);
        let mut fork = match &self.path {
            Some(path) => SessionManager::create_in(&store.dir_for(cwd), cwd, Some(path))?,
            _ => SessionManager::in_memory(cwd),
        };
        if let Some(writer) = &mut fork.writer {
            let lines: Vec<String> = copied
                .iter()
                .map(|e| e.to_json().to_json_string())
                .collect();
            if !lines.is_empty() {
                writer.append_lines(&lines)?;
            }
        }
        fork.tree = SessionTree::new(copied);
        Ok(fork)
    }
}
