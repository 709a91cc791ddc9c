//! [`HttpProvider`]: one [`Provider`] for all four wire APIs. It builds the request
//! with the API's builder ([`HttpProvider::http_request`]), makes attempts, and
//! handles what the network throws at it: retries with backoff (only before
//! anything was shown), provider error bodies ([`error_text`], [`retryable_status`]),
//! cut streams and cancellation.
//!
//! One attempt (`http/attempt.rs`) sends the request through a [`Transport`] with a
//! watchdog beside it, checks the status, and reads the body into the message
//! (`http/event_stream.rs`: the SSE decoder, then the API's
//! [`crate::decode::StreamDecoder`]).

mod attempt;
mod event_stream;

pub use event_stream::MAX_EVENT_BYTES;

use crate::builder::MessageBuilder;
use crate::decode::decoder_for;
use crate::secret::ApiKey;
use attempt::{Attempt, Failure};
use focus_core::cancel::CancelToken;
use focus_core::json::{parse_str, Value};
use focus_core::message::{AssistantMessage, StopReason};
use focus_core::overflow::is_context_overflow;
use focus_core::provider::{ModelInfo, ModelRequest, Provider, StreamEvent, StreamSink};
use focus_transport::{HttpRequest, Transport};
use std::sync::Arc;
use std::time::Duration;

/// When and how often to retry.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in total (1 = no retry).
    pub max_attempts: u32,
    /// The first backoff delay; each retry doubles it, plus up to 50% jitter.
    pub base_delay: Duration,
    /// The longest wait accepted. A server asking (`Retry-After`) for longer makes
    /// the call fail at once with the server's message instead.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The computed backoff before retry number `retry` (1-based), jittered.
    pub fn backoff(&self, retry: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32 << retry.saturating_sub(1).min(16));
        let jitter_ms = (exp.as_millis() as u64 / 2).max(1);
        let jitter = Duration::from_millis(pseudo_random() % jitter_ms);
        exp.saturating_add(jitter).min(self.max_delay)
    }
}

/// A cheap, non-cryptographic random number for jitter (std has no RNG).
fn pseudo_random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// A model reached over HTTP. Construct with [`HttpProvider::new`] or the
/// registry's `provider_for`.
pub struct HttpProvider {
    model: ModelInfo,
    api_key: Option<ApiKey>,
    transport: Arc<dyn Transport>,
    retry: RetryPolicy,
    headers: Vec<(String, String)>,
    on_retry: Option<RetryObserver>,
    idle_timeout: Duration,
    stall_timeout: Duration,
    compat: Option<crate::compat::Compat>,
}

/// How long a connection may stay silent before it counts as stalled. Generous:
/// some reasoning models think for minutes without sending a byte.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// How long a stream may go without model output (text, thinking, a tool call)
/// while bytes still arrive (keepalive comments, `ping` events) before the
/// attempt counts as stalled and is retried. Long enough for a reasoning model
/// behind a proxy that thinks silently for minutes and sends only keepalives;
/// settings change it (`streamStallSeconds`).
pub const DEFAULT_STALL_TIMEOUT: Duration = Duration::from_secs(300);

/// Told about each retry before its wait: the attempt about to be made (2, 3, …),
/// the wait, and why (the failed attempt's message). For a "retrying in 4 s" line.
pub type RetryObserver = Arc<dyn Fn(u32, Duration, &str) + Send + Sync>;

impl std::fmt::Debug for HttpProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpProvider")
            .field("model", &self.model.id)
            .field("api", &self.model.api)
            .field("base_url", &self.model.base_url)
            .field("api_key", &self.api_key)
            .field("retry", &self.retry)
            .finish()
    }
}

impl HttpProvider {
    /// A provider for `model` (its `api` must be one of [`crate::decode::APIS`]),
    /// authenticating with `api_key` when given.
    pub fn new(
        model: ModelInfo,
        api_key: Option<ApiKey>,
        transport: Arc<dyn Transport>,
    ) -> HttpProvider {
        HttpProvider {
            model,
            api_key,
            transport,
            retry: RetryPolicy::default(),
            headers: Vec::new(),
            on_retry: None,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            stall_timeout: DEFAULT_STALL_TIMEOUT,
            compat: None,
        }
    }

