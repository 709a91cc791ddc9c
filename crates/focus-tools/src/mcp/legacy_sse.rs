//! MCP's older HTTP+SSE transport (protocol 2024-11-05), the fallback for a
//! server that refuses the streamable HTTP POST ([`super::http`]) with 404 or
//! 405, or one configured with `"type": "sse"`.
//!
//! The client opens one long `GET` on the server's URL (`Accept:
//! text/event-stream`). The server's first event, named `endpoint`, gives the
//! URL to POST messages to (usually relative, with a session in its query).
//! Every request and notification is then a POST there (answered `202
//! Accepted`), and every answer comes back as a `message` event on the GET
//! stream. One reader thread reads that stream and routes each response to the
//! request waiting for its `id`; when the stream ends, every waiting request
//! fails at once with the reason, and the owner is told (as when a stdio server
//! exits).

use super::jsonrpc;
use super::rpc::{reply_of, NotificationHandler, Reply, RpcChannel, RpcError, Wait};
use focus_core::cancel::CancelToken;
use focus_core::json::{parse_str, Value};
use focus_core::json_object;
use focus_core::sync::lock;
use focus_transport::sse::EventReader;
use focus_transport::{HttpRequest, Transport, TransportError};
use std::collections::HashMap;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// How long connecting (for the stream and for each POST) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest event accepted from the server.
const MAX_STREAM: u64 = 1 << 40;

/// How long a POST (which the server answers with `202` at once) may take.
const POST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a notification's POST may take.
const NOTIFY_TIMEOUT: Duration = Duration::from_secs(10);

/// A JSON-RPC channel over the HTTP+SSE transport.
pub struct LegacySseConnection {
    inner: Arc<Inner>,
}

struct Inner {
    endpoint: String,
    headers: Vec<(String, String)>,
    client: Arc<dyn Transport>,
    pending: Mutex<HashMap<u64, mpsc::Sender<Reply>>>,
    next_id: AtomicU64,
    closed: Mutex<Option<String>>,
    /// Cancels the GET stream (shutdown).
    stream_cancel: CancelToken,
}

impl LegacySseConnection {
    /// Opens the event stream at `url` and waits (at most `wait`) for its
    /// `endpoint` event. `on_close` runs once, with the reason, when the stream
    /// ends after that.
    ///
    /// # Errors
    ///
    /// The stream cannot be opened, answers with an error status, or sends no `endpoint` event
    /// within `wait`.
    pub fn open(
        url: &str,
        headers: Vec<(String, String)>,
        client: Arc<dyn Transport>,
        wait: Duration,
        on_notification: NotificationHandler,
        on_close: Box<dyn FnOnce(String) + Send>,
    ) -> Result<LegacySseConnection, String> {
        let stream_cancel = CancelToken::new();
        let mut request_headers = vec![("Accept".to_string(), "text/event-stream".to_string())];
        request_headers.extend(headers.iter().cloned());
        let request = HttpRequest {
            method: "GET".into(),
            url: url.to_string(),
            headers: request_headers,
            body: Vec::new(),
            connect_timeout: Some(CONNECT_TIMEOUT),
            total_timeout: None,
        };
        // The GET and the wait for `endpoint` run on the reader thread; this
        // thread waits for the endpoint (or the reason there is none).
        let (endpoint_tx, endpoint_rx) = mpsc::channel::<Result<String, String>>();
        let (inner_tx, inner_rx) = mpsc::channel::<Arc<Inner>>();
        let base = url.to_string();
        let thread_client = client.clone();
        let thread_cancel = stream_cancel.clone();
        std::thread::spawn(move || {
            let reply = match thread_client.send(&request, &thread_cancel) {
                Ok(reply) => reply,
                Err(e) => {
                    let _ = endpoint_tx.send(Err(format!("the event stream GET failed: {e}")));
                    return;
                }
            };
            let content_type = reply.header("Content-Type").unwrap_or("").to_string();
            if reply.status != 200 || !content_type.contains("text/event-stream") {
                let kind = if content_type.is_empty() {
                    "no content type".to_string()
                } else {
                    content_type
                };
                let _ = endpoint_tx.send(Err(format!(
                    "the event stream GET was answered HTTP {} ({kind}), not an event stream",
                    reply.status
                )));
                return;
            }
            let mut events = EventReader::new(reply.body.take(MAX_STREAM));
            let endpoint = loop {
                match events.next_event() {
                    Ok(Some(event)) if event.event == "endpoint" => {
                        break resolve(&base, event.data.trim());
                    }
                    Ok(Some(_)) => continue,
                    Ok(None) => {
                        let _ = endpoint_tx.send(Err(
                            "the event stream ended before its `endpoint` event".into(),
                        ));
                        return;
                    }
                    Err(e) => {
                        let _ = endpoint_tx.send(Err(format!("the event stream failed: {e}")));
                        return;
                    }
                }
            };
            if endpoint_tx.send(Ok(endpoint)).is_err() {
                return; // the opener gave up waiting
            }
            let Ok(inner) = inner_rx.recv() else {
                return;
            };
            let reason = inner.read_loop(&mut events, &on_notification);
            inner.close(&reason);
            on_close(reason);
        });
        let endpoint = match endpoint_rx.recv_timeout(wait) {
            Ok(result) => result?,
            Err(_) => {
                stream_cancel.cancel();
                return Err(format!(
                    "no `endpoint` event on the event stream within {}s",
                    wait.as_secs_f64()
                ));
            }
        };
        let inner = Arc::new(Inner {
            endpoint,
            headers,
            client,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            closed: Mutex::new(None),
            stream_cancel,
        });
        let _ = inner_tx.send(inner.clone());
        Ok(LegacySseConnection { inner })
    }

