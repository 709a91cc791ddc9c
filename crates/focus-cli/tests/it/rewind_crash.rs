//! Crash safety of checkpoints and restores (issue 31): `focus` is killed
//! (SIGKILL) at a random moment while it checkpoints a command that changed
//! 300 files, and `focus rewind` is killed at a random moment while it
//! restores them. After each kill the next `focus rewind --dry-run` (which
//! finishes an interrupted restore first) must load the session, and the
//! project must be wholly in the state before or wholly in the state after:
//! never a mix, never a half-written file. `scripts/crash-test` runs more
//! (`FOCUS_CRASH_RUNS`); the suite runs 4 of each.

use crate::support::{mock, stderr, stdout, Sandbox};
use focus_testkit::rng::Rng;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const FILES: usize = 300;

const CHANGE_ALL: &str = r#"{"name":"change_all","steps":[
  {"reply":{"text":"Changing.","toolCalls":[{"name":"bash","arguments":{"command":"for f in src/*; do echo changed >> $f; done; mkdir -p out && echo built > out/r"}}]}},
  {"reply":{"text":"Done."}}
]}"#;

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let rel = e
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
                out.insert(rel + "/", Vec::new());
            } else {
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

fn runs() -> usize {
    std::env::var("FOCUS_CRASH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(4, |n: usize| n.min(200))
}

/// Waits (at most 30 s) until no process has its working directory in `dir`.
fn wait_until_nothing_runs_in(dir: &Path) {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let busy = || {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .bytes()
                    .all(|b| b.is_ascii_digit())
                    && std::fs::read_link(e.path().join("cwd"))
                        .is_ok_and(|cwd| cwd.starts_with(&dir))
            })
    };
    let until = Instant::now() + Duration::from_secs(30);
    while busy() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Kills `cmd` after `delay` (or lets it end).
fn kill_after(mut cmd: std::process::Command, delay: Duration) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + delay;
    while Instant::now() < until {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs `focus args…` once the killed focus's session is free. A child that
/// focus had just forked for the command (the jail's processes before their
/// `exec` or their closing of inherited descriptors) outlives the kill for a
/// moment and still holds the session file's `flock`. focus itself waits up
/// to 2 s for such a lock when no running writer is recorded (without that,
/// 3 of 16 loaded runs failed here); a machine slower still would make it say
/// the session is being written, so the test waits on for up to 10 s, then
/// returns whatever the run says.
fn run_once_released(s: &Sandbox, args: &[&str]) -> std::process::Output {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let out = s.run(args, "");
        if !stderr(&out).contains("is being written by another focus process")
            || Instant::now() > until
        {
            return out;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn crash_during_checkpointing_or_restoring_leaves_a_whole_tree_and_a_valid_session() {
    let mut rng = Rng::new(31);
    for run in 0..runs() {
        let s = Sandbox::new();
        let src = s.work.join("src");
        std::fs::create_dir(&src).unwrap();
        for i in 0..FILES {
            std::fs::write(
                src.join(format!("f{i:03}")),
                format!("file {i}\n").repeat(50),
            )
            .unwrap();
        }
        let before = tree(&s.work);
        let server = mock(CHANGE_ALL);
        s.write_models(&server.url());
        let run_args = [
            "-p",
            "--model",
            "mock-openai/m1",
            "--permission-mode",
            "auto",
            "go",
        ];
        // Killed while the command runs or its checkpoint is taken.
        kill_after(s.cmd(&run_args), Duration::from_millis(rng.below_u64(400)));
        // The killed focus's command may still be running (nothing kills a
        // dead program's children): it would go on changing `src/` under the
        // steps below.
        wait_until_nothing_runs_in(&s.work);
        let check = run_once_released(&s, &["rewind", "--code", "--dry-run"]);
        let said = format!("{}{}", stdout(&check), stderr(&check));
        // No prompt yet (killed before the session had one) is an answer too.
        assert!(
            check.status.code() == Some(0)
                || said.contains("no prompt")
                || said.contains("no session"),
            "run {run}: the session did not load after a kill: {said}"
        );
        // Let a complete run make the changes (a fresh session).
        let server = mock(CHANGE_ALL);
        s.write_models(&server.url());
        for entry in std::fs::read_dir(&src).unwrap().flatten() {
            let i: usize = entry.file_name().to_string_lossy()[1..].parse().unwrap();
            std::fs::write(entry.path(), format!("file {i}\n").repeat(50)).unwrap();
        }
        let _ = std::fs::remove_dir_all(s.work.join("out"));
        let out = s.run(&run_args, "");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let after = tree(&s.work);
        assert_ne!(before, after);
        // Killed while restoring.
        kill_after(
            s.cmd(&["rewind", "--code"]),
            Duration::from_millis(rng.below_u64(60)),
        );
        let check = s.run(&["rewind", "--code", "--dry-run"], "");
        assert_eq!(
            check.status.code(),
            Some(0),
            "run {run}: {}{}",
            stdout(&check),
            stderr(&check)
        );
        let now = tree(&s.work);
        assert!(
            now == before || now == after,
            "run {run}: the project is neither before nor after the restore"
        );
        // And a finished rewind still gets exactly the state before the run.
        let done = s.run(&["rewind", "--code"], "");
        assert_eq!(
            done.status.code(),
            Some(0),
            "run {run}: {}{}",
            stdout(&done),
            stderr(&done)
        );
        assert!(
            tree(&s.work) == before,
            "run {run}: the rewind after the crash is not whole"
        );
    }
}
