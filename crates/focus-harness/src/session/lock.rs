//! [`WriterLock`]: one writer per session file, whatever name it is opened by.
//!
//! Two processes appending to the same file would interleave their trees' leaves
//! (each appends children of its own leaf), so a writer first creates a lock
//! file holding its process id and that process's start time, atomically
//! (exactly one process can create it, and it never exists without its record:
//! see [`create_lock_file`]).
//!
//! **Beside the file, keyed on the file, not its name.** The lock file lives in
//! the session file's own directory (its real one, every symbolic link
//! resolved) and is named after the file's identity, its device and inode
//! (`.<dev>-<ino>.lock`), so a session opened through a symbolic link or a
//! second hard link in the same directory finds the same lock, and two focus
//! processes agree on it whatever their `TMPDIR` (a lock under the temporary
//! directory let two processes with different `TMPDIR` both write one
//! session). A hard link in *another* directory has a lock file of its own
//! there, so a writer also holds an exclusive `flock` on the session file
//! itself ([`focus_sys::fs::try_lock_exclusive`]): that one is on the inode, found
//! through any name. A session file that does not exist yet has no identity:
//! its writer locks the name (`.new-<name>.lock` beside it) until the first
//! append creates the file, then takes the file's lock and lets the name's go
//! ([`WriterLock::settle`]).
//!
//! **Stale locks.** A second writer reads the record and is told who holds the
//! session and which lock file to remove if that is wrong. A lock whose process
//! is gone (focus was killed) is stale and is taken over (`take_over_stale`
//! makes that safe when several processes find the same stale lock at once). A
//! process id can be reused by an unrelated process after focus died: the
//! record's start time (Linux: field 22 of `/proc/<pid>/stat`, clock ticks
//! since boot) must match the running process's, otherwise the lock is stale.
//! A killed writer's `flock` can outlive it for a moment, held by the
//! processes it had just forked (they share its open file until their
//! `exec`): with no running writer recorded, a busy `flock` is waited for a
//! little before the session counts as being written.
//! A file's lock also names the file by its path (second line): a lock whose
//! file was deleted while its writer still ran does not lock the unrelated new
//! file that reuses the inode number.

use super::error::SessionError;
use std::fs::{self, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Held while a session is open for writing; dropping it removes the lock file.
#[derive(Debug)]
pub struct WriterLock {
    path: PathBuf,
    /// Whether this is the lock of a name whose file did not exist yet.
    by_name: bool,
    /// The record this process wrote into the lock file.
    record: String,
    /// The session file, open and `flock`ed (a file's lock only): closing it
    /// releases the kernel's lock.
    _flock: Option<std::fs::File>,
}

/// Who holds a lock, as its file records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The holder's process id.
    pub pid: u32,
    /// Its start time, when recorded (locks written by older versions hold
    /// only the pid).
    pub start_time: Option<u64>,
}

impl Holder {
    /// Parses a lock file's first line: `"<pid>"` or `"<pid> <start time>"`
    /// (a file's lock has the file's path on a second line).
    pub fn parse(text: &str) -> Option<Holder> {
        let mut fields = text.lines().next()?.split_whitespace();
        let pid = fields.next()?.parse().ok()?;
        let start_time = fields.next().and_then(|s| s.parse().ok());
        Some(Holder { pid, start_time })
    }

    /// This process.
    pub fn me() -> Holder {
        let pid = std::process::id();
        Holder {
            pid,
            start_time: process_start_time(pid),
        }
    }

    /// The lock file's content for this holder.
    pub fn record(&self) -> String {
        match self.start_time {
            Some(start) => format!("{} {start}", self.pid),
            None => self.pid.to_string(),
        }
    }

    /// Whether the recorded process still runs: its pid exists and, when both
    /// are known, its start time is the recorded one (a reused pid is not it).
    pub fn is_running(&self) -> bool {
        if !process_is_alive(self.pid) {
            return false;
        }
        match (self.start_time, process_start_time(self.pid)) {
            (Some(recorded), Some(now)) => recorded == now,
            _ => true,
        }
    }
}

impl WriterLock {
    /// Takes the lock for `session_path`, taking over stale locks.
    ///
    /// # Errors
    ///
    /// [`SessionError::Locked`] (with the holder's pid) when another running focus holds it; an I/O
    /// error when the lock file cannot be created.
    pub fn acquire(session_path: &Path) -> Result<WriterLock, SessionError> {
        let by_name = !session_path.exists();
        let path = lock_path_for(session_path)?;
        WriterLock::acquire_at(session_path, path, by_name)
    }