    /// Where messages are posted (from the `endpoint` event).
    pub fn endpoint(&self) -> &str {
        &self.inner.endpoint
    }
}

/// The `endpoint` event's URI made absolute against the stream's URL: a full
/// URL as it is, `/path` on the same host, anything else beside the stream's
/// path.
fn resolve(base: &str, uri: &str) -> String {
    if uri.starts_with("http://") || uri.starts_with("https://") {
        return uri.to_string();
    }
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[after_scheme..]
        .find('/')
        .map_or(base.len(), |i| after_scheme + i);
    if uri.starts_with('/') {
        return format!("{}{uri}", &base[..host_end]);
    }
    let path = base[host_end..].split(['?', '#']).next().unwrap_or("");
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    let dir = if dir.is_empty() { "/" } else { dir };
    format!("{}{dir}{uri}", &base[..host_end])
}

impl Inner {
    /// Reads `message` events until the stream ends; returns why it ended.
    fn read_loop(
        &self,
        events: &mut EventReader<std::io::Take<Box<dyn Read + Send>>>,
        on_notification: &NotificationHandler,
    ) -> String {
        loop {
            let event = match events.next_event() {
                Ok(Some(event)) => event,
                Ok(None) => return "its event stream ended".to_string(),
                Err(e) => return format!("its event stream failed: {e}"),
            };
            if !matches!(event.event.as_str(), "" | "message") {
                continue;
            }
            let Ok(message) = parse_str(&event.data) else {
                continue;
            };
            self.route(message, on_notification);
        }
    }

    fn route(&self, message: Value, on_notification: &NotificationHandler) {
        if let Some(items) = message.as_array() {
            for item in items {
                self.route(item.clone(), on_notification);
            }
            return;
        }
        match (message["method"].as_str(), message["id"].is_null()) {
            (Some(method), true) => on_notification(method, &message["params"]),
            (Some(method), false) => {
                // A request from the server: `ping` answered, the rest refused.
                let id = message["id"].clone();
                let answer = if method == "ping" {
                    jsonrpc::result(id, json_object! {})
                } else {
                    let text = format!("focus does not support `{method}`");
                    jsonrpc::error(id, jsonrpc::METHOD_NOT_FOUND, &text)
                };
                let _ = self.post(&answer, &CancelToken::new());
            }
            (None, false) => {
                if let Some(tx) = message["id"]
                    .as_u64()
                    .and_then(|id| lock(&self.pending).remove(&id))
                {
                    let _ = tx.send(reply_of(&message));
                }
            }
            (None, true) => {}
        }
    }

