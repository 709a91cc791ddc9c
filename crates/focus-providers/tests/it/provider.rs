//! `HttpProvider` over a scripted transport: retries (only before the first event,
//! with Retry-After honoured and bounded), errors reported with the provider's
//! message, cancellation during backoff and mid-stream, and keys kept out of sight.

use crate::support::ask::ask;
use focus_core::cancel::CancelToken;
use focus_core::message::{AssistantMessage, StopReason};
use focus_core::provider::{ModelInfo, StreamEvent, StreamSink};
use focus_providers::{is_context_overflow, ApiKey, HttpProvider, RetryPolicy};
use focus_transport::replay::{ReplayResponse, ReplayTransport};
use focus_transport::TransportError;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ANTHROPIC_OK: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n\
event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":7}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

fn model() -> ModelInfo {
    ModelInfo {
        id: "claude-test".into(),
        name: "Claude Test".into(),
        api: "anthropic-messages".into(),
        provider: "anthropic".into(),
        base_url: "https://api.anthropic.example".into(),
        context_window: 200_000,
        context_window_assumed: false,
        max_tokens: 8192,
        reasoning: false,
        accepts_images: true,
        price: focus_core::provider::Price {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        },
    }
}

fn fast() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 4,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_secs(5),
    }
}

struct Run {
    message: AssistantMessage,
    events: Vec<StreamEvent>,
    transport: Arc<ReplayTransport>,
}

fn run_with(responses: Vec<ReplayResponse>, retry: RetryPolicy, cancel: &CancelToken) -> Run {
    let transport = Arc::new(ReplayTransport::new(responses));
    let provider = HttpProvider::new(
        model(),
        Some(ApiKey::new("sk-test-secret")),
        transport.clone(),
    )
    .with_retry(retry);
    let mut events = Vec::new();
    let mut priced_done = true;
    let mut sink = |e: &StreamEvent, m: &AssistantMessage| {
        if matches!(e, StreamEvent::Done { .. }) && m.usage.output > 0 {
            priced_done = m.usage.cost.total > 0.0;
        }
        events.push(e.clone());
    };
    let message = ask(&provider, "be brief", "hi", cancel, &mut sink);
    assert!(
        priced_done,
        "the partial message with Done carries its cost"
    );
    let terminal = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Done { .. } | StreamEvent::Error { .. }))
        .count();
    assert_eq!(terminal, 1, "exactly one terminal event: {events:?}");
    Run {
        message,
        events,
        transport,
    }
}

fn run(responses: Vec<ReplayResponse>) -> Run {
    run_with(responses, fast(), &CancelToken::new())
}

/// Asks `provider` one "hi" with no system prompt and no tools.
fn ask_hi(
    provider: &HttpProvider,
    cancel: &CancelToken,
    sink: &mut StreamSink<'_>,
) -> AssistantMessage {
    ask(provider, "", "hi", cancel, sink)
}

fn ok() -> ReplayResponse {
    ReplayResponse::sse(ANTHROPIC_OK.as_bytes().to_vec()).split_every(17)
}

fn status(code: u16, body: &str) -> ReplayResponse {
    ReplayResponse::new(code).body(body.as_bytes().to_vec())
}

#[test]
fn a_good_stream_decodes_and_the_request_carries_key_and_version() {
    let r = run(vec![ok()]);
    assert_eq!(r.message.stop_reason, StopReason::Stop);
    assert_eq!(r.message.text(), "Hello");
    assert_eq!((r.message.usage.input, r.message.usage.output), (5, 7));
    assert!((r.message.usage.cost.total - (5.0 * 3.0 + 7.0 * 15.0) / 1e6).abs() < 1e-12);
    assert_eq!(r.message.response_id.as_deref(), Some("msg_1"));
    let sent = &r.transport.requests()[0];
    assert_eq!(sent.url, "https://api.anthropic.example/v1/messages");
    let header = |n: &str| {
        sent.headers
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("x-api-key"), Some("sk-test-secret"));
    assert_eq!(header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.events[0], StreamEvent::Start);
}

