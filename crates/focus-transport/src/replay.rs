//! [`ReplayTransport`]: a [`Transport`] that serves recorded responses from memory
//! or files, with no process and no socket. Provider tests use it to feed a
//! recorded stream through their decoder, in whatever chunking they choose, and to
//! check the requests the provider built.
//!
//! ```
//! use focus_core::cancel::CancelToken;
//! use focus_transport::replay::{ReplayResponse, ReplayTransport};
//! use focus_transport::{HttpRequest, Transport};
//! use std::io::Read;
//!
//! let transport = ReplayTransport::new(vec![
//!     ReplayResponse::sse(b"data: hi\n\n".to_vec()).split_every(3),
//! ]);
//! let request = HttpRequest { method: "POST".into(), url: "https://x/v1".into(), ..Default::default() };
//! let mut response = transport.send(&request, &CancelToken::new()).unwrap();
//! let mut body = String::new();
//! response.body.read_to_string(&mut body).unwrap();
//! assert_eq!(body, "data: hi\n\n");
//! assert_eq!(transport.requests()[0].url, "https://x/v1");
//! ```

use crate::error::TransportError;
use crate::transport::HttpRequest;
use crate::transport::HttpResponse;
use crate::transport::Transport;
use focus_core::cancel::CancelToken;
use focus_core::sync::lock;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::Path;
use std::sync::Mutex;

/// One recorded answer: a status, headers and the body as a list of chunks (each
/// `read` of the body returns at most one chunk, so the chunking is reproduced).
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayResponse {
    /// The status code.
    pub status: u16,
    /// Header names and values.
    pub headers: Vec<(String, String)>,
    /// The body, in the pieces reads will return.
    pub chunks: Vec<Vec<u8>>,
    /// After the chunks, fail the body read with this error instead of ending
    /// (for example [`TransportError::StreamCut`], a connection lost mid-stream).
    pub body_error: Option<TransportError>,
    /// Fail `send` itself with this error (DNS, connect, TLS…); nothing else is used.
    pub send_error: Option<TransportError>,
}

impl ReplayResponse {
    /// `status` with no headers and an empty body.
    pub fn new(status: u16) -> ReplayResponse {
        ReplayResponse {
            status,
            headers: Vec::new(),
            chunks: Vec::new(),
            body_error: None,
            send_error: None,
        }
    }

    /// 200 `text/event-stream` with `body` in one chunk.
    pub fn sse(body: Vec<u8>) -> ReplayResponse {
        ReplayResponse::new(200)
            .header("content-type", "text/event-stream")
            .body(body)
    }

    /// 200 `text/event-stream` with the body read from `path` (a recorded `.sse`).
    ///
    /// # Errors
    ///
    /// `path` cannot be read; the message names it.
    pub fn sse_file(path: impl AsRef<Path>) -> Result<ReplayResponse, String> {
        let path = path.as_ref();
        let body = std::fs::read(path)
            .map_err(|e| format!("cannot read recorded stream {}: {e}", path.display()))?;
        Ok(ReplayResponse::sse(body))
    }

