//! An MCP server over streamable HTTP through the real binary: the session the
//! server handed out comes back on every request, and ends with a `DELETE` when
//! focus exits.

use crate::support::*;
use focus_core::json::parse_str;
use focus_testkit::server::{ScriptedResponse, TestServer};

/// A streamable HTTP MCP server with one tool, `shout`, handing out the session
/// `sess-7`.
fn session_server() -> TestServer {
    TestServer::responder(|request| {
        if request.method == "DELETE" {
            return ScriptedResponse::new(200);
        }
        let message = parse_str(&request.body_text()).unwrap_or_default();
        let id = message["id"].to_json_string();
        let json = |result: &str| {
            ScriptedResponse::json(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#
            ))
        };
        match message["method"].as_str().unwrap_or("") {
            "initialize" => json(
                r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}"#,
            )
            .header("Mcp-Session-Id", "sess-7"),
            "tools/list" => json(
                r#"{"tools":[{"name":"shout","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}"#,
            ),
            "tools/call" => json(r#"{"content":[{"type":"text","text":"LOUD"}]}"#),
            _ => ScriptedResponse::new(202),
        }
    })
}

#[test]
fn the_session_ends_with_a_delete_when_focus_exits() {
    let s = Sandbox::new();
    let mcp = session_server();
    std::fs::write(
        s.home.join("settings.json"),
        format!(
            r#"{{"mcpServers":{{"web":{{"url":"{}/mcp"}}}}}}"#,
            mcp.url()
        ),
    )
    .unwrap();
    let model = mock(
        r#"{"name":"m","steps":[
      {"reply":{"toolCalls":[{"name":"web__shout","arguments":{"text":"x"}}]}},
      {"reply":{"text":"done"}}]}"#,
    );
    s.write_models(&model.url());
    let out = run_command(
        s.cmd(&[
            "-p",
            "--permission-mode",
            "auto",
            "--model",
            "mock-openai/m1",
            "go",
        ]),
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(model.requests()[1].body_text().contains("LOUD"));
    let requests = mcp.requests();
    let last = requests.last().unwrap();
    assert_eq!(last.method, "DELETE", "{requests:?}");
    assert_eq!(last.header("Mcp-Session-Id"), Some("sess-7"));
    assert!(requests[1..]
        .iter()
        .all(|r| r.header("Mcp-Session-Id") == Some("sess-7")));
}
