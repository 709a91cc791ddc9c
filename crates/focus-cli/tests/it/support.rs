//! Shared test plumbing: a sandbox (temporary FOCUS_HOME and working directory,
//! no API keys in the environment), running the real `focus` binary with a time
//! limit, mock model servers for the four APIs, and an RPC client.

use focus_core::json::{parse_str, Value};
use focus_testkit::mock_llm::{MockLlm, Scenario};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// The binary under test.
pub const FOCUS: &str = env!("CARGO_BIN_EXE_focus");

/// The longest any single focus run may take in a test.
pub const RUN_LIMIT: Duration = Duration::from_secs(20);

/// Environment variables that would let focus reach a real provider.
const SCRUBBED: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GROQ_API_KEY",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "MISTRAL_API_KEY",
    "CEREBRAS_API_KEY",
    "OLLAMA_HOST",
    "FOCUS_OFFLINE",
    "NO_COLOR",
];

/// A temporary FOCUS_HOME and working directory, removed on drop.
pub struct Sandbox {
    /// The root of everything.
    pub root: PathBuf,
    /// FOCUS_HOME.
    pub home: PathBuf,
    /// The working directory focus runs in.
    pub work: PathBuf,
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

impl Sandbox {
    /// A fresh sandbox.
    pub fn new() -> Sandbox {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let root = std::env::temp_dir().join(format!("focus-cli-it-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        let work = root.join("work");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        Sandbox { root, home, work }
    }

    /// A command for `focus args…` in the sandbox, offline unless the test turns
    /// probing back on.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(FOCUS);
        cmd.args(args).current_dir(&self.work);
        for var in SCRUBBED {
            cmd.env_remove(var);
        }
        cmd.env("FOCUS_HOME", &self.home)
            .env("HOME", &self.root)
            .env("NO_COLOR", "1")
            .env("FOCUS_OFFLINE", "1");
        cmd
    }

    /// Runs `focus args…` with `stdin` and returns its output (killed after
    /// [`RUN_LIMIT`]).
    pub fn run(&self, args: &[&str], stdin: &str) -> Output {
        run_command(self.cmd(args), stdin)
    }

    /// Writes `models.json` with one provider per API, all served by `url`:
    /// `mock-anthropic`, `mock-openai`, `mock-responses`, `mock-google`, each with model `m1`.
    pub fn write_models(&self, url: &str) {
        let providers = [
            ("mock-anthropic", "anthropic-messages", url.to_string()),
            ("mock-openai", "openai-completions", format!("{url}/v1")),
            ("mock-responses", "openai-responses", format!("{url}/v1")),
            (
                "mock-google",
                "google-generative-ai",
                format!("{url}/v1beta"),
            ),
        ];
        let entries: Vec<String> = providers
            .iter()
            .map(|(name, api, base)| {
                format!(
                    r#""{name}":{{"baseUrl":"{base}","api":"{api}","apiKey":"test-key","models":[{{"id":"m1","contextWindow":100000,"maxTokens":4096,"input":["text","image"]}}]}}"#
                )
            })
            .collect();
        std::fs::write(
            self.home.join("models.json"),
            format!(r#"{{"providers":{{{}}}}}"#, entries.join(",")),
        )
        .unwrap();
    }

    /// Writes the global prompt template `<FOCUS_HOME>/prompts/NAME.md`.
    pub fn write_template(&self, name: &str, text: &str) {
        std::fs::create_dir_all(self.home.join("prompts")).unwrap();
        std::fs::write(self.home.join(format!("prompts/{name}.md")), text).unwrap();
    }

    /// Writes the project's skill `.focus/skills/NAME/SKILL.md`.
    pub fn write_skill(&self, name: &str, text: &str) {
        let dir = self.work.join(".focus/skills").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }

    /// The last line of kind `kind` (`"model_change"`…) in the first session
    /// file, or an empty string.
    pub fn last_entry(&self, kind: &str) -> String {
        let file = self
            .session_files()
            .into_iter()
            .next()
            .expect("a session file");
        let text = std::fs::read_to_string(&file).unwrap();
        text.lines()
            .rfind(|l| l.contains(&format!("\"{kind}\"")))
            .unwrap_or_default()
            .to_string()
    }

    /// Every session file under FOCUS_HOME.
    pub fn session_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut stack = vec![self.home.join("sessions")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Runs `cmd` with `stdin`, killing it after [`RUN_LIMIT`].
pub fn run_command(mut cmd: Command, stdin: &str) -> Output {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn focus");
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("focus did not finish within {RUN_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The scenario every end-to-end test plays: a bash tool call, then a final answer.
pub const TOOL_THEN_ANSWER: &str = r#"{"name":"tool_then_answer","steps":[
  {"reply":{"text":"I will run a command.","toolCalls":[{"name":"bash","arguments":{"command":"echo hi-from-tool"}}]}},
  {"reply":{"text":"The command printed hi-from-tool. Done."}}
]}"#;

/// A mock model server playing `scenario` (JSON text).
pub fn mock(scenario: &str) -> MockLlm {
    MockLlm::start(Scenario::parse(scenario).expect("scenario"))
}

/// A mock model whose summarization requests (recognized by the summarizer's
/// system prompt) always get `summary`, while other requests play `main` in order.
pub fn mock_with_summarizer(main: &str, summary: &str) -> focus_testkit::server::TestServer {
    use focus_testkit::mock_llm::{server::respond, Scenario};
    let main = Scenario::parse(main).unwrap();
    let summary = Scenario::parse(summary).unwrap();
    let turn = std::sync::atomic::AtomicUsize::new(0);
    focus_testkit::server::TestServer::responder(move |request| {
        if request
            .body_text()
            .contains("context summarization assistant")
        {
            return respond(&summary, 0, request);
        }
        let n = turn.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        respond(&main, n, request)
    })
}

/// A first step that keeps the run busy until the test says so (a file named
/// `release` appears in the working directory), however slow the machine:
/// what is typed meanwhile is queued, never sent as a prompt of its own. Needs
/// `--permission-mode auto` (the loop is a command the default mode would ask
/// about).
pub const WAIT_FOR_RELEASE: &str = r#"{"reply":{"text":"waiting","toolCalls":[{"name":"bash","arguments":{"command":"while [ ! -e release ]; do sleep 0.05; done"}}]}}"#;

/// A model for `s` (`mock-anthropic/m1`, a 100,000-token window, 1,000 reserved)
/// whose first answer calls a tool and reports 99,500 input tokens, so the run
/// compacts before its next call; the summary then streams slowly (one piece
/// every 3 s), long enough to interrupt it. The next answer is never asked for.
pub fn context_filling_tool_call_then_a_slow_summary(
    s: &Sandbox,
) -> focus_testkit::server::TestServer {
    let server = mock_with_summarizer(
        r#"{"name":"c","steps":[
      {"reply":{"text":"Looking.","inputTokens":99500,"toolCalls":[{"name":"ls","arguments":{"path":"."}}]}},
      {"reply":{"text":"never asked for"}}]}"#,
        r#"{"name":"slow","steps":[{"reply":{"text":"a summary that takes its time","chunkDelayMs":3000}}]}"#,
    );
    s.write_models(&server.url());
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"reserveTokens":1000,"keepRecentTokens":1}}"#,
    )
    .unwrap();
    server
}

