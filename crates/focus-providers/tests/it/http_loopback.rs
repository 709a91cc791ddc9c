//! The full path for each API: registry model → `HttpProvider` → `CurlTransport`
//! (a real `curl` process) → the loopback test server, which first answers 429 and
//! then streams a recorded response in small chunks. Checks the request that
//! reached the server (path, auth header, body) and the decoded message.

use crate::support::ask::ask;
use focus_core::cancel::CancelToken;
use focus_core::json::parse;
use focus_core::message::{AssistantMessage, Message, StopReason, UserMessage};
use focus_core::provider::{
    ModelInfo, ModelRequest, Provider, RequestOptions, StreamEvent, ToolSpec,
};
use focus_providers::curl::CurlTransport;
use focus_providers::registry::Registry;
use focus_providers::{ApiKey, HttpProvider, RetryPolicy};
use focus_testkit::server::{ScriptedResponse, TestServer};
use std::sync::Arc;
use std::time::Duration;

struct Case {
    spec: &'static str,
    stream: &'static str,
    base_suffix: &'static str,
    path: &'static str,
    auth_header: &'static str,
    auth_value: &'static str,
}

const CASES: [Case; 4] = [
    Case {
        spec: "anthropic/claude-sonnet-4-5",
        stream: "anthropic/text_then_tool_use_split_json",
        base_suffix: "",
        path: "/v1/messages",
        auth_header: "x-api-key",
        auth_value: "test-key-123",
    },
    Case {
        spec: "deepseek/deepseek-reasoner",
        stream: "openai-compat/deepseek_reasoning_content",
        base_suffix: "/v1",
        path: "/v1/chat/completions",
        auth_header: "authorization",
        auth_value: "Bearer test-key-123",
    },
    Case {
        spec: "openai/gpt-5",
        stream: "openai-responses/reasoning_message_and_function_call",
        base_suffix: "/v1",
        path: "/v1/responses",
        auth_header: "authorization",
        auth_value: "Bearer test-key-123",
    },
    Case {
        spec: "google/gemini-2.5-flash",
        stream: "gemini/thought_parts_then_text",
        base_suffix: "/v1beta",
        path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        auth_header: "x-goog-api-key",
        auth_value: "test-key-123",
    },
];

#[test]
fn every_api_streams_through_curl_from_the_loopback_server() {
    let Some(dir) = focus_testkit::conformance_dir("providers") else {
        return;
    };
    if CurlTransport::new().check().is_err() {
        focus_testkit::skipped("curl is not available");
        return;
    }
    let registry = Registry::builtin();
    for case in CASES {
        let body = std::fs::read(dir.join(format!("{}.sse", case.stream))).unwrap();
        let expect =
            parse(&std::fs::read(dir.join(format!("{}.expect.json", case.stream))).unwrap())
                .unwrap();
        let mut ok = ScriptedResponse::new(200).header("content-type", "text/event-stream");
        for piece in body.chunks(97) {
            ok = ok.chunk(piece);
        }
        let server = TestServer::queue(vec![ScriptedResponse::too_many_requests(0), ok]);

        let mut model = registry.find(case.spec).unwrap().clone();
        // Point the model at the loopback server, keeping its path layout.
        model.base_url = format!("{}{}", server.url(), case.base_suffix);
        let provider = HttpProvider::new(
            model.clone(),
            Some(ApiKey::new("test-key-123")),
            Arc::new(CurlTransport::new()),
        )
        .with_retry(RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(2),
        });

        let messages = vec![Message::User(UserMessage::text("hello", 0))];
        let tools = vec![ToolSpec {
            name: "get_weather".into(),
            description: "Weather for a city.".into(),
            parameters: focus_core::json_object! {"type" => "object", "properties" => focus_core::json_object! {}},
        }];
        let options = RequestOptions::default();
        let request = ModelRequest {
            system_prompt: "sys",
            messages: &messages,
            tools: &tools,
            options: &options,
            cancel: &CancelToken::new(),
        };
        let mut deltas = 0;
        let mut sink = |e: &StreamEvent, _: &AssistantMessage| {
            if matches!(
                e,
                StreamEvent::TextDelta { .. } | StreamEvent::ThinkingDelta { .. }
            ) {
                deltas += 1;
            }
        };
        let message = provider.stream(&request, &mut sink);

        assert_ne!(
            message.stop_reason,
            StopReason::Error,
            "{}: {:?}",
            case.spec,
            message.error_message
        );
        let want_text = expect["text"]
            .as_str()
            .or(expect["choices"][0]["text"].as_str())
            .unwrap();
        assert_eq!(message.text(), want_text, "{}", case.spec);
        assert!(deltas > 0, "{}: streamed progressively", case.spec);
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{}: one retry after the 429", case.spec);
        let sent = &requests[1];
        assert_eq!(sent.method, "POST");
        assert_eq!(sent.path, case.path, "{}", case.spec);
        assert_eq!(
            sent.header(case.auth_header),
            Some(case.auth_value),
            "{}",
            case.spec
        );
        let json = sent.body_json().expect("JSON body");
        let model_field = json["model"].as_str();
        assert!(
            model_field == Some(model.id.as_str()) || model.api == "google-generative-ai",
            "{}",
            case.spec
        );
        assert!(sent.body_text().contains("hello"));
    }
}

