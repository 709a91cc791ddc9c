//! Scoped models (`enabledModels`, `--models`): Ctrl+P and Shift+Ctrl+P in a
//! real terminal (tmux, as in [`crate::interactive`]; Ctrl+L opens the model
//! picker) and RPC `cycle_model`
//! step through the models the patterns match, each switch recorded and the
//! next request sent to the new model.

use crate::interactive::{tmux_available, Pane};
use crate::support::*;

/// Two scripted answers.
const TWO_REPLIES: &str =
    r#"{"name":"c","steps":[{"reply":{"text":"first reply"}},{"reply":{"text":"second reply"}}]}"#;

#[test]
fn ctrl_p_cycles_within_enabled_models() {
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = mock(TWO_REPLIES);
    s.write_models(&server.url());
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"enabledModels":["mock-anthropic/m1","mock-google/*:high","mock-responses/m1"]}"#,
    )
    .unwrap();
    // Started outside the scope: Ctrl+P goes to its first model.
    let pane = Pane::start(&s, &["--model", "mock-openai/m1"]);
    pane.extended_keys();
    pane.send("hello", "first reply");

    pane.keys(&["C-p"]);
    pane.wait_for("the first scoped model", "mock-anthropic/m1 · thinking");
    pane.keys(&["C-p"]);
    // The footer and the note: one frame or two.
    pane.wait_for_visible(
        "the second, at its pattern's level",
        &[
            "mock-google/m1 · thinking high",
            "model: mock-google/m1 · thinking high · scoped",
        ],
    );
    pane.keys(&["C-p"]);
    pane.wait_for("the third", "mock-responses/m1 · thinking high");
    // Around again: only the scope's models, never mock-openai.
    pane.keys(&["C-p"]);
    pane.wait_for("the wrap to the first", "mock-anthropic/m1 · thinking");
    pane.keys(&["C-S-p"]);
    pane.wait_for(
        "Shift+Ctrl+P: back to the last",
        "mock-responses/m1 · thinking",
    );

    pane.send("again", "second reply");
    let requests = server.requests();
    assert!(
        requests[0].path.contains("/chat/completions"),
        "{}",
        requests[0].path
    );
    assert!(
        requests[1].path.contains("/responses"),
        "{}",
        requests[1].path
    );
    assert!(s.last_entry("model_change").contains("mock-responses"));
    assert!(s.last_entry("thinking_level_change").contains("\"high\""));

    // Ctrl+L (pi's selectModel) opens the model picker on the current model.
    pane.keys(&["C-l"]);
    pane.wait_for("the model picker", "❯ mock-responses/m1  ctx 100.0k");
    pane.keys(&["Escape"]);
    pane.wait_until("the picker closing", || {
        !pane.visible_screen().contains("models · ")
    });
}

#[test]
fn rpc_cycle_model_honours_the_models_flag() {
    let s = Sandbox::new();
    let server = mock(TWO_REPLIES);
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(
        &s,
        &[
            "--model",
            "mock-openai/m1",
            "--models",
            "mock-responses/*,mock-anthropic/m1:low",
        ],
    );
    let first = rpc.call(1, r#"{"id":1,"type":"cycle_model"}"#);
    let data = &first["data"];
    assert_eq!(
        data["model"]["provider"].as_str(),
        Some("mock-responses"),
        "{first:?}"
    );
    assert_eq!(data["isScoped"].as_bool(), Some(true));
    let second = rpc.call(2, r#"{"id":2,"type":"cycle_model"}"#);
    assert_eq!(
        second["data"]["model"]["provider"].as_str(),
        Some("mock-anthropic")
    );
    assert_eq!(second["data"]["thinkingLevel"].as_str(), Some("low"));
    rpc.call(3, r#"{"id":3,"type":"prompt","message":"hi"}"#);
    rpc.agent_end();
    assert!(server.requests()[0].path.contains("/v1/messages"));
    assert!(s.last_entry("model_change").contains("mock-anthropic"));
    assert!(s.last_entry("thinking_level_change").contains("\"low\""));
    // One model in scope: nothing else to switch to.
    let mut alone = RpcClient::start(
        &s,
        &["--model", "mock-openai/m1", "--models", "mock-openai/m1"],
    );
    let none = alone.call(4, r#"{"id":4,"type":"cycle_model"}"#);
    assert_eq!(none["success"].as_bool(), Some(true), "{none:?}");
    assert!(none["data"].is_null(), "{none:?}");
    alone.close();
    rpc.close();
}

#[test]
fn a_pattern_matching_nothing_is_a_warning_at_start() {
    let s = Sandbox::new();
    let server = mock(TWO_REPLIES);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--models",
            "nothing-like-it",
            "hi",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no models match pattern \"nothing-like-it\""),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out).trim(), "first reply");
}

/// With no model flag, a new session starts on the scope's first model, at
/// its pattern's thinking level (pi's order).
#[test]
fn a_new_session_starts_on_the_first_scoped_model() {
    let s = Sandbox::new();
    let server = mock(TWO_REPLIES);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--models",
            "mock-nothing/*,mock-anthropic/m1:high",
            "hi",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "first reply");
    assert!(server.requests()[0].path.contains("/v1/messages"));
    assert!(s.last_entry("model_change").contains("mock-anthropic"));
    assert!(s.last_entry("thinking_level_change").contains("\"high\""));
}
