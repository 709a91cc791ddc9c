//! The tracker's watched path: after a tool call, only the folders that had
//! file change events are listed and compared (`checkpoint/watch.rs` says
//! how the events are read whole). A folder that appeared is watched, then
//! walked; a folder that went loses its watches and everything below it is
//! recorded as deleted. Whenever the events cannot be trusted (the queue
//! overflowed, an ignore file changed, the watch limit was reached) the
//! tracker walks the whole project instead, and says so once.

use super::walk_watches::WalkWatches;
use super::{is_temp, Tracker, WalkStats};
use crate::checkpoint::manifest::{new_id, Manifest};
use crate::checkpoint::node::{now_nanos, Kind, Node, Stamp};
use crate::checkpoint::watch::{Drained, Watcher};
use std::collections::{BTreeSet, HashSet};
use std::ffi::OsString;
use std::io;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::time::Instant;

impl Tracker {
    /// Whether to watch the project's folders (`checkpoints.watch`, on by
    /// default); off: every look walks the whole project.
    pub fn set_watching(&mut self, on: bool) {
        self.watching = on;
        if !on {
            self.watcher = None;
        }
    }

    /// Whether the project's folders are being watched now.
    pub fn is_watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// What the tracker had to say since last asked (each said once): why it
    /// walks the whole project instead of watching it.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// A project of fewer than `paths` tracked paths (default
    /// [`WATCH_FROM`](super::WATCH_FROM)) is walked at each look instead of
    /// watched (`tracker/walk_watches.rs` says why); 0 watches any project.
    pub fn set_watch_from(&mut self, paths: usize) {
        self.watch_from = paths;
    }

    /// The watches a full walk sets up: a new watcher (events since the last
    /// one cannot be trusted), unless watching is off or failed, started
    /// once the walk has met `watch_from` paths.
    pub(super) fn walk_watches(&mut self) -> WalkWatches {
        self.watcher = None;
        let may = self.watching && !self.watch_failed;
        WalkWatches::new(may, self.watch_from, &self.root, &self.store.dir)
    }

    /// After a full walk: its watcher is kept, the folders it listed before
    /// their watch are listed again at the next look, and a watch that failed
    /// turns watching off for good.
    pub(super) fn end_watches(&mut self, watches: WalkWatches) {
        let (watcher, relist, error) = watches.finish();
        self.watcher = watcher;
        if let Some(error) = error {
            self.give_up_watching(&error.to_string());
        } else if self.watcher.is_some() {
            self.unlisted.extend(relist);
        }
    }

    fn give_up_watching(&mut self, why: &str) {
        self.watch_failed = true;
        self.watcher = None;
        self.notices.push(format!(
            "file checkpoints walk the whole project after each call ({why})"
        ));
    }

    /// A folder that became known outside a listing: watched, and listed at
    /// the next look.
    pub(super) fn watch_new_dir(&mut self, rel: &Path) {
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        match watcher.watch(rel) {
            Ok(_) => {
                self.unlisted.insert(rel.to_path_buf());
            }
            Err(error) => self.give_up_watching(&error.to_string()),
        }
    }

    /// The folders with events since the last look; `None` when the whole
    /// project must be walked (not watched, or the events are incomplete:
    /// said once).
    pub(super) fn drain_events(&mut self) -> Option<BTreeSet<PathBuf>> {
        let watcher = self.watcher.as_mut()?;
        let unlisted = std::mem::take(&mut self.unlisted);
        match watcher.drain() {
            Ok(Drained::Dirty(mut dirs)) => {
                dirs.extend(unlisted);
                Some(dirs)
            }
            Ok(Drained::Rescan(why)) => {
                // Watching resumes with the full walk; tell only the first time.
                if !self.rescan_noted {
                    self.rescan_noted = true;
                    self.notices.push(format!(
                        "file checkpoints walked the whole project once: {why}"
                    ));
                }
                self.watcher = None;
                None
            }
            Err(error) => {
                self.give_up_watching(&error.to_string());
                None
            }
        }
    }

