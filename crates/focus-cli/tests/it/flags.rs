//! Every documented flag, through the real binary.

use crate::support::*;

#[test]
fn version_and_help() {
    let s = Sandbox::new();
    for flag in ["--version", "-v"] {
        let out = s.run(&[flag], "");
        assert!(out.status.success());
        assert_eq!(
            stdout(&out),
            format!("focus {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
    for flag in ["--help", "-h"] {
        let out = s.run(&[flag], "");
        assert!(out.status.success());
        let help = stdout(&out);
        for documented in [
            "--print",
            "--mode",
            "--provider",
            "--model",
            "--thinking",
            "--continue",
            "--resume",
            "--session",
            "--no-session",
            "--session-dir",
            "--tools",
            "--system-prompt",
            "--append-system-prompt",
            "--list-models",
            "--export",
            "--permission-mode",
        ] {
            assert!(help.contains(documented), "help lacks {documented}");
        }
    }
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let s = Sandbox::new();
    let cases: &[(&[&str], &str)] = &[
        (&["--modle", "json"], "did you mean --mode"),
        (&["--mode", "xml"], "use text, json or rpc"),
        (&["--thinking", "max"], "use off, minimal"),
        (&["--permission-mode", "yolo"], "accept-edits"),
        (&["-c", "--no-session"], "choose one of"),
        (&["--api-key", "sk-x"], "environment variable"),
        (&["-p"], "no prompt given"),
        (
            &["-p", "--tools", "read,nope", "x"],
            "unknown tool \"nope\"",
        ),
        (&["-p", "@missing.txt", "x"], "cannot attach @missing.txt"),
        (&["-p", "--model", "nope/nothing", "x"], "no model"),
        (&["-p", "-r", "x"], "--resume asks"),
        (&["-p", ""], "the prompt is empty"),
        (&["-p", " \n\t "], "the prompt is empty"),
        (&["-p", "first", "  "], "the prompt is empty"),
    ];
    for (args, expected) in cases {
        let out = s.run(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("sk-x"), "a key was echoed");
    }
}

#[test]
fn list_models_with_and_without_search() {
    let s = Sandbox::new();
    let all = s.run(&["--list-models"], "");
    assert!(all.status.success());
    assert!(stdout(&all).contains("anthropic"));
    assert!(stdout(&all).contains("focus-demo"));
    let some = s.run(&["--list-models", "sonnet"], "");
    assert!(stdout(&some).contains("sonnet") && !stdout(&some).contains("gpt-"));
    let none = s.run(&["--list-models", "zzzz-no-such"], "");
    assert_eq!(none.status.code(), Some(1));
    s.write_models("http://127.0.0.1:9");
    assert!(stdout(&s.run(&["--list-models", "mock-openai"], "")).contains("m1"));
}

#[test]
fn print_runs_the_demo_with_real_tools_and_saves_the_session() {
    let s = Sandbox::new();
    std::fs::write(s.work.join("README.md"), "demo readme\n").unwrap();
    let out = s.run(&["-p", "hello"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("offline demo"), "{text}");
    assert!(text.contains("ANTHROPIC_API_KEY"));
    assert!(stderr(&out).contains("→ ls ."));
    assert!(stderr(&out).contains("→ read README.md"));
    let files = s.session_files();
    assert_eq!(files.len(), 1);
    assert!(
        file_contains(&files[0], "demo readme"),
        "the read result is in the session"
    );
}

#[test]
fn no_session_and_session_dir() {
    let s = Sandbox::new();
    assert!(s
        .run(&["-p", "--no-session", "--no-tools", "hi"], "")
        .status
        .success());
    assert!(s.session_files().is_empty());
    let dir = s.root.join("mysessions");
    let dir_text = dir.to_str().unwrap();
    assert!(s
        .run(&["-p", "--session-dir", dir_text, "--no-tools", "one"], "")
        .status
        .success());
    // Session files; the folder may also hold the checkpoint store
    // (`checkpoints/`, docs/sessions.md).
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|f| f.path().extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(files.len(), 1);
    // -c with the same directory continues that file.
    assert!(s
        .run(
            &["-p", "-c", "--session-dir", dir_text, "--no-tools", "two"],
            ""
        )
        .status
        .success());
    let sessions_now = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|f| f.path().extension().is_some_and(|e| e == "jsonl"))
        .count();
    assert_eq!(sessions_now, 1);
    assert!(file_contains(&files[0].path(), "\"two\""));

    // Issue 19, item 10: a newer session of another directory in the same
    // folder is not continued: -c checks the header's cwd.
    let foreign = dir.join("2099-01-01T00-00-00-000Z_foreign.jsonl");
    std::fs::write(
        &foreign,
        "{\"type\":\"session\",\"version\":3,\"id\":\"foreign\",\"timestamp\":\"2099-01-01T00:00:00.000Z\",\"cwd\":\"/some/other/project\"}\n",
    )
    .unwrap();
    assert!(s
        .run(
            &["-p", "-c", "--session-dir", dir_text, "--no-tools", "three"],
            ""
        )
        .status
        .success());
    assert!(
        !file_contains(&foreign, "\"three\""),
        "not the other project's"
    );
    assert!(file_contains(&files[0].path(), "\"three\""));
}

#[test]
fn continue_and_session_by_id_send_the_earlier_history() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"a","steps":[{"reply":{"text":"first answer"}},{"reply":{"text":"second answer"}},{"reply":{"text":"third"}}]}"#,
    );
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "remember the word pelican",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // -c without --model goes on with the session's model and thinking level.
    let out = s.run(&["-p", "-c", "what word?"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "second answer");
    let second = server.requests()[1].body_text();
    assert!(
        second.contains("pelican") && second.contains("first answer"),
        "{second}"
    );
    let file = &s.session_files()[0];
    let id = file
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .rsplit('_')
        .next()
        .unwrap()[..8]
        .to_string();
    let out = s.run(
        &["-p", "--session", &id, "--model", "mock-openai/m1", "again"],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(server.requests()[2].body_text().contains("what word?"));
    assert_eq!(s.session_files().len(), 1);
    // Like pi's, the file starts with the model and thinking level.
    let text = std::fs::read_to_string(file).unwrap();
    let kinds: Vec<&str> = text
        .lines()
        .map(|l| l.split('"').nth(3).unwrap_or(""))
        .collect();
    assert_eq!(
        kinds[..3],
        ["session", "model_change", "thinking_level_change"],
        "{text}"
    );
}

#[test]
fn tools_system_prompt_and_append() {
    let s = Sandbox::new();
    let server = mock(r#"{"name":"a","steps":[{"reply":{"text":"ok"}}]}"#);
    s.write_models(&server.url());
    std::fs::write(s.work.join("extra.md"), "APPENDED-FROM-FILE").unwrap();
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--tools",
            "read,ls",
            "--system-prompt",
            "CUSTOM-BASE",
            "--append-system-prompt",
            "extra.md",
            "hi",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let body = server.requests()[0].body_json().unwrap();
    let text = body.to_json_string();
    assert!(text.contains("CUSTOM-BASE") && text.contains("APPENDED-FROM-FILE"));
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["read", "ls"]);
    let out = s.run(&["-p", "--model", "mock-openai/m1", "--no-tools", "hi"], "");
    assert!(out.status.success());
    assert!(server.requests()[1].body_json().unwrap()["tools"].is_null());
}

#[test]
fn thinking_and_provider_flags_reach_the_session_state() {
    let s = Sandbox::new();
    s.write_models("http://127.0.0.1:9");
    let mut rpc = RpcClient::start(
        &s,
        &[
            "--provider",
            "mock-anthropic",
            "--model",
            "m1",
            "--thinking",
            "high",
        ],
    );
    let state = rpc.call(1, r#"{"id":1,"type":"get_state"}"#);
    assert_eq!(state["data"]["thinkingLevel"].as_str(), Some("high"));
    assert_eq!(
        state["data"]["model"]["provider"].as_str(),
        Some("mock-anthropic")
    );
    let mut rpc2 = RpcClient::start(&s, &["--model", "mock-openai/m1:low"]);
    let state = rpc2.call(1, r#"{"id":1,"type":"get_state"}"#);
    assert_eq!(state["data"]["thinkingLevel"].as_str(), Some("low"));
    assert_eq!(rpc.close(), 0);
}

#[test]
fn plan_mode_blocks_writes_in_print_mode() {
    let s = Sandbox::new();
    let scenario = r#"{"name":"w","steps":[
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch created.txt"}}]}},
      {"reply":{"text":"gave up"}}]}"#;
    for mode in [&["--permission-mode", "plan"][..], &[][..]] {
        let server = mock(scenario);
        s.write_models(&server.url());
        let mut args = vec!["-p", "--model", "mock-openai/m1"];
        args.extend_from_slice(mode);
        args.push("make a file");
        let out = s.run(&args, "");
        // The refused call decides the exit code (docs/cli.md).
        assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
        assert!(
            !s.work.join("created.txt").exists(),
            "{mode:?} let a write through"
        );
    }
    let server = mock(scenario);
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--permission-mode",
            "auto",
            "x",
        ],
        "",
    );
    assert!(out.status.success());
    assert!(s.work.join("created.txt").exists(), "auto mode runs it");
}

