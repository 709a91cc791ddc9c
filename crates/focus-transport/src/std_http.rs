//! [`StdHttpTransport`]: HTTP/1.1 over a plain `std::net::TcpStream`, for
//! `http://` URLs — a local model server, a LAN box — with no `curl` process.
//!
//! One request, file by file:
//! * `target.rs` reads the URL (host, port, `[v6]` brackets, path);
//! * `connect.rs` resolves the host and connects (IPv4 or IPv6), within the
//!   connect limit, abandoning the attempt on cancel — unless `pool.rs` has an
//!   idle connection to the same server from an earlier answer;
//! * `request.rs` writes the request line, headers, `Content-Length` and body;
//! * `head.rs` reads the status line and headers, strictly and within caps
//!   ([`Limits`]), skipping interim `1xx` answers;
//! * `framing.rs` decides where the body ends (RFC 9112 §6.3);
//! * `body.rs` streams the body to the caller as it arrives, de-chunking with
//!   `chunked.rs`, and returns the connection to the pool when it may be reused;
//!   an event stream's body is read on a thread of its own once it outpaces
//!   its reader (`pump.rs`), so the socket is drained while the caller decodes;
//! * `connection.rs` does every read under a time limit ([`Timeouts`]).
//!
//! Cancellation: while a request runs, a [`CancelToken`] callback holds a second
//! handle to the socket and shuts it down, which wakes a read blocked in the
//! kernel at once; the read then reports [`TransportError::Cancelled`].
//!
//! What it leaves to curl: TLS (`https://`), proxies, authentication in the URL,
//! compression. docs/transport.md walks through the bytes on the wire.

mod body;
mod chunked;
mod connect;
mod connection;
mod framing;
mod head;
mod limits;
mod pool;
mod pump;
mod request;
mod target;

pub use limits::Limits;
pub use target::Target;

use crate::error::TransportError;
use crate::transport::HttpRequest;
use crate::transport::HttpResponse;
use crate::transport::Transport;
use connection::{Connection, Phase, Wait};
use focus_core::cancel::CancelToken;
use std::net::Shutdown;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long each phase of a request may wait.
///
/// By default only connecting has a limit, as with curl: a local model may read
/// a long prompt for minutes before its first byte, and an MCP event stream is
/// rightly silent between calls. The callers that want a bound set one: a
/// request's `total_timeout`, a provider's stall watchdog (which cancels), or
/// these limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Resolving and connecting, when the request sets no `connect_timeout`.
    pub connect: Duration,
    /// From the request sent to the first byte of the answer (`None`: no limit).
    pub first_byte: Option<Duration>,
    /// Between two reads once the answer has started, and for writing the
    /// request (`None`: no limit).
    pub idle: Option<Duration>,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            connect: Duration::from_secs(30),
            first_byte: None,
            idle: None,
        }
    }
}

/// A [`Transport`] speaking HTTP/1.1 itself, for `http://` URLs; see the module
/// documentation. Clones share one connection pool.
#[derive(Clone)]
pub struct StdHttpTransport {
    timeouts: Timeouts,
    limits: Limits,
    pool: Arc<pool::Pool>,
}

impl Default for StdHttpTransport {
    fn default() -> StdHttpTransport {
        StdHttpTransport::new()
    }
}

impl std::fmt::Debug for StdHttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdHttpTransport")
            .field("timeouts", &self.timeouts)
            .field("limits", &self.limits)
            .field("idle_connections", &self.pool.idle_count())
            .finish()
    }
}

impl StdHttpTransport {
    /// A transport with the default [`Timeouts`] and [`Limits`].
    pub fn new() -> StdHttpTransport {
        StdHttpTransport {
            timeouts: Timeouts::default(),
            limits: Limits::default(),
            pool: Arc::new(pool::Pool::new()),
        }
    }

    /// Replaces the time limits.
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> StdHttpTransport {
        self.timeouts = timeouts;
        self
    }

    /// Replaces the size caps.
    pub fn with_limits(mut self, limits: Limits) -> StdHttpTransport {
        self.limits = limits;
        self
    }

    /// How many connections wait in the pool for reuse.
    pub fn idle_connections(&self) -> usize {
        self.pool.idle_count()
    }

    /// Whether this transport can send to `url` (an `http://` URL it can parse).
    pub fn serves(url: &str) -> bool {
        Target::parse(url).is_ok()
    }

