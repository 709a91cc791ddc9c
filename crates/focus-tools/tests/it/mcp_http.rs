//! The streamable HTTP transport against an in-process fake server (an `Transport`
//! that answers like an MCP server): JSON and event-stream answers, the session
//! header, custom headers, HTTP errors, a hanging call bounded by its timeout.

use focus_core::cancel::CancelToken;
use focus_core::json::{parse_str, Value};
use focus_core::json_object;
use focus_tools::mcp::{McpManager, McpServerConfig, ServerState};
use focus_tools::sandbox::Sandbox;
use focus_transport::{HttpRequest, HttpResponse, Transport, TransportError};
use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One POST as the fake server saw it: headers and JSON body.
type Seen = (Vec<(String, String)>, Value);

/// An in-process MCP server behind `Transport`, recording what it saw.
#[derive(Default)]
struct FakeServer {
    seen: Mutex<Vec<Seen>>,
}

fn reply(status: u16, content_type: &str, body: String, extra: &[(&str, &str)]) -> HttpResponse {
    let mut headers = vec![("Content-Type".to_string(), content_type.to_string())];
    headers.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    HttpResponse {
        status,
        headers,
        body: Box::new(Cursor::new(body.into_bytes())),
    }
}

fn response(id: &Value, result: Value) -> String {
    json_object! { "jsonrpc" => "2.0", "id" => id.clone(), "result" => result }.to_json_string()
}

impl Transport for FakeServer {
    fn send(
        &self,
        request: &HttpRequest,
        cancel: &CancelToken,
    ) -> Result<HttpResponse, TransportError> {
        let headers = &request.headers;
        let body = &request.body;
        if request.method == "DELETE" {
            // The end of the session: recorded as a `DELETE` message.
            self.seen
                .lock()
                .unwrap()
                .push((headers.to_vec(), json_object! { "method" => "DELETE" }));
            return Ok(reply(200, "text/plain", String::new(), &[]));
        }
        let message = parse_str(std::str::from_utf8(body).unwrap()).unwrap();
        self.seen
            .lock()
            .unwrap()
            .push((headers.to_vec(), message.clone()));
        let id = &message["id"];
        match message["method"].as_str().unwrap_or("") {
            "initialize" => Ok(reply(
                200,
                "application/json",
                response(
                    id,
                    json_object! {
                        "protocolVersion" => "2025-06-18",
                        "capabilities" => json_object! {},
                        "serverInfo" => json_object! { "name" => "fake-http", "version" => "2" },
                    },
                ),
                &[("mcp-session-id", "sess-42")],
            )),
            method if method.starts_with("notifications/") => {
                Ok(reply(202, "text/plain", String::new(), &[]))
            }
            "tools/list" => {
                let tools = json_object! { "tools" => focus_core::json_array![
                    json_object! { "name" => "echo", "inputSchema" => json_object! { "type" => "object" } },
                    json_object! { "name" => "hang" },
                    json_object! { "name" => "boom" },
                ]};
                let note = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;
                let stream = format!(
                    ": a comment\nevent: message\ndata: {note}\n\nid: 7\ndata: {}\n\n",
                    response(id, tools)
                );
                Ok(reply(200, "text/event-stream; charset=utf-8", stream, &[]))
            }
            "tools/call" => match message["params"]["name"].as_str() {
                Some("echo") => {
                    let text = message["params"]["arguments"]["text"].clone();
                    let result = json_object! { "content" => focus_core::json_array![
                        json_object! { "type" => "text", "text" => text },
                    ]};
                    Ok(reply(200, "application/json", response(id, result), &[]))
                }
                Some("hang") => {
                    let deadline = Instant::now() + Duration::from_secs(10);
                    while !cancel.is_cancelled() && Instant::now() < deadline {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(TransportError::Cancelled)
                }
                _ => Ok(reply(
                    500,
                    "text/plain",
                    "internal trouble".to_string(),
                    &[],
                )),
            },
            other => panic!("unexpected method {other}"),
        }
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

use crate::support::mcp;
use mcp::run;

#[test]
fn talks_to_an_http_server() {
    let settings = parse_str(
        r#"{"mcpServers": {"web": {"url": "https://mcp.example/api",
            "headers": {"Authorization": "Bearer ${FOCUS_TEST_MCP_TOKEN_UNSET:-tok-123}"}, "timeout": 0.5}}}"#,
    )
    .unwrap();
    let configs = McpServerConfig::from_json(&settings).unwrap();
    let server = Arc::new(FakeServer::default());
    let dir = std::env::temp_dir().join(format!("focus-mcp-http-{}", std::process::id()));
    let manager = McpManager::start_with_http(
        configs,
        &dir,
        Some(server.clone()),
        Arc::new(Sandbox::off()),
    );
    let status = manager.status();
    assert_eq!(status[0].state, ServerState::Running, "{:?}", status[0]);
    assert_eq!(status[0].server_info, "fake-http 2");
    assert_eq!(status[0].tools, vec!["web__echo", "web__hang", "web__boom"]);

