//! Keys stay out of the tools' reach, by every route a key can take: the
//! built-in variable, a variable models.json names, a literal in models.json,
//! and a `!command` in models.json. A bash tool call looks for the key in its
//! own environment, in focus's `/proc/PID/environ` and in models.json; the key
//! must reach the server as a header and nowhere else. The command outlives one
//! partial-output update, so the streamed updates of JSON mode are checked too.

use crate::support::*;

/// One scenario: the model asks for every place a key could be seen.
const LOOK_FOR_KEYS: &str = r#"{"name":"look_for_keys","steps":[
  {"reply":{"text":"Looking.","toolCalls":[{"name":"bash","arguments":{"command":"{ env; tr '\\0' '\\n' < /proc/$PPID/environ; } > seen.txt; cat seen.txt; cat \"$FOCUS_HOME/models.json\"; sleep 0.6"}}]}},
  {"reply":{"text":"Done."}}
]}"#;

/// models.json with one OpenAI-compatible provider `k` served by `url`, whose
/// `apiKey` is `api_key` (omitted when `None`: then `OPENAI_API_KEY` applies,
/// as the provider is named `openai`).
fn write_models(s: &Sandbox, url: &str, name: &str, api_key: Option<&str>) {
    let key = api_key.map_or(String::new(), |k| format!(r#""apiKey":"{k}","#));
    std::fs::write(
        s.home.join("models.json"),
        format!(
            r#"{{"providers":{{"{name}":{{"baseUrl":"{url}/v1","api":"openai-completions",{key}"models":[{{"id":"m1","contextWindow":100000,"maxTokens":4096}}]}}}}}}"#
        ),
    )
    .unwrap();
}

fn check_route(route: &str, name: &str, api_key: Option<&str>, env: &[(&str, &str)], secret: &str) {
    let s = Sandbox::new();
    let server = mock(LOOK_FOR_KEYS);
    write_models(&s, &server.url(), name, api_key);
    let model = format!("{name}/m1");
    let mut cmd = s.cmd(&[
        "--mode",
        "json",
        "--permission-mode",
        "auto",
        "--model",
        &model,
        "find the key",
    ]);
    for (var, value) in env {
        cmd.env(var, value);
    }
    let out = run_command(cmd, "");
    assert!(out.status.success(), "{route}: {}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{route}: {}", stderr(&out));
    let headers = format!("{:?}", requests[0].headers);
    assert!(
        headers.contains(secret),
        "{route}: the key must be sent: {headers}"
    );
    // The tool really ran and its output went back.
    // What the tool saw, unscrubbed: its environment and focus's, from /proc.
    let seen = std::fs::read_to_string(s.work.join("seen.txt")).unwrap_or_default();
    assert!(
        seen.contains("FOCUS_HOME="),
        "{route}: the tool did not run: {seen}"
    );
    assert!(
        !seen.contains(secret),
        "{route}: the tool saw the key in an environment"
    );
    let body = requests[1].body_text();
    assert!(body.contains("FOCUS_HOME"), "{route}: {body}");
    assert!(
        !body.contains(secret),
        "{route}: the key reached the request body"
    );
    assert!(
        !stdout(&out).contains(secret),
        "{route}: the key reached JSON output"
    );
    assert!(
        !stderr(&out).contains(secret),
        "{route}: the key reached stderr"
    );
    for file in s.session_files() {
        assert!(
            !file_contains(&file, secret),
            "{route}: the key reached {}",
            file.display()
        );
    }
}

#[test]
fn the_built_in_variable_is_hidden() {
    let secret = "sk-builtin-0123456789abcdef";
    check_route(
        "OPENAI_API_KEY",
        "openai",
        None,
        &[("OPENAI_API_KEY", secret)],
        secret,
    );
}

#[test]
fn a_variable_named_in_models_json_is_hidden() {
    let secret = "work-token-0123456789abcdef";
    check_route(
        "models.json variable",
        "work",
        Some("WORK_LLM_TOKEN"),
        &[("WORK_LLM_TOKEN", secret)],
        secret,
    );
}

#[test]
fn a_literal_key_in_models_json_is_scrubbed_from_tool_output() {
    let secret = "literal-key-0123456789abcdef";
    check_route("models.json literal", "lit", Some(secret), &[], secret);
}

#[test]
fn a_key_command_in_models_json_is_scrubbed_from_tool_output() {
    let secret = "command-key-0123456789abcdef";
    check_route(
        "models.json !command",
        "cmd",
        Some(&format!("!printf {secret}")),
        &[],
        secret,
    );
}

/// The issue's reproduction: in plan mode, another process's environment is
/// grepped from `/proc` and piped through `rev`; and a key in a file the tools
/// can read is printed reversed, base64-encoded, hex-dumped and folded. The
/// tool runs (its output comes back, with `[redacted]` in it) and no form of the
/// key reaches the request, the output or the session file.
#[test]
fn a_disguised_key_is_scrubbed_in_plan_mode() {
    let secret = "sk-disguise-0123456789abcdefGHIJ";
    let reversed: String = secret.chars().rev().collect();
    let command = "grep -a -o 'OPENAI_API_KEY=[^[:cntrl:]]*' /proc/[0-9]*/environ | rev; \
                   rev key.txt; base64 key.txt; od -An -tx1 key.txt; fold -w 7 key.txt";
    let scenario = format!(
        r#"{{"name":"disguise","steps":[
  {{"reply":{{"text":"Looking.","toolCalls":[{{"name":"bash","arguments":{{"command":{}}}}}]}}}},
  {{"reply":{{"text":"Done."}}}}
]}}"#,
        focus_core::json::Value::from(command).to_json_string()
    );
    let s = Sandbox::new();
    std::fs::write(s.work.join("key.txt"), format!("{secret}\n")).unwrap();
    // A process of the user's, started from a shell that holds the key.
    let mut other = std::process::Command::new("sleep")
        .arg("60")
        .env("OPENAI_API_KEY", secret)
        .spawn()
        .unwrap();
    let server = mock(&scenario);
    write_models(&s, &server.url(), "openai", None);
    let mut cmd = s.cmd(&[
        "--mode",
        "json",
        "--permission-mode",
        "plan",
        "--model",
        "openai/m1",
        "find the key",
    ]);
    cmd.env("OPENAI_API_KEY", secret);
    let out = run_command(cmd, "");
    let _ = other.kill();
    let _ = other.wait();
    assert!(out.status.success(), "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{}", stderr(&out));
    let body = requests[1].body_text();
    assert!(body.contains("[redacted]"), "the tool did not run: {body}");
    let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
    let fragments = [
        secret,
        reversed.as_str(),
        &hex,
        &secret[..12],
        &reversed[..12],
    ];
    for fragment in fragments {
        assert!(
            !body.contains(fragment),
            "{fragment} reached the request: {body}"
        );
        assert!(
            !stdout(&out).contains(fragment),
            "{fragment} reached the output"
        );
        for file in s.session_files() {
            assert!(
                !file_contains(&file, fragment),
                "{fragment} reached {}",
                file.display()
            );
        }
    }
}

