//! JSON-RPC 2.0 over a child process's stdin and stdout, one JSON object per line
//! (MCP's stdio transport).
//!
//! One reader thread per connection reads lines and routes them: responses go to the
//! request waiting for that `id` (a channel per request), notifications to a
//! callback, and requests from the server get a short answer (`ping` → `{}`, anything
//! else → "method not found"). When the server's stdout closes, every waiting
//! request fails at once with the reason, so a server that dies mid-call turns into
//! a tool error instead of a hang. Lines to the server go through one writer thread,
//! so a server that stops reading its stdin cannot block a caller past its timeout.

use super::jsonrpc::{self, Incoming, LineRead, LineReader};
use focus_core::cancel::CancelToken;
use focus_core::json::{parse_str, Value};
use focus_core::json_object;
use focus_core::sync::lock;
use focus_sys::process::{kill_and_reap, reap_if_exited};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Why a request got no result.
#[derive(Clone, Debug, PartialEq)]
pub enum RpcError {
    /// The server is gone (it exited, or its pipe closed); the text says how.
    Closed(String),
    /// No answer within the timeout.
    Timeout(Duration),
    /// The caller cancelled.
    Cancelled,
    /// The request never reached the server (it could not be connected to): the
    /// server may be restarting. Safe to send again.
    Unreachable(String),
    /// The server no longer knows the session (HTTP 404, or 400 "no valid
    /// session", for a request that carried `Mcp-Session-Id`): the client must
    /// `initialize` a new one, then may send the request again.
    SessionExpired(String),
    /// The server answered with a JSON-RPC error.
    Server {
        /// The error code.
        code: i64,
        /// The server's message.
        message: String,
    },
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcError::Closed(reason) => write!(f, "the server is not running ({reason})"),
            RpcError::Timeout(t) => write!(f, "no answer within {}s", t.as_secs_f64()),
            RpcError::Cancelled => write!(f, "cancelled"),
            RpcError::Unreachable(reason) => write!(f, "the server cannot be reached ({reason})"),
            RpcError::SessionExpired(reason) => {
                write!(f, "the server ended the session ({reason})")
            }
            RpcError::Server { code, message } => write!(f, "server error {code}: {message}"),
        }
    }
}

/// The outcome of one request.
pub type Reply = Result<Value, RpcError>;
/// Sees every notification a server sends: method and params.
pub type NotificationHandler = Box<dyn Fn(&str, &Value) + Send + Sync>;

/// How long a request may wait for its answer, and what may end the wait sooner.
#[derive(Clone, Copy, Debug)]
pub struct Wait<'a> {
    /// The longest wait; past it the request fails as timed out.
    pub timeout: Duration,
    /// A token whose firing ends the wait at once (the user's abort).
    pub cancel: Option<&'a CancelToken>,
}

impl Wait<'_> {
    /// A wait that ends at `deadline` (at least a millisecond from now), with
    /// nothing to cancel it: the handshake and the tool listing at start.
    pub fn until(deadline: Instant) -> Wait<'static> {
        Wait {
            timeout: deadline
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1)),
            cancel: None,
        }
    }
}

