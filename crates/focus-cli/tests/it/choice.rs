//! Which model focus picks with nothing chosen on the command line: settings,
//! then an API key in the environment, then a loopback server, then the demo.

use crate::support::*;
use focus_testkit::server::{ScriptedResponse, TestServer};

/// A fake Ollama answering `/api/tags` with one model.
fn fake_ollama() -> TestServer {
    TestServer::responder(|request| {
        if request.path == "/api/tags" {
            ScriptedResponse::json(r#"{"models":[{"name":"qwen-local:7b"}]}"#)
        } else {
            ScriptedResponse::new(404)
        }
    })
}

fn model_of(s: &Sandbox, env: &[(&str, &str)], extra: &[&str]) -> (String, String) {
    let mut args = vec!["--mode", "rpc"];
    args.extend_from_slice(extra);
    let mut cmd = s.cmd(&args);
    cmd.env_remove("FOCUS_OFFLINE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_command(cmd, "{\"type\":\"get_state\"}\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let state = &json_lines(&stdout(&out))[0]["data"]["model"];
    (
        state["provider"].as_str().unwrap_or("").to_string(),
        state["id"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn the_order_settings_env_key_local_server_demo() {
    let s = Sandbox::new();
    let ollama = fake_ollama();
    let host = format!("127.0.0.1:{}", ollama.port());
    // A closed port for "no server": bind, then drop.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();

    assert_eq!(model_of(&s, &[("OLLAMA_HOST", &closed)], &[]).0, "demo");
    assert_eq!(
        model_of(&s, &[("OLLAMA_HOST", &host)], &[]),
        ("ollama".to_string(), "qwen-local:7b".to_string())
    );
    assert_eq!(
        model_of(&s, &[("OLLAMA_HOST", &host)], &["--offline"]).0,
        "demo"
    );
    assert_eq!(
        model_of(
            &s,
            &[("OLLAMA_HOST", &host), ("OPENAI_API_KEY", "sk-fake")],
            &[]
        )
        .0,
        "openai"
    );
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"defaultProvider":"anthropic","defaultModel":"claude-sonnet-4-5"}"#,
    )
    .unwrap();
    assert_eq!(
        model_of(
            &s,
            &[("OLLAMA_HOST", &host), ("OPENAI_API_KEY", "sk-fake")],
            &[]
        ),
        ("anthropic".to_string(), "claude-sonnet-4-5".to_string())
    );
    // Flags beat everything.
    s.write_models("http://127.0.0.1:9");
    assert_eq!(
        model_of(
            &s,
            &[("OPENAI_API_KEY", "sk-fake")],
            &["--model", "mock-google/m1"]
        )
        .0,
        "mock-google"
    );
}

#[test]
fn a_local_server_is_used_end_to_end() {
    let s = Sandbox::new();
    let scenario = focus_testkit::mock_llm::Scenario::parse(
        r#"{"name":"l","steps":[{"reply":{"text":"hello from the local model"}}]}"#,
    )
    .unwrap();
    let turn = std::sync::atomic::AtomicUsize::new(0);
    let server = TestServer::responder(move |request| {
        if request.path == "/api/tags" {
            return ScriptedResponse::json(r#"{"models":[{"name":"tiny"}]}"#);
        }
        let n = turn.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        focus_testkit::mock_llm::server::respond(&scenario, n, request)
    });
    let mut cmd = s.cmd(&["-p", "--no-tools", "hi"]);
    cmd.env_remove("FOCUS_OFFLINE")
        .env("OLLAMA_HOST", format!("127.0.0.1:{}", server.port()));
    let out = run_command(cmd, "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "hello from the local model");
    assert!(stderr(&out).contains("tiny on the local ollama server"));
}

/// `--model provider/any-id` reaches a configured provider even when the id is
/// not listed (a model just pulled into a local server), as in pi.
#[test]
fn an_unlisted_model_of_a_configured_provider_is_taken_as_given() {
    let s = Sandbox::new();
    let server = mock(r#"{"name":"u","steps":[{"reply":{"text":"hi from the new model"}}]}"#);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--no-session",
            "--model",
            "mock-openai/fresh-pull:7b",
            "hi",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "hi from the new model");
    let body = server.requests()[0].body_text();
    assert!(body.contains(r#""model":"fresh-pull:7b""#), "{body}");
}

/// A reasoning model thinks at a medium level unless told otherwise (pi's
/// default); the level is the one recorded in the session.
#[test]
fn a_reasoning_model_defaults_to_medium_thinking() {
    let s = Sandbox::new();
    let server = mock(r#"{"name":"r","steps":[{"reply":{"text":"ok"}}]}"#);
    std::fs::write(
        s.home.join("models.json"),
        format!(
            r#"{{"providers":{{"thinker":{{"baseUrl":"{}/v1","api":"openai-completions","apiKey":"k",
"models":[{{"id":"deep","reasoning":true,"contextWindow":100000,"maxTokens":4096}}]}}}}}}"#,
            server.url()
        ),
    )
    .unwrap();
    let out = s.run(&["-p", "--model", "thinker/deep", "hi"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let session = std::fs::read_to_string(&s.session_files()[0]).unwrap();
    assert!(session.contains(r#""thinkingLevel":"medium""#), "{session}");
    assert!(
        server.requests()[0]
            .body_text()
            .contains(r#""reasoning_effort":"medium""#),
        "{}",
        server.requests()[0].body_text()
    );
}
