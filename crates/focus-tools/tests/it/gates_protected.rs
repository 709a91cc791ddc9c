//! Protected paths (`.git/config`, `.git/hooks/`, `.focus/`…) and the edit
//! approvals of default mode: what asks, in which mode, and what "always" allows.

use crate::support::gates::*;
use focus_core::json::parse_str;
use focus_core::tool::{GateDecision, ToolGate};
use focus_tools::gates::{
    ApprovalAnswer, Decision, GateConfig, Gatekeeper, Mode, NonInteractiveApprover,
};
use std::path::Path;
use std::sync::Arc;

fn gate_in(
    project: &Path,
    mode: Mode,
    protect: bool,
    approver: Arc<dyn focus_tools::gates::Approver>,
) -> Gatekeeper {
    let mut config = GateConfig::from_json(&parse_str("{}").unwrap()).unwrap();
    config.permissions.mode = mode;
    config.permissions.protect_paths = protect;
    Gatekeeper::new(config, approver, project.to_path_buf())
}

/// A project whose `.git` is a file pointing at a git directory elsewhere, as
/// a linked worktree or a submodule has.
fn project_with_pointed_git_dir(tag: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let root = temp_dir(tag);
    let project = root.join("p");
    let git_dir = root.join("moved.git");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::create_dir_all(git_dir.join("hooks")).unwrap();
    std::fs::write(git_dir.join("config"), "[core]\n").unwrap();
    std::fs::write(project.join(".git"), "gitdir: ../moved.git\n").unwrap();
    (project, git_dir)
}

const PROTECTED: [&str; 10] = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/info/attributes",
    ".git/modules/sub/config",
    ".focus/settings.json",
    ".claude/settings.json",
    ".codex/config.toml",
    ".pi/settings.json",
    "./src/../.focus/hooks.sh",
    ".git",
];

