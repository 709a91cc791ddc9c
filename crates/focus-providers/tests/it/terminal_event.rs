//! The stream's terminal event ends the answer: what a server sends after
//! `[DONE]`, `message_stop` or `response.completed` is not appended, and a server
//! that keeps the connection open after it does not hold focus.

use crate::support::ask::ask;
use focus_core::cancel::CancelToken;
use focus_core::message::StopReason;
use focus_core::provider::ModelInfo;
use focus_providers::curl::CurlTransport;
use focus_providers::{ApiKey, HttpProvider};
use focus_testkit::server::{Gate, ScriptedResponse, TestServer};
use focus_transport::replay::{ReplayResponse, ReplayTransport};
use std::sync::Arc;
use std::time::Duration;

/// One answer "Hello" per API, ending in its terminal event.
const ANTHROPIC: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n\
event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
const ANTHROPIC_AFTER: &str = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\" INJECTED\"}}\n\n";

const CHAT: &str =
    "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n\
data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
data: [DONE]\n\n";
const CHAT_AFTER: &str =
    "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" INJECTED\"}}]}\n\n";

const RESPONSES: &str = "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"msg\"}}\n\n\
event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"Hello\"}\n\n\
event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"msg\"}}\n\n\
event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"status\":\"completed\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n";
const RESPONSES_AFTER: &str = "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"type\":\"message\",\"id\":\"msg2\"}}\n\n\
event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":1,\"delta\":\" INJECTED\"}\n\n";

fn model(api: &str, base_url: &str) -> ModelInfo {
    ModelInfo {
        id: "m".into(),
        name: "m".into(),
        api: api.into(),
        provider: "p".into(),
        base_url: base_url.into(),
        context_window: 1000,
        max_tokens: 100,
        ..ModelInfo::default()
    }
}

/// `provider`'s whole answer to "hi".
fn whole_answer(provider: &HttpProvider) -> focus_core::message::AssistantMessage {
    ask(provider, "", "hi", &CancelToken::new(), &mut |_, _| {})
}

const CASES: [(&str, &str, &str); 3] = [
    ("anthropic-messages", ANTHROPIC, ANTHROPIC_AFTER),
    ("openai-completions", CHAT, CHAT_AFTER),
    ("openai-responses", RESPONSES, RESPONSES_AFTER),
];

#[test]
fn data_after_the_terminal_event_is_not_part_of_the_answer() {
    for (api, answer, after) in CASES {
        let body = format!("{answer}{after}");
        let transport = Arc::new(ReplayTransport::new(vec![ReplayResponse::sse(
            body.into_bytes(),
        )]));
        let provider = HttpProvider::new(model(api, "http://x"), Some(ApiKey::new("k")), transport);
        let message = whole_answer(&provider);
        assert_eq!(message.stop_reason, StopReason::Stop, "{api}: {message:?}");
        assert_eq!(message.text(), "Hello", "{api}");
        assert_eq!(message.content.len(), 1, "{api}");
    }
}

#[test]
fn a_server_that_keeps_the_connection_open_after_the_end_does_not_hold_focus() {
    if CurlTransport::new().check().is_err() {
        focus_testkit::skipped("curl is not available");
        return;
    }
    for (api, answer, after) in CASES {
        // The gate never opens: the server holds the connection after the answer.
        let gate = Gate::new();
        let response = ScriptedResponse::new(200)
            .header("content-type", "text/event-stream")
            .chunk(answer)
            .chunk_after_gate(&gate, after);
        let server = TestServer::queue(vec![response]);
        // Without the fix the read would wait for this idle timeout and then fail.
        let provider = HttpProvider::new(
            model(api, &server.url()),
            Some(ApiKey::new("k")),
            Arc::new(CurlTransport::new()),
        )
        .with_idle_timeout(Duration::from_secs(600));
        let message = whole_answer(&provider);
        assert_eq!(message.stop_reason, StopReason::Stop, "{api}: {message:?}");
        assert_eq!(message.text(), "Hello", "{api}");
        gate.open();
    }
}