#[test]
fn overloaded_and_5xx_are_retried_before_the_first_event() {
    let r = run(vec![
        status(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
        ReplayResponse::failure(TransportError::Connect("refused".into())),
        status(503, "busy"),
        ok(),
    ]);
    assert_eq!(
        r.message.stop_reason,
        StopReason::Stop,
        "{:?}",
        r.message.error_message
    );
    assert_eq!(r.transport.requests().len(), 4);
    // Nothing from the failed attempts reached the sink.
    assert_eq!(
        r.events
            .iter()
            .filter(|e| **e == StreamEvent::Start)
            .count(),
        1
    );
}

#[test]
fn retries_are_reported_to_the_observer() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let transport = Arc::new(ReplayTransport::new(vec![status(503, "busy"), ok()]));
    let provider = HttpProvider::new(model(), None, transport)
        .with_retry(fast())
        .with_retry_observer(Arc::new(move |attempt, _delay, why: &str| {
            log.lock().unwrap().push((attempt, why.to_string()));
        }));
    let m = ask_hi(&provider, &CancelToken::new(), &mut |_, _| {});
    assert_eq!(m.text(), "Hello");
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(2, "HTTP 503: busy".to_string())]
    );
}

#[test]
fn in_band_overload_before_content_is_retried() {
    let overloaded = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n\
event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let r = run(vec![
        ReplayResponse::sse(overloaded.as_bytes().to_vec()),
        ok(),
    ]);
    assert_eq!(r.message.text(), "Hello");
    assert_eq!(r.transport.requests().len(), 2);
}

#[test]
fn attempts_are_bounded() {
    let r = run(vec![status(500, "oops"); 6]);
    assert_eq!(r.message.stop_reason, StopReason::Error);
    assert_eq!(r.transport.requests().len(), 4);
    let msg = r.message.error_message.unwrap();
    assert!(
        msg.contains("HTTP 500: oops") && msg.contains("after 4 attempts"),
        "{msg}"
    );
}

#[test]
fn client_errors_are_not_retried_and_carry_the_providers_message() {
    for code in [400, 401, 403] {
        let r = run(vec![
            status(
                code,
                r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            ),
            ok(),
        ]);
        assert_eq!(r.transport.requests().len(), 1, "{code}");
        assert_eq!(
            r.message.error_message.as_deref(),
            Some(format!("HTTP {code}: authentication_error: invalid x-api-key").as_str())
        );
        assert!(!r.message.error_message.unwrap().contains("sk-test-secret"));
    }
}

#[test]
fn context_overflow_is_reported_not_retried() {
    let r = run(vec![
        status(
            413,
            r#"{"type":"error","error":{"type":"request_too_large","message":"prompt is too long: 250000 tokens > 200000 maximum"}}"#,
        ),
        ok(),
    ]);
    assert_eq!(r.transport.requests().len(), 1);
    assert!(is_context_overflow(&r.message, 200_000));
    let r = run(vec![
        status(
            500,
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#,
        ),
        ok(),
    ]);
    assert_eq!(
        r.transport.requests().len(),
        1,
        "overflow wins over a retryable status"
    );
}

#[test]
fn no_retry_once_something_was_shown() {
    let mut cut = ok();
    cut.chunks = vec![ANTHROPIC_OK.as_bytes()
        [..ANTHROPIC_OK.find("event: content_block_stop").unwrap()]
        .to_vec()];
    cut.body_error = Some(TransportError::StreamCut("connection reset".into()));
    let r = run(vec![cut, ok()]);
    assert_eq!(r.transport.requests().len(), 1);
    assert_eq!(r.message.stop_reason, StopReason::Error);
    assert_eq!(r.message.text(), "Hello", "what arrived is kept");
    assert!(r
        .message
        .error_message
        .unwrap()
        .contains("connection reset"));
}

#[test]
fn retry_after_is_honoured_and_bounded() {
    let started = Instant::now();
    let r = run(vec![
        status(429, "slow down").header("retry-after", "0.3"),
        ok(),
    ]);
    assert_eq!(r.message.stop_reason, StopReason::Stop);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "waited as asked"
    );

    let started = Instant::now();
    let r = run(vec![
        status(429, "slow down").header("retry-after", "3600"),
        ok(),
    ]);
    assert_eq!(r.transport.requests().len(), 1);
    assert!(started.elapsed() < Duration::from_secs(30));
    let msg = r.message.error_message.unwrap();
    assert!(msg.contains("retry after 3600s"), "{msg}");
}

#[test]
fn cancel_during_backoff_wakes_at_once() {
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        trigger.cancel();
    });
    let started = Instant::now();
    let policy = RetryPolicy {
        max_delay: Duration::from_secs(60),
        ..fast()
    };
    let r = run_with(
        vec![status(503, "busy").header("retry-after", "30"), ok()],
        policy,
        &cancel,
    );
    canceller.join().unwrap();
    assert_eq!(r.message.stop_reason, StopReason::Aborted);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "did not sleep out the 30 s"
    );
    assert_eq!(r.transport.requests().len(), 1);
    assert!(matches!(
        r.events.last(),
        Some(StreamEvent::Error {
            reason: StopReason::Aborted
        })
    ));
}

