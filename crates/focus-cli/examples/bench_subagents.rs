//! Subagents (docs/subagents.md), in process, release build, with the CLI's
//! own child factory (gate, tools, prompt, session file: `CliChildFactory`):
//!
//! 1. **Overhead**: a `task` call whose child answers at once, beside the
//!    model call alone (the same instant scripted model), median of RUNS;
//!    the difference is what a subagent costs beyond its model call
//!    (target ≤ 5 ms).
//! 2. **Abort soak**: TRIALS seeded trials; in each a parent asks for 4
//!    subagents, each child runs `sleep` through the real bash tool, and the
//!    parent is aborted at a random moment (0–60 ms after the prompt). Each
//!    trial counts the processes left (by a marker in their command line),
//!    the session files that do not load cleanly or whose history breaks the
//!    pairing rule, the tool calls left unanswered, and the time from the
//!    abort to the run's end (target: 0, 0, 0, within 100 ms).
//!
//! Usage: `bench_subagents [--trials N]`.

use focus_cli::subagents::{CliChildFactory, FactoryParts};
use focus_core::agent::{check_history, AgentConfig};
use focus_core::cancel::CancelToken;
use focus_core::json::parse_str;
use focus_core::message::{AssistantMessage, Message, UserMessage};
use focus_core::provider::{ModelInfo, ModelRequest, Provider, StreamSink};
use focus_core::tool::{Tool, ToolContext};
use focus_harness::conversation::{Conversation, ConversationEvent, SessionRequest, Store};
use focus_harness::session::{EntryKind, SessionManager};
use focus_harness::subagents::{AgentDefinition, Definitions, SubagentSettings};
use focus_testkit::rng::Rng;
use focus_testkit::scripted::{Reply, ScriptedProvider};
use focus_tools::gates::{GateConfig, Gatekeeper, Mode, NonInteractiveApprover};
use focus_tools::sandbox::Sandbox;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs of the overhead figure.
const RUNS: usize = 200;

/// The parent's system prompt (how the model tells parent from child).
const PARENT: &str = "PARENT";

/// Parent and children on one instant model: the parent asks for `children`
/// subagents, then answers; a child runs `child_command` (if any), then answers.
struct Model {
    info: ModelInfo,
    children: usize,
    child_command: Option<String>,
}

impl Provider for Model {
    fn model(&self) -> &ModelInfo {
        &self.info
    }

    fn stream(&self, request: &ModelRequest<'_>, sink: &mut StreamSink<'_>) -> AssistantMessage {
        let fresh = matches!(request.messages.last(), Some(Message::User(_)));
        let reply = match (request.system_prompt == PARENT, fresh) {
            (true, true) => {
                let mut reply = Reply::new();
                for i in 0..self.children {
                    let args = format!(
                        r#"{{"description":"part {i}","prompt":"job {i}","subagent_type":"worker"}}"#
                    );
                    reply = reply.call(&format!("t{i}"), "task", &args);
                }
                reply
            }
            (false, true) if self.child_command.is_some() => {
                let command = self.child_command.as_deref().unwrap_or_default();
                let args = focus_core::json_object! {"command" => command}.to_json_string();
                Reply::tool_call("b1", "bash", &args)
            }
            _ => Reply::text("done"),
        };
        ScriptedProvider::new(vec![reply])
            .without_recording()
            .stream(request, sink)
    }
}

fn model(children: usize, child_command: Option<String>) -> Arc<Model> {
    let info = ScriptedProvider::new(Vec::new()).model().clone();
    Arc::new(Model {
        info,
        children,
        child_command,
    })
}

/// The CLI's factory for children of a parent session at `session`, in `cwd`,
/// everything allowed (auto mode), no sandbox.
fn factory(cwd: &Path, session: Option<&Path>, model: Arc<Model>) -> Arc<CliChildFactory> {
    let sandbox = Arc::new(Sandbox::off());
    let mut config = GateConfig::default();
    config.permissions.mode = Mode::Auto;
    let gate = Arc::new(
        Gatekeeper::new(config, Arc::new(NonInteractiveApprover), cwd.to_path_buf())
            .with_sandbox(sandbox.clone()),
    );
    gate.set_session("bench", session);
    let worker = AgentDefinition {
        name: "worker".into(),
        description: "Does one job.".into(),
        tools: None,
        disallowed_tools: Vec::new(),
        model: None,
        permission_mode: None,
        prompt: "You do one job.".into(),
        source: None,
    };
    CliChildFactory::new(FactoryParts {
        cwd: cwd.to_path_buf(),
        settings: Default::default(),
        gate,
        tool_state: focus_tools::ToolState::new(sandbox),
        mcp_tools: Vec::new(),
        allowed_builtins: focus_tools::TOOL_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect(),
        parent: AgentConfig::new(model),
        agents: Arc::new(Definitions {
            agents: vec![worker],
            errors: Vec::new(),
        }),
        limits: SubagentSettings {
            max_parallel: 4,
            max_depth: 1,
        },
        max_cost_usd: None,
        resolve: Arc::new(|spec: &str| Err(format!("no model {spec}"))),
    })
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

fn overhead(dir: &Path) {
    let model = model(0, None);
    let cwd = dir.join("overhead");
    std::fs::create_dir_all(&cwd).unwrap();
    let (store, _) = Store::open(&SessionRequest::New, &cwd, Some(&cwd)).unwrap();
    let factory = factory(&cwd, store.path(), model.clone());
    let task = factory.task_tool(0);
    let args =
        parse_str(r#"{"description":"d","prompt":"answer now","subagent_type":"worker"}"#).unwrap();
    let cancel = CancelToken::new();
    let ctx = ToolContext {
        call_id: "c",
        cancel: &cancel,
        on_update: &|_| {},
    };
    let options = focus_core::provider::RequestOptions::default();
    let messages = vec![Message::User(UserMessage::text("answer now", 1))];
    let mut with_task = Vec::with_capacity(RUNS);
    let mut alone = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let output = task.execute(&args, &ctx);
        with_task.push(started.elapsed().as_secs_f64() * 1e3);
        assert!(!output.is_error, "{}", output.text_content());
        let request = ModelRequest {
            system_prompt: "child",
            messages: &messages,
            tools: &[],
            options: &options,
            cancel: &cancel,
        };
        let started = Instant::now();
        model.stream(&request, &mut |_, _| {});
        alone.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let (task_ms, model_ms) = (median(with_task), median(alone));
    println!("a task call whose child answers at once, median of {RUNS} (ms): {task_ms:.3}");
    println!("the model call alone (ms): {model_ms:.3}");
    println!(
        "subagent overhead beyond the model call (ms): {:.3}  (target ≤ 5)",
        task_ms - model_ms
    );
    drop(store);
}

/// Whether a process whose command line holds `marker` runs.
fn running(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains(marker)
        })
        .count()
}