#[test]
fn export_flag_writes_html() {
    let s = Sandbox::new();
    assert!(s
        .run(&["-p", "--no-tools", "hello <b>"], "")
        .status
        .success());
    let session = s.session_files()[0].clone();
    let out_path = s.root.join("out.html");
    let out = s.run(
        &[
            "--export",
            session.to_str().unwrap(),
            out_path.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let html = std::fs::read_to_string(&out_path).unwrap();
    assert!(html.contains("hello &lt;b&gt;"));
    let missing = s.run(&["--export", "/nonexistent/x.jsonl"], "");
    assert_eq!(missing.status.code(), Some(1));
}

/// A minimal MCP server in bash: answers `initialize` and `tools/list`, and
/// `tools/call` with the text it was given.
const FAKE_MCP: &str = r#"#!/bin/bash
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
    *'"initialize"'*) echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1.0"}}}';;
    *'"tools/list"'*) echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"tools":[{"name":"echo_back","description":"Echo the text","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}}';;
    *'"tools/call"'*) echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"content":[{"type":"text","text":"echoed by mcp"}]}}';;
  esac
done
"#;

#[test]
fn mcp_list_and_mcp_tools_in_a_run() {
    let s = Sandbox::new();
    let out = s.run(&["mcp", "list"], "");
    assert!(out.status.success());
    assert!(stdout(&out).contains("No MCP servers configured"));
    let script = s.root.join("fake_mcp.sh");
    std::fs::write(&script, FAKE_MCP).unwrap();
    std::fs::write(
        s.home.join("settings.json"),
        format!(
            r#"{{"mcpServers":{{"fake":{{"command":"bash","args":["{}"]}},"broken":{{"command":"/nonexistent/server"}}}}}}"#,
            script.display()
        ),
    )
    .unwrap();
    let out = s.run(&["mcp", "list"], "");
    let text = stdout(&out);
    assert!(
        text.contains("fake") && text.contains("fake__echo_back"),
        "{text}{}",
        stderr(&out)
    );
    assert!(text.contains("broken"), "{text}");
    // Readable states, not Rust's debug text.
    assert!(text.contains("fake: running"), "{text}");
    assert!(text.contains("broken: failed: "), "{text}");
    assert!(
        !text.contains("Running") && !text.contains("Failed(\""),
        "{text}"
    );
    assert!(text.contains("(started and listed in "), "{text}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed server makes the exit code 1"
    );

    let server = mock(
        r#"{"name":"m","steps":[
      {"reply":{"toolCalls":[{"name":"fake__echo_back","arguments":{"text":"x"}}]}},
      {"reply":{"text":"done"}}]}"#,
    );
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--permission-mode",
            "auto",
            "--model",
            "mock-openai/m1",
            "use mcp",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = server.requests();
    assert!(requests[0].body_text().contains("fake__echo_back"));
    assert!(
        requests[1].body_text().contains("echoed by mcp"),
        "{}",
        requests[1].body_text()
    );
}

