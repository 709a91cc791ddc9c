//! The streamable HTTP transport against a server that answers at random with
//! garbage: wrong statuses and content types, truncated or non-JSON bodies, event
//! streams with junk events, responses with other ids, odd session headers.
//! Starting and calling must never panic and always end within the timeouts.

use crate::support::mcp;
use focus_core::cancel::CancelToken;
use focus_core::json::{parse_str, Value};
use focus_testkit::rng::Rng;
use focus_tools::mcp::{McpManager, McpServerConfig};
use focus_tools::sandbox::Sandbox;
use focus_transport::{HttpRequest, HttpResponse, Transport, TransportError};
use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Chaos(Mutex<Rng>);

fn good(id: &Value, method: &str) -> String {
    let result = match method {
        "initialize" => r#"{"protocolVersion":"2025-06-18","serverInfo":{"name":"chaos"}}"#,
        "tools/list" => r#"{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}"#,
        _ => r#"{"content":[{"type":"text","text":"ok"}]}"#,
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#,
        id.to_json_string()
    )
}

impl Transport for Chaos {
    fn send(
        &self,
        request: &HttpRequest,
        _cancel: &CancelToken,
    ) -> Result<HttpResponse, TransportError> {
        let body = &request.body;
        let mut rng = self.0.lock().unwrap();
        if request.method != "POST" {
            // The session's DELETE, the older transport's GET: refused, garbage,
            // or no connection.
            let (status, content_type, body): (u16, &str, Vec<u8>) = match rng.below(4) {
                0 => return Err(TransportError::Connect("connection refused".into())),
                1 => (405, "text/html", b"<html>no</html>".to_vec()),
                2 => (
                    200,
                    "text/event-stream",
                    (0..rng.below(80)).map(|_| rng.next_u64() as u8).collect(),
                ),
                _ => (
                    200,
                    "text/event-stream",
                    b"event: endpoint\ndata: /messages?s=1\n\n".to_vec(),
                ),
            };
            return Ok(HttpResponse {
                status,
                headers: vec![("Content-Type".to_string(), content_type.to_string())],
                body: Box::new(Cursor::new(body)),
            });
        }
        let message = parse_str(std::str::from_utf8(body).unwrap()).unwrap();
        let id = message["id"].clone();
        let method = message["method"].as_str().unwrap_or("").to_string();
        let right = good(&id, &method);
        let (status, content_type, body): (u16, &str, Vec<u8>) = match rng.below(12) {
            0 => return Err(TransportError::Connect("connection refused".into())),
            1 => (500, "text/plain", b"boom".to_vec()),
            2 => (
                200,
                "application/json",
                right.as_bytes()[..right.len() / 2].to_vec(),
            ),
            3 => (
                200,
                "application/json",
                (0..rng.below(50)).map(|_| rng.next_u64() as u8).collect(),
            ),
            4 => (
                200,
                "text/event-stream",
                format!("data: junk\n\ndata: {right}").into_bytes(),
            ),
            5 => (
                200,
                "text/event-stream",
                b"event: x\ndata: {\"jsonrpc\":\"2.0\",\"id\":999,\"result\":1}\n\n".to_vec(),
            ),
            6 => (200, "", right.into_bytes()),
            7 => (202, "application/json", Vec::new()),
            8 => (404, "application/json", right.into_bytes()),
            9 => (200, "application/json", b"[1,2,3]".to_vec()),
            10 => (
                200,
                "text/event-stream",
                (0..rng.below(80)).map(|_| rng.next_u64() as u8).collect(),
            ),
            _ => (200, "application/json", right.into_bytes()),
        };
        let mut headers = vec![("Content-Type".to_string(), content_type.to_string())];
        if rng.below(4) == 0 {
            headers.push(("Mcp-Session-Id".into(), "\u{1F600}\r\nx".into()));
        }
        Ok(HttpResponse {
            status,
            headers,
            body: Box::new(Cursor::new(body)),
        })
    }
}

#[test]
fn a_chaotic_http_server_never_panics_and_never_hangs() {
    let chaos: Arc<dyn Transport> = Arc::new(Chaos(Mutex::new(Rng::new(0xc4a0_5000))));
    let log_dir = std::env::temp_dir().join(format!("focus-mcp-chaos-{}", std::process::id()));
    let started = Instant::now();
    let mut running = 0;
    for round in 0..60 {
        let mut config = McpServerConfig::stdio(&format!("c{round}"), "unused", &[]);
        config.url = Some("https://chaos.invalid/mcp".into());
        config.request_timeout = Duration::from_millis(300);
        config.startup_timeout = Duration::from_millis(500);
        let manager = McpManager::start_with_http(
            vec![config],
            &log_dir,
            Some(chaos.clone()),
            Arc::new(Sandbox::off()),
        );
        for tool in manager.tools() {
            running += 1;
            for _ in 0..3 {
                let _ = mcp::run(tool.as_ref(), "{}");
            }
        }
        let _ = manager.take_warnings();
    }
    assert!(running > 0, "some rounds get through the handshake");
    assert!(started.elapsed() < Duration::from_secs(30));
    let _ = std::fs::remove_dir_all(log_dir);
}