/// Whether the session at `path` loads cleanly with every call answered.
fn valid(path: &Path) -> bool {
    let Ok(session) = SessionManager::open_read_only(path) else {
        return false;
    };
    let messages: Vec<Message> = session
        .tree()
        .current_branch()
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Message(m) => Some(m.clone()),
            _ => None,
        })
        .collect();
    session.load_problems().is_empty() && check_history(&messages).is_ok()
}

fn soak(dir: &Path, trials: u64) {
    let mut rng = Rng::new(32);
    let (mut leftover, mut invalid, mut unanswered) = (0, 0, 0);
    let mut times = Vec::new();
    let mut files = 0;
    let mut busy = 0;
    for trial in 0..trials {
        let cwd = dir.join(format!("trial-{trial}"));
        std::fs::create_dir_all(&cwd).unwrap();
        let marker = format!("focus-bench-{}-{trial}", std::process::id());
        let command = format!("exec -a {marker} sleep 30");
        let model = model(4, Some(command));
        let (store, history) = Store::open(&SessionRequest::New, &cwd, Some(&cwd)).unwrap();
        let parent_file = store.path().map(Path::to_path_buf);
        let factory = factory(&cwd, store.path(), model.clone());
        let mut config = AgentConfig::new(model);
        config.system_prompt = PARENT.into();
        config.tools = vec![factory.task_tool(0) as Arc<dyn Tool>];
        let mut parent = Conversation::new(config, history, store);
        parent
            .prompt(vec![Message::User(UserMessage::text("go", 1))])
            .unwrap();
        let abort_at = Instant::now() + Duration::from_millis(rng.below_u64(61));
        while Instant::now() < abort_at {
            drop(parent.poll(abort_at));
        }
        let sleeping = running(&marker);
        busy += usize::from(sleeping > 0);
        let aborted = Instant::now();
        parent.abort();
        let mut ended = false;
        while !ended {
            for event in &parent.poll(Instant::now() + Duration::from_millis(20)) {
                ended |= matches!(event, ConversationEvent::RunEnded(_));
            }
            assert!(
                aborted.elapsed() < Duration::from_secs(30),
                "trial {trial} never ended"
            );
        }
        times.push(aborted.elapsed().as_secs_f64() * 1e3);
        leftover += running(&marker);
        if check_history(&parent.history).is_err() {
            unanswered += 1;
        }
        drop(parent);
        let mut sessions: Vec<PathBuf> = parent_file.into_iter().collect();
        let children = cwd.join("subagents");
        sessions.extend(
            std::fs::read_dir(&children)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path()),
        );
        files += sessions.len();
        invalid += sessions.iter().filter(|p| !valid(p)).count();
    }
    times.sort_by(|a, b| a.total_cmp(b));
    println!("abort soak: {trials} trials, 4 subagents each running sleep, {files} session files");
    println!("  trials with a child's sleep running at the abort: {busy}");
    println!("  leftover processes: {leftover}  (target 0)");
    println!("  invalid session files: {invalid}  (target 0)");
    println!("  runs with a call unanswered: {unanswered}  (target 0)");
    println!(
        "  abort to the run's end (ms): median {:.1}, slowest {:.1}  (target ≤ 100)",
        times[times.len() / 2],
        times[times.len() - 1]
    );
}

fn main() {
    let mut trials = 50;
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--trials") {
        trials = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(trials);
    }
    let dir = std::env::temp_dir().join(format!("focus-bench-subagents-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The children's prompts read FOCUS_HOME (skills, AGENTS.md): an empty one.
    std::env::set_var("FOCUS_HOME", dir.join("home"));
    overhead(&dir);
    soak(&dir, trials);
    let _ = std::fs::remove_dir_all(&dir);
}
