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
        assert_eq!(types[types.len() - 2], "agent_end");
        assert_eq!(*types.last().unwrap(), "result");
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
        let messages = events[events.len() - 2]["messages"]
            .as_array()
            .unwrap()
            .len();
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
    // Images are recognised by their whole 8-byte PNG signature.
    std::fs::write(s.work.join("pic.png"), b"\x89PNG\r\n\x1a\n").unwrap();
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
        body.contains("iVBORw0KGgo="),
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

#[test]
fn compaction_on_threshold_and_compact_and_retry_on_overflow() {
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"reserveTokens":1000,"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let server = mock_with_summarizer(
        r#"{"name":"c","steps":[
      {"reply":{"text":"first answer"}},
      {"reply":{"text":"second answer","inputTokens":99500}},
      {"error":{"status":400,"body":"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 250000 tokens > 200000 maximum\"}}"}},
      {"reply":{"text":"recovered answer"}}]}"#,
        r#"{"name":"s","steps":[{"reply":{"text":"Goal: THE-SUMMARY"}}]}"#,
    );
    s.write_models(&server.url());
    let run = |prompt: &str| {
        s.run(
            &[
                "--mode",
                "json",
                "-c",
                "--no-tools",
                "--model",
                "mock-anthropic/m1",
                prompt,
            ],
            "",
        )
    };
    assert!(run("one").status.success());
    // The second answer reports 99.5k input tokens; the window is 100k with 1k
    // reserved: compaction follows.
    let out = run("two");
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_lines(&stdout(&out));
    let start = events
        .iter()
        .position(|e| e["type"].as_str() == Some("auto_compaction_start"))
        .expect("compaction start");
    assert_eq!(events[start]["reason"].as_str(), Some("threshold"));
    let end = &events[start + 1];
    assert_eq!(end["type"].as_str(), Some("auto_compaction_end"));
    assert!(
        end["result"]["tokensBefore"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "{}",
        end.to_json_string()
    );
    let session = &s.session_files()[0];
    assert!(file_contains(session, "THE-SUMMARY"));

    // The provider refuses the next prompt as too long: compact, then retry once.
    let out = run("three");
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_lines(&stdout(&out));
    let reasons: Vec<&str> = events
        .iter()
        .filter(|e| e["type"].as_str() == Some("auto_compaction_start"))
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["overflow"]);
    assert!(stdout(&out).contains("recovered answer"));
    let retry = server.requests().last().unwrap().body_text();
    assert!(
        retry.contains("THE-SUMMARY") && retry.contains("three"),
        "{retry}"
    );
}

/// A long tool-using run fills the context between two model calls: the session
/// is compacted inside the run, before the next call (issue 20.3), announced in
/// order with the run's events, and the next call sees the summary.
#[test]
fn a_run_that_fills_the_context_is_compacted_before_its_next_model_call() {
    let s = Sandbox::new();
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"reserveTokens":1000,"keepRecentTokens":1}}"#,
    )
    .unwrap();
    // A long first answer, so the summary is much shorter than what it replaces.
    let long = "first answer ".repeat(400);
    let server = mock_with_summarizer(
        &format!(
            r#"{{"name":"c","steps":[
      {{"reply":{{"text":"{long}"}}}},
      {{"reply":{{"text":"Looking.","inputTokens":99500,"toolCalls":[{{"name":"ls","arguments":{{"path":"."}}}}]}}}},
      {{"reply":{{"text":"all done"}}}}]}}"#
        ),
        r#"{"name":"s","steps":[{"reply":{"text":"Goal: MID-RUN-SUMMARY"}}]}"#,
    );
    s.write_models(&server.url());
    let run = |prompt: &str| {
        let args = [
            "--mode",
            "json",
            "-c",
            "--model",
            "mock-anthropic/m1",
            prompt,
        ];
        s.run(&args, "")
    };
    assert!(run("one").status.success());
    let out = run("two");
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_lines(&stdout(&out));
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    let at = |kind: &str| kinds.iter().position(|k| *k == kind).expect(kind);
    let start = at("auto_compaction_start");
    assert_eq!(events[start]["reason"].as_str(), Some("threshold"));
    assert_eq!(kinds[start + 1], "auto_compaction_end");
    let end = &events[start + 1];
    assert!(end["errorMessage"].is_null(), "{}", end.to_json_string());
    let (before, after) = (
        end["result"]["tokensBefore"].as_u64().unwrap(),
        end["result"]["tokensAfter"].as_u64().unwrap(),
    );
    assert!(after < before, "{before} → {after}");
    // Inside the run: after the tool's result, before the answer and agent_end.
    assert!(at("tool_execution_end") < start, "{kinds:?}");
    let answer = kinds.iter().rposition(|k| *k == "message_start").unwrap();
    assert!(start < answer && answer < at("agent_end"), "{kinds:?}");
    let requests = server.requests();
    let last = requests.last().unwrap().body_text();
    assert!(last.contains("MID-RUN-SUMMARY"), "{last}");
    assert!(
        !last.contains("first answer"),
        "the summarized part is gone: {last}"
    );
    // The session holds the compaction entry before the answer, and a resume
    // starts from the summary.
    let session = std::fs::read_to_string(&s.session_files()[0]).unwrap();
    let compaction = session
        .find("\"type\":\"compaction\"")
        .expect("compaction entry");
    assert!(compaction < session.find("all done").unwrap());
    run("three");
    let resumed = server.requests().last().unwrap().body_text();
    assert!(
        resumed.contains("MID-RUN-SUMMARY") && resumed.contains("all done"),
        "{resumed}"
    );
}