    let tools = manager.tools();
    let out = run(&*tools[0], r#"{"text":"over http"}"#);
    assert_eq!(out.text_content(), "over http");
    assert!(!out.is_error);

    let out = run(&*tools[2], "{}");
    assert!(
        out.is_error && out.text_content().contains("HTTP 500"),
        "{}",
        out.text_content()
    );

    let started = Instant::now();
    let out = run(&*tools[1], "{}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the hanging POST was not bounded"
    );
    assert!(
        out.text_content().contains("did not answer"),
        "{}",
        out.text_content()
    );

    // The handshake order, the session and custom headers on later requests, and
    // the cancellation notice after the timeout.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let seen = server.seen.lock().unwrap();
        let methods: Vec<&str> = seen
            .iter()
            .map(|(_, m)| m["method"].as_str().unwrap_or(""))
            .collect();
        if methods.contains(&"notifications/cancelled") {
            assert_eq!(
                &methods[..3],
                ["initialize", "notifications/initialized", "tools/list"]
            );
            let (first_headers, _) = &seen[0];
            assert_eq!(header(first_headers, "Mcp-Session-Id"), None);
            assert_eq!(
                header(first_headers, "Authorization"),
                Some("Bearer tok-123")
            );
            let accept = header(first_headers, "Accept").unwrap();
            assert!(accept.contains("application/json") && accept.contains("text/event-stream"));
            for (headers, _) in &seen[1..] {
                assert_eq!(header(headers, "Mcp-Session-Id"), Some("sess-42"));
                assert_eq!(header(headers, "MCP-Protocol-Version"), Some("2025-06-18"));
            }
            break;
        }
        drop(seen);
        assert!(
            Instant::now() < deadline,
            "no notifications/cancelled after the timeout"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(manager.take_warnings().is_empty());
    // Shutting down ends the session with a DELETE carrying its id.
    manager.shutdown();
    let seen = server.seen.lock().unwrap();
    let (headers, last) = seen.last().unwrap();
    assert_eq!(last["method"].as_str(), Some("DELETE"));
    assert_eq!(header(headers, "Mcp-Session-Id"), Some("sess-42"));
    assert_eq!(header(headers, "Authorization"), Some("Bearer tok-123"));
    drop(seen);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn http_config_without_a_client_fails_to_start_and_hides_headers() {
    let settings = parse_str(
        r#"{"mcpServers": {"web": {"url": "https://x", "headers": {"Authorization": "Bearer secret-1"}}}}"#,
    )
    .unwrap();
    let configs = McpServerConfig::from_json(&settings).unwrap();
    assert!(!format!("{:?}", configs[0]).contains("secret-1"));
    let dir = std::env::temp_dir().join(format!("focus-mcp-http-none-{}", std::process::id()));
    let manager = McpManager::start(configs, &dir);
    assert!(
        matches!(&manager.status()[0].state, ServerState::Failed(r) if r.contains("HTTP client"))
    );
    let warnings = manager.take_warnings();
    assert_eq!(warnings.len(), 1);
    assert!(!warnings[0].contains("secret-1"));
    let _ = std::fs::remove_dir_all(&dir);
}