/// A JSON-RPC connection to one server, whatever carries it (a child's stdio, or
/// HTTP in [`super::http`]).
pub trait RpcChannel: Send + Sync {
    /// Sends a request and waits for its result as `wait` allows; on timeout or
    /// cancel the server is told with `notifications/cancelled`.
    fn request(&self, method: &str, params: Value, wait: Wait<'_>) -> Reply;
    /// Sends a notification (no answer expected).
    fn notify(&self, method: &str, params: Value) -> Result<(), String>;
    /// Stops talking to the server and releases it.
    fn shutdown(&self);
}

/// The reply a JSON-RPC response carries: its `result`, or its `error` as
/// [`RpcError::Server`] (whatever carried it: a line of stdio, an HTTP body, an
/// SSE event).
pub fn reply_of(response: &Value) -> Reply {
    let error = &response["error"];
    if error.is_null() {
        return Ok(response["result"].clone());
    }
    Err(RpcError::Server {
        code: error["code"].as_i64().unwrap_or(0),
        message: error["message"]
            .as_str()
            .unwrap_or("(no message)")
            .to_string(),
    })
}

/// Longest line accepted from a server (a larger one is a protocol error).
const MAX_LINE: usize = 64 * 1024 * 1024;

/// A live JSON-RPC connection to a child process.
pub struct Connection {
    /// Lines for the writer thread; `None` once shut down.
    stdin: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
    pending: Mutex<HashMap<u64, mpsc::Sender<Reply>>>,
    next_id: AtomicU64,
    /// `Some(reason)` once the server is gone.
    closed: Mutex<Option<String>>,
    child: Mutex<Option<Child>>,
    log: Option<Mutex<File>>,
}

impl Connection {
    /// Wraps a spawned `child` (stdin and stdout piped, in its own process group).
    /// `on_notification` sees every notification; `on_close` runs once when the
    /// server's output ends, with the reason.
    pub fn start(
        mut child: Child,
        log: Option<File>,
        on_notification: NotificationHandler,
        on_close: Box<dyn FnOnce(String) + Send>,
    ) -> Arc<Connection> {
        let stdin = child.stdin.take().map(spawn_writer);
        let stdout = child.stdout.take();
        let connection = Arc::new(Connection {
            stdin: Mutex::new(stdin),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            closed: Mutex::new(None),
            child: Mutex::new(Some(child)),
            log: log.map(Mutex::new),
        });
        let reader = connection.clone();
        thread::spawn(move || {
            let reason = match stdout {
                Some(stdout) => reader.read_loop(stdout, &on_notification),
                None => "no stdout pipe".to_string(),
            };
            let reason = reader.exit_description(reason);
            // Record the reason first, let the owner update its state and warnings,
            // and only then fail the waiting requests: a caller that sees its
            // request fail also sees the server as gone.
            reader.mark_closed(&reason);
            on_close(reason.clone());
            reader.close(&reason);
        });
        connection
    }

    /// Whether the server is gone, and why.
    pub fn closed_reason(&self) -> Option<String> {
        lock(&self.closed).clone()
    }

    fn send(&self, message: &Value) -> Result<(), String> {
        let mut line = message.to_json_string().into_bytes();
        line.push(b'\n');
        let stdin = lock(&self.stdin);
        let pipe = stdin.as_ref().ok_or("the connection is shut down")?;
        pipe.send(line)
            .map_err(|_| "cannot write to the server: its input is closed".to_string())
    }

    fn read_loop(&self, stdout: ChildStdout, on_notification: &NotificationHandler) -> String {
        let mut lines = LineReader::new(BufReader::new(stdout), MAX_LINE);
        loop {
            let line = match lines.next_line() {
                Ok(LineRead::Line(line)) => line,
                Ok(LineRead::End) => return "its output closed".to_string(),
                Ok(LineRead::TooLong(_)) => return "it sent a line longer than 64 MiB".to_string(),
                Err(e) => return format!("reading its output failed: {e}"),
            };
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            match parse_str(text) {
                Ok(message) => self.route(message, on_notification),
                Err(e) => self.log_line(&format!(
                    "[focus] ignored a line that is not JSON ({e}): {}",
                    clip(text)
                )),
            }
        }
    }

    fn route(&self, message: Value, on_notification: &NotificationHandler) {
        match jsonrpc::classify(&message) {
            Incoming::Notification { method, params } => on_notification(method, params),
            Incoming::Request { id, method, .. } => {
                // A request from the server. focus offers no client features yet.
                let answer = if method == "ping" {
                    jsonrpc::result(id.clone(), json_object! {})
                } else {
                    let text = format!("focus does not support `{method}`");
                    jsonrpc::error(id.clone(), jsonrpc::METHOD_NOT_FOUND, &text)
                };
                let _ = self.send(&answer);
            }
            Incoming::Response { id } => {
                let Some(id) = id.as_u64() else {
                    self.log_line("[focus] ignored a response with a non-numeric id");
                    return;
                };
                if let Some(tx) = lock(&self.pending).remove(&id) {
                    let _ = tx.send(reply_of(&message));
                }
            }
            Incoming::Invalid { reason, .. } => {
                self.log_line(&format!("[focus] ignored a message: {reason}"))
            }
        }
    }

