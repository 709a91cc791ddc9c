//! Watching the project's folders with inotify (focus-sys), so a checkpoint
//! after a `bash` call compares only the folders that had events instead of
//! walking the whole project.
//!
//! Every tracked folder gets a watch when a full walk (the baseline, or the
//! walk after a fallback) or a listing meets it: the watch is added before
//! the folder's content is listed, so a change is either seen by the listing
//! or raises an event afterwards. [`Watcher::drain`] reads the events queued
//! since the last look and answers with the folders to list again, or with
//! why the whole project must be walked instead: the kernel's queue
//! overflowed (`IN_Q_OVERFLOW`), an ignore file changed (what is tracked
//! changed), a file system was unmounted.
//!
//! Draining is exact up to the moment it starts: before reading, it writes a
//! marker file in the checkpoint store's own folder (watched too) and reads
//! until the marker's event arrives. The kernel queues an event inside the
//! system call that made the change, and one instance's queue keeps the
//! order, so every change made before the marker (by a `bash` child that has
//! exited, sandboxed or not: the jail's mounts are of the same inodes) is in
//! what was read.
//!
//! What inotify does not see, and the walk would: writes through a shared
//! memory mapping (no event until the file is written or closed otherwise),
//! and changes made by another machine to a network file system.

use focus_sys::inotify::{
    Event, Inotify, CHANGES, IN_DELETE_SELF, IN_IGNORED, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_UNMOUNT,
};
use std::collections::{BTreeSet, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The marker file written in the store's folder to know the queue is read
/// up to now (`.watch-sync-<pid>`: sessions of one folder share the store).
fn marker_name() -> String {
    format!(".watch-sync-{}", std::process::id())
}

/// How long a drain waits for the marker's event before giving up on the
/// events (and walking the project instead). It arrives at once in practice.
const MARKER_WAIT: Duration = Duration::from_secs(2);

/// What the events since the last look say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Drained {
    /// These folders (relative to the project) had events; nothing else changed.
    Dirty(BTreeSet<PathBuf>),
    /// The events cannot be trusted to be complete: walk the whole project (why).
    Rescan(String),
}

/// The watches of one project.
pub struct Watcher {
    inotify: Inotify,
    root: PathBuf,
    by_wd: HashMap<i32, PathBuf>,
    by_dir: HashMap<PathBuf, i32>,
    marker: PathBuf,
    marker_name: std::ffi::OsString,
    marker_wd: i32,
    marker_count: u64,
    events: Vec<Event>,
}

impl Watcher {
    /// A watcher of the project at `root`, with its marker in `marker_dir`
    /// (made and watched at the first drain). No folder of the project is
    /// watched yet.
    ///
    /// # Errors
    ///
    /// Not Linux, or no inotify instance left.
    pub fn new(root: &Path, marker_dir: &Path) -> io::Result<Watcher> {
        const EMFILE: i32 = 24;
        let inotify = Inotify::new().map_err(|e| match e.raw_os_error() {
            Some(EMFILE) => io::Error::other(
                "no inotify instance left (fs.inotify.max_user_instances) or no descriptor left",
            ),
            _ => e,
        })?;
        Ok(Watcher {
            inotify,
            root: root.to_path_buf(),
            by_wd: HashMap::new(),
            by_dir: HashMap::new(),
            marker: marker_dir.join(marker_name()),
            marker_name: marker_name().into(),
            marker_wd: -1,
            marker_count: 0,
            events: Vec::new(),
        })
    }

    /// Whether the project's folder `rel` has a watch.
    pub fn is_watched(&self, rel: &Path) -> bool {
        self.by_dir.contains_key(rel)
    }

    /// How many folders are watched.
    pub fn watches(&self) -> usize {
        self.by_dir.len()
    }

