//! Interactive mode's smaller promises in a real terminal (tmux, as in
//! [`crate::interactive`]): a model switch takes the model's thinking level,
//! an empty session leaves no file, an approval's wait is not the tool's time,
//! `/compact` works from three exchanges on.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;
use std::time::{Duration, Instant};

/// `/model` to a reasoning model while thinking is off turns thinking on at
/// the default level (medium, as pi); the next request asks for it.
#[test]
fn a_switch_to_a_reasoning_model_takes_its_thinking_level() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"m","steps":[{"reply":{"text":"answered"}}]}"#);
    s.write_models(&server.url());
    // A second provider with a reasoning model.
    let models = std::fs::read_to_string(s.home.join("models.json")).unwrap();
    let deep = format!(
        r#""mock-deep":{{"baseUrl":"{}/v1","api":"openai-completions","apiKey":"k","models":[{{"id":"deep","reasoning":true,"contextWindow":100000,"maxTokens":4096}}]}},"#,
        server.url()
    );
    let models = models.replacen(r#""providers":{"#, &format!(r#""providers":{{{deep}"#), 1);
    std::fs::write(s.home.join("models.json"), models).unwrap();
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.wait_for("thinking off", "thinking off");
    pane.send(
        "/model mock-deep/deep",
        "model: mock-deep/deep · thinking medium",
    );
    pane.send("think please", "answered");
    let body = server.requests().last().unwrap().body_text();
    assert!(body.contains(r#""reasoning_effort":"medium""#), "{body}");
    // A level chosen is kept by the next switch.
    pane.send("/thinking high", "thinking: high");
    pane.send(
        "/model mock-openai/m1",
        "model: mock-openai/m1 · thinking high",
    );
}

/// A session left before anything was said leaves no file, and `/resume`
/// does not offer empty sessions.
#[test]
fn an_empty_session_is_not_saved() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(r#"{"name":"m","steps":[{"reply":{"text":"answered"}}]}"#);
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("/name not-yet", "session named");
    pane.send("/quit", "FOCUS-EXITED-0");
    assert!(s.session_files().is_empty(), "{:?}", s.session_files());
    drop(pane);
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("/resume", "no saved sessions for this directory");
    pane.send("hello", "answered");
    pane.wait_until("the session file", || s.session_files().len() == 1);
    pane.send("/new", "new session started");
    pane.send("/resume", "recent sessions");
    let screen = pane.visible_screen();
    assert!(!screen.contains("0 msgs"), "{screen}");
}

/// While the approval dialog waits for the user, the call's header says so
/// and its clock stands still: seconds spent deciding are not the tool's.
#[test]
fn an_approval_stops_the_tool_clock() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"a","steps":[
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch made.txt"}}]}},
      {"reply":{"text":"made it"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.type_text("make a file");
    pane.keys(&["Enter"]);
    pane.wait_for_visible("the dialog", &["[y] allow once", "waiting for your answer"]);
    // For three seconds of the test's clock, the header shows the same time.
    let header = |screen: &str| {
        screen
            .lines()
            .find(|l| l.contains("bash touch made.txt"))
            .unwrap_or_default()
            .to_string()
    };
    let first = header(&pane.visible_screen());
    let start = Instant::now();
    pane.wait_until("three seconds of a still clock", || {
        let now = header(&pane.visible_screen());
        assert_eq!(now, first, "the clock moved while the user decided");
        start.elapsed() >= Duration::from_secs(3)
    });
    pane.keys(&["y"]);
    let screen = pane.wait_for("the answer", "made it");
    let done = header(&screen);
    let seconds: f64 = done
        .rsplit(" · ")
        .next()
        .and_then(|t| t.trim().strip_suffix('s'))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no time in {done:?}"));
    assert!(seconds < 3.0, "the wait was counted: {done:?}");
}

/// `/compact` on a history of three exchanges compacts it (the last exchange
/// kept, the others summarized).
#[test]
fn compact_works_on_three_exchanges() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock_with_summarizer(
        r#"{"name":"c","steps":[{"reply":{"text":"reply one"}},{"reply":{"text":"reply two"}},{"reply":{"text":"reply three"}}]}"#,
        r#"{"name":"s","steps":[{"reply":{"text":"the summary of it all"}}]}"#,
    );
    s.write_models(&server.url());
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.send("one", "reply one");
    pane.send("two", "reply two");
    pane.send("three", "reply three");
    pane.send("/compact", "≡ summary of the earlier conversation");
    assert!(!pane.screen().contains("nothing to compact"));
}
