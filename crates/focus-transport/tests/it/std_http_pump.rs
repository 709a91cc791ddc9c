//! An event stream's body read on a thread of its own once it outpaces its
//! reader (`std_http/pump.rs`; here the reader falls behind at once: it reads
//! with a buffer of a few bytes, so every read fills it): the bytes in order,
//! a finished stream's connection reused, an error repeated by every later
//! read, and a caller that drops the body early stopping the reading (the
//! socket shut, the server sees the end).

use focus_core::cancel::CancelToken;
use focus_transport::{HttpRequest, StdHttpTransport, Transport, TransportError};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

fn get(url: String) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        url,
        headers: vec![("content-type".into(), "application/json".into())],
        body: b"{}".to_vec(),
        connect_timeout: Some(Duration::from_secs(5)),
        total_timeout: Some(Duration::from_secs(30)),
    }
}

/// A server that answers each request of a connection with `head` and then
/// `chunks`, one write each, and after the last one does `after`; tells
/// `seen` when the client closed its side.
fn server(
    head: &'static str,
    chunks: Vec<Vec<u8>>,
    after: After,
    seen: mpsc::Sender<&'static str>,
) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (chunks, seen) = (chunks.clone(), seen.clone());
            std::thread::spawn(move || {
                let mut stream = stream;
                let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    if let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                        // The body is "{}": two bytes after the head.
                        if request.len() >= end + 6 {
                            request.drain(..end + 6);
                            let _ = stream.write_all(head.as_bytes());
                            for chunk in &chunks {
                                if stream.write_all(chunk).is_err() {
                                    return;
                                }
                            }
                            match after {
                                After::KeepOpen => {}
                                After::Close => return,
                            }
                            continue;
                        }
                    }
                    match stream.read(&mut buf) {
                        Ok(0) => {
                            let _ = seen.send("closed");
                            return;
                        }
                        Err(_) => {
                            let _ = seen.send("error");
                            return;
                        }
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
            });
        }
    });
    url
}

#[derive(Clone, Copy)]
enum After {
    KeepOpen,
    Close,
}

fn chunked(pieces: &[&str]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = pieces
        .iter()
        .map(|p| format!("{:x}\r\n{p}\r\n", p.len()).into_bytes())
        .collect();
    out.push(b"0\r\n\r\n".to_vec());
    out
}

const STREAM_HEAD: &str =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n";

#[test]
fn a_long_stream_arrives_whole_and_in_order_and_its_connection_is_reused() {
    let pieces: Vec<String> = (0..5000).map(|i| format!("data: {i}\n\n")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let (seen, _closed) = mpsc::channel();
    let url = server(STREAM_HEAD, chunked(&refs), After::KeepOpen, seen);
    let transport = StdHttpTransport::new();
    for _ in 0..2 {
        let response = transport
            .send(&get(url.clone()), &CancelToken::new())
            .unwrap();
        let mut body = String::new();
        let mut reader = response.body;
        // Small reads: the caller's buffer decides nothing about what arrives.
        let mut buf = [0u8; 7];
        loop {
            let n = reader.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            body.push_str(std::str::from_utf8(&buf[..n]).unwrap());
        }
        assert_eq!(body, pieces.concat());
        assert_eq!(reader.read(&mut buf).unwrap(), 0, "the end stays the end");
        // The body ended: its connection waits in the pool for the next request.
        assert_eq!(transport.idle_connections(), 1);
    }
}

#[test]
fn a_stream_cut_short_reports_the_cut_on_every_later_read() {
    let (seen, _closed) = mpsc::channel();
    let mut chunks = chunked(&["data: 1\n\n"]);
    chunks.pop(); // no last chunk: the server closes in the middle
    chunks.push(b"40\r\ndata: par".to_vec());
    let url = server(STREAM_HEAD, chunks, After::Close, seen);
    let response = StdHttpTransport::new()
        .send(&get(url), &CancelToken::new())
        .unwrap();
    let mut reader = response.body;
    let mut got = Vec::new();
    let mut buf = [0u8; 4];
    let error = loop {
        match reader.read(&mut buf) {
            Ok(0) => panic!("a cut stream ended cleanly: {got:?}"),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(error) => break error,
        }
    };
    assert!(
        String::from_utf8_lossy(&got).starts_with("data: 1\n\n"),
        "{got:?}"
    );
    let first = TransportError::from_io(&error);
    assert!(matches!(first, TransportError::StreamCut(_)), "{first:?}");
    let again = TransportError::from_io(&reader.read(&mut buf).unwrap_err());
    assert_eq!(again, first);
}

#[test]
fn a_body_dropped_before_its_end_stops_the_reading() {
    let (seen, closed) = mpsc::channel();
    // One event, then the server waits with the stream open, as a model
    // between two tokens.
    let url = server(
        STREAM_HEAD,
        vec![b"9\r\ndata: 1\n\n\r\n".to_vec()],
        After::KeepOpen,
        seen,
    );
    let transport = StdHttpTransport::new();
    let response = transport.send(&get(url), &CancelToken::new()).unwrap();
    let mut reader = response.body;
    // Three reads that fill a buffer of 3 bytes: the pump takes over, and
    // waits in the socket for the next event.
    let mut got = Vec::new();
    let mut buf = [0u8; 3];
    while got.len() < 9 {
        let n = reader.read(&mut buf).unwrap();
        assert!(n > 0);
        got.extend_from_slice(&buf[..n]);
    }
    assert_eq!(got, b"data: 1\n\n");
    drop(reader);
    // The socket was shut down: the server's read ends. (Liveness, not speed:
    // without the shutdown it would wait for its 20 s read limit, then say
    // "error".)
    assert_eq!(closed.recv_timeout(Duration::from_secs(15)), Ok("closed"));
    assert_eq!(
        transport.idle_connections(),
        0,
        "an unfinished body is not reused"
    );
}