    /// Once the session file exists: trades the lock of its name for the lock
    /// of the file (see the module documentation). Does nothing when the lock
    /// is already the file's.
    ///
    /// # Errors
    ///
    /// The file's lock is held by another running focus, or cannot be created.
    pub fn settle(&mut self, session_path: &Path) -> Result<(), SessionError> {
        if !self.by_name {
            return Ok(());
        }
        let path = lock_path_for(session_path)?;
        let settled = WriterLock::acquire_at(session_path, path, false)?;
        // Dropping the old value releases the name's lock.
        *self = settled;
        Ok(())
    }

    fn acquire_at(
        session_path: &Path,
        path: PathBuf,
        by_name: bool,
    ) -> Result<WriterLock, SessionError> {
        // The record: who holds the lock, and (a file's lock) which file, by a
        // path to it, so a lock that outlived its file is recognised.
        let identity = (!by_name)
            .then(|| fs::metadata(session_path).ok())
            .flatten()
            .map(|m| (m.dev(), m.ino()));
        let mut me = Holder::me().record();
        if identity.is_some() {
            if let Ok(canonical) = fs::canonicalize(session_path) {
                me.push('\n');
                me.push_str(&canonical.to_string_lossy());
            }
        }
        let locked = |pid| SessionError::Locked {
            path: session_path.to_path_buf(),
            pid,
            lock: path.clone(),
        };
        // The kernel's lock on the file itself, found through every name.
        let flock = match identity {
            Some(_) => match flock_file_once_its_dead_writer_let_go(session_path, &path) {
                Ok(file) => Some(file),
                Err(Some(())) => return Err(locked(holder_pid(&path))),
                Err(None) => None,
            },
            None => None,
        };
        // Attempts for a while: each failed one means another process changed the
        // lock file in between (took over the same stale lock, or released its
        // own). Bounded by time, not by a count: on a loaded machine the process
        // taking over may be descheduled for longer than a few quick attempts,
        // and if every contender gave up meanwhile, nobody would get the lock.
        let deadline = std::time::Instant::now() + TAKEOVER_PATIENCE;
        while std::time::Instant::now() < deadline {
            match create_lock_file(&path, &me) {
                Ok(()) => {
                    return Ok(WriterLock {
                        path,
                        by_name,
                        record: me.clone(),
                        _flock: flock,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let text = fs::read_to_string(&path).ok();
                    match text.as_deref().and_then(Holder::parse) {
                        Some(holder)
                            if holder.is_running()
                                && still_names_the_file(text.as_deref(), identity) =>
                        {
                            return Err(locked(holder.pid))
                        }
                        // The lock went away between the two looks (its holder
                        // released it, or a takeover removed it): try again.
                        // Nothing is removed on the strength of an absence: a
                        // new lock may appear at any moment, without the
                        // takeover guard, and would be the one removed.
                        _ if text.is_none() => {
                            std::thread::sleep(std::time::Duration::from_millis(1))
                        }
                        // A dead holder, a reused pid, a lock whose file is gone
                        // (its inode number now names another file), or an
                        // empty lock (its writer died between creating and
                        // filling it): stale.
                        _ => take_over_stale(&path, text.as_deref())?,
                    }
                }
                Err(e) => return Err(SessionError::io("creating lock file", &path, e)),
            }
        }
        Err(locked(holder_pid(&path)))
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
        let ours = fs::read_to_string(&self.path).is_ok_and(|s| s.trim() == self.record);
        if ours {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// The pid a lock file records (0 when it cannot be read).
fn holder_pid(lock: &Path) -> u32 {
    fs::read_to_string(lock)
        .ok()
        .and_then(|t| Holder::parse(&t))
        .map_or(0, |h| h.pid)
}

/// Opens the session file and takes an exclusive `flock` on it without
/// waiting. `Err(Some(()))`: another open file holds it (another writer, in
/// this process or another); `Err(None)`: the file cannot be opened or locked
/// here (a file system without `flock`): the lock file alone guards then.
fn flock_file(session_path: &Path) -> Result<std::fs::File, Option<()>> {
    let file = fs::File::open(session_path).map_err(|_| None)?;
    match focus_sys::fs::try_lock_exclusive(&file) {
        Ok(true) => Ok(file),
        Ok(false) => Err(Some(())),
        Err(_) => Err(None),
    }
}

/// How long a busy `flock` is waited for when no running writer is recorded
/// (see [`flock_file_once_its_dead_writer_let_go`]).
const DEAD_WRITER_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// [`flock_file`], waiting a little for the lock while the lock file `lock`
/// names no running writer. A writer killed (SIGKILL) right after it forked (a
/// command's jail: processes that run a copy of focus until their `exec`, or
/// until they close what they inherited) leaves them sharing its open file, so
/// its `flock`, for a moment after it died: a `flock` belongs to the open file,
/// which a fork shares, and no flag keeps a descriptor out of a fork. Its lock
/// file is gone by then (swept as dead by [`lock_path_for`]), or names it dead.
/// With a running writer recorded, the answer is immediate; a live writer
/// through a hard link in another directory (its lock file is there) is
/// refused after the wait.
fn flock_file_once_its_dead_writer_let_go(
    session_path: &Path,
    lock: &Path,
) -> Result<std::fs::File, Option<()>> {
    let deadline = std::time::Instant::now() + DEAD_WRITER_PATIENCE;
    loop {
        match flock_file(session_path) {
            Err(Some(())) if std::time::Instant::now() < deadline && !writer_runs(lock) => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            answer => return answer,
        }
    }
}

/// Whether the lock file `lock` names a writer that is running.
fn writer_runs(lock: &Path) -> bool {
    fs::read_to_string(lock)
        .ok()
        .and_then(|text| Holder::parse(&text))
        .is_some_and(|holder| holder.is_running())
}

/// How long [`WriterLock::acquire`] keeps trying while other processes take
/// over the same stale lock.
const TAKEOVER_PATIENCE: std::time::Duration = std::time::Duration::from_secs(3);

/// Whether the path a file's lock record names (its second line) is still the
/// file with `identity`. A lock outlives its file when the file is deleted
/// while its writer runs; the inode number is then reused by an unrelated new
/// file, which must not count as locked. Records without a path (name locks,
/// older versions) are taken at their word.
fn still_names_the_file(record: Option<&str>, identity: Option<(u64, u64)>) -> bool {
    let (Some(record), Some(identity)) = (record, identity) else {
        return true;
    };
    let Some(recorded) = record.lines().nth(1).filter(|l| !l.is_empty()) else {
        return true;
    };
    fs::metadata(recorded).is_ok_and(|m| (m.dev(), m.ino()) == identity)
}

/// The lock file of the session file at `session_path`, in the file's own
/// directory (resolved): `.<dev>-<ino>.lock` after its device and inode, or,
/// while the file does not exist, `.new-<name>.lock` after its name.
///
/// # Errors
///
/// When the directory cannot be resolved.
pub fn lock_path_for(session_path: &Path) -> Result<PathBuf, SessionError> {
    let (dir, name) = match fs::metadata(session_path) {
        Ok(meta) => {
            let real = fs::canonicalize(session_path)
                .map_err(|e| SessionError::io("resolving", session_path, e))?;
            let dir = real
                .parent()
                .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
            (dir, format!(".{}-{}.lock", meta.dev(), meta.ino()))
        }
        Err(_) => {
            let parent = match session_path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let dir =
                fs::canonicalize(parent).map_err(|e| SessionError::io("reading", parent, e))?;
            let file_name = session_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let safe: String = file_name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(160)
                .collect();
            (dir, format!(".new-{safe}.lock"))
        }
    };
    if focus_sys::stamp::due(&dir.join(LOCKS_SWEPT), SWEEP_LOCKS_EVERY) {
        sweep_dead_locks(&dir);
    }
    Ok(dir.join(name))
}

/// The stamp of the last [`sweep_dead_locks`] in a session directory.
const LOCKS_SWEPT: &str = ".locks-swept";

/// How often a session directory is looked through for dead writers' locks:
/// the listing reads every file name of the folder, which hundreds of batch
/// runs sharing one folder would otherwise each repeat (twice).
const SWEEP_LOCKS_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the locks in `dir` (a session directory) whose holder no longer
/// runs (focus killed before it could remove its lock), so they do not pile up
/// beside the sessions; done when a lock is looked up there and the last sweep
/// of the folder is a minute old ([`LOCKS_SWEPT`]: a dead writer's lock never
/// stops anyone, the lock of a session being opened is taken over there and
/// then). Each goes through `take_over_stale`, which never removes a lock
/// another process has just taken.
fn sweep_dead_locks(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // Only focus's own lock files: a session directory given with
        // `--session` may hold other programs' `.lock` files.
        let name = entry.file_name();
        if !is_focus_lock_name(&name.to_string_lossy()) {
            continue;
        }
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        if Holder::parse(&text).is_some_and(|h| !h.is_running()) {
            let _ = take_over_stale(&path, Some(&text));
        }
    }
}

/// Whether `name` is one of the lock files [`lock_path_for`] makes:
/// `.<dev>-<ino>.lock` or `.new-<name>.lock`.
fn is_focus_lock_name(name: &str) -> bool {
    let Some(stem) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".lock")) else {
        return false;
    };
    if stem.starts_with("new-") {
        return true;
    }
    let numbers = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    stem.split_once('-')
        .is_some_and(|(dev, ino)| numbers(dev) && numbers(ino))
}

/// Creates the lock file holding `record`, atomically *with* its content: the
/// record is written to a private temporary file which is then hard-linked to
/// the lock's name (fails if the name exists, like `create_new`). Creating the
/// lock empty and writing the record after would let another process read an
/// empty lock in between and judge it stale. Where hard links are not
/// supported, falls back to `create_new` and a write.
///
/// # Errors
///
/// `AlreadyExists` when the lock is taken; the system's error when the temporary file or the lock
/// cannot be written.
pub fn create_lock_file(path: &Path, record: &str) -> std::io::Result<()> {
    // A fresh `RandomState` has fresh keys: a new number for each attempt.
    let attempt = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".{}-{attempt:x}.tmp", std::process::id()));
    let temporary = PathBuf::from(temporary);
    focus_sys::private_files::write(&temporary, record)?;
    let linked = fs::hard_link(&temporary, path);
    let _ = fs::remove_file(&temporary);
    match linked {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
            let mut file = focus_sys::private_files::options()
                .write(true)
                .create_new(true)
                .open(path)?;
            file.write_all(record.as_bytes())
        }
        other => other,
    }
}

