//! [`SessionError`]: everything that can stop a session from opening or an entry from
//! being written, each with the path or id it concerns.

use std::fmt;
use std::path::PathBuf;

/// Why a session operation failed.
#[derive(Debug)]
pub enum SessionError {
    /// A file operation failed.
    Io {
        /// What focus was doing (`reading`, `appending to`, …).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The file was written by a newer focus or pi; reading it could lose data.
    NewerVersion {
        /// The session file.
        path: PathBuf,
        /// The version in its header.
        version: u64,
    },
    /// The file is not a session file (its first line is some other JSON).
    NotASession {
        /// The file.
        path: PathBuf,
        /// What was found instead.
        reason: String,
    },
    /// Another process is appending to this session.
    Locked {
        /// The session file.
        path: PathBuf,
        /// The process holding the lock (0: unknown, the file is locked
        /// through another of its names).
        pid: u32,
        /// The lock file (to remove by hand if no focus holds the session).
        lock: PathBuf,
    },
    /// No entry with this id exists in the session.
    NoSuchEntry(String),
    /// No session matches this id prefix.
    NoSuchSession(String),
    /// Several sessions match this id prefix.
    AmbiguousPrefix {
        /// The prefix given.
        prefix: String,
        /// The matching files.
        matches: Vec<PathBuf>,
    },
}

impl SessionError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        SessionError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Io {
                action,
                path,
                source,
            } => write!(f, "error {action} {}: {source}", path.display()),
            SessionError::NewerVersion { path, version } => write!(
                f,
                "{}: session format version {version} is newer than this focus understands (version {}); upgrade focus to open it",
                path.display(),
                super::entry::CURRENT_VERSION
            ),
            SessionError::NotASession { path, reason } => {
                write!(f, "{} is not a session file: {reason}", path.display())
            }
            // The kernel's lock on the file is held, but not through this
            // name's lock file (a hard link in another directory): nothing
            // to remove by hand, the holder releases it when it exits.
            SessionError::Locked { path, pid: 0, .. } => write!(
                f,
                "session {} is being written by another focus process (through another name of \
                 the same file); close that focus first, or fork the session",
                path.display()
            ),
            SessionError::Locked { path, pid, lock } => write!(
                f,
                "session {} is being written by focus process {pid} (lock file {}); close that \
                 focus first, or fork the session. If no focus is working on this session, \
                 remove the lock file: rm {}",
                path.display(),
                lock.display(),
                lock.display()
            ),
            SessionError::NoSuchEntry(id) => write!(f, "no entry with id {id:?} in this session"),
            SessionError::NoSuchSession(prefix) => {
                write!(f, "no session found whose id starts with {prefix:?}")
            }
            SessionError::AmbiguousPrefix { prefix, matches } => {
                write!(f, "{} sessions match {prefix:?}:", matches.len())?;
                for path in matches {
                    write!(f, "\n  {}", path.display())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SessionError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
