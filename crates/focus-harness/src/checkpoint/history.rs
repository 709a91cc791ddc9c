//! A session's file history: the checkpoint and restore entries of the
//! session, in file order, with their manifests ([`FileHistory`]), and from
//! them the two states a rewind compares:
//!
//! - [`FileHistory::state_at`]: the project as it was at an entry of the tree
//!   (every path any checkpoint touched: the `after` of the last checkpoint on
//!   the entry's branch that touched it, or else what it held before focus
//!   first changed it). Branches keep their files: each has its own chain.
//! - [`FileHistory::last_recorded`]: what focus last knew each path to hold
//!   (the `after` of the last checkpoint or restore, on any branch): what the
//!   disk holds unless someone else changed it since, which is a conflict.

use super::manifest::{Manifest, Manifests};
use super::node::Node;
use crate::session::{EntryKind, SessionTree};
use focus_core::json::{Object, Value};
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

/// `customType` of the entry that points to a checkpoint (pi ignores it).
pub const CHECKPOINT_TYPE: &str = "focus.checkpoint";
/// `customType` of the entry that records a restore.
pub const RESTORE_TYPE: &str = "focus.restore";

/// The state of a set of paths (`None`: absent).
pub type State = BTreeMap<PathBuf, Option<Node>>;

/// One checkpoint or restore entry and its manifest.
#[derive(Clone, Debug)]
pub struct Record {
    /// The session entry's id.
    pub entry_id: String,
    /// Its parent entry (the entry whose change it records).
    pub parent_id: Option<String>,
    /// A restore, not a checkpoint.
    pub restore: bool,
    /// What caused it (`prompt`, `tool`, `command`, `rewind`).
    pub cause: String,
    /// The manifest.
    pub manifest: Manifest,
}

/// The file history of a session.
#[derive(Clone, Debug, Default)]
pub struct FileHistory {
    /// Records in file order.
    pub records: Vec<Record>,
    /// Checkpoints whose manifest is gone or damaged (pruned): their
    /// changes cannot be undone.
    pub missing: Vec<String>,
}

/// The data of a checkpoint or restore entry.
pub fn entry_data(manifest: &Manifest, cause: &str, tool_call_id: Option<&str>) -> Value {
    let mut data = Object::new();
    data.insert("checkpoint", manifest.id.as_str());
    data.insert("cause", cause);
    if let Some(id) = tool_call_id {
        data.insert("toolCallId", id);
    }
    data.insert("files", manifest.changes.len() as u64);
    data.insert("linesAdded", manifest.lines.0);
    data.insert("linesRemoved", manifest.lines.1);
    let shown: Vec<Value> = manifest
        .changes
        .iter()
        .take(20)
        .map(|c| Value::from(super::relpath::show(&c.path)))
        .collect();
    data.insert("paths", shown);
    Value::Object(data)
}

impl FileHistory {
    /// The records of `tree`, manifests read from `manifests`.
    pub fn load(tree: &SessionTree, manifests: &Manifests) -> FileHistory {
        let mut history = FileHistory::default();
        for entry in tree.entries() {
            let EntryKind::Custom { custom_type, data } = &entry.kind else {
                continue;
            };
            let restore = match custom_type.as_str() {
                CHECKPOINT_TYPE => false,
                RESTORE_TYPE => true,
                _ => continue,
            };
            let Some(id) = data.get("checkpoint").and_then(Value::as_str) else {
                continue;
            };
            match manifests.load(id) {
                Ok(manifest) => history.records.push(Record {
                    entry_id: entry.id.to_string(),
                    parent_id: entry.parent_id.as_ref().map(|p| p.to_string()),
                    restore,
                    cause: data
                        .get("cause")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    manifest,
                }),
                Err(_) => history.missing.push(id.to_string()),
            }
        }
        history
    }

    /// Whether any record exists.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The project at the entry whose branch holds the ids `branch`.
    pub fn state_at(&self, branch: &HashSet<&str>) -> State {
        let mut state = State::new();
        for record in self.records.iter().filter(|r| !r.restore) {
            for change in &record.manifest.changes {
                state
                    .entry(change.path.clone())
                    .or_insert_with(|| change.before.clone());
            }
        }
        for record in self.records.iter().filter(|r| !r.restore) {
            if !branch.contains(record.entry_id.as_str()) {
                continue;
            }
            for change in &record.manifest.changes {
                state.insert(change.path.clone(), change.after.clone());
            }
        }
        state
    }

    /// What focus last knew every touched path to hold.
    pub fn last_recorded(&self) -> State {
        let mut state = State::new();
        for record in &self.records {
            for change in &record.manifest.changes {
                state.insert(change.path.clone(), change.after.clone());
            }
        }
        state
    }
}

/// The ids on the branch from the root to `entry_id` (`None`: before the
/// first entry).
pub fn branch_ids<'a>(tree: &'a SessionTree, entry_id: Option<&str>) -> HashSet<&'a str> {
    match entry_id {
        Some(id) => tree
            .branch(Some(id))
            .iter()
            .map(|e| e.id.as_str())
            .collect(),
        None => HashSet::new(),
    }
}
