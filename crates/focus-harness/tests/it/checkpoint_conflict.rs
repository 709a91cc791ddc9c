//! A file changed outside focus since focus recorded it is never overwritten
//! by a rewind without `force`: it is reported with a diff and skipped, and
//! the rest of the rewind still happens.

use super::checkpoint_support::Tracked;
use super::support::{user, Scratch};
use focus_harness::checkpoint::{rewind_files, RewindRequest};
use std::path::PathBuf;

#[test]
fn a_file_changed_outside_focus_is_skipped_unless_forced() {
    let project = Scratch::new("conflict-project");
    let sessions = Scratch::new("conflict-sessions");
    let root = project.path();
    std::fs::write(root.join("kept.txt"), "one\n").unwrap();
    std::fs::write(root.join("other.txt"), "first\n").unwrap();
    let mut t = Tracked::new(root, sessions.path());
    t.prompt_checkpoint();
    let before_prompt = t.manager.leaf_id().map(str::to_string);
    t.manager.append_message(&user("change them")).unwrap();
    for (name, text) in [("kept.txt", "two\n"), ("other.txt", "second\n")] {
        let path = vec![PathBuf::from(name)];
        t.tracker.prepare_paths(&path).unwrap();
        std::fs::write(root.join(name), text).unwrap();
        let m = t.tracker.record_paths(&path).unwrap();
        t.save(&m, "tool");
    }
    // The user edits one of them in an editor; focus does not know.
    std::fs::write(root.join("kept.txt"), "two\nthe user's line\n").unwrap();
    let request = |force, dry_run| RewindRequest {
        root,
        store: &t.store,
        target: before_prompt.as_deref(),
        force,
        dry_run,
    };
    let dry = rewind_files(&mut t.manager, request(false, true)).unwrap();
    let lines = dry.plan.describe().join("\n");
    assert!(lines.contains("write other.txt (6 bytes, mode "), "{lines}");
    assert!(lines.contains("skip (changed outside focus"), "{lines}");
    assert!(lines.contains("+ the user's line"), "{lines}");
    assert_eq!(
        std::fs::read_to_string(root.join("other.txt")).unwrap(),
        "second\n"
    );

    let report = rewind_files(&mut t.manager, request(false, false)).unwrap();
    assert_eq!(report.plan.conflicts.len(), 1);
    assert_eq!(
        std::fs::read_to_string(root.join("kept.txt")).unwrap(),
        "two\nthe user's line\n",
        "the user's change was overwritten without --force"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("other.txt")).unwrap(),
        "first\n"
    );

    let forced = rewind_files(&mut t.manager, request(true, false)).unwrap();
    assert_eq!(forced.plan.conflicts.len(), 1);
    assert_eq!(
        std::fs::read_to_string(root.join("kept.txt")).unwrap(),
        "one\n"
    );
}

#[test]
fn a_symlink_planted_on_the_way_is_never_followed_by_a_restore() {
    let project = Scratch::new("planted-project");
    let outside = Scratch::new("planted-outside");
    let sessions = Scratch::new("planted-sessions");
    let root = project.path();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/f"), "old\n").unwrap();
    let mut t = Tracked::new(root, sessions.path());
    t.prompt_checkpoint();
    let start = t.manager.leaf_id().map(str::to_string);
    t.manager.append_message(&user("go")).unwrap();
    std::fs::write(root.join("sub/f"), "new\n").unwrap();
    t.prompt_checkpoint();
    // Someone swaps the folder for a link to a place outside the project.
    std::fs::remove_dir_all(root.join("sub")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("sub")).unwrap();
    let report = rewind_files(
        &mut t.manager,
        RewindRequest {
            root,
            store: &t.store,
            target: start.as_deref(),
            force: true,
            dry_run: false,
        },
    )
    .unwrap();
    assert!(!report.failures.is_empty() || !report.plan.conflicts.is_empty());
    assert!(
        std::fs::read_dir(outside.path()).unwrap().next().is_none(),
        "a restore wrote outside the project"
    );
}