    /// Adds the exit status to the reason, if the process has exited by now.
    fn exit_description(&self, reason: String) -> String {
        let mut child = lock(&self.child);
        let Some(child) = child.as_mut() else {
            return reason;
        };
        match reap_if_exited(child, Duration::from_millis(100)) {
            Some(status) => format!("{reason}; it exited with {status}"),
            None => reason,
        }
    }

    /// Records why the connection is gone (the first reason wins).
    fn mark_closed(&self, reason: &str) -> String {
        let mut closed = lock(&self.closed);
        closed.get_or_insert_with(|| reason.to_string()).clone()
    }

    /// Marks the connection closed and fails every waiting request with the
    /// recorded reason.
    fn close(&self, reason: &str) {
        let reason = self.mark_closed(reason);
        for (_, tx) in lock(&self.pending).drain() {
            let _ = tx.send(Err(RpcError::Closed(reason.clone())));
        }
    }

    fn log_line(&self, line: &str) {
        if let Some(log) = &self.log {
            let _ = writeln!(lock(log), "{line}");
        }
    }
}

impl RpcChannel for Connection {
    fn request(&self, method: &str, params: Value, wait: Wait<'_>) -> Reply {
        let Wait { timeout, cancel } = wait;
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = mpsc::channel();
        {
            // Registering under the `closed` lock: a close either happened before
            // (we fail now) or will see this request (and fail it).
            let closed = lock(&self.closed);
            if let Some(reason) = closed.as_ref() {
                return Err(RpcError::Closed(reason.clone()));
            }
            lock(&self.pending).insert(id, tx.clone());
        }
        let message = jsonrpc::request(Value::from(id), method, params);
        if let Err(e) = self.send(&message) {
            // The pipe broke: the reader is about to see the end of the output and
            // fail this request with the exit status, a better reason than EPIPE.
            let reply = rx.recv_timeout(Duration::from_secs(1));
            lock(&self.pending).remove(&id);
            return match reply {
                Ok(Err(closed @ RpcError::Closed(_))) => Err(closed),
                _ => Err(RpcError::Closed(e)),
            };
        }
        let _registration = cancel.map(|token| {
            let tx = tx.clone();
            token.on_cancel(move || {
                let _ = tx.send(Err(RpcError::Cancelled));
            })
        });
        let reply = rx
            .recv_timeout(timeout)
            .unwrap_or(Err(RpcError::Timeout(timeout)));
        lock(&self.pending).remove(&id);
        if let Err(RpcError::Timeout(_) | RpcError::Cancelled) = &reply {
            let reason = match &reply {
                Err(RpcError::Cancelled) => "cancelled by the user",
                _ => "timed out",
            };
            let _ = self.notify(
                "notifications/cancelled",
                json_object! { "requestId" => id, "reason" => reason },
            );
        }
        reply
    }

    fn notify(&self, method: &str, params: Value) -> Result<(), String> {
        self.send(&jsonrpc::notification(method, params))
    }

    /// Stops the server: closes its stdin, kills its process group, reaps it.
    fn shutdown(&self) {
        lock(&self.stdin).take();
        if let Some(mut child) = lock(&self.child).take() {
            kill_and_reap(&mut child);
        }
        self.close("shut down by focus");
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The thread that owns the server's stdin and writes queued lines in order. It
/// ends when the connection drops its sender, or at the first write error (the
/// server closed its input or died; the reader then reports why). A blocked write
/// ends when [`Connection::shutdown`] kills the server.
fn spawn_writer(mut stdin: ChildStdin) -> mpsc::Sender<Vec<u8>> {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    thread::spawn(move || {
        for line in rx {
            if stdin.write_all(&line).and_then(|_| stdin.flush()).is_err() {
                return;
            }
        }
    });
    tx
}

fn clip(text: &str) -> String {
    if text.chars().count() > 200 {
        format!("{}…", text.chars().take(200).collect::<String>())
    } else {
        text.to_string()
    }
}