/// The start of an Anthropic answer, up to its first words, "Half an".
const HALF_AN_ANSWER: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":4}}}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Half an\"}}\n\n";

/// The built-in Anthropic model, its base URL pointed at `server`.
fn anthropic_at(server: &TestServer) -> ModelInfo {
    let mut model = Registry::builtin()
        .find("anthropic/claude-sonnet-4-5")
        .unwrap()
        .clone();
    model.base_url = server.url();
    model
}

/// Cancelling while curl waits for the rest of the body: the stream ends at once
/// with `aborted`, keeping the text that already arrived; nothing is retried.
#[test]
fn cancel_mid_stream_through_curl_keeps_the_partial_answer() {
    if CurlTransport::new().check().is_err() {
        focus_testkit::skipped("curl is not available");
        return;
    }
    use focus_testkit::server::Gate;
    let never = Gate::new();
    let server = TestServer::queue(vec![ScriptedResponse::new(200)
        .header("content-type", "text/event-stream")
        .chunked()
        .chunk(HALF_AN_ANSWER)
        .chunk_after_gate(
            &never,
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        )]);
    let provider = HttpProvider::new(anthropic_at(&server), None, Arc::new(CurlTransport::new()));
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    let mut sink = |e: &StreamEvent, _: &AssistantMessage| {
        if matches!(e, StreamEvent::TextDelta { .. }) {
            // Cancel from another thread, as the UI would, while curl blocks.
            let t = trigger.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                t.cancel();
            });
        }
    };
    let started = std::time::Instant::now();
    let message = ask(&provider, "", "hello", &cancel, &mut sink);
    never.open(); // let the server thread finish
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(message.text(), "Half an");
    assert_eq!(message.usage.input, 4);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "cancel reached the blocked read"
    );
    assert_eq!(server.requests().len(), 1);
}

/// A server that goes silent: the idle watchdog ends the attempt. Silent before
/// anything was shown → retried; silent mid-answer → an error keeping the text.
#[test]
fn a_silent_server_is_detected_as_stalled() {
    if CurlTransport::new().check().is_err() {
        focus_testkit::skipped("curl is not available");
        return;
    }
    use focus_testkit::server::Gate;
    let never = Gate::new();
    let server = TestServer::queue(vec![
        // 1: the head never comes.
        ScriptedResponse::new(200).head_after_gate(&never),
        // 2: part of an answer, then silence.
        ScriptedResponse::new(200)
            .header("content-type", "text/event-stream")
            .chunked()
            .chunk(HALF_AN_ANSWER)
            .chunk_after_gate(&never, "event: message_stop\ndata: {}\n\n"),
    ]);
    let provider = HttpProvider::new(anthropic_at(&server), None, Arc::new(CurlTransport::new()))
        .with_idle_timeout(Duration::from_millis(400))
        .with_retry(RetryPolicy {
            max_attempts: 2,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(1),
        });
    let started = std::time::Instant::now();
    let message = ask(&provider, "", "hello", &CancelToken::new(), &mut |_, _| {});
    never.open();
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), "Half an");
    let error = message.error_message.unwrap();
    assert!(error.contains("stalled"), "{error}");
    assert_eq!(server.requests().len(), 2, "the silent head was retried");
    assert!(started.elapsed() < Duration::from_secs(8));
}

/// A server (or a proxy) that keeps the stream alive with keepalives (a bare
/// newline, an SSE comment, Anthropic's `ping` event) every 150 ms but never
/// sends model output: the stall limit ends each attempt, and the stall is
/// retried like any transient failure. (The idle limit alone would wait forever.)
#[test]
fn keepalives_without_model_output_are_a_stall_and_retried() {
    if CurlTransport::new().check().is_err() {
        focus_testkit::skipped("curl is not available");
        return;
    }
    let keepalives = [
        "\n",
        ": keepalive\n\n",
        "event: ping\ndata: {\"type\":\"ping\"}\n\n",
    ];
    let mut response = ScriptedResponse::new(200)
        .header("content-type", "text/event-stream")
        .chunked()
        .chunk("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":4}}}\n\n");
    for i in 0..200 {
        response = response.chunk_after(Duration::from_millis(150), keepalives[i % 3]);
    }
    let server = TestServer::repeating(response);
    let provider = HttpProvider::new(anthropic_at(&server), None, Arc::new(CurlTransport::new()))
        .with_stall_timeout(Duration::from_millis(700))
        .with_retry(RetryPolicy {
            max_attempts: 2,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(1),
        });
    let started = std::time::Instant::now();
    let message = ask(&provider, "", "hello", &CancelToken::new(), &mut |_, _| {});
    assert_eq!(message.stop_reason, StopReason::Error);
    let error = message.error_message.unwrap();
    assert!(
        error.contains("no model output") && error.contains("stalled"),
        "{error}"
    );
    assert!(error.contains("after 2 attempts"), "{error}");
    assert_eq!(server.requests().len(), 2, "the stall was retried");
    assert!(started.elapsed() < Duration::from_secs(10));
}
