//! focus's own MCP client (focus-tools' `McpManager`, the one `mcpServers`
//! settings use) talking to `focus mcp serve`, over stdio and over HTTP:
//! every tool is listed, with its schema, and called, and does its work.

use super::*;
use focus_core::cancel::CancelToken;
use focus_core::tool::ToolContext;
use focus_tools::mcp::{McpManager, McpServerConfig, ServerState};
use focus_tools::sandbox::Sandbox as ToolSandbox;
use std::sync::Arc;

/// The sandbox's environment, for a server the client starts.
fn environment(s: &Sandbox) -> Vec<(String, String)> {
    let path = |p: &std::path::Path| p.to_string_lossy().into_owned();
    vec![
        ("FOCUS_HOME".into(), path(&s.home)),
        ("HOME".into(), path(&s.root)),
        ("FOCUS_OFFLINE".into(), "1".into()),
        ("NO_COLOR".into(), "1".into()),
    ]
}

/// Calls every tool of `manager` (served as `focus__NAME`) and checks each
/// did its work in `s`.
fn call_every_tool(manager: &McpManager, s: &Sandbox) {
    let status = &manager.status()[0];
    assert_eq!(status.state, ServerState::Running, "{status:?}");
    assert!(status.server_info.starts_with("focus"), "{status:?}");
    let tools = manager.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    for wanted in [
        "read", "write", "edit", "bash", "grep", "find", "ls", "agent",
    ] {
        assert!(
            names.contains(&format!("focus__{wanted}").as_str()),
            "{names:?}"
        );
    }
    for tool in &tools {
        assert_eq!(
            tool.parameters()["type"].as_str(),
            Some("object"),
            "{}",
            tool.name()
        );
    }
    let cancel = CancelToken::new();
    let ctx = ToolContext {
        call_id: "t",
        cancel: &cancel,
        on_update: &|_| {},
    };
    for (name, args, expect) in every_tool_call() {
        let tool = tools
            .iter()
            .find(|t| t.name() == format!("focus__{name}"))
            .unwrap();
        let output = tool.execute(&args, &ctx);
        let text = output.text_content();
        assert!(!output.is_error, "{name}: {text}");
        assert!(text.contains(expect), "{name}: {text}");
    }
    let made = std::fs::read_to_string(s.work.join("new.txt")).unwrap();
    assert_eq!(made, "changed by a client\n");
}

#[test]
fn focus_lists_and_calls_every_tool_of_focus_over_stdio() {
    let s = project();
    let mut config = McpServerConfig::stdio(
        "focus",
        focus_binary(),
        &["mcp", "serve", "--permission-mode", "auto"],
    );
    config.env = environment(&s);
    config.cwd = Some(s.work.to_string_lossy().into_owned());
    config.startup_timeout = ANSWER_LIMIT;
    let manager = McpManager::start(vec![config], &s.root.join("mcp-logs"));
    call_every_tool(&manager, &s);
}

#[test]
fn focus_lists_and_calls_every_tool_of_focus_over_http() {
    let s = project();
    let server = HttpServer::start(&s, &["--permission-mode", "auto"]);
    let mut config = McpServerConfig::stdio("focus", "", &[]);
    config.url = Some(server.url.clone());
    config.headers = vec![("Authorization".into(), format!("Bearer {TOKEN}"))];
    config.startup_timeout = ANSWER_LIMIT;
    let http = Arc::new(focus_transport::std_http::StdHttpTransport::new());
    let manager = McpManager::start_with_http(
        vec![config],
        &s.root.join("mcp-logs"),
        Some(http),
        Arc::new(ToolSandbox::off()),
    );
    call_every_tool(&manager, &s);
}

#[test]
fn without_the_token_focus_cannot_connect() {
    let s = project();
    let server = HttpServer::start(&s, &[]);
    let mut config = McpServerConfig::stdio("focus", "", &[]);
    config.url = Some(server.url.clone());
    config.headers = vec![(
        "Authorization".into(),
        "Bearer wrong-token-0123456789".into(),
    )];
    let http = Arc::new(focus_transport::std_http::StdHttpTransport::new());
    let manager = McpManager::start_with_http(
        vec![config],
        &s.root.join("mcp-logs"),
        Some(http),
        Arc::new(ToolSandbox::off()),
    );
    let state = manager.status()[0].state.to_string();
    assert!(
        state.starts_with("failed") && state.contains("401"),
        "{state}"
    );
    assert!(!state.contains(TOKEN), "{state}");
}

#[test]
fn approvals_no_client_can_give_are_refused_and_plan_mode_changes_nothing() {
    let s = project();
    // Default mode: a write would ask; nobody can answer, so it is refused.
    let mut server = RawServer::start(&s, &[]);
    let answer = server.request(
        1,
        "tools/call",
        r#"{"name":"write","arguments":{"path":"x.txt","content":"no"}}"#,
    );
    assert_eq!(
        answer["result"]["isError"].as_bool(),
        Some(true),
        "{answer}"
    );
    assert!(!s.work.join("x.txt").exists());
    // Reading needs no approval.
    let read = server.request(
        2,
        "tools/call",
        r#"{"name":"read","arguments":{"path":"a.txt"}}"#,
    );
    assert_eq!(read["result"]["isError"].as_bool(), Some(false), "{read}");
    drop(server);
    // Plan mode: neither a write nor a shell command that writes.
    let mut plan = RawServer::start(&s, &["--permission-mode", "plan"]);
    let bash = plan.request(
        3,
        "tools/call",
        r#"{"name":"bash","arguments":{"command":"touch y.txt"}}"#,
    );
    assert_eq!(bash["result"]["isError"].as_bool(), Some(true), "{bash}");
    let agent = plan.request(
        4,
        "tools/call",
        r#"{"name":"agent","arguments":{"prompt":"write z.txt"}}"#,
    );
    assert!(agent["result"].as_object().is_some(), "{agent}");
    assert!(!s.work.join("y.txt").exists());
    assert!(!s.work.join("z.txt").exists());
}
