//! `focus sessions gc`: a closed session's oldest checkpoints go first when
//! the store is over its cap, content nothing names any more is removed, and
//! nothing is removed while a session of the folder is being written.

use super::checkpoint_support::Tracked;
use super::support::{user, Scratch};
use focus_harness::checkpoint::prune::{gc, gc_running};
use focus_harness::checkpoint::FileHistory;
use focus_harness::session::SessionManager;
use std::path::PathBuf;

#[test]
fn the_oldest_checkpoints_of_closed_sessions_are_pruned_first() {
    let project = Scratch::new("gc-project");
    let sessions = Scratch::new("gc-sessions");
    let root = project.path();
    let mut t = Tracked::new(root, sessions.path());
    t.prompt_checkpoint();
    t.manager.append_message(&user("go")).unwrap();
    for round in 0..3 {
        let path = vec![PathBuf::from(format!("f{round}"))];
        t.tracker.prepare_paths(&path).unwrap();
        std::fs::write(root.join(&path[0]), vec![b'x'; 1000 + round]).unwrap();
        let m = t.tracker.record_paths(&path).unwrap();
        t.save(&m, "tool");
    }
    let session = t.manager.path().unwrap().to_path_buf();
    // Open: nothing is pruned or removed.
    let open = gc(sessions.path(), u64::MAX, 0);
    assert_eq!((open.pruned, open.blobs_removed), (0, 0), "{open:?}");
    assert_eq!(open.open_sessions, 1);
    drop(t);
    // Closed, over a cap of 2,100 bytes: the oldest checkpoint goes.
    let report = gc(sessions.path(), u64::MAX, 2_100);
    assert_eq!(report.pruned, 1, "{report:?}");
    assert_eq!(report.blobs_removed, 1, "{report:?}");
    assert!(report.bytes_kept <= 2_100, "{report:?}");
    let manager = SessionManager::open_read_only(&session).unwrap();
    let store = focus_harness::checkpoint::CheckpointStore::in_session_dir(sessions.path());
    let history = FileHistory::load(manager.tree(), &store.manifests);
    assert_eq!(history.records.len(), 2);
    assert_eq!(
        history.missing.len(),
        1,
        "the pruned one is reported missing"
    );
}

#[test]
fn a_running_session_sweeps_closed_ones_and_keeps_what_its_tracker_holds() {
    let project = Scratch::new("gc-running-project");
    let sessions = Scratch::new("gc-running-sessions");
    let root = project.path();
    std::fs::write(root.join("kept.txt"), vec![b'k'; 500]).unwrap();
    // A closed session that changed one file three times.
    let mut closed = Tracked::new(root, sessions.path());
    closed.prompt_checkpoint();
    closed.manager.append_message(&user("go")).unwrap();
    let path = vec![PathBuf::from("f")];
    for round in 0..3 {
        closed.tracker.prepare_paths(&path).unwrap();
        std::fs::write(root.join("f"), vec![b'x'; 1000 + round]).unwrap();
        let m = closed.tracker.record_paths(&path).unwrap();
        closed.save(&m, "tool");
    }
    drop(closed);
    std::fs::remove_file(root.join("f")).unwrap();
    // A running session whose tracker took its baseline (no manifest names it).
    let running = Tracked::new(root, sessions.path());
    let own = running.manager.path().unwrap().to_path_buf();
    let tracker = std::sync::Mutex::new(running.tracker);
    tracker.lock().unwrap().baseline().unwrap();
    let report = gc_running(sessions.path(), u64::MAX, 2_100, &own, &tracker);
    // Versions of 1,000, 1,001 and 1,002 bytes: the two oldest checkpoints go
    // (the second still names the first version), and with them the first
    // version; kept.txt's 500 bytes stay, held by the running tracker alone.
    assert_eq!(report.pruned, 2, "{report:?}");
    assert_eq!(
        report.open_sessions, 0,
        "the running session does not block"
    );
    assert_eq!(
        (report.blobs_removed, report.bytes_freed),
        (1, 1000),
        "{report:?}"
    );
    assert_eq!(report.bytes_kept, 1001 + 1002 + 500, "{report:?}");
    let store = focus_harness::checkpoint::CheckpointStore::in_session_dir(sessions.path());
    let guard = tracker.lock().unwrap();
    for (_, node) in guard.state() {
        if let focus_harness::checkpoint::Node::File { blob, .. } = node {
            assert!(store.blobs.has(blob), "the running baseline lost {blob}");
        }
    }
}
