//! The randomized rewind test (issue 31's target): 100 seeded runs, each a
//! random sequence of `write`/`edit` (recorded by path) and `bash` (recorded
//! by the folders with file change events, or in one run of four by a walk
//! of the whole project) mutations across 5–20 prompts: create, modify, delete, rename,
//! chmod, symlink, empty folder, binary, 0-byte, names that are not UTF-8 and,
//! in two runs (seeds 0 and 50), a 50 MB file. Then a rewind to a random earlier prompt must
//! give the project exactly as it was then (bytes and modes), and a rewind to
//! the latest entry exactly the last state.

use super::checkpoint_support::{first_difference, snapshot, Tracked};
use super::support::{user, Rng, Scratch};
use focus_harness::checkpoint::{rewind_files, RewindRequest};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Names a run picks from (collisions are the point).
fn names() -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = ["a.txt", "b.bin", "empty", "d1/c.rs", "d1/d2/e", "d3/f"]
        .iter()
        .map(PathBuf::from)
        .collect();
    names.push(PathBuf::from(OsStr::from_bytes(b"caf\xe9.txt")));
    names.push(PathBuf::from(OsStr::from_bytes(b"d1/\xff\xfe")));
    names
}

fn content(rng: &mut Rng) -> Vec<u8> {
    match rng.below(4) {
        0 => Vec::new(),
        1 => (0..rng.below(300)).map(|_| rng.below(256) as u8).collect(),
        _ => {
            let lines = rng.below(20) + 1;
            (0..lines)
                .map(|i| format!("line {i} {}\n", rng.below(5)))
                .collect::<String>()
                .into_bytes()
        }
    }
}

/// Existing regular files under `root` among `names`.
fn files(root: &Path, names: &[PathBuf]) -> Vec<PathBuf> {
    names
        .iter()
        .filter(|n| {
            std::fs::symlink_metadata(root.join(n))
                .map(|m| m.is_file())
                .unwrap_or(false)
        })
        .cloned()
        .collect()
}

fn ensure_parent(root: &Path, rel: &Path) -> bool {
    let Some(parent) = rel.parent() else {
        return true;
    };
    // A path on the way may be a file or a link now: then this mutation is skipped.
    let mut prefix = PathBuf::new();
    for part in parent.components() {
        prefix.push(part);
        match std::fs::symlink_metadata(root.join(&prefix)) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return false,
            Err(_) => {
                if std::fs::create_dir(root.join(&prefix)).is_err() {
                    return false;
                }
            }
        }
    }
    true
}

/// One tool-like mutation; whether it was a write/edit (recorded by path).
fn mutate(t: &mut Tracked, rng: &mut Rng, names: &[PathBuf], big: &mut bool) {
    let root = t.root.clone();
    let pick = names[rng.below(names.len())].clone();
    let existing = files(&root, names);
    match rng.below(if *big { 11 } else { 10 }) {
        // write: create or replace a file, recorded by path.
        0 | 1 => {
            let meta = std::fs::symlink_metadata(root.join(&pick));
            if meta.map(|m| !m.is_file()).unwrap_or(false) {
                return;
            }
            t.tracker
                .prepare_paths(std::slice::from_ref(&pick))
                .unwrap();
            if !ensure_parent(&root, &pick) {
                return;
            }
            std::fs::write(root.join(&pick), content(rng)).unwrap();
            let m = t.tracker.record_paths(&[pick]).unwrap();
            t.save(&m, "tool");
        }
        // edit: change part of an existing file, recorded by path.
        2 if !existing.is_empty() => {
            let path = existing[rng.below(existing.len())].clone();
            t.tracker
                .prepare_paths(std::slice::from_ref(&path))
                .unwrap();
            let mut bytes = std::fs::read(root.join(&path)).unwrap_or_default();
            bytes.extend_from_slice(b"edited\n");
            if !bytes.is_empty() {
                let i = rng.below(bytes.len());
                bytes[i] = b'X';
            }
            // Edits of a read-only file fail as the tool would.
            if std::fs::write(root.join(&path), &bytes).is_ok() {
                let m = t.tracker.record_paths(&[path]).unwrap();
                t.save(&m, "tool");
            }
        }
        // bash: everything else, recorded by a walk.
        n => {
            let done = match n {
                3 if !existing.is_empty() => {
                    let path = &existing[rng.below(existing.len())];
                    std::fs::remove_file(root.join(path)).is_ok()
                }
                4 if !existing.is_empty() => {
                    let from = &existing[rng.below(existing.len())];
                    ensure_parent(&root, &pick)
                        && std::fs::symlink_metadata(root.join(&pick))
                            .map(|m| !m.is_dir())
                            .unwrap_or(true)
                        && std::fs::rename(root.join(from), root.join(&pick)).is_ok()
                }
                5 if !existing.is_empty() => {
                    let path = &existing[rng.below(existing.len())];
                    let mode = *rng.pick(&[0o644, 0o755, 0o600, 0o444, 0o700]);
                    std::fs::set_permissions(root.join(path), std::fs::Permissions::from_mode(mode))
                        .is_ok()
                }
                6 => {
                    let target = *rng.pick(&["a.txt", "../outside", "/etc/passwd", "missing/x"]);
                    ensure_parent(&root, &pick)
                        && std::fs::symlink_metadata(root.join(&pick)).is_err()
                        && std::os::unix::fs::symlink(target, root.join(&pick)).is_ok()
                }
                7 => {
                    let dir = PathBuf::from(*rng.pick(&["d4", "d1/empty", "d3"]));
                    ensure_parent(&root, &dir) && std::fs::create_dir(root.join(&dir)).is_ok()
                }
                8 => {
                    let dir = *rng.pick(&["d1", "d3", "d4"]);
                    let full = root.join(dir);
                    let is_dir = std::fs::symlink_metadata(&full)
                        .map(|m| m.is_dir())
                        .unwrap_or(false);
                    is_dir && std::fs::remove_dir_all(&full).is_ok()
                }
                9 => {
                    ensure_parent(&root, &pick)
                        && std::fs::symlink_metadata(root.join(&pick))
                            .map(|m| m.is_file())
                            .unwrap_or(true)
                        && std::fs::write(root.join(&pick), content(rng)).is_ok()
                }
                10 => {
                    // The 50 MB file, once per run (hashing it unoptimized is slow).
                    *big = false;
                    let mut bytes = vec![rng.below(256) as u8; 50 << 20];
                    for _ in 0..64 {
                        let i = rng.below(bytes.len());
                        bytes[i] = rng.below(256) as u8;
                    }
                    std::fs::write(root.join("big.bin"), bytes).is_ok()
                }
                _ => false,
            };
            if done {
                let m = t.tracker.record_walk().unwrap();
                t.save(&m, "tool");
            }
        }
    }
}

