//! [`WriterLock`]: one writer per session file.
//!
//! Two processes appending to the same file would interleave their trees' leaves
//! (each appends children of its own leaf), so a writer first creates
//! `<session>.jsonl.lock` holding its process id, atomically (exactly one process
//! can create it, and it never exists without its id: see [`create_lock_file`]). A
//! second writer reads that id and is told who holds the session. A lock whose
//! process is gone (focus was killed) is stale and is taken over
//! (`take_over_stale` makes that safe when several processes find the same stale
//! lock at once).

use super::error::SessionError;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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
        let locked = |pid| SessionError::Locked {
            path: session_path.to_path_buf(),
            pid,
        };
        // A few attempts: each failed one means another process changed the lock
        // file in between (took over the same stale lock, or released its own).
        for _ in 0..20 {
            match create_lock_file(&path) {
                Ok(()) => return Ok(WriterLock { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = read_pid(&path);
                    match holder {
                        Some(pid) if process_is_alive(pid) => return Err(locked(pid)),
                        // A dead holder, or an unreadable lock (its writer died
                        // between creating and filling it): stale.
                        _ => take_over_stale(&path, holder)?,
                    }
                }
                Err(e) => return Err(SessionError::io("creating lock file", &path, e)),
            }
        }
        Err(locked(read_pid(&path).unwrap_or(0)))
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

/// Creates the lock file holding this process's id, atomically *with* its content:
/// the id is written to a private temporary file which is then hard-linked to the
/// lock's name (fails if the name exists, like `create_new`). Creating the lock
/// empty and writing the id after would let another process read an empty lock in
/// between and judge it stale. Where hard links are not supported, falls back to
/// `create_new` and a write.
pub fn create_lock_file(path: &Path) -> std::io::Result<()> {
    static ATTEMPT: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id().to_string();
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(
        ".{}-{}.tmp",
        std::process::id(),
        ATTEMPT.fetch_add(1, Ordering::Relaxed)
    ));
    let temporary = PathBuf::from(temporary);
    fs::write(&temporary, &pid)?;
    let linked = fs::hard_link(&temporary, path);
    let _ = fs::remove_file(&temporary);
    match linked {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
            let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
            file.write_all(pid.as_bytes())
        }
        other => other,
    }
}

fn read_pid(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Removes a stale lock without ever removing a fresh one.
///
/// Only the process holding `<lock>.takeover` (created with `create_new`, so one at
/// a time) may remove a lock file, and it removes it only after re-reading that it
/// still holds the stale pid. Nobody else can replace the stale file meanwhile
/// (`create_new` fails while it exists), so the file removed is the stale one.
/// A takeover file left by a process that died mid-takeover is ignored after a few
/// seconds.
fn take_over_stale(path: &Path, stale: Option<u32>) -> Result<(), SessionError> {
    let mut guard = path.as_os_str().to_owned();
    guard.push(".takeover");
    let guard = PathBuf::from(guard);
    match OpenOptions::new().write(true).create_new(true).open(&guard) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let abandoned = fs::metadata(&guard)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(5));
            if abandoned {
                let _ = fs::remove_file(&guard);
            } else {
                // Another process is taking over; give it a moment, then the
                // caller looks at the lock again.
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            return Ok(());
        }
        Err(e) => return Err(SessionError::io("creating", &guard, e)),
    }
    if read_pid(path) == stale {
        let _ = fs::remove_file(path);
    }
    let _ = fs::remove_file(&guard);
    Ok(())
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