/// An overloaded server, then an answer: the retry is told in every mode (pi's
/// `retry` settings decide how), and the answer arrives.
#[test]
fn retries_are_visible_in_print_and_json_modes() {
    let scenario = r#"{"name":"overloaded","steps":[
      {"error":{"status":529,"body":"{\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"}},
      {"reply":{"text":"made it"}}]}"#;
    for json in [false, true] {
        let s = Sandbox::new();
        let server = mock(scenario);
        s.write_models(&server.url());
        std::fs::write(
            s.home.join("settings.json"),
            r#"{"retry":{"maxRetries":2,"baseDelayMs":10}}"#,
        )
        .unwrap();
        let mut args = vec!["-p", "--model", "mock-openai/m1", "--no-session", "go"];
        if json {
            args.extend(["--mode", "json"]);
        }
        let out = s.run(&args, "");
        assert!(out.status.success(), "{}", stderr(&out));
        if json {
            let events = json_lines(&stdout(&out));
            let start = events
                .iter()
                .find(|e| e["type"].as_str() == Some("auto_retry_start"))
                .expect("auto_retry_start");
            assert_eq!(start["attempt"].as_u64(), Some(2));
            assert_eq!(start["maxAttempts"].as_u64(), Some(3), "maxRetries 2 + 1");
            assert!(start["errorMessage"]
                .as_str()
                .unwrap()
                .contains("verloaded"));
            let end = events
                .iter()
                .find(|e| e["type"].as_str() == Some("auto_retry_end"))
                .expect("auto_retry_end");
            assert_eq!(end["success"].as_bool(), Some(true));
        } else {
            let err = stderr(&out);
            assert!(err.contains("retrying in"), "{err}");
            assert!(err.contains("(attempt 2/3)"), "{err}");
            assert_eq!(stdout(&out).trim(), "made it");
        }
        assert_eq!(server.requests().len(), 2);
    }
}

