//! What is particular to CurlTransport, against the scripted test server: the
//! curl exit codes behind each error (cuts, timeouts, refusals, TLS), `curl
//! --version`, and a half-read body stopping curl. The behaviours it shares with
//! the std transport (the request on the wire, streaming, statuses, cancel) are
//! in `both_transports`.

use crate::support::limits::head_within_a_limit;
use focus_core::cancel::CancelToken;
use focus_providers::curl::CurlTransport;
use focus_testkit::server::{Gate, ScriptedResponse, TestServer};
use focus_transport::sse::EventReader;
use focus_transport::{HttpRequest, HttpResponse, Transport, TransportError};
use std::io::Read;
use std::time::{Duration, Instant};

/// A request with a total timeout, so that no test can hang on curl.
fn request(method: &str, url: String, body: &[u8]) -> HttpRequest {
    HttpRequest {
        method: method.into(),
        url,
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("x-api-key".into(), "sk-test-0123456789".into()),
        ],
        body: body.to_vec(),
        connect_timeout: Some(Duration::from_secs(5)),
        total_timeout: Some(Duration::from_secs(10)),
    }
}

fn send(request: &HttpRequest) -> Result<HttpResponse, TransportError> {
    CurlTransport::with_program("curl").send(request, &CancelToken::new())
}

fn read_body(response: HttpResponse) -> Result<Vec<u8>, TransportError> {
    let mut body = Vec::new();
    let mut reader = response.body;
    reader
        .read_to_end(&mut body)
        .map_err(|e| TransportError::from_io(&e))?;
    Ok(body)
}

#[test]
fn get_without_body_and_empty_header_value() {
    let server = TestServer::queue(vec![ScriptedResponse::new(204)]);
    let mut get = request("GET", server.url_for("/models"), b"");
    get.headers.push(("x-empty".into(), String::new()));
    let response = send(&get).unwrap();
    assert_eq!(response.status, 204);
    assert!(read_body(response).unwrap().is_empty());
    let received = &server.requests()[0];
    assert_eq!((received.method.as_str(), received.body.len()), ("GET", 0));
    assert_eq!(received.header("x-empty"), Some(""));
}

#[test]
fn disconnect_mid_body_is_a_stream_cut() {
    let server = TestServer::queue(vec![ScriptedResponse::sse(&[
        "data: 1\n\n",
        "data: 2\n\n",
        "data: 3\n\n",
    ])
    .disconnect_after(1)]);
    let response = send(&request("POST", server.url(), b"{}")).unwrap();
    let mut events = EventReader::new(response.body);
    assert_eq!(events.next_event().unwrap().unwrap().data, "1");
    let error = TransportError::from_io(&events.next_event().unwrap_err());
    assert!(
        matches!(&error, TransportError::StreamCut(m) if m.contains("curl exit code 18")),
        "{error:?}"
    );
}

#[test]
fn content_length_body_cut_short_is_a_stream_cut() {
    let mut script = ScriptedResponse::new(200).body("0123456789");
    script.chunks[0].bytes.truncate(4); // Content-Length says 10, 4 arrive
    script = script.header("Content-Length", "10").close_delimited();
    let server = TestServer::queue(vec![script]);
    let response = send(&request("GET", server.url(), b"")).unwrap();
    assert!(matches!(
        read_body(response),
        Err(TransportError::StreamCut(_))
    ));
}

#[test]
fn slow_first_byte_hits_the_total_timeout() {
    let server = TestServer::repeating(
        ScriptedResponse::json("{}").first_byte_delay(Duration::from_secs(30)),
    );
    let mut slow = request("POST", server.url(), b"{}");
    slow.total_timeout = Some(Duration::from_millis(400));
    let error = send(&slow).unwrap_err();
    assert!(
        matches!(&error, TransportError::Timeout(m) if m.contains("28")),
        "{error:?}"
    );
    assert!(error.is_retryable());
}

#[test]
fn stalled_body_hits_the_total_timeout() {
    let gate = Gate::new(); // never opened
    let server = TestServer::repeating(
        ScriptedResponse::sse(&["data: 1\n\n"]).chunk_after_gate(&gate, "data: 2\n\n"),
    );
    let response = head_within_a_limit("curl", |limit| {
        let mut slow = request("POST", server.url(), b"{}");
        slow.total_timeout = Some(limit);
        send(&slow)
    });
    assert!(matches!(
        read_body(response),
        Err(TransportError::Timeout(_))
    ));
}

