//! Local model servers as they really behave: llama-cpp-python's validator, small
//! context windows.

use crate::support::*;
use focus_testkit::mock_llm::{server::respond, Scenario};
use focus_testkit::server::{RecordedRequest, ScriptedResponse, TestServer};

/// How llama-cpp-python (0.3.x, pydantic 2) answers an assistant message whose
/// `content` is `null`: HTTP 500 with the validator's text.
const LLAMA_CPP_PYTHON_NULL_CONTENT: &str = r#"{"error":{"message":"1 validation error for ChatCompletionRequestAssistantMessage\ncontent\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]","type":"internal_server_error","param":null,"code":null}}"#;

/// Whether a Chat Completions request has an assistant message saying
/// `"content": null`.
fn has_null_content(request: &RecordedRequest) -> bool {
    let Some(body) = request.body_json() else {
        return false;
    };
    body["messages"].as_array().is_some_and(|messages| {
        messages.iter().any(|m| {
            m["role"].as_str() == Some("assistant") && m.get("content").is_some_and(|c| c.is_null())
        })
    })
}

/// A mock that validates like llama-cpp-python, then plays `scenario`.
fn llama_cpp_python(scenario: &str) -> TestServer {
    let scenario = Scenario::parse(scenario).unwrap();
    let turn = std::sync::atomic::AtomicUsize::new(0);
    TestServer::responder(move |request| {
        if has_null_content(request) {
            return ScriptedResponse::new(500)
                .header("content-type", "application/json")
                .body(LLAMA_CPP_PYTHON_NULL_CONTENT);
        }
        let n = turn.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        respond(&scenario, n, request)
    })
}

/// A two-turn tool task against a server that rejects `"content": null`
/// succeeds: the tool-call-only message goes out without `content`.
#[test]
fn a_tool_task_succeeds_against_a_server_that_rejects_null_content() {
    let s = Sandbox::new();
    let server = llama_cpp_python(
        r#"{"name":"t","steps":[
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"echo hi-from-tool"}}]}},
      {"reply":{"text":"The command printed hi-from-tool. Done."}}]}"#,
    );
    s.write_models(&server.url());
    let out = s.run(&["-p", "--model", "mock-openai/m1", "Run the command"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("The command printed hi-from-tool. Done."),
        "{}",
        stdout(&out)
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "no request was refused and retried");
    let second = requests[1].body_json().unwrap();
    let assistant = &second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"].as_str() == Some("assistant"))
        .expect("the tool call goes back")
        .clone();
    assert!(assistant.get("content").is_none(), "{assistant:?}");
}

/// A request the server says is invalid is not sent again, and the error names
/// what the server said.
#[test]
fn a_request_the_server_calls_invalid_is_not_retried() {
    let s = Sandbox::new();
    let server = TestServer::repeating(
        ScriptedResponse::new(500)
            .header("content-type", "application/json")
            .body(LLAMA_CPP_PYTHON_NULL_CONTENT),
    );
    s.write_models(&server.url());
    let out = s.run(&["-p", "--model", "mock-openai/m1", "hello"], "");
    assert!(!out.status.success());
    assert_eq!(server.requests().len(), 1, "sent once");
    let err = stderr(&out);
    assert!(
        err.contains("HTTP 500: internal_server_error: 1 validation error")
            && err.contains("content Input should be a valid string"),
        "{err}"
    );
    assert!(!err.contains("attempts"), "{err}");
}
