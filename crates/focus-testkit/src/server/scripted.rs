//! [`ScriptedResponse`]: what the test server answers, and how it writes it.
//!
//! A response is a status, headers and a body made of [`Chunk`]s, each written after
//! an optional delay. How the body is framed ([`Framing`]) and whether the
//! connection is cut early are part of the script, so a test can reproduce the
//! failures a real server or proxy produces.

use std::io::{self, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How the body's end is signalled to the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Framing {
    /// A `Content-Length` header with the total of all chunks (the default).
    #[default]
    ContentLength,
    /// `Transfer-Encoding: chunked`; each [`Chunk`] becomes one HTTP chunk.
    Chunked,
    /// No length at all: the body ends when the server closes the connection.
    CloseDelimited,
}

/// A piece of the body, written after waiting `delay_before` (and for `gate`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Chunk {
    /// How long to wait before writing this piece.
    pub delay_before: Duration,
    /// When set, the piece is only written once the test opens this gate, so a
    /// test can check what a client does *before* the rest of the body exists.
    pub gate: Option<Gate>,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// A one-way latch a test opens to let the server continue: deterministic
/// streaming tests without guessing delays. Clones share the same latch.
#[derive(Clone, Debug, Default)]
pub struct Gate {
    state: Arc<(Mutex<bool>, Condvar)>,
}

impl Gate {
    /// A closed gate.
    pub fn new() -> Gate {
        Gate::default()
    }

    /// Opens the gate (for good); every waiting response continues.
    pub fn open(&self) {
        let (open, changed) = &*self.state;
        *open.lock().unwrap_or_else(|p| p.into_inner()) = true;
        changed.notify_all();
    }

    /// Whether [`Gate::open`] was called.
    pub fn is_open(&self) -> bool {
        *self.state.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until the gate opens; gives up (with an error) when `stop` is set.
    fn wait(&self, stop: &AtomicBool) -> io::Result<()> {
        let (open, changed) = &*self.state;
        let mut is_open = open.lock().unwrap_or_else(|p| p.into_inner());
        while !*is_open {
            if stop.load(Ordering::SeqCst) {
                return Err(io::Error::new(
                    io::ErrorKind::Interrupted,
                    "server stopping",
                ));
            }
            is_open = changed
                .wait_timeout(is_open, Duration::from_millis(20))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        Ok(())
    }
}

impl PartialEq for Gate {
    /// Gates are equal when they are the same latch.
    fn eq(&self, other: &Gate) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }
}

impl Eq for Gate {}

/// One scripted answer. Build it with [`ScriptedResponse::new`] or a shortcut
/// ([`ScriptedResponse::json`], [`ScriptedResponse::sse`],
/// [`ScriptedResponse::too_many_requests`]…) and adjust it with the builder methods.
///
/// The server always adds `Connection: close` and closes the connection after the
/// response, so every request a client makes is a fresh connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptedResponse {
    /// The status code.
    pub status: u16,
    /// Headers to send, in order (framing headers are added by the server).
    pub headers: Vec<(String, String)>,
    /// The body pieces.
    pub chunks: Vec<Chunk>,
    /// How the body's end is signalled.
    pub framing: Framing,
    /// Wait this long after reading the request before writing anything.
    pub first_byte_delay: Duration,
    /// Close the connection abruptly after writing this many chunks (the framing's
    /// end marker is then never sent, so the client sees a body cut short).
    pub disconnect_after: Option<usize>,
    /// Write the chunks verbatim with no status line or headers (for malformed
    /// responses); `status`, `headers` and `framing` are then ignored.
    pub raw: bool,
    /// When set, nothing is written until the test opens this gate.
    pub head_gate: Option<Gate>,
    /// Keep the connection open after this response (no `Connection: close`) and
    /// read the next request from it: for clients that reuse connections.
    pub keep_alive: bool,
}