/// The system prompt is built anew before every model call: an AGENTS.md written
/// by a tool mid-run reaches the very next call, and the permission mode is stated.
#[test]
fn the_system_prompt_follows_agents_md_and_states_the_mode() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"agents","steps":[
      {"reply":{"text":"Writing the rule.","toolCalls":[{"name":"bash","arguments":{"command":"echo 'Always answer in haiku (rule 7731).' > AGENTS.md"}}]}},
      {"reply":{"text":"Done."}}]}"#,
    );
    s.write_models(&server.url());
    let out = s.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--permission-mode",
            "auto",
            "go",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(!requests[0].body_text().contains("rule 7731"));
    assert!(
        requests[1].body_text().contains("rule 7731"),
        "the second call sees the new AGENTS.md: {}",
        requests[1].body_text()
    );

    let plan = Sandbox::new();
    let server = mock(r#"{"name":"plan","steps":[{"reply":{"text":"A plan."}}]}"#);
    plan.write_models(&server.url());
    let out = plan.run(
        &[
            "-p",
            "--model",
            "mock-openai/m1",
            "--permission-mode",
            "plan",
            "go",
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        server.requests()[0]
            .body_text()
            .contains("You are in plan mode"),
        "the mode is stated"
    );
}

/// settings.json that keeps next to nothing when compacting; with answers that
/// report 90,000 input tokens (of the mock models' 100,000-token window), every run
/// passes the threshold.
const COMPACT_ALWAYS: &str = r#"{"compaction":{"keepRecentTokens":1}}"#;

/// Runs focus with `args` and sends it SIGINT (a terminal's Ctrl+C) once
/// `summary_sent` says the summary request reached the server (the compaction
/// is running); its output.
fn ctrl_c_once_requests_reach(
    s: &Sandbox,
    args: &[&str],
    summary_sent: impl Fn() -> bool,
) -> std::process::Output {
    let mut cmd = s.cmd(args);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !summary_sent() {
        assert!(std::time::Instant::now() < deadline, "no summary request");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let pid = child.id().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status();
    assert!(killed.unwrap().success());
    child.wait_with_output().unwrap()
}

/// Ctrl+C while the automatic compaction's summary streams stops it: exit 130,
/// no compaction recorded, the answer kept.
#[test]
fn ctrl_c_interrupts_an_automatic_compaction() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"slow-summary","steps":[
      {"reply":{"text":"The answer.","inputTokens":90000}},
      {"reply":{"text":"a summary that takes its time to arrive, word by word","chunkDelayMs":3000}}]}"#,
    );
    s.write_models(&server.url());
    std::fs::write(s.home.join("settings.json"), COMPACT_ALWAYS).unwrap();
    let args = ["-p", "--model", "mock-openai/m1", "one", "two"];
    let out = ctrl_c_once_requests_reach(&s, &args, || server.requests().len() >= 2);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "The answer.");
    assert_eq!(server.requests().len(), 2, "the second prompt was not sent");
    let session = std::fs::read_to_string(&s.session_files()[0]).unwrap();
    assert!(!session.contains("\"type\":\"compaction\""), "{session}");
}

/// Ctrl+C while a compaction inside a run summarizes stops it and the run: exit
/// 130, nothing recorded as compacted, the model not called again.
#[test]
fn ctrl_c_interrupts_a_compaction_inside_a_run() {
    let s = Sandbox::new();
    let server = context_filling_tool_call_then_a_slow_summary(&s);
    let args = ["-p", "--model", "mock-anthropic/m1", "go"];
    let out = ctrl_c_once_requests_reach(&s, &args, || server.requests().len() >= 2);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("compacting the history"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.requests().len(), 2, "no model call after the abort");
    let session = std::fs::read_to_string(&s.session_files()[0]).unwrap();
    assert!(!session.contains("\"type\":\"compaction\""), "{session}");
    assert!(
        session.contains("Looking."),
        "the run so far is kept: {session}"
    );
}

