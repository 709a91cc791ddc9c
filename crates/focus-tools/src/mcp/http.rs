//! MCP's streamable HTTP transport: every JSON-RPC message is an HTTP POST to the
//! server's URL.
//!
//! - A request's answer comes back either as `application/json` (the response
//!   itself) or as `text/event-stream`: server-sent events whose `data` lines are
//!   JSON-RPC messages — notifications first, perhaps, then the response.
//! - A notification is answered with `202 Accepted` and no body.
//! - The server may hand out a session in the `Mcp-Session-Id` header of its
//!   `initialize` answer; every later POST carries it back, with
//!   `MCP-Protocol-Version`. A 404 to a request carrying the session (or the 400
//!   "no valid session" some servers send instead) means the server forgot it,
//!   restarted perhaps: the request fails with [`RpcError::SessionExpired`] and the
//!   owner ([`super::server::Server`]) initializes a new session and sends it again.
//!   A request that could not connect fails with [`RpcError::Unreachable`].
//! - Shutting down ends the session with a `DELETE` carrying its id.
//! - An HTTP error is described by its status, content type and, for JSON or
//!   plain text, the server's words (cut short): never an HTML page.
//!
//! focus-tools does not do HTTP itself: the front end passes a [`Transport`] (the
//! CLI its curl-based one). Each request runs on a helper thread so the
//! caller can stop waiting at its timeout or on cancel; the POST is then cancelled
//! through its own [`CancelToken`].

use super::rpc::{NotificationHandler, Reply, RpcChannel, RpcError, Wait};
use focus_core::cancel::CancelToken;
use focus_core::json::{parse_str, Value};
use focus_core::json_object;
use focus_core::sync::lock;
use focus_transport::sse::EventReader;
use focus_transport::{HttpRequest, HttpResponse, Transport, TransportError};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// How long connecting to the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest body or event accepted from a server.
const MAX_BODY: u64 = 64 * 1024 * 1024;

/// How long a notification POST may take.
const NOTIFY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the `DELETE` that ends a session may take (at exit: a server that
/// does not answer must not hold focus up).
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);

/// Longest part of an error body quoted in a message.
const MAX_QUOTED_ERROR: usize = 300;

/// A JSON-RPC channel over streamable HTTP.
pub struct HttpConnection {
    inner: Arc<Inner>,
}

struct Inner {
    url: String,
    headers: Vec<(String, String)>,
    client: Arc<dyn Transport>,
    session_id: Mutex<Option<String>>,
    protocol_version: Mutex<Option<String>>,
    next_id: AtomicU64,
    closed: Mutex<Option<String>>,
    on_notification: NotificationHandler,
}

impl HttpConnection {
    /// A channel to `url`, adding `headers` to every POST.
    pub fn new(
        url: String,
        headers: Vec<(String, String)>,
        client: Arc<dyn Transport>,
        on_notification: NotificationHandler,
    ) -> HttpConnection {
        HttpConnection {
            inner: Arc::new(Inner {
                url,
                headers,
                client,
                session_id: Mutex::new(None),
                protocol_version: Mutex::new(None),
                next_id: AtomicU64::new(1),
                closed: Mutex::new(None),
                on_notification,
            }),
        }
    }

    /// Runs `work` on a helper thread with its own cancel token; waits at most
    /// `timeout`, or until `cancel` fires.
    fn run_bounded(
        &self,
        timeout: Duration,
        cancel: Option<&CancelToken>,
        work: impl FnOnce(&Inner, &CancelToken) -> Reply + Send + 'static,
    ) -> Reply {
        let post_cancel = CancelToken::new();
        let (tx, rx) = mpsc::channel();
        let inner = self.inner.clone();
        let worker_cancel = post_cancel.clone();
        let worker_tx = tx.clone();
        std::thread::spawn(move || {
            let _ = worker_tx.send(work(&inner, &worker_cancel));
        });
        let _registration = cancel.map(|token| {
            token.on_cancel(move || {
                let _ = tx.send(Err(RpcError::Cancelled));
            })
        });
        let reply = rx
            .recv_timeout(timeout)
            .unwrap_or(Err(RpcError::Timeout(timeout)));
        if matches!(reply, Err(RpcError::Timeout(_) | RpcError::Cancelled)) {
            post_cancel.cancel();
        }
        reply
    }
}

