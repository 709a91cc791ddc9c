//! One behaviour, two transports: every test here runs the same checks against
//! the std transport and curl (`support::transports::both`), against the
//! loopback test server — the request on the wire, streaming, status and error
//! mapping, time limits, cancellation, retries before the first byte only, and
//! hostile answers (oversized heads, bad chunk sizes, cuts). The recorded
//! provider streams over both are in `conformance`. What only one of them does (curl's exit codes, the std
//! transport's connection pool) is tested beside it.

use crate::support::ask::ask;
use crate::support::limits::head_within_a_limit;
use crate::support::transports::{both, Row};
use focus_core::cancel::CancelToken;
use focus_core::message::{AssistantMessage, StopReason};
use focus_core::provider::{ModelInfo, StreamEvent};
use focus_providers::registry::Registry;
use focus_providers::{HttpProvider, RetryPolicy};
use focus_testkit::server::{Gate, ScriptedResponse, TestServer};
use focus_transport::sse::EventReader;
use focus_transport::{HttpRequest, HttpResponse, TransportError};
use std::io::Read;
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

fn send(row: &Row, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
    row.transport.send(request, &CancelToken::new())
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
fn the_request_reaches_the_server_byte_for_byte() {
    for row in both() {
        let server = TestServer::queue(vec![
            ScriptedResponse::json("{\"ok\":true}").header("X-Request-Id", "req_1"),
            ScriptedResponse::new(200),
        ]);
        let mut body = b"{\"a\":\"\\\"q\\\"\r\n\"}\x00\xff\xfe".to_vec();
        body.extend(std::iter::repeat(b'x').take(5000));
        let response = send(
            &row,
            &request("POST", server.url_for("/v1/messages?beta=true"), &body),
        )
        .unwrap();
        assert_eq!(response.status, 200, "{}", row.name);
        assert_eq!(
            response.header("x-request-id"),
            Some("req_1"),
            "{}",
            row.name
        );
        assert_eq!(
            read_body(response).unwrap(),
            b"{\"ok\":true}",
            "{}",
            row.name
        );
        // An empty POST still says its length.
        read_body(send(&row, &request("POST", server.url(), b"")).unwrap()).unwrap();
        let received = server.requests();
        assert_eq!(received[0].method, "POST", "{}", row.name);
        assert_eq!(received[0].path, "/v1/messages?beta=true", "{}", row.name);
        assert_eq!(received[0].body, body, "{}", row.name);
        assert_eq!(received[0].header("x-api-key"), Some("sk-test-0123456789"));
        assert_eq!(received[0].header("expect"), None, "{}", row.name);
        assert_eq!(
            received[1].header("content-length"),
            Some("0"),
            "{}",
            row.name
        );
        assert!(
            server.errors().is_empty(),
            "{}: {:?}",
            row.name,
            server.errors()
        );
    }
}

#[test]
fn events_arrive_before_the_body_ends_in_every_framing() {
    for row in both() {
        let gate = Gate::new();
        let server = TestServer::queue(vec![
            ScriptedResponse::sse(&["event: a\ndata: 1\n\n"])
                .chunk_after_gate(&gate, "event: b\ndata: 2\n\n"),
            ScriptedResponse::new(200)
                .chunk("ab")
                .chunk_after(Duration::from_millis(20), "cd")
                .close_delimited(),
        ]);
        let response = send(&row, &request("POST", server.url(), b"{}")).unwrap();
        let mut events = EventReader::new(response.body);
        let first = events.next_event().unwrap().unwrap();
        assert_eq!((first.event.as_str(), first.data.as_str()), ("a", "1"));
        assert!(!gate.is_open(), "{}: streamed, not collected", row.name);
        gate.open();
        assert_eq!(events.next_event().unwrap().unwrap().data, "2");
        assert!(events.next_event().unwrap().is_none());
        let response = send(&row, &request("GET", server.url(), b"")).unwrap();
        assert_eq!(read_body(response).unwrap(), b"abcd", "{}", row.name);
    }
}

#[test]
fn statuses_keep_their_body_and_retry_after() {
    for row in both() {
        let server = TestServer::queue(vec![
            ScriptedResponse::too_many_requests(7),
            ScriptedResponse::server_error("{\"error\":\"boom\"}"),
        ]);
        let response = send(&row, &request("POST", server.url(), b"{}")).unwrap();
        assert_eq!(
            response.status, 429,
            "{}: a status is not an error",
            row.name
        );
        match response.error_for_status() {
            Err(TransportError::Status {
                status: 429,
                body,
                retry_after,
            }) => {
                assert_eq!(retry_after, Some(Duration::from_secs(7)), "{}", row.name);
                assert!(body.contains("rate_limit_error"), "{}: {body}", row.name);
            }
            other => panic!("{}: {other:?}", row.name),
        }
        let error = send(&row, &request("POST", server.url(), b"{}"))
            .unwrap()
            .error_for_status()
            .unwrap_err();
        assert_eq!(
            error,
            TransportError::Status {
                status: 500,
                body: "{\"error\":\"boom\"}".into(),
                retry_after: None
            },
            "{}",
            row.name
        );
    }
}

#[test]
fn connection_failures_map_to_their_kinds() {
    let closed_port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    for row in both() {
        let refused = send(
            &row,
            &request("GET", format!("http://127.0.0.1:{closed_port}/"), b""),
        )
        .unwrap_err();
        assert!(
            matches!(refused, TransportError::Connect(_)),
            "{}: {refused:?}",
            row.name
        );
        assert!(refused.is_retryable());
        let dns = send(
            &row,
            &request("GET", "http://focus-test.invalid/".into(), b""),
        )
        .unwrap_err();
        assert!(
            matches!(dns, TransportError::Dns(_) | TransportError::Connect(_)),
            "{}: {dns:?}",
            row.name
        );
        let server = TestServer::queue(vec![
            ScriptedResponse::raw(b""),
            ScriptedResponse::sse(&["data: 1\n\n", "data: 2\n\n"]).disconnect_after(1),
            {
                let mut short = ScriptedResponse::new(200).body("0123456789");
                short.chunks[0].bytes.truncate(4);
                short.header("Content-Length", "10").close_delimited()
            },
            ScriptedResponse::raw(b"SSH-2.0-OpenSSH\r\n\r\n"),
        ]);
        let empty = send(&row, &request("GET", server.url(), b"")).unwrap_err();
        assert!(
            matches!(empty, TransportError::StreamCut(_)),
            "{}: {empty:?}",
            row.name
        );
        let response = send(&row, &request("GET", server.url(), b"")).unwrap();
        let mut events = EventReader::new(response.body);
        assert_eq!(events.next_event().unwrap().unwrap().data, "1");
        let cut = TransportError::from_io(&events.next_event().unwrap_err());
        assert!(
            matches!(cut, TransportError::StreamCut(_)),
            "{}: {cut:?}",
            row.name
        );
        let response = send(&row, &request("GET", server.url(), b"")).unwrap();
        let short = read_body(response).unwrap_err();
        assert!(
            matches!(short, TransportError::StreamCut(_)),
            "{}: {short:?}",
            row.name
        );
        let garbage = send(&row, &request("GET", server.url(), b"")).unwrap_err();
        assert!(!garbage.to_string().is_empty(), "{}", row.name);
    }
}

#[test]
fn time_limits_end_a_silent_server() {
    for row in both() {
        let never = Gate::new();
        let silent = TestServer::repeating(ScriptedResponse::json("{}").head_after_gate(&never));
        let mut slow = request("POST", silent.url(), b"{}");
        slow.total_timeout = Some(Duration::from_millis(400));
        let error = send(&row, &slow).unwrap_err();
        assert!(
            matches!(error, TransportError::Timeout(_)),
            "{}: {error:?}",
            row.name
        );
        assert!(error.is_retryable());
        // The head comes at once, the body never: whatever limit lets the
        // head through on this machine must then end the read of the body.
        let stalled = TestServer::repeating(
            ScriptedResponse::sse(&["data: 1\n\n"]).chunk_after_gate(&never, "data: 2\n\n"),
        );
        let response = head_within_a_limit(row.name, |limit| {
            let mut slow = request("POST", stalled.url(), b"{}");
            slow.total_timeout = Some(limit);
            send(&row, &slow)
        });
        let error = read_body(response).unwrap_err();
        assert!(
            matches!(error, TransportError::Timeout(_)),
            "{}: {error:?}",
            row.name
        );
        never.open();
    }
}

#[test]
fn cancel_ends_a_blocked_read_and_a_wait_for_the_head() {
    for row in both() {
        let never = Gate::new();
        let server = TestServer::queue(vec![
            ScriptedResponse::sse(&["data: 1\n\n"]).chunk_after_gate(&never, "data: 2\n\n"),
            ScriptedResponse::json("{}").head_after_gate(&never),
        ]);
        let cancel = CancelToken::new();
        let mut long = request("POST", server.url(), b"{}");
        long.total_timeout = Some(Duration::from_secs(60));
        let response = row.transport.send(&long, &cancel).unwrap();
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
        assert_eq!(
            TransportError::from_io(&error),
            TransportError::Cancelled,
            "{}",
            row.name
        );
        // Liveness, not speed: otherwise this read waits for the 60 s limit.
        assert!(started.elapsed() < Duration::from_secs(10), "{}", row.name);

        let cancel = CancelToken::new();
        let canceller = cancel.clone();
        let transport = row.transport.clone();
        let waiting = std::thread::spawn(move || transport.send(&long, &canceller).map(|_| ()));
        assert_eq!(
            server.wait_for_requests(2, Duration::from_secs(10)).len(),
            2
        );
        cancel.cancel();
        assert_eq!(
            waiting.join().unwrap().unwrap_err(),
            TransportError::Cancelled,
            "{}",
            row.name
        );
        // Already cancelled: nothing is sent.
        let error = row
            .transport
            .send(&request("GET", server.url(), b""), &cancel)
            .unwrap_err();
        assert_eq!(error, TransportError::Cancelled, "{}", row.name);
        assert_eq!(server.request_count(), 2, "{}", row.name);
        never.open();
    }
}

#[test]
fn large_heads_pass_and_oversized_heads_fail_cleanly() {
    for row in both() {
        let server = TestServer::queue(vec![
            ScriptedResponse::oversized_headers(50_000),
            ScriptedResponse::oversized_headers(300_000),
        ]);
        let response = send(&row, &request("GET", server.url(), b"")).unwrap();
        assert_eq!(
            response.header("x-padding").map(str::len),
            Some(50_000),
            "{}",
            row.name
        );
        assert_eq!(read_body(response).unwrap(), b"ok");
        let error = send(&row, &request("GET", server.url(), b"")).unwrap_err();
        assert!(!error.is_retryable(), "{}: {error:?}", row.name);
    }
}

#[test]
fn a_header_with_a_line_break_is_refused_before_sending() {
    for row in both() {
        let server = TestServer::repeating(ScriptedResponse::new(200));
        let mut bad = request("GET", server.url(), b"");
        bad.headers
            .push(("authorization".into(), "Bearer abc\nX-Evil: 1".into()));
        let error = send(&row, &bad).unwrap_err().to_string();
        assert!(error.contains("authorization"), "{}: {error}", row.name);
        assert!(!error.contains("Bearer abc"), "{}: {error}", row.name);
        assert_eq!(server.request_count(), 0, "{}", row.name);
    }
}

const HALF_AN_ANSWER: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":4}}}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Half an\"}}\n\n";

const THE_REST: &str = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

fn anthropic_at(server: &TestServer) -> ModelInfo {
    let mut model = Registry::builtin()
        .find("anthropic/claude-sonnet-4-5")
        .unwrap()
        .clone();
    model.base_url = server.url();
    model
}

#[test]
fn failures_before_the_first_byte_are_retried_and_after_it_are_not() {
    for row in both() {
        let retry = RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(2),
        };
        // 429, a cut before any event, then the answer: three attempts, one answer.
        let server = TestServer::queue(vec![
            ScriptedResponse::too_many_requests(0),
            ScriptedResponse::raw(b""),
            ScriptedResponse::sse(&[HALF_AN_ANSWER, THE_REST]),
        ]);
        let provider = HttpProvider::new(anthropic_at(&server), None, row.transport.clone())
            .with_retry(retry.clone());
        let mut ignore = |_: &StreamEvent, _: &AssistantMessage| {};
        let message = ask(&provider, "", "hello", &CancelToken::new(), &mut ignore);
        assert_eq!(
            message.stop_reason,
            StopReason::Stop,
            "{}: {:?}",
            row.name,
            message.error_message
        );
        assert_eq!(message.text(), "Half an", "{}", row.name);
        assert_eq!(server.request_count(), 3, "{}", row.name);

        // Cut after text was shown: an error keeping the text, never a retry.
        let server = TestServer::queue(vec![
            ScriptedResponse::sse(&[HALF_AN_ANSWER, THE_REST]).disconnect_after(1),
            ScriptedResponse::sse(&[HALF_AN_ANSWER, THE_REST]),
        ]);
        let provider =
            HttpProvider::new(anthropic_at(&server), None, row.transport.clone()).with_retry(retry);
        let message = ask(&provider, "", "hello", &CancelToken::new(), &mut ignore);
        assert_eq!(message.stop_reason, StopReason::Error, "{}", row.name);
        assert_eq!(message.text(), "Half an", "{}", row.name);
        assert_eq!(
            server.request_count(),
            1,
            "{}: no retry after output",
            row.name
        );
    }
}

#[test]
fn hostile_answers_end_in_an_error_on_both() {
    // (curl 7.88 takes conflicting Content-Lengths and a body longer than its
    // Content-Length without a word; the std transport refuses both:
    // focus-transport's `std_http_hostile`.)
    let cases: [(&str, &[u8]); 5] = [
        (
            "a 2^64 chunk size",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\nx\r\n0\r\n\r\n",
        ),
        (
            "a negative chunk size",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",
        ),
        (
            "a non-hex chunk size",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
        ),
        (
            "an early close mid-chunk",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\nhello",
        ),
        ("a head cut short", b"HTTP/1.1 200 OK\r\nContent-Type: text/ev"),
    ];
    for row in both() {
        for (what, raw) in cases {
            let server = TestServer::queue(vec![ScriptedResponse::raw(raw)]);
            let outcome = send(&row, &request("GET", server.url(), b"")).and_then(read_body);
            assert!(
                outcome.is_err(),
                "{} accepted {what}: {outcome:?}",
                row.name
            );
        }
    }
}
