//! `StdHttpTransport` against the scripted test server: the exact request bytes,
//! the three body framings streamed as they arrive, connection reuse, IPv6,
//! the time limits, and cancellation of a blocked read.
//! (The behaviours it shares with the curl transport are checked for both in
//! focus-providers' `both_transports`; hostile servers are in `std_http_hostile`.)

use focus_core::cancel::CancelToken;
use focus_testkit::server::{Gate, ScriptedResponse, TestServer};
use focus_transport::sse::EventReader;
use focus_transport::std_http::Timeouts;
use focus_transport::{HttpRequest, HttpResponse, StdHttpTransport, Transport, TransportError};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

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
        total_timeout: Some(Duration::from_secs(20)),
    }
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
fn writes_the_exact_request_and_reads_each_framing() {
    let server = TestServer::queue(vec![
        ScriptedResponse::json("{\"ok\":true}").header("X-Request-Id", "req_1"),
        ScriptedResponse::sse(&["data: 1\n\n", "data: 2\n\n"]),
        ScriptedResponse::new(200)
            .chunk("ab")
            .chunk("cd")
            .close_delimited(),
    ]);
    let transport = StdHttpTransport::new();
    let mut body = b"{\"a\":\"\xc3\xa9\"}\x00\xff".to_vec();
    body.extend(std::iter::repeat(b'x').take(100_000));
    let response = transport
        .send(
            &request("POST", server.url_for("/v1/messages?beta=true"), &body),
            &CancelToken::new(),
        )
        .unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.header("x-request-id"), Some("req_1"));
    assert_eq!(read_body(response).unwrap(), b"{\"ok\":true}");
    let received = &server.requests()[0];
    assert_eq!(
        (received.method.as_str(), received.path.as_str()),
        ("POST", "/v1/messages?beta=true")
    );
    assert_eq!(received.version, "HTTP/1.1");
    assert_eq!(received.body, body);
    assert_eq!(
        received.header("host"),
        Some(server.addr().to_string().as_str())
    );
    assert_eq!(received.header("x-api-key"), Some("sk-test-0123456789"));
    assert_eq!(received.header("content-length"), Some("100012"));

    let response = transport
        .send(&request("GET", server.url(), b""), &CancelToken::new())
        .unwrap();
    assert_eq!(read_body(response).unwrap(), b"data: 1\n\ndata: 2\n\n");
    let response = transport
        .send(&request("GET", server.url(), b""), &CancelToken::new())
        .unwrap();
    assert_eq!(read_body(response).unwrap(), b"abcd");
    assert!(server.errors().is_empty(), "{:?}", server.errors());
}

#[test]
fn chunks_arrive_while_the_body_is_still_being_written() {
    let gate = Gate::new();
    let server = TestServer::queue(vec![ScriptedResponse::sse(&["event: a\ndata: 1\n\n"])
        .chunk_after_gate(&gate, "event: b\ndata: 2\n\n")]);
    let response = StdHttpTransport::new()
        .send(&request("POST", server.url(), b"{}"), &CancelToken::new())
        .unwrap();
    let mut events = EventReader::new(response.body);
    let first = events.next_event().unwrap().unwrap();
    assert_eq!((first.event.as_str(), first.data.as_str()), ("a", "1"));
    assert!(
        !gate.is_open(),
        "the first event came before the second existed"
    );
    gate.open();
    assert_eq!(events.next_event().unwrap().unwrap().data, "2");
    assert!(events.next_event().unwrap().is_none());
}

#[test]
fn a_connection_is_reused_only_when_the_answer_allowed_it() {
    let server = TestServer::repeating(ScriptedResponse::json("{}").keep_alive());
    let transport = StdHttpTransport::new();
    for _ in 0..3 {
        let response = transport
            .send(&request("POST", server.url(), b"{}"), &CancelToken::new())
            .unwrap();
        assert_eq!(read_body(response).unwrap(), b"{}");
    }
    assert_eq!(server.request_count(), 3);
    assert_eq!(
        server.connection_count(),
        1,
        "three requests, one connection"
    );

    // Chunked and kept alive: reused once the terminating chunk is read.
    let chunked = TestServer::repeating(ScriptedResponse::sse(&["data: x\n\n"]).keep_alive());
    for _ in 0..2 {
        let response = transport
            .send(&request("GET", chunked.url(), b""), &CancelToken::new())
            .unwrap();
        assert_eq!(read_body(response).unwrap(), b"data: x\n\n");
    }
    assert_eq!(chunked.connection_count(), 1);

    // `Connection: close` (the default script): a new connection each time.
    let closing = TestServer::repeating(ScriptedResponse::json("{}"));
    for _ in 0..2 {
        let response = transport
            .send(&request("GET", closing.url(), b""), &CancelToken::new())
            .unwrap();
        read_body(response).unwrap();
    }
    assert_eq!(closing.connection_count(), 2);

    // A body dropped half-read: that connection is closed, not reused.
    let gate = Gate::new();
    let half = TestServer::repeating(
        ScriptedResponse::sse(&["data: 1\n\n"])
            .chunk_after_gate(&gate, "data: 2\n\n")
            .keep_alive(),
    );
    let response = transport
        .send(&request("GET", half.url(), b""), &CancelToken::new())
        .unwrap();
    drop(response);
    gate.open();
    let response = transport
        .send(&request("GET", half.url(), b""), &CancelToken::new())
        .unwrap();
    read_body(response).unwrap();
    assert_eq!(half.connection_count(), 2);
}

