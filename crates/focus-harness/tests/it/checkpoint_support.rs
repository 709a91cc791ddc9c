//! Shared by the checkpoint tests: a project snapshot compared byte for byte
//! and mode for mode, and a session with a tracker recording into it as the
//! conversation does.

use focus_harness::checkpoint::{record, CheckpointStore, Manifest, PlainWalker, Tracker};
use focus_harness::session::SessionManager;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What one path holds, exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Held {
    File(u32, Vec<u8>),
    Dir(u32),
    Link(PathBuf),
}

/// Every path under `root` with what it holds (`.git` included: nothing is
/// left out of the comparison).
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Held> {
    let mut out = BTreeMap::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(root.join(&rel)).unwrap() {
            let entry = entry.unwrap();
            let child = rel.join(entry.file_name());
            let full = root.join(&child);
            let meta = std::fs::symlink_metadata(&full).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            let held = if meta.file_type().is_symlink() {
                Held::Link(std::fs::read_link(&full).unwrap())
            } else if meta.is_dir() {
                stack.push(child.clone());
                Held::Dir(mode)
            } else {
                Held::File(mode, std::fs::read(&full).unwrap())
            };
            out.insert(child, held);
        }
    }
    out
}

/// The first difference between two snapshots, for a failure message.
pub fn first_difference(
    want: &BTreeMap<PathBuf, Held>,
    got: &BTreeMap<PathBuf, Held>,
) -> Option<String> {
    for (path, held) in want {
        match got.get(path) {
            None => return Some(format!("{} missing", path.display())),
            Some(other) if other != held => {
                let brief = |h: &Held| match h {
                    Held::File(m, b) => format!("file {m:o} {} bytes", b.len()),
                    Held::Dir(m) => format!("dir {m:o}"),
                    Held::Link(t) => format!("link -> {}", t.display()),
                };
                return Some(format!(
                    "{}: want {}, got {}",
                    path.display(),
                    brief(held),
                    brief(other)
                ));
            }
            _ => {}
        }
    }
    got.keys()
        .find(|p| !want.contains_key(*p))
        .map(|p| format!("{} should not exist", p.display()))
}

/// A session and a tracker of one project.
pub struct Tracked {
    pub root: PathBuf,
    pub store: CheckpointStore,
    pub manager: SessionManager,
    pub tracker: Tracker,
}

impl Tracked {
    pub fn new(root: &Path, sessions: &Path) -> Tracked {
        let store = CheckpointStore::in_session_dir(sessions);
        let manager = SessionManager::create_in(sessions, root, None).unwrap();
        let mut tracker =
            Tracker::new(root, store.clone(), Arc::new(PlainWalker), 64 << 20).unwrap();
        // These projects are small: watched anyway, so both paths are tested
        // (`checkpoint_watch.rs` tests the size at which watching starts).
        tracker.set_watch_from(0);
        Tracked {
            root: root.to_path_buf(),
            store,
            manager,
            tracker,
        }
    }

    pub fn save(&mut self, manifest: &Manifest, cause: &str) -> Option<String> {
        record(&mut self.manager, &self.store, manifest, cause, None, false).unwrap()
    }

    /// The checkpoint before a prompt: whatever changed since the last look.
    pub fn prompt_checkpoint(&mut self) {
        let manifest = self.tracker.record_walk().unwrap();
        self.save(&manifest, "prompt");
    }
}
