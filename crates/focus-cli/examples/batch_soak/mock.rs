//! The soak's mock model: one `TestServer` for every run at once, answering
//! each request by the task its prompt names (`[soak ID KIND]`) and the step
//! the conversation is at (how many assistant messages the request carries),
//! with `MockLlm`'s own streams. A SIGTERM task's first request also sends its
//! focus process SIGTERM (the process is found by its command line).

use super::procs;
use super::task::Kind;
use focus_core::json::Value;
use focus_core::json_object;
use focus_testkit::mock_llm::server::respond;
use focus_testkit::mock_llm::{Reply, Scenario, Step, ToolCallSpec};
use focus_testkit::server::{RecordedRequest, ScriptedResponse, TestServer};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The mock model and its switch.
pub struct Mock {
    /// The server.
    pub server: TestServer,
    /// Once set, every task finishes (the resume pass: what failed was transient).
    pub healed: Arc<AtomicBool>,
}

impl Mock {
    /// Starts the server; `focus` is the binary SIGTERM tasks' processes run.
    pub fn start(focus: &Path) -> Mock {
        let healed = Arc::new(AtomicBool::new(false));
        let flag = healed.clone();
        let focus = focus.to_path_buf();
        let server = TestServer::responder(move |request| {
            answer(request, flag.load(Ordering::SeqCst), &focus)
        });
        Mock { server, healed }
    }
}

/// The task id and kind a request is for, from the marker in its prompt.
pub fn task_of(request: &RecordedRequest) -> Option<(String, Kind)> {
    let body = request.body_text();
    let start = body.find("[soak ")? + "[soak ".len();
    let end = start + body[start..].find(']')?;
    let mut words = body[start..end].split(' ');
    let id = words.next()?.to_string();
    let kind = Kind::parse(words.next()?)?;
    Some((id, kind))
}

/// How many answers the conversation already has: the step to play.
fn step_of(request: &RecordedRequest) -> usize {
    let body = request.body_json().unwrap_or(Value::Null);
    body["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .filter(|m| m["role"].as_str() == Some("assistant"))
                .count()
        })
        .unwrap_or(0)
}

fn answer(request: &RecordedRequest, healed: bool, focus: &Path) -> ScriptedResponse {
    let Some((id, kind)) = task_of(request) else {
        return ScriptedResponse::new(400).body("soak mock: no [soak ID KIND] in the request");
    };
    let kind = if healed { Kind::Finish } else { kind };
    let step = step_of(request);
    let play = |steps: Vec<Step>| {
        let scenario = Scenario {
            name: kind.name().into(),
            steps,
        };
        respond(&scenario, step, request)
    };
    match kind {
        Kind::Finish => play(vec![
            call(
                "Making the file.",
                "bash",
                json_object! {"command" => format!("touch made-{id}.txt")},
            ),
            text("Made it."),
        ]),
        Kind::Refused => play(vec![
            call(
                "Cleaning up.",
                "bash",
                json_object! {"command" => format!("rm -rf ../not-yours-{id}")},
            ),
            text("I could not clean up."),
        ]),
        Kind::TurnLimit => play(vec![call("Looking.", "ls", json_object! {"path" => "."})]),
        Kind::ProviderError => play(vec![Step::Error {
            status: 500,
            body: r#"{"error":{"message":"soak mock: internal error"}}"#.into(),
            retry_after: None,
        }]),
        Kind::Deadline => stall(),
        Kind::Sigterm => {
            let marker = format!("[soak {id} ");
            let focus = focus.to_path_buf();
            std::thread::spawn(move || procs::terminate_focus_with(&focus, &marker));
            stall()
        }
    }
}

fn text(text: &str) -> Step {
    Step::Reply(Reply {
        text: Some(text.into()),
        input_tokens: 100,
        output_tokens: 20,
        ..Reply::default()
    })
}

fn call(text: &str, tool: &str, arguments: Value) -> Step {
    Step::Reply(Reply {
        text: Some(text.into()),
        tool_calls: vec![ToolCallSpec {
            name: tool.into(),
            arguments,
        }],
        input_tokens: 100,
        output_tokens: 20,
        ..Reply::default()
    })
}

/// A stream that starts and then only sends keepalives, every 20 ms for a
/// minute: the run's deadline or a signal ends it (the server sees the client
/// gone at the next keepalive).
fn stall() -> ScriptedResponse {
    let mut response = ScriptedResponse::new(200)
        .header("content-type", "text/event-stream")
        .chunked()
        .chunk("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n");
    for _ in 0..3000 {
        response = response.chunk_after(Duration::from_millis(20), ": keepalive\n\n");
    }
    response
}
