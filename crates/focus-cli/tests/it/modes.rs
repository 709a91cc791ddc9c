//! Print and JSON modes end to end: the real binary, the real curl transport, the
//! loopback mock model for each of the four wire APIs, the real bash tool.

use crate::support::*;

#[test]
fn print_mode_with_every_api_runs_the_tool_and_prints_the_answer() {
    for model in MOCK_MODELS {
        let s = Sandbox::new();
        let server = mock(TOOL_THEN_ANSWER);
        s.write_models(&server.url());
        let out = s.run(&["-p", "--model", model, "Run the command for me"], "");
        assert!(out.status.success(), "{model}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("I will run a command."), "{model}: {text}");
        assert!(
            text.trim_end()
                .ends_with("The command printed hi-from-tool. Done."),
            "{model}: {text}"
        );
        assert!(
            stderr(&out).contains("→ bash echo hi-from-tool"),
            "{model}: {}",
            stderr(&out)
        );
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{model}");
        // The tool's real output went back to the model in the second request.
        // (once in the echoed tool call, once in the tool result)
        assert!(
            requests[1].body_text().matches("hi-from-tool").count() >= 2,
            "{model}: {}",
            requests[1].body_text()
        );
        // The key reached the server as a header, never on a command line.
        let headers = format!("{:?}", requests[0].headers);
        assert!(headers.contains("test-key"), "{model}: {headers}");
    }
}

#[test]
fn json_mode_prints_every_event_as_one_line() {
    for model in MOCK_MODELS {
        let s = Sandbox::new();
        let server = mock(TOOL_THEN_ANSWER);
        s.write_models(&server.url());
        let out = s.run(&["--mode", "json", "--model", model, "Run echo"], "");
        assert!(out.status.success(), "{model}: {}", stderr(&out));
        let events = json_lines(&stdout(&out));
        let types: Vec<&str> = events
            .iter()
            .map(|e| e["type"].as_str().unwrap_or("?"))
            .collect();
        assert_eq!(types[0], "session", "{model}");
        assert_eq!(types[1], "agent_start");
        assert_eq!(*types.last().unwrap(), "agent_end");
        for expected in [
            "turn_start",
            "message_start",
            "message_update",
            "message_end",
            "tool_execution_start",
            "tool_execution_end",
            "turn_end",
        ] {
            assert!(
                types.contains(&expected),
                "{model}: no {expected} in {types:?}"
            );
        }
        let end = events
            .iter()
            .find(|e| e["type"].as_str() == Some("tool_execution_end"))
            .unwrap();
        assert_eq!(end["toolName"].as_str(), Some("bash"));
        assert_eq!(
            end["result"]["content"][0]["text"].as_str(),
            Some("hi-from-tool")
        );
        assert_eq!(end["isError"].as_bool(), Some(false));
        let messages = events.last().unwrap()["messages"].as_array().unwrap().len();
        assert_eq!(
            messages, 4,
            "{model}: user, assistant, tool result, assistant"
        );
    }
}

#[test]
fn provider_errors_exit_non_zero_with_the_message() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"e","steps":[{"error":{"status":401,"body":"{\"error\":{\"message\":\"invalid x-api-key\",\"type\":\"authentication_error\"}}"}}]}"#,
    );
    s.write_models(&server.url());
    for mode in ["text", "json"] {
        let out = s.run(
            &["-p", "--mode", mode, "--model", "mock-anthropic/m1", "hi"],
            "",
        );
        assert_eq!(out.status.code(), Some(1), "{mode}");
        assert!(
            stderr(&out).contains("invalid x-api-key"),
            "{mode}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn piped_stdin_and_attachments_join_the_prompt() {
    let s = Sandbox::new();
    let server = mock(r#"{"name":"a","steps":[{"reply":{"text":"ok"}}]}"#);
    s.write_models(&server.url());
    std::fs::write(s.work.join("notes.txt"), "ATTACHED-NOTES").unwrap();
    std::fs::write(s.work.join("pic.png"), [0x89u8, b'P', b'N', b'G']).unwrap();
    // No -p: piped stdin alone selects print mode.
    let out = s.run(
        &[
            "--model",
            "mock-openai/m1",
            "@notes.txt",
            "@pic.png",
            "summarize",
        ],
        "PIPED-INPUT\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "ok");
    let body = server.requests()[0].body_text();
    assert!(
        body.contains("ATTACHED-NOTES")
            && body.contains("summarize")
            && body.contains("PIPED-INPUT"),
        "{body}"
    );
    assert!(
        body.contains("iVBORw=="),
        "the image is sent base64: {body}"
    );
}

#[test]
fn several_messages_are_sent_one_after_another() {
    let s = Sandbox::new();
    let server =
        mock(r#"{"name":"a","steps":[{"reply":{"text":"one"}},{"reply":{"text":"two"}}]}"#);
    s.write_models(&server.url());
    let out = s.run(&["-p", "--model", "mock-openai/m1", "first", "second"], "");
    assert!(out.status.success());
    assert_eq!(stdout(&out), "one\ntwo\n");
    assert!(server.requests()[1].body_text().contains("first"));
}
