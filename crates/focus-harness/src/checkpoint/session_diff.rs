//! Every path the session changed, as it was before focus first changed it
//! and as it is on disk now ([`session_changes`]: `/diff`). The first state
//! comes from the checkpoints (the state before the session's first entry:
//! [`FileHistory::state_at`] of an empty branch); the present is read with
//! the same safe look a checkpoint takes ([`super::observe`]), so its content
//! lands in the blob store where both sides can be read from.

use super::history::FileHistory;
use super::node::Node;
use super::observe::{observe, Observed};
use super::store::CheckpointStore;
use crate::session::SessionTree;
use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// What a path holds now, as far as a diff can tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Now {
    /// A node, or nothing (`None`).
    Is(Option<Node>),
    /// A socket, FIFO or device: never read.
    Special,
    /// A file over the size cap: its size.
    Oversized(u64),
}

/// One path whose present differs from its first recorded state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionChange {
    /// The path, relative to the project.
    pub path: PathBuf,
    /// What it held before focus first changed it (`None`: nothing).
    pub first: Option<Node>,
    /// What it holds now.
    pub now: Now,
}

/// The paths of `tree`'s session (checkpoints of every branch) that differ
/// now from their first recorded state, by path; and the checkpoints whose
/// manifests are gone (their paths cannot be listed).
///
/// # Errors
///
/// The project cannot be opened, or a path cannot be read (permission) or
/// stored.
pub fn session_changes(
    tree: &SessionTree,
    store: &CheckpointStore,
    root: &Path,
    max_file_bytes: u64,
) -> io::Result<(Vec<SessionChange>, Vec<String>)> {
    let history = FileHistory::load(tree, &store.manifests);
    let first = history.state_at(&HashSet::new());
    let root_dir = File::open(root)?;
    let mut changes = Vec::new();
    for (path, before) in first {
        let now = match observe(root, &root_dir, &path, &store.blobs, max_file_bytes)? {
            Observed::Absent => Now::Is(None),
            Observed::Node(node, _) => Now::Is(Some(node)),
            Observed::Special(_) => Now::Special,
            Observed::Oversized(stamp) => Now::Oversized(stamp.size),
        };
        if now != Now::Is(before.clone()) {
            changes.push(SessionChange {
                path,
                first: before,
                now,
            });
        }
    }
    Ok((changes, history.missing))
}
