//! [`RecordedRequest`] and the HTTP/1.1 request reader that fills it.
//!
//! The reader is deliberately strict about limits (head size, body size, time) and
//! lenient about everything else: it is a test fixture, so it must never hang a test
//! or panic on what a client under test sends.

use std::io::{self, Read};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest request head (request line plus headers) the server accepts.
const MAX_HEAD_BYTES: usize = 1 << 20;
/// The largest request body the server accepts.
const MAX_BODY_BYTES: usize = 64 << 20;
/// How long a client may take to send one whole request.
const REQUEST_DEADLINE: Duration = Duration::from_secs(10);

/// One request as the test server received it, byte for byte where it matters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordedRequest {
    /// The method, e.g. `POST`.
    pub method: String,
    /// The request target as sent, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// The protocol version, e.g. `HTTP/1.1`.
    pub version: String,
    /// Header names (as sent) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body exactly as received (de-chunked if the client used chunked encoding).
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (invalid UTF-8 replaced by U+FFFD).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body parsed as JSON, or `None` when it is not valid JSON.
    pub fn body_json(&self) -> Option<focus_core::json::Value> {
        focus_core::json::parse(&self.body).ok()
    }
}

/// Reads one request from `stream`, polling `stop` between reads.
///
/// Returns `Ok(None)` when the client closed the connection before sending anything
/// (or the server is stopping). `on_expect_continue` is called when the client asked
/// for `Expect: 100-continue`, so the caller can send the interim response.
pub(super) fn read_request(
    stream: &mut TcpStream,
    stop: &AtomicBool,
    mut on_expect_continue: impl FnMut(&mut TcpStream) -> io::Result<()>,
) -> io::Result<Option<RecordedRequest>> {
    let deadline = Instant::now() + REQUEST_DEADLINE;
    let mut reader = PollingReader {
        stream,
        stop,
        deadline,
        buffered: Vec::new(),
        start: 0,
    };
    let head = match reader.read_until_blank_line()? {
        Some(head) => head,
        None => return Ok(None),
    };
    let mut request = parse_head(&head)?;
    if request
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        on_expect_continue(reader.stream)?;
    }
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        request.body = reader.read_chunked_body()?;
    } else if let Some(length) = request.header("content-length") {
        let length: usize = length
            .trim()
            .parse()
            .map_err(|_| invalid(format!("bad Content-Length {length:?}")))?;
        if length > MAX_BODY_BYTES {
            return Err(invalid(format!(
                "request body of {length} bytes is too large"
            )));
        }
        request.body = reader.read_exact_vec(length)?;
    }
    Ok(Some(request))
}

/// Splits a request head into the request line and headers.
fn parse_head(head: &[u8]) -> io::Result<RecordedRequest> {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n").flat_map(|l| l.split('\n'));
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (method, path, version) = match (parts.next(), parts.next(), parts.next()) {
        (Some(m), Some(p), Some(v)) if !m.is_empty() => (m, p, v),
        _ => return Err(invalid(format!("bad request line {request_line:?}"))),
    };
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        match line.split_once(':') {
            Some((name, value)) => {
                headers.push((name.trim().to_string(), value.trim().to_string()))
            }
            None => return Err(invalid(format!("bad header line {line:?}"))),
        }
    }
    Ok(RecordedRequest {
        method: method.to_string(),
        path: path.to_string(),
        version: version.to_string(),
        headers,
        body: Vec::new(),
    })
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// A buffered reader over a socket with a short read timeout, so that a blocked
/// read wakes up regularly to check the stop flag and the request deadline.
struct PollingReader<'a> {
    stream: &'a mut TcpStream,
    stop: &'a AtomicBool,
    deadline: Instant,
    buffered: Vec<u8>,
    /// Start of the unconsumed part of `buffered`.
    start: usize,
}