#[test]
fn protected_paths_ask_in_every_mode_but_plan_which_refuses() {
    let project = temp_dir("protected-modes");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::AllowOnce));
    let gk = gate_in(&project, Mode::Default, true, approver);
    let mut failures = Vec::new();
    for path in PROTECTED {
        if path == ".git" {
            continue; // a directory here: write cannot replace it anyway
        }
        let args = format!(r#"{{"path":"{path}","content":"x"}}"#);
        for mode in Mode::ALL {
            gk.set_mode(mode);
            let got = gk.decide(&call("write", &args), &WRITE);
            let ok = match (mode, &got) {
                (Mode::Plan, Decision::Deny(_)) => true,
                (Mode::Plan, _) => false,
                (_, Decision::Ask(reason)) => reason.contains("protected"),
                _ => false,
            };
            if !ok {
                failures.push(format!("{path} in {}: {got:?}", mode.as_str()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_git_dir_named_by_a_dot_git_file_and_the_file_itself_are_protected() {
    let (project, git_dir) = project_with_pointed_git_dir("protected-pointer");
    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::AllowOnce));
    let gk = gate_in(&project, Mode::Auto, true, approver);
    let outside = git_dir.join("hooks/post-checkout").display().to_string();
    for path in [".git", outside.as_str(), "../moved.git/config"] {
        let args = format!(r#"{{"path":"{path}","content":"x"}}"#);
        assert!(
            matches!(gk.decide(&call("write", &args), &WRITE), Decision::Ask(_)),
            "{path} ran unasked in auto mode"
        );
    }
    // The rest of the project is not protected in auto mode.
    let args = r#"{"path":"src/main.rs","content":"x"}"#;
    assert_eq!(gk.decide(&call("write", args), &WRITE), Decision::Allow);
}

#[test]
fn a_symbolic_link_to_a_protected_path_is_protected() {
    let project = temp_dir("protected-link");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::os::unix::fs::symlink(".git/config", project.join("innocent.txt")).unwrap();
    std::os::unix::fs::symlink(".focus", project.join("docs")).unwrap();
    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::AllowOnce));
    let gk = gate_in(&project, Mode::Auto, true, approver);
    // Reached through a link it is refused (the tool would refuse it too):
    // the user approves a protected file by its own name.
    for path in ["innocent.txt", "docs/settings.json"] {
        let args = format!(r#"{{"path":"{path}","content":"x"}}"#);
        let decision = gk.decide(&call("write", &args), &WRITE);
        let Decision::Deny(reason) = decision else {
            panic!("{path}: {decision:?}");
        };
        assert!(
            reason.contains("symbolic link to the protected file"),
            "{reason}"
        );
    }
}

#[test]
fn without_an_approver_a_protected_write_is_refused_naming_the_file_and_the_way_out() {
    let project = temp_dir("protected-print");
    let gk = gate_in(&project, Mode::Auto, true, Arc::new(NonInteractiveApprover));
    let GateDecision::Block(reason) = gk.before_call(
        &call("write", r#"{"path":".git/hooks/pre-commit","content":"x"}"#),
        &WRITE,
        &message(),
    ) else {
        panic!("a hook was written without approval");
    };
    assert!(reason.contains(".git/hooks/pre-commit"), "{reason}");
    assert!(reason.contains("--sandbox off"), "{reason}");
}

#[test]
fn always_on_a_protected_path_allows_that_one_write_only() {
    let project = temp_dir("protected-always");
    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::AllowAlways));
    let gk = gate_in(&project, Mode::Default, true, approver.clone());
    let config = call("write", r#"{"path":".git/config","content":"x"}"#);
    assert_eq!(
        gk.before_call(&config, &WRITE, &message()),
        GateDecision::Allow
    );
    assert_eq!(approver.asked.lock().unwrap()[0].always_rule, "");
    assert!(gk.session_rules().is_empty(), "{:?}", gk.session_rules());
    assert_eq!(
        gk.before_call(&config, &WRITE, &message()),
        GateDecision::Allow
    );
    assert_eq!(approver.count(), 2, "the second write was not asked");
}

#[test]
fn sandbox_off_lifts_the_protection() {
    let project = temp_dir("protected-off");
    let gk = gate_in(
        &project,
        Mode::Auto,
        false,
        Arc::new(NonInteractiveApprover),
    );
    let args = r#"{"path":".git/config","content":"x"}"#;
    assert_eq!(gk.decide(&call("write", args), &WRITE), Decision::Allow);
    gk.set_mode(Mode::AcceptEdits);
    assert_eq!(gk.decide(&call("write", args), &WRITE), Decision::Allow);
    gk.set_mode(Mode::Default);
    assert!(matches!(
        gk.decide(&call("write", args), &WRITE),
        Decision::Ask(_)
    ));
}

#[test]
fn default_mode_asks_before_edits_and_one_answer_allows_all_edits_this_session() {
    let project = temp_dir("default-edits");
    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::AllowAlways));
    let gk = gate_in(&project, Mode::Default, true, approver.clone());
    let write = call("write", r#"{"path":"a.txt","content":"x"}"#);
    let edit = call("edit", r#"{"path":"b.txt","oldText":"x","newText":"y"}"#);
    assert!(matches!(gk.decide(&edit, &EDIT), Decision::Ask(_)));
    assert_eq!(
        gk.before_call(&write, &WRITE, &message()),
        GateDecision::Allow
    );
    let asked = approver.asked.lock().unwrap()[0].clone();
    assert!(
        asked.always_rule.contains("all edits"),
        "{}",
        asked.always_rule
    );
    // Both edit tools now run unasked, protected paths still ask, bash still asks.
    assert_eq!(gk.decide(&edit, &EDIT), Decision::Allow);
    assert_eq!(gk.decide(&write, &WRITE), Decision::Allow);
    let hook = call("write", r#"{"path":".focus/settings.json","content":"{}"}"#);
    assert!(matches!(gk.decide(&hook, &WRITE), Decision::Ask(_)));
    assert!(matches!(
        gk.decide(&bash("cargo build"), &BASH),
        Decision::Ask(_)
    ));
}

#[test]
fn a_denied_edit_in_default_mode_does_not_run() {
    let project = temp_dir("default-deny");
    let approver = Arc::new(RecordingApprover::new(ApprovalAnswer::Deny("no".into())));
    let gk = gate_in(&project, Mode::Default, true, approver);
    let write = call("write", r#"{"path":"a.txt","content":"x"}"#);
    assert!(matches!(
        gk.before_call(&write, &WRITE, &message()),
        GateDecision::Block(_)
    ));
}