#[test]
fn refused_connection_is_a_connect_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }; // closed again: nothing listens there now
    let error = send(&request("GET", format!("http://127.0.0.1:{port}/"), b"")).unwrap_err();
    assert!(
        matches!(&error, TransportError::Connect(m) if m.contains("curl exit code 7")),
        "{error:?}"
    );
}

#[test]
fn unresolvable_host_is_a_dns_error() {
    // `.invalid` never resolves (RFC 6761); no network needed to fail.
    let error = send(&request("GET", "http://focus-test.invalid/".into(), b"")).unwrap_err();
    assert!(
        matches!(error, TransportError::Dns(_) | TransportError::Connect(_)),
        "{error:?}"
    );
}

#[test]
fn empty_reply_is_a_stream_cut() {
    let server = TestServer::queue(vec![ScriptedResponse::raw(b"")]);
    let error = send(&request("GET", server.url(), b"")).unwrap_err();
    assert!(
        matches!(&error, TransportError::StreamCut(m) if m.contains("52")),
        "{error:?}"
    );
}

#[test]
fn garbage_reply_is_an_error_not_a_panic() {
    let server = TestServer::queue(vec![ScriptedResponse::raw(b"SSH-2.0-OpenSSH\r\n\r\n")]);
    let error = send(&request("GET", server.url(), b""))
        .unwrap_err()
        .to_string();
    assert!(error.contains("curl exit code"), "{error}");
}

#[test]
fn large_headers_pass_and_oversized_headers_fail_cleanly() {
    let server = TestServer::queue(vec![
        ScriptedResponse::oversized_headers(50_000),
        ScriptedResponse::oversized_headers(300_000),
    ]);
    let response = send(&request("GET", server.url(), b"")).unwrap();
    assert_eq!(response.header("x-padding").map(str::len), Some(50_000));
    assert_eq!(read_body(response).unwrap(), b"ok");
    let error = send(&request("GET", server.url(), b""))
        .unwrap_err()
        .to_string();
    // curl 7.x says "(27) Out of memory", 8.6+ "(100) … too large"; both are explained.
    assert!(
        error.contains("100 KiB") || error.contains("too large"),
        "{error}"
    );
}

#[test]
fn dropping_a_half_read_body_stops_curl() {
    let gate = Gate::new();
    let server = TestServer::queue(vec![
        ScriptedResponse::sse(&["data: 1\n\n"]).chunk_after_gate(&gate, "data: 2\n\n")
    ]);
    let mut req = request("POST", server.url(), b"{}");
    req.total_timeout = Some(Duration::from_secs(30));
    let response = send(&req).unwrap();
    let started = Instant::now();
    drop(response);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn error_messages_do_not_leak_the_key_in_the_url() {
    let mut req = request(
        "GET",
        "http://focus-test.invalid/v1?key=AIzaSECRETKEY123".into(),
        b"",
    );
    req.total_timeout = Some(Duration::from_secs(5));
    let error = send(&req).unwrap_err().to_string();
    assert!(!error.contains("AIzaSECRETKEY123"), "{error}");
}

#[test]
fn plain_http_answer_to_tls_is_a_tls_error() {
    // A server that answers a TLS ClientHello with plain text, as a
    // misconfigured proxy or port would: curl's handshake fails (exit 35).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            use std::io::Write;
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut hello = [0u8; 512];
            let _ = stream.read(&mut hello);
            let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let error = send(&request("GET", format!("https://127.0.0.1:{port}/"), b"")).unwrap_err();
    server.join().unwrap();
    assert!(
        matches!(&error, TransportError::Tls(m) if m.contains("curl exit code 35")),
        "{error:?}"
    );
    assert!(!error.is_retryable());
}

#[test]
fn check_reports_the_curl_version() {
    let version = CurlTransport::with_program("curl").check().unwrap();
    assert!(version.starts_with("curl "), "{version}");
    // A program that is not curl is refused with a reason.
    let not_curl = CurlTransport::with_program("true").check().unwrap_err();
    assert!(matches!(not_curl, TransportError::CannotStart(m) if m.contains("curl version")));
}
