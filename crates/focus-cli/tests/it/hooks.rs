//! Claude Code's hook events over the real binary: each test writes a hook script
//! into its sandbox that appends its standard input (one JSON line) to a log and
//! ends with the exit code under test, then checks what focus did with it and
//! what the hook read.

use crate::support::*;
use focus_core::json::{parse_str, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A hook: a script in the project that logs its stdin to `<name>.log` (in the
/// project, where even a confined hook may write), then runs
/// `body` (which decides the output and the exit code). Returns the command for
/// settings and the log's path.
fn hook(s: &Sandbox, name: &str, body: &str) -> (String, PathBuf) {
    let log = s.work.join(format!("{name}.log"));
    let script = s.work.join(format!("{name}.sh"));
    std::fs::write(
        &script,
        format!(
            "input=$(cat)\nprintf '%s\\n' \"$input\" >> '{}'\n{body}\n",
            log.display()
        ),
    )
    .unwrap();
    (format!("sh {}", script.display()), log)
}

/// Writes settings with one hook group per `(event, command)`.
fn settings(s: &Sandbox, hooks: &[(&str, &str)]) {
    settings_with(s, hooks, "");
}

/// [`settings`] with more top-level keys (`"key": value,` text).
fn settings_with(s: &Sandbox, hooks: &[(&str, &str)], more: &str) {
    let events: Vec<String> = hooks
        .iter()
        .map(|(event, command)| {
            format!(
                r#""{event}":[{{"hooks":[{{"type":"command","command":{}}}]}}]"#,
                Value::from(*command).to_json_string()
            )
        })
        .collect();
    std::fs::write(
        s.home.join("settings.json"),
        format!(r#"{{{more}"hooks":{{{}}}}}"#, events.join(",")),
    )
    .unwrap();
}

/// Every JSON line a hook logged.
fn logged(log: &PathBuf) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| parse_str(l).unwrap_or_else(|e| panic!("hook input not JSON ({e}): {l}")))
        .collect()
}

/// Waits (generously) until `log` holds `lines` lines.
fn wait_for_lines(log: &PathBuf, lines: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let seen = logged(log);
        if seen.len() >= lines || Instant::now() > deadline {
            return seen;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

const ANSWERS: &str = r#"{"name":"answers","steps":[
  {"reply":{"text":"answer one"}},{"reply":{"text":"answer two"}},
  {"reply":{"text":"answer three"}},{"reply":{"text":"answer four"}},
  {"reply":{"text":"answer five"}},{"reply":{"text":"answer six"}}
]}"#;

fn print(s: &Sandbox, server_url: &str, prompt: &str) -> std::process::Output {
    s.write_models(server_url);
    s.run(&["-p", "--model", "mock-openai/m1", prompt], "")
}

#[test]
fn user_prompt_submit_exit_2_refuses_the_prompt_before_the_model_sees_it() {
    let s = Sandbox::new();
    let (command, log) = hook(&s, "ups", "echo 'no tokens in prompts' >&2; exit 2");
    settings(&s, &[("UserPromptSubmit", &command)]);
    let server = mock(ANSWERS);
    let out = print(&s, &server.url(), "here is my token abc");
    assert!(!out.status.success(), "a refused prompt is a failure");
    assert!(
        stderr(&out).contains("no tokens in prompts"),
        "the hook's reason is shown: {}",
        stderr(&out)
    );
    assert!(server.requests().is_empty(), "nothing reached the model");
    let input = &logged(&log)[0];
    assert_eq!(input["hook_event_name"].as_str(), Some("UserPromptSubmit"));
    assert_eq!(input["prompt"].as_str(), Some("here is my token abc"));
    assert!(!input["session_id"].as_str().unwrap_or("").is_empty());
    assert!(input["transcript_path"]
        .as_str()
        .is_some_and(|p| p.ends_with(".jsonl")));
    assert!(input["cwd"].as_str().is_some_and(|c| c.ends_with("work")));
}

#[test]
fn user_prompt_submit_block_json_and_other_failures_refuse_too() {
    for (body, reason) in [
        (
            r#"echo '{"decision":"block","reason":"json says no"}'"#,
            "json says no",
        ),
        // focus is stricter than Claude Code: a crashing guard refuses.
        ("echo 'guard broke' >&2; exit 1", "guard broke"),
    ] {
        let s = Sandbox::new();
        let (command, _) = hook(&s, "ups", body);
        settings(&s, &[("UserPromptSubmit", &command)]);
        let server = mock(ANSWERS);
        let out = print(&s, &server.url(), "hello");
        assert!(!out.status.success());
        assert!(stderr(&out).contains(reason), "{}", stderr(&out));
        assert!(server.requests().is_empty());
    }
}

#[test]
fn user_prompt_submit_refusal_reaches_an_rpc_client_and_the_next_prompt_goes_through() {
    let s = Sandbox::new();
    let (command, _) = hook(
        &s,
        "ups",
        r#"case "$input" in *password*) echo 'no passwords' >&2; exit 2;; esac"#,
    );
    settings(&s, &[("UserPromptSubmit", &command)]);
    let server = mock(ANSWERS);
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(
        1,
        r#"{"id":1,"type":"prompt","message":"my password is x"}"#,
    );
    let end = rpc.agent_end();
    assert_eq!(end["reason"].as_str(), Some("error"), "{end:?}");
    assert!(end["errorMessage"]
        .as_str()
        .is_some_and(|m| m.contains("no passwords")));
    assert!(server.requests().is_empty());
    rpc.call(2, r#"{"id":2,"type":"prompt","message":"hello"}"#);
    rpc.agent_end();
    assert_eq!(server.requests().len(), 1);
    assert!(!server.requests()[0].body_text().contains("password"));
    assert_eq!(rpc.close(), 0);
}

#[test]
fn user_prompt_submit_stdout_is_added_to_the_prompt() {
    for body in [
        "echo 'current branch: feature-x'",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"current branch: feature-x"}}'"#,
    ] {
        let s = Sandbox::new();
        let (command, _) = hook(&s, "ups", body);
        settings(&s, &[("UserPromptSubmit", &command)]);
        let server = mock(ANSWERS);
        let out = print(&s, &server.url(), "what branch?");
        assert!(out.status.success(), "{}", stderr(&out));
        let sent = server.requests()[0].body_text();
        assert!(sent.contains("what branch?"), "{sent}");
        assert!(sent.contains("current branch: feature-x"), "{sent}");
        assert!(
            !sent.contains("hookSpecificOutput"),
            "JSON is read, not pasted: {sent}"
        );
    }
}

