//! An MCP server's resources and prompts reach the model as tools: listed when
//! the server's `initialize` answer says it has them, answered through
//! `resources/list`, `resources/read`, `prompts/list` and `prompts/get`.

use focus_core::cancel::CancelToken;
use focus_core::json::{parse_str, Value};
use focus_core::json_object;
use focus_core::tool::{Tool, ToolOutput};
use focus_tools::mcp::{McpManager, McpServerConfig, ServerState};
use focus_tools::sandbox::Sandbox;
use focus_transport::{HttpRequest, HttpResponse, Transport, TransportError};
use std::io::Cursor;
use std::sync::Arc;

/// A server with one tool, two resources and one prompt.
struct Library;

fn json(id: &Value, result: Value) -> HttpResponse {
    let body = json_object! { "jsonrpc" => "2.0", "id" => id.clone(), "result" => result };
    HttpResponse {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: Box::new(Cursor::new(body.to_json_string().into_bytes())),
    }
}

impl Transport for Library {
    fn send(
        &self,
        request: &HttpRequest,
        _cancel: &CancelToken,
    ) -> Result<HttpResponse, TransportError> {
        let body = &request.body;
        let message = parse_str(std::str::from_utf8(body).unwrap()).unwrap();
        let id = &message["id"];
        let params = &message["params"];
        let result = match message["method"].as_str().unwrap_or("") {
            "initialize" => parse_str(
                r#"{"protocolVersion":"2025-06-18","serverInfo":{"name":"library","version":"1"},
                "capabilities":{"tools":{},"resources":{},"prompts":{}}}"#,
            )
            .unwrap(),
            method if method.starts_with("notifications/") => {
                return Ok(HttpResponse {
                    status: 202,
                    headers: Vec::new(),
                    body: Box::new(Cursor::new(Vec::new())),
                })
            }
            "tools/list" => parse_str(r#"{"tools":[{"name":"search"}]}"#).unwrap(),
            // Lists come in pages: the second only for the first's `nextCursor`.
            "resources/list" => match params["cursor"].as_str() {
                None => parse_str(
                    r#"{"resources":[{"uri":"doc://style","name":"Style guide","description":"How we write"}],
                    "nextCursor":"page-2"}"#,
                )
                .unwrap(),
                Some("page-2") => {
                    parse_str(r#"{"resources":[{"uri":"doc://logo","name":"Logo"}]}"#).unwrap()
                }
                Some(other) => panic!("unexpected cursor {other}"),
            },
            "resources/read" => match params["uri"].as_str() {
                Some("doc://style") => parse_str(
                    r#"{"contents":[{"uri":"doc://style","mimeType":"text/markdown","text":"Short sentences."}]}"#,
                )
                .unwrap(),
                Some("doc://logo") => parse_str(
                    r#"{"contents":[{"uri":"doc://logo","mimeType":"image/png","blob":"iVBORw0KGgo="}]}"#,
                )
                .unwrap(),
                _ => {
                    let error = json_object! {
                        "jsonrpc" => "2.0", "id" => id.clone(),
                        "error" => json_object! { "code" => -32002, "message" => "no such resource" },
                    };
                    return Ok(HttpResponse {
                        status: 200,
                        headers: vec![("Content-Type".into(), "application/json".into())],
                        body: Box::new(Cursor::new(error.to_json_string().into_bytes())),
                    });
                }
            },
            "prompts/list" => match params["cursor"].as_str() {
                None => parse_str(
                    r#"{"prompts":[{"name":"review","description":"Review a change","arguments":[{"name":"focus"}]}],
                    "nextCursor":"more"}"#,
                )
                .unwrap(),
                _ => parse_str(r#"{"prompts":[{"name":"summarize"}]}"#).unwrap(),
            },
            "prompts/get" => {
                let focus = params["arguments"]["focus"].as_str().unwrap_or("everything");
                json_object! { "messages" => focus_core::json_array![json_object! {
                    "role" => "user",
                    "content" => json_object! { "type" => "text", "text" => format!("Review {focus}.") },
                }]}
            }
            other => panic!("unexpected {other}"),
        };
        Ok(json(id, result))
    }
}

use crate::support::mcp;

/// Calls the tool `name` of `tools` with `args`.
fn run(tools: &[Arc<dyn Tool>], name: &str, args: &str) -> ToolOutput {
    let tool = tools
        .iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"));
    mcp::run(&**tool, args)
}

#[test]
fn resources_and_prompts_are_tools() {
    let settings =
        parse_str(r#"{"mcpServers": {"lib": {"url": "https://lib.example/mcp"}}}"#).unwrap();
    let configs = McpServerConfig::from_json(&settings).unwrap();
    let dir = std::env::temp_dir().join(format!("focus-mcp-offers-{}", std::process::id()));
    let manager = McpManager::start_with_http(
        configs,
        &dir,
        Some(Arc::new(Library)),
        Arc::new(Sandbox::off()),
    );
    let status = manager.status();
    assert_eq!(status[0].state, ServerState::Running, "{:?}", status[0]);
    assert_eq!(
        status[0].tools,
        [
            "lib__search",
            "lib__list_resources",
            "lib__read_resource",
            "lib__list_prompts",
            "lib__get_prompt"
        ]
    );
    let tools = manager.tools();
    let listed = run(&tools, "lib__list_resources", "{}").text_content();
    assert!(
        listed.contains("doc://style — Style guide: How we write"),
        "{listed}"
    );
    assert!(
        listed.contains("doc://logo — Logo"),
        "the second page: {listed}"
    );
    let read = run(&tools, "lib__read_resource", r#"{"uri":"doc://style"}"#);
    assert_eq!(read.text_content(), "[doc://style]\nShort sentences.");
    let logo = run(&tools, "lib__read_resource", r#"{"uri":"doc://logo"}"#).text_content();
    assert!(
        logo.contains("not shown"),
        "binary contents are not pasted: {logo}"
    );
    let missing = run(&tools, "lib__read_resource", r#"{"uri":"doc://none"}"#);
    assert!(missing.is_error && missing.text_content().contains("no such resource"));
    let prompts = run(&tools, "lib__list_prompts", "{}").text_content();
    assert_eq!(prompts, "review(focus): Review a change\nsummarize()");
    let prompt = run(
        &tools,
        "lib__get_prompt",
        r#"{"name":"review","arguments":{"focus":"the parser"}}"#,
    );
    assert_eq!(prompt.text_content(), "user: Review the parser.");
    manager.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}
