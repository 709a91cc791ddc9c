//! What one path holds, as far as a checkpoint cares ([`Node`]: a file's mode
//! and content id, a directory's mode, a symbolic link's target), and the
//! cheap stat record that says whether it may have changed ([`Stamp`]).
//! Anything else the project holds (sockets, FIFOs, devices) is not a node:
//! never opened, never tracked.

use focus_core::json::{Object, Value};
use std::ffi::OsString;
use std::fs::Metadata;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;

/// The state of one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A regular file: permission bits, content id (SHA-256, hex), size.
    File {
        /// Permission bits (`0o7777` at most).
        mode: u32,
        /// The content's id in the blob store.
        blob: String,
        /// Its length in bytes.
        size: u64,
    },
    /// A directory and its permission bits.
    Dir {
        /// Permission bits.
        mode: u32,
    },
    /// A symbolic link and where it points (never followed).
    Symlink {
        /// The target, as the link holds it.
        target: OsString,
    },
}

/// The kind of a path on disk, from `lstat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A socket, FIFO or device: never tracked.
    Special,
}

impl Kind {
    /// The kind `meta` (from `symlink_metadata`) describes.
    pub fn of(meta: &Metadata) -> Kind {
        let kind = meta.file_type();
        if kind.is_symlink() {
            Kind::Symlink
        } else if kind.is_dir() {
            Kind::Dir
        } else if kind.is_file() {
            Kind::File
        } else {
            Kind::Special
        }
    }
}

impl Node {
    /// The node's kind.
    pub fn kind(&self) -> Kind {
        match self {
            Node::File { .. } => Kind::File,
            Node::Dir { .. } => Kind::Dir,
            Node::Symlink { .. } => Kind::Symlink,
        }
    }

    /// The node as a checkpoint file spells it.
    pub fn to_json(&self) -> Value {
        let mut object = Object::new();
        match self {
            Node::File { mode, blob, size } => {
                object.insert("kind", "file");
                object.insert("mode", u64::from(*mode));
                object.insert("blob", blob.as_str());
                object.insert("size", *size);
            }
            Node::Dir { mode } => {
                object.insert("kind", "dir");
                object.insert("mode", u64::from(*mode));
            }
            Node::Symlink { target } => {
                object.insert("kind", "symlink");
                match target.to_str() {
                    Some(text) => object.insert("target", text),
                    None => object.insert("targetHex", super::relpath::hex(target.as_bytes())),
                };
            }
        }
        Value::Object(object)
    }

    /// A node read back; `None` when the value is not one (a blob id that is not
    /// 64 hex digits is refused: it names a file in the store).
    pub fn from_json(value: &Value) -> Option<Node> {
        let mode = || {
            value
                .get("mode")
                .and_then(Value::as_u64)
                .filter(|m| *m <= 0o7777)
                .map(|m| m as u32)
        };
        match value.get("kind")?.as_str()? {
            "file" => {
                let blob = value.get("blob")?.as_str()?;
                let valid = blob.len() == 64 && blob.bytes().all(|b| b.is_ascii_hexdigit());
                if !valid {
                    return None;
                }
                Some(Node::File {
                    mode: mode()?,
                    blob: blob.to_ascii_lowercase(),
                    size: value.get("size").and_then(Value::as_u64)?,
                })
            }
            "dir" => Some(Node::Dir { mode: mode()? }),
            "symlink" => {
                let target = match value.get("target").and_then(Value::as_str) {
                    Some(text) => OsString::from(text),
                    None => OsString::from_vec(super::relpath::unhex(
                        value.get("targetHex")?.as_str()?,
                    )?),
                };
                Some(Node::Symlink { target })
            }
            _ => None,
        }
    }
}

/// What `lstat` said about a path when its node was last read: when all of it
/// is the same, the content is taken as unchanged (unless it was `racy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The kind.
    pub kind: Kind,
    /// The whole `st_mode`.
    pub mode: u32,
    /// The inode number.
    pub ino: u64,
    /// The size.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: i128,
    /// Status change time, nanoseconds since the epoch.
    pub ctime: i128,
}

impl Stamp {
    /// The stamp of `meta` (from `symlink_metadata`).
    pub fn of(meta: &Metadata) -> Stamp {
        Stamp {
            kind: Kind::of(meta),
            mode: meta.mode(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ctime: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        }
    }

    /// Whether a change within the file system's clock granularity of `now`
    /// could hide behind this stamp (git's "racily clean" entries): such a
    /// file's content is read again at the next look.
    pub fn is_racy(&self, now_nanos: i128) -> bool {
        const GRANULARITY: i128 = 2_000_000_000;
        self.mtime >= now_nanos - GRANULARITY || self.ctime >= now_nanos - GRANULARITY
    }
}

/// Now, in nanoseconds since the epoch.
pub fn now_nanos() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}
