//! The end-to-end suite: the real `focus` binary, over the real curl path, against
//! `MockLlm` playing the scenarios in `fixtures/scenarios/`, for all four wire APIs.
//!
//! Each check looks at what a user or a provider would see: the exit code, stdout
//! (text or JSON events), the session file on disk, and the exact request bodies the
//! mock server received (tool-call ids paired, no API key in any body, history
//! valid after errors and aborts). Every run is bounded by a deadline.
//!
//! `FOCUS_E2E_BINARY=/path/to/focus` plays the suite against a prebuilt binary
//! instead of the one cargo built (`scripts/build-static` runs it so against the
//! static build).

mod support;

use focus_testkit::mock_llm::Api;
use support::{check_event_grammar, check_requests, World, KEY};

const APIS: [Api; 4] = [
    Api::AnthropicMessages,
    Api::OpenAiCompletions,
    Api::OpenAiResponses,
    Api::GoogleGenerativeAi,
];

/// Plays `scenario` in print mode for every API, the four at once (each has its
/// own server and home; a scenario that waits, such as a `Retry-After`, waits
/// once): the run succeeds, stdout holds `answer`, the server saw `requests`
/// requests. Returns the worlds for more checks.
fn answers_in_print_mode(scenario: &str, answer: &str, requests: usize) -> Vec<World> {
    let worlds: Vec<World> = APIS.iter().map(|&api| World::new(api, scenario)).collect();
    std::thread::scope(|scope| {
        let runs: Vec<_> = worlds
            .iter()
            .map(|world| scope.spawn(|| world.focus(&["-p", "Hello"])))
            .collect();
        for ((run, world), api) in runs.into_iter().zip(&worlds).zip(APIS) {
            let run = run.join().expect("the run's thread");
            run.assert_success();
            assert!(
                run.stdout.contains(answer),
                "{api:?}: stdout was {:?}",
                run.stdout
            );
            assert_eq!(world.requests().len(), requests, "{api:?}");
        }
    });
    worlds
}

#[test]
fn text_only() {
    for world in answers_in_print_mode("text_only", "Hello from the mock model", 1) {
        world.check_session(1);
        check_requests(&world);
    }
}

#[test]
fn json_mode_prints_a_well_formed_event_stream() {
    for api in APIS {
        let world = World::new(api, "text_only");
        let (_, events) = world.focus_json(&["-p", "Say hello"]);
        assert!(
            events
                .iter()
                .any(|e| e["type"].as_str() == Some("message_update")),
            "{api:?}: no streaming updates"
        );
        let last_assistant = events
            .iter()
            .rev()
            .find(|e| {
                e["type"].as_str() == Some("message_end")
                    && e["message"]["role"].as_str() == Some("assistant")
            })
            .unwrap_or_else(|| panic!("{api:?}: no assistant message_end"));
        assert_eq!(
            last_assistant["message"]["stopReason"].as_str(),
            Some("stop"),
            "{api:?}"
        );
        assert_eq!(
            last_assistant["message"]["usage"]["output"].as_u64(),
            Some(12),
            "{api:?}: usage not decoded"
        );
    }
}

#[test]
fn one_tool_call() {
    for api in APIS {
        let world = World::new(api, "one_tool_call");
        let (_, events) = world.focus_json(&["-p", "What is here?"]);
        let tool_end = events
            .iter()
            .find(|e| e["type"].as_str() == Some("tool_execution_end"))
            .unwrap_or_else(|| panic!("{api:?}: the ls call did not run"));
        assert_eq!(tool_end["toolName"].as_str(), Some("ls"), "{api:?}");
        assert_eq!(
            tool_end["isError"].as_bool(),
            Some(false),
            "{api:?}: {tool_end}"
        );
        assert!(
            tool_end.to_json_string().contains("notes.txt"),
            "{api:?}: ls output: {tool_end}"
        );
        let requests = world.requests();
        assert_eq!(requests.len(), 2, "{api:?}");
        // The second request carries the tool's real output back to the model.
        assert!(
            requests[1].body_text().contains("notes.txt"),
            "{api:?}: tool result missing from the request"
        );
        world.check_session(4);
        check_requests(&world);
    }
}

