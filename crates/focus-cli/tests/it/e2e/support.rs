//! The end-to-end suite's tools: a [`World`] (a mock LLM server, a focus home and a
//! project directory), running the binary with a deadline, and the checks shared by
//! every scenario.

use focus_core::json::{parse_str, Value};
use focus_core::message::Message;
use focus_testkit::mock_llm::{Api, MockLlm, Scenario};
use focus_testkit::server::RecordedRequest;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The API key every run uses: a marker that must never show up in a body, a
/// session file or a process's arguments.
pub const KEY: &str = "sk-e2e-SECRET-7f3a9c";

/// The longest any single focus run may take before the test fails.
const DEADLINE: Duration = Duration::from_secs(60);

/// A mock server, a config home and a project directory for one scenario and API.
pub struct World {
    pub api: Api,
    pub server: MockLlm,
    pub root: PathBuf,
    pub home: PathBuf,
    pub cwd: PathBuf,
}

/// What one finished run printed.
#[derive(Default)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl World {
    /// A world playing `fixtures/scenarios/<name>.json`.
    pub fn new(api: Api, name: &str) -> World {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../fixtures/scenarios/{name}.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        World::with_steps(api, &text)
    }

    /// A world playing the scenario given as JSON text.
    pub fn with_steps(api: Api, scenario: &str) -> World {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let scenario = Scenario::parse(scenario).expect("scenario parses");
        let server = MockLlm::start(scenario);
        let unique = format!(
            "focus-e2e-{}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst),
            api.name()
        );
        let root = std::env::temp_dir().join(unique);
        let home = root.join("home");
        let cwd = root.join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::write(cwd.join("notes.txt"), "remember the milk\n").unwrap();
        let base_url = match api {
            Api::AnthropicMessages => server.url(),
            Api::OpenAiCompletions | Api::OpenAiResponses => format!("{}/v1", server.url()),
            Api::GoogleGenerativeAi => format!("{}/v1beta", server.url()),
        };
        let models = format!(
            r#"{{"providers": {{"mock": {{"baseUrl": "{base_url}", "api": "{}", "apiKey": "FOCUS_E2E_KEY",
                "models": [{{"id": "mock-model", "name": "Mock", "contextWindow": 200000, "maxTokens": 4096,
                             "reasoning": true, "input": ["text", "image"]}}]}}}}}}"#,
            api.name()
        );
        std::fs::write(home.join("models.json"), models).unwrap();
        World {
            api,
            server,
            root,
            home,
            cwd,
        }
    }

    /// Writes the project's `.focus/settings.json`.
    pub fn write_project_settings(&self, json: &str) {
        let dir = self.cwd.join(".focus");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("settings.json"), json).unwrap();
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(focus_binary());
        command.args(["--model", "mock/mock-model"]).args(args);
        command
            .current_dir(&self.cwd)
            .env("FOCUS_HOME", &self.home)
            .env("FOCUS_E2E_KEY", KEY);
        command.env("NO_COLOR", "1").env("HOME", &self.root);
        for var in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GEMINI_API_KEY",
            "OLLAMA_HOST",
            "CI_FOCUS_PROVIDER",
        ] {
            command.env_remove(var);
        }
        command
    }

    /// Starts focus with `args` (after `--model mock/mock-model`), stdin closed.
    pub fn spawn_focus(&self, args: &[&str]) -> Child {
        let mut command = self.command(args);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command.spawn().expect("focus starts")
    }

    /// Runs focus to the end (killing it at the deadline, which fails the test).
    pub fn focus(&self, args: &[&str]) -> Run {
        let child = self.spawn_focus(args);
        finish(child, args)
    }

    /// Runs focus in JSON mode with `args`: the run must succeed and its event stream
    /// keep the grammar. Returns the run and its events.
    pub fn focus_json(&self, args: &[&str]) -> (Run, Vec<Value>) {
        let mut all = vec!["--mode", "json"];
        all.extend_from_slice(args);
        let run = self.focus(&all);
        run.assert_success();
        let events = run.json_events();
        check_event_grammar(&events)
            .unwrap_or_else(|e| panic!("{:?}: {e}\n{}", self.api, run.stdout));
        (run, events)
    }

    /// The requests the mock server received, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.server.requests()
    }

    /// The session file focus wrote (the most recently modified one).
    pub fn session_file(&self) -> PathBuf {
        let mut files = Vec::new();
        collect_jsonl(&self.home.join("sessions"), &mut files);
        files.sort_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
        files.pop().unwrap_or_else(|| {
            panic!(
                "{:?}: no session file under {}",
                self.api,
                self.home.display()
            )
        })
    }

    /// Loads the session file and checks it: no key in it, a well-formed history of
    /// at least `min_messages` messages. Returns the messages as JSON.
    pub fn check_session(&self, min_messages: usize) -> Vec<Value> {
        self.check_session_at(&self.session_file(), min_messages)
    }

    /// [`World::check_session`] for a given file.
    pub fn check_session_at(&self, path: &Path, min_messages: usize) -> Vec<Value> {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            !text.contains(KEY),
            "{:?}: the API key is in the session file",
            self.api
        );
        let manager = focus_harness::session::SessionManager::open_read_only(path)
            .unwrap_or_else(|e| panic!("{:?}: session does not load: {e}", self.api));
        let messages: Vec<Message> = manager.context().messages;
        assert!(
            messages.len() >= min_messages,
            "{:?}: expected at least {min_messages} messages, found {}",
            self.api,
            messages.len()
        );
        focus_core::agent::check_history(&messages)
            .unwrap_or_else(|e| panic!("{:?}: invalid history: {e}", self.api));
        messages
            .iter()
            .map(focus_core::json::ToJson::to_json)
            .collect()
    }

    /// RPC mode: prompt, abort while the second answer streams, wait for the end,
    /// quit. Returns the session file.
    pub fn run_rpc_abort(&self) -> PathBuf {
        let mut command = self.command(&["--mode", "rpc"]);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("focus starts");
        let mut stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        writeln!(
            stdin,
            r#"{{"id":"p1","type":"prompt","message":"List the files, then explain"}}"#
        )
        .unwrap();
        let deadline = Instant::now() + DEADLINE;
        let mut aborted = false;
        let mut lines_seen = Vec::new();
        for line in stdout.lines() {
            let line = line.unwrap();
            assert!(
                Instant::now() < deadline,
                "{:?}: RPC run passed its deadline",
                self.api
            );
            let event = parse_str(&line)
                .unwrap_or_else(|e| panic!("{:?}: bad RPC line {line:?}: {e}", self.api));
            lines_seen.push(event["type"].as_str().unwrap_or("").to_string());
            // Abort once the second answer has begun streaming text.
            let is_text_delta =
                event["assistantMessageEvent"]["type"].as_str() == Some("text_delta");
            if !aborted && is_text_delta && self.server.requests().len() == 2 {
                writeln!(stdin, r#"{{"id":"a1","type":"abort"}}"#).unwrap();
                aborted = true;
            }
            if event["type"].as_str() == Some("agent_end") {
                break;
            }
        }
        assert!(
            aborted,
            "{:?}: never reached the second answer; saw {lines_seen:?}",
            self.api
        );
        drop(stdin);
        let status = wait_with_deadline(&mut child);
        assert_eq!(
            status,
            Some(0),
            "{:?}: RPC mode exited with {status:?}",
            self.api
        );
        self.session_file()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

impl Run {
    /// Fails the test with everything printed unless the run exited 0.
    pub fn assert_success(&self) {
        assert_eq!(
            self.code,
            Some(0),
            "focus failed\nstdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
    }

    /// stdout as JSON lines; every line must parse.
    pub fn json_events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| parse_str(l).unwrap_or_else(|e| panic!("not a JSON line: {l:?}: {e}")))
            .collect()
    }
}

fn finish(mut child: Child, args: &[&str]) -> Run {
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let code = wait_with_deadline(&mut child);
    let run = Run {
        code,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    };
    assert!(
        run.code.is_some(),
        "focus {args:?} ran past {DEADLINE:?} and was killed\n{}",
        run.stderr
    );
    run
}

/// Waits for `child`, killing it at the deadline (then returns `None`).
fn wait_with_deadline(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_jsonl(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

/// `(pid, arguments joined by NUL)` of every process we can read.
pub fn all_process_arguments() -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) {
            out.push((pid, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    out
}

/// The JSON event stream's grammar: the session header (as pi prints it), then
/// `agent_start`, …, `agent_end`, then the result record last; every
/// `message_start` closed by one `message_end` before the next opens, every
/// `tool_execution_start` closed by one `tool_execution_end` with the same id, and
/// `message_update` only inside an open message.
pub fn check_event_grammar(events: &[Value]) -> Result<(), String> {
    let events = match events.first() {
        Some(header) if header["type"].as_str() == Some("session") => &events[1..],
        _ => events,
    };
    // The result record closes the stream (docs/json-events.md).
    let events = match events.split_last() {
        Some((last, rest)) if last["type"].as_str() == Some("result") => rest,
        _ => return Err("the last line is not the result record".into()),
    };
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?"))
        .collect();
    if kinds.first() != Some(&"agent_start") {
        return Err(format!(
            "first event is {:?}, not agent_start",
            kinds.first()
        ));
    }
    if kinds.last() != Some(&"agent_end") {
        return Err(format!("last event is {:?}, not agent_end", kinds.last()));
    }
    let mut open_message = false;
    let mut open_tools: Vec<String> = Vec::new();
    for (i, event) in events.iter().enumerate() {
        match kinds[i] {
            "message_start" if open_message => {
                return Err(format!("event {i}: message_start inside a message"))
            }
            "message_start" => open_message = true,
            "message_update" if !open_message => {
                return Err(format!("event {i}: message_update outside a message"))
            }
            "message_end" if !open_message => {
                return Err(format!("event {i}: message_end without a start"))
            }
            "message_end" => open_message = false,
            "tool_execution_start" => {
                open_tools.push(event["toolCallId"].as_str().unwrap_or("").to_string())
            }
            "tool_execution_end" => {
                let id = event["toolCallId"].as_str().unwrap_or("");
                let Some(at) = open_tools.iter().position(|open| open == id) else {
                    return Err(format!(
                        "event {i}: tool_execution_end for {id:?} that never started"
                    ));
                };
                open_tools.remove(at);
            }
            _ => {}
        }
    }
    if open_message || !open_tools.is_empty() {
        return Err(format!(
            "unclosed at the end: message {open_message}, tools {open_tools:?}"
        ));
    }
    Ok(())
}

/// Checks every request the server received: no key in the body, the key in the
/// API's auth header, and tool calls and results paired (every result answers an
/// earlier call of the same id, every call is answered).
pub fn check_requests(world: &World) {
    for (i, request) in world.requests().iter().enumerate() {
        let body = request.body_text();
        assert!(
            !body.contains(KEY),
            "{:?}: request {i} has the key in its body",
            world.api
        );
        let auth = ["x-api-key", "authorization", "x-goog-api-key"]
            .iter()
            .filter_map(|h| request.header(h))
            .any(|v| v.contains(KEY));
        assert!(
            auth,
            "{:?}: request {i} does not authenticate with the key",
            world.api
        );
        let json = request
            .body_json()
            .unwrap_or_else(|| panic!("{:?}: request {i} is not JSON", world.api));
        let (calls, results) = tool_ids(world.api, &json);
        assert_eq!(
            calls, results,
            "{:?}: request {i}: tool calls and results are not paired\n{body}",
            world.api
        );
    }
}

/// The tool-call ids (in order) and the ids their results answer, as the API spells them.
fn tool_ids(api: Api, body: &Value) -> (Vec<String>, Vec<String>) {
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    match api {
        Api::AnthropicMessages => {
            for message in body["messages"].as_array().into_iter().flatten() {
                for block in message["content"].as_array().into_iter().flatten() {
                    match block["type"].as_str() {
                        Some("tool_use") => calls.push(text(&block["id"])),
                        Some("tool_result") => results.push(text(&block["tool_use_id"])),
                        _ => {}
                    }
                }
            }
        }
        Api::OpenAiCompletions => {
            for message in body["messages"].as_array().into_iter().flatten() {
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    calls.push(text(&call["id"]));
                }
                if message["role"].as_str() == Some("tool") {
                    results.push(text(&message["tool_call_id"]));
                }
            }
        }
        Api::OpenAiResponses => {
            for item in body["input"].as_array().into_iter().flatten() {
                match item["type"].as_str() {
                    Some("function_call") => calls.push(text(&item["call_id"])),
                    Some("function_call_output") => results.push(text(&item["call_id"])),
                    _ => {}
                }
            }
        }
        Api::GoogleGenerativeAi => {
            for content in body["contents"].as_array().into_iter().flatten() {
                for part in content["parts"].as_array().into_iter().flatten() {
                    if part.get("functionCall").is_some() {
                        calls.push(text(&part["functionCall"]["name"]));
                    }
                    if part.get("functionResponse").is_some() {
                        results.push(text(&part["functionResponse"]["name"]));
                    }
                }
            }
        }
    }
    (calls, results)
}

/// The MCP test server binary (focus-tools' `mcp_test_server` example): beside this
/// test under `examples/` when `cargo test` built it, else built now into a
/// separate target directory (so as not to wait on cargo's lock).
pub fn mcp_test_server() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let candidate = profile_dir.join("examples").join("mcp_test_server");
    if candidate.exists() {
        return candidate;
    }
    let target = profile_dir.join("e2e-mcp-test-server");
    let status = Command::new(env!("CARGO"))
        .args(["build", "-p", "focus-tools", "--example", "mcp_test_server"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run cargo build for the MCP test server");
    assert!(status.success(), "building mcp_test_server failed");
    target
        .join("debug")
        .join("examples")
        .join("mcp_test_server")
}

/// The binary the suite plays against: `FOCUS_E2E_BINARY` when set (a prebuilt
/// one, such as the static build `scripts/build-static` checks), otherwise the
/// one cargo built for these tests.
pub fn focus_binary() -> std::path::PathBuf {
    match std::env::var_os("FOCUS_E2E_BINARY") {
        Some(path) if !path.is_empty() => {
            let path = std::path::PathBuf::from(path);
            assert!(
                path.is_file(),
                "FOCUS_E2E_BINARY names {}, which is not a file",
                path.display()
            );
            path
        }
        _ => std::path::PathBuf::from(env!("CARGO_BIN_EXE_focus")),
    }
}
