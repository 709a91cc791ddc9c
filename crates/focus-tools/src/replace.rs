//! Replacing an existing file's content without losing anyone else's writes:
//! the one path by which `edit` and `write` change a file that exists.
//!
//! [`replace_existing`] is given the file as the tool read it (the open handle
//! and its metadata) and the new bytes. It:
//!
//! 1. **Refuses a file that changed since the tool read it** (size or
//!    modification time of the handle, or the path now naming another file):
//!    nothing is written, and the model is told to read it again.
//! 2. **Writes in place when the file has other names or a lasting writer**:
//!    more than one hard link, or (Linux, [`holders`]) another process that
//!    keeps it open for writing for longer than [`WRITER_WAIT`] (a logger, an
//!    editor). A rename would give this name a new inode: the other links would
//!    keep the old content, and the writer would go on writing into a file no
//!    one can see. In place, the bytes are written over the old ones and the
//!    file cut to the new length. This is not atomic: a reader may see a mix
//!    while it happens, and a write by that writer landing during those
//!    microseconds can be overwritten.
//! 3. **Otherwise replaces atomically** ([`crate::write::write_atomic`]: a
//!    temporary file beside it, the same mode, renamed over it), and then
//!    **salvages late appends**: a program that opened the old file just
//!    before the rename (`echo >> log` in a loop) writes into the old inode. The
//!    tool waits (at most [`WRITER_WAIT`]) until no other process holds the old
//!    inode open for writing and appends whatever was added beyond what it
//!    read to the new file. A writer still holding the old file after that is
//!    named in the result. (Writing in place for every writer seen was tried
//!    and rejected: a transient `>>` in a loop then races the in-place write
//!    and loses lines, which waiting for a moment without writers and then
//!    renaming does not.)
//!
//! The file's mode is kept either way (in place it is untouched; a renamed file
//! gets the old mode, and its owner and group when focus may set them).

use std::fs::{File, Metadata};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::sandbox::Sandbox;

/// How long a replacement waits for other processes to stop writing the file
/// (before choosing how to write, and before salvaging late appends).
pub const WRITER_WAIT: Duration = Duration::from_secs(1);

/// How a file was replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replaced {
    /// Written over its old bytes (hard links or open writers kept).
    InPlace,
    /// Replaced by rename; `salvaged` bytes appended to the old file during
    /// the replacement were carried over.
    Renamed {
        /// Bytes carried over from the old file.
        salvaged: u64,
        /// A process still holding the old file open for writing (its pid),
        /// whose later writes will not reach the new file.
        writer_left: Option<u32>,
    },
}

/// Why a replacement did not happen.
#[derive(Debug)]
pub enum ReplaceError {
    /// The file changed since it was read; the text says how.
    Changed(String),
    /// The operating system refused.
    Io(std::io::Error),
}

impl From<std::io::Error> for ReplaceError {
    fn from(e: std::io::Error) -> ReplaceError {
        ReplaceError::Io(e)
    }
}

/// Replaces the content of the existing file at `path` with `bytes`. `old` is
/// the handle it was read through, `read` the handle's metadata then, and
/// `read_len` how many bytes were read.
///
/// # Errors
///
/// [`ReplaceError::Changed`] when the file changed since it was read (nothing written);
/// [`ReplaceError::Io`] when it cannot be written (the old content is kept).
pub fn replace_existing(
    path: &Path,
    old: &File,
    read: &Metadata,
    read_len: u64,
    bytes: &[u8],
    sandbox: &Sandbox,
) -> Result<Replaced, ReplaceError> {
    let lasting_writer = !wait_for_no_writer(read);
    unchanged_since_read(path, old, read, read_len)?;
    if read.nlink() > 1 || lasting_writer {
        write_in_place(path, read, bytes, sandbox)?;
        return Ok(Replaced::InPlace);
    }
    crate::write::write_atomic(path, bytes, sandbox)?;
    keep_owner(path, read);
    let salvaged = salvage_late_appends(path, old, read, read_len, sandbox);
    let writer_left = holders(read.dev(), read.ino())
        .into_iter()
        .find(|h| h.writing)
        .map(|h| h.pid);
    Ok(Replaced::Renamed {
        salvaged,
        writer_left,
    })
}

/// Fails when the file behind `old` grew, shrank or was modified since it
/// was read, or when `path` now names a different file.
fn unchanged_since_read(
    path: &Path,
    old: &File,
    read: &Metadata,
    read_len: u64,
) -> Result<(), ReplaceError> {
    let now = old.metadata()?;
    if now.len() != read_len || now.modified().ok() != read.modified().ok() {
        return Err(ReplaceError::Changed(format!(
            "it was modified while focus was working on it (size {} → {} bytes)",
            read_len,
            now.len()
        )));
    }
    let named = std::fs::metadata(path)?;
    if (named.dev(), named.ino()) != (read.dev(), read.ino()) {
        return Err(ReplaceError::Changed(
            "it was replaced by another file while focus was working on it".to_string(),
        ));
    }
    Ok(())
}