/// Removes a stale lock without ever removing a fresh one.
///
/// Only the process holding `<lock>.takeover` (created with `create_new`, so one at
/// a time) may remove a lock file, and it removes it only after re-reading that it
/// still holds the stale record. Nobody else can replace the stale file meanwhile
/// (`create_new` fails while it exists), so the file removed is the stale one.
/// A takeover file left by a process that died mid-takeover is ignored after a few
/// seconds.
fn take_over_stale(path: &Path, stale: Option<&str>) -> Result<(), SessionError> {
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
    // Only a lock still holding the stale record is removed; an absent one is
    // left to whoever creates it next (see `acquire_at`).
    if stale.is_some() && fs::read_to_string(path).ok().as_deref() == stale {
        let _ = fs::remove_file(path);
    }
    let _ = fs::remove_file(&guard);
    Ok(())
}

/// Whether a process with this id exists (`kill(pid, 0)`, through focus-sys).
pub fn process_is_alive(pid: u32) -> bool {
    focus_sys::process::exists(pid)
}

/// A process's start time in clock ticks since boot: field 22 of
/// `/proc/<pid>/stat` (Linux); `None` elsewhere or when it cannot be read.
pub fn process_start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_start_time(&stat)
}

/// Field 22 of a `/proc/<pid>/stat` line. The second field, the command name
/// in parentheses, may itself hold spaces and parentheses, so fields are
/// counted from the *last* `)`: the next field there is field 3.
fn parse_start_time(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(22 - 3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_time_is_field_22_even_with_a_hostile_command_name() {
        let stat = "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 \
                    12345 67 18446744073709551615";
        assert_eq!(parse_start_time(stat), Some(987_654));
        assert_eq!(parse_start_time("garbage"), None);
        let me = process_start_time(std::process::id());
        if Path::new("/proc/self/stat").exists() {
            assert!(me.is_some());
        }
    }

    #[test]
    fn only_focus_lock_names_are_swept() {
        assert!(is_focus_lock_name(".2049-131.lock"));
        assert!(is_focus_lock_name(".new-2026_s.jsonl.lock"));
        for other in [
            "pid.lock",
            "Cargo.lock",
            ".x-1.lock",
            ".2049-131.lock.tmp",
            ".lock",
        ] {
            assert!(!is_focus_lock_name(other), "{other}");
        }
    }

    #[test]
    fn records_round_trip_and_old_pid_only_locks_still_parse() {
        let holder = Holder {
            pid: 12,
            start_time: Some(34),
        };
        assert_eq!(Holder::parse(&holder.record()), Some(holder));
        assert_eq!(
            Holder::parse("77\n"),
            Some(Holder {
                pid: 77,
                start_time: None
            })
        );
        assert_eq!(Holder::parse(""), None);
    }
}
