//! What focus last saw of each file, so `edit` and `write` can tell that a file
//! changed behind its back.
//!
//! The model edits from what it read. If the user, a formatter or a running
//! program changed the file since, an edit built on the old text would silently
//! undo their change, so `read`, `edit` and `write` record what they read or
//! wrote ([`SeenFiles::record`]) and `edit`/`write` compare the file as it is
//! now with that record before changing it ([`SeenFiles::check`]): its size, its
//! modification time and
//! a hash of its bytes. A difference is refused with a message telling the
//! model to read the file again.
//!
//! The record is keyed on the file's canonical path (symbolic links
//! resolved, so a file reached through a link is the same file) and holds the
//! file's identity (device and inode): a file replaced by another one under
//! the same name (an editor saving by rename) counts as changed. (Keying on the
//! inode alone is wrong: a deleted file's inode number is soon reused by an
//! unrelated new file.) The record is a value, [`SeenFiles`], held by the
//! [`ToolState`](crate::ToolState) the tools were built with: the tools built
//! with one state share it (a file read by one tool object and edited by another
//! is still recognised), and nothing is kept for the whole process. A file focus
//! never read has no record and is not checked (as in pi, `edit` may work
//! blind; the exact-match rule still guards it).

use std::collections::HashMap;
use std::hash::Hasher;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use focus_core::sync::lock;

/// The files the tools of one [`ToolState`](crate::ToolState) have seen, by
/// canonical path.
#[derive(Debug, Default)]
pub struct SeenFiles {
    files: Mutex<HashMap<PathBuf, Seen>>,
}

/// Most files remembered; beyond it the record starts afresh (a file then is
/// simply not checked, as one never read).
const MAX_FILES: usize = 10_000;

/// One file as focus last read or wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// Its device and inode.
    pub identity: (u64, u64),
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, when the system gives one.
    pub modified: Option<SystemTime>,
    /// [`hash_blocks`] of its bytes.
    pub hash: u64,
}

/// SipHash with fixed keys of `bytes` in one piece (the same bytes give the
/// same value for the life of the process).
fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

/// A [`hash_blocks`] computed piece by piece, for bytes read as a stream.
#[derive(Clone, Debug, Default)]
pub struct StreamHash {
    bytes: Vec<u8>,
    hasher: Option<std::collections::hash_map::DefaultHasher>,
    len: u64,
}

impl StreamHash {
    /// Adds the next bytes.
    pub fn update(&mut self, piece: &[u8]) {
        // `Hasher::write` is not split-invariant: buffer until the end for
        // small files, and beyond 1 MiB switch to hashing fixed 1 MiB blocks.
        self.len += piece.len() as u64;
        self.bytes.extend_from_slice(piece);
        while self.bytes.len() >= BLOCK {
            let hasher = self.hasher.get_or_insert_with(Default::default);
            hasher.write(&self.bytes[..BLOCK]);
            self.bytes.drain(..BLOCK);
        }
    }

    /// The bytes seen so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no bytes were seen.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The hash of everything added; equal to [`hash_blocks`] of the same bytes.
    pub fn finish(self) -> u64 {
        match self.hasher {
            None => hash(&self.bytes),
            Some(mut hasher) => {
                hasher.write(&self.bytes);
                hasher.finish()
            }
        }
    }
}

/// Block size of [`StreamHash`] for large inputs.
const BLOCK: usize = 1 << 20;

/// The hash [`StreamHash`] gives for `bytes` whole.
pub fn hash_blocks(bytes: &[u8]) -> u64 {
    let mut stream = StreamHash::default();
    stream.update(bytes);
    stream.finish()
}

impl Seen {
    /// The record of a file with `metadata` whose bytes hash to `hash`, `size` long.
    pub fn new(metadata: &std::fs::Metadata, size: u64, hash: u64) -> Seen {
        Seen {
            identity: (metadata.dev(), metadata.ino()),
            size,
            modified: metadata.modified().ok(),
            hash,
        }
    }
}

impl SeenFiles {
    /// An empty record.
    pub fn new() -> SeenFiles {
        SeenFiles::default()
    }

    /// Records that focus read or wrote the file at `path` as `seen`.
    pub fn record(&self, path: &Path, seen: Seen) {
        let Ok(key) = std::fs::canonicalize(path) else {
            return;
        };
        let mut files = lock(&self.files);
        if files.len() >= MAX_FILES {
            files.clear();
        }
        files.insert(key, seen);
    }

    /// What focus last recorded of the file at `path`, if anything.
    pub fn last_seen(&self, path: &Path) -> Option<Seen> {
        let key = std::fs::canonicalize(path).ok()?;
        lock(&self.files).get(&key).copied()
    }

    /// Compares the file at `path` as it is `now` with what focus last saw of
    /// it. `shown` names the file.
    ///
    /// # Errors
    ///
    /// The file changed since it was recorded; the message says what differs
    /// and what to do.
    pub fn check(&self, path: &Path, now: Seen, shown: &str) -> Result<(), String> {
        let Some(before) = self.last_seen(path) else {
            return Ok(());
        };
        if before == now {
            return Ok(());
        }
        let what = if before.identity != now.identity {
            "it was replaced by another file of the same name".to_string()
        } else if before.size != now.size {
            format!("its size went from {} to {} bytes", before.size, now.size)
        } else if before.hash != now.hash {
            "its content is different (same size)".to_string()
        } else {
            "its modification time changed".to_string()
        };
        Err(format!(
            "{shown} changed since focus last read or wrote it ({what}): someone else (the user, \
             a formatter, a running program) modified it. It was not changed. Read it again and \
             make your change against its current content."
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_hash_equals_the_whole_hash_however_it_is_split() {
        let bytes: Vec<u8> = (0..3 * BLOCK + 17).map(|i| (i * 7) as u8).collect();
        let whole = hash_blocks(&bytes);
        for step in [1usize, 4096, BLOCK - 1, BLOCK + 3] {
            let mut stream = StreamHash::default();
            for piece in bytes.chunks(step.max(1)) {
                stream.update(piece);
            }
            assert_eq!(stream.finish(), whole, "step {step}");
        }
        let small = b"hello";
        let mut stream = StreamHash::default();
        stream.update(&small[..2]);
        stream.update(&small[2..]);
        assert_eq!(stream.finish(), hash_blocks(small));
        assert_ne!(hash_blocks(b"hello"), hash_blocks(b"hellp"));
    }
}