    /// A whole recorded HTTP response (`HTTP/1.1 200 OK`, headers, blank line,
    /// body) read from `path`. The body is taken as-is (no de-chunking).
    ///
    /// # Errors
    ///
    /// `path` cannot be read, or its head is not an HTTP response (see
    /// [`ReplayResponse::parse_http`]).
    pub fn http_file(path: impl AsRef<Path>) -> Result<ReplayResponse, String> {
        let path = path.as_ref();
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read recorded response {}: {e}", path.display()))?;
        ReplayResponse::parse_http(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses a whole HTTP response: status line, headers, blank line, body.
    ///
    /// # Errors
    ///
    /// No blank line ends the head, the status line is not `HTTP/x y reason`, or a header line has
    /// no colon; the message says which.
    pub fn parse_http(bytes: &[u8]) -> Result<ReplayResponse, String> {
        let head_end = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map(|i| (i, i + 4))
            .or_else(|| {
                bytes
                    .windows(2)
                    .position(|w| w == b"\n\n")
                    .map(|i| (i, i + 2))
            })
            .ok_or("no blank line ends the response head")?;
        let head = String::from_utf8_lossy(&bytes[..head_end.0]);
        let mut lines = head.lines();
        let status_line = lines.next().unwrap_or_default();
        let status = status_line
            .strip_prefix("HTTP/")
            .and_then(|rest| rest.split(' ').nth(1))
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or_else(|| format!("bad status line {status_line:?}"))?;
        let mut response = ReplayResponse::new(status);
        for line in lines {
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| format!("bad header line {line:?}"))?;
            response = response.header(name.trim(), value.trim());
        }
        Ok(response.body(bytes[head_end.1..].to_vec()))
    }

    /// A `send` that fails with `error`.
    pub fn failure(error: TransportError) -> ReplayResponse {
        let mut response = ReplayResponse::new(0);
        response.send_error = Some(error);
        response
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> ReplayResponse {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Replaces the body with one chunk.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> ReplayResponse {
        self.chunks = vec![body.into()];
        self
    }

    /// Re-cuts the body into pieces of `size` bytes (the last may be shorter), so
    /// a decoder sees lines and UTF-8 characters split across reads. `size` 0 is
    /// taken as 1.
    pub fn split_every(mut self, size: usize) -> ReplayResponse {
        let body: Vec<u8> = self.chunks.concat();
        self.chunks = body.chunks(size.max(1)).map(<[u8]>::to_vec).collect();
        self
    }

    /// Keeps only the first `n` chunks and then fails the read with
    /// [`TransportError::StreamCut`], like a connection lost mid-stream.
    pub fn cut_after(mut self, n: usize) -> ReplayResponse {
        self.chunks.truncate(n);
        self.body_error = Some(TransportError::StreamCut(
            "replay: the recorded connection was cut here".into(),
        ));
        self
    }
}

/// Where the next response comes from.
enum Script {
    Queue(VecDeque<ReplayResponse>),
    Repeat(ReplayResponse),
}

/// A transport answering from recorded responses; see the module documentation.
pub struct ReplayTransport {
    script: Mutex<Script>,
    requests: Mutex<Vec<HttpRequest>>,
}

impl ReplayTransport {
    /// Answers the requests with `responses` in order; once they are used up,
    /// `send` fails with [`TransportError::Other`] saying so.
    pub fn new(responses: Vec<ReplayResponse>) -> ReplayTransport {
        ReplayTransport {
            script: Mutex::new(Script::Queue(responses.into())),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// Answers every request with `response`.
    pub fn repeating(response: ReplayResponse) -> ReplayTransport {
        ReplayTransport {
            script: Mutex::new(Script::Repeat(response)),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// Appends a response to the queue (a repeating transport becomes a queue).
    pub fn push(&self, response: ReplayResponse) {
        let mut script = lock(&self.script);
        match &mut *script {
            Script::Queue(queue) => queue.push_back(response),
            other => *other = Script::Queue(VecDeque::from([response])),
        }
    }

    /// Every request received so far, in order (headers included: keys too, so
    /// do not print these outside a test).
    pub fn requests(&self) -> Vec<HttpRequest> {
        lock(&self.requests).clone()
    }
}

impl Transport for ReplayTransport {
    fn send(
        &self,
        request: &HttpRequest,
        cancel: &CancelToken,
    ) -> Result<HttpResponse, TransportError> {
        lock(&self.requests).push(request.clone());
        if cancel.is_cancelled() {
            return Err(TransportError::Cancelled);
        }
        let response = match &mut *lock(&self.script) {
            Script::Queue(queue) => queue.pop_front().ok_or_else(|| {
                TransportError::Other(format!(
                    "replay: no recorded response left for {} {}",
                    request.method, request.url
                ))
            })?,
            Script::Repeat(response) => response.clone(),
        };
        if let Some(error) = response.send_error {
            return Err(error);
        }
        Ok(HttpResponse {
            status: response.status,
            headers: response.headers,
            body: Box::new(ReplayBody {
                chunks: response.chunks.into(),
                offset: 0,
                error: response.body_error,
                cancel: cancel.clone(),
            }),
        })
    }
}

/// The body reader: one chunk (or what fits of it) per `read`.
struct ReplayBody {
    chunks: VecDeque<Vec<u8>>,
    /// How much of the front chunk was already read.
    offset: usize,
    error: Option<TransportError>,
    cancel: CancelToken,
}

impl Read for ReplayBody {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.is_cancelled() {
            return Err(TransportError::Cancelled.into());
        }
        while let Some(front) = self.chunks.front() {
            if self.offset == front.len() {
                self.chunks.pop_front();
                self.offset = 0;
                continue;
            }
            let n = buf.len().min(front.len() - self.offset);
            buf[..n].copy_from_slice(&front[self.offset..self.offset + n]);
            self.offset += n;
            return Ok(n);
        }
        match self.error.clone() {
            Some(error) => Err(error.into()),
            None => Ok(0),
        }
    }
}
