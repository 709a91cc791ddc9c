//! [`SessionWriter`]: appends entries to a session file, one `write` per entry.
//!
//! Each entry is serialized to one line and written with a single `write_all` on a
//! file opened for appending, so a crash leaves at most one torn line at the end,
//! which the reader ignores. The file is created on the first append (the header
//! goes out in the same write as the first entry), so an abandoned prompt leaves no
//! empty file behind. After a torn tail the first append truncates the torn bytes;
//! after a complete line without its newline it writes the newline first.

use super::error::SessionError;
use super::lock::WriterLock;
use super::reader::Tail;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How hard an append tries to reach the disk before returning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Durability {
    /// Handed to the operating system (survives the process being killed).
    #[default]
    Flush,
    /// Also `fsync`ed (survives a power cut; costs a disk round trip per entry).
    Fsync,
}

/// Appends lines to one session file while holding its [`WriterLock`].
#[derive(Debug)]
pub struct SessionWriter {
    path: PathBuf,
    file: Option<File>,
    lock: WriterLock,
    /// The header line, until it has been written.
    pending_header: Option<String>,
    tail: Tail,
    durability: Durability,
}

impl SessionWriter {
    /// A writer for `path`, whose current ending is `tail`. `header` is written before
    /// the first entry when the file has none yet. Takes the writer lock.
    ///
    /// # Errors
    ///
    /// Another running focus holds the writer lock, or the lock cannot be created.
    pub fn new(
        path: &Path,
        header: Option<String>,
        tail: Tail,
    ) -> Result<SessionWriter, SessionError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // Conversations are private: the folder 0700, the file 0600.
            focus_sys::private_files::create_dir_all(dir)
                .map_err(|e| SessionError::io("creating directory", dir, e))?;
        }
        let lock = WriterLock::acquire(path)?;
        Ok(SessionWriter {
            path: path.to_path_buf(),
            file: None,
            lock,
            pending_header: header,
            tail,
            durability: Durability::default(),
        })
    }

    /// Declares the file clean (it was just rewritten whole): the next append neither
    /// truncates nor adds a newline nor writes a header.
    pub fn assume_clean_tail(&mut self) {
        self.tail = Tail::Clean;
        self.pending_header = None;
    }

    /// Sets the durability of later appends.
    pub fn set_durability(&mut self, durability: Durability) {
        self.durability = durability;
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `lines` (JSON without newlines) in one write, each newline-terminated.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or written (a full disk, a removed folder); a torn line is
    /// repaired on the next write.
    pub fn append_lines(&mut self, lines: &[String]) -> Result<(), SessionError> {
        let mut buffer = String::new();
        if let Some(header) = &self.pending_header {
            if let Tail::Torn { .. } | Tail::Clean = self.tail {
                buffer.push_str(header);
                buffer.push('\n');
            }
        }
        if self.tail == Tail::MissingNewline {
            buffer.push('\n');
        }
        for line in lines {
            buffer.push_str(line);
            buffer.push('\n');
        }
        self.open()?;
        let (tail, durability) = (self.tail, self.durability);
        let file = self.file.as_mut().expect("opened above");
        if let Tail::Torn { keep } = tail {
            if let Err(e) = file.set_len(keep) {
                return Err(SessionError::io(
                    "truncating the torn line of",
                    &self.path,
                    e,
                ));
            }
        }
        let written = file
            .write_all(buffer.as_bytes())
            .and_then(|()| match durability {
                Durability::Flush => Ok(()),
                Durability::Fsync => file.sync_data(),
            });
        if let Err(e) = written {
            // A partial write may have left a torn line: start the next one fresh.
            self.tail = Tail::MissingNewline;
            return Err(SessionError::io("appending to", &self.path, e));
        }
        self.tail = Tail::Clean;
        self.pending_header = None;
        Ok(())
    }

    fn open(&mut self) -> Result<(), SessionError> {
        if self.file.is_none() {
            let file = focus_sys::private_files::open_append(&self.path)
                .map_err(|e| SessionError::io("opening", &self.path, e))?;
            // The file exists now: lock it by its identity, not its name.
            self.lock.settle(&self.path)?;
            self.file = Some(file);
        }
        Ok(())
    }
}
