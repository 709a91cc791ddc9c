//! A server that streams an answer and no usage (older llama.cpp, a proxy that
//! drops the last chunk): the message carries an estimate, marked as one, through
//! the real curl path, and its JSON says so.

use focus_core::cancel::CancelToken;
use focus_core::json::ToJson;
use focus_core::message::{AssistantMessage, Message, StopReason, UserMessage};
use focus_core::provider::{ModelRequest, Provider, RequestOptions, StreamEvent};
use focus_providers::curl::CurlTransport;
use focus_providers::registry::Registry;
use focus_providers::HttpProvider;
use focus_testkit::server::{ScriptedResponse, TestServer};
use std::sync::Arc;

#[test]
fn an_answer_without_usage_gets_an_estimate_marked_as_one() {
    if CurlTransport::new().check().is_err() {
        focus_testkit::skipped("curl is not available");
        return;
    }
    let chunk = |delta: &str, finish: &str| {
        format!(
            "data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
        )
    };
    let body = chunk(
        r#"{"role":"assistant","content":"An answer of forty characters, or so..."}"#,
        "null",
    ) + &chunk("{}", "\"stop\"")
        + "data: [DONE]\n\n";
    let server = TestServer::queue(vec![ScriptedResponse::new(200)
        .header("content-type", "text/event-stream")
        .body(&body)]);
    let mut model = Registry::builtin()
        .find("deepseek/deepseek-chat")
        .unwrap()
        .clone();
    model.base_url = server.url();
    let provider = HttpProvider::new(model, None, Arc::new(CurlTransport::new()));
    let messages = vec![Message::User(UserMessage::text("x".repeat(4_000), 0))];
    let options = RequestOptions::default();
    let request = ModelRequest {
        system_prompt: "",
        messages: &messages,
        tools: &[],
        options: &options,
        cancel: &CancelToken::new(),
    };
    let mut sink = |_: &StreamEvent, _: &AssistantMessage| {};
    let message = provider.stream(&request, &mut sink);
    assert_eq!(
        message.stop_reason,
        StopReason::Stop,
        "{:?}",
        message.error_message
    );
    assert!(message.usage.estimated);
    assert!(message.usage.input >= 1_000, "{:?}", message.usage);
    assert!(message.usage.output >= 10, "{:?}", message.usage);
    let json = Message::Assistant(message).to_json();
    assert_eq!(json["usage"]["estimated"].as_bool(), Some(true));
}
