//! Where a project's checkpoints live: `checkpoints/` in the session folder
//! (one folder per working directory), holding `blobs/` (content, stored
//! once), `manifests/` (one file per checkpoint) and, while a restore runs,
//! `restore-journal.json`.

use super::blobs::BlobStore;
use super::manifest::Manifests;
use std::path::{Path, PathBuf};

/// A checkpoint store.
#[derive(Clone, Debug)]
pub struct CheckpointStore {
    /// The `checkpoints` folder.
    pub dir: PathBuf,
    /// The content.
    pub blobs: BlobStore,
    /// The manifests.
    pub manifests: Manifests,
}

impl CheckpointStore {
    /// The store of the session folder `session_dir`.
    pub fn in_session_dir(session_dir: &Path) -> CheckpointStore {
        CheckpointStore::at(&session_dir.join("checkpoints"))
    }

    /// The store in `dir` itself.
    pub fn at(dir: &Path) -> CheckpointStore {
        CheckpointStore {
            dir: dir.to_path_buf(),
            blobs: BlobStore::new(&dir.join("blobs")),
            manifests: Manifests::new(&dir.join("manifests")),
        }
    }

    /// The restore journal's path.
    pub fn journal_path(&self) -> PathBuf {
        self.dir.join("restore-journal.json")
    }
}