fn one_run(seed: u64) {
    let mut rng = Rng::new(seed);
    let project = Scratch::new("rewind-project");
    let sessions = Scratch::new("rewind-sessions");
    let names = names();
    // What the project held before focus started.
    std::fs::create_dir(project.path().join("d1")).unwrap();
    std::fs::write(project.path().join("a.txt"), "original\n").unwrap();
    std::fs::write(project.path().join("d1/c.rs"), "fn main() {}\n").unwrap();
    let mut t = Tracked::new(project.path(), sessions.path());
    // Most runs list only the folders with inotify events (the default); one
    // in four walks the whole project every time, the fallback.
    t.tracker.set_watching(seed % 4 != 3);
    let mut big = seed % 50 == 0;
    let prompts = 5 + rng.below(16);
    let mut marks = Vec::new();
    for k in 0..prompts {
        t.prompt_checkpoint();
        marks.push((
            t.manager.leaf_id().map(str::to_string),
            snapshot(project.path()),
        ));
        t.manager
            .append_message(&user(&format!("prompt {k}")))
            .unwrap();
        for _ in 0..1 + rng.below(6) {
            mutate(&mut t, &mut rng, &names, &mut big);
        }
    }
    t.prompt_checkpoint();
    let last = (
        t.manager.leaf_id().map(str::to_string),
        snapshot(project.path()),
    );
    let (target, want) = &marks[rng.below(marks.len())];
    for (to, want, what) in [(target, want, "back"), (&last.0, &last.1, "forward")] {
        let report = rewind_files(
            &mut t.manager,
            RewindRequest {
                root: project.path(),
                store: &t.store,
                target: to.as_deref(),
                force: false,
                dry_run: false,
            },
        )
        .unwrap();
        assert!(
            report.failures.is_empty(),
            "seed {seed} {what}: {:?}",
            report.failures
        );
        assert!(
            report.plan.conflicts.is_empty(),
            "seed {seed} {what}: {:?}",
            report.plan.describe()
        );
        let got = snapshot(project.path());
        if let Some(difference) = first_difference(want, &got) {
            panic!("seed {seed}, rewind {what}: {difference}");
        }
        t.tracker.refresh_after_restore(&report.touched).unwrap();
    }
}

#[test]
fn rewinding_to_a_random_prompt_restores_the_tree_exactly_in_100_seeded_runs() {
    let runs: u64 = std::env::var("FOCUS_REWIND_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let first: u64 = std::env::var("FOCUS_REWIND_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for seed in first..first + runs {
        one_run(seed);
    }
}
