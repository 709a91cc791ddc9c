//! [`WriterLock`]: one writer per session file.
//!
//! Two processes appending to the same file would interleave their trees' leaves
//! (each appends children of its own leaf), so a writer first creates
//! `<session>.jsonl.lock` with `create_new` (`O_CREAT|O_EXCL`: atomic, exactly one
//! process wins) holding its process id. A second writer reads that id and is told
//! who holds the session. A lock whose process is gone (focus was killed) is stale
//! and is taken over.

use super::error::SessionError;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Held while a session is open for writing; dropping it removes the lock file.
#[derive(Debug)]
pub struct WriterLock {
    path: PathBuf,
}

impl WriterLock {
    /// Takes the lock for `session_path`, taking over stale locks.
    pub fn acquire(session_path: &Path) -> Result<WriterLock, SessionError> {
        let mut lock_path = session_path.as_os_str().to_owned();
        lock_path.push(".lock");
        let path = PathBuf::from(lock_path);
        // Two attempts: the second after removing a stale lock. If another process
        // removes and re-takes it in between, the second attempt reports that one.
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    file.write_all(std::process::id().to_string().as_bytes())
                        .map_err(|e| SessionError::io("writing lock file", &path, e))?;
                    return Ok(WriterLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = fs::read_to_string(&path)
                        .ok()
                        .and_then(|s| s.trim().parse::<u32>().ok());
                    match holder {
                        Some(pid) if process_is_alive(pid) => {
                            return Err(SessionError::Locked {
                                path: session_path.to_path_buf(),
                                pid,
                            })
                        }
                        // Dead holder, or an unreadable lock (its writer died
                        // between creating and filling it): stale.
                        _ => {
                            let _ = fs::remove_file(&path);
                        }
                    }
                }
                Err(e) => return Err(SessionError::io("creating lock file", &path, e)),
            }
        }
        let pid = fs::read_to_string(&path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        Err(SessionError::Locked {
            path: session_path.to_path_buf(),
            pid,
        })
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        // Only remove the lock if it is still ours (a stale-lock takeover by
        // another process must not be undone).
        let ours = fs::read_to_string(&self.path)
            .map(|s| s.trim() == std::process::id().to_string())
            .unwrap_or(false);
        if ours {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Whether a process with this id exists. On Linux `/proc/<pid>` answers without
/// any system call binding; elsewhere `kill -0` does (exit status 0: it exists).
pub fn process_is_alive(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    if Path::new("/proc/self").exists() {
        return Path::new(&format!("/proc/{pid}")).exists();
    }
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(true)
}