#[test]
fn cancel_mid_stream_keeps_what_arrived() {
    let transport = Arc::new(ReplayTransport::new(vec![ok()]));
    let provider = HttpProvider::new(model(), None, transport.clone()).with_retry(fast());
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    let mut sink = |e: &StreamEvent, _: &AssistantMessage| {
        if matches!(e, StreamEvent::TextDelta { .. }) {
            trigger.cancel();
        }
    };
    let m = ask_hi(&provider, &cancel, &mut sink);
    assert_eq!(m.stop_reason, StopReason::Aborted);
    assert_eq!(m.text(), "Hello");
    assert_eq!(transport.requests().len(), 1);
    let sent = &transport.requests()[0];
    assert!(
        sent.headers.iter().all(|(k, _)| k != "x-api-key"),
        "no key, no header"
    );
}

#[test]
fn debug_output_never_shows_the_key() {
    let provider = HttpProvider::new(
        model(),
        Some(ApiKey::new("sk-test-secret")),
        Arc::new(ReplayTransport::new(vec![])),
    );
    let shown = format!("{provider:?}");
    assert!(
        shown.contains("claude-test") && !shown.contains("sk-test-secret"),
        "{shown}"
    );
}

#[test]
fn a_200_that_is_not_an_event_stream_is_reported_with_its_text() {
    let r = run(vec![ReplayResponse::new(200).body(
        br#"{"error":{"message":"model 'llama9' not found"}}"#.to_vec(),
    )]);
    assert_eq!(r.message.stop_reason, StopReason::Error);
    let msg = r.message.error_message.unwrap();
    assert!(
        msg.contains("did not send an event stream") && msg.contains("model 'llama9' not found"),
        "{msg}"
    );
}

#[test]
fn a_key_echoed_by_the_server_is_redacted() {
    let r = run(vec![status(
        401,
        r#"{"error":{"message":"Incorrect API key provided: sk-test-secret"}}"#,
    )]);
    let msg = r.message.error_message.unwrap();
    assert!(
        !msg.contains("sk-test-secret") && msg.contains("provided: ***"),
        "{msg}"
    );
}

#[test]
fn a_key_echoed_inside_the_stream_is_masked_in_every_event() {
    let body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{}}}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n\
event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"key sk-test-secret revoked\"}}\n\n";
    let transport = Arc::new(ReplayTransport::new(vec![ReplayResponse::sse(
        body.as_bytes().to_vec(),
    )]));
    let provider = HttpProvider::new(model(), Some(ApiKey::new("sk-test-secret")), transport);
    let mut leaked = false;
    let mut sink = |_: &StreamEvent, m: &AssistantMessage| {
        leaked |= m
            .error_message
            .as_deref()
            .is_some_and(|e| e.contains("sk-test-secret"));
    };
    let m = ask_hi(&provider, &CancelToken::new(), &mut sink);
    assert!(!leaked);
    assert_eq!(
        m.error_message.as_deref(),
        Some("authentication_error: key *** revoked")
    );
}

/// A transport whose body is `prefix` and then the byte `x` forever.
struct EndlessLine(&'static str);

impl focus_transport::Transport for EndlessLine {
    fn send(
        &self,
        _: &focus_transport::HttpRequest,
        _: &CancelToken,
    ) -> Result<focus_transport::HttpResponse, TransportError> {
        use std::io::Read;
        Ok(focus_transport::HttpResponse {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: Box::new(self.0.as_bytes().chain(std::io::repeat(b'x'))),
        })
    }
}

#[test]
fn an_endless_line_is_an_error_not_a_memory_exhaustion() {
    for prefix in [
        "data: ",
        ANTHROPIC_OK
            .split("event: content_block_stop")
            .next()
            .unwrap(),
    ] {
        let provider =
            HttpProvider::new(model(), None, Arc::new(EndlessLine(prefix))).with_retry(fast());
        let m = ask_hi(&provider, &CancelToken::new(), &mut |_, _| {});
        assert_eq!(m.stop_reason, StopReason::Error);
        let error = m.error_message.unwrap_or_default();
        assert!(error.contains("MiB without completing an event"), "{error}");
    }
}
