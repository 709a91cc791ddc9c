//! The randomized crash test: focus in print mode or RPC mode, stopped by a
//! random termination signal at a random moment — while the answer streams,
//! while the bash tool runs, while the automatic compaction's summary streams,
//! while an approval request waits for an RPC client that never answers — and
//! then `focus -c -p` goes on. Every time: the session on disk is a valid history
//! (every tool call answered), the continuation succeeds, and no process focus
//! started is left running.
//!
//! `FOCUS_CRASH_RUNS` sets the number of runs (default 12, to keep the suite
//! quick; `scripts/crash-test` runs 500). The seed is printed, and
//! `FOCUS_CRASH_SEED` replays one.

use crate::support::*;
use focus_testkit::rng::Rng;
use std::time::{Duration, Instant};

/// The signals a user or a system sends to stop a program (SIGKILL cannot be
/// caught, so no program can clean up after it).
const SIGNALS: [(&str, i32); 4] = [("INT", 2), ("TERM", 15), ("HUP", 1), ("QUIT", 3)];

#[test]
fn random_signals_at_random_moments_leave_valid_sessions_and_no_processes() {
    let runs: usize = std::env::var("FOCUS_CRASH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12);
    let seed: u64 = std::env::var("FOCUS_CRASH_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(7, |d| d.as_nanos() as u64)
        });
    println!("crash test: {runs} runs, seed {seed} (FOCUS_CRASH_SEED replays it)");
    let mut rng = Rng::new(seed);
    for run in 0..runs {
        let (signal, number) = *rng.pick(&SIGNALS);
        let delay = Duration::from_millis(rng.below_u64(600));
        let rpc = rng.chance(40);
        one_run(run, signal, number, delay, rpc, seed);
    }
}

fn one_run(run: usize, signal: &str, number: i32, delay: Duration, rpc: bool, seed: u64) {
    let mode = if rpc { "rpc" } else { "print" };
    let what = format!("run {run} (seed {seed}): {mode} mode, SIG{signal} after {delay:?}");
    let marker = format!("crash-marker-{}-{run}", std::process::id());
    let s = Sandbox::new();
    // A tool call (a slow command whose name is the marker, so a process left
    // behind is found), a slowly streamed answer,
    // then every later request (the compaction's summary, the continuation) gets
    // a slow answer too.
    let scenario = format!(
        r#"{{"name":"crash","steps":[
      {{"reply":{{"text":"Running it.","toolCalls":[{{"name":"bash","arguments":{{"command":"exec -a {marker} sleep 0.3"}}}}]}}}},
      {{"reply":{{"text":"one two three four five six seven eight nine","chunkDelayMs":40,"inputTokens":90000}}}},
      {{"reply":{{"text":"a summary or an answer, slowly","chunkDelayMs":40}}}}]}}"#
    );
    let server = mock(&scenario);
    s.write_models(&server.url());
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let model = ["--model", "mock-openai/m1", "--permission-mode", "auto"];
    let mut child = if rpc {
        // The default permission mode: the bash call waits for an approval the
        // client never gives.
        let mut cmd = s.cmd(&["--mode", "rpc", "--model", "mock-openai/m1"]);
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let prompt = b"{\"type\":\"prompt\",\"message\":\"go\"}\n";
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), prompt).unwrap();
        child
    } else {
        let mut cmd = s.cmd(&[&["-p"], &model[..], &["go"]].concat());
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        cmd.spawn().unwrap()
    };
    // The handlers are installed once the first request is made.
    wait_until(&what, || {
        !server.requests().is_empty() || exited(&mut child)
    });
    std::thread::sleep(delay);
    let _ = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status();
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "{what}: focus kept running");
        std::thread::sleep(Duration::from_millis(5));
    };
    // Finished before the signal (0), or stopped by it: never killed by it.
    assert!(
        matches!(status.code(), Some(0) | Some(130)) || status.code() == Some(128 + number),
        "{what}: exit {status:?}"
    );
    // Nothing focus started is still running.
    wait_until(&format!("{what}: the tool's processes ending"), || {
        !process_running(&marker)
    });
    // The session on disk is a valid history, and focus goes on from it.
    for file in s.session_files() {
        let session = focus_harness::session::SessionManager::open_read_only(&file).unwrap();
        let messages = session.context().messages;
        if let Err(why) = focus_core::agent::check_history(&messages) {
            panic!("{what}: invalid history in {}: {why}", file.display());
        }
    }
    // Going on needs no compaction of its own (it would only add a summary call).
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"enabled":false}}"#,
    )
    .unwrap();
    let out = s.run(&[&["-c", "-p"], &model[..], &["go on"]].concat(), "");
    assert!(out.status.success(), "{what}: -c failed: {}", stderr(&out));
}

fn exited(child: &mut std::process::Child) -> bool {
    child.try_wait().ok().flatten().is_some()
}

/// Waits (up to a generous limit) for `done`, failing with `what`.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "{what}: did not happen");
        std::thread::sleep(Duration::from_millis(10));
    }
}