    /// One attempt on `connection`: send the request, read the head, hand out
    /// the body.
    fn exchange(
        &self,
        mut connection: Connection,
        bytes: &[u8],
        method: &str,
        deadline: Option<Instant>,
        cancel: &CancelToken,
    ) -> Result<HttpResponse, (TransportError, bool)> {
        let shutter = connection.shutdown_handle();
        let registration = cancel.on_cancel(move || {
            if let Some(socket) = shutter {
                let _ = socket.shutdown(Shutdown::Both);
            }
        });
        // Answered: a byte arrived in this exchange. A pooled connection has
        // received its earlier answers; those do not count (counting them made
        // a reused connection the server closed under the request final).
        let before = connection.received;
        let answered = move |c: &Connection| c.received > before;
        if let Err(e) = connection.send(bytes, self.timeouts.idle) {
            if cancel.is_cancelled() {
                return Err((TransportError::Cancelled, true));
            }
            return Err((
                TransportError::StreamCut(format!(
                    "sending the request to {}: {e}",
                    connection.label
                )),
                false,
            ));
        }
        let first_byte = Wait {
            limit: self.timeouts.first_byte,
            phase: Phase::FirstByte,
            deadline,
        };
        let idle = Wait {
            limit: self.timeouts.idle,
            phase: Phase::Idle,
            deadline,
        };
        let head = head::read_head(&mut connection, &self.limits, first_byte, idle, cancel)
            .map_err(|e| {
                let final_error =
                    answered(&connection) || !matches!(e, TransportError::StreamCut(_));
                (e, final_error)
            })?;
        let (framing, keep_alive) = framing::framing(method, &head).map_err(|e| (e, true))?;
        let stream = is_event_stream(&head.headers);
        let response = |body: Box<dyn std::io::Read + Send>| HttpResponse {
            status: head.status,
            headers: head.headers,
            body,
        };
        if !stream {
            let body = body::Body::new(
                connection,
                framing,
                keep_alive,
                self.pool.clone(),
                cancel.clone(),
                registration,
                idle,
                self.limits,
            );
            return Ok(response(Box::new(body)));
        }
        // An event stream may be pumped (`pump.rs`): its body gets a token of
        // its own, cancelled by the request's or by a caller that drops it
        // early, and the socket is shut down on that token from now on.
        let stop = CancelToken::new();
        let shutter = connection.shutdown_handle();
        let own_registration = stop.on_cancel(move || {
            if let Some(socket) = shutter {
                let _ = socket.shutdown(Shutdown::Both);
            }
        });
        let link = {
            let stop = stop.clone();
            cancel.on_cancel(move || stop.cancel())
        };
        drop(registration);
        let body = body::Body::new(
            connection,
            framing,
            keep_alive,
            self.pool.clone(),
            stop.clone(),
            own_registration,
            idle,
            self.limits,
        );
        Ok(response(Box::new(pump::event_stream(body, stop, link))))
    }
}

/// Whether the answer's `Content-Type` is `text/event-stream` (a model's or an
/// MCP server's stream).
fn is_event_stream(headers: &[(String, String)]) -> bool {
    headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("content-type")
            && value
                .split(';')
                .next()
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("text/event-stream"))
    })
}

impl Transport for StdHttpTransport {
    fn send(
        &self,
        request: &HttpRequest,
        cancel: &CancelToken,
    ) -> Result<HttpResponse, TransportError> {
        if cancel.is_cancelled() {
            return Err(TransportError::Cancelled);
        }
        let target = Target::parse(&request.url).map_err(TransportError::Protocol)?;
        let bytes = request::encode(request, &target).map_err(TransportError::Protocol)?;
        let deadline = request.total_timeout.map(|t| Instant::now() + t);
        let connect_limit = request.connect_timeout.unwrap_or(self.timeouts.connect);
        let method = request.method.trim();
        let label = target.label();
        // A pooled connection the server closed just as it was reused fails
        // before any byte of an answer: the request is then sent once more on a
        // fresh connection (what curl does too). A fresh one is never retried.
        if let Some(idle) = self.pool.take(&label) {
            match self.exchange(idle, &bytes, method, deadline, cancel) {
                Ok(response) => return Ok(response),
                Err((error, true)) => return Err(error),
                Err((_, false)) if cancel.is_cancelled() => return Err(TransportError::Cancelled),
                Err((_, false)) => {}
            }
        }
        let stream = connect::connect(&target, connect_limit, cancel)?;
        let connection = Connection::new(stream, label);
        self.exchange(connection, &bytes, method, deadline, cancel)
            .map_err(|(error, _)| error)
    }
}