impl ScriptedResponse {
    /// A response with `status`, no headers and an empty body.
    pub fn new(status: u16) -> ScriptedResponse {
        ScriptedResponse {
            status,
            headers: Vec::new(),
            chunks: Vec::new(),
            framing: Framing::ContentLength,
            first_byte_delay: Duration::ZERO,
            disconnect_after: None,
            raw: false,
            head_gate: None,
            keep_alive: false,
        }
    }

    /// 200 with a JSON body (`Content-Type: application/json`).
    pub fn json(body: &str) -> ScriptedResponse {
        ScriptedResponse::new(200)
            .header("Content-Type", "application/json")
            .body(body)
    }

    /// 200 `text/event-stream`, chunked, one HTTP chunk per element of `chunks`
    /// (write them as the exact wire text, e.g. `"event: x\ndata: {}\n\n"`).
    pub fn sse<S: AsRef<[u8]>>(chunks: &[S]) -> ScriptedResponse {
        let mut response = ScriptedResponse::new(200)
            .header("Content-Type", "text/event-stream")
            .header("Cache-Control", "no-cache")
            .chunked();
        for chunk in chunks {
            response = response.chunk(chunk.as_ref());
        }
        response
    }

    /// 429 with `Retry-After: <retry_after_secs>` and a JSON error body.
    pub fn too_many_requests(retry_after_secs: u64) -> ScriptedResponse {
        ScriptedResponse::new(429)
            .header("Retry-After", &retry_after_secs.to_string())
            .header("Content-Type", "application/json")
            .body(r#"{"error":{"type":"rate_limit_error","message":"slow down"}}"#)
    }

    /// 500 with `body` as `application/json`.
    pub fn server_error(body: &str) -> ScriptedResponse {
        ScriptedResponse::new(500)
            .header("Content-Type", "application/json")
            .body(body)
    }

    /// 200 whose head carries one header `X-Padding` of `size` bytes, for clients
    /// that must refuse (or survive) oversized heads.
    pub fn oversized_headers(size: usize) -> ScriptedResponse {
        ScriptedResponse::new(200)
            .header("X-Padding", &"a".repeat(size))
            .body("ok")
    }

    /// Bytes written as-is, with no status line or headers added (then the
    /// connection closes).
    pub fn raw(bytes: &[u8]) -> ScriptedResponse {
        let mut response = ScriptedResponse::new(0).chunk(bytes);
        response.raw = true;
        response.framing = Framing::CloseDelimited;
        response
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> ScriptedResponse {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Replaces the body with a single chunk.
    pub fn body(mut self, body: impl AsRef<[u8]>) -> ScriptedResponse {
        self.chunks = vec![Chunk {
            delay_before: Duration::ZERO,
            gate: None,
            bytes: body.as_ref().to_vec(),
        }];
        self
    }

    /// Appends a chunk written right after the previous one.
    pub fn chunk(self, bytes: impl AsRef<[u8]>) -> ScriptedResponse {
        self.chunk_after(Duration::ZERO, bytes)
    }

    /// Appends a chunk written `delay` after the previous one.
    pub fn chunk_after(mut self, delay: Duration, bytes: impl AsRef<[u8]>) -> ScriptedResponse {
        self.chunks.push(Chunk {
            delay_before: delay,
            gate: None,
            bytes: bytes.as_ref().to_vec(),
        });
        self
    }

    /// Appends a chunk written only once `gate` is open.
    pub fn chunk_after_gate(mut self, gate: &Gate, bytes: impl AsRef<[u8]>) -> ScriptedResponse {
        self.chunks.push(Chunk {
            delay_before: Duration::ZERO,
            gate: Some(gate.clone()),
            bytes: bytes.as_ref().to_vec(),
        });
        self
    }

    /// Writes nothing at all (not even the head) until `gate` is open.
    pub fn head_after_gate(mut self, gate: &Gate) -> ScriptedResponse {
        self.head_gate = Some(gate.clone());
        self
    }

    /// Sets the same delay before every chunk after the first.
    pub fn delay_between_chunks(mut self, delay: Duration) -> ScriptedResponse {
        for chunk in self.chunks.iter_mut().skip(1) {
            chunk.delay_before = delay;
        }
        self
    }

    /// Uses `Transfer-Encoding: chunked`.
    pub fn chunked(mut self) -> ScriptedResponse {
        self.framing = Framing::Chunked;
        self
    }

    /// Sends no length; the body ends when the connection closes.
    pub fn close_delimited(mut self) -> ScriptedResponse {
        self.framing = Framing::CloseDelimited;
        self
    }

    /// Waits `delay` before the first byte of the response (the head included).
    pub fn first_byte_delay(mut self, delay: Duration) -> ScriptedResponse {
        self.first_byte_delay = delay;
        self
    }

    /// Leaves the connection open after this response for the client's next
    /// request (HTTP/1.1 keep-alive) instead of closing it.
    pub fn keep_alive(mut self) -> ScriptedResponse {
        self.keep_alive = true;
        self
    }

    /// Cuts the connection after `n` chunks, without the framing's end marker.
    pub fn disconnect_after(mut self, n: usize) -> ScriptedResponse {
        self.disconnect_after = Some(n);
        self
    }

    /// Writes this response to `stream`, waiting as scripted. Returns early (with
    /// an error) when `stop` is set or the client goes away.
    pub(super) fn write_to(&self, stream: &mut TcpStream, stop: &AtomicBool) -> io::Result<()> {
        sleep_unless_stopped(self.first_byte_delay, stop)?;
        if let Some(gate) = &self.head_gate {
            gate.wait(stop)?;
        }
        if !self.raw {
            stream.write_all(&self.head())?;
        }
        for (index, chunk) in self.chunks.iter().enumerate() {
            if self.disconnect_after == Some(index) {
                return Ok(());
            }
            sleep_unless_stopped(chunk.delay_before, stop)?;
            if let Some(gate) = &chunk.gate {
                gate.wait(stop)?;
            }
            if self.framing == Framing::Chunked && !self.raw {
                if chunk.bytes.is_empty() {
                    // An empty HTTP chunk would end the body; skip it.
                    continue;
                }
                let mut framed = format!("{:x}\r\n", chunk.bytes.len()).into_bytes();
                framed.extend_from_slice(&chunk.bytes);
                framed.extend_from_slice(b"\r\n");
                stream.write_all(&framed)?;
            } else {
                stream.write_all(&chunk.bytes)?;
            }
            stream.flush()?;
        }
        if self
            .disconnect_after
            .is_some_and(|n| n >= self.chunks.len())
        {
            return Ok(());
        }
        if self.framing == Framing::Chunked && !self.raw {
            stream.write_all(b"0\r\n\r\n")?;
        }
        stream.flush()
    }

    /// The status line and headers, with framing headers added.
    fn head(&self) -> Vec<u8> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\n",
            self.status,
            reason_phrase(self.status)
        );
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        match self.framing {
            Framing::ContentLength => {
                let total: usize = self.chunks.iter().map(|c| c.bytes.len()).sum();
                head.push_str(&format!("Content-Length: {total}\r\n"));
            }
            Framing::Chunked => head.push_str("Transfer-Encoding: chunked\r\n"),
            Framing::CloseDelimited => {}
        }
        if !self.keep_alive {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        head.into_bytes()
    }
}

/// Sleeps for `delay` in short slices, giving up as soon as `stop` is set.
pub(super) fn sleep_unless_stopped(delay: Duration, stop: &AtomicBool) -> io::Result<()> {
    let end = Instant::now() + delay;
    loop {
        if stop.load(Ordering::SeqCst) {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "server stopping",
            ));
        }
        let now = Instant::now();
        if now >= end {
            return Ok(());
        }
        std::thread::sleep((end - now).min(Duration::from_millis(10)));
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}
