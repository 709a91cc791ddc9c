//! The tracker: what focus last saw in the project ([`Tracker`] keeps every
//! tracked path's node and stamp), and the two ways it records a checkpoint:
//!
//! - [`Tracker::record_paths`], for `write` and `edit`: only the paths the tool
//!   names (and folders it created on the way) are looked at; their previous
//!   content is what the tracker holds, checked against the disk just before
//!   the tool runs ([`Tracker::prepare_paths`]).
//! - [`Tracker::record_walk`], for `bash`, `!command`, hooks and whatever
//!   happened between two prompts: the folders that had file change events
//!   since the last look are listed (`watch.rs`, `tracker/watched.rs`), or,
//!   where inotify is missing or its events were lost, the whole project is
//!   walked; every listed path's `lstat` is compared with the stamp kept, and
//!   only paths whose stamp differs (or was taken too close to a change to be
//!   trusted, see [`Stamp::is_racy`]) are read.
//!
//! The first look stores every tracked file's content (the baseline): a
//! command may change any of them, and its previous content must be there to
//! restore. Files over the size cap are left out and reported in the
//! manifest's `skipped` when they change.

use super::manifest::{new_id, Change, Manifest, Skipped};
use super::node::{now_nanos, Kind, Node, Stamp};
use super::observe::{observe, Observed};
use super::store::CheckpointStore;
use super::walk::ProjectWalker;
use super::watch::Watcher;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use walk_watches::WATCH_FROM;
use watched::watch_or_drop;

mod walk_watches;
mod watched;

/// A restore writes into temporary names ending so (never tracked).
pub const TEMP_SUFFIX: &str = ".focus-rewind~";

/// One tracked path, as last seen.
#[derive(Clone, Debug)]
struct Known {
    node: Node,
    stamp: Stamp,
    /// Changed within the clock's granularity of the look: read again next time.
    racy: bool,
    /// The walk that last saw it.
    epoch: u64,
}

/// Figures of the last walk (the benchmark shows them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// Paths visited.
    pub paths: usize,
    /// Files whose content was read.
    pub read: usize,
    /// Time spent listing and `lstat`ing.
    pub walk: Duration,
    /// Folders listed because they had events (0: the whole project was walked).
    pub dirs: usize,
    /// Whole time, reading and storing included.
    pub total: Duration,
}

/// What focus last saw in one project.
pub struct Tracker {
    root: PathBuf,
    root_dir: File,
    /// Where content and manifests go.
    pub store: CheckpointStore,
    walker: Arc<dyn ProjectWalker>,
    known: BTreeMap<PathBuf, Known>,
    oversized: HashMap<PathBuf, Stamp>,
    epoch: u64,
    baselined: bool,
    /// Files larger than this are not recorded.
    pub max_file_bytes: u64,
    /// The last walk's figures.
    pub last_walk: WalkStats,
    /// The project's folders, watched (`None`: not yet, or walking instead).
    watcher: Option<Watcher>,
    /// Whether to watch the project's folders at all (`checkpoints.watch`).
    watching: bool,
    /// Watching failed for good (said once); every look walks the project.
    watch_failed: bool,
    /// What the tracker has to say once (a fallback to the walk).
    notices: Vec<String>,
    /// A lost-events walk was already told about.
    rescan_noted: bool,
    /// Whether a path met in a folder's listing is excluded (since the last walk).
    excluded_cache: HashMap<PathBuf, bool>,
    /// Folders that became known outside a listing (a `write` made them, a
    /// restore put them back): watched, and listed at the next look in case
    /// something changed in them before the watch was added.
    unlisted: std::collections::BTreeSet<PathBuf>,
    /// A project with fewer paths is walked at each look, not watched.
    watch_from: usize,
}

impl Tracker {
    /// A tracker of the project at `root`, storing into `store`, listing paths
    /// with `walker`. A restore that a crash interrupted is finished first.
    ///
    /// # Errors
    ///
    /// `root` cannot be opened as a directory, or the interrupted restore
    /// cannot be finished.
    pub fn new(
        root: &Path,
        store: CheckpointStore,
        walker: Arc<dyn ProjectWalker>,
        max_file_bytes: u64,
    ) -> io::Result<Tracker> {
        let root_dir = File::open(root)?;
        super::journal::resume(&store, root)?;
        Ok(Tracker {
            root: root.to_path_buf(),
            root_dir,
            store,
            walker,
            known: BTreeMap::new(),
            oversized: HashMap::new(),
            epoch: 0,
            baselined: false,
            max_file_bytes,
            last_walk: WalkStats::default(),
            watcher: None,
            watching: true,
            watch_failed: false,
            notices: Vec::new(),
            rescan_noted: false,
            excluded_cache: HashMap::new(),
            unlisted: std::collections::BTreeSet::new(),
            watch_from: WATCH_FROM,
        })
    }

    /// The project's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The node the tracker holds for `rel`.
    pub fn known(&self, rel: &Path) -> Option<&Node> {
        self.known.get(rel).map(|k| &k.node)
    }

