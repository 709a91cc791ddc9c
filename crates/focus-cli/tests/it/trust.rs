//! A hostile project programs focus only once the user trusts the folder: its
//! `.focus/settings.json` names a hook and an MCP server that each leave a
//! marker file when they run. Without trust they never run (print, JSON, RPC
//! and plan mode, and in the interactive mode not before the dialog is
//! answered); `--trust-project` or a "yes" lets them run, and every looser
//! setting is named at the start with the file it comes from.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;
use std::path::PathBuf;

/// Writes the hostile project settings; returns the two markers (the hook's,
/// inside the project where a confined hook may write, and the MCP server's).
fn hostile_project(s: &Sandbox, extra: &str) -> (PathBuf, PathBuf) {
    let hook_marker = s.work.join("hook-ran");
    let mcp_marker = s.root.join("mcp-ran");
    std::fs::create_dir_all(s.work.join(".focus")).unwrap();
    std::fs::write(
        s.work.join(".focus/settings.json"),
        format!(
            r#"{{"theme":"dark",{extra}"hooks":{{"SessionStart":[{{"hooks":[{{"type":"command","command":"touch {}"}}]}}]}},
               "mcpServers":{{"m":{{"command":"sh","args":["-c","touch {}"]}}}}}}"#,
            hook_marker.display(),
            mcp_marker.display()
        ),
    )
    .unwrap();
    (hook_marker, mcp_marker)
}

fn settings_file(s: &Sandbox) -> String {
    s.work.join(".focus/settings.json").display().to_string()
}

/// The one line saying what was ignored.
fn ignored_line(s: &Sandbox, err: &str) -> String {
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("ignored") && l.contains("not trusted"))
        .collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    assert!(lines[0].contains(&settings_file(s)), "{err}");
    lines[0].to_string()
}

#[test]
fn untrusted_project_hooks_and_servers_never_run_outside_the_dialog() {
    let s = Sandbox::new();
    let (hook, mcp) = hostile_project(&s, "");
    for args in [
        &["-p", "hi"][..],
        &["--permission-mode", "plan", "-p", "hi"],
        &["--mode", "json", "-p", "hi"],
        &["--mode", "rpc"],
    ] {
        let out = s.run(args, "");
        let err = stderr(&out);
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(!hook.exists(), "{args:?}: the project's hook ran");
        assert!(!mcp.exists(), "{args:?}: the project's MCP server started");
        let line = ignored_line(&s, &err);
        assert!(line.contains("ignored hooks, mcpServers"), "{line}");
    }
    let out = s.run(&["mcp", "list"], "");
    assert!(!mcp.exists(), "mcp list started an untrusted server");
    ignored_line(&s, &stderr(&out));
}

#[test]
fn trust_project_runs_them_and_says_so() {
    let s = Sandbox::new();
    let (hook, mcp) = hostile_project(&s, r#""sandbox":{"enabled":false},"#);
    let out = s.run(&["--trust-project", "-p", "hi"], "");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(hook.exists() && mcp.exists(), "{err}");
    let file = settings_file(&s);
    for notice in ["1 hook", "MCP servers m", "sandbox off"] {
        assert!(
            err.contains(&format!("focus: {notice} (from {file})")),
            "{notice}: {err}"
        );
    }
    assert!(!err.contains("not trusted"), "{err}");
}

#[test]
fn a_looser_user_setting_is_named_too() {
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"sandbox":{"enabled":false},"permissionMode":"auto"}"#,
    )
    .unwrap();
    let out = s.run(&["-p", "hi"], "");
    let err = stderr(&out);
    let file = s.home.join("settings.json").display().to_string();
    assert!(
        err.contains(&format!("focus: sandbox off (from {file})")),
        "{err}"
    );
    assert!(
        err.contains(&format!("focus: permission mode auto (from {file})")),
        "{err}"
    );
}