    /// Replaces the retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> HttpProvider {
        self.retry = retry;
        self
    }

    /// Replaces the idle limit ([`DEFAULT_IDLE_TIMEOUT`]): no byte for this long
    /// ends the attempt as stalled (retried if nothing was shown yet).
    pub fn with_idle_timeout(mut self, idle: Duration) -> HttpProvider {
        self.idle_timeout = idle;
        self
    }

    /// Replaces the stall limit ([`DEFAULT_STALL_TIMEOUT`]): bytes but no model
    /// output for this long ends the attempt as stalled (retried if nothing was
    /// shown yet), however many keepalives arrive.
    pub fn with_stall_timeout(mut self, stall: Duration) -> HttpProvider {
        self.stall_timeout = stall;
        self
    }

    /// Uses these Chat Completions quirks instead of the table's row for the model
    /// (the registry passes models.json `compat` overrides this way).
    pub fn with_compat(mut self, compat: crate::compat::Compat) -> HttpProvider {
        self.compat = Some(compat);
        self
    }

    /// Reports each retry to `observer` (see [`RetryObserver`]).
    pub fn with_retry_observer(mut self, observer: RetryObserver) -> HttpProvider {
        self.on_retry = Some(observer);
        self
    }

    /// Adds headers sent with every request (from models.json `headers`).
    pub fn with_headers(mut self, headers: Vec<(String, String)>) -> HttpProvider {
        self.headers.extend(headers);
        self
    }

    /// The HTTP request for `request` (body built by the API's builder). `None` for
    /// an unknown API.
    pub fn http_request(&self, request: &ModelRequest<'_>) -> Option<HttpRequest> {
        let model = &self.model;
        let key = self
            .api_key
            .as_ref()
            .map(ApiKey::expose)
            .filter(|k| !k.is_empty());
        let mut headers: Vec<(String, String)> = vec![
            ("content-type".into(), "application/json".into()),
            ("accept".into(), "text/event-stream".into()),
        ];
        let (url, body) = match model.api.as_str() {
            crate::anthropic::API => {
                if let Some(k) = key {
                    headers.push(("x-api-key".into(), k.into()));
                }
                headers.extend(crate::anthropic::headers(model, request));
                (
                    crate::anthropic::url(&model.base_url),
                    crate::anthropic::build_request(model, request),
                )
            }
            crate::openai_completions::API | crate::openai_responses::API => {
                if let Some(k) = key {
                    headers.push(("authorization".into(), format!("Bearer {k}")));
                }
                if model.api == crate::openai_responses::API {
                    (
                        crate::openai_responses::url(&model.base_url),
                        crate::openai_responses::build_request(model, request),
                    )
                } else {
                    (
                        crate::openai_completions::url(&model.base_url),
                        crate::openai_completions::build_request_with(
                            model,
                            request,
                            self.compat
                                .unwrap_or_else(|| crate::compat::compat_for(model)),
                        ),
                    )
                }
            }
            crate::google::API => {
                if let Some(k) = key {
                    headers.push(("x-goog-api-key".into(), k.into()));
                }
                (
                    crate::google::url(&model.base_url, &model.id),
                    crate::google::build_request(model, request),
                )
            }
            _ => return None,
        };
        headers.extend(self.headers.iter().cloned());
        Some(HttpRequest {
            method: "POST".into(),
            url,
            headers,
            body: body.to_json_string().into_bytes(),
            connect_timeout: Some(Duration::from_secs(30)),
            total_timeout: None,
        })
    }

    /// Waits `delay`, waking early when `cancel` fires. Returns false if cancelled.
    fn sleep(delay: Duration, cancel: &CancelToken) -> bool {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let _registration = cancel.on_cancel(move || {
            let _ = tx.send(());
        });
        let _ = rx.recv_timeout(delay);
        !cancel.is_cancelled()
    }

    /// Removes the API key from text that came from a server or the transport (some
    /// servers echo the key they rejected).
    fn redact(&self, text: String) -> String {
        match self.api_key.as_ref().map(ApiKey::expose) {
            Some(key) if key.len() >= 4 && text.contains(key) => text.replace(key, "***"),
            _ => text,
        }
    }

    fn empty_message(&self) -> AssistantMessage {
        AssistantMessage {
            api: self.model.api.clone().into(),
            provider: self.model.provider.clone().into(),
            model: self.model.id.clone().into(),
            timestamp: focus_core::message::now_ms(),
            ..AssistantMessage::default()
        }
    }

    /// What one attempt needs from this provider ([`Attempt::run`]).
    fn attempt(&self) -> Attempt<'_> {
        Attempt {
            model: &self.model,
            api_key: self.api_key.as_ref().map(ApiKey::expose),
            transport: self.transport.as_ref(),
            idle_timeout: self.idle_timeout,
            stall_timeout: self.stall_timeout,
        }
    }

    /// A message an attempt finished: its usage estimated when the server
    /// gave none (from `request_bytes`, the request's size), its cost, the API
    /// key out of its error.
    fn finished(&self, mut message: AssistantMessage, request_bytes: usize) -> AssistantMessage {
        crate::usage_estimate::estimate_if_missing(&mut message, request_bytes);
        crate::registry::apply_cost(&mut message.usage, &self.model.price);
        message.error_message = message.error_message.map(|e| self.redact(e));
        message
    }

    /// The call fails with `message` (the API key taken out).
    fn failed(&self, message: String, sink: &mut StreamSink<'_>) -> AssistantMessage {
        let mut b =
            MessageBuilder::new(&self.model.api, &self.model.provider, &self.model.id, sink);
        b.set_error(self.redact(message));
        b.finish()
    }

    /// The call was cancelled.
    fn aborted(&self, sink: &mut StreamSink<'_>) -> AssistantMessage {
        MessageBuilder::new(&self.model.api, &self.model.provider, &self.model.id, sink).abort()
    }

    /// How long to wait before trying again after attempt number `attempt`
    /// failed with `failure`.
    ///
    /// # Errors
    ///
    /// No more attempts: the failure is not retryable, is a context overflow,
    /// was the last attempt allowed, or the server asks for a longer wait than
    /// the policy's `max_delay`; the message the call fails with.
    fn retry_delay(&self, failure: &Failure, attempt: u32) -> Result<Duration, String> {
        let overflow = is_context_overflow(
            &AssistantMessage {
                stop_reason: StopReason::Error,
                error_message: Some(failure.message.clone()),
                ..self.empty_message()
            },
            0,
        );
        if !failure.retryable || overflow || attempt >= self.retry.max_attempts {
            return Err(if attempt > 1 {
                format!("{} (after {attempt} attempts)", failure.message)
            } else {
                failure.message.clone()
            });
        }
        match failure.retry_after {
            Some(asked) if asked > self.retry.max_delay => Err(format!(
                "{} (the server asks to retry after {}s, longer than the {}s limit)",
                failure.message,
                asked.as_secs(),
                self.retry.max_delay.as_secs()
            )),
            Some(asked) => Ok(asked),
            None => Ok(self.retry.backoff(attempt)),
        }
    }

    /// Tells the retry observer and the sink (so the loop reports it, as pi's
    /// `auto_retry_start`) that attempt `next` comes after `delay`, and why.
    fn announce_retry(&self, next: u32, delay: Duration, why: &str, sink: &mut StreamSink<'_>) {
        let why = self.redact(why.to_string());
        if let Some(observer) = &self.on_retry {
            observer(next, delay, &why);
        }
        let retry = StreamEvent::Retry {
            attempt: next,
            max_attempts: self.retry.max_attempts,
            delay_ms: delay.as_millis().min(u64::MAX as u128) as u64,
            error: why,
        };
        sink(&retry, &self.empty_message());
    }
}

