//! Nothing from outside crashes focus: random flags, garbage RPC lines, garbage
//! piped into print mode. "Crash" means a panic message or a signal death.

use crate::support::*;
use focus_testkit::rng::Rng;

fn assert_no_crash(output: &std::process::Output, what: &str) {
    let err = stderr(output);
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(output.status.code().is_some(), "{what}: killed by a signal");
}

/// Words the flag soups are made of: flags, values, and oddities.
const SOUP: [&str; 26] = [
    "-p",
    "--mode",
    "json",
    "rpc",
    "--model",
    "",
    "--thinking",
    "xhigh",
    "-c",
    "-r",
    "--session",
    "--tools",
    ",",
    "@",
    "@/dev/null",
    "--export",
    "--list-models",
    "--",
    "-",
    "--permission-mode",
    "plan",
    "\u{0}",
    "é",
    "--session-dir",
    "mcp",
    "--no-tools",
];

/// The parser is pure: it is fuzzed in this process, many rounds, and every
/// refusal names what was wrong.
#[test]
fn random_flag_soup_never_panics_the_parser() {
    let mut rng = Rng::new(7);
    for _ in 0..20_000 {
        let n = rng.below(8);
        let args: Vec<&str> = (0..n).map(|_| *rng.pick(&SOUP)).collect();
        if let Err(error) = focus_cli::args::parse(args.iter().copied()) {
            assert!(!error.0.trim().is_empty(), "{args:?}: an empty refusal");
        }
    }
}

/// A few soups through the real binary: it exits with a code (0, 1 or 2),
/// never by a signal.
#[test]
fn random_flag_soup() {
    let s = Sandbox::new();
    let mut rng = Rng::new(7);
    for round in 0..8 {
        let n = rng.below(6);
        let args: Vec<&str> = (0..n).map(|_| *rng.pick(&SOUP)).collect();
        // Keep these runs fast: no interactive mode, no model calls beyond the demo.
        let mut full = vec!["--no-session", "--offline"];
        full.extend(args.iter().filter(|a| !a.contains('\0')));
        let out = s.run(&full, "");
        assert_no_crash(&out, &format!("round {round}: {full:?}"));
        assert!(
            matches!(out.status.code(), Some(0..=2)),
            "{full:?}: {:?}",
            out.status
        );
    }
}

#[test]
fn garbage_rpc_lines_each_get_an_answer() {
    let s = Sandbox::new();
    let lines = [
        "",
        "{",
        "}",
        "null",
        "42",
        "\"str\"",
        "[]",
        "{\"type\":7}",
        "{\"type\":null}",
        "{\"type\":\"prompt\"}",
        "{\"type\":\"prompt\",\"message\":5}",
        "{\"type\":\"set_model\"}",
        "{\"type\":\"switch_session\",\"sessionPath\":\"/nonexistent/x.jsonl\"}",
        "{\"type\":\"fork\",\"entryId\":\"zzz\"}",
        "{\"type\":\"export_html\",\"outputPath\":\"/nonexistent/dir/x.html\"}",
        "{\"type\":\"approve\",\"requestId\":1}",
        "\u{2028}{\"type\":\"get_state\"}",
        "\u{fffd}\u{0}",
        &"[".repeat(100_000),
    ];
    let mut input = lines.join("\n");
    input.push('\n');
    input.push_str("{\"id\":\"last\",\"type\":\"get_state\"}\n");
    let out = s.run(&["--mode", "rpc", "--no-tools"], &input);
    assert_no_crash(&out, "rpc garbage");
    assert!(out.status.success());
    let responses = json_lines(&stdout(&out));
    // Every non-empty line got one response, and the server was alive at the end.
    assert_eq!(responses.len(), lines.len() - 1 + 1);
    assert!(responses
        .iter()
        .all(|r| r["type"].as_str() == Some("response")));
    assert_eq!(responses.last().unwrap()["id"].as_str(), Some("last"));
    assert_eq!(responses.last().unwrap()["success"].as_bool(), Some(true));
}

#[test]
fn binary_garbage_on_stdin_in_print_mode() {
    let s = Sandbox::new();
    let mut rng = Rng::new(99);
    let garbage: String = (0..5000)
        .map(|_| char::from_u32(rng.below_u64(0x3000) as u32).unwrap_or('x'))
        .collect();
    let out = s.run(&["-p", "--no-session", "--no-tools", "look"], &garbage);
    assert_no_crash(&out, "stdin garbage");
    assert!(out.status.success());
}

#[test]
fn damaged_session_files_are_reported_not_fatal() {
    let s = Sandbox::new();
    let file = s.root.join("broken.jsonl");
    std::fs::write(&file, "{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":\"/\"}\nnot json at all\n{\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n{\"type\":\"mess").unwrap();
    let out = s.run(
        &[
            "-p",
            "--no-tools",
            "--session",
            file.to_str().unwrap(),
            "next",
        ],
        "",
    );
    assert_no_crash(&out, "damaged session");
    assert!(out.status.success(), "{}", stderr(&out));
    let newer = s.root.join("newer.jsonl");
    std::fs::write(&newer, "{\"type\":\"session\",\"version\":99,\"id\":\"y\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":\"/\"}\n").unwrap();
    let out = s.run(
        &[
            "-p",
            "--no-tools",
            "--session",
            newer.to_str().unwrap(),
            "x",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("99"), "{}", stderr(&out));
}

#[test]
fn closed_stdout_and_stderr_do_not_panic() {
    let s = Sandbox::new();
    for args in [
        &["-p", "--no-tools", "--no-session", "hello"][..],
        &["--help"][..],
        &["--list-models"][..],
    ] {
        let mut cmd = s.cmd(args);
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        // Close both read ends at once: every later write gets EPIPE.
        drop(child.stdout.take());
        drop(child.stderr.take());
        let status = child.wait().unwrap();
        assert_ne!(
            status.code(),
            Some(101),
            "{args:?} panicked on a closed pipe"
        );
        assert!(status.code().is_some(), "{args:?} died from a signal");
    }
}

#[test]
fn an_endless_piped_stdin_stops_at_the_documented_limit() {
    let s = Sandbox::new();
    let mut cmd = s.cmd(&["-p", "--no-session", "hi"]);
    let zero = std::fs::File::open("/dev/zero").unwrap();
    cmd.stdin(zero)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let output = cmd.output().unwrap();
    assert_no_crash(&output, "focus -p hi < /dev/zero");
    assert_ne!(output.status.code(), Some(0));
    let err = stderr(&output);
    assert!(err.contains("stdin holds more than 32 MiB"), "{err}");
}
