//! `StdHttpTransport` against hostile and broken servers. Each case must end in a
//! typed error that names what was wrong — never a hang, a panic, or memory that
//! grows with what the server sends. The endless ones are real: the server
//! writes until the client hangs up, and the test checks it hung up early.

use focus_core::cancel::CancelToken;
use focus_testkit::server::{ScriptedResponse, TestServer};
use focus_transport::std_http::Timeouts;
use focus_transport::{
    HttpRequest, HttpResponse, ProtocolError, StdHttpTransport, Transport, TransportError,
};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

fn get(url: String) -> HttpRequest {
    HttpRequest {
        method: "GET".into(),
        url,
        connect_timeout: Some(Duration::from_secs(5)),
        total_timeout: Some(Duration::from_secs(30)),
        ..Default::default()
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

/// The error of a whole exchange with a server answering `raw` bytes.
fn outcome(raw: &[u8]) -> Result<Vec<u8>, TransportError> {
    let server = TestServer::queue(vec![ScriptedResponse::raw(raw)]);
    let response = StdHttpTransport::new().send(&get(server.url()), &CancelToken::new())?;
    read_body(response)
}

fn protocol(result: Result<Vec<u8>, TransportError>) -> ProtocolError {
    match result {
        Err(TransportError::Protocol(p)) => p,
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

/// A server that sends `head` and then `filler` over and over (up to `total`
/// bytes) until the client hangs up; returns its URL and a handle giving how
/// many bytes it managed to write.
fn endless(
    head: &'static [u8],
    filler: &'static [u8],
    total: u64,
) -> (String, std::thread::JoinHandle<u64>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let thread = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_write_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut request = [0u8; 4096];
        let _ = stream.read(&mut request);
        let mut written = 0u64;
        if stream.write_all(head).is_err() {
            return written;
        }
        written += head.len() as u64;
        while written < total {
            if stream.write_all(filler).is_err() {
                break;
            }
            written += filler.len() as u64;
        }
        written
    });
    (url, thread)
}

#[test]
fn a_100_mb_header_line_is_refused_at_the_cap() {
    static FILLER: [u8; 64 * 1024] = [b'a'; 64 * 1024];
    let (url, server) = endless(b"HTTP/1.1 200 OK\r\nX-Huge: ", &FILLER, 100 << 20);
    let error = StdHttpTransport::new()
        .send(&get(url), &CancelToken::new())
        .unwrap_err();
    assert_eq!(
        error,
        TransportError::Protocol(ProtocolError::HeaderLineTooLong { limit: 64 * 1024 })
    );
    let written = server.join().unwrap();
    assert!(written < 100 << 20, "the client read all {written} bytes");
}

#[test]
fn endless_headers_are_refused_by_count_or_size() {
    let (url, server) = endless(b"HTTP/1.1 200 OK\r\n", b"X-Again: and again\r\n", 100 << 20);
    let error = StdHttpTransport::new()
        .send(&get(url), &CancelToken::new())
        .unwrap_err();
    assert_eq!(
        error,
        TransportError::Protocol(ProtocolError::TooManyHeaders { limit: 256 })
    );
    assert!(server.join().unwrap() < 100 << 20);
}

#[test]
fn an_endless_body_is_streamed_not_collected() {
    // 2^64 − 1 announced: the body is handed on as it comes, so memory stays flat;
    // the reader stops when it has seen enough.
    static FILLER: [u8; 64 * 1024] = [b'z'; 64 * 1024];
    let (url, server) = endless(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
        &FILLER,
        64 << 20,
    );
    let response = StdHttpTransport::new()
        .send(&get(url), &CancelToken::new())
        .unwrap();
    let mut body = response.body;
    let mut buf = vec![0u8; 16 * 1024];
    let mut seen = 0usize;
    while seen < 4 << 20 {
        let n = body.read(&mut buf).unwrap();
        assert!(n > 0 && n <= buf.len());
        seen += n;
    }
    drop(body);
    assert!(server.join().unwrap() < 64 << 20);
}

#[test]
fn a_2_pow_64_chunk_size_is_refused() {
    let error = protocol(outcome(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\nx\r\n0\r\n\r\n",
    ));
    assert_eq!(
        error,
        ProtocolError::ChunkSizeTooLarge("10000000000000000".into())
    );
}

#[test]
fn negative_and_non_hex_chunk_sizes_are_refused() {
    for size in ["-5", "0x5", "zz", "", " 5", "5 5"] {
        let raw = format!(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{size}\r\nhello\r\n0\r\n\r\n"
        );
        let error = protocol(outcome(raw.as_bytes()));
        assert!(
            matches!(error, ProtocolError::BadChunkSize(_)),
            "{size:?}: {error:?}"
        );
    }
}

#[test]
fn a_body_longer_than_content_length_is_refused() {
    let result = outcome(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello, and more");
    assert_eq!(
        protocol(result),
        ProtocolError::BodyLongerThanContentLength { declared: 5 }
    );
}

#[test]
fn conflicting_content_lengths_are_refused() {
    let result =
        outcome(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!");
    assert!(matches!(
        protocol(result),
        ProtocolError::ConflictingContentLength { .. }
    ));
}

#[test]
fn transfer_encoding_wins_over_content_length() {
    let body = outcome(
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    )
    .unwrap();
    assert_eq!(body, b"hello");
}

#[test]
fn an_early_close_mid_chunk_is_a_stream_cut() {
    let error =
        outcome(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\nhello").unwrap_err();
    assert!(
        matches!(&error, TransportError::StreamCut(m) if m.contains("5 bytes into a 10-byte chunk")),
        "{error:?}"
    );
    assert!(error.is_retryable());
    let error = outcome(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello").unwrap_err();
    assert!(
        matches!(&error, TransportError::StreamCut(m) if m.contains("5 of 10")),
        "{error:?}"
    );
}

#[test]
fn a_server_that_never_answers_times_out() {
    // Accepts, reads the request, says nothing and keeps the connection open.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let _ = wait.recv_timeout(Duration::from_secs(30));
        drop(stream);
    });
    let transport = StdHttpTransport::new().with_timeouts(Timeouts {
        connect: Duration::from_secs(5),
        first_byte: Some(Duration::from_millis(300)),
        idle: Some(Duration::from_secs(5)),
    });
    let error = transport.send(&get(url), &CancelToken::new()).unwrap_err();
    assert!(
        matches!(&error, TransportError::Timeout(m) if m.contains("no response")),
        "{error:?}"
    );
    done.send(()).unwrap();
    server.join().unwrap();
}

#[test]
fn malformed_heads_are_named() {
    type Case = (&'static [u8], fn(&ProtocolError) -> bool);
    let cases: [Case; 7] = [
        (b"SSH-2.0-OpenSSH\r\n\r\n", |e| {
            matches!(e, ProtocolError::BadStatusLine(_))
        }),
        (b"HTTP/2 200 OK\r\n\r\n", |e| {
            matches!(e, ProtocolError::BadStatusLine(_))
        }),
        (
            b"HTTP/1.1 200 OK\r\n folded: before any header\r\n\r\n",
            |e| matches!(e, ProtocolError::WhitespaceBeforeFirstHeader),
        ),
        (b"HTTP/1.1 200 OK\r\nName : v\r\n\r\n", |e| {
            matches!(e, ProtocolError::BadHeaderLine(_))
        }),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
            |e| matches!(e, ProtocolError::UnsupportedTransferCoding(c) if c == "gzip"),
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", |e| {
            matches!(e, ProtocolError::BadContentLength(_))
        }),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n",
            |e| matches!(e, ProtocolError::MissingChunkTerminator),
        ),
    ];
    for (raw, expected) in cases {
        let error = protocol(outcome(raw));
        assert!(
            expected(&error),
            "{:?}: {error:?}",
            String::from_utf8_lossy(raw)
        );
        assert!(!TransportError::Protocol(error).is_retryable());
    }
}

#[test]
fn folded_headers_are_joined_and_interim_answers_skipped() {
    let server = TestServer::queue(vec![ScriptedResponse::raw(
        b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nX-Folded: one\r\n\t two\r\nX-Dup: a\r\nx-dup: b\r\nContent-Length: 2\r\n\r\nok",
    )]);
    let response = StdHttpTransport::new()
        .send(&get(server.url()), &CancelToken::new())
        .unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.header("x-folded"), Some("one two"));
    let dups: Vec<&str> = response
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("x-dup"))
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(dups, ["a", "b"]);
    assert_eq!(read_body(response).unwrap(), b"ok");
}

#[test]
fn chunk_extensions_trailers_and_size_lines_split_across_reads() {
    // Each piece is its own write with a pause, so the size lines and the
    // trailer arrive cut in the middle.
    let server = TestServer::queue(vec![ScriptedResponse::raw(b"")
        .chunk("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1")
        .chunk("0;name=\"va;lue\"\r")
        .chunk("\n0123456789abcdef\r\n")
        .chunk("3\r\nxyz\r")
        .chunk("\n0\r\nX-Trailer: ")
        .chunk("t\r\n\r\n")
        .delay_between_chunks(Duration::from_millis(20))]);
    let body = read_body(
        StdHttpTransport::new()
            .send(&get(server.url()), &CancelToken::new())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(body, b"0123456789abcdefxyz");
}