/// The four provider/model names [`Sandbox::write_models`] defines.
pub const MOCK_MODELS: [&str; 4] = [
    "mock-anthropic/m1",
    "mock-openai/m1",
    "mock-responses/m1",
    "mock-google/m1",
];

/// Parses every stdout line as JSON (panics naming a bad line).
pub fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| parse_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// A running `focus --mode rpc` with line-by-line access to stdout.
pub struct RpcClient {
    child: Child,
    lines: Receiver<String>,
    /// Every line seen so far.
    pub seen: Vec<Value>,
}

impl RpcClient {
    /// Starts `focus --mode rpc extra…` in the sandbox.
    pub fn start(sandbox: &Sandbox, extra: &[&str]) -> RpcClient {
        let mut args = vec!["--mode", "rpc"];
        args.extend_from_slice(extra);
        let mut cmd = sandbox.cmd(&args);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("spawn focus --mode rpc");
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        RpcClient {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Sends one raw line.
    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Reads lines until one satisfies `pred`; returns it (panics after 15 s).
    pub fn until(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| {
                panic!(
                    "RPC: no {what} within 15 s; seen: {:?}",
                    self.seen
                        .iter()
                        .map(|v| v.to_json_string())
                        .collect::<Vec<_>>()
                )
            });
            let value =
                parse_str(&line).unwrap_or_else(|e| panic!("RPC stdout not JSON ({e}): {line}"));
            self.seen.push(value.clone());
            if pred(&value) {
                return value;
            }
        }
    }

    /// Sends a command and returns its response (matched by `id`).
    pub fn call(&mut self, id: u64, command: &str) -> Value {
        self.send_raw(command);
        self.until(&format!("response {id}"), |v| {
            v["type"].as_str() == Some("response") && v["id"].as_u64() == Some(id)
        })
    }

    /// Sends a command whose `id` is the string `id` and returns its response.
    pub fn call_raw_id(&mut self, command: &str, id: &str) -> Value {
        self.send_raw(command);
        self.until(&format!("response {id}"), |v| {
            v["type"].as_str() == Some("response") && v["id"].as_str() == Some(id)
        })
    }

    /// Waits for `agent_end`.
    pub fn agent_end(&mut self) -> Value {
        self.until("agent_end", |v| v["type"].as_str() == Some("agent_end"))
    }

    /// Sends signal `name` (`TERM`, `HUP`…) to focus and waits for it to exit,
    /// stdin still open; returns the exit code (`None`: killed by the signal).
    pub fn signal(mut self, name: &str) -> Option<i32> {
        let sent = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            if Instant::now() > deadline {
                panic!("focus --mode rpc did not exit after SIG{name}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Closes stdin and waits for a clean exit; returns the exit code.
    pub fn close(mut self) -> i32 {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("focus --mode rpc did not exit after stdin closed");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for RpcClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `path` holds text containing `needle`.
pub fn file_contains(path: &Path, needle: &str) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| t.contains(needle))
}

/// Whether a process whose command line holds `needle` runs (tests name a tool's
/// process after a marker with `exec -a` to find one left behind).
pub fn process_running(needle: &str) -> bool {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .any(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains(needle)
        })
}