/// An MCP server configured with a `url` (streamable HTTP) starts, lists its
/// tools and answers a call, through focus's own curl transport, end to end: a
/// loopback server that hands out a session id and answers one call as an event
/// stream.
#[test]
fn mcp_servers_over_http_work_end_to_end() {
    use focus_core::json::parse_str;
    use focus_testkit::server::{ScriptedResponse, TestServer};
    let mcp = TestServer::responder(|request| {
        let message = parse_str(&request.body_text()).unwrap_or_default();
        let id = message["id"].to_json_string();
        let session_ok = request.header("mcp-session-id") == Some("s-42");
        match message["method"].as_str().unwrap_or("") {
            "initialize" => ScriptedResponse::json(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-03-26","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"web-mcp","version":"1.0"}}}}}}"#
            ))
            .header("Mcp-Session-Id", "s-42"),
            _ if !session_ok => ScriptedResponse::new(400).body("missing session"),
            "notifications/initialized" => ScriptedResponse::new(202),
            "tools/list" => ScriptedResponse::json(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"shout","description":"Upper-cases text","inputSchema":{{"type":"object","properties":{{"text":{{"type":"string"}}}},"required":["text"]}}}}]}}}}"#
            )),
            "tools/call" => {
                let text = message["params"]["arguments"]["text"].as_str().unwrap_or("");
                ScriptedResponse::new(200)
                    .header("content-type", "text/event-stream")
                    .chunk(format!(
                        "data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}}}}\n\n",
                        text.to_uppercase()
                    ))
            }
            _ => ScriptedResponse::new(202),
        }
    });
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("settings.json"),
        format!(
            r#"{{"mcpServers":{{"web":{{"url":"{}/mcp"}}}}}}"#,
            mcp.url()
        ),
    )
    .unwrap();
    let out = s.run(&["mcp", "list"], "");
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(
        text.contains("web: running (web-mcp 1.0), 1 tool"),
        "{text}"
    );
    assert!(text.contains("web__shout"), "{text}");

    let server = mock(
        r#"{"name":"m","steps":[
      {"reply":{"toolCalls":[{"name":"web__shout","arguments":{"text":"quiet words"}}]}},
      {"reply":{"text":"done"}}]}"#,
    );
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--permission-mode",
            "auto",
            "--model",
            "mock-openai/m1",
            "shout",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let second = server.requests()[1].body_text();
    assert!(
        second.contains("QUIET WORDS"),
        "the tool's answer reached the model: {second}"
    );
}

