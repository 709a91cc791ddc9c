//! Two writers on one session: the second is refused and told who holds it; a lock
//! left by a dead process is taken over.

use crate::support::{user, Scratch};
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
        message.contains(&format!("pid {}", std::process::id())),
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
fn lock_held_by_another_live_process_then_stale_after_it_dies() {
    let scratch = Scratch::new("lock2");
    let path = scratch.path().join("s.jsonl");
    let lock_path = scratch.path().join("s.jsonl.lock");
    let mut other = Command::new("sleep").arg("30").spawn().unwrap();
    std::fs::write(&lock_path, other.id().to_string()).unwrap();
    match SessionManager::open(&path) {
        Err(SessionError::Locked { pid, .. }) => assert_eq!(pid, other.id()),
        other => panic!("expected Locked, got {other:?}"),
    }
    other.kill().unwrap();
    other.wait().unwrap();
    let mut session = SessionManager::open(&path).expect("stale lock is taken over");
    session.append_message(&user("mine now")).unwrap();
    assert_eq!(
        std::fs::read_to_string(&lock_path).unwrap(),
        std::process::id().to_string()
    );
    drop(session);
    assert!(!lock_path.exists(), "lock removed when the writer closes");
}

#[test]
fn racing_takeovers_of_one_stale_lock_leave_exactly_one_writer() {
    let scratch = Scratch::new("lock-race");
    let path = scratch.path().join("s.jsonl");
    let lock_path = scratch.path().join("s.jsonl.lock");
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
