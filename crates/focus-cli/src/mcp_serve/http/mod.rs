//! MCP's Streamable HTTP transport, std only: one endpoint, `/mcp`, on a
//! loopback address (another address only with `--allow-non-loopback`).
//!
//! - Every request shows the bearer token ([`auth`]); a browser's request
//!   from an origin that is not loopback is refused (403).
//! - `POST` carries one JSON-RPC message ([`request`] reads it within
//!   bounds). `initialize` opens a session, whose id comes back in
//!   `Mcp-Session-Id` and must come with every later message (missing: 400;
//!   unknown or ended: 404, and the client starts a new one). A notification
//!   is answered `202 Accepted`; a request with its response as JSON, or, for
//!   a `tools/call` that asked for progress, as an event stream carrying the
//!   progress notifications and then the response ([`respond`]).
//! - `DELETE` ends the session; `GET` (a stream the server would open on its
//!   own) is not offered: 405.
//! - An `MCP-Protocol-Version` focus does not speak is refused (400).
//!
//! Each connection has a thread, at most [`MAX_CONNECTIONS`] at once; a
//! connection stays open for the next request (HTTP/1.1 keep-alive) until
//! the client closes it or is idle for [`IDLE`].

pub mod auth;
pub mod request;
pub mod respond;

use super::protocol::{NoOutbox, Unreadable, MAX_MESSAGE, PROTOCOL_VERSIONS};
use super::service::Service;
use crate::args::serve::ServeOptions;
use crate::setup::SetupError;
use focus_core::json::{parse_str, Value};
use focus_core::sync::lock;
use focus_tools::mcp::jsonrpc::{self, Incoming};
use request::{Body, ReadError, Request};
use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The most connections served at once; one more is answered 503.
pub const MAX_CONNECTIONS: usize = 64;

/// The most sessions kept; a new one beyond it ends the oldest (whose client
/// gets 404 and starts again).
pub const MAX_SESSIONS: usize = 256;

/// How long a connection may wait for its next request.
pub const IDLE: Duration = Duration::from_secs(300);

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// The server: the service, the token, the sessions.
struct HttpServer<'s> {
    service: &'s Service,
    token: String,
    sessions: Mutex<VecDeque<String>>,
    connections: AtomicUsize,
}