/// focus's own `/proc/PID/environ` shows no key by the time it asks the model
/// (wiped in place, or gone with the restart), while the request still carries
/// it: the mock model reads focus's environment block from `/proc` when the
/// request arrives.
#[test]
fn focus_own_environ_shows_no_key_while_the_request_carries_it() {
    use focus_testkit::mock_llm::server::respond;
    use focus_testkit::mock_llm::Scenario;
    use focus_testkit::server::TestServer;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::{Arc, Mutex};
    let secret = "sk-environ-0123456789abcdef";
    let s = Sandbox::new();
    let pid = Arc::new(AtomicU32::new(0));
    let seen: Arc<Mutex<Option<std::io::Result<Vec<u8>>>>> = Arc::new(Mutex::new(None));
    let scenario =
        Scenario::parse(r#"{"name":"environ","steps":[{"reply":{"text":"Done."}}]}"#).unwrap();
    let server = TestServer::responder({
        let (pid, seen) = (pid.clone(), seen.clone());
        move |request| {
            // The request can only come after the spawn returned; wait for the pid anyway.
            let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while pid.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            let environ = std::fs::read(format!("/proc/{}/environ", pid.load(Ordering::SeqCst)));
            *seen.lock().unwrap() = Some(environ);
            respond(&scenario, 0, request)
        }
    });
    write_models(&s, &server.url(), "openai", None);
    let mut cmd = s.cmd(&["-p", "--model", "openai/m1", "hello"]);
    cmd.env("OPENAI_API_KEY", secret)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("focus starts");
    pid.store(child.id(), Ordering::SeqCst);
    let out = child.wait_with_output().expect("focus ends");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("Done."), "{}", stdout(&out));
    let headers = format!("{:?}", server.requests()[0].headers);
    assert!(headers.contains(secret), "the key must be sent: {headers}");
    let environ = seen
        .lock()
        .unwrap()
        .take()
        .expect("the model was asked")
        .expect("focus's /proc/PID/environ is readable");
    let text = String::from_utf8_lossy(&environ);
    assert!(
        text.contains("FOCUS_HOME="),
        "not focus's environment block: {text}"
    );
    assert!(
        !text.contains(secret) && !text.contains("OPENAI_API_KEY="),
        "focus's /proc/PID/environ still shows the key"
    );
}