impl Provider for HttpProvider {
    fn model(&self) -> &ModelInfo {
        &self.model
    }

    fn stream(&self, request: &ModelRequest<'_>, sink: &mut StreamSink<'_>) -> AssistantMessage {
        let cancel = request.cancel;
        let Some(http) = self.http_request(request) else {
            let message = format!(
                "unknown API {:?} for model {} (expected one of {})",
                self.model.api,
                self.model.id,
                crate::decode::APIS.join(", ")
            );
            return self.failed(message, sink);
        };
        let mut attempt = 1;
        loop {
            if cancel.is_cancelled() {
                return self.aborted(sink);
            }
            let mut decoder = decoder_for(&self.model.api).expect("api checked above");
            let failure = match self.attempt().run(&http, cancel, sink, decoder.as_mut()) {
                Ok(message) => return self.finished(message, http.body.len()),
                Err(f) => f,
            };
            if cancel.is_cancelled() {
                return self.aborted(sink);
            }
            let delay = match self.retry_delay(&failure, attempt) {
                Ok(delay) => delay,
                Err(message) => return self.failed(message, sink),
            };
            self.announce_retry(attempt + 1, delay, &failure.message, sink);
            if !Self::sleep(delay, cancel) {
                return self.aborted(sink);
            }
            attempt += 1;
        }
    }
}

