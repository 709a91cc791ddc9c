//! Reading one path of the project into a [`Node`], safely: `lstat` first, a
//! symbolic link read (never followed), a regular file opened beneath the
//! project with no symbolic link followed on the way, without blocking (a FIFO
//! swapped in meanwhile is refused, never waited on), and copied into the blob
//! store while it is hashed.

use super::blobs::BlobStore;
use super::node::{Kind, Node, Stamp};
use focus_sys::openat::{open_beneath, Open};
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What a path holds now.
#[derive(Debug)]
pub enum Observed {
    /// Nothing (or it vanished while read).
    Absent,
    /// Something that is not tracked (socket, FIFO, device).
    Special(Stamp),
    /// A file over the size cap: its size.
    Oversized(Stamp),
    /// A node, with the stamp it was read under.
    Node(Node, Stamp),
}

/// Reads `rel` beneath `root` (whose open directory is `root_dir`).
///
/// # Errors
///
/// Reading failed for another reason than the path being gone (permission,
/// the store cannot be written).
pub fn observe(
    root: &Path,
    root_dir: &File,
    rel: &Path,
    blobs: &BlobStore,
    max_file_bytes: u64,
) -> io::Result<Observed> {
    let meta = match fs::symlink_metadata(root.join(rel)) {
        Ok(meta) => meta,
        Err(e) if gone(&e) => return Ok(Observed::Absent),
        Err(e) => return Err(e),
    };
    let stamp = Stamp::of(&meta);
    let mode = meta.mode() & 0o7777;
    match stamp.kind {
        Kind::Special => Ok(Observed::Special(stamp)),
        Kind::Dir => Ok(Observed::Node(Node::Dir { mode }, stamp)),
        Kind::Symlink => match fs::read_link(root.join(rel)) {
            Ok(target) => Ok(Observed::Node(
                Node::Symlink {
                    target: target.into_os_string(),
                },
                stamp,
            )),
            Err(e) if gone(&e) => Ok(Observed::Absent),
            Err(e) => Err(e),
        },
        Kind::File if stamp.size > max_file_bytes => Ok(Observed::Oversized(stamp)),
        Kind::File => {
            let how = Open {
                read: true,
                nonblock: true,
                ..Open::default()
            };
            let mut file = match open_beneath(root_dir, rel, how) {
                Ok(file) => file,
                Err(e) if gone(&e) => return Ok(Observed::Absent),
                Err(e) => return Err(e),
            };
            let opened = file.metadata()?;
            if !opened.is_file() || opened.ino() != meta.ino() {
                // Swapped between the look and the open: look again next time.
                return observe_again(root_dir, rel, blobs, max_file_bytes, &opened);
            }
            let stored = blobs.put_reader(&mut file)?;
            let stamp = Stamp::of(&file.metadata()?);
            Ok(Observed::Node(
                Node::File {
                    mode: stamp.mode & 0o7777,
                    blob: stored.id,
                    size: stored.size,
                },
                stamp,
            ))
        }
    }
}

/// A path replaced while it was opened: a special file stays untracked, a
/// regular file is read once more (no loop: the second swap is reported as
/// the special file or absence it became).
fn observe_again(
    root_dir: &File,
    rel: &Path,
    blobs: &BlobStore,
    max_file_bytes: u64,
    opened: &fs::Metadata,
) -> io::Result<Observed> {
    if !opened.is_file() {
        return Ok(Observed::Special(Stamp::of(opened)));
    }
    let how = Open {
        read: true,
        nonblock: true,
        ..Open::default()
    };
    let mut file = match open_beneath(root_dir, rel, how) {
        Ok(file) => file,
        Err(e) if gone(&e) => return Ok(Observed::Absent),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Observed::Special(Stamp::of(&meta)));
    }
    if meta.len() > max_file_bytes {
        return Ok(Observed::Oversized(Stamp::of(&meta)));
    }
    let stored = blobs.put_reader(&mut file)?;
    let stamp = Stamp::of(&file.metadata()?);
    Ok(Observed::Node(
        Node::File {
            mode: stamp.mode & 0o7777,
            blob: stored.id,
            size: stored.size,
        },
        stamp,
    ))
}

/// Whether `error` means the path is not there (or no longer a place to look:
/// a symbolic link met on the way, a file where a folder was).
pub fn gone(error: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    const ELOOP: i32 = 40;
    #[cfg(not(target_os = "linux"))]
    const ELOOP: i32 = 62;
    const ENOTDIR: i32 = 20;
    error.kind() == io::ErrorKind::NotFound
        || matches!(error.raw_os_error(), Some(ENOTDIR) | Some(ELOOP))
}