    /// Every tracked path with its node (the state as last recorded).
    pub fn state(&self) -> impl Iterator<Item = (&Path, &Node)> {
        self.known.iter().map(|(p, k)| (p.as_path(), &k.node))
    }

    /// Whether the first look (the baseline) has been taken.
    pub fn is_baselined(&self) -> bool {
        self.baselined
    }

    /// Takes the baseline if not yet taken (the first walk records no change).
    ///
    /// # Errors
    ///
    /// As [`Tracker::record_walk`].
    pub fn baseline(&mut self) -> io::Result<()> {
        if !self.baselined {
            self.record_walk()?;
        }
        Ok(())
    }

    /// Records what changed in the project since the last look: only the
    /// folders that had file change events when the project is watched
    /// (`tracker/watched.rs`), else a walk of the whole project.
    ///
    /// # Errors
    ///
    /// The store cannot be written, or a file cannot be read.
    pub fn record_walk(&mut self) -> io::Result<Manifest> {
        let started = Instant::now();
        if self.baselined {
            if let Some(dirty) = self.drain_events() {
                return self.record_dirs(dirty, started);
            }
        }
        self.record_full(started)
    }

    /// Walks the whole project (watching its folders when it may) and
    /// records what changed since the last look.
    fn record_full(&mut self, started: Instant) -> io::Result<Manifest> {
        self.epoch += 1;
        let epoch = self.epoch;
        let now = now_nanos();
        let mut listed: Vec<(PathBuf, Stamp)> = Vec::new();
        let mut stats = WalkStats::default();
        self.excluded_cache.clear();
        let mut watches = self.walk_watches();
        {
            let root = self.root.clone();
            let mut visit = |rel: &Path| {
                if is_temp(rel) {
                    return;
                }
                if let Ok(meta) = std::fs::symlink_metadata(root.join(rel)) {
                    let stamp = Stamp::of(&meta);
                    if stamp.kind == Kind::Dir {
                        watches.dir(rel);
                    }
                    listed.push((rel.to_path_buf(), stamp));
                    watches.met(listed.len());
                }
            };
            if !self.walker.walk(&self.root, &mut visit) {
                return Err(io::Error::other(format!(
                    "{} holds too many paths to track; file checkpoints are off",
                    self.root.display()
                )));
            }
        }
        self.end_watches(watches);
        stats.paths = listed.len();
        stats.walk = started.elapsed();
        let mut manifest = Manifest {
            id: new_id(),
            ..Manifest::default()
        };
        self.compare(listed, now, epoch, &mut stats, &mut manifest)?;
        let gone: Vec<PathBuf> = self
            .known
            .iter()
            .filter(|(_, k)| k.epoch != epoch)
            .map(|(p, _)| p.clone())
            .collect();
        self.remove_gone(gone, &mut manifest);
        self.oversized
            .retain(|rel, _| self.root.join(rel).symlink_metadata().is_ok());
        stats.total = started.elapsed();
        self.last_walk = stats;
        if !self.baselined {
            self.baselined = true;
            manifest.changes.clear();
            manifest.skipped.clear();
        }
        self.finish(&mut manifest);
        Ok(manifest)
    }

    /// Reads every listed path whose stamp differs from the one kept (or was
    /// racy) and records how it changed.
    fn compare(
        &mut self,
        listed: Vec<(PathBuf, Stamp)>,
        now: i128,
        epoch: u64,
        stats: &mut WalkStats,
        manifest: &mut Manifest,
    ) -> io::Result<()> {
        for (rel, stamp) in listed {
            if let Some(known) = self.known.get_mut(&rel) {
                if known.stamp == stamp && !known.racy {
                    known.epoch = epoch;
                    continue;
                }
            }
            stats.read += 1;
            self.look(&rel, now, epoch, manifest)?;
        }
        Ok(())
    }

    /// Records the paths in `gone` as deleted.
    fn remove_gone(&mut self, gone: impl IntoIterator<Item = PathBuf>, manifest: &mut Manifest) {
        for rel in gone {
            if let Some(known) = self.known.remove(&rel) {
                manifest.changes.push(Change {
                    path: rel,
                    before: Some(known.node),
                    after: None,
                });
            }
        }
    }

    /// Before `write` or `edit` changes `paths` (absolute, or relative to the
    /// project): makes sure the tracker holds what they contain now, so the
    /// checkpoint's "before" is exactly the content the tool replaced.
    ///
    /// # Errors
    ///
    /// As [`Tracker::record_paths`].
    pub fn prepare_paths(&mut self, paths: &[PathBuf]) -> io::Result<()> {
        self.baseline()?;
        let mut scratch = Manifest::default();
        for rel in self.tracked_with_parents(paths) {
            self.refresh(&rel, &mut scratch)?;
        }
        Ok(())
    }

    /// After `write` or `edit`: records what changed at `paths` (and folders
    /// created on the way).
    ///
    /// # Errors
    ///
    /// The store cannot be written, or a file cannot be read.
    pub fn record_paths(&mut self, paths: &[PathBuf]) -> io::Result<Manifest> {
        self.baseline()?;
        let mut manifest = Manifest {
            id: new_id(),
            ..Manifest::default()
        };
        for rel in self.tracked_with_parents(paths) {
            self.refresh(&rel, &mut manifest)?;
        }
        self.finish(&mut manifest);
        Ok(manifest)
    }