/// Listens on `address` and serves until the process is stopped.
pub fn serve(service: &Service, address: &str, options: &ServeOptions) -> Result<i32, SetupError> {
    let usage = |message: String| SetupError {
        message,
        usage: true,
    };
    let addr: SocketAddr = address.parse().map_err(|_| {
        usage(format!(
            "--listen takes an address and a port such as 127.0.0.1:8787, not {address:?}"
        ))
    })?;
    if !addr.ip().is_loopback() && !options.allow_non_loopback {
        return Err(usage(format!(
            "--listen {addr} is reachable from other machines; focus listens on loopback \
             (127.0.0.1, ::1) unless you also pass --allow-non-loopback"
        )));
    }
    let (token, source) = auth::token(options.token_file.as_deref()).map_err(usage)?;
    // Scrubbed from tool output like an API key.
    focus_sys::secrets::remember_value(&token);
    let listener = TcpListener::bind(addr).map_err(|e| SetupError {
        message: format!("cannot listen on {addr}: {e}"),
        usage: false,
    })?;
    let local = listener.local_addr().map_err(|e| SetupError {
        message: format!("cannot read the address listened on: {e}"),
        usage: false,
    })?;
    errln!("focus mcp serve: listening on http://{local}{ENDPOINT}");
    if !local.ip().is_loopback() {
        errln!("focus mcp serve: {local} is reachable from other machines (--allow-non-loopback)");
    }
    match source {
        auth::TokenSource::Generated => errln!(
            "focus mcp serve: bearer token for this run: {token}\n  (send `Authorization: Bearer <token>`; \
             set {} or pass --token-file FILE to choose one)",
            auth::TOKEN_VARIABLE
        ),
        auth::TokenSource::Environment => {
            errln!("focus mcp serve: bearer token from {}", auth::TOKEN_VARIABLE)
        }
        auth::TokenSource::File => errln!("focus mcp serve: bearer token from --token-file"),
    }
    let server = HttpServer {
        service,
        token,
        sessions: Mutex::new(VecDeque::new()),
        connections: AtomicUsize::new(0),
    };
    std::thread::scope(|scope| {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            if server.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                server.connections.fetch_sub(1, Ordering::SeqCst);
                let _ = respond::send(&mut stream, 503, &[("Connection", "close")], b"busy\n");
                continue;
            }
            let server = &server;
            scope.spawn(move || {
                server.connection(stream);
                server.connections.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    Ok(0)
}

impl HttpServer<'_> {
    /// Serves one connection's requests until it closes.
    fn connection(&self, stream: TcpStream) {
        let _ = stream.set_read_timeout(Some(IDLE));
        let _ = stream.set_nodelay(true);
        let Ok(reading) = stream.try_clone() else {
            return;
        };
        let mut input = BufReader::new(reading);
        let mut out = stream;
        loop {
            let request = match request::read(&mut input, MAX_MESSAGE) {
                Ok(request) => request,
                Err(ReadError::Closed | ReadError::Io(_)) => return,
                Err(ReadError::Malformed(status, why)) => {
                    let _ =
                        respond::send(&mut out, status, &[("Connection", "close")], why.as_bytes());
                    return;
                }
            };
            let goes_on = self.answer(&request, &mut out).unwrap_or(false);
            if !goes_on || request.wants_close() {
                return;
            }
        }
    }

    /// Answers one request; whether the connection can take another.
    fn answer(&self, request: &Request, out: &mut TcpStream) -> std::io::Result<bool> {
        if request.path != ENDPOINT {
            respond::send(out, 404, &[], b"the MCP endpoint is /mcp\n")?;
            return Ok(true);
        }
        if !auth::authorized(request.header("authorization"), &self.token) {
            let headers = [("WWW-Authenticate", "Bearer")];
            respond::send(out, 401, &headers, b"a bearer token is required\n")?;
            return Ok(true);
        }
        if !auth::origin_allowed(request.header("origin")) {
            respond::send(out, 403, &[], b"requests from this origin are refused\n")?;
            return Ok(true);
        }
        let version = request.header("mcp-protocol-version");
        if version.is_some_and(|v| !PROTOCOL_VERSIONS.contains(&v)) {
            let text = format!(
                "unsupported MCP-Protocol-Version; focus speaks {}\n",
                PROTOCOL_VERSIONS.join(", ")
            );
            respond::send(out, 400, &[], text.as_bytes())?;
            return Ok(true);
        }
        match request.method.as_str() {
            "POST" => self.post(request, out),
            "DELETE" => {
                let ended = request
                    .header("mcp-session-id")
                    .is_some_and(|id| self.end(id));
                respond::send(out, if ended { 200 } else { 404 }, &[], b"")?;
                Ok(true)
            }
            _ => {
                respond::send(out, 405, &[("Allow", "POST, DELETE")], b"")?;
                Ok(true)
            }
        }
    }

    /// A POSTed JSON-RPC message.
    fn post(&self, request: &Request, out: &mut TcpStream) -> std::io::Result<bool> {
        let body = match &request.body {
            Body::Bytes(bytes) => bytes,
            Body::TooLong(n) => {
                json_error(out, 413, Service::unreadable(Unreadable::TooLong(*n)))?;
                return Ok(true);
            }
            Body::NoLength => {
                let close = [("Connection", "close")];
                respond::send(out, 411, &close, b"send the body with a Content-Length\n")?;
                return Ok(false);
            }
        };
        let message = match parse_str(String::from_utf8_lossy(body).trim()) {
            Ok(message) => message,
            Err(e) => {
                json_error(
                    out,
                    400,
                    Service::unreadable(Unreadable::NotJson(e.to_string())),
                )?;
                return Ok(true);
            }
        };
        let (is_initialize, is_request, wants_progress) = match jsonrpc::classify(&message) {
            Incoming::Request { method, params, .. } => (
                method == "initialize",
                true,
                method == "tools/call" && !params["_meta"]["progressToken"].is_null(),
            ),
            Incoming::Invalid { .. } => {
                let answer = self.service.handle(&message, "", &NoOutbox);
                json_error(out, 400, answer.unwrap_or_default())?;
                return Ok(true);
            }
            _ => (false, false, false),
        };
        let session = if is_initialize {
            let Ok(id) = auth::random_hex(16) else {
                respond::send(out, 503, &[], b"no session id could be made\n")?;
                return Ok(true);
            };
            self.open(id.clone());
            id
        } else {
            match request.header("mcp-session-id") {
                None => {
                    let e = jsonrpc::error(
                        message["id"].clone(),
                        jsonrpc::INVALID_REQUEST,
                        "Bad Request: no Mcp-Session-Id header; send initialize first",
                    );
                    json_error(out, 400, e)?;
                    return Ok(true);
                }
                Some(id) if !self.known(id) => {
                    let e = jsonrpc::error(
                        message["id"].clone(),
                        jsonrpc::INVALID_REQUEST,
                        "Not Found: this session ended; send initialize for a new one",
                    );
                    json_error(out, 404, e)?;
                    return Ok(true);
                }
                Some(id) => id.to_string(),
            }
        };
        if !is_request {
            let _ = self.service.handle(&message, &session, &NoOutbox);
            respond::send(out, 202, &[], b"")?;
            return Ok(true);
        }
        let accepts_stream = request
            .header("accept")
            .is_some_and(|a| a.contains("text/event-stream"));
        if wants_progress && accepts_stream {
            let stream = respond::EventStream::start(out.try_clone()?)?;
            if let Some(answer) = self.service.handle(&message, &session, &stream) {
                stream.send(&answer);
            }
            return Ok(false);
        }
        let answer = self.service.handle(&message, &session, &NoOutbox);
        let session_header = [("Mcp-Session-Id", session.as_str())];
        let headers: &[(&str, &str)] = if is_initialize { &session_header } else { &[] };
        respond::json(out, 200, headers, &answer.unwrap_or_default())?;
        Ok(true)
    }

    /// Keeps a new session (ending the oldest beyond [`MAX_SESSIONS`]).
    fn open(&self, id: String) {
        let mut sessions = lock(&self.sessions);
        if sessions.len() == MAX_SESSIONS {
            sessions.pop_front();
        }
        sessions.push_back(id);
    }

    fn known(&self, id: &str) -> bool {
        lock(&self.sessions).iter().any(|s| s == id)
    }

    /// Ends a session; whether it was open.
    fn end(&self, id: &str) -> bool {
        let mut sessions = lock(&self.sessions);
        let before = sessions.len();
        sessions.retain(|s| s != id);
        sessions.len() < before
    }
}

/// A JSON-RPC error as the body of an HTTP error.
fn json_error(out: &mut impl Write, status: u16, error: Value) -> std::io::Result<()> {
    respond::json(out, status, &[], &error)
}
