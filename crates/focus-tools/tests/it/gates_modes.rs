//! Permission modes × tools, rules, approvals, and plan mode's promise: nothing
//! writes, whatever the model asks.

use crate::support::gates::*;
use focus_core::json::parse_str;
use focus_core::message::ToolCall;
use focus_core::tool::{GateDecision, Tool, ToolGate};
use focus_tools::gates::{
    ApprovalAnswer, Decision, GateConfig, Gatekeeper, Mode, NonInteractiveApprover,
    PermissionConfig,
};
use std::sync::Arc;

fn gate(mode: Mode, settings: &str, approver: Arc<dyn focus_tools::gates::Approver>) -> Gatekeeper {
    let mut config = GateConfig::from_json(&parse_str(settings).unwrap()).unwrap();
    config.permissions.mode = mode;
    Gatekeeper::new(config, approver, std::env::temp_dir())
}

fn kind(decision: &Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Ask(_) => "ask",
        Decision::Deny(_) => "deny",
    }
}

#[test]
fn mode_by_tool_matrix() {
    let cases: Vec<(&str, &dyn Tool, ToolCall)> = vec![
        ("read", &READ, call("read", r#"{"path":"src/lib.rs"}"#)),
        (
            "write",
            &WRITE,
            call("write", r#"{"path":"a.txt","content":"x"}"#),
        ),
        (
            "edit",
            &EDIT,
            call("edit", r#"{"path":"a.txt","oldText":"x","newText":"y"}"#),
        ),
        ("read-only bash", &BASH, bash("git status && ls -la | head")),
        ("writing bash", &BASH, bash("cargo build")),
        ("workspace-file bash", &BASH, bash("mkdir -p build")),
        (
            "mcp tool",
            &MCP,
            call("github__create_issue", r#"{"title":"x"}"#),
        ),
        (
            "write outside the project",
            &WRITE,
            call(
                "write",
                r#"{"path":"/nonexistent-focus/a.txt","content":"x"}"#,
            ),
        ),
        (
            "write .git/config",
            &WRITE,
            call("write", r#"{"path":".git/config","content":"x"}"#),
        ),
        (
            "edit .focus/settings.json",
            &EDIT,
            call(
                "edit",
                r#"{"path":".focus/settings.json","oldText":"x","newText":"y"}"#,
            ),
        ),
    ];
    // Expected decision per mode: default, accept-edits, plan, auto.
    let expected: &[[&str; 4]] = &[
        ["allow", "allow", "allow", "allow"],
        ["ask", "allow", "deny", "allow"],
        ["ask", "allow", "deny", "allow"],
        ["allow", "allow", "allow", "allow"],
        ["ask", "ask", "deny", "allow"],
        ["ask", "allow", "deny", "allow"],
        ["ask", "ask", "deny", "allow"],
        ["ask", "ask", "deny", "allow"],
        ["ask", "ask", "deny", "ask"],
        ["ask", "ask", "deny", "ask"],
    ];
    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::AllowOnce));
    let gk = gate(Mode::Default, "{}", approver);
    let mut failures = Vec::new();
    for ((label, tool, call), row) in cases.iter().zip(expected) {
        for (mode, want) in Mode::ALL.iter().zip(row) {
            gk.set_mode(*mode);
            let got = gk.decide(call, *tool);
            if kind(&got) != *want {
                failures.push(format!(
                    "{label} in {}: want {want}, got {got:?}",
                    mode.as_str()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn plan_mode_tells_the_model_why() {
    let gk = gate(Mode::Plan, "{}", Arc::new(NonInteractiveApprover));
    let GateDecision::Block(reason) = gk.before_call(&bash("rm -rf build"), &BASH, &message())
    else {
        panic!("rm allowed in plan mode");
    };
    assert!(reason.contains("plan mode"), "{reason}");
    assert!(reason.contains("rm"), "{reason}");
    let GateDecision::Block(reason) =
        gk.before_call(&call("write", r#"{"path":"x"}"#), &WRITE, &message())
    else {
        panic!("write allowed in plan mode");
    };
    assert!(
        reason.contains("plan mode") && reason.contains("write"),
        "{reason}"
    );
}

/// Every command the gate lets through in plan mode is really run in a scratch
/// directory; afterwards the directory must be exactly as it was. The approver
/// would allow anything, so only the mode stands in the way.
#[test]
fn plan_mode_never_writes_whatever_is_asked() {
    let dir = temp_dir("plan");
    std::fs::write(dir.join("keep.txt"), "original").unwrap();
    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::AllowAlways));
    let settings = r#"{"permissions": {"allow": ["bash", "write", "edit", "github__*"]}}"#;
    let gk = gate(Mode::Plan, settings, approver.clone());
    let attempts = [
        "echo x > f",
        "echo x >> keep.txt",
        "ls > listing",
        "tee f < keep.txt",
        "cat keep.txt | tee copy.txt",
        "sed -i 's/original/changed/' keep.txt",
        "sed 'w out' keep.txt",
        "echo $(rm keep.txt)",
        "echo `touch made`",
        "ls $(touch made2)",
        "bash -c 'touch made3'",
        "sh -c \"echo x > f2\"",
        "python3 -c 'open(\"p\",\"w\").write(\"x\")'",
        "perl -e 'open(F,\">p2\")'",
        "rm keep.txt",
        "mv keep.txt moved.txt",
        "cp keep.txt copy2.txt",
        "touch t",
        "mkdir d",
        "find . -name keep.txt -delete",
        "find . -exec touch {}.x \\;",
        "sort -o sorted keep.txt",
        "ls; touch after-semicolon",
        "ls && touch after-and",
        "false || touch after-or",
        "ls | xargs touch",
        "echo keep.txt | xargs rm",
        "(touch in-subshell)",
        "{ touch in-group; }",
        "cat <(touch in-procsub)",
        "ls | tee >(cat > in-out-procsub)",
        "$'\\x74ouch' hex-name",
        "\"t\"ouch quoted-name",
        "env touch via-env",
        "timeout 5 touch via-timeout",
        "X=1 touch with-assignment",
        "PATH=. ls",
        "git init",
        "dd if=keep.txt of=dd-copy",
        "ln -s keep.txt link",
        "chmod 000 keep.txt",
        "truncate -s 0 keep.txt",
        "echo x 1>f3",
        "echo x &> f4",
        "cat keep.txt >| f5",
        // Read-only commands may run (and must not write either).
        "ls -la",
        "cat keep.txt | wc -c",
        "grep -r original . 2>/dev/null",
        "git status 2>/dev/null || true",
        "find . -name '*.txt'",
        "sed -n 1p keep.txt",
    ];
    let mut ran = 0;
    for command in attempts {
        if gk.before_call(&bash(command), &BASH, &message()) == GateDecision::Allow {
            ran += 1;
            let status = std::process::Command::new("sh")
                .arg("-c")
                .arg(command)
                .current_dir(&dir)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .unwrap();
            let _ = status;
        }
    }
    for (args, tool) in [
        (r#"{"path":"w.txt","content":"x"}"#, &WRITE),
        (r#"{"path":"keep.txt"}"#, &EDIT),
    ] {
        assert_ne!(
            gk.before_call(&call(tool.name, args), tool, &message()),
            GateDecision::Allow
        );
    }
    assert_ne!(
        gk.before_call(&call("github__create_issue", "{}"), &MCP, &message()),
        GateDecision::Allow
    );
    let mut entries: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    assert_eq!(entries, vec!["keep.txt"], "plan mode let something write");
    assert_eq!(
        std::fs::read_to_string(dir.join("keep.txt")).unwrap(),
        "original"
    );
    assert_eq!(ran, 6, "the read-only commands should have run");
    assert_eq!(approver.count(), 0, "plan mode never asks");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn deny_rules_win_in_every_mode() {
    let settings = r#"{"permissions": {"allow": ["bash", "read"], "deny": ["bash(git push:*)", "read(*.env)"]}}"#;
    for mode in Mode::ALL {
        let gk = gate(
            mode,
            settings,
            Arc::new(RecordingApprover::new(ApprovalAnswer::AllowOnce)),
        );
        for cmd in [
            "git push",
            "git push --force origin main",
            "ls && git push",
            "sudo git push",
        ] {
            let d = gk.decide(&bash(cmd), &BASH);
            assert!(
                matches!(d, Decision::Deny(ref r) if r.contains("git push")),
                "{cmd} in {mode:?}: {d:?}"
            );
        }
        let d = gk.decide(&call("read", r#"{"path":"prod.env"}"#), &READ);
        assert_eq!(kind(&d), "deny", "{mode:?}");
        assert_eq!(
            kind(&gk.decide(&call("read", r#"{"path":"a.rs"}"#), &READ)),
            "allow"
        );
    }
}

#[test]
fn allow_and_ask_rules() {
    let settings = r#"{"permissions": {
        "allow": ["bash(cargo test:*)", "bash(npm run build)", "github__*", "bash(git commit:*)"],
        "ask": ["bash(git log:*)"]}}"#;
    let gk = gate(Mode::Default, settings, Arc::new(NonInteractiveApprover));
    let verdicts = [
        ("cargo test", "allow"),
        ("cargo test -p focus-tools -- --nocapture", "allow"),
        ("cargo test && ls", "allow"),
        ("cargo test && cargo build", "ask"),
        ("cargo testing", "ask"),
        ("npm run build", "allow"),
        ("npm run build --watch", "ask"),
        ("git log", "ask"),
        ("cargo test 2>&1 | tail -20", "allow"),
    ];
    for (cmd, want) in verdicts {
        assert_eq!(kind(&gk.decide(&bash(cmd), &BASH)), want, "{cmd}");
    }
    assert_eq!(
        kind(&gk.decide(&call("github__create_issue", "{}"), &MCP)),
        "allow"
    );
    // The commit form coding agents use: a message in a quoted here-document.
    let commit =
        "git add -A && git commit -m \"$(cat <<'EOF'\nFix the parser's bug (again)\n\nEOF\n)\"";
    assert_eq!(
        kind(&gk.decide(&bash(commit), &BASH)),
        "ask",
        "git add is not allowed"
    );
    let commit = &commit["git add -A && ".len()..];
    assert_eq!(kind(&gk.decide(&bash(commit), &BASH)), "allow");
    gk.set_mode(Mode::Auto);
    assert_eq!(
        kind(&gk.decide(&bash("git log"), &BASH)),
        "allow",
        "auto mode never asks"
    );
}

#[test]
fn approvals_once_always_and_denied() {
    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::AllowOnce));
    let gk = gate(Mode::Default, "{}", approver.clone());
    assert_eq!(
        gk.before_call(&bash("cargo build"), &BASH, &message()),
        GateDecision::Allow
    );
    assert_eq!(
        gk.before_call(&bash("cargo build"), &BASH, &message()),
        GateDecision::Allow
    );
    assert_eq!(approver.count(), 2, "allow once asks every time");
    let request = approver.asked.lock().unwrap()[0].clone();
    assert_eq!(request.tool_name, "bash");
    assert_eq!(request.summary, "cargo build");
    assert_eq!(request.always_rule, "bash(cargo build:*)");
    assert!(!request.reason.is_empty());

    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::AllowAlways));
    let gk = gate(Mode::Default, "{}", approver.clone());
    assert_eq!(
        gk.before_call(&bash("cargo build"), &BASH, &message()),
        GateDecision::Allow
    );
    assert_eq!(
        gk.before_call(&bash("cargo build --release"), &BASH, &message()),
        GateDecision::Allow
    );
    assert_eq!(approver.count(), 1, "allow always is remembered");
    assert_eq!(gk.session_rules(), vec!["bash(cargo build:*)"]);
    gk.before_call(&bash("cargo clean"), &BASH, &message());
    assert_eq!(approver.count(), 2, "a different command asks again");
    let compound = "cargo fmt && rm -f *.orig";
    gk.before_call(&bash(compound), &BASH, &message());
    gk.before_call(&bash(compound), &BASH, &message());
    assert_eq!(
        approver.count(),
        3,
        "allow always remembers a compound line exactly"
    );
    gk.before_call(&bash("cargo fmt && rm -f *.rs"), &BASH, &message());
    assert_eq!(approver.count(), 4, "…and only that line");
    gk.before_call(&call("github__create_issue", "{}"), &MCP, &message());
    gk.before_call(
        &call("github__create_issue", r#"{"x":1}"#),
        &MCP,
        &message(),
    );
    assert_eq!(
        approver.count(),
        5,
        "allow always covers the whole MCP tool"
    );

    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::Deny(
        "use make instead".into(),
    )));
    let gk = gate(Mode::Default, "{}", approver);
    let GateDecision::Block(reason) = gk.before_call(&bash("cargo build"), &BASH, &message())
    else {
        panic!("denied call ran");
    };
    assert!(
        reason.contains("use make instead") && reason.contains("Do not retry"),
        "{reason}"
    );
}

#[test]
fn non_interactive_mode_denies_and_says_do_not_retry() {
    let gk = gate(Mode::Default, "{}", Arc::new(NonInteractiveApprover));
    let GateDecision::Block(reason) = gk.before_call(&bash("rm -rf target"), &BASH, &message())
    else {
        panic!("non-interactive approval allowed a call");
    };
    assert!(reason.contains("Do not retry"), "{reason}");
    assert!(reason.contains("non-interactively"), "{reason}");
    assert_eq!(
        gk.before_call(&bash("ls"), &BASH, &message()),
        GateDecision::Allow
    );
}

#[test]
fn unwired_shell_tool_still_gets_the_judge() {
    let unwired = FakeTool {
        name: "bash",
        kind: Kind::UnwiredShell,
    };
    let gk = gate(Mode::Plan, "{}", Arc::new(NonInteractiveApprover));
    assert_eq!(gk.decide(&bash("git diff"), &unwired), Decision::Allow);
    assert_eq!(kind(&gk.decide(&bash("git commit -m x"), &unwired)), "deny");
}

#[test]
fn settings_errors_name_the_key() {
    let err = |text: &str| PermissionConfig::from_json(&parse_str(text).unwrap()).unwrap_err();
    assert!(err(r#"{"permissionMode": "yolo"}"#).contains("yolo"));
    assert!(err(r#"{"permissions": {"alow": []}}"#).contains("permissions.alow"));
    assert!(err(r#"{"permissions": {"allow": "bash"}}"#).contains("permissions.allow"));
    assert!(err(r#"{"permissions": {"deny": ["ok", 3]}}"#).contains("permissions.deny[1]"));
    assert!(err(r#"{"permissions": {"allow": ["bash(x"]}}"#).contains("permissions.allow[0]"));
    let ok = PermissionConfig::from_json(
        &parse_str(r#"{"permissionMode": "acceptEdits", "model": "x"}"#).unwrap(),
    );
    assert_eq!(ok.unwrap().mode, Mode::AcceptEdits);
    assert_eq!(
        PermissionConfig::from_json(&focus_core::json::Value::Null)
            .unwrap()
            .mode,
        Mode::Default
    );
}
