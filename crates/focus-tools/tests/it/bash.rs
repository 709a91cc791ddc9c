//! bash on real processes: merged output, exit codes, truncation with a full
//! output file, streaming, cancellation, and timeouts that kill grandchildren.

use crate::support::common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{call, call_with, tool, TempTree};
use focus_core::cancel::CancelToken;
use focus_core::json_object;
use focus_core::tool::ToolOutput;

fn bash(tree: &TempTree, command: &str) -> ToolOutput {
    call(
        &*tool("bash", &tree.root),
        json_object! { "command" => command },
    )
}

/// Whether process `pid` is gone (or a zombie, which holds no resources and
/// cannot run: a container's PID 1 may not reap orphans promptly).
fn process_is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

fn wait_dead(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        if process_is_dead(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn pids_in(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("pid=")?.parse().ok())
        .collect()
}

#[test]
fn stdout_and_stderr_are_merged_in_order_in_the_working_directory() {
    let tree = TempTree::new("bash-merge");
    let out = bash(&tree, "echo one; echo two >&2; echo three; pwd");
    assert!(!out.is_error, "{}", out.text_content());
    let expected = format!("one\ntwo\nthree\n{}", tree.root.display());
    assert_eq!(out.text_content(), expected);
    assert_eq!(out.details["exitCode"].as_i64(), Some(0));
}

#[test]
fn a_non_zero_exit_is_an_error_with_the_code() {
    let tree = TempTree::new("bash-exit");
    let out = bash(&tree, "echo failing; exit 3");
    assert!(out.is_error);
    assert_eq!(out.text_content(), "failing\n\nCommand exited with code 3");
    assert_eq!(out.details["exitCode"].as_i64(), Some(3));
    let out = bash(&tree, "no_such_command_xyz");
    assert!(
        out.is_error
            && out.text_content().contains("not found")
            && out.text_content().contains("code 127")
    );
    let out = bash(&tree, "true");
    assert_eq!(out.text_content(), "(no output)");
    let out = call(
        &*tool("bash", &tree.root),
        json_object! { "command" => "  " },
    );
    assert!(out.is_error && out.text_content().contains("empty"));
    let out = call(
        &*tool("bash", &tree.root),
        json_object! { "command" => "true", "timeout" => "soon" },
    );
    assert!(out.is_error && out.text_content().contains("\"timeout\""));
}

#[test]
fn a_timeout_kills_the_whole_group_including_background_grandchildren() {
    let tree = TempTree::new("bash-timeout");
    let command = "sleep 30 & echo pid=$!\nsh -c 'sleep 30 & echo pid=$!; wait' &\nsleep 30";
    let out = call(
        &*tool("bash", &tree.root),
        json_object! { "command" => command, "timeout" => 0.7 },
    );
    assert!(out.is_error);
    let text = out.text_content();
    assert!(
        text.contains("Command timed out after 0.7 seconds"),
        "{text}"
    );
    assert_eq!(out.details["timedOut"].as_bool(), Some(true));
    let pids = pids_in(&text);
    assert_eq!(pids.len(), 2, "{text}");
    for pid in pids {
        assert!(
            wait_dead(pid),
            "background process {pid} survived the timeout"
        );
    }
}

#[test]
fn a_background_process_does_not_hold_the_result_back() {
    let tree = TempTree::new("bash-background");
    let started = Instant::now();
    let out = bash(&tree, "sleep 30 & echo pid=$!; echo done");
    // Functional, not a speed check: without the drain grace this would block 30 s.
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(out.text_content().contains("done"));
    for pid in pids_in(&out.text_content()) {
        std::process::Command::new("kill")
            .arg(pid.to_string())
            .status()
            .unwrap();
    }
}

#[test]
fn long_output_keeps_the_tail_and_saves_the_full_output() {
    let tree = TempTree::new("bash-truncate");
    // The spill file lives as long as the tool's state.
    let tool = tool("bash", &tree.root);
    // 349 KB: more than the inline cap, less than the spill cap (500 KB).
    let out = call(&*tool, json_object! { "command" => "seq 1 60000" });
    assert!(!out.is_error);
    let text = out.text_content();
    assert!(
        text.contains("\n60000\n\n[Showing lines"),
        "{}",
        &text[text.len() - 200..]
    );
    assert!(
        text.contains("of 60000 (50.0KB limit). Full output: "),
        "{}",
        &text[text.len() - 200..]
    );
    let path = out.details["fullOutputPath"].as_str().unwrap().to_string();
    assert!(text.ends_with(&format!("Full output: {path}]")));
    let full = std::fs::read_to_string(&path).unwrap();
    assert_eq!(full.lines().count(), 60000);
    assert!(full.starts_with("1\n2\n3\n"));
    std::fs::remove_file(&path).unwrap();

    let out = call(&*tool, json_object! { "command" => "seq 1 3000" });
    let text = out.text_content();
    assert!(text.starts_with("1001\n"), "{}", &text[..50]);
    assert!(
        text.contains("[Showing lines 1001-3000 of 3000. Full output: "),
        "{}",
        &text[text.len() - 200..]
    );
    let path = out.details["fullOutputPath"].as_str().unwrap().to_string();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap().lines().count(),
        3000
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn control_characters_are_stripped() {
    let tree = TempTree::new("bash-control");
    let out = bash(
        &tree,
        r"printf '\033[31mred\033[0m\a plain\033]0;title\007\n'",
    );
    assert_eq!(out.text_content(), "red plain");
}

#[test]
fn partial_output_streams_while_the_command_runs() {
    let tree = TempTree::new("bash-stream");
    let updates = Mutex::new(Vec::new());
    let on_update = |o: ToolOutput| updates.lock().unwrap().push(o.text_content());
    let cancel = CancelToken::new();
    let out = call_with(
        &*tool("bash", &tree.root),
        json_object! { "command" => "echo start; sleep 0.8; echo end" },
        &cancel,
        &on_update,
    );
    assert_eq!(out.text_content(), "start\nend");
    let updates = updates.into_inner().unwrap();
    assert!(updates.iter().any(|u| u == "start"), "{updates:?}");
}

#[test]
fn cancel_kills_the_group_at_once() {
    let tree = TempTree::new("bash-cancel");
    let cancel = CancelToken::new();
    let canceller = cancel.clone();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        canceller.cancel();
    });
    let out = call_with(
        &*tool("bash", &tree.root),
        json_object! { "command" => "sleep 30 & echo pid=$!; sleep 30" },
        &cancel,
        &|_| {},
    );
    killer.join().unwrap();
    assert!(out.is_error);
    assert!(
        out.text_content().contains("Command aborted"),
        "{}",
        out.text_content()
    );
    for pid in pids_in(&out.text_content()) {
        assert!(
            wait_dead(pid),
            "background process {pid} survived the abort"
        );
    }
}
