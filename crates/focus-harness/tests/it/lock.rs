//! Two writers on one session: the second is refused and told who holds it; a lock
//! left by a dead process is taken over.

use crate::support::{user, Scratch};
use focus_harness::session::lock::{lock_path_for, process_start_time, Holder};
use focus_harness::session::{SessionError, SessionManager, SessionStore};
use std::path::Path;
use std::process::Command;

#[test]
fn second_writer_is_refused_with_the_holder_pid() {
    let scratch = Scratch::new("lock");
    let store = SessionStore::new(scratch.path());
    let mut first = SessionManager::create(&store, Path::new("/p")).unwrap();
    first.append_message(&user("hello")).unwrap();
    let path = first.path().unwrap().to_path_buf();
    match SessionManager::open(&path) {
        Err(SessionError::Locked { pid, .. }) => assert_eq!(pid, std::process::id()),
        other => panic!("expected Locked, got {other:?}"),
    }
    let message = SessionManager::open(&path).unwrap_err().to_string();
    assert!(
        message.contains(&format!("focus process {}", std::process::id())),
        "{message}"
    );
    // Readers are never blocked.
    assert_eq!(
        SessionManager::open_read_only(&path)
            .unwrap()
            .tree()
            .entries()
            .len(),
        1
    );
    drop(first);
    let mut second = SessionManager::open(&path).unwrap();
    second.append_message(&user("again")).unwrap();
}

#[test]
fn the_lock_is_beside_the_session_file_whatever_tmpdir_is() {
    let scratch = Scratch::new("lock-beside");
    let store = SessionStore::new(scratch.path());
    let mut first = SessionManager::create(&store, Path::new("/p")).unwrap();
    first.append_message(&user("hello")).unwrap();
    let path = std::fs::canonicalize(first.path().unwrap()).unwrap();
    let lock = lock_path_for(&path).unwrap();
    assert_eq!(lock.parent(), path.parent());
    assert!(lock.exists(), "held while the writer is open");
    assert!(!lock.starts_with(std::env::temp_dir().join("focus-locks")));
    // Not yet created: the name's lock is beside it too.
    let new = scratch.path().join("new.jsonl");
    let name_lock = lock_path_for(&new).unwrap();
    assert_eq!(
        name_lock.parent(),
        Some(std::fs::canonicalize(scratch.path()).unwrap().as_path())
    );
}

#[test]
fn lock_held_by_another_live_process_then_stale_after_it_dies() {
    let scratch = Scratch::new("lock2");
    let path = scratch.path().join("s.jsonl");
    let lock_path = lock_path_for(&path).unwrap();
    let mut other = Command::new("sleep").arg("30").spawn().unwrap();
    std::fs::write(&lock_path, other.id().to_string()).unwrap();
    match SessionManager::open(&path) {
        Err(SessionError::Locked { pid, .. }) => assert_eq!(pid, other.id()),
        other => panic!("expected Locked, got {other:?}"),
    }
    other.kill().unwrap();
    other.wait().unwrap();
    let mut session = SessionManager::open(&path).expect("stale lock is taken over");
    assert_eq!(
        std::fs::read_to_string(&lock_path).unwrap(),
        Holder::me().record()
    );
    session.append_message(&user("mine now")).unwrap();
    // The file exists now: its lock is the file's own, the name's is released.
    let file_lock = lock_path_for(&path).unwrap();
    assert_ne!(file_lock, lock_path);
    assert!(!lock_path.exists());
    let record = std::fs::read_to_string(&file_lock).unwrap();
    assert_eq!(record.lines().next(), Some(Holder::me().record().as_str()));
    assert_eq!(
        record.lines().nth(1).map(std::path::PathBuf::from),
        Some(std::fs::canonicalize(&path).unwrap()),
        "a file's lock names the file"
    );
    drop(session);
    assert!(!file_lock.exists(), "lock removed when the writer closes");
}

#[test]
fn racing_takeovers_of_one_stale_lock_leave_exactly_one_writer() {
    let scratch = Scratch::new("lock-race");
    let path = scratch.path().join("s.jsonl");
    let lock_path = lock_path_for(&path).unwrap();
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    for _ in 0..20 {
        std::fs::write(&lock_path, dead_pid.to_string()).unwrap();
        let barrier = std::sync::Barrier::new(6);
        let winners: Vec<SessionManager> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..6)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        SessionManager::open(&path)
                    })
                })
                .collect();
            handles
                .into_iter()
                .filter_map(|h| match h.join().unwrap() {
                    Ok(session) => Some(session),
                    Err(SessionError::Locked { pid, .. }) => {
                        assert_eq!(pid, std::process::id());
                        None
                    }
                    Err(other) => panic!("unexpected error: {other}"),
                })
                .collect()
        });
        assert_eq!(winners.len(), 1, "exactly one writer");
        drop(winners);
        assert!(!lock_path.exists());
    }
}

