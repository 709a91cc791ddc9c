//! Approvals in a real terminal (tmux): typing cannot answer a dialog by
//! accident, "always allow" takes Shift+Tab, default mode asks before a
//! `write`, and a protected file is approved one write at a time.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;

/// The issue's reproduction: the word "draft" typed as the dialog appears
/// (its `a` used to mean "always allow `bash(rm:*)`"). Nothing runs, nothing is
/// allowed always, and the letters are in the editor.
#[test]
fn typing_as_the_dialog_appears_answers_nothing() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    std::fs::create_dir_all(s.work.join("build")).unwrap();
    let server = mock(
        r#"{"name":"a","steps":[
      {"reply":{"text":"cleaning up the build directory now","chunkDelayMs":60,
                "toolCalls":[{"name":"bash","arguments":{"command":"rm -rf build"}}]}},
      {"reply":{"text":"done"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("clean up", "cleaning");
    // Keep typing until the dialog is on screen, and a little after.
    let mut typed = 0;
    pane.wait_until("the dialog while typing", || {
        pane.type_text("draft ");
        typed += 1;
        pane.visible_screen().contains("wants to run")
    });
    pane.type_text("draft");
    // The letters stay in the editor.
    pane.wait_for_visible(
        "the dialog's keys",
        &["[y] allow once", "[Shift+Tab] always allow", "draft"],
    );
    assert!(s.work.join("build").exists(), "rm ran while the user typed");
    pane.keys(&["Escape"]);
    pane.wait_for("the abort", "not run (you aborted)");
    assert!(s.work.join("build").exists());
    assert!(typed >= 1);
}

/// `a` no longer means always; Shift+Tab does, and says so.
#[test]
fn always_allow_takes_shift_tab() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"a","steps":[
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch one.txt"}}]}},
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch two.txt"}}]}},
      {"reply":{"text":"both made"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("make them", "[y] allow once");
    pane.keys(&["a"]);
    pane.keys(&["BTab"]);
    pane.wait_for("the answer", "always allowed this session (bash(touch:*))");
    pane.wait_for("the second call ran unasked", "both made");
    assert!(s.work.join("one.txt").exists() && s.work.join("two.txt").exists());
}

/// Default mode asks before `write`; "always" there allows every edit for the
/// session; a protected file still asks, with no "always".
#[test]
fn default_mode_asks_before_edits_and_protected_files_every_time() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"w","steps":[
      {"reply":{"toolCalls":[{"name":"write","arguments":{"path":"a.txt","content":"one"}}]}},
      {"reply":{"toolCalls":[{"name":"edit","arguments":{"path":"a.txt","edits":[{"oldText":"one","newText":"two"}]}}]}},
      {"reply":{"toolCalls":[{"name":"write","arguments":{"path":".focus/settings.json","content":"{}"}}]}},
      {"reply":{"text":"all done"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send(
        "write it",
        "[Shift+Tab] always allow all edits (write, edit)",
    );
    assert!(
        !s.work.join("a.txt").exists(),
        "write ran before the answer"
    );
    pane.keys(&["BTab"]);
    let screen = pane.wait_for_visible(
        "the protected file's dialog",
        &[".focus/settings.json", "[y] allow once", "is protected"],
    );
    assert_eq!(
        std::fs::read_to_string(s.work.join("a.txt")).unwrap(),
        "two"
    );
    assert!(!screen.contains("Shift+Tab"), "{screen}");
    pane.keys(&["y"]);
    pane.wait_for("the end", "all done");
    assert!(s.work.join(".focus/settings.json").exists());
}