    /// Watches the project's folder `rel` (`""`: the root). `Ok(false)` when
    /// it is gone or no longer a folder (its parent's listing tells).
    ///
    /// # Errors
    ///
    /// The folder cannot be watched: the user's watches are used up
    /// (`fs.inotify.max_user_watches`, named in the message) or it cannot be read.
    pub fn watch(&mut self, rel: &Path) -> io::Result<bool> {
        const ENOENT: i32 = 2;
        const ENOTDIR: i32 = 20;
        const ENOSPC: i32 = 28;
        const ELOOP: i32 = 40;
        match self.inotify.add_watch(&self.root.join(rel), CHANGES) {
            Ok(wd) => {
                if let Some(old) = self.by_wd.insert(wd, rel.to_path_buf()) {
                    // The same folder under a new name (moved): one watch.
                    if old != rel {
                        self.by_dir.remove(&old);
                    }
                }
                self.by_dir.insert(rel.to_path_buf(), wd);
                Ok(true)
            }
            Err(e) if matches!(e.raw_os_error(), Some(ENOENT | ENOTDIR | ELOOP)) => Ok(false),
            Err(e) if e.raw_os_error() == Some(ENOSPC) => Err(io::Error::other(format!(
                "the inotify watch limit is reached (fs.inotify.max_user_watches = {}, {} folders watched here)",
                focus_sys::inotify::max_user_watches()
                    .map_or_else(|| "unknown".to_string(), |n| n.to_string()),
                self.by_dir.len()
            ))),
            Err(e) => Err(io::Error::new(
                e.kind(),
                format!("cannot watch {}: {e}", self.root.join(rel).display()),
            )),
        }
    }

    /// Stops watching `rel` and every folder below it (gone or moved away).
    pub fn forget_under(&mut self, rel: &Path) {
        let under: Vec<PathBuf> = self
            .by_dir
            .keys()
            .filter(|d| d.starts_with(rel))
            .cloned()
            .collect();
        for dir in under {
            if let Some(wd) = self.by_dir.remove(&dir) {
                if self.by_wd.get(&wd) == Some(&dir) {
                    self.by_wd.remove(&wd);
                    // Fails when the kernel already dropped it (folder deleted).
                    let _ = self.inotify.remove_watch(wd);
                }
            }
        }
    }

    /// Reads every event up to now (see the module's text): the folders to
    /// list again, or why the whole project must be walked.
    ///
    /// # Errors
    ///
    /// The marker's folder cannot be made or watched, the marker cannot be
    /// written, or the events cannot be read.
    pub fn drain(&mut self) -> io::Result<Drained> {
        if self.marker_wd < 0 {
            if let Some(dir) = self.marker.parent() {
                focus_sys::private_files::create_dir_all(dir)?;
                self.marker_wd = self.inotify.add_watch(dir, CHANGES)?;
            }
        }
        self.marker_count += 1;
        std::fs::write(&self.marker, self.marker_count.to_string())?;
        let started = Instant::now();
        let mut dirty = BTreeSet::new();
        let mut rescan: Option<String> = None;
        loop {
            self.events.clear();
            self.inotify.read_events(&mut self.events)?;
            let events = std::mem::take(&mut self.events);
            let mut marked = false;
            for event in &events {
                if event.wd == self.marker_wd && event.name.as_ref() == Some(&self.marker_name) {
                    marked = true;
                    continue;
                }
                if let Some(why) = self.take(event, &mut dirty) {
                    rescan.get_or_insert(why);
                }
            }
            self.events = events;
            if marked {
                break;
            }
            if started.elapsed() > MARKER_WAIT {
                rescan.get_or_insert_with(|| "file change events came late".into());
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(match rescan {
            Some(why) => Drained::Rescan(why),
            None => Drained::Dirty(dirty),
        })
    }

    /// Notes one event's folder in `dirty`; why a full walk is needed, if so.
    fn take(&mut self, event: &Event, dirty: &mut BTreeSet<PathBuf>) -> Option<String> {
        if event.mask & IN_Q_OVERFLOW != 0 {
            return Some("the kernel's queue of file change events overflowed".into());
        }
        if event.mask & IN_UNMOUNT != 0 {
            return Some("a file system under the project was unmounted".into());
        }
        if event.mask & IN_IGNORED != 0 {
            if let Some(dir) = self.by_wd.remove(&event.wd) {
                if self.by_dir.get(&dir) == Some(&event.wd) {
                    self.by_dir.remove(&dir);
                }
            }
            return None;
        }
        let dir = self.by_wd.get(&event.wd)?.clone();
        if let Some(name) = &event.name {
            if name == ".gitignore" || name == ".ignore" {
                return Some("an ignore file changed".into());
            }
        }
        if event.mask & (IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
            if dir.as_os_str().is_empty() {
                return Some("the project's folder itself was moved or deleted".into());
            }
            if let Some(parent) = dir.parent() {
                dirty.insert(parent.to_path_buf());
            }
        }
        dirty.insert(dir);
        None
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // Written only by this process; gone with it (absent if never drained).
        let _ = std::fs::remove_file(&self.marker);
    }
}