impl RpcChannel for HttpConnection {
    fn request(&self, method: &str, params: Value, wait: Wait<'_>) -> Reply {
        let Wait { timeout, cancel } = wait;
        if let Some(reason) = lock(&self.inner.closed).clone() {
            return Err(RpcError::Closed(reason));
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::SeqCst);
        let message = super::jsonrpc::request(Value::from(id), method, params);
        let is_initialize = method == "initialize";
        let reply = self.run_bounded(timeout, cancel, move |inner, post_cancel| {
            inner.exchange(&message, id, is_initialize, post_cancel)
        });
        if let Err(RpcError::Timeout(_) | RpcError::Cancelled) = &reply {
            let reason = match &reply {
                Err(RpcError::Cancelled) => "cancelled by the user",
                _ => "timed out",
            };
            // Best effort, on its own thread: a server that hangs must not hang us.
            let inner = self.inner.clone();
            std::thread::spawn(move || {
                let params = json_object! { "requestId" => id, "reason" => reason };
                let note = super::jsonrpc::notification("notifications/cancelled", params);
                let _ = inner.send_notification(&note, &CancelToken::new());
            });
        }
        reply
    }

    fn notify(&self, method: &str, params: Value) -> Result<(), String> {
        let message = super::jsonrpc::notification(method, params);
        self.run_bounded(NOTIFY_TIMEOUT, None, move |inner, post_cancel| {
            inner
                .send_notification(&message, post_cancel)
                .map(|_| Value::Null)
                .map_err(RpcError::Closed)
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
    }

    /// Marks the channel closed and ends the session, if there is one, with a
    /// `DELETE` (bounded by 2 s; a server that refuses, 405, or
    /// does not answer is left be).
    fn shutdown(&self) {
        let first = {
            let mut closed = lock(&self.inner.closed);
            let first = closed.is_none();
            closed.get_or_insert_with(|| "shut down by focus".to_string());
            first
        };
        if first && lock(&self.inner.session_id).is_some() {
            let _ = self.run_bounded(DELETE_TIMEOUT, None, |inner, cancel| {
                inner.delete_session(cancel);
                Ok(Value::Null)
            });
        }
    }
}

impl Inner {
    fn headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![
            ("Content-Type".to_string(), "application/json".to_string()),
            (
                "Accept".to_string(),
                "application/json, text/event-stream".to_string(),
            ),
        ];
        if let Some(session) = lock(&self.session_id).clone() {
            headers.push(("Mcp-Session-Id".to_string(), session));
        }
        if let Some(version) = lock(&self.protocol_version).clone() {
            headers.push(("MCP-Protocol-Version".to_string(), version));
        }
        headers.extend(self.headers.iter().cloned());
        headers
    }

    fn post(&self, message: &Value, cancel: &CancelToken) -> Result<HttpResponse, RpcError> {
        let request = HttpRequest {
            method: "POST".into(),
            url: self.url.clone(),
            headers: self.headers(),
            body: message.to_json_string().into_bytes(),
            connect_timeout: Some(CONNECT_TIMEOUT),
            total_timeout: None,
        };
        let reply = self.client.send(&request, cancel).map_err(|e| match e {
            TransportError::Connect(_) | TransportError::Dns(_) => {
                RpcError::Unreachable(format!("HTTP request failed: {e}"))
            }
            e => RpcError::Closed(format!("HTTP request failed: {e}")),
        })?;
        if (200..300).contains(&reply.status) {
            return Ok(reply);
        }
        let had_session = lock(&self.session_id).is_some();
        let problem = HttpProblem::read(reply);
        if had_session && problem.means_no_session() {
            // The server forgot the session: a new one is needed.
            *lock(&self.session_id) = None;
            return Err(RpcError::SessionExpired(problem.describe()));
        }
        Err(RpcError::Server {
            code: i64::from(problem.status),
            message: problem.describe(),
        })
    }

    /// `DELETE` to the endpoint with the session id: the session ends.
    fn delete_session(&self, cancel: &CancelToken) {
        let Some(session) = lock(&self.session_id).take() else {
            return;
        };
        let mut headers = vec![("Mcp-Session-Id".to_string(), session)];
        if let Some(version) = lock(&self.protocol_version).clone() {
            headers.push(("MCP-Protocol-Version".to_string(), version));
        }
        headers.extend(self.headers.iter().cloned());
        let request = HttpRequest {
            method: "DELETE".into(),
            url: self.url.clone(),
            headers,
            body: Vec::new(),
            connect_timeout: Some(DELETE_TIMEOUT),
            total_timeout: Some(DELETE_TIMEOUT),
        };
        if let Ok(reply) = self.client.send(&request, cancel) {
            let _ = reply.body.take(4096).read_to_end(&mut Vec::new());
        }
    }

    fn send_notification(&self, message: &Value, cancel: &CancelToken) -> Result<(), String> {
        self.post(message, cancel)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    /// POSTs a request and reads its response from a JSON body or an event stream.
    fn exchange(
        &self,
        message: &Value,
        id: u64,
        is_initialize: bool,
        cancel: &CancelToken,
    ) -> Reply {
        if is_initialize {
            // A new session: nothing of the old one goes with it.
            *lock(&self.session_id) = None;
            *lock(&self.protocol_version) = None;
        }
        let reply = self.post(message, cancel);
        let reply = match reply {
            Err(RpcError::Server { code, message })
                if is_initialize && matches!(code, 404 | 405) =>
            {
                return Err(RpcError::Server {
                    code,
                    message: format!(
                        "{message}: the server does not take MCP's streamable HTTP POST here \
                         (it may speak the older HTTP+SSE transport)"
                    ),
                })
            }
            other => other?,
        };
        if is_initialize {
            if let Some(session) = reply.header("Mcp-Session-Id") {
                *lock(&self.session_id) = Some(session.to_string());
            }
        }
        let is_stream = reply
            .header("Content-Type")
            .is_some_and(|t| t.trim_start().starts_with("text/event-stream"));
        let result = if is_stream {
            self.read_stream(reply.body, id)
        } else {
            let mut text = String::new();
            reply
                .body
                .take(MAX_BODY)
                .read_to_string(&mut text)
                .map_err(|e| RpcError::Closed(format!("reading the answer failed: {e}")))?;
            let value = parse_str(text.trim())
                .map_err(|e| RpcError::Closed(format!("the answer is not JSON: {e}")))?;
            self.response_for(&value, id).unwrap_or_else(|| {
                Err(RpcError::Closed(
                    "the answer has no response for the request".into(),
                ))
            })
        };
        if is_initialize {
            if let Ok(result) = &result {
                if let Some(version) = result["protocolVersion"].as_str() {
                    *lock(&self.protocol_version) = Some(version.to_string());
                }
            }
        }
        result
    }

    /// Reads server-sent events (framed by the transport's `EventReader`, the one
    /// SSE decoder of focus) until the response to `id` arrives; notifications on
    /// the way go to the handler.
    fn read_stream(&self, body: Box<dyn Read + Send>, id: u64) -> Reply {
        let mut events = EventReader::new(body.take(MAX_BODY));
        loop {
            let event = events
                .next_event()
                .map_err(|e| RpcError::Closed(format!("the event stream failed: {e}")))?;
            let Some(event) = event else {
                return Err(RpcError::Closed(
                    "the event stream ended without a response".to_string(),
                ));
            };
            // `event:` names, ids and comments carry nothing MCP needs here.
            if let Ok(message) = parse_str(&event.data) {
                if let Some(reply) = self.response_for(&message, id) {
                    return reply;
                }
            }
        }
    }

    /// The reply if `message` is the response to `id`; notifications are handed to
    /// the handler (and give `None`). A batch (array) is searched in order.
    fn response_for(&self, message: &Value, id: u64) -> Option<Reply> {
        if let Some(items) = message.as_array() {
            return items.iter().find_map(|m| self.response_for(m, id));
        }
        if let Some(method) = message["method"].as_str() {
            if message["id"].is_null() {
                (self.on_notification)(method, &message["params"]);
            }
            return None;
        }
        if message["id"].as_u64() != Some(id) {
            return None;
        }
        Some(super::rpc::reply_of(message))
    }
}

/// A non-2xx answer, read for a message: its status, content type and the
/// start of its body.
struct HttpProblem {
    status: u16,
    content_type: String,
    body: String,
    body_bytes: usize,
}

impl HttpProblem {
    fn read(reply: HttpResponse) -> HttpProblem {
        let content_type = reply
            .header("Content-Type")
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let mut bytes = Vec::new();
        let _ = reply.body.take(64 * 1024).read_to_end(&mut bytes);
        HttpProblem {
            status: reply.status,
            content_type,
            body_bytes: bytes.len(),
            body: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    /// 404, or a 400 whose words are about the session (server-everything,
    /// older Python SDK servers: "Bad Request: No valid session ID provided").
    fn means_no_session(&self) -> bool {
        self.status == 404
            || (self.status == 400 && self.words().to_ascii_lowercase().contains("session"))
    }

    /// What the server said: a JSON-RPC error's message, a JSON body or plain
    /// text as it is; nothing for other types (HTML pages).
    fn words(&self) -> String {
        let is_json = self.content_type.ends_with("json");
        if is_json {
            if let Ok(value) = parse_str(self.body.trim()) {
                if let Some(message) = value["error"]["message"].as_str() {
                    return message.to_string();
                }
            }
        }
        if is_json || self.content_type == "text/plain" || self.content_type.is_empty() {
            let text = self.body.trim();
            // An untyped body is only quoted when it does not look like markup.
            if self.content_type.is_empty() && text.starts_with('<') {
                return String::new();
            }
            return text.to_string();
        }
        String::new()
    }

    /// `HTTP 404 (text/html, 1234 bytes not shown)` or `HTTP 400: <words>`.
    fn describe(&self) -> String {
        let words = crate::output::sanitize(&self.words()).replace('\n', " ");
        let words = words.trim();
        if words.is_empty() {
            let kind = if self.content_type.is_empty() {
                "no content type"
            } else {
                &self.content_type
            };
            return match self.body_bytes {
                0 => format!("HTTP {} ({kind}, empty)", self.status),
                n => format!("HTTP {} ({kind}, {n} bytes not shown)", self.status),
            };
        }
        let mut words = words.to_string();
        if words.len() > MAX_QUOTED_ERROR {
            words.truncate(focus_core::char_boundary::floor(&words, MAX_QUOTED_ERROR));
            words.push('…');
        }
        format!("HTTP {}: {words}", self.status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(status: u16, content_type: &str, body: &str) -> HttpProblem {
        HttpProblem {
            status,
            content_type: content_type.into(),
            body: body.into(),
            body_bytes: body.len(),
        }
    }

    #[test]
    fn errors_name_status_and_type_and_never_paste_html() {
        let html = problem(
            404,
            "text/html",
            "<!DOCTYPE html><html><body>Not Found</body></html>",
        );
        assert_eq!(html.describe(), "HTTP 404 (text/html, 50 bytes not shown)");
        assert!(html.means_no_session());
        let untyped = problem(404, "", "<html>x</html>");
        assert_eq!(
            untyped.describe(),
            "HTTP 404 (no content type, 14 bytes not shown)"
        );
        let everything = problem(
            400,
            "application/json",
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#,
        );
        assert!(everything.means_no_session());
        assert_eq!(
            everything.describe(),
            "HTTP 400: Bad Request: No valid session ID provided"
        );
        let other = problem(400, "text/plain", "missing field `name`\x1b[2J");
        assert!(!other.means_no_session());
        assert_eq!(other.describe(), "HTTP 400: missing field `name`");
        assert_eq!(
            problem(500, "text/plain", "").describe(),
            "HTTP 500 (text/plain, empty)"
        );
        let long = problem(500, "text/plain", &"x".repeat(5000));
        assert!(long.describe().len() < MAX_QUOTED_ERROR + 20);
    }
}
