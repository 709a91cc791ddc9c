//! User hooks through the Gatekeeper: they block, append, see the call as JSON, and
//! never hang the agent (hanging and crashing hooks are bounded and fail closed).

use crate::support::gates::*;
use focus_core::json::parse_str;
use focus_core::tool::{GateDecision, ToolGate, ToolOutput};
use focus_tools::gates::hooks::{HookConfig, HookEvent};
use focus_tools::gates::{Gatekeeper, Mode, NonInteractiveApprover};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A gate in auto mode (permissions out of the way) with hooks from `hooks_json`.
fn gate(hooks_json: &str, cwd: &Path) -> Gatekeeper {
    let settings = format!(r#"{{"permissionMode": "auto", "hooks": {hooks_json}}}"#);
    let gk = Gatekeeper::from_settings(
        &parse_str(&settings).unwrap(),
        Arc::new(NonInteractiveApprover),
        cwd.to_path_buf(),
    )
    .unwrap();
    assert_eq!(gk.mode(), Mode::Auto);
    gk
}

fn pre(matcher: &str, command: &str, timeout: f64) -> String {
    let command = focus_core::json::Value::from(command).to_json_string();
    format!(
        r#"{{"PreToolUse": [{{"matcher": "{matcher}", "hooks": [{{"type": "command", "command": {command}, "timeout": {timeout}}}]}}]}}"#
    )
}

fn post(command: &str, timeout: f64) -> String {
    let command = focus_core::json::Value::from(command).to_json_string();
    format!(r#"{{"PostToolUse": [{{"hooks": [{{"command": {command}, "timeout": {timeout}}}]}}]}}"#)
}

#[test]
fn pre_hook_exit_zero_allows_and_non_zero_blocks_with_its_output() {
    let dir = temp_dir("hook-block");
    let gk = gate(&pre("bash", "exit 0", 5.0), &dir);
    assert_eq!(
        gk.before_call(&bash("ls"), &BASH, &message()),
        GateDecision::Allow
    );

    let gk = gate(
        &pre("bash|edit", "echo 'no pushing on Fridays' >&2; exit 2", 5.0),
        &dir,
    );
    let GateDecision::Block(reason) = gk.before_call(&bash("git push"), &BASH, &message()) else {
        panic!("hook did not block");
    };
    assert!(reason.contains("no pushing on Fridays"), "{reason}");
    assert!(
        reason.contains("PreToolUse") && reason.contains("exit 2"),
        "{reason}"
    );
    // Exit 1 blocks too (focus blocks on any failure, not only Claude Code's 2).
    let gk = gate(&pre("*", "echo nope; exit 1", 5.0), &dir);
    assert!(
        matches!(gk.before_call(&bash("ls"), &BASH, &message()), GateDecision::Block(r) if r.contains("nope"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pre_hook_may_block_with_claude_code_json() {
    let dir = temp_dir("hook-json");
    let block = r#"echo '{"decision": "block", "reason": "tests must pass first"}'"#;
    let gk = gate(&pre("*", block, 5.0), &dir);
    let GateDecision::Block(reason) = gk.before_call(&bash("git push"), &BASH, &message()) else {
        panic!("JSON block ignored");
    };
    assert!(reason.contains("tests must pass first"), "{reason}");
    let deny = r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}'"#;
    let gk = gate(&pre("*", deny, 5.0), &dir);
    assert!(
        matches!(gk.before_call(&bash("ls"), &BASH, &message()), GateDecision::Block(r) if r.lines().next().unwrap().ends_with(": no"))
    );
    let allow = r#"echo '{"decision": "approve"}'; echo '{"not": "json"'"#;
    let gk = gate(&pre("*", allow, 5.0), &dir);
    assert_eq!(
        gk.before_call(&bash("ls"), &BASH, &message()),
        GateDecision::Allow
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn matcher_selects_tools() {
    let dir = temp_dir("hook-matcher");
    let gk = gate(&pre("edit|write", "exit 1", 5.0), &dir);
    assert_eq!(
        gk.before_call(&bash("ls"), &BASH, &message()),
        GateDecision::Allow
    );
    assert!(matches!(
        gk.before_call(&call("Edit", r#"{"path":"a"}"#), &EDIT, &message()),
        GateDecision::Block(_)
    ));
    let gk = gate(&pre("github__*", "exit 1", 5.0), &dir);
    assert!(matches!(
        gk.before_call(&call("github__create_issue", "{}"), &MCP, &message()),
        GateDecision::Block(_)
    ));
    assert_eq!(
        gk.before_call(&call("read", "{}"), &READ, &message()),
        GateDecision::Allow
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hook_reads_the_call_as_json_on_stdin() {
    let dir = temp_dir("hook-stdin");
    let gk = gate(&pre("bash", "cat > seen.json", 5.0), &dir);
    let mut call = bash("cargo test -- 'quoted \"arg\"'");
    call.id = "toolu_42".into();
    assert_eq!(
        gk.before_call(&call, &BASH, &message()),
        GateDecision::Allow
    );
    let seen = parse_str(&std::fs::read_to_string(dir.join("seen.json")).unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"].as_str(), Some("PreToolUse"));
    assert_eq!(seen["tool_name"].as_str(), Some("bash"));
    assert_eq!(
        seen["tool_input"]["command"].as_str(),
        Some("cargo test -- 'quoted \"arg\"'")
    );
    assert_eq!(seen["tool_call_id"].as_str(), Some("toolu_42"));
    assert_eq!(seen["cwd"].as_str(), Some(dir.to_str().unwrap()));

    let gk = gate(&post("cat > post.json", 5.0), &dir);
    gk.after_call(&call, &BASH, ToolOutput::error("exit code 1"));
    let seen = parse_str(&std::fs::read_to_string(dir.join("post.json")).unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"].as_str(), Some("PostToolUse"));
    assert_eq!(seen["tool_response"]["text"].as_str(), Some("exit code 1"));
    assert_eq!(seen["tool_response"]["is_error"].as_bool(), Some(true));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn post_hook_output_is_appended() {
    let dir = temp_dir("hook-post");
    let gk = gate(&post("echo 'formatted 3 files'", 5.0), &dir);
    let out = gk.after_call(&bash("x"), &BASH, ToolOutput::text("done"));
    assert_eq!(
        out.text_content(),
        "done\n[PostToolUse hook]\nformatted 3 files"
    );
    assert!(!out.is_error);

    let gk = gate(&post("echo 'lint failed' >&2; exit 3", 5.0), &dir);
    let out = gk.after_call(&bash("x"), &BASH, ToolOutput::text("done"));
    assert!(
        out.text_content()
            .contains("[PostToolUse hook failed: exit 3]\nlint failed"),
        "{}",
        out.text_content()
    );

    let gk = gate(&post("true", 5.0), &dir);
    assert_eq!(
        gk.after_call(&bash("x"), &BASH, ToolOutput::text("done"))
            .text_content(),
        "done"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A hook that hangs (with a background child holding its pipes) is killed at its
/// timeout; the call is blocked (fail closed) and the gate returns.
#[test]
fn hanging_hook_is_bounded_by_its_timeout() {
    let dir = temp_dir("hook-hang");
    let gk = gate(&pre("*", "sleep 30 & sleep 30", 0.5), &dir);
    let started = Instant::now();
    let decision = gk.before_call(&bash("ls"), &BASH, &message());
    // Generous bound: the point is "not 30 seconds", not speed.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "hook hung the gate"
    );
    let GateDecision::Block(reason) = decision else {
        panic!("a timed-out PreToolUse hook must block");
    };
    assert!(reason.contains("timed out"), "{reason}");

    let gk = gate(&post("sleep 30", 0.5), &dir);
    let started = Instant::now();
    let out = gk.after_call(&bash("ls"), &BASH, ToolOutput::text("done"));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        out.text_content().contains("timed out"),
        "{}",
        out.text_content()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn crashing_hook_blocks() {
    let dir = temp_dir("hook-crash");
    let gk = gate(&pre("*", "echo dying; kill -9 $$", 5.0), &dir);
    let GateDecision::Block(reason) = gk.before_call(&bash("ls"), &BASH, &message()) else {
        panic!("a crashed PreToolUse hook must block");
    };
    assert!(reason.contains("killed by a signal"), "{reason}");
    let gk = gate(&pre("*", "/nonexistent/guard.sh", 5.0), &dir);
    assert!(matches!(
        gk.before_call(&bash("ls"), &BASH, &message()),
        GateDecision::Block(_)
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn permission_runs_before_hooks() {
    let dir = temp_dir("hook-order");
    let settings = format!(
        r#"{{"permissionMode": "plan", "hooks": {}}}"#,
        pre("*", "touch hook-ran", 5.0)
    );
    let gk = Gatekeeper::from_settings(
        &parse_str(&settings).unwrap(),
        Arc::new(NonInteractiveApprover),
        dir.clone(),
    )
    .unwrap();
    assert!(matches!(
        gk.before_call(&bash("rm x"), &BASH, &message()),
        GateDecision::Block(_)
    ));
    assert!(
        !dir.join("hook-ran").exists(),
        "a blocked call must not reach its hooks"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hook_settings_errors_name_the_key() {
    let err = |text: &str| HookConfig::from_json(&parse_str(text).unwrap()).unwrap_err();
    // An event focus does not know is a warning, never a refusal to start:
    // Claude Code's settings load as they are; `SubagentStop` now runs.
    let loaded = HookConfig::from_json(
        &parse_str(
            r#"{"hooks": {"PreToolUze": [], "SubagentStop": [{"hooks": [{"command": "x"}]}]}}"#,
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(loaded.hooks.len(), 1);
    assert_eq!(loaded.hooks[0].event, HookEvent::SubagentStop);
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(loaded.warnings[0].contains("hooks.PreToolUze: unknown hook event"));
    // Every other Claude Code event is read and kept, matcher or not.
    let all = HookConfig::from_json(
        &parse_str(
            r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"command": "a"}]}],
            "Stop": [{"hooks": [{"command": "b"}]}],
            "SessionStart": [{"matcher": "startup", "hooks": [{"command": "c"}]}],
            "SessionEnd": [{"hooks": [{"command": "d"}]}],
            "PreCompact": [{"matcher": "manual", "hooks": [{"command": "e"}]}],
            "Notification": [{"hooks": [{"command": "f"}]}]}}"#,
        )
        .unwrap(),
    )
    .unwrap();
    assert!(all.warnings.is_empty(), "{:?}", all.warnings);
    assert_eq!(all.hooks.len(), 6);
    assert_eq!(all.matching(HookEvent::SessionStart, "startup").count(), 1);
    assert_eq!(all.matching(HookEvent::SessionStart, "resume").count(), 0);
    assert_eq!(all.matching(HookEvent::PreCompact, "auto").count(), 0);
    // Claude Code ignores the matcher of UserPromptSubmit and Stop.
    assert_eq!(all.matching(HookEvent::Stop, "anything").count(), 1);
    assert!(
        err(r#"{"hooks": {"PreToolUse": [{"matcher": "x", "hooks": [{"command": ""}]}]}}"#)
            .contains("hooks.PreToolUse[0].hooks[0].command")
    );
    assert!(
        err(r#"{"hooks": {"PreToolUse": [{"hooks": [{"command": "x", "timeout": -1}]}]}}"#)
            .contains("timeout")
    );
    assert!(err(
        r#"{"hooks": {"PostToolUse": [{"hooks": [{"command": "x", "type": "prompt"}]}]}}"#
    )
    .contains("type"));
    assert!(
        err(r#"{"hooks": {"PostToolUse": [{"matchr": "x", "hooks": []}]}}"#).contains("matchr")
    );
    let ok = HookConfig::from_json(
        &parse_str(r#"{"hooks": {"PostToolUse": [{"hooks": [{"command": "x"}]}]}}"#).unwrap(),
    )
    .unwrap();
    assert_eq!(
        ok.hooks[0].timeout,
        focus_tools::gates::hooks::DEFAULT_HOOK_TIMEOUT
    );
}

/// Every matcher example of Claude Code's hooks documentation, and a few more
/// edges, against focus's tools (under focus's names: `bash`, and `<server>__<tool>`
/// for MCP) and tools focus does not have (`NotebookEdit`, `BashOutput`), matching
/// what Claude Code matches: names compared whole, anything else an unanchored
/// regular expression, `*` and empty for everything.
#[test]
fn claude_code_matcher_examples_match_what_they_match_there() {
    let subjects = [
        "bash",
        "edit",
        "write",
        "read",
        "find",
        "NotebookEdit",
        "BashOutput",
        "memory__create_entities",
        "memory__read_graph",
        "filesystem__write_file",
        "filesystem__read_file",
    ];
    let table: [(&str, &[&str]); 12] = [
        ("Bash", &["bash"]),
        ("Edit|Write", &["edit", "write"]),
        ("Notebook.*", &["NotebookEdit"]),
        (
            "mcp__memory__.*",
            &["memory__create_entities", "memory__read_graph"],
        ),
        ("mcp__.*__write.*", &["filesystem__write_file"]),
        ("*", &subjects),
        ("", &subjects),
        ("Ba.h", &["bash", "BashOutput"]),
        ("^Bash$", &["bash"]),
        ("Glob", &["find"]),
        // Claude Code: "compared as an exact string and matches no tool".
        ("mcp__memory", &[]),
        // focus's older glob form still works.
        (
            "memory__*|BASH",
            &["bash", "memory__create_entities", "memory__read_graph"],
        ),
    ];
    for (matcher, expected) in table {
        let settings = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": {}, "hooks": [{{"command": "true"}}]}}]}}}}"#,
            focus_core::json::Value::from(matcher).to_json_string()
        );
        let config = HookConfig::from_json(&parse_str(&settings).unwrap()).unwrap();
        let matched: Vec<&str> = subjects
            .iter()
            .copied()
            .filter(|s| config.matching(HookEvent::PreToolUse, s).next().is_some())
            .collect();
        assert_eq!(matched, expected, "matcher {matcher:?}");
    }
    // No matcher at all: everything.
    let config = HookConfig::from_json(
        &parse_str(r#"{"hooks": {"PreToolUse": [{"hooks": [{"command": "true"}]}]}}"#).unwrap(),
    )
    .unwrap();
    assert!(subjects
        .iter()
        .all(|s| config.matching(HookEvent::PreToolUse, s).next().is_some()));
    // A matcher that is no regular expression is an error naming where it is.
    let bad = HookConfig::from_json(
        &parse_str(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"command": "x"}]}]}}"#,
        )
        .unwrap(),
    )
    .unwrap_err();
    assert!(bad.contains("hooks.PreToolUse[0].matcher"), "{bad}");
}

/// The hook's reason comes first and whole, after a long command; the command
/// follows on its own line, cut; escapes in the output are removed.
#[test]
fn a_blocking_hooks_reason_reaches_the_user_whole() {
    let dir = temp_dir("hook-reason");
    let long_command = format!(
        "cat >> /nonexistent-dir/audit.log; echo 'the audit log cannot be written: \x1b[31mread-only\x1b[0m file system' >&2; exit 2 # {}",
        "x".repeat(400)
    );
    let gk = gate(&pre("Bash", &long_command, 5.0), &dir);
    let GateDecision::Block(reason) = gk.before_call(&bash("ls"), &BASH, &message()) else {
        panic!("the hook did not block");
    };
    let first = reason.lines().next().unwrap();
    assert!(
        first.starts_with("`bash` was blocked by a PreToolUse hook (exit 2): "),
        "{reason}"
    );
    assert!(
        reason.contains("the audit log cannot be written: read-only file system"),
        "{reason}"
    );
    assert!(!reason.contains('\x1b'), "{reason:?}");
    let last = reason.lines().last().unwrap();
    assert!(
        last.starts_with("(the hook's command: `cat >> /nonexistent-dir"),
        "{last}"
    );
    assert!(last.len() < 300, "{last}");
    let _ = std::fs::remove_dir_all(&dir);
}