#[test]
fn the_dialog_shows_what_is_asked_and_only_yes_trusts() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let (hook, mcp) = hostile_project(&s, "");
    let command = format!(
        "{}; echo FOCUS-EXITED-$?; sleep 30",
        Pane::focus_command(&s, &[])
    );

    // No: focus starts without them.
    let pane = Pane::launch(&s, "no", &command);
    let screen = pane.wait_for("the trust dialog", "Trust this folder?");
    assert!(
        screen.contains(&format!("touch {}", hook.display())),
        "{screen}"
    );
    assert!(screen.contains("m: starts sh -c touch"), "{screen}");
    assert!(!hook.exists() && !mcp.exists(), "ran before the answer");
    pane.type_text("y");
    pane.keys(&["Enter"]);
    pane.wait_for("the prompt", "›");
    pane.wait_for("the note", "ignored hooks, mcpServers");
    assert!(
        !hook.exists() && !mcp.exists(),
        "a bare y trusted the folder"
    );
    pane.send("/quit", "FOCUS-EXITED-0");
    drop(pane);

    // Yes: they run, and the answer is kept.
    let pane = Pane::launch(&s, "yes", &command);
    pane.wait_for("the trust dialog", "Trust this folder?");
    pane.type_text("yes");
    pane.keys(&["Enter"]);
    pane.wait_for("the prompt", "›");
    pane.wait_until("the hook and the server to run", || {
        hook.exists() && mcp.exists()
    });
    // What now applies is named, with its file.
    pane.wait_for(
        "the start notice",
        &format!("1 hook (from {}", settings_file(&s)),
    );
    assert!(s.home.join("trusted-projects.json").exists());
    pane.send("/quit", "FOCUS-EXITED-0");
    drop(pane);

    // Trusted: no dialog. The same settings asking for more: asked again.
    std::fs::remove_file(&hook).unwrap();
    let pane = Pane::launch(&s, "again", &command);
    pane.wait_for("the prompt", "›");
    pane.wait_until("the hook to run", || hook.exists());
    assert!(!pane.screen().contains("Trust this folder?"));
    pane.send("/quit", "FOCUS-EXITED-0");
    drop(pane);
    hostile_project(&s, r#""permissionMode":"auto","#);
    std::fs::remove_file(&hook).unwrap();
    let pane = Pane::launch(&s, "more", &command);
    let screen = pane.wait_for("the trust dialog", "Trust this folder?");
    assert!(screen.contains("permission mode auto"), "{screen}");
    assert!(!hook.exists(), "ran before the new question was answered");
}

/// Where a hook comes from decides its confinement: the user's own hook is
/// the user's code and writes its audit log outside the project; the same
/// hook from a (trusted) project's settings runs in the sandbox and cannot.
#[test]
fn user_hooks_run_unconfined_and_project_hooks_confined() {
    let s = Sandbox::new();
    let user_log = s.root.join("user-audit.log");
    let project_log = s.root.join("project-audit.log");
    let hook = |log: &std::path::Path| {
        format!(
            r#"{{"hooks":{{"SessionStart":[{{"hooks":[{{"type":"command","command":"echo ran >> {}"}}]}}]}}}}"#,
            log.display()
        )
    };
    std::fs::write(s.home.join("settings.json"), hook(&user_log)).unwrap();
    std::fs::create_dir_all(s.work.join(".focus")).unwrap();
    std::fs::write(s.work.join(".focus/settings.json"), hook(&project_log)).unwrap();
    let out = s.run(&["--trust-project", "-p", "hi"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&user_log).unwrap_or_default(),
        "ran\n",
        "the user's hook could not write its log: {}",
        stderr(&out)
    );
    if focus_sys::landlock::abi_version().is_none() {
        focus_testkit::skipped("this kernel has no Landlock: project hooks cannot be confined");
        return;
    }
    assert!(
        !project_log.exists(),
        "the project's hook wrote outside the project"
    );
}