#[test]
fn a_pooled_connection_the_server_closed_is_replaced() {
    // Keep-alive on the first answer, but the server closes anyway afterwards
    // (as one does after its idle timeout): the next request still works.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        for answer in ["first", "second"] {
            let (mut stream, _) = listener.accept().unwrap();
            // The whole head: a request left half read makes the close a reset.
            read_request_head(&mut stream);
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{answer}",
                answer.len()
            );
            stream.write_all(reply.as_bytes()).unwrap();
        }
    });
    let transport = StdHttpTransport::new();
    let url = format!("http://127.0.0.1:{port}/");
    let first = transport
        .send(&request("GET", url.clone(), b""), &CancelToken::new())
        .unwrap();
    assert_eq!(read_body(first).unwrap(), b"first");
    let second = transport
        .send(&request("GET", url, b""), &CancelToken::new())
        .unwrap();
    assert_eq!(read_body(second).unwrap(), b"second");
    server.join().unwrap();
}

/// Reads from `stream` until the end of a request's head (`GET`s only: no
/// body follows); panics if the client closes first.
fn read_request_head(stream: &mut std::net::TcpStream) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "the client closed before its request was whole");
        seen.extend_from_slice(&buf[..n]);
    }
}

/// The race the test above can lose under load, made certain: the pooled
/// connection still looks alive when it is taken (the server has not closed it
/// yet), the request is written into it, and only then does the server close
/// it, unanswered. The request goes out again on a fresh connection, though the
/// reused one had answered before (the transport once counted that earlier
/// answer as an answer to this request, and gave up).
#[test]
fn a_pooled_connection_closed_after_the_request_was_written_is_replaced() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut first, _) = listener.accept().unwrap();
        read_request_head(&mut first);
        first
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst")
            .unwrap();
        // The second request arrives on the kept connection; it is read and
        // the connection closed without a word.
        read_request_head(&mut first);
        drop(first);
        let (mut fresh, _) = listener.accept().unwrap();
        read_request_head(&mut fresh);
        fresh
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond")
            .unwrap();
    });
    let transport = StdHttpTransport::new();
    let url = format!("http://127.0.0.1:{port}/");
    let first = transport
        .send(&request("GET", url.clone(), b""), &CancelToken::new())
        .unwrap();
    assert_eq!(read_body(first).unwrap(), b"first");
    let second = transport
        .send(&request("GET", url, b""), &CancelToken::new())
        .unwrap();
    assert_eq!(read_body(second).unwrap(), b"second");
    server.join().unwrap();
}

#[test]
fn ipv6_loopback_with_brackets() {
    let Ok(listener) = TcpListener::bind("[::1]:0") else {
        focus_testkit::skipped("no IPv6 loopback on this machine");
        return;
    };
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 1024];
        while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut buf).unwrap();
            seen.extend_from_slice(&buf[..n]);
        }
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nv6")
            .unwrap();
        String::from_utf8(seen).unwrap()
    });
    let response = StdHttpTransport::new()
        .send(
            &request("GET", format!("http://[::1]:{port}/x"), b""),
            &CancelToken::new(),
        )
        .unwrap();
    assert_eq!(read_body(response).unwrap(), b"v6");
    let head = server.join().unwrap();
    assert!(
        head.starts_with("GET /x HTTP/1.1\r\nHost: [::1]:"),
        "{head}"
    );
}

#[test]
fn first_byte_idle_and_total_limits() {
    let quick = Timeouts {
        connect: Duration::from_secs(5),
        first_byte: Some(Duration::from_millis(300)),
        idle: Some(Duration::from_millis(300)),
    };
    let transport = StdHttpTransport::new().with_timeouts(quick);
    let silent = TestServer::repeating(
        ScriptedResponse::json("{}").first_byte_delay(Duration::from_secs(30)),
    );
    let error = transport
        .send(&request("GET", silent.url(), b""), &CancelToken::new())
        .unwrap_err();
    assert!(
        matches!(&error, TransportError::Timeout(m) if m.contains("no response")),
        "{error:?}"
    );
    assert!(error.is_retryable());

    let gate = Gate::new(); // never opened
    let stalled =
        TestServer::repeating(ScriptedResponse::sse(&["data: 1\n\n"]).chunk_after_gate(&gate, "x"));
    let response = transport
        .send(&request("GET", stalled.url(), b""), &CancelToken::new())
        .unwrap();
    let error = read_body(response).unwrap_err();
    assert!(
        matches!(&error, TransportError::Timeout(m) if m.contains("no data")),
        "{error:?}"
    );

    let mut total = request("GET", stalled.url(), b"");
    total.total_timeout = Some(Duration::from_millis(200));
    let response = StdHttpTransport::new()
        .send(&total, &CancelToken::new())
        .unwrap();
    let error = read_body(response).unwrap_err();
    assert!(
        matches!(&error, TransportError::Timeout(m) if m.contains("total")),
        "{error:?}"
    );
}

