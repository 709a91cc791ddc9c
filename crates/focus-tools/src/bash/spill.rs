//! Where bash output beyond the inline cap goes: a spill file, capped, private,
//! and removed when focus exits.
//!
//! The model sees the last 50 KB of a command's output; the rest is written to
//! a spill file whose path the result gives. Three limits keep that honest:
//!
//! - **Capped.** A file holds at most [`SpillFile::cap`] bytes (by default
//!   [`DEFAULT_SPILL_CAP`], ten times the inline cap; `bashSpillMaxBytes` in the
//!   settings changes it). `yes` cannot fill the disk: past the cap, bytes are
//!   only counted, and the result says the file was capped and how much there was.
//! - **Private.** Files live in one directory per [`SpillDir`] (one per
//!   session: the [`ToolState`](crate::ToolState) the tools were built with
//!   holds it), created on first use with mode 0700 (files 0600) under the
//!   system temporary directory, named `focus-spill-<pid>-<nanos>`: command
//!   output can hold secrets, and `/tmp` is shared.
//! - **Temporary.** The directory goes when its [`SpillDir`] is dropped (or
//!   [`SpillDir::remove`] is called); directories left behind by a focus
//!   process that no longer runs (killed with SIGKILL) are swept the next time
//!   a spill directory is created.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use focus_core::sync::lock;

use crate::output::MAX_BYTES;

/// Most bytes kept in one spill file unless configured otherwise: ten times
/// the inline cap.
pub const DEFAULT_SPILL_CAP: u64 = 10 * MAX_BYTES as u64;

/// The name prefix of spill directories.
const DIR_PREFIX: &str = "focus-spill-";

/// A private directory for spill files, created on first use and removed
/// when this value is dropped.
#[derive(Debug, Default)]
pub struct SpillDir {
    /// The directory, once created.
    dir: Mutex<Option<PathBuf>>,
    /// The number of the next file.
    next_file: AtomicU64,
}

/// A spill file being written: everything up to its cap, then only counted.
#[derive(Debug)]
pub struct SpillFile {
    path: PathBuf,
    file: File,
    cap: u64,
    written: u64,
    dropped: u64,
}

/// A finished spill file, as the result describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spilled {
    /// Where it is.
    pub path: PathBuf,
    /// Bytes in the file.
    pub written: u64,
    /// Bytes that did not fit under the cap (0 when the file is complete).
    pub dropped: u64,
}

impl SpillFile {
    /// The most bytes this file holds.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Appends what fits under the cap; counts the rest. A write error stops
    /// writing (the bytes are counted as dropped).
    pub fn write(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.written) as usize;
        let kept = bytes.len().min(room);
        if kept > 0 {
            if self.file.write_all(&bytes[..kept]).is_ok() {
                self.written += kept as u64;
            } else {
                self.cap = self.written;
                self.dropped += kept as u64;
            }
        }
        self.dropped += (bytes.len() - kept) as u64;
    }

    /// Flushes and describes the file.
    pub fn finish(mut self) -> Spilled {
        let _ = self.file.flush();
        Spilled {
            path: self.path,
            written: self.written,
            dropped: self.dropped,
        }
    }
}

impl SpillDir {
    /// A spill directory not created yet (nothing happens on disk until the
    /// first spill file).
    pub fn new() -> SpillDir {
        SpillDir::default()
    }

    /// A new, empty spill file in this private directory holding at most
    /// `cap` bytes; `None` when no file can be created (the result then says
    /// the full output could not be saved).
    pub fn new_file(&self, cap: u64) -> Option<SpillFile> {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = self.path()?;
        for _ in 0..16 {
            let n = self.next_file.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("bash-{n}.log"));
            if let Ok(file) = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                return Some(SpillFile {
                    path,
                    file,
                    cap,
                    written: 0,
                    dropped: 0,
                });
            }
        }
        None
    }

    /// The directory, created (mode 0700) on first use, or again if it was
    /// removed; `None` when it cannot be created.
    pub fn path(&self) -> Option<PathBuf> {
        let mut dir = lock(&self.dir);
        if let Some(existing) = dir.as_ref().filter(|d| d.is_dir()) {
            return Some(existing.clone());
        }
        let base = std::env::temp_dir();
        sweep_stale(&base);
        let created = create_private_dir(&base)?;
        *dir = Some(created.clone());
        Some(created)
    }

    /// Deletes the directory and everything in it. Does nothing when none was
    /// created; a later spill file creates a new one.
    pub fn remove(&self) {
        let taken = lock(&self.dir).take();
        if let Some(dir) = taken {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Creates `focus-spill-<pid>-<nanos>` under `base` with mode 0700. A name
/// that exists already (someone else made it) is never reused.
fn create_private_dir(base: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    for attempt in 0..16u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = base.join(format!(
            "{DIR_PREFIX}{}-{nanos}{attempt}",
            std::process::id()
        ));
        if std::fs::DirBuilder::new().mode(0o700).create(&path).is_ok() {
            return Some(path);
        }
    }
    None
}

/// Removes spill directories whose process is gone (Linux: no `/proc/<pid>`).
/// Only directories owned by this user are touched.
fn sweep_stale(base: &Path) {
    use std::os::unix::fs::MetadataExt;
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    let me = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(DIR_PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let owned = entry
            .metadata()
            .ok()
            .filter(|m| m.is_dir())
            .map(|m| Some(m.uid()) == me);
        if owned == Some(true) && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
