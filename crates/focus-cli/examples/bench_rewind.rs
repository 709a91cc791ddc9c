//! File checkpoints, measured: the overhead a checkpoint adds to one tool call
//! on a 10,000-file and a 100,000-file project (a `bash` call: with the
//! project watched, the folders with inotify events listed and compared;
//! without, the whole walk with `lstat` and the comparison; also a change in
//! the project's top folder; each with its manifest saved; a `write`/`edit`
//! call: only the named path), the listing or walk alone, the one-time
//! baseline (and a second session's, whose content the store holds already),
//! and the storage a run of changes costs against the bytes that actually
//! changed. The load average is printed before and after.
//! `cargo run --release -p focus-cli --example bench_rewind`.

use focus_cli::checkpoints::IgnoringWalker;
use focus_harness::checkpoint::{CheckpointStore, Tracker};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn median(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}

fn folder_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

fn project(root: &Path, files: usize) {
    for i in 0..files {
        let dir = root.join(format!("d{:03}/e{:02}", i / 1000, (i / 100) % 10));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let text = format!("// file {i}\nfn f{i}() -> u32 {{ {i} }}\n").repeat(4);
        std::fs::write(dir.join(format!("f{i}.rs")), text).unwrap();
    }
    std::fs::write(root.join("README.md"), "# a project\n").unwrap();
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn one(files: usize, watch: bool) {
    let base = std::env::temp_dir().join(format!(
        "focus-bench-rewind-{}-{files}-{watch}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&base);
    let (root, sessions) = (base.join("p"), base.join("s"));
    std::fs::create_dir_all(&root).unwrap();
    project(&root, files);
    let store = CheckpointStore::in_session_dir(&sessions);
    let walker = IgnoringWalker {
        max_paths: 1_000_000,
    };
    let walker = Arc::new(walker);
    let mut tracker = Tracker::new(&root, store.clone(), walker.clone(), 64 << 20).unwrap();
    tracker.set_watching(watch);
    let started = Instant::now();
    tracker.baseline().unwrap();
    let baseline = started.elapsed();
    assert_eq!(tracker.is_watching(), watch, "{:?}", tracker.take_notices());
    let stored_after_baseline = folder_bytes(&store.dir);
    // A second session of the same folder: its content is in the store.
    let mut second = Tracker::new(&root, store.clone(), walker, 64 << 20).unwrap();
    second.set_watching(watch);
    let started = Instant::now();
    second.baseline().unwrap();
    let second_baseline = started.elapsed();
    drop(second);
    // Let the baseline's files age past the racy window.
    std::thread::sleep(Duration::from_millis(2100));
    tracker.record_walk().unwrap();
    let (mut bash, mut walk, mut write) = (Vec::new(), Vec::new(), Vec::new());
    let mut dirs = 0;
    let mut top = Vec::new();
    let mut changed_bytes = 0u64;
    let mut checkpoints = 0u64;
    for round in 0..21 {
        let path = root.join(format!("d000/e00/f{round}.rs"));
        let text = format!("// changed in round {round}\n").repeat(40);
        changed_bytes += text.len() as u64;
        std::fs::write(&path, &text).unwrap();
        let t = Instant::now();
        let m = tracker.record_walk().unwrap();
        store.manifests.save(&m).unwrap();
        bash.push(t.elapsed());
        walk.push(tracker.last_walk.walk);
        dirs = dirs.max(tracker.last_walk.dirs);
        assert_eq!(m.changes.len(), 1);
        checkpoints += 1;
        // A change in the project's top folder (which holds every other path
        // below it).
        let text = format!("# notes of round {round}\n").repeat(40);
        changed_bytes += text.len() as u64;
        std::fs::write(root.join("README.md"), &text).unwrap();
        let t = Instant::now();
        let m = tracker.record_walk().unwrap();
        store.manifests.save(&m).unwrap();
        top.push(t.elapsed());
        assert_eq!(m.changes.len(), 1);
        checkpoints += 1;
        let rel = PathBuf::from(format!("d001/e00/f{}.rs", 1000 + round));
        let text = format!("// written in round {round}\n").repeat(40);
        changed_bytes += text.len() as u64;
        let t = Instant::now();
        tracker.prepare_paths(std::slice::from_ref(&rel)).unwrap();
        std::fs::write(root.join(&rel), &text).unwrap();
        let m = tracker.record_paths(&[rel]).unwrap();
        store.manifests.save(&m).unwrap();
        write.push(t.elapsed());
        checkpoints += 1;
    }
    let manifests = folder_bytes(&store.dir.join("manifests"));
    let blobs_added = folder_bytes(&store.dir) - stored_after_baseline - manifests;
    println!(
        "| {files} files | {} | {:.2} | {:.2} | {} | {:.2} | {:.3} | {:.0} | {:.0} | {:.2}× | {} |",
        if watch { "watched" } else { "walk" },
        median(bash),
        median(walk),
        if watch {
            dirs.to_string()
        } else {
            "all".into()
        },
        median(top),
        median(write),
        baseline.as_secs_f64() * 1000.0,
        second_baseline.as_secs_f64() * 1000.0,
        blobs_added as f64 / changed_bytes as f64,
        manifests / checkpoints,
    );
    let _ = std::fs::remove_dir_all(&base);
}

fn main() {
    println!("load average before: {}", load());
    println!("| project | changes found by | bash call: listing + compare + store, median (ms) | of which listing or walk (ms) | folders listed | bash call changing the top folder (ms) | write/edit call (ms) | baseline, once (ms) | a second session's baseline (ms) | content stored / bytes changed | manifest bytes per checkpoint |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let sizes: Vec<usize> = match std::env::args().nth(1) {
        Some(n) => vec![n.parse().expect("a number of files")],
        None => vec![10_000, 100_000],
    };
    for files in sizes {
        for watch in [true, false] {
            one(files, watch);
        }
    }
    println!("load average after: {}", load());
}