    /// POSTs one message to the endpoint; any 2xx is fine (the answer comes on
    /// the stream).
    fn post(&self, message: &Value, cancel: &CancelToken) -> Result<(), RpcError> {
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        headers.extend(self.headers.iter().cloned());
        let request = HttpRequest {
            method: "POST".into(),
            url: self.endpoint.clone(),
            headers,
            body: message.to_json_string().into_bytes(),
            connect_timeout: Some(CONNECT_TIMEOUT),
            total_timeout: Some(POST_TIMEOUT),
        };
        let reply = self.client.send(&request, cancel).map_err(|e| match e {
            TransportError::Connect(_) | TransportError::Dns(_) => {
                RpcError::Unreachable(format!("HTTP request failed: {e}"))
            }
            e => RpcError::Closed(format!("HTTP request failed: {e}")),
        })?;
        let status = reply.status;
        let _ = reply.body.take(64 * 1024).read_to_end(&mut Vec::new());
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(RpcError::Server {
                code: i64::from(status),
                message: format!("HTTP {status} for a message posted to the endpoint"),
            })
        }
    }

    /// Marks the channel closed (the first reason wins) and fails every waiting
    /// request with it.
    fn close(&self, reason: &str) {
        let reason = lock(&self.closed)
            .get_or_insert_with(|| reason.to_string())
            .clone();
        for (_, tx) in lock(&self.pending).drain() {
            let _ = tx.send(Err(RpcError::Closed(reason.clone())));
        }
    }
}

impl RpcChannel for LegacySseConnection {
    fn request(&self, method: &str, params: Value, wait: Wait<'_>) -> Reply {
        let Wait { timeout, cancel } = wait;
        let id = self.inner.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = mpsc::channel();
        {
            let closed = lock(&self.inner.closed);
            if let Some(reason) = closed.as_ref() {
                return Err(RpcError::Closed(reason.clone()));
            }
            lock(&self.inner.pending).insert(id, tx.clone());
        }
        let message = jsonrpc::request(Value::from(id), method, params);
        let post_cancel = CancelToken::new();
        let _registration = cancel.map(|token| {
            let tx = tx.clone();
            let post_cancel = post_cancel.clone();
            token.on_cancel(move || {
                post_cancel.cancel();
                let _ = tx.send(Err(RpcError::Cancelled));
            })
        });
        // The POST on a helper thread, so the wait below bounds it too.
        let inner = self.inner.clone();
        let post_tx = tx;
        std::thread::spawn(move || {
            if let Err(e) = inner.post(&message, &post_cancel) {
                let _ = post_tx.send(Err(e));
            }
        });
        let reply = rx
            .recv_timeout(timeout)
            .unwrap_or(Err(RpcError::Timeout(timeout)));
        lock(&self.inner.pending).remove(&id);
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

    /// Posts a notification and waits (at most 10 s) until the
    /// server took it, so that messages reach the server in order
    /// (`notifications/initialized` before the first request).
    fn notify(&self, method: &str, params: Value) -> Result<(), String> {
        if let Some(reason) = lock(&self.inner.closed).clone() {
            return Err(reason);
        }
        let message = jsonrpc::notification(method, params);
        let inner = self.inner.clone();
        let cancel = CancelToken::new();
        let post_cancel = cancel.clone();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(inner.post(&message, &post_cancel));
        });
        match rx.recv_timeout(NOTIFY_TIMEOUT) {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => {
                cancel.cancel();
                Err(format!(
                    "the server did not take a notification within {}s",
                    NOTIFY_TIMEOUT.as_secs()
                ))
            }
        }
    }

    /// Ends the event stream and fails what still waits.
    fn shutdown(&self) {
        self.inner.close("shut down by focus");
        self.inner.stream_cancel.cancel();
    }
}

impl Drop for LegacySseConnection {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn the_endpoint_is_resolved_against_the_stream_url() {
        let base = "http://127.0.0.1:8000/mcp/sse?x=1";
        assert_eq!(
            resolve(base, "/messages/?session_id=ab"),
            "http://127.0.0.1:8000/messages/?session_id=ab"
        );
        assert_eq!(
            resolve(base, "messages?s=1"),
            "http://127.0.0.1:8000/mcp/messages?s=1"
        );
        assert_eq!(resolve(base, "https://x.example/m"), "https://x.example/m");
        assert_eq!(resolve("http://h:1", "m?s=2"), "http://h:1/m?s=2");
    }
}
