//! [`MockLlm`]: a loopback HTTP server that plays a [`Scenario`] for any of the four
//! wire APIs, choosing the API from each request's path.

use super::encode::{encode_reply, Api};
use super::scenario::{Reply, Scenario, Step};
use crate::server::{RecordedRequest, ScriptedResponse, TestServer};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A running mock LLM server. Dropping it stops it.
pub struct MockLlm {
    server: TestServer,
}

impl MockLlm {
    /// Starts a server on 127.0.0.1 (random port) playing `scenario`: request `n`
    /// gets step `n` (the last step repeats).
    pub fn start(scenario: Scenario) -> MockLlm {
        let next = Arc::new(AtomicUsize::new(0));
        let server = TestServer::responder(move |request: &RecordedRequest| {
            let turn = next.fetch_add(1, Ordering::SeqCst);
            respond(&scenario, turn, request)
        });
        MockLlm { server }
    }

    /// The base URL, e.g. `http://127.0.0.1:40123`.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// Every request received so far, in order, with exact bodies.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.server.requests()
    }

    /// The underlying test server (for waiting on requests, reading its errors).
    pub fn server(&self) -> &TestServer {
        &self.server
    }
}

/// The scripted answer to request number `turn`.
pub fn respond(scenario: &Scenario, turn: usize, request: &RecordedRequest) -> ScriptedResponse {
    let Some(api) = Api::from_path(&request.path) else {
        return ScriptedResponse::new(404)
            .body(format!("mock LLM: no API serves {}", request.path));
    };
    let model = model_of(api, request);
    match scenario.step(turn) {
        None => ScriptedResponse::server_error(
            r#"{"error":{"message":"mock LLM: the scenario has no steps"}}"#,
        ),
        Some(Step::Reply(reply)) => stream(api, reply, &model, turn),
        Some(Step::Cut {
            reply,
            after_events,
        }) => stream(api, reply, &model, turn).disconnect_after(*after_events),
        Some(Step::Error {
            status,
            body,
            retry_after,
        }) => {
            let mut response = ScriptedResponse::new(*status)
                .header("content-type", "application/json")
                .body(body);
            if let Some(secs) = retry_after {
                response = response.header("retry-after", &secs.to_string());
            }
            response
        }
    }
}

/// `reply` as a chunked SSE response, one event per chunk, paced as the reply asks.
fn stream(api: Api, reply: &Reply, model: &str, turn: usize) -> ScriptedResponse {
    let response = ScriptedResponse::sse(&encode_reply(api, reply, model, turn));
    match reply.chunk_delay_ms {
        0 => response,
        ms => response.delay_between_chunks(Duration::from_millis(ms)),
    }
}

/// The model the request asked for (Gemini puts it in the path).
fn model_of(api: Api, request: &RecordedRequest) -> String {
    if api == Api::GoogleGenerativeAi {
        let after = request.path.split("/models/").nth(1).unwrap_or("");
        return after.split(':').next().unwrap_or("mock").to_string();
    }
    request
        .body_json()
        .and_then(|body| body["model"].as_str().map(str::to_string))
        .unwrap_or_else(|| "mock".to_string())
}