impl PollingReader<'_> {
    /// Reads more bytes into the buffer; `Ok(false)` at end of stream.
    fn fill(&mut self) -> io::Result<bool> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(io::Error::new(
                    io::ErrorKind::Interrupted,
                    "server stopping",
                ));
            }
            if Instant::now() > self.deadline {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "client took too long to send its request",
                ));
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    if self.start > 0 && self.start == self.buffered.len() {
                        self.buffered.clear();
                        self.start = 0;
                    }
                    self.buffered.extend_from_slice(&chunk[..n]);
                    return Ok(true);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn unread(&self) -> &[u8] {
        &self.buffered[self.start..]
    }

    /// Reads up to and including the blank line ending a head; `None` if the client
    /// closed before sending a single byte.
    fn read_until_blank_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut scanned: usize = 0;
        loop {
            let unread = self.unread();
            // Resume the search a few bytes back so a terminator split across reads is found.
            let from = scanned.saturating_sub(3);
            if let Some(end) = find_head_end(&unread[from..]) {
                let end = from + end;
                let head = unread[..end].to_vec();
                self.start += end;
                return Ok(Some(head));
            }
            scanned = unread.len();
            if scanned > MAX_HEAD_BYTES {
                return Err(invalid("request head too large".into()));
            }
            if !self.fill()? {
                return if self.unread().is_empty() {
                    Ok(None)
                } else {
                    Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "client closed in the middle of a request head",
                    ))
                };
            }
        }
    }

    fn read_exact_vec(&mut self, length: usize) -> io::Result<Vec<u8>> {
        while self.unread().len() < length {
            if !self.fill()? {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "client closed in the middle of a request body",
                ));
            }
        }
        let body = self.unread()[..length].to_vec();
        self.start += length;
        Ok(body)
    }

    fn read_line(&mut self) -> io::Result<Vec<u8>> {
        loop {
            if let Some(i) = self.unread().iter().position(|&b| b == b'\n') {
                let line = self.unread()[..i].to_vec();
                self.start += i + 1;
                let mut line = line;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(line);
            }
            if self.unread().len() > MAX_HEAD_BYTES {
                return Err(invalid("chunk-size line too long".into()));
            }
            if !self.fill()? {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "client closed in the middle of a chunked body",
                ));
            }
        }
    }

    fn read_chunked_body(&mut self) -> io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line = self.read_line()?;
            let text = String::from_utf8_lossy(&line);
            let size_text = text.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16)
                .map_err(|_| invalid(format!("bad chunk size {size_text:?}")))?;
            if size == 0 {
                // Skip trailers up to the blank line.
                while !self.read_line()?.is_empty() {}
                return Ok(body);
            }
            if body.len() + size > MAX_BODY_BYTES {
                return Err(invalid("chunked request body too large".into()));
            }
            body.extend_from_slice(&self.read_exact_vec(size)?);
            self.read_line()?;
        }
    }
}

/// The index just past the `\r\n\r\n` (or `\n\n`) ending a head.
fn find_head_end(bytes: &[u8]) -> Option<usize> {
    for i in 0..bytes.len() {
        if bytes[i..].starts_with(b"\r\n\r\n") {
            return Some(i + 4);
        }
        if bytes[i..].starts_with(b"\n\n") {
            return Some(i + 2);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_request_line_and_headers() {
        let r = parse_head(b"POST /v1/x?y=1 HTTP/1.1\r\nHost: a\r\nX-Key:  v v \r\n\r\n").unwrap();
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/v1/x?y=1");
        assert_eq!(r.version, "HTTP/1.1");
        assert_eq!(r.header("x-key"), Some("v v"));
        assert_eq!(r.header("HOST"), Some("a"));
    }

    #[test]
    fn rejects_garbage_request_line() {
        assert!(parse_head(b"hello\r\n\r\n").is_err());
    }

    #[test]
    fn finds_head_end() {
        assert_eq!(find_head_end(b"GET / HTTP/1.1\r\n\r\nbody"), Some(18));
        assert_eq!(find_head_end(b"GET / HTTP/1.1\r\n"), None);
    }
}