#[test]
fn a_session_opened_through_a_symlink_or_a_hard_link_has_one_writer() {
    let scratch = Scratch::new("lock-links");
    let store = SessionStore::new(scratch.path());
    let mut first = SessionManager::create(&store, Path::new("/p")).unwrap();
    first.append_message(&user("hello")).unwrap();
    let path = first.path().unwrap().to_path_buf();
    let hard = scratch.path().join("hard-link.jsonl");
    let soft = scratch.path().join("symlink.jsonl");
    std::fs::hard_link(&path, &hard).unwrap();
    std::os::unix::fs::symlink(&path, &soft).unwrap();
    // The symbolic link resolves to the file's own directory and lock file;
    // the hard link lives in another directory, where the kernel's lock on
    // the file (flock) refuses it.
    match SessionManager::open(&soft) {
        Err(SessionError::Locked { pid, lock, .. }) => {
            assert_eq!(pid, std::process::id());
            assert_eq!(lock, lock_path_for(&path).unwrap());
        }
        other => panic!("symlink: expected Locked, got {other:?}"),
    }
    assert_ne!(hard.parent(), path.parent(), "the hard link is elsewhere");
    match SessionManager::open(&hard) {
        Err(e @ SessionError::Locked { .. }) => assert!(
            e.to_string().contains("another name of the same file"),
            "{e}"
        ),
        other => panic!("hard link: expected Locked, got {other:?}"),
    }
    drop(first);
    let mut second = SessionManager::open(&hard).expect("free once the first writer is gone");
    second
        .append_message(&user("through the hard link"))
        .unwrap();
    assert!(matches!(
        SessionManager::open(&soft),
        Err(SessionError::Locked { .. })
    ));
}

#[test]
fn a_lock_whose_pid_was_reused_is_stale_and_the_message_names_the_lock_file() {
    let scratch = Scratch::new("lock-reuse");
    let path = scratch.path().join("s.jsonl");
    let lock_path = lock_path_for(&path).unwrap();
    // A live process with the recorded pid, but not the one that took the lock:
    // its start time differs.
    let mut other = Command::new("sleep").arg("30").spawn().unwrap();
    let Some(start) = process_start_time(other.id()) else {
        other.kill().unwrap();
        other.wait().unwrap();
        eprintln!("skipped: no /proc/<pid>/stat here");
        return;
    };
    let holder = Holder {
        pid: other.id(),
        start_time: Some(start),
    };
    std::fs::write(&lock_path, holder.record()).unwrap();
    let message = match SessionManager::open(&path) {
        Err(e @ SessionError::Locked { .. }) => e.to_string(),
        other => panic!("expected Locked, got {other:?}"),
    };
    assert!(
        message.contains(&format!("focus process {}", other.id())),
        "{message}"
    );
    assert!(
        message.contains(&format!("rm {}", lock_path.display())),
        "{message}"
    );

    let reused = Holder {
        pid: other.id(),
        start_time: Some(start + 1),
    };
    std::fs::write(&lock_path, reused.record()).unwrap();
    let mut session = SessionManager::open(&path).expect("a reused pid's lock is stale");
    session.append_message(&user("mine")).unwrap();
    other.kill().unwrap();
    other.wait().unwrap();
}

#[test]
fn a_lock_that_outlived_its_file_does_not_lock_the_file_reusing_its_inode() {
    // A writer still runs but its file was deleted; the inode number then names
    // an unrelated new file, whose lock file name is the same.
    let scratch = Scratch::new("lock-outlived");
    let path = scratch.path().join("new.jsonl");
    std::fs::write(&path, "").unwrap();
    let lock_path = lock_path_for(&path).unwrap();
    let mut other = Command::new("sleep").arg("30").spawn().unwrap();
    let holder = Holder {
        pid: other.id(),
        start_time: process_start_time(other.id()),
    };
    let gone = scratch.path().join("deleted-long-ago.jsonl");
    std::fs::write(
        &lock_path,
        format!("{}\n{}", holder.record(), gone.display()),
    )
    .unwrap();
    let mut session = SessionManager::open(&path).expect("the lock was for another file");
    session.append_message(&user("mine")).unwrap();
    drop(session);
    // The same record naming this very file does lock it.
    let here = std::fs::canonicalize(&path).unwrap();
    std::fs::write(
        &lock_path,
        format!("{}\n{}", holder.record(), here.display()),
    )
    .unwrap();
    assert!(matches!(
        SessionManager::open(&path),
        Err(SessionError::Locked { .. })
    ));
    other.kill().unwrap();
    other.wait().unwrap();
    let _ = std::fs::remove_file(&lock_path);
}

/// A writer killed right after it forked (a command's jail, before its `exec`)
/// leaves its children sharing its open session file, and so its `flock`, for
/// a moment: the next writer waits for them to let go, instead of saying the
/// session is being written by the dead writer.
#[test]
fn a_dead_writers_flock_still_held_by_its_forked_children_is_waited_for() {
    let scratch = Scratch::new("lock-orphans");
    let store = SessionStore::new(scratch.path());
    let mut first = SessionManager::create(&store, Path::new("/p")).unwrap();
    first.append_message(&user("hello")).unwrap();
    let path = first.path().unwrap().to_path_buf();
    drop(first);
    // The dead writer's record, and its open file, locked (what the children hold).
    let lock_path = lock_path_for(&path).unwrap();
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    std::fs::write(&lock_path, dead_pid.to_string()).unwrap();
    let children = std::fs::File::open(&path).unwrap();
    assert!(focus_sys::fs::try_lock_exclusive(&children).unwrap());
    let exec = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(children);
    });
    let mut session = SessionManager::open(&path).expect("the dead writer's lock is taken over");
    session.append_message(&user("mine now")).unwrap();
    exec.join().unwrap();
    let record = std::fs::read_to_string(&lock_path).unwrap();
    assert_eq!(record.lines().next(), Some(Holder::me().record().as_str()));
}