#[test]
fn stop_exit_2_makes_the_agent_go_on_once_with_the_reason() {
    let s = Sandbox::new();
    // Blocks the first stop only, as a Claude Code Stop hook checking
    // stop_hook_active does.
    let (command, log) = hook(
        &s,
        "stop",
        r#"case "$input" in *'"stop_hook_active":true'*) exit 0;; esac
echo 'the tests were not run' >&2; exit 2"#,
    );
    settings(&s, &[("Stop", &command)]);
    let server = mock(ANSWERS);
    let out = print(&s, &server.url(), "fix it");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).trim().ends_with("answer two"),
        "{}",
        stdout(&out)
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].body_text().contains("the tests were not run"));
    let inputs = logged(&log);
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[0]["hook_event_name"].as_str(), Some("Stop"));
    assert_eq!(inputs[0]["stop_hook_active"].as_bool(), Some(false));
    assert_eq!(inputs[1]["stop_hook_active"].as_bool(), Some(true));
}

#[test]
fn a_stop_hook_that_always_blocks_is_cut_off() {
    let s = Sandbox::new();
    let (command, log) = hook(
        &s,
        "stop",
        r#"echo '{"decision":"block","reason":"again"}'"#,
    );
    settings(&s, &[("Stop", &command)]);
    let server = mock(ANSWERS);
    let out = print(&s, &server.url(), "go");
    // The first answer and three continuations (MAX_STOP_CONTINUATIONS); the
    // hook, asked a fourth time, still blocks: the run stops and says why.
    assert_eq!(server.requests().len(), 4);
    assert_eq!(logged(&log).len(), 4);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("a Stop hook kept this prompt going 3 times and asked for more"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_crashing_stop_hook_lets_the_agent_stop_with_a_warning() {
    let s = Sandbox::new();
    let (command, log) = hook(&s, "stop", "echo 'stop hook broke' >&2; exit 1");
    settings(&s, &[("Stop", &command)]);
    let server = mock(ANSWERS);
    let out = print(&s, &server.url(), "go");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.requests().len(), 1);
    assert_eq!(logged(&log).len(), 1);
    assert!(
        stderr(&out).contains("Stop hook failed (exit 1"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("stop hook broke"), "{}", stderr(&out));
}

#[test]
fn session_start_context_reaches_the_first_prompt_and_session_end_runs_at_exit() {
    let s = Sandbox::new();
    let (start, start_log) = hook(&s, "start", "echo 'house rule: tabs'");
    let (end, end_log) = hook(&s, "end", "echo ignored; exit 3");
    settings(&s, &[("SessionStart", &start), ("SessionEnd", &end)]);
    let server = mock(ANSWERS);
    let out = print(&s, &server.url(), "hello");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(server.requests()[0]
        .body_text()
        .contains("house rule: tabs"));
    let started = logged(&start_log);
    assert_eq!(started[0]["hook_event_name"].as_str(), Some("SessionStart"));
    assert_eq!(started[0]["source"].as_str(), Some("startup"));
    let ended = logged(&end_log);
    assert_eq!(ended.len(), 1, "SessionEnd ran once, before focus exited");
    assert_eq!(ended[0]["hook_event_name"].as_str(), Some("SessionEnd"));
    assert_eq!(ended[0]["reason"].as_str(), Some("other"));
    assert_eq!(ended[0]["session_id"], started[0]["session_id"]);
}

#[test]
fn a_new_session_ends_the_old_one_and_starts_again_with_source_clear() {
    let s = Sandbox::new();
    let (start, start_log) = hook(&s, "start", "exit 0");
    let (end, end_log) = hook(&s, "end", "exit 0");
    settings(&s, &[("SessionStart", &start), ("SessionEnd", &end)]);
    let server = mock(ANSWERS);
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"new_session"}"#);
    assert_eq!(rpc.close(), 0);
    let started = logged(&start_log);
    let sources: Vec<_> = started.iter().map(|v| v["source"].as_str()).collect();
    assert_eq!(sources, [Some("startup"), Some("clear")]);
    let ended = logged(&end_log);
    let reasons: Vec<_> = ended.iter().map(|v| v["reason"].as_str()).collect();
    assert_eq!(reasons, [Some("clear"), Some("other")]);
    // Each end names the session it ends.
    assert_eq!(ended[0]["session_id"], started[0]["session_id"]);
    assert_eq!(ended[1]["session_id"], started[1]["session_id"]);
    assert_ne!(started[0]["session_id"], started[1]["session_id"]);
}

#[test]
fn pre_compact_runs_before_automatic_and_manual_compactions() {
    let s = Sandbox::new();
    // Exit 2 does not stop a compaction: PreCompact is informational.
    let (command, log) = hook(&s, "compact", "exit 2");
    settings_with(
        &s,
        &[("PreCompact", &command)],
        r#""compaction":{"keepRecentTokens":1},"#,
    );
    let server = mock(
        r#"{"name":"c","steps":[{"reply":{"text":"hi there","inputTokens":90000}},
        {"reply":{"text":"a summary"}},{"reply":{"text":"another summary"}}]}"#,
    );
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"hello"}"#);
    let end = rpc.until("the compaction ending", |v| {
        v["type"].as_str() == Some("auto_compaction_end")
    });
    assert!(
        !end["result"].is_null(),
        "the compaction went ahead: {end:?}"
    );
    rpc.agent_end();
    rpc.call(
        2,
        r#"{"id":2,"type":"compact","customInstructions":"keep names"}"#,
    );
    let inputs = logged(&log);
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[0]["hook_event_name"].as_str(), Some("PreCompact"));
    assert_eq!(inputs[0]["trigger"].as_str(), Some("auto"));
    assert_eq!(inputs[0]["custom_instructions"].as_str(), Some(""));
    assert_eq!(inputs[1]["trigger"].as_str(), Some("manual"));
    assert_eq!(
        inputs[1]["custom_instructions"].as_str(),
        Some("keep names")
    );
    assert_eq!(rpc.close(), 0);
}

