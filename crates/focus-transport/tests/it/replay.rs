//! ReplayTransport: recorded responses served in order, chunking kept, cuts and
//! failures reproduced, requests recorded.

use focus_core::cancel::CancelToken;
use focus_testkit::conformance_dir;
use focus_transport::replay::{ReplayResponse, ReplayTransport};
use focus_transport::sse::EventReader;
use focus_transport::{HttpRequest, Transport, TransportError};
use std::io::Read;

fn request(body: &str) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        url: "https://api.example/v1/messages".into(),
        headers: vec![("x-api-key".into(), "k".into())],
        body: body.as_bytes().to_vec(),
        ..Default::default()
    }
}

#[test]
fn serves_in_order_records_requests_and_keeps_chunking() {
    let transport = ReplayTransport::new(vec![
        ReplayResponse::new(200).body("abcdefg").split_every(3),
        ReplayResponse::new(500)
            .header("content-type", "application/json")
            .body("{}"),
    ]);
    let cancel = CancelToken::new();
    let mut first = transport.send(&request("one"), &cancel).unwrap();
    let mut buf = [0u8; 64];
    let mut reads = Vec::new();
    loop {
        let n = first.body.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        reads.push(String::from_utf8_lossy(&buf[..n]).into_owned());
    }
    assert_eq!(reads, ["abc", "def", "g"]);
    let second = transport.send(&request("two"), &cancel).unwrap();
    assert_eq!(second.status, 500);
    assert_eq!(second.header("Content-Type"), Some("application/json"));
    let error = transport.send(&request("three"), &cancel).unwrap_err();
    assert!(
        error.to_string().contains("no recorded response left"),
        "{error}"
    );
    let bodies: Vec<Vec<u8>> = transport.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(
        bodies,
        [b"one".to_vec(), b"two".to_vec(), b"three".to_vec()]
    );
}

#[test]
fn cut_stream_and_send_failures_are_typed() {
    let transport = ReplayTransport::new(vec![
        ReplayResponse::sse(b"data: 1\n\ndata: 2\n\n".to_vec())
            .split_every(9)
            .cut_after(1),
        ReplayResponse::failure(TransportError::Dns("no such host".into())),
    ]);
    let cancel = CancelToken::new();
    let response = transport.send(&request(""), &cancel).unwrap();
    let mut events = EventReader::new(response.body);
    assert_eq!(events.next_event().unwrap().unwrap().data, "1");
    let error = events.next_event().unwrap_err();
    assert!(matches!(
        TransportError::from_io(&error),
        TransportError::StreamCut(_)
    ));
    assert!(matches!(
        transport.send(&request(""), &cancel),
        Err(TransportError::Dns(_))
    ));
}

#[test]
fn cancel_stops_send_and_body() {
    let transport = ReplayTransport::repeating(ReplayResponse::new(200).body("xyz").split_every(1));
    let cancel = CancelToken::new();
    let mut response = transport.send(&request(""), &cancel).unwrap();
    let mut buf = [0u8; 8];
    assert_eq!(response.body.read(&mut buf).unwrap(), 1);
    cancel.cancel();
    let error = response.body.read(&mut buf).unwrap_err();
    assert_eq!(TransportError::from_io(&error), TransportError::Cancelled);
    assert_eq!(
        transport.send(&request(""), &cancel).unwrap_err(),
        TransportError::Cancelled
    );
}

#[test]
fn parses_a_recorded_http_response() {
    let parsed = ReplayResponse::parse_http(
        b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nX: a:b\r\n\r\n{\"e\":1}",
    )
    .unwrap();
    assert_eq!(parsed.status, 429);
    assert_eq!(parsed.headers[1], ("X".to_string(), "a:b".to_string()));
    assert_eq!(parsed.chunks.concat(), b"{\"e\":1}");
    assert!(ReplayResponse::parse_http(b"garbage").is_err());
    assert!(ReplayResponse::parse_http(b"HTTP/1.1 abc\r\n\r\n").is_err());
}

#[test]
fn serves_a_recorded_provider_stream_from_file() {
    let Some(dir) = conformance_dir("providers") else {
        return;
    };
    let path = dir.join("anthropic").join(
        std::fs::read_dir(dir.join("anthropic"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .find(|n| n.ends_with(".sse"))
            .unwrap(),
    );
    let bytes = std::fs::read(&path).unwrap();
    let transport = ReplayTransport::new(vec![ReplayResponse::sse_file(&path)
        .unwrap()
        .split_every(7)]);
    let response = transport.send(&request(""), &CancelToken::new()).unwrap();
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    let events: Vec<_> = EventReader::new(response.body)
        .map(Result::unwrap)
        .collect();
    assert_eq!(events, focus_transport::sse::SseDecoder::decode_all(&bytes));
    assert!(ReplayResponse::sse_file("/nonexistent/x.sse")
        .unwrap_err()
        .contains("/nonexistent/x.sse"));
}
