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

/// What a small-window server saw.
#[derive(Default)]
struct WindowStats {
    /// Requests larger than the window (refused as llama.cpp does).
    overflows: std::sync::atomic::AtomicUsize,
    /// The largest request, in tokens.
    biggest: std::sync::atomic::AtomicU64,
    /// Requests whose `max_tokens` left no room for their prompt.
    no_room: std::sync::atomic::AtomicUsize,
    /// Summary requests.
    summaries: std::sync::atomic::AtomicUsize,
}

/// A local server with a context window of `window` tokens, counting a request's
/// tokens as its body's bytes / 4 (JSON framing included, so a little above what
/// focus estimates): a request past the window is refused with llama.cpp's
/// message. The "model" calls `bash` once per prompt (`seq`, about 120 tokens of
/// output), then answers; a summary request gets a short summary. Usage is
/// reported as counted.
fn small_window_server(window: u64) -> (TestServer, std::sync::Arc<WindowStats>) {
    use focus_testkit::mock_llm::{encode_reply, Api, Reply, ToolCallSpec};
    use std::sync::atomic::Ordering::SeqCst;
    let stats = std::sync::Arc::new(WindowStats::default());
    let seen = stats.clone();
    let turn = std::sync::atomic::AtomicUsize::new(0);
    let server = TestServer::responder(move |request| {
        let tokens = request.body.len() as u64 / 4;
        seen.biggest.fetch_max(tokens, SeqCst);
        let body = request.body_json().unwrap_or_default();
        if tokens > window {
            seen.overflows.fetch_add(1, SeqCst);
            return ScriptedResponse::new(400)
                .header("content-type", "application/json")
                .body(format!(
                    r#"{{"error":{{"code":400,"message":"the request exceeds the available context size ({tokens} tokens > {window}), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":{tokens},"n_ctx":{window}}}}}"#
                ));
        }
        if body["max_tokens"]
            .as_u64()
            .is_some_and(|m| tokens + m > window)
        {
            seen.no_room.fetch_add(1, SeqCst);
        }
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let summary = request
            .body_text()
            .contains("context summarization assistant");
        let last_role = messages
            .last()
            .and_then(|m| m["role"].as_str().map(String::from));
        let reply = if summary {
            seen.summaries.fetch_add(1, SeqCst);
            Reply {
                text: Some("## Goal\nCount with seq.\n## Progress\n- [x] counted".into()),
                ..Reply::default()
            }
        } else if last_role.as_deref() == Some("user") {
            Reply {
                tool_calls: vec![ToolCallSpec {
                    name: "bash".into(),
                    arguments: focus_core::json_object! {"command" => "seq 1000 1090"},
                }],
                ..Reply::default()
            }
        } else {
            Reply {
                text: Some("Counted from 1000 to 1090.".into()),
                ..Reply::default()
            }
        };
        let reply = Reply {
            input_tokens: tokens,
            output_tokens: 20,
            ..reply
        };
        let n = turn.fetch_add(1, SeqCst);
        ScriptedResponse::sse(&encode_reply(Api::OpenAiCompletions, &reply, "m1", n))
    });
    (server, stats)
}

/// With windows of 2,048, 4,096 and 8,192 tokens, thirty prompts that each run a
/// tool never overflow the window and print no failure: old tool output is
/// pruned and the history compacted as it fills.
#[test]
fn thirty_prompts_with_tool_output_fit_small_windows() {
    use std::sync::atomic::Ordering::SeqCst;
    std::thread::scope(|scope| {
        for window in [2_048u64, 4_096, 8_192] {
            scope.spawn(move || {
                let s = Sandbox::new();
                let (server, stats) = small_window_server(window);
                std::fs::write(
                    s.home.join("models.json"),
                    format!(
                        r#"{{"providers":{{"local":{{"baseUrl":"{}/v1","api":"openai-completions","models":[{{"id":"m1","contextWindow":{window}}}]}}}}}}"#,
                        server.url()
                    ),
                )
                .unwrap();
                let mut rpc = RpcClient::start(
                    &s,
                    &["--model", "local/m1", "--tools", "bash", "--permission-mode", "auto"],
                );
                for n in 1..=30u64 {
                    let prompt = format!(
                        r#"{{"id":{n},"type":"prompt","message":"Prompt {n}: count from 1000 to 1090 with seq."}}"#
                    );
                    rpc.call(n, &prompt);
                    let end = rpc.agent_end();
                    for message in end["messages"].as_array().into_iter().flatten() {
                        assert_ne!(
                            message["stopReason"].as_str(),
                            Some("error"),
                            "window {window}, prompt {n}: {message:?}"
                        );
                    }
                }
                for line in &rpc.seen {
                    let text = line.to_json_string();
                    let failed = !line["errorMessage"].is_null()
                        || text.contains("nothing to compact")
                        || text.contains("failed")
                        || text.contains("exceeds the available context");
                    assert!(!failed, "window {window}: {text}");
                }
                assert_eq!(rpc.close(), 0);
                assert_eq!(
                    stats.overflows.load(SeqCst),
                    0,
                    "window {window}: the largest request had {} tokens",
                    stats.biggest.load(SeqCst)
                );
                assert!(
                    stats.biggest.load(SeqCst) > window / 2,
                    "window {window}: the window was used"
                );
                assert_eq!(
                    stats.no_room.load(SeqCst),
                    0,
                    "window {window}: max_tokens leaves room for the prompt"
                );
                eprintln!(
                    "window {window}: {} requests, {} summaries, largest {} tokens, {} without room for the answer",
                    server.requests().len(),
                    stats.summaries.load(SeqCst),
                    stats.biggest.load(SeqCst),
                    stats.no_room.load(SeqCst)
                );
            });
        }
    });
}

/// A server that reports no usage and a model, known by its file path, whose
/// window nobody stated: the footer names the model without a double slash and
/// says the window is assumed, `/session` marks the token counts as estimated
/// and names the window as assumed.
#[test]
fn an_assumed_window_and_estimated_tokens_are_marked() {
    use crate::interactive::{tmux_available, Pane};
    if !tmux_available() {
        return;
    }
    let s = Sandbox::new();
    let server = TestServer::repeating(ScriptedResponse::sse(&[
        "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"hello from a quiet server\"}}]}\n\n",
        "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    ]));
    std::fs::write(
        s.home.join("models.json"),
        format!(
            r#"{{"providers":{{"local":{{"baseUrl":"{}/v1","api":"openai-completions","models":[{{"id":"/models/quiet.gguf"}}]}}}}}}"#,
            server.url()
        ),
    )
    .unwrap();
    let pane = Pane::start(&s, &["--model", "local//models/quiet.gguf"]);
    let screen = pane.wait_for("the footer", "(assumed)");
    assert!(screen.contains("of 128.0k (assumed)"), "{screen}");
    // A model known by its file path: one separator, not `local//models/…`.
    assert!(screen.contains("local:/models/quiet.gguf"), "{screen}");
    assert!(!screen.contains("local//"), "{screen}");
    pane.send("hi", "hello from a quiet server");
    pane.wait_for("the estimated totals in the footer", "~↑");
    pane.type_text("/session");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("session info", "context window:");
    assert!(
        screen.contains("(estimated: the server reported no token counts)"),
        "{screen}"
    );
    assert!(screen.contains("tokens: ~"), "{screen}");
    assert!(
        screen.contains("context window: 128000 tokens (assumed"),
        "{screen}"
    );
}
