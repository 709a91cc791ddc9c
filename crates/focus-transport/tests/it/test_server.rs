//! The scripted test server, exercised with a raw std `TcpStream` client so that
//! what it writes on the wire is checked byte for byte.

use focus_testkit::server::{ScriptedResponse, TestServer};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Sends `request` verbatim and reads the whole response until the server closes.
fn exchange(server: &TestServer, request: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    response
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn records_the_exact_request_and_answers_with_content_length() {
    let server = TestServer::queue(vec![ScriptedResponse::json("{\"ok\":true}")]);
    let body = b"{\"k\":\"\xc3\xa9\"}\x00raw";
    let mut request = format!(
        "POST /v1/messages?x=1 HTTP/1.1\r\nHost: test\r\nX-Api-Key: secret\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    let response = text(&exchange(&server, &request));
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(response.contains("Content-Length: 11\r\n"), "{response}");
    assert!(response.ends_with("\r\n\r\n{\"ok\":true}"), "{response}");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/messages?x=1");
    assert_eq!(requests[0].header("x-api-key"), Some("secret"));
    assert_eq!(requests[0].body, body);
    assert!(server.errors().is_empty());
}

#[test]
fn chunked_body_is_framed_and_delayed_chunks_arrive_separately() {
    let server = TestServer::queue(vec![ScriptedResponse::sse(&["data: 1\n\n", "data: 2\n\n"])
        .delay_between_chunks(Duration::from_millis(300))]);
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream
        .write_all(b"GET /s HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    while !text(&seen).contains("data: 1\n\n\r\n") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "closed early: {}", text(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(
        !text(&seen).contains("data: 2"),
        "second chunk came without its delay"
    );
    stream.read_to_end(&mut seen).unwrap();
    let all = text(&seen);
    assert!(all.contains("Transfer-Encoding: chunked\r\n"), "{all}");
    assert!(
        all.ends_with("\r\n\r\n9\r\ndata: 1\n\n\r\n9\r\ndata: 2\n\n\r\n0\r\n\r\n"),
        "{all}"
    );
}

#[test]
fn disconnect_after_cuts_the_body_without_the_end_marker() {
    let server = TestServer::queue(vec![
        ScriptedResponse::sse(&["data: 1\n\n", "data: 2\n\n"]).disconnect_after(1)
    ]);
    let all = text(&exchange(&server, b"GET / HTTP/1.1\r\n\r\n"));
    assert!(all.ends_with("9\r\ndata: 1\n\n\r\n"), "{all}");
    assert!(!all.contains("data: 2"));
}

#[test]
fn close_delimited_and_raw_responses() {
    let server = TestServer::queue(vec![
        ScriptedResponse::new(200)
            .chunk("ab")
            .chunk("cd")
            .close_delimited(),
        ScriptedResponse::raw(b"garbage\r\n"),
    ]);
    let first = text(&exchange(&server, b"GET / HTTP/1.1\r\n\r\n"));
    assert!(
        !first.contains("Content-Length") && !first.contains("chunked"),
        "{first}"
    );
    assert!(first.ends_with("\r\n\r\nabcd"), "{first}");
    assert_eq!(
        text(&exchange(&server, b"GET / HTTP/1.1\r\n\r\n")),
        "garbage\r\n"
    );
}

#[test]
fn retry_after_server_error_and_oversized_headers() {
    let server = TestServer::queue(vec![
        ScriptedResponse::too_many_requests(7),
        ScriptedResponse::server_error("{\"error\":\"boom\"}"),
        ScriptedResponse::oversized_headers(200_000),
    ]);
    let r = text(&exchange(&server, b"GET / HTTP/1.1\r\n\r\n"));
    assert!(
        r.starts_with("HTTP/1.1 429 Too Many Requests\r\n") && r.contains("Retry-After: 7\r\n"),
        "{r}"
    );
    let r = text(&exchange(&server, b"GET / HTTP/1.1\r\n\r\n"));
    assert!(
        r.starts_with("HTTP/1.1 500 ") && r.ends_with("{\"error\":\"boom\"}"),
        "{r}"
    );
    let r = exchange(&server, b"GET / HTTP/1.1\r\n\r\n");
    assert!(r.len() > 200_000);
}

#[test]
fn repeating_responder_and_exhausted_queue() {
    let server = TestServer::repeating(ScriptedResponse::new(204));
    for _ in 0..3 {
        assert!(text(&exchange(&server, b"GET / HTTP/1.1\r\n\r\n")).starts_with("HTTP/1.1 204"));
    }
    assert_eq!(server.request_count(), 3);

    let echo = TestServer::responder(|req| {
        ScriptedResponse::new(200).body(format!("{}:{}", req.path, req.body_text()))
    });
    let r = text(&exchange(
        &echo,
        b"POST /turn HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi",
    ));
    assert!(r.ends_with("/turn:hi"), "{r}");

    let empty = TestServer::queue(vec![]);
    let r = text(&exchange(&empty, b"GET /late HTTP/1.1\r\n\r\n"));
    assert!(
        r.starts_with("HTTP/1.1 500") && r.contains("no scripted response left for GET /late"),
        "{r}"
    );
    empty.push_response(ScriptedResponse::new(201));
    assert!(text(&exchange(&empty, b"GET / HTTP/1.1\r\n\r\n")).starts_with("HTTP/1.1 201"));
}

#[test]
fn expect_continue_and_chunked_request_bodies() {
    let server = TestServer::repeating(ScriptedResponse::new(200));
    let r = text(&exchange(
        &server,
        b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
    ));
    assert!(
        r.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200"),
        "{r}"
    );
    exchange(
        &server,
        b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n",
    );
    let requests = server.wait_for_requests(2, Duration::from_secs(2));
    assert_eq!(requests[0].body, b"abc");
    assert_eq!(requests[1].body, b"abcde");
}

#[test]
fn malformed_request_gets_400_and_is_reported() {
    let server = TestServer::repeating(ScriptedResponse::new(200));
    let r = text(&exchange(&server, b"nonsense\r\n\r\n"));
    assert!(r.starts_with("HTTP/1.1 400"), "{r}");
    assert_eq!(server.request_count(), 0);
    assert_eq!(server.errors().len(), 1);
}

#[test]
fn dropping_the_server_ends_a_long_scripted_delay() {
    let server =
        TestServer::repeating(ScriptedResponse::new(200).first_byte_delay(Duration::from_secs(60)));
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    server.wait_for_requests(1, Duration::from_secs(2));
    let started = Instant::now();
    drop(server);
    // Liveness, not speed: without the stop flag this would take a minute.
    assert!(started.elapsed() < Duration::from_secs(20));
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut rest = Vec::new();
    assert_eq!(stream.read_to_end(&mut rest).unwrap(), 0);
}

#[test]
fn gated_chunk_waits_for_the_test() {
    use focus_testkit::server::Gate;
    let gate = Gate::new();
    let server = TestServer::queue(vec![
        ScriptedResponse::sse(&["data: 1\n\n"]).chunk_after_gate(&gate, "data: 2\n\n")
    ]);
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    while !text(&seen).contains("data: 1\n\n\r\n") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0);
        seen.extend_from_slice(&buf[..n]);
    }
    // Nothing more can come while the gate is closed: a short read times out.
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    assert!(
        stream.read(&mut buf).is_err(),
        "data came through a closed gate"
    );
    assert!(!gate.is_open());
    gate.open();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.read_to_end(&mut seen).unwrap();
    assert!(text(&seen).ends_with("9\r\ndata: 2\n\n\r\n0\r\n\r\n"));
}

#[test]
fn dropping_an_idle_server_closes_its_port() {
    let server = TestServer::repeating(ScriptedResponse::new(200));
    let addr = server.addr();
    assert!(TcpStream::connect(addr).is_ok());
    drop(server);
    // The listener belongs to the accept thread: refused means that thread ended.
    let error = TcpStream::connect(addr).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::ConnectionRefused);
}