/// A compaction that keeps failing is not retried after every run forever: after
/// three failures in a row focus stops trying and says why.
#[test]
fn automatic_compaction_stops_after_three_failures_in_a_row() {
    let s = Sandbox::new();
    let server = mock_with_summarizer(
        r#"{"name":"f","steps":[{"reply":{"text":"ok","inputTokens":90000}},{"reply":{"text":"ok","inputTokens":90000}},
          {"reply":{"text":"ok","inputTokens":90000}},{"reply":{"text":"ok","inputTokens":90000}}]}"#,
        r#"{"name":"s","steps":[{"error":{"status":400,"body":"{\"error\":{\"message\":\"summaries are broken today\"}}"}}]}"#,
    );
    s.write_models(&server.url());
    std::fs::write(s.home.join("settings.json"), COMPACT_ALWAYS).unwrap();
    let out = s.run(&["-p", "--model", "mock-openai/m1", "a", "b", "c", "d"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    // Four answers and three failed summaries (after a run or before a call
    // inside one); no fourth summary attempt.
    let summaries = server
        .requests()
        .iter()
        .filter(|r| r.body_text().contains("context summarization assistant"))
        .count();
    assert_eq!(summaries, 3, "{}", stderr(&out));
    assert_eq!(server.requests().len(), 7, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("failed 3 times in a row"), "{err}");
}

/// Warnings are JSON lines in JSON mode, not lost: a failed compaction here.
#[test]
fn json_mode_prints_warnings_as_events() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"w","steps":[
      {"reply":{"text":"ok","inputTokens":90000}},
      {"error":{"status":400,"body":"{\"error\":{\"message\":\"summaries are broken today\"}}"}}]}"#,
    );
    s.write_models(&server.url());
    std::fs::write(s.home.join("settings.json"), COMPACT_ALWAYS).unwrap();
    let out = s.run(&["--mode", "json", "--model", "mock-openai/m1", "go"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_lines(&stdout(&out));
    let warning = events
        .iter()
        .find(|e| e["type"].as_str() == Some("warning"))
        .expect("a warning line");
    assert!(
        warning["message"]
            .as_str()
            .unwrap()
            .contains("summaries are broken today"),
        "{warning:?}"
    );
}

/// pi's prompt templates and on-demand skills: `/name args` expands a template
/// from prompts/, `/skill:name` loads the skill's SKILL.md; an unknown skill is
/// refused with what is known.
#[test]
fn prompt_templates_and_skills_expand_before_sending() {
    let s = Sandbox::new();
    let server = mock(r#"{"name":"t","steps":[{"reply":{"text":"ok"}}]}"#);
    s.write_models(&server.url());
    s.write_template(
        "fix",
        "---\ndescription: Fix an issue\n---\nPlease fix issue $1 in $2.\n",
    );
    s.write_skill(
        "review",
        "---\nname: review\ndescription: Review code\n---\nRead every line twice (skill 5521).\n",
    );
    let model = ["-p", "--no-session", "--model", "mock-openai/m1"];
    let out = s.run(&[&model[..], &[r#"/fix 42 "the parser""#]].concat(), "");
    assert!(out.status.success(), "{}", stderr(&out));
    let sent = server.requests()[0].body_text();
    assert!(
        sent.contains("Please fix issue 42 in the parser."),
        "{sent}"
    );
    assert!(
        !sent.contains("$1") && !sent.contains("description: Fix"),
        "{sent}"
    );

    let out = s.run(&[&model[..], &["/skill:review src/lib.rs"]].concat(), "");
    assert!(out.status.success(), "{}", stderr(&out));
    let sent = server.requests()[1].body_text();
    assert!(
        sent.contains("Read every line twice (skill 5521)."),
        "{sent}"
    );
    assert!(sent.contains("src/lib.rs"), "{sent}");

    let out = s.run(&[&model[..], &["/skill:nope"]].concat(), "");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(r#"no skill named "nope" (known: review)"#),
        "{}",
        stderr(&out)
    );
}

/// pi's settings keys `prompts` and `skills` add directories: a template and a
/// skill kept outside `.focus/` are found, and an unknown-key warning is gone.
#[test]
fn templates_and_skills_from_the_settings_directories() {
    let s = Sandbox::new();
    let server = mock(r#"{"name":"t","steps":[{"reply":{"text":"ok"}},{"reply":{"text":"ok"}}]}"#);
    s.write_models(&server.url());
    let team = s.work.join("team");
    std::fs::create_dir_all(team.join("prompts")).unwrap();
    std::fs::create_dir_all(team.join("skills/deploy")).unwrap();
    std::fs::write(
        team.join("prompts/ship.md"),
        "Ship $1 to production (team 7731).\n",
    )
    .unwrap();
    std::fs::write(
        team.join("skills/deploy/SKILL.md"),
        "---\nname: deploy\ndescription: Deploy\n---\nCheck the canary first (team 8842).\n",
    )
    .unwrap();
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"prompts":["team/prompts"],"skills":["team/skills"]}"#,
    )
    .unwrap();
    let model = ["-p", "--no-session", "--model", "mock-openai/m1"];
    let out = s.run(&[&model[..], &["/ship v2"]].concat(), "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("prompts"),
        "no warning: {}",
        stderr(&out)
    );
    let sent = server.requests()[0].body_text();
    assert!(
        sent.contains("Ship v2 to production (team 7731)."),
        "{sent}"
    );
    let out = s.run(&[&model[..], &["/skill:deploy"]].concat(), "");
    assert!(out.status.success(), "{}", stderr(&out));
    let sent = server.requests()[1].body_text();
    assert!(
        sent.contains("Check the canary first (team 8842)."),
        "{sent}"
    );
}