    /// Lists the folders `dirs` (relative to the project) and records what
    /// changed in them; folders that appeared are watched and walked.
    pub(super) fn record_dirs(
        &mut self,
        dirs: BTreeSet<PathBuf>,
        started: Instant,
    ) -> io::Result<Manifest> {
        let epoch = self.epoch;
        let now = now_nanos();
        let mut listed: Vec<(PathBuf, Stamp)> = Vec::new();
        let mut gone: BTreeSet<PathBuf> = BTreeSet::new();
        let mut new_dirs: Vec<PathBuf> = Vec::new();
        let mut replaced_dirs: Vec<PathBuf> = Vec::new();
        let mut stats = WalkStats::default();
        for dir in &dirs {
            let tracked = dir.as_os_str().is_empty()
                || matches!(self.known.get(dir).map(|k| &k.node), Some(Node::Dir { .. }));
            if !tracked {
                continue;
            }
            stats.dirs += 1;
            let mut present: HashSet<OsString> = HashSet::new();
            let entries = std::fs::read_dir(self.root.join(dir));
            for entry in entries.into_iter().flatten().flatten() {
                let name = entry.file_name();
                let rel = dir.join(&name);
                if is_temp(&rel) {
                    continue;
                }
                let known = self.known.get(&rel);
                let known_ino = known.map(|k| k.stamp.ino);
                let known_dir = match known.map(|k| &k.node) {
                    Some(node) => matches!(node, Node::Dir { .. }),
                    None => {
                        if self.excluded_now(&rel) {
                            continue;
                        }
                        false
                    }
                };
                // `lstat` through the folder's descriptor (`fstatat`), not the
                // whole path again.
                let Ok(meta) = entry.metadata() else {
                    continue;
                };
                present.insert(name);
                let stamp = Stamp::of(&meta);
                let is_dir = stamp.kind == Kind::Dir;
                // A folder deleted or moved away and another put at its name
                // (another inode, or its watch gone): looked at as new.
                let replaced = is_dir
                    && known_dir
                    && (known_ino != Some(stamp.ino)
                        || !self.watcher.as_ref().is_some_and(|w| w.is_watched(&rel)));
                if is_dir && (!known_dir || replaced) {
                    if replaced {
                        replaced_dirs.push(rel.clone());
                    }
                    new_dirs.push(rel.clone());
                } else if known_dir && !is_dir {
                    gone.extend(self.known_under(&rel));
                }
                listed.push((rel, stamp));
            }
            for child in self.known_children(dir) {
                if !child.file_name().is_some_and(|n| present.contains(n)) {
                    gone.extend(self.known_under(&child));
                    gone.insert(child);
                }
            }
        }
        // Watches of what went are dropped before new folders are watched: a
        // folder moved within the project keeps its inode, and its old watch
        // must not be removed after the new name took it.
        if let Some(watcher) = self.watcher.as_mut() {
            for rel in &gone {
                if matches!(self.known.get(rel).map(|k| &k.node), Some(Node::Dir { .. })) {
                    watcher.forget_under(rel);
                }
            }
            for rel in &replaced_dirs {
                watcher.forget_under(rel);
            }
        }
        let mut watcher = self.watcher.take();
        let mut watch_error: Option<io::Error> = None;
        for dir in new_dirs {
            super::watch_or_drop(&mut watcher, &dir, &mut watch_error);
            let root = self.root.clone();
            let mut visit = |rel: &Path| {
                if is_temp(rel) {
                    return;
                }
                if let Ok(meta) = std::fs::symlink_metadata(root.join(rel)) {
                    let stamp = Stamp::of(&meta);
                    if stamp.kind == Kind::Dir {
                        super::watch_or_drop(&mut watcher, rel, &mut watch_error);
                    }
                    listed.push((rel.to_path_buf(), stamp));
                }
            };
            self.walker.walk_under(&self.root, &dir, &mut visit);
        }
        self.watcher = watcher;
        // What a replaced folder held and its successor does not is gone.
        if !replaced_dirs.is_empty() {
            let seen: HashSet<&Path> = listed.iter().map(|(p, _)| p.as_path()).collect();
            for dir in &replaced_dirs {
                for rel in self.known_under(dir) {
                    if !seen.contains(rel.as_path()) {
                        gone.insert(rel);
                    }
                }
            }
        }
        if let Some(error) = watch_error {
            // A folder went unwatched: nothing tells about its changes, so the
            // whole project is walked now, and from now on.
            self.give_up_watching(&error.to_string());
            return self.record_full(started);
        }
        stats.paths = listed.len();
        stats.walk = started.elapsed();
        let mut manifest = Manifest {
            id: new_id(),
            ..Manifest::default()
        };
        self.compare(listed, now, epoch, &mut stats, &mut manifest)?;
        self.remove_gone(gone, &mut manifest);
        stats.total = started.elapsed();
        self.last_walk = stats;
        self.finish(&mut manifest);
        Ok(manifest)
    }

    /// Every known path strictly below `dir` (`""`: every known path).
    fn known_under(&self, dir: &Path) -> Vec<PathBuf> {
        self.known
            .range::<Path, _>((Bound::Excluded(dir), Bound::Unbounded))
            .map(|(p, _)| p)
            .take_while(|p| p.starts_with(dir))
            .cloned()
            .collect()
    }

    /// The known paths directly in `dir`, found without visiting what lies
    /// deeper: after a child, the search goes on from its name followed by a
    /// NUL byte, which sorts after everything below the child and before its
    /// next sibling (no name holds a NUL).
    fn known_children(&self, dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut from: Bound<PathBuf> = Bound::Excluded(dir.to_path_buf());
        loop {
            let next = self
                .known
                .range::<PathBuf, _>((from, Bound::Unbounded))
                .map(|(p, _)| p)
                .next();
            let Some(child) = next.filter(|p| p.starts_with(dir)) else {
                return out;
            };
            // The name directly in `dir` this path lies under (itself, unless
            // the folder between is not tracked).
            let Some(name) = child
                .strip_prefix(dir)
                .ok()
                .and_then(|rest| rest.components().next())
                .map(|c| c.as_os_str().to_os_string())
            else {
                return out;
            };
            if child.parent() == Some(dir) {
                out.push(child.clone());
            }
            let mut past = name;
            past.push("\0");
            from = Bound::Included(dir.join(past));
        }
    }

    /// Whether a path met in a listing is excluded (asked once per path
    /// between two full walks: the ignore rules hold until an ignore file
    /// changes, which makes the next look a full walk).
    fn excluded_now(&mut self, rel: &Path) -> bool {
        if let Some(&excluded) = self.excluded_cache.get(rel) {
            return excluded;
        }
        let excluded = self.walker.excluded(&self.root, rel);
        self.excluded_cache.insert(rel.to_path_buf(), excluded);
        excluded
    }
}

/// Watches `rel` with `watcher`; the first failure is kept in `error` and
/// the watcher dropped.
pub(super) fn watch_or_drop(
    watcher: &mut Option<Watcher>,
    rel: &Path,
    error: &mut Option<io::Error>,
) {
    if let Some(w) = watcher.as_mut() {
        if let Err(e) = w.watch(rel) {
            *error = Some(e);
            *watcher = None;
        }
    }
}
