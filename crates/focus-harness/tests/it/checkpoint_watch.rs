//! The tracker's watched path: after a change only the folders with inotify
//! events are listed, and what they hold is recorded exactly as a walk would
//! (a nested write, a folder moved within the project and then written in, a
//! folder created with content); an ignore file that changes makes the next
//! look a whole walk, said once, and so does an overflowed event queue; with
//! watching off every look is a walk.

use super::checkpoint_support::Tracked;
use super::support::Scratch;
use focus_harness::checkpoint::tracker::WATCH_FROM;
use focus_harness::checkpoint::Manifest;
use std::path::Path;

fn paths(manifest: &Manifest) -> Vec<String> {
    manifest
        .changes
        .iter()
        .map(|c| {
            let what = match (&c.before, &c.after) {
                (None, Some(_)) => "+",
                (Some(_), None) => "-",
                _ => "~",
            };
            format!("{what}{}", c.path.display())
        })
        .collect()
}

fn project(root: &Path) {
    for dir in ["a/b/c", "d", "e"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    for file in ["a/b/c/deep.txt", "a/top.txt", "d/one.txt", "e/two.txt"] {
        std::fs::write(root.join(file), file).unwrap();
    }
}

#[test]
fn only_folders_with_events_are_listed_and_their_changes_are_exact() {
    let project_dir = Scratch::new("watch-project");
    let sessions = Scratch::new("watch-sessions");
    let root = project_dir.path();
    project(root);
    let mut t = Tracked::new(root, sessions.path());
    t.tracker.baseline().unwrap();
    if !t.tracker.is_watching() {
        // inotify missing (not Linux, or no instance left): the walk is tested elsewhere.
        focus_testkit::skipped(&format!(
            "inotify unavailable: {:?}",
            t.tracker.take_notices()
        ));
        return;
    }
    std::fs::write(root.join("a/b/c/deep.txt"), "changed").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~a/b/c/deep.txt"]);
    assert_eq!(t.tracker.last_walk.dirs, 1, "{:?}", t.tracker.last_walk);

    // A folder moved within the project keeps being watched under its new name.
    std::fs::rename(root.join("a/b"), root.join("d/moved")).unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(
        paths(&m),
        [
            "-a/b",
            "-a/b/c",
            "-a/b/c/deep.txt",
            "+d/moved",
            "+d/moved/c",
            "+d/moved/c/deep.txt"
        ]
    );
    std::fs::write(root.join("d/moved/c/deep.txt"), "again").unwrap();
    std::fs::write(root.join("d/moved/c/new.txt"), "new").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~d/moved/c/deep.txt", "+d/moved/c/new.txt"]);

    // A folder made with content in one go, then a file deleted in it.
    std::fs::create_dir_all(root.join("f/g")).unwrap();
    std::fs::write(root.join("f/g/h.txt"), "h").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["+f", "+f/g", "+f/g/h.txt"]);
    std::fs::remove_file(root.join("f/g/h.txt")).unwrap();
    std::fs::set_permissions(
        root.join("e/two.txt"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~e/two.txt", "-f/g/h.txt"]);
    assert_eq!(t.tracker.last_walk.dirs, 2, "{:?}", t.tracker.last_walk);

    // A folder deleted and made again under the same name: its new content
    // is watched too.
    std::fs::remove_dir_all(root.join("f")).unwrap();
    std::fs::create_dir_all(root.join("f/k")).unwrap();
    std::fs::write(root.join("f/new.txt"), "n").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["-f/g", "+f/k", "+f/new.txt"]);
    std::fs::write(root.join("f/new.txt"), "changed").unwrap();
    std::fs::write(root.join("f/k/deeper.txt"), "d").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["+f/k/deeper.txt", "~f/new.txt"]);

    // Nothing changed: nothing listed.
    let m = t.tracker.record_walk().unwrap();
    assert!(m.changes.is_empty());
    assert_eq!(t.tracker.last_walk.dirs, 0);
    assert!(t.tracker.take_notices().is_empty());

    // An ignore file changed: what is tracked may differ, so a whole walk, said once.
    std::fs::write(root.join(".ignore"), "nothing\n").unwrap();
    std::fs::write(root.join("e/two.txt"), "two, changed").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["+.ignore", "~e/two.txt"]);
    assert!(t.tracker.last_walk.paths >= 10, "{:?}", t.tracker.last_walk);
    let notices = t.tracker.take_notices();
    assert!(
        notices.len() == 1 && notices[0].contains("ignore file"),
        "{notices:?}"
    );
    assert!(t.tracker.is_watching(), "watching resumes after the walk");
    std::fs::write(root.join("d/one.txt"), "one, changed").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~d/one.txt"]);
    assert_eq!(t.tracker.last_walk.dirs, 1);
}