/// Overwrites the file's bytes and cuts it to the new length, through a fresh
/// handle that must still be the same file.
fn write_in_place(
    path: &Path,
    read: &Metadata,
    bytes: &[u8],
    sandbox: &Sandbox,
) -> Result<(), ReplaceError> {
    // Reached as the checked path, with no symbolic link followed.
    let placed = crate::beneath::place_for_write(path, false, sandbox)?;
    let mut file = placed.open(focus_sys::openat::Open {
        write: true,
        nonblock: true,
        ..Default::default()
    })?;
    let meta = file.metadata()?;
    if (meta.dev(), meta.ino()) != (read.dev(), read.ino()) {
        return Err(ReplaceError::Changed(
            "it was replaced by another file while focus was working on it".to_string(),
        ));
    }
    file.seek(SeekFrom::Start(0))?;
    file.write_all(bytes)?;
    file.set_len(bytes.len() as u64)?;
    file.sync_all()?;
    Ok(())
}

/// Gives the renamed file the old file's owner and group (only root may; a
/// refusal leaves the new file owned by whoever focus runs as, as before).
fn keep_owner(path: &Path, read: &Metadata) {
    if let Ok(now) = std::fs::metadata(path) {
        if (now.uid(), now.gid()) != (read.uid(), read.gid()) {
            let _ = std::os::unix::fs::chown(path, Some(read.uid()), Some(read.gid()));
        }
    }
}

/// Waits (at most [`WRITER_WAIT`]) for a moment when no other process holds
/// the file open for writing; whether one came. Readers (`less`, `tail -f`)
/// do not count: they never add bytes.
fn wait_for_no_writer(read: &Metadata) -> bool {
    let until = Instant::now() + WRITER_WAIT;
    loop {
        if !holders(read.dev(), read.ino()).iter().any(|h| h.writing) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// After a rename: waits for a moment without writers on the old inode, then
/// appends to the new file whatever the old one gained beyond `read_len`.
/// Returns the bytes carried over.
fn salvage_late_appends(
    path: &Path,
    old: &File,
    read: &Metadata,
    read_len: u64,
    sandbox: &Sandbox,
) -> u64 {
    wait_for_no_writer(read);
    let Ok(now) = old.metadata() else {
        return 0;
    };
    if now.len() <= read_len {
        return 0;
    }
    let mut extra = vec![0; (now.len() - read_len) as usize];
    let mut filled = 0;
    while filled < extra.len() {
        match old.read_at(&mut extra[filled..], read_len + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    extra.truncate(filled);
    // The new file, reached as the checked path with no symbolic link followed.
    let appended = crate::beneath::place_for_write(path, false, sandbox)
        .and_then(|placed| {
            placed.open(focus_sys::openat::Open {
                write: true,
                nonblock: true,
                ..Default::default()
            })
        })
        .and_then(|mut f| {
            f.seek(SeekFrom::End(0))?;
            f.write_all(&extra)?;
            f.sync_all()
        });
    if appended.is_ok() {
        extra.len() as u64
    } else {
        0
    }
}

/// A process holding a file open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// Whether that descriptor may write.
    pub writing: bool,
}

/// The other processes holding the file (device, inode) open, one entry per
/// descriptor. Linux reads `/proc/*/fd` and `/proc/*/fdinfo`; elsewhere the
/// list is empty.
pub fn holders(dev: u64, ino: u64) -> Vec<Holder> {
    let mut found = Vec::new();
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return found;
    };
    let me = std::process::id();
    for process in processes.flatten() {
        let name = process.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            // `metadata` follows the descriptor's magic link to the open file.
            let Ok(meta) = std::fs::metadata(fd.path()) else {
                continue;
            };
            if meta.dev() != dev || meta.ino() != ino {
                continue;
            }
            let info = process.path().join("fdinfo").join(fd.file_name());
            found.push(Holder {
                pid,
                writing: std::fs::read_to_string(info).map_or(true, |t| opened_for_writing(&t)),
            });
        }
    }
    found
}

/// Whether an fdinfo text's `flags:` (octal) has write access (`O_WRONLY` or
/// `O_RDWR`, the low two bits).
fn opened_for_writing(fdinfo: &str) -> bool {
    fdinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
        .map_or(true, |flags| flags & 3 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fdinfo_flags_tell_writers_from_readers() {
        assert!(!opened_for_writing(
            "pos:\t0\nflags:\t0100000\nmnt_id:\t1\n"
        ));
        assert!(opened_for_writing("pos:\t0\nflags:\t02102001\n"));
        assert!(opened_for_writing("pos:\t0\nflags:\t0100002\n"));
        assert!(opened_for_writing("garbled"));
    }
}