#[test]
fn notification_runs_when_an_approval_waits() {
    let s = Sandbox::new();
    let (command, log) = hook(&s, "notify", "exit 0");
    settings(&s, &[("Notification", &command)]);
    let server = mock(
        r#"{"name":"n","steps":[
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch made.txt"}}]}},
      {"reply":{"text":"ok"}}]}"#,
    );
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"make a file"}"#);
    let request = rpc.until("approval", |v| {
        v["type"].as_str() == Some("approval_request")
    });
    let inputs = wait_for_lines(&log, 1);
    assert_eq!(inputs.len(), 1, "the Notification hook ran while we waited");
    assert_eq!(inputs[0]["hook_event_name"].as_str(), Some("Notification"));
    assert_eq!(
        inputs[0]["notification_type"].as_str(),
        Some("permission_prompt")
    );
    assert!(inputs[0]["message"]
        .as_str()
        .is_some_and(|m| m.contains("bash")));
    let id = request["requestId"].as_str().unwrap().to_string();
    rpc.call(
        2,
        &format!(r#"{{"id":2,"type":"approve","requestId":"{id}","decision":"deny"}}"#),
    );
    rpc.agent_end();
    assert_eq!(rpc.close(), 0);
}

#[test]
fn unknown_events_are_warnings_not_refusals_and_subagent_stop_is_read() {
    let s = Sandbox::new();
    let (command, log) = hook(&s, "sub", "exit 2");
    settings(&s, &[("SubagentStop", &command), ("NoSuchEvent", &command)]);
    let server = mock(ANSWERS);
    let out = print(&s, &server.url(), "hello");
    assert!(out.status.success(), "{}", stderr(&out));
    // SubagentStop is an event focus runs now: no warning; no subagent ran.
    assert!(
        !stderr(&out).contains("hooks.SubagentStop"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("hooks.NoSuchEvent"),
        "{}",
        stderr(&out)
    );
    assert!(logged(&log).is_empty());
}