#[test]
fn three_parallel_tool_calls() {
    for api in APIS {
        let world = World::new(api, "three_parallel_tool_calls");
        let (_, events) = world.focus_json(&["-p", "Read both files"]);
        let results: Vec<_> = events
            .iter()
            .filter(|e| {
                e["type"].as_str() == Some("message_end")
                    && e["message"]["role"].as_str() == Some("toolResult")
            })
            .map(|e| e["message"].clone())
            .collect();
        assert_eq!(results.len(), 3, "{api:?}");
        // Results are in the order the model asked for them, whatever order they finished in.
        let names: Vec<_> = results
            .iter()
            .map(|r| r["toolName"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(names, ["read", "read", "bash"], "{api:?}");
        assert_eq!(results[0]["isError"].as_bool(), Some(false), "{api:?}");
        assert!(
            results[0].to_json_string().contains("remember the milk"),
            "{api:?}"
        );
        assert_eq!(
            results[1]["isError"].as_bool(),
            Some(true),
            "{api:?}: reading a missing file must fail"
        );
        assert!(
            results[2].to_json_string().contains("three-calls"),
            "{api:?}: bash output: {}",
            results[2]
        );
        world.check_session(6);
        check_requests(&world);
    }
}

#[test]
fn thinking_model() {
    for api in APIS {
        let world = World::new(api, "thinking");
        let run = world.focus(&["--mode", "json", "--thinking", "high", "-p", "Greet me"]);
        run.assert_success();
        let events = run.json_events();
        assert!(
            events
                .iter()
                .any(|e| e["assistantMessageEvent"]["type"].as_str() == Some("thinking_delta")),
            "{api:?}: no thinking deltas"
        );
        let messages = world.check_session(2);
        let thinking = messages[1].to_json_string();
        assert!(
            thinking.contains("keep it brief"),
            "{api:?}: thinking not stored: {thinking}"
        );
        let body = world.requests()[0].body_text();
        let asked_for_thinking = match api {
            Api::AnthropicMessages => body.contains("\"thinking\""),
            Api::OpenAiCompletions => body.contains("reasoning"),
            Api::OpenAiResponses => body.contains("\"reasoning\""),
            Api::GoogleGenerativeAi => body.contains("thinkingConfig"),
        };
        assert!(
            asked_for_thinking,
            "{api:?}: --thinking high did not reach the request: {body}"
        );
    }
}

#[test]
fn server_error_then_success() {
    // A 503 is retried once it answers.
    for world in answers_in_print_mode(
        "server_error_then_success",
        "Recovered after a server error",
        2,
    ) {
        world.check_session(2);
    }
}

#[test]
fn rate_limited_with_retry_after() {
    answers_in_print_mode("rate_limited", "Answered after waiting", 2);
}

#[test]
fn stream_cut_mid_answer_is_an_error_and_not_replayed() {
    for api in APIS {
        let world = World::new(api, "stream_cut");
        let run = world.focus(&["-p", "Tell me a story"]);
        assert_ne!(
            run.code,
            Some(0),
            "{api:?}: a cut stream must fail the run\n{}",
            run.stderr
        );
        assert!(
            !run.stderr.trim().is_empty(),
            "{api:?}: the error must be reported on stderr"
        );
        assert_eq!(
            world.requests().len(),
            1,
            "{api:?}: a half-streamed answer must not be retried"
        );
        let messages = world.check_session(2);
        assert_eq!(
            messages[1]["stopReason"].as_str(),
            Some("error"),
            "{api:?}: {}",
            messages[1]
        );
    }
}

#[test]
fn context_overflow_compacts_and_retries() {
    for api in APIS {
        let world = World::new(api, "context_overflow");
        world.write_project_settings(r#"{"compaction": {"keepRecentTokens": 1}}"#);
        world
            .focus(&["-p", "First prompt, long ago"])
            .assert_success();
        world.focus(&["-c", "-p", "Second prompt"]).assert_success();
        let run = world.focus(&["-c", "-p", "Third prompt"]);
        run.assert_success();
        assert!(
            run.stdout.contains("Third answer, after compaction"),
            "{api:?}: {}\n{}",
            run.stdout,
            run.stderr
        );
        let requests = world.requests();
        assert_eq!(
            requests.len(),
            5,
            "{api:?}: answer, answer, overflow, summary, retry"
        );
        let retry = requests[4].body_text();
        assert!(
            retry.contains("Test compaction"),
            "{api:?}: the retry must carry the summary"
        );
        assert!(
            !retry.contains("First prompt, long ago"),
            "{api:?}: the compacted prompt is still sent"
        );
        assert!(
            retry.contains("Third prompt"),
            "{api:?}: the prompt being answered was lost"
        );
        let session = std::fs::read_to_string(world.session_file()).unwrap();
        assert!(
            session.contains("\"type\":\"compaction\""),
            "{api:?}: no compaction entry"
        );
        check_requests(&world);
    }
}

#[test]
fn no_key_in_any_process_arguments_while_a_request_is_in_flight() {
    let world = World::with_steps(
        Api::OpenAiCompletions,
        r#"{"steps":[{"reply":{"text":"one two three four five six seven eight nine ten eleven twelve","chunkDelayMs":150}}]}"#,
    );
    // A loopback model is served without curl; the setting sends it through
    // curl, whose argument list is what this test watches.
    world.write_project_settings(r#"{"transport": "curl"}"#);
    let mut child = world.spawn_focus(&["-p", "Count slowly"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut saw_curl = false;
    while child.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        for (pid, argv) in support::all_process_arguments() {
            assert!(
                !argv.contains(KEY),
                "process {pid} shows the API key in its arguments: {argv}"
            );
            saw_curl |= argv.starts_with("curl") || argv.contains("/curl\0");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "focus failed");
    assert!(
        saw_curl,
        "never saw curl running, so the check proved nothing"
    );
}

#[test]
fn abort_in_rpc_mode_leaves_a_valid_history() {
    for api in APIS {
        let world = World::with_steps(
            api,
            r#"{"steps":[
                {"reply":{"text":"Looking.","toolCalls":[{"name":"ls","arguments":{"path":"."}}]}},
                {"reply":{"text":"a b c d e f g h i j k l m n o p q r s t u v w x y z","chunkDelayMs":200}}
            ]}"#,
        );
        let session = world.run_rpc_abort();
        let messages = world.check_session_at(&session, 4);
        let last = messages.last().unwrap();
        assert_eq!(last["role"].as_str(), Some("assistant"), "{api:?}");
        assert_eq!(
            last["stopReason"].as_str(),
            Some("aborted"),
            "{api:?}: {last}"
        );
    }
}

#[test]
fn mcp_tools_look_like_built_in_tools_to_the_loop() {
    let world = World::with_steps(
        Api::OpenAiCompletions,
        r#"{"steps":[
            {"reply":{"text":"Calling both.","toolCalls":[
                {"name":"t__echo","arguments":{"text":"hello-from-mcp"}},
                {"name":"ls","arguments":{"path":"."}}]}},
            {"reply":{"text":"Both answered."}}
        ]}"#,
    );
    let server = support::mcp_test_server();
    world.write_project_settings(&format!(
        r#"{{"mcpServers": {{"t": {{"command": {:?}, "args": []}}}}, "permissions": {{"allow": ["t__echo"]}}}}"#,
        server.display().to_string()
    ));
    // The project's server runs because the folder is trusted for this run.
    let run = world.focus(&["--trust-project", "--mode", "json", "-p", "Use both tools"]);
    run.assert_success();
    let events = run.json_events();
    check_event_grammar(&events).unwrap();
    // The same events, with the same fields, for the MCP tool and the built-in one.
    let shape = |kind: &str, tool: &str| -> Vec<String> {
        let event = events
            .iter()
            .find(|e| e["type"].as_str() == Some(kind) && e["toolName"].as_str() == Some(tool))
            .unwrap_or_else(|| panic!("no {kind} for {tool}:\n{}", run.stdout));
        event
            .as_object()
            .unwrap()
            .keys()
            .map(str::to_string)
            .collect()
    };
    for kind in ["tool_execution_start", "tool_execution_end"] {
        assert_eq!(shape(kind, "t__echo"), shape(kind, "ls"), "{kind}");
    }
    let results: Vec<_> = events
        .iter()
        .filter(|e| {
            e["type"].as_str() == Some("message_end")
                && e["message"]["role"].as_str() == Some("toolResult")
        })
        .map(|e| e["message"].clone())
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["toolName"].as_str(), Some("t__echo"));
    assert_eq!(
        results[0]["isError"].as_bool(),
        Some(false),
        "{}",
        results[0]
    );
    assert!(results[0].to_json_string().contains("hello-from-mcp"));
    // Stored the same way in the session, and sent back to the model.
    let messages = world.check_session(4);
    let stored: Vec<_> = messages
        .iter()
        .filter(|m| m["role"].as_str() == Some("toolResult"))
        .collect();
    assert_eq!(stored.len(), 2);
    let keys = |m: &focus_core::json::Value| -> Vec<String> {
        let mut keys: Vec<String> = m.as_object().unwrap().keys().map(str::to_string).collect();
        keys.retain(|k| k != "details");
        keys
    };
    assert_eq!(keys(stored[0]), keys(stored[1]));
    assert!(world.requests()[1].body_text().contains("hello-from-mcp"));
    check_requests(&world);
}
