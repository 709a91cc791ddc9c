//! focus's own notes in a real terminal (tmux, as in [`crate::interactive`]):
//! a command's output never lands inside a streaming answer, and a transcript
//! rebuilt from the history (`/undo`) or redrawn (a new window size) shows the
//! notes again.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;
use std::process::Command;

/// `/session` typed while an answer streams: its block waits under the answer
/// (in the live area) and reaches the scrollback after it, so the answer's
/// rows stay together, in order.
#[test]
fn a_command_during_a_stream_does_not_split_the_answer() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    // 135 words on one line, three a chunk, 200 ms apart: about 9 s of stream.
    let words: Vec<String> = (1..=135).map(|i| format!("w{i:03}")).collect();
    let answer = format!("{} end-marker", words.join(" "));
    let server = mock(&format!(
        r#"{{"name":"m","steps":[{{"reply":{{"text":"{answer}","chunkDelayMs":200}}}}]}}"#
    ));
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.type_text("stream please");
    pane.keys(&["Enter"]);
    pane.wait_for("the stream under way", "w009");
    pane.type_text("/session");
    pane.keys(&["Enter"]);
    pane.wait_for_all(
        "the end and the session note",
        &["end-marker", "context window:"],
    );
    let screen = pane.wait_for("the idle footer", "○ ");
    let rows: Vec<&str> = screen.lines().collect();
    let first = rows.iter().position(|r| r.contains("w001")).unwrap();
    let last = rows.iter().position(|r| r.contains("end-marker")).unwrap();
    let note = rows
        .iter()
        .position(|r| r.contains("context window:"))
        .unwrap();
    assert!(
        note > last,
        "the session note is not after the answer:\n{screen}"
    );
    // Every row of the answer holds only its words, and they come in order.
    let text: Vec<&str> = rows[first..=last]
        .iter()
        .flat_map(|r| r.split_whitespace())
        .collect();
    let mut expected: Vec<&str> = words.iter().map(String::as_str).collect();
    expected.push("end-marker");
    assert_eq!(text, expected, "the answer was split:\n{screen}");
}

/// Notes said by commands (`/name`) stay on the screen after a new window size
/// (everything drawn again) and after `/undo` (the transcript rebuilt from the
/// history): they are part of what the screen shows, not only printed once.
#[test]
fn notes_come_back_after_a_full_redraw() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"m","steps":[{"reply":{"text":"first reply"}}]}"#);
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("hello", "first reply");
    pane.send("/name kept-note", "session named \"kept-note\"");
    // A new window size: everything is drawn again.
    assert!(Command::new("tmux")
        .args(["resize-window", "-t", pane.name(), "-x", "90", "-y", "30"])
        .status()
        .unwrap()
        .success());
    pane.wait_for_visible(
        "the note after the resize",
        &["session named \"kept-note\""],
    );
    // /undo rebuilds the transcript from the history: the note comes back.
    pane.send("/undo", "undone: back to before your last message");
    pane.wait_for_visible(
        "the note after /undo",
        &["session named \"kept-note\"", "undone: back"],
    );
}
