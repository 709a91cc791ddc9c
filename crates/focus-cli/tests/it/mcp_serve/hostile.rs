//! Bad requests get JSON-RPC errors (or the HTTP status MCP names), and the
//! server goes on serving: not JSON, not JSON-RPC, an unknown method, an
//! unknown tool, invalid arguments, a batch, and a 100 MB argument, which is
//! read past without being held (the peak memory stays far below it).

use super::*;

/// One line of `size` bytes: a `write` call whose content is that long.
fn huge_call(id: u64, size: usize) -> Vec<u8> {
    let mut line = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"write","arguments":{{"path":"big.txt","content":""#
    )
    .into_bytes();
    line.resize(line.len() + size, b'x');
    line.extend_from_slice(b"\"}}}\n");
    line
}

/// The server's peak memory must stay well below a 100 MB message.
const PEAK_LIMIT_KIB: u64 = 80 * 1024;

#[test]
fn bad_messages_on_stdio_get_errors_and_the_server_goes_on() {
    let s = project();
    let mut server = RawServer::start(&s, &["--permission-mode", "auto"]);
    let error_of = |answer: &Value| answer["error"]["code"].as_i64();
    server.send("this is not json");
    assert_eq!(error_of(&server.next()), Some(-32700));
    server.send(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#);
    let wrong_version = server.next();
    assert_eq!(error_of(&wrong_version), Some(-32600), "{wrong_version}");
    assert_eq!(wrong_version["id"].as_u64(), Some(1));
    server.send(r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#);
    assert_eq!(error_of(&server.next()), Some(-32600));
    server.send(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#);
    assert_eq!(error_of(&server.next()), Some(-32600));
    let unknown_method = server.request(3, "resources/list", "{}");
    assert_eq!(error_of(&unknown_method), Some(-32601), "{unknown_method}");
    let unknown_tool = server.request(
        4,
        "tools/call",
        r#"{"name":"rm_everything","arguments":{}}"#,
    );
    assert_eq!(error_of(&unknown_tool), Some(-32602), "{unknown_tool}");
    let invalid = server.request(5, "tools/call", r#"{"name":"read","arguments":{"path":7}}"#);
    assert_eq!(error_of(&invalid), Some(-32602), "{invalid}");
    assert!(invalid["error"]["message"]
        .as_str()
        .unwrap()
        .contains("path"));
    let missing = server.request(6, "tools/call", r#"{"name":"bash"}"#);
    assert_eq!(error_of(&missing), Some(-32602), "{missing}");
    let not_object = server.request(7, "tools/call", r#"{"name":"ls","arguments":[1]}"#);
    assert_eq!(error_of(&not_object), Some(-32602), "{not_object}");
    // 100 MB in one line: refused, read past, never held.
    server.send_bytes(&huge_call(8, 100 * 1024 * 1024));
    let huge = server.next();
    assert_eq!(error_of(&huge), Some(-32600), "{huge}");
    assert!(huge["error"]["message"]
        .as_str()
        .unwrap()
        .contains("at most"));
    assert!(!s.work.join("big.txt").exists());
    let peak = peak_rss_kib(server.pid());
    assert!(peak > 0 && peak < PEAK_LIMIT_KIB, "peak {peak} KiB");
    // Still serving.
    let ping = server.request(9, "ping", "{}");
    assert!(ping["result"].as_object().is_some(), "{ping}");
    let read = server.request(
        10,
        "tools/call",
        r#"{"name":"read","arguments":{"path":"a.txt"}}"#,
    );
    assert_eq!(read["result"]["isError"].as_bool(), Some(false), "{read}");
    assert_eq!(server.close(), Some(0));
}

#[test]
fn bad_requests_over_http_get_the_status_mcp_names_and_the_server_goes_on() {
    let s = project();
    let server = HttpServer::start(&s, &["--permission-mode", "auto"]);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    // No token, a wrong one, another scheme.
    assert_eq!(server.exchange("POST", &[], init.as_bytes()).status, 401);
    let wrong = [("Authorization", "Bearer test-token-0123456789abcdeX")];
    let refused = server.exchange("POST", &wrong, init.as_bytes());
    assert_eq!(refused.status, 401);
    assert!(!refused.body.contains(TOKEN));
    let auth = format!("Bearer {TOKEN}");
    // A browser page from elsewhere (DNS rebinding).
    let rebinding = [
        ("Authorization", auth.as_str()),
        ("Origin", "http://evil.example"),
    ];
    assert_eq!(
        server.exchange("POST", &rebinding, init.as_bytes()).status,
        403
    );
    // A protocol version focus does not speak.
    let old = [
        ("Authorization", auth.as_str()),
        ("MCP-Protocol-Version", "1999-01-01"),
    ];
    assert_eq!(server.exchange("POST", &old, init.as_bytes()).status, 400);
    // No stream is offered on GET.
    let get = server.exchange("GET", &[("Authorization", auth.as_str())], b"");
    assert_eq!(get.status, 405);
    assert_eq!(get.header("allow"), Some("POST, DELETE"));
    // A request before initialize, and with an unknown session.
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    assert_eq!(server.post(None, ping).status, 400);
    assert_eq!(server.post(Some("no-such-session"), ping).status, 404);
    let session_id = server.initialize();
    let session = Some(session_id.as_str());
    // Not JSON, not JSON-RPC, unknown tool, invalid arguments.
    let not_json = server.post(session, "{oops");
    assert_eq!(
        (not_json.status, not_json.json()["error"]["code"].as_i64()),
        (400, Some(-32700))
    );
    let not_rpc = server.post(session, r#"{"id":3,"method":"ping"}"#);
    assert_eq!(not_rpc.json()["error"]["code"].as_i64(), Some(-32600));
    let unknown = server.post(
        session,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}"#,
    );
    assert_eq!(unknown.json()["error"]["code"].as_i64(), Some(-32602));
    let invalid = server.post(
        session,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ls","arguments":{"limit":"many"}}}"#,
    );
    assert_eq!(invalid.json()["error"]["code"].as_i64(), Some(-32602));
    // 100 MB: 413 with a JSON-RPC error, read past, not held.
    let mut huge = huge_call(6, 100 * 1024 * 1024);
    huge.pop();
    let too_long = server.post(session, std::str::from_utf8(&huge).unwrap());
    assert_eq!(too_long.status, 413, "{}", too_long.body);
    assert_eq!(too_long.json()["error"]["code"].as_i64(), Some(-32600));
    let peak = peak_rss_kib(server.pid());
    assert!(peak > 0 && peak < PEAK_LIMIT_KIB, "peak {peak} KiB");
    // A notification is accepted; the session ends with DELETE.
    let note = server.post(
        session,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(note.status, 202);
    let still = server.post(session, ping);
    assert_eq!(still.status, 200);
    assert!(still.json()["result"].as_object().is_some());
    let session_header = [
        ("Authorization", auth.as_str()),
        ("Mcp-Session-Id", session_id.as_str()),
    ];
    assert_eq!(server.exchange("DELETE", &session_header, b"").status, 200);
    assert_eq!(server.post(session, ping).status, 404);
}

#[test]
fn a_non_loopback_address_needs_the_explicit_flag() {
    let s = project();
    let out = crate::support::run_command(serve_command(&s, &["--listen", "0.0.0.0:0"]), "");
    assert_eq!(out.status.code(), Some(2));
    let err = crate::support::stderr(&out);
    assert!(err.contains("--allow-non-loopback"), "{err}");
}
