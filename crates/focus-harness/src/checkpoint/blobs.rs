//! The content store: every version of every file a checkpoint needs, stored
//! once under its SHA-256 (`blobs/ab/cdef…`), shared by every session of the
//! project's session folder. Not compressed: a std-only compressor would cost
//! more time per tool call than the space it saves on source code is worth,
//! and a stored blob stays readable with `cat`.
//!
//! A blob is written to a private temporary file while it is hashed and only
//! then renamed to its name, so a blob that exists is whole.

use crate::trust::sha256::Sha256;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Content up to this size is read whole before it is stored.
const SMALL: u64 = 1 << 20;

/// The blob folder of a checkpoint store.
#[derive(Clone, Debug)]
pub struct BlobStore {
    dir: PathBuf,
}

/// How a file's content went into the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    /// Its id (SHA-256, hex).
    pub id: String,
    /// Bytes read.
    pub size: u64,
    /// Bytes newly written (0 when the store already held it).
    pub written: u64,
}

impl BlobStore {
    /// The store in `dir` (created when the first blob is written).
    pub fn new(dir: &Path) -> BlobStore {
        BlobStore {
            dir: dir.to_path_buf(),
        }
    }

    /// Where the blob `id` lives.
    pub fn path(&self, id: &str) -> PathBuf {
        let split = id.len().min(2);
        self.dir.join(&id[..split]).join(&id[split..])
    }

    /// Whether the store holds `id`.
    pub fn has(&self, id: &str) -> bool {
        self.path(id).is_file()
    }

    /// Copies everything `reader` gives into the store, hashing it on the way.
    ///
    /// # Errors
    ///
    /// Reading, or writing the store, failed.
    pub fn put_reader(&self, reader: &mut dyn Read) -> io::Result<Stored> {
        // Most files of a project are small: read whole, hashed in memory, and
        // written only when the store does not hold them yet (a second
        // session's first look writes nothing).
        let mut head = Vec::new();
        reader.take(SMALL + 1).read_to_end(&mut head)?;
        if head.len() as u64 <= SMALL {
            return self.put_small(&head);
        }
        focus_sys::private_files::create_dir_all(&self.dir)?;
        let temp = self.temp_path();
        let result = self.copy_into(&mut (&head[..]).chain(reader), &temp);
        if result.is_err() {
            let _ = fs::remove_file(&temp);
        }
        result
    }

    /// A private temporary name in the store.
    fn temp_path(&self) -> PathBuf {
        self.dir
            .join(format!("tmp-{:016x}", crate::session::ids::random_u64()))
    }

    /// Stores `bytes`, read whole already.
    fn put_small(&self, bytes: &[u8]) -> io::Result<Stored> {
        let mut hasher = Sha256::new();
        hasher.update(bytes);
        let id = super::relpath::hex(&hasher.finish());
        let size = bytes.len() as u64;
        let path = self.path(id.as_str());
        if path.is_file() {
            return Ok(Stored {
                id,
                size,
                written: 0,
            });
        }
        if let Some(parent) = path.parent() {
            focus_sys::private_files::create_dir_all(parent)?;
        }
        let temp = self.temp_path();
        let written = focus_sys::private_files::options()
            .write(true)
            .create_new(true)
            .open(&temp)
            .and_then(|mut out| out.write_all(bytes))
            .and_then(|()| fs::rename(&temp, &path));
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        Ok(Stored {
            id,
            size,
            written: size,
        })
    }

    fn copy_into(&self, reader: &mut dyn Read, temp: &Path) -> io::Result<Stored> {
        let mut out = focus_sys::private_files::options()
            .write(true)
            .create_new(true)
            .open(temp)?;
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; 256 * 1024];
        let mut size = 0u64;
        loop {
            let n = match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hasher.update(&buffer[..n]);
            out.write_all(&buffer[..n])?;
            size += n as u64;
        }
        let id = super::relpath::hex(&hasher.finish());
        let path = self.path(&id);
        if path.is_file() {
            fs::remove_file(temp)?;
            return Ok(Stored {
                id,
                size,
                written: 0,
            });
        }
        // No fsync: like the session file by default, a blob survives the
        // process being killed, not the machine losing power.
        drop(out);
        if let Some(parent) = path.parent() {
            focus_sys::private_files::create_dir_all(parent)?;
        }
        fs::rename(temp, &path)?;
        Ok(Stored {
            id,
            size,
            written: size,
        })
    }

    /// Stores `bytes`.
    ///
    /// # Errors
    ///
    /// Writing the store failed.
    pub fn put(&self, bytes: &[u8]) -> io::Result<Stored> {
        self.put_reader(&mut &bytes[..])
    }

    /// Opens the blob `id` for reading.
    ///
    /// # Errors
    ///
    /// The store does not hold it (pruned, or never written): the message names it.
    pub fn open(&self, id: &str) -> io::Result<File> {
        File::open(self.path(id)).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("content {} is not in the checkpoint store: {e}", short(id)),
            )
        })
    }

    /// The whole blob `id`.
    ///
    /// # Errors
    ///
    /// As [`BlobStore::open`].
    pub fn read(&self, id: &str) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.open(id)?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Every blob id in the store with its size on disk.
    pub fn list(&self) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        let Ok(shards) = fs::read_dir(&self.dir) else {
            return out;
        };
        for shard in shards.flatten() {
            let prefix = shard.file_name().to_string_lossy().into_owned();
            if prefix.len() != 2 {
                continue;
            }
            let Ok(files) = fs::read_dir(shard.path()) else {
                continue;
            };
            for file in files.flatten() {
                let size = file.metadata().map(|m| m.len()).unwrap_or(0);
                out.push((
                    format!("{prefix}{}", file.file_name().to_string_lossy()),
                    size,
                ));
            }
        }
        out
    }

    /// Removes the blob `id` (gc).
    ///
    /// # Errors
    ///
    /// The file could not be removed.
    pub fn remove(&self, id: &str) -> io::Result<()> {
        fs::remove_file(self.path(id))
    }
}

/// The first 12 digits of a content id, for messages.
pub fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}