    /// After a restore put `nodes` in place: the tracker takes them as seen
    /// (with fresh stamps).
    ///
    /// # Errors
    ///
    /// As [`Tracker::record_paths`].
    pub fn refresh_after_restore(&mut self, paths: &[PathBuf]) -> io::Result<()> {
        let mut scratch = Manifest::default();
        for rel in paths {
            self.refresh(rel, &mut scratch)?;
        }
        Ok(())
    }

    /// Reads `rel` again if its stamp changed; records the change into `manifest`.
    fn refresh(&mut self, rel: &Path, manifest: &mut Manifest) -> io::Result<()> {
        if let (Some(known), Ok(meta)) =
            (self.known.get(rel), self.root.join(rel).symlink_metadata())
        {
            if known.stamp == Stamp::of(&meta) && !known.racy {
                return Ok(());
            }
        }
        let epoch = self.epoch;
        let was_dir = self.is_known_dir(rel);
        self.look(rel, now_nanos(), epoch, manifest)?;
        if !was_dir && self.is_known_dir(rel) {
            self.watch_new_dir(rel);
        }
        Ok(())
    }

    /// Whether the tracker holds `rel` as a folder.
    fn is_known_dir(&self, rel: &Path) -> bool {
        matches!(self.known.get(rel).map(|k| &k.node), Some(Node::Dir { .. }))
    }

    /// Reads `rel` and records how it differs from what the tracker held.
    fn look(
        &mut self,
        rel: &Path,
        now: i128,
        epoch: u64,
        manifest: &mut Manifest,
    ) -> io::Result<()> {
        let observed = observe(
            &self.root,
            &self.root_dir,
            rel,
            &self.store.blobs,
            self.max_file_bytes,
        )?;
        let after = match observed {
            Observed::Node(node, stamp) => {
                let racy = stamp.is_racy(now);
                let previous = self.known.insert(
                    rel.to_path_buf(),
                    Known {
                        node: node.clone(),
                        stamp,
                        racy,
                        epoch,
                    },
                );
                let before = previous.map(|k| k.node);
                if before.as_ref() != Some(&node) {
                    manifest.changes.push(Change {
                        path: rel.to_path_buf(),
                        before,
                        after: Some(node),
                    });
                }
                return Ok(());
            }
            Observed::Oversized(stamp) => {
                if self.oversized.insert(rel.to_path_buf(), stamp) != Some(stamp) {
                    manifest.skipped.push(Skipped {
                        path: rel.to_path_buf(),
                        size: stamp.size,
                    });
                }
                None
            }
            Observed::Special(_) | Observed::Absent => None,
        };
        if let Some(known) = self.known.remove(rel) {
            manifest.changes.push(Change {
                path: rel.to_path_buf(),
                before: Some(known.node),
                after,
            });
        }
        Ok(())
    }

    /// Sorts the changes (parents first) and counts the lines.
    fn finish(&self, manifest: &mut Manifest) {
        manifest.changes.sort_by(|a, b| a.path.cmp(&b.path));
        manifest.changes.dedup_by(|b, a| {
            // A path looked at twice in one checkpoint: keep the first before
            // and the last after.
            if a.path == b.path {
                a.after = b.after.take();
                true
            } else {
                false
            }
        });
        manifest.changes.retain(|c| c.before != c.after);
        manifest.lines = super::lines::count(&self.store.blobs, &manifest.changes);
    }

    /// The tracked paths among `paths` (made relative to the project), each
    /// after the folders above it that are not known yet.
    fn tracked_with_parents(&self, paths: &[PathBuf]) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for path in paths {
            let Some(rel) = relative_to(&self.root, path) else {
                continue;
            };
            if is_temp(&rel) || self.walker.excluded(&self.root, &rel) {
                continue;
            }
            let mut prefix = PathBuf::new();
            let count = rel.components().count();
            for (i, component) in rel.components().enumerate() {
                prefix.push(component);
                if (i + 1 == count || !self.known.contains_key(&prefix)) && !out.contains(&prefix) {
                    out.push(prefix.clone());
                }
            }
        }
        out
    }
}

/// `path` relative to `root` with `.` and `..` resolved by their text; `None`
/// when it is outside (or is `root` itself).
pub fn relative_to(root: &Path, path: &Path) -> Option<PathBuf> {
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in full.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(name) => parts.push(name),
        }
    }
    let normal: PathBuf = std::iter::once(std::ffi::OsStr::new("/"))
        .chain(parts)
        .collect();
    let rel = normal.strip_prefix(root).ok()?;
    super::relpath::is_plain(rel).then(|| rel.to_path_buf())
}

/// Whether `rel` is a restore's temporary file.
fn is_temp(rel: &Path) -> bool {
    rel.file_name()
        .is_some_and(|n| n.as_encoded_bytes().ends_with(TEMP_SUFFIX.as_bytes()))
}
