//! Write where you checked. First deterministically: a path is checked and its
//! directory opened, then swapped to point outside, and the file still lands
//! in the checked directory; a link planted on a checked path is refused.
//! Then under stress: a background thread points `project/sub` (a symbolic
//! link, replaced atomically) inside and outside the project by turns while
//! `write`, `read` and `edit` work through it, 500 times each at least. The issue saw 8
//! of 150 writes land outside; none may now. A naive check-then-write loop runs
//! against the same flipper first and its escapes are reported (not asserted:
//! on a loaded machine the two threads may not overlap). The tools share one
//! `ToolState` with the project's sandbox.

use crate::support::common::{call, tool_in, TempTree};
use focus_core::json_object;
use focus_tools::sandbox::{Sandbox, SandboxSettings};
use focus_tools::ToolState;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Attempts per tool, at least.
const ATTEMPTS: usize = 500;

/// Flips of the link the tool calls must have raced, at least.
const MIN_FLIPS: usize = 100;

/// How long the calls may go on past [`ATTEMPTS`] for the race to happen.
const RACE_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

/// Points `project/sub` (a symbolic link, replaced atomically by rename) at
/// `project/.real` and at `outside` by turns until `stop`; counts the flips.
fn flipper(
    project: &Path,
    outside: &Path,
    stop: Arc<AtomicBool>,
    flips: Arc<AtomicUsize>,
) -> std::thread::JoinHandle<()> {
    let (project, outside) = (project.to_path_buf(), outside.to_path_buf());
    std::thread::spawn(move || {
        let (sub, spare) = (project.join("sub"), project.join(".flip"));
        let targets = [project.join(".real"), outside];
        while !stop.load(Ordering::Relaxed) {
            for target in &targets {
                let _ = std::fs::remove_file(&spare);
                if std::os::unix::fs::symlink(target, &spare).is_ok()
                    && std::fs::rename(&spare, &sub).is_ok()
                {
                    flips.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    })
}

/// What a tool did before: check the resolved path, then write by the path.
/// Run against the same flipper, it shows the race is real on this machine.
fn naive_check_then_write(project: &Path, relative: &str) {
    let path = project.join(relative);
    let resolved = focus_tools::sandbox::resolve_existing(&path);
    if resolved.starts_with(project) {
        let _ = std::fs::write(&path, "x");
    }
}

#[test]
fn a_symlink_flipper_never_gets_a_write_out() {
    let tree = TempTree::new("races");
    tree.mkdir("project/.real");
    tree.mkdir("outside");
    tree.mkdir("tmp");
    tree.write("project/.real/e.txt", "original\n");
    tree.write("outside/e.txt", "original\n");
    std::os::unix::fs::symlink(".real", tree.path("project/sub")).unwrap();
    let project = tree.path("project");
    let sandbox =
        Sandbox::with_temp_base(&SandboxSettings::default(), &project, &tree.path("tmp")).unwrap();
    let state = ToolState::new(Arc::new(sandbox));

    let project = project.canonicalize().unwrap();
    let outside = tree.path("outside").canonicalize().unwrap();

    // The swap at the worst moment, made deterministic: the path is checked
    // and its directory opened, then `sub` is pointed outside; the file is
    // still created in the directory that was checked.
    let placed = focus_tools::beneath::place_for_write(
        &project.join("sub/placed.txt"),
        false,
        &state.sandbox,
    )
    .unwrap();
    std::fs::remove_file(project.join("sub")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("sub")).unwrap();
    placed
        .open(focus_sys::openat::Open {
            write: true,
            create_new: Some(0o644),
            ..Default::default()
        })
        .unwrap();
    assert!(project.join(".real/placed.txt").exists());
    assert!(!outside.join("placed.txt").exists());
    // A link planted on the resolved path after the check is refused, not
    // followed: `.real` itself replaced by a link out.
    std::fs::rename(project.join(".real"), project.join(".real-moved")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join(".real")).unwrap();
    let root = std::fs::File::open(&project).unwrap();
    let planted = focus_sys::openat::open_beneath(
        &root,
        Path::new(".real/x.txt"),
        focus_sys::openat::Open {
            write: true,
            create_new: Some(0o644),
            ..Default::default()
        },
    );
    assert!(planted.is_err() && !outside.join("x.txt").exists());
    std::fs::remove_file(project.join(".real")).unwrap();
    std::fs::rename(project.join(".real-moved"), project.join(".real")).unwrap();
    std::fs::remove_file(project.join("sub")).unwrap();
    std::os::unix::fs::symlink(".real", project.join("sub")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(AtomicUsize::new(0));
    let thread = flipper(&project, &outside, Arc::clone(&stop), Arc::clone(&flips));
    // The race is real: checking then writing by path lets writes out.
    for i in 0..ATTEMPTS {
        naive_check_then_write(&project, &format!("sub/naive{i}.txt"));
    }
    let naive_escapes = std::fs::read_dir(&outside)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("naive"))
        .count();
    for entry in std::fs::read_dir(&outside).unwrap().flatten() {
        if entry.file_name() != "e.txt" {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
    let write = tool_in("write", &project, &state);
    let edit = tool_in("edit", &project, &state);
    let read = tool_in("read", &project, &state);
    let mut written = 0;
    let mut edited = 0;
    // Calls whose checked path changed before the write: the case that escaped.
    let mut caught = 0;
    // At least ATTEMPTS calls each, and on until the race has been real for
    // them: the link flipped under them, and a write and an edit went through
    // between flips. How many calls that takes is up to the scheduler (on a
    // loaded machine the flipper may hog a core while the calls run, or
    // starve), so the calls go on until it happened, within a generous limit.
    let flips_before = flips.load(Ordering::Relaxed);
    let started = std::time::Instant::now();
    let mut i = 0;
    while i < ATTEMPTS
        || (started.elapsed() < RACE_LIMIT
            && (written == 0
                || edited == 0
                || flips.load(Ordering::Relaxed) - flips_before < MIN_FLIPS))
    {
        i += 1;
        let out = call(
            &*write,
            json_object! {"path" => format!("sub/f{i}.txt"), "content" => "x"},
        );
        written += usize::from(!out.is_error);
        caught += usize::from(out.text_content().contains("a symbolic link appeared"));
        // Edit needs a read first (focus refuses to change a file it has not
        // seen); it turns "original" into "changed" and back.
        let seen = call(&*read, json_object! {"path" => "sub/e.txt"});
        if !seen.is_error {
            let (old, new) = if seen.text_content().contains("original") {
                ("original", "changed")
            } else {
                ("changed", "original")
            };
            let out = call(
                &*edit,
                json_object! {"path" => "sub/e.txt", "edits" => focus_core::json_array![
                    json_object! {"oldText" => old, "newText" => new}
                ]},
            );
            edited += usize::from(!out.is_error);
            caught += usize::from(out.text_content().contains("a symbolic link appeared"));
        }
    }
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();

    let escaped: Vec<String> = std::fs::read_dir(&outside)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "e.txt")
        .collect();
    let outside_e = std::fs::read_to_string(tree.path("outside/e.txt")).unwrap();
    assert!(
        escaped.is_empty(),
        "{} writes escaped: {escaped:?}",
        escaped.len()
    );
    assert_eq!(outside_e, "original\n");
    // The race was real: the directory flipped, and some calls went through.
    let flipped = flips.load(Ordering::Relaxed) - flips_before;
    assert!(flipped >= MIN_FLIPS, "{flipped} flips in {RACE_LIMIT:?}");
    assert!(written > 0, "no write succeeded in {i} calls");
    assert!(edited > 0, "no edit succeeded in {i} calls");
    eprintln!(
        "{i} writes ({written} went through) and edits ({edited} went through) against \
         {flipped} flips, {caught} caught between check and write: 0 escaped (a naive check \
         then write: {naive_escapes} of {ATTEMPTS} escaped)"
    );
}
