//! The watches a full walk sets up. A small project is not watched: walking
//! a few hundred paths after a call costs well under a millisecond, less than
//! the watches' setup and the teardown the kernel does when the inotify
//! instance is closed (an SRCU grace period: 5–15 ms at every process exit,
//! which hundreds of short batch runs would each pay). So the watcher starts
//! only once the walk has met [`WATCH_FROM`] paths (the tracker's
//! `watch_from`); every folder the walk met before is watched then, and
//! listed again at the next look, in case something changed in it between
//! its listing and its watch.

use super::watch_or_drop;
use crate::checkpoint::watch::Watcher;
use std::io;
use std::path::{Path, PathBuf};

/// Projects with fewer paths than this are walked at each look, not watched.
pub const WATCH_FROM: usize = 200;

/// The watcher one full walk builds, started part-way.
pub(super) struct WalkWatches {
    /// Watching is on and has not failed for good.
    may: bool,
    /// Start once the walk has met this many paths.
    from: usize,
    root: PathBuf,
    marker_dir: PathBuf,
    started: bool,
    watcher: Option<Watcher>,
    /// Folders met before the start (the root first): listed again later.
    early: Vec<PathBuf>,
    error: Option<io::Error>,
}

/// What the walk leaves: the watcher (if any), the folders to list again at
/// the next look, and the error that turned watching off.
pub(super) type Finished = (Option<Watcher>, Vec<PathBuf>, Option<io::Error>);

impl WalkWatches {
    /// Watches for a walk of `root` (the marker in `marker_dir`); nothing is
    /// watched unless `may`. With `from` 0 the root is watched at once.
    pub(super) fn new(may: bool, from: usize, root: &Path, marker_dir: &Path) -> WalkWatches {
        let mut watches = WalkWatches {
            may,
            from,
            root: root.to_path_buf(),
            marker_dir: marker_dir.to_path_buf(),
            started: false,
            watcher: None,
            early: vec![PathBuf::new()],
            error: None,
        };
        watches.met(0);
        watches
    }

    /// The walk met the folder `rel`.
    pub(super) fn dir(&mut self, rel: &Path) {
        if self.started {
            watch_or_drop(&mut self.watcher, rel, &mut self.error);
        } else if self.may {
            self.early.push(rel.to_path_buf());
        }
    }

    /// The walk has met `paths` paths so far.
    pub(super) fn met(&mut self, paths: usize) {
        if !self.may || self.started || paths < self.from {
            return;
        }
        self.started = true;
        match Watcher::new(&self.root, &self.marker_dir) {
            Ok(watcher) => {
                self.watcher = Some(watcher);
                for rel in &self.early {
                    watch_or_drop(&mut self.watcher, rel, &mut self.error);
                }
            }
            Err(error) => self.error = Some(error),
        }
    }

    /// The walk is over. The root is listed again only if it was listed
    /// before its watch (a start at 0 watched it first).
    pub(super) fn finish(self) -> Finished {
        let relist = match &self.watcher {
            Some(_) if self.from > 0 => self.early,
            _ => Vec::new(),
        };
        (self.watcher, relist, self.error)
    }
}