#[test]
fn with_watching_off_every_look_walks_the_whole_project() {
    let project_dir = Scratch::new("walk-project");
    let sessions = Scratch::new("walk-sessions");
    let root = project_dir.path();
    project(root);
    let mut t = Tracked::new(root, sessions.path());
    t.tracker.set_watching(false);
    t.tracker.baseline().unwrap();
    assert!(!t.tracker.is_watching());
    std::fs::write(root.join("a/b/c/deep.txt"), "changed").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~a/b/c/deep.txt"]);
    assert_eq!(t.tracker.last_walk.dirs, 0);
    assert_eq!(t.tracker.last_walk.paths, 9);
}

#[test]
fn an_overflowed_event_queue_makes_one_whole_walk_said_once() {
    let project_dir = Scratch::new("overflow-project");
    let sessions = Scratch::new("overflow-sessions");
    let root = project_dir.path();
    project(root);
    let mut t = Tracked::new(root, sessions.path());
    t.tracker.baseline().unwrap();
    if !t.tracker.is_watching() {
        focus_testkit::skipped(&format!(
            "inotify unavailable: {:?}",
            t.tracker.take_notices()
        ));
        return;
    }
    let queued: usize = std::fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(16_384);
    // Alternating writes to two files: the kernel merges only an event equal
    // to the last one queued, so each write queues one.
    use std::io::Write;
    let mut one = std::fs::OpenOptions::new()
        .append(true)
        .open(root.join("d/one.txt"))
        .unwrap();
    let mut two = std::fs::OpenOptions::new()
        .append(true)
        .open(root.join("e/two.txt"))
        .unwrap();
    for _ in 0..queued / 2 + 10 {
        one.write_all(b"1").unwrap();
        two.write_all(b"2").unwrap();
    }
    drop((one, two));
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~d/one.txt", "~e/two.txt"]);
    assert_eq!(t.tracker.last_walk.dirs, 0, "a whole walk");
    let notices = t.tracker.take_notices();
    assert!(
        notices.len() == 1 && notices[0].contains("overflowed"),
        "{notices:?}"
    );
    assert!(t.tracker.is_watching());
    std::fs::write(root.join("a/top.txt"), "after").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~a/top.txt"]);
    assert_eq!(t.tracker.last_walk.dirs, 1);
}

#[test]
fn a_small_project_is_walked_at_each_look_not_watched() {
    let project_dir = Scratch::new("small-project");
    let sessions = Scratch::new("small-sessions");
    let root = project_dir.path();
    project(root);
    let mut t = Tracked::new(root, sessions.path());
    t.tracker.set_watch_from(WATCH_FROM);
    t.tracker.baseline().unwrap();
    assert!(!t.tracker.is_watching(), "9 paths: below {WATCH_FROM}");
    assert!(
        t.tracker.take_notices().is_empty(),
        "not a fallback to tell"
    );
    std::fs::write(root.join("e/two.txt"), "changed").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~e/two.txt"]);
    assert_eq!(t.tracker.last_walk.dirs, 0, "a whole walk");
}

#[test]
fn watching_that_starts_part_way_lists_the_folders_met_before_once_more() {
    let project_dir = Scratch::new("partway-project");
    let sessions = Scratch::new("partway-sessions");
    let root = project_dir.path();
    project(root);
    let mut t = Tracked::new(root, sessions.path());
    t.tracker.set_watch_from(4);
    t.tracker.baseline().unwrap();
    if !t.tracker.is_watching() {
        focus_testkit::skipped(&format!(
            "inotify unavailable: {:?}",
            t.tracker.take_notices()
        ));
        return;
    }
    // Changed after the walk: seen whether its folder was met before the
    // watcher started (listed again now) or after (an event).
    std::fs::write(root.join("a/b/c/deep.txt"), "changed").unwrap();
    std::fs::write(root.join("e/two.txt"), "changed").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~a/b/c/deep.txt", "~e/two.txt"]);
    assert!(t.tracker.last_walk.dirs > 0, "{:?}", t.tracker.last_walk);
    // From then on only the folders with events.
    std::fs::write(root.join("d/one.txt"), "changed").unwrap();
    let m = t.tracker.record_walk().unwrap();
    assert_eq!(paths(&m), ["~d/one.txt"]);
    assert_eq!(t.tracker.last_walk.dirs, 1, "{:?}", t.tracker.last_walk);
}