/// An MCP server that dies in the middle of a run is reported at once, as a
/// warning line before the run ends, not at the next prompt.
#[test]
fn an_mcp_server_that_dies_mid_run_is_reported_at_once() {
    let s = Sandbox::new();
    let script = s.root.join("dying_mcp.sh");
    // The fake server, except that a call makes it exit.
    std::fs::write(
        &script,
        FAKE_MCP.replace(
            r#"*'"tools/call"'*) echo"#,
            r#"*'"tools/call"'*) exit 3; echo"#,
        ),
    )
    .unwrap();
    std::fs::write(
        s.home.join("settings.json"),
        format!(
            r#"{{"mcpServers":{{"fake":{{"command":"bash","args":["{}"]}}}}}}"#,
            script.display()
        ),
    )
    .unwrap();
    let server = mock(
        r#"{"name":"m","steps":[
      {"reply":{"toolCalls":[{"name":"fake__echo_back","arguments":{"text":"x"}}]}},
      {"reply":{"text":"done"}}]}"#,
    );
    s.write_models(&server.url());
    let out = s.run(
        &[
            "--mode",
            "json",
            "--permission-mode",
            "auto",
            "--model",
            "mock-openai/m1",
            "go",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_lines(&stdout(&out));
    let warning = events
        .iter()
        .position(|e| {
            e["type"].as_str() == Some("warning")
                && e["message"].as_str().is_some_and(|m| m.contains("MCP"))
        })
        .unwrap_or_else(|| panic!("no MCP warning: {}", stdout(&out)));
    let end = events
        .iter()
        .position(|e| e["type"].as_str() == Some("agent_end"))
        .unwrap();
    assert!(warning < end, "the warning came before the run ended");
}