#[test]
fn cancel_unblocks_a_blocked_read_at_once() {
    let gate = Gate::new(); // never opened: only the cancel can end this read
    let server = TestServer::queue(vec![
        ScriptedResponse::sse(&["data: 1\n\n"]).chunk_after_gate(&gate, "data: 2\n\n")
    ]);
    let cancel = CancelToken::new();
    let response = StdHttpTransport::new()
        .send(&request("POST", server.url(), b"{}"), &cancel)
        .unwrap();
    let mut events = EventReader::new(response.body);
    assert_eq!(events.next_event().unwrap().unwrap().data, "1");
    let canceller = cancel.clone();
    let thread = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        canceller.cancel();
    });
    let started = Instant::now();
    let error = events.next_event().unwrap_err();
    thread.join().unwrap();
    assert_eq!(TransportError::from_io(&error), TransportError::Cancelled);
    // Liveness, not speed: the idle limit (600 s) is the only other way out.
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn cancel_while_waiting_for_the_head_and_before_sending() {
    let gate = Gate::new();
    let server = TestServer::repeating(ScriptedResponse::json("{}").head_after_gate(&gate));
    let cancel = CancelToken::new();
    let canceller = cancel.clone();
    let url = server.url();
    let thread = std::thread::spawn(move || {
        StdHttpTransport::new().send(&request("POST", url, b"{}"), &canceller)
    });
    assert_eq!(
        server.wait_for_requests(1, Duration::from_secs(10)).len(),
        1
    );
    cancel.cancel();
    assert_eq!(
        thread.join().unwrap().unwrap_err(),
        TransportError::Cancelled
    );
    assert_eq!(
        StdHttpTransport::new()
            .send(&request("GET", server.url(), b""), &cancel)
            .unwrap_err(),
        TransportError::Cancelled
    );
    assert_eq!(server.request_count(), 1);
}

#[test]
fn refused_unresolvable_and_unservable_urls() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let transport = StdHttpTransport::new();
    let error = transport
        .send(
            &request("GET", format!("http://127.0.0.1:{port}/"), b""),
            &CancelToken::new(),
        )
        .unwrap_err();
    assert!(matches!(error, TransportError::Connect(_)), "{error:?}");
    let error = transport
        .send(
            &request("GET", "http://focus-test.invalid/".into(), b""),
            &CancelToken::new(),
        )
        .unwrap_err();
    assert!(matches!(error, TransportError::Dns(_)), "{error:?}");
    let error = transport
        .send(
            &request("GET", "https://example.com/".into(), b""),
            &CancelToken::new(),
        )
        .unwrap_err();
    assert!(error.to_string().contains("http://"), "{error}");
}

#[test]
fn one_read_takes_every_chunk_already_here() {
    // Three chunks in one write: a reader's one `read` gets all of them, not one
    // HTTP chunk per call (a stream of small events would cost a call each).
    let server = TestServer::queue(vec![ScriptedResponse::raw(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n1\r\nf\r\n0\r\n\r\n",
    )]);
    let response = StdHttpTransport::new()
        .send(&request("GET", server.url(), b""), &CancelToken::new())
        .unwrap();
    let mut body = response.body;
    let mut buf = [0u8; 64];
    let n = body.read(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"abcdef");
    assert_eq!(body.read(&mut buf).unwrap(), 0);
}

/// A server answering every request on a connection with `answer`, keeping the
/// connection open; returns its URL and the count of connections it accepted.
fn keep_alive_server(
    answer: &'static [u8],
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let accepted = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            counter.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut stream = stream;
                let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                let mut seen = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                        seen.drain(..end + 4);
                        if stream.write_all(answer).is_err() {
                            return;
                        }
                    }
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                }
            });
        }
    });
    (url, accepted)
}

#[test]
fn answers_that_forbid_reuse_get_a_new_connection() {
    use std::sync::atomic::Ordering;
    let cases: [(&[u8], usize); 4] = [
        // Kept alive: one connection for both requests.
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 1),
        // Transfer-Encoding with Content-Length: maybe smuggling, never reused.
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            2,
        ),
        // HTTP/1.0 closes by default.
        (b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 2),
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", 2),
    ];
    for (answer, connections) in cases {
        let (url, accepted) = keep_alive_server(answer);
        let transport = StdHttpTransport::new();
        for _ in 0..2 {
            let response = transport
                .send(&request("GET", url.clone(), b""), &CancelToken::new())
                .unwrap();
            assert_eq!(read_body(response).unwrap(), b"ok");
        }
        assert_eq!(
            accepted.load(Ordering::SeqCst),
            connections,
            "{}",
            String::from_utf8_lossy(answer)
        );
    }
}