/// Whether a failed HTTP status is worth another attempt, given the error text
/// the server sent with it ([`error_text`]).
///
/// - 408 (request timeout), 429 (rate limit) and 529 (Anthropic overloaded):
///   yes, the same request can succeed later.
/// - 500, 502, 503, 504: yes, unless the server says the request itself is
///   invalid (llama-cpp-python answers a request its validator rejects with 500:
///   "Input should be a valid string"); sending it again gives the same answer.
/// - Any status whose message says "overloaded": yes.
/// - Everything else, including 400, 401, 403, 404, 413, 422, 501 and 505: no; the
///   request, the key or the URL must change first.
pub fn retryable_status(status: u16, message: &str) -> bool {
    let overloaded = message.to_ascii_lowercase().contains("overloaded");
    match status {
        408 | 429 | 529 => true,
        500 | 502 | 503 | 504 => overloaded || !says_request_is_invalid(message),
        _ => overloaded,
    }
}

/// Whether an error message says the request was malformed (a validation error)
/// rather than that the server had trouble.
fn says_request_is_invalid(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    [
        "validation error",
        "input should be",
        "field required",
        "extra inputs are not permitted",
        "invalid_request_error",
        "invalid request",
    ]
    .iter()
    .any(|phrase| lower.contains(phrase))
}

/// The most characters of a server's complaint shown in an error.
pub const MAX_ERROR_CHARS: usize = 500;

/// A server's text made fit to show: control characters (terminal escapes
/// included) and runs of whitespace become one space, and the whole is cut at
/// [`MAX_ERROR_CHARS`] characters with `…`.
pub fn sanitize_server_text(text: &str) -> String {
    let mut shown = String::new();
    let mut count = 0;
    let mut pending_space = false;
    for c in text.trim().chars() {
        if c.is_control() || c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if count >= MAX_ERROR_CHARS {
            shown.push('…');
            return shown;
        }
        if pending_space && !shown.is_empty() {
            shown.push(' ');
            count += 1;
        }
        pending_space = false;
        shown.push(c);
        count += 1;
    }
    shown
}

/// What an HTML error page says: its `<title>`, or nothing. Proxies and web
/// servers answer with pages whose markup means nothing in a terminal.
fn html_title(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let trimmed = lower.trim_start();
    if !(trimmed.starts_with("<!doctype html") || trimmed.starts_with("<html")) {
        return None;
    }
    let start = lower.find("<title>")? + "<title>".len();
    let end = start + lower[start..].find("</title>")?;
    Some(format!(
        "an HTML page titled {:?}",
        text.get(start..end)?.trim()
    ))
}

/// The message for a non-2xx response: `HTTP 400: <the provider's message>`,
/// reading the shapes each provider uses (`{"error":{"message"}}`, Anthropic's
/// `{"type":"error","error":{…}}`, Gemini's `[{"error":…}]`, FastAPI's
/// `{"detail": …}`), else the raw body; sanitized and shortened either way
/// ([`sanitize_server_text`]).
pub fn error_text(status: u16, body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let parsed = parse_str(text.trim()).ok();
    let error = parsed.as_ref().map(|v| match v {
        Value::Array(items) => items
            .first()
            .map(|i| i["error"].clone())
            .unwrap_or(Value::Null),
        other => other["error"].clone(),
    });
    let message = match &error {
        Some(Value::String(s)) => Some(s.clone()),
        Some(e) => {
            e["message"]
                .as_str()
                .map(|m| match e["type"].as_str().or(e["status"].as_str()) {
                    Some(kind) => format!("{kind}: {m}"),
                    None => m.to_string(),
                })
        }
        None => None,
    };
    let detail = || match &parsed.as_ref()?["detail"] {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_json_string()),
    };
    let message = message
        .or_else(detail)
        .or_else(|| html_title(&text))
        .unwrap_or_else(|| text.to_string());
    let message = sanitize_server_text(&message);
    if message.is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status}: {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_of_each_provider_read_well() {
        let cases = [
            (
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too big"}}"#,
                "HTTP 400: invalid_request_error: max_tokens: too big",
            ),
            (
                r#"{"error":{"message":"Invalid API key","type":"invalid_request_error","code":"invalid_api_key"}}"#,
                "HTTP 400: invalid_request_error: Invalid API key",
            ),
            (
                r#"[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]"#,
                "HTTP 400: INVALID_ARGUMENT: API key not valid.",
            ),
            (
                r#"{"error":"model not found"}"#,
                "HTTP 400: model not found",
            ),
            (
                "<html>Bad Gateway</html>",
                "HTTP 400: <html>Bad Gateway</html>",
            ),
            ("", "HTTP 400"),
        ];
        for (body, want) in cases {
            assert_eq!(error_text(400, body.as_bytes()), want);
        }
        let long = "x".repeat(2000);
        let shown = error_text(502, long.as_bytes());
        assert!(shown.len() < 520 && shown.ends_with('…'), "{shown}");
    }

    #[test]
    fn statuses_are_retried_when_the_same_request_can_succeed_later() {
        let busy = "HTTP 503: the server is busy";
        for status in [408, 429, 500, 502, 503, 504, 529] {
            assert!(retryable_status(status, busy), "{status}");
        }
        for status in [400, 401, 403, 404, 405, 413, 422, 501, 505] {
            assert!(!retryable_status(status, busy), "{status}");
        }
        // llama-cpp-python's answer to `"content": null`, as error_text reads it.
        let invalid = error_text(
            500,
            br#"{"error":{"message":"1 validation error for ChatCompletionRequestAssistantMessage\ncontent\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]","type":"internal_server_error","param":null,"code":null}}"#,
        );
        assert!(
            invalid.contains("content Input should be a valid string"),
            "{invalid}"
        );
        assert!(!retryable_status(500, &invalid));
        assert!(
            retryable_status(429, &invalid),
            "a rate limit stays retried"
        );
        assert!(retryable_status(
            400,
            "HTTP 400: overloaded_error: Overloaded"
        ));
    }

    #[test]
    fn a_servers_complaint_is_sanitized_and_capped() {
        let shown = error_text(
            422,
            br#"{"detail":[{"loc":["body","messages"],"msg":"Field required"}]}"#,
        );
        assert!(
            shown.starts_with("HTTP 422: [{") && shown.contains("Field required"),
            "{shown}"
        );
        let escape = error_text(
            400,
            b"{\"error\":{\"message\":\"bad\\u001b[2J\\n\\nthing\"}}",
        );
        assert_eq!(escape, "HTTP 400: bad [2J thing");
        let page = error_text(
            404,
            b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>",
        );
        assert_eq!(page, "HTTP 404: an HTML page titled \"404 Not Found\"");
        let long = format!(r#"{{"error":{{"message":"{}"}}}}"#, "y".repeat(5000));
        let shown = error_text(400, long.as_bytes());
        assert_eq!(
            shown.chars().count(),
            "HTTP 400: ".len() + MAX_ERROR_CHARS + 1
        );
        assert!(shown.ends_with('…'));
    }

    #[test]
    fn backoff_grows_and_stays_bounded() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
        };
        let first = policy.backoff(1);
        assert!(first >= Duration::from_millis(100) && first < Duration::from_millis(150));
        let third = policy.backoff(3);
        assert!(third >= Duration::from_millis(400) && third < Duration::from_millis(600));
        assert_eq!(policy.backoff(9), Duration::from_millis(1000));
    }

    #[test]
    fn a_huge_base_delay_saturates_instead_of_overflowing() {
        let policy = RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::MAX,
            max_delay: Duration::from_secs(60),
        };
        assert_eq!(policy.backoff(5), Duration::from_secs(60));
    }
}
