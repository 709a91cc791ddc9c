//! The `task` tool over scripted models: children are conversations started
//! by a factory and followed as any front end follows one. Several calls of
//! one message run in parallel (at most the setting's number), the results
//! come back in the order asked, an abort ends every child with every call
//! answered and every session valid, each child's session is linked from the
//! parent's, and the children's usage rolls up into the parent's summary.

use crate::support::Scratch;
use focus_core::agent::check_history;
use focus_core::cancel::CancelToken;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::json::parse_str;
use focus_core::message::{AssistantMessage, Message, UserMessage};
use focus_core::provider::{ModelRequest, Provider, StreamSink};
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use focus_harness::conversation::{Conversation, ConversationEvent, SessionRequest, Store};
use focus_harness::session::{EntryKind, SessionManager};
use focus_harness::subagents::{
    child_store, ChildFactory, ChildRequest, Definitions, SubagentSettings, TaskTool,
};
use focus_testkit::scripted::{Reply, ScriptedProvider};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

const PARENT_PROMPT: &str = "You are the parent.";

/// How the children's model behaves.
#[derive(Clone, Copy, PartialEq)]
enum Children {
    /// Answers `result of <prompt>` at once.
    Answer,
    /// Waits until `n` children are in a model call at once (or gives up
    /// after 10 s and says so), then answers.
    Meet(usize),
    /// Never answers (until aborted).
    Hang,
}

/// One model for parent and children: the parent's calls follow a script, a
/// child's call is answered by `children`.
struct Model {
    parent: ScriptedProvider,
    children: Children,
    inside: Mutex<(usize, usize)>,
    changed: Condvar,
    info: focus_core::provider::ModelInfo,
}

impl Model {
    fn new(parent: Vec<Reply>, children: Children) -> Arc<Model> {
        let parent = ScriptedProvider::new(parent);
        let info = parent.model().clone();
        Arc::new(Model {
            parent,
            children,
            inside: Mutex::new((0, 0)),
            changed: Condvar::new(),
            info,
        })
    }

    /// The most children that were in a model call at the same time.
    fn peak(&self) -> usize {
        self.inside.lock().unwrap().1
    }
}

impl Provider for Model {
    fn model(&self) -> &focus_core::provider::ModelInfo {
        &self.info
    }

    fn stream(&self, request: &ModelRequest<'_>, sink: &mut StreamSink<'_>) -> AssistantMessage {
        if request.system_prompt == PARENT_PROMPT {
            return self.parent.stream(request, sink);
        }
        let prompt = match request.messages.first() {
            Some(Message::User(u)) => u.content[0].as_text().unwrap_or("").to_string(),
            _ => String::new(),
        };
        {
            let mut inside = self.inside.lock().unwrap();
            inside.0 += 1;
            inside.1 = inside.1.max(inside.0);
            self.changed.notify_all();
        }
        let mut reply = Reply::text(&format!("result of {prompt}"));
        match self.children {
            Children::Answer => {}
            Children::Meet(n) => {
                let give_up = Instant::now() + Duration::from_secs(10);
                let mut inside = self.inside.lock().unwrap();
                while inside.1 < n && Instant::now() < give_up {
                    inside = self
                        .changed
                        .wait_timeout(inside, Duration::from_millis(100))
                        .unwrap()
                        .0;
                }
                if inside.1 < n {
                    reply = Reply::text("never met the others");
                }
            }
            Children::Hang => reply = reply.hang(),
        }
        let mut answer = ScriptedProvider::new(vec![reply]).stream(request, sink);
        // Each child's answer costs 100 tokens and one cent.
        answer.usage.input = 60;
        answer.usage.output = 40;
        answer.usage.total_tokens = 100;
        answer.usage.cost.total = 0.01;
        self.inside.lock().unwrap().0 -= 1;
        answer
    }
}

/// Builds children on fresh sessions beside the parent's, with `tools`, and
/// records what it was asked.
struct Factory {
    model: Arc<Model>,
    cwd: PathBuf,
    parent_session: Option<PathBuf>,
    tools: Vec<Arc<dyn Tool>>,
    seen: Mutex<Vec<String>>,
    sessions: Mutex<Vec<PathBuf>>,
}

impl ChildFactory for Factory {
    fn build(&self, request: &ChildRequest) -> Result<Conversation, String> {
        let mut config = focus_core::agent::AgentConfig::new(self.model.clone());
        config.system_prompt = request.agent.prompt.clone();
        config.tools = self.tools.clone();
        let store = child_store(self.parent_session.as_deref(), &self.cwd)?;
        if let Some(path) = store.path() {
            self.sessions.lock().unwrap().push(path.to_path_buf());
        }
        Ok(Conversation::new(config, Vec::new(), store))
    }

    fn started(&self, request: &ChildRequest, agent_id: &str) {
        let line = format!("start {} {agent_id}", request.agent.name);
        self.seen.lock().unwrap().push(line);
    }

    fn stopped(&self, request: &ChildRequest, _agent_id: &str, session: Option<&PathBuf>) {
        let line = format!("stop {} {}", request.agent.name, session.is_some());
        self.seen.lock().unwrap().push(line);
    }
}

/// A parent whose one answer calls `task` `n` times, then sums up.
fn parent_script(n: usize) -> Vec<Reply> {
    let mut first = Reply::new();
    for i in 0..n {
        let args =
            format!(r#"{{"description":"part {i}","prompt":"job {i}","subagent_type":"explore"}}"#);
        first = first.call(&format!("t{i}"), "task", &args);
    }
    vec![first, Reply::text("all done")]
}

struct Parent {
    conversation: Conversation,
    factory: Arc<Factory>,
}

fn parent(
    scratch: &Scratch,
    model: &Arc<Model>,
    settings: SubagentSettings,
    child_tools: Vec<Arc<dyn Tool>>,
) -> Parent {
    let (store, history) =
        Store::open(&SessionRequest::New, scratch.path(), Some(scratch.path())).unwrap();
    let factory = Arc::new(Factory {
        model: model.clone(),
        cwd: scratch.path().to_path_buf(),
        parent_session: store.path().map(|p| p.to_path_buf()),
        tools: child_tools,
        seen: Mutex::new(Vec::new()),
        sessions: Mutex::new(Vec::new()),
    });
    let task = TaskTool::new(
        factory.clone(),
        Arc::new(Definitions::builtin()),
        settings,
        0,
    );
    let mut config = focus_core::agent::AgentConfig::new(model.clone());
    config.system_prompt = PARENT_PROMPT.into();
    config.tools = vec![Arc::new(task)];
    Parent {
        conversation: Conversation::new(config, history, store),
        factory,
    }
}

fn results(history: &[Message]) -> Vec<(String, String, bool)> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult(r) => Some((
                r.tool_call_id.to_string(),
                r.content[0].as_text().unwrap_or("").to_string(),
                r.is_error,
            )),
            _ => None,
        })
        .collect()
}

fn settings(max_parallel: usize) -> SubagentSettings {
    SubagentSettings {
        max_parallel,
        max_depth: 1,
    }
}

#[test]
fn eight_parallel_subagents_give_eight_results_in_the_order_asked() {
    let scratch = Scratch::new("subagents-eight");
    let model = Model::new(parent_script(8), Children::Meet(8));
    let mut parent = parent(&scratch, &model, settings(8), Vec::new());
    let outcome = parent
        .conversation
        .run_to_end(vec![Message::User(UserMessage::text("go", 1))], &mut |_| {});
    assert_eq!(outcome.reason, EndReason::Completed);
    assert_eq!(outcome.final_text, "all done");
    // All eight were in a model call at the same time: the calls ran in parallel.
    assert_eq!(model.peak(), 8);
    let got = results(&parent.conversation.history);
    let expected: Vec<(String, String, bool)> = (0..8)
        .map(|i| (format!("t{i}"), format!("result of job {i}"), false))
        .collect();
    assert_eq!(got, expected);
    assert!(check_history(&parent.conversation.history).is_ok());
    let seen = parent.factory.seen.lock().unwrap().clone();
    assert_eq!(
        seen.iter()
            .filter(|l| l.starts_with("start explore"))
            .count(),
        8
    );
    assert_eq!(seen.iter().filter(|l| *l == "stop explore true").count(), 8);
}

#[test]
fn at_most_max_parallel_children_run_at_once() {
    let scratch = Scratch::new("subagents-slots");
    let model = Model::new(parent_script(6), Children::Answer);
    let mut parent = parent(&scratch, &model, settings(2), Vec::new());
    let outcome = parent
        .conversation
        .run_to_end(vec![Message::User(UserMessage::text("go", 1))], &mut |_| {});
    assert_eq!(outcome.reason, EndReason::Completed);
    assert!(model.peak() <= 2, "{} children at once", model.peak());
    assert_eq!(results(&parent.conversation.history).len(), 6);
}

#[test]
fn each_child_has_a_session_linked_from_the_parent_and_its_usage_rolls_up() {
    let scratch = Scratch::new("subagents-link");
    let model = Model::new(parent_script(2), Children::Answer);
    let mut parent = parent(&scratch, &model, settings(4), Vec::new());
    let outcome = parent
        .conversation
        .run_to_end(vec![Message::User(UserMessage::text("go", 1))], &mut |_| {});
    assert_eq!(outcome.reason, EndReason::Completed);
    let sessions = parent.factory.sessions.lock().unwrap().clone();
    assert_eq!(sessions.len(), 2);
    // The parent's file: each task result is preceded by a link entry naming
    // the child's file; the child's file is a valid session of its own.
    let path = parent
        .conversation
        .session
        .lock()
        .path()
        .unwrap()
        .to_path_buf();
    let history = parent.conversation.history.clone();
    let summary = parent.conversation.summary.clone();
    drop(parent.conversation);
    let reopened = SessionManager::open(&path).unwrap();
    let branch = reopened.tree().current_branch();
    let mut linked = Vec::new();
    for (i, entry) in branch.iter().enumerate() {
        if let EntryKind::Custom { custom_type, data } = &entry.kind {
            assert_eq!(custom_type, "subagent");
            let next = &branch[i + 1].kind;
            let Some(EntryKind::Message(Message::ToolResult(result))) = Some(next) else {
                panic!("a link is followed by its result: {next:?}");
            };
            assert_eq!(data["toolCallId"].as_str(), Some(&*result.tool_call_id));
            linked.push(PathBuf::from(data["sessionFile"].as_str().unwrap()));
        }
    }
    assert_eq!(linked.len(), 2);
    for file in &linked {
        assert!(sessions.contains(file), "{file:?}");
        assert_eq!(file.parent().unwrap().file_name().unwrap(), "subagents");
        let child = SessionManager::open(file).unwrap();
        let messages: Vec<Message> = child
            .tree()
            .current_branch()
            .iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Message(m) => Some(m.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(check_history(&messages).is_ok());
    }
    // The parent made 2 model calls, each child 1: the summary counts the
    // children's tokens too.
    let own: u64 = history
        .iter()
        .filter_map(Message::as_assistant)
        .map(|m| m.usage.total_tokens)
        .sum();
    assert_eq!(summary.subagents, 2);
    assert_eq!(summary.usage.total_tokens, own + 200);
    assert!((summary.usage.cost.total - 0.02).abs() < 1e-9);
    let record = match &history[2] {
        Message::ToolResult(r) => r.details["subagent"].clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(record["agent"].as_str(), Some("explore"));
    assert_eq!(record["end"].as_str(), Some("completed"));
    assert_eq!(record["turns"].as_u64(), Some(1));
}

/// A tool whose calls never end until cancelled.
fn waiting_tool() -> Arc<dyn Tool> {
    Arc::new(focus_testkit::scripted::FnTool::new(
        "wait",
        "{}",
        |_, ctx: &ToolContext<'_>| {
            focus_testkit::scripted::wait_for_cancel(ctx.cancel, Some(Duration::from_secs(30)));
            ToolOutput::error("stopped")
        },
    ))
}

#[test]
fn an_abort_ends_every_child_with_every_call_answered_and_every_session_valid() {
    let scratch = Scratch::new("subagents-abort");
    let model = Model::new(parent_script(4), Children::Hang);
    let mut parent = parent(&scratch, &model, settings(3), vec![waiting_tool()]);
    parent
        .conversation
        .prompt(vec![Message::User(UserMessage::text("go", 1))])
        .unwrap();
    // Wait until three children are inside a model call (the fourth waits for a slot).
    let give_up = Instant::now() + Duration::from_secs(20);
    while model.peak() < 3 {
        assert!(Instant::now() < give_up, "the children never started");
        drop(
            parent
                .conversation
                .poll(Instant::now() + Duration::from_millis(10)),
        );
    }
    assert!(parent.conversation.abort());
    let mut ended = None;
    while ended.is_none() {
        assert!(Instant::now() < give_up, "the run never ended");
        for event in &parent
            .conversation
            .poll(Instant::now() + Duration::from_millis(50))
        {
            if let ConversationEvent::RunEnded(reason) = event {
                ended = Some(reason.clone());
            }
        }
    }
    assert_eq!(ended, Some(EndReason::Aborted));
    let history = &parent.conversation.history;
    assert!(check_history(history).is_ok());
    let got = results(history);
    assert_eq!(got.len(), 4);
    assert!(got.iter().all(|(_, _, error)| *error), "{got:?}");
    for file in parent.factory.sessions.lock().unwrap().iter() {
        let child = SessionManager::open(file).unwrap();
        assert!(child.load_problems().is_empty(), "{file:?}");
        let messages: Vec<Message> = child
            .tree()
            .current_branch()
            .iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Message(m) => Some(m.clone()),
                _ => None,
            })
            .collect();
        assert!(check_history(&messages).is_ok(), "{messages:?}");
    }
}

#[test]
fn a_cancelled_parent_token_aborts_a_child_conversation() {
    let scratch = Scratch::new("subagents-link-cancel");
    let model = Model::new(Vec::new(), Children::Hang);
    let (store, history) =
        Store::open(&SessionRequest::New, scratch.path(), Some(scratch.path())).unwrap();
    let config = focus_core::agent::AgentConfig::new(model.clone());
    let mut child = Conversation::new(config, history, store);
    let parent = CancelToken::new();
    child.parent_cancel = Some(parent.clone());
    let outcome_thread = std::thread::spawn(move || {
        let outcome = child.run_to_end(vec![Message::User(UserMessage::text("x", 1))], &mut |_| {});
        (outcome.reason, child.history.clone())
    });
    let give_up = Instant::now() + Duration::from_secs(20);
    while model.peak() < 1 {
        assert!(Instant::now() < give_up);
        std::thread::yield_now();
    }
    parent.cancel();
    let (reason, history) = outcome_thread.join().unwrap();
    assert_eq!(reason, EndReason::Aborted);
    assert!(check_history(&history).is_ok());
}

#[test]
fn the_task_tool_is_read_only_lists_the_agents_and_refuses_beyond_the_depth_limit() {
    let scratch = Scratch::new("subagents-depth");
    let model = Model::new(Vec::new(), Children::Answer);
    let factory = parent(&scratch, &model, settings(1), Vec::new()).factory;
    let agents = Arc::new(Definitions::builtin());
    assert!(TaskTool::allowed_at(0, &settings(1)));
    assert!(!TaskTool::allowed_at(1, &settings(1)));
    let deep = TaskTool::new(factory.clone(), agents.clone(), settings(1), 1);
    assert!(deep.description().contains("- explore:"));
    assert!(deep.is_read_only(&parse_str("{}").unwrap()));
    assert!(!deep.runs_alone(&parse_str("{}").unwrap()));
    let cancel = CancelToken::new();
    let ctx = ToolContext {
        call_id: "c",
        cancel: &cancel,
        on_update: &|_| {},
    };
    let args = parse_str(r#"{"description":"d","prompt":"p","subagent_type":"explore"}"#).unwrap();
    let out = deep.execute(&args, &ctx);
    assert!(out.is_error);
    assert!(
        out.text_content().contains("depth limit is 1"),
        "{}",
        out.text_content()
    );
    assert!(factory.seen.lock().unwrap().is_empty());
    let unknown =
        parse_str(r#"{"description":"d","prompt":"p","subagent_type":"\u001b[2Jnope"}"#).unwrap();
    let top = TaskTool::new(factory, agents, settings(1), 0);
    let out = top.execute(&unknown, &ctx);
    assert!(out.is_error && out.text_content().contains("Available: explore"));
    assert!(!out.text_content().contains('\u{1b}'));
    let _ = AgentEvent::AgentStart;
}

#[test]
fn what_the_children_cost_counts_against_the_parents_budget() {
    let scratch = Scratch::new("subagents-budget");
    // Each child costs a cent; the parent's own answers cost nothing.
    let model = Model::new(parent_script(2), Children::Answer);
    let mut parent = parent(&scratch, &model, settings(2), Vec::new());
    parent.conversation.max_cost_usd = Some(0.015);
    let outcome = parent
        .conversation
        .run_to_end(vec![Message::User(UserMessage::text("go", 1))], &mut |_| {});
    // The two children spent 0.02: the parent's next model call never starts.
    assert_eq!(outcome.reason, EndReason::Aborted);
    assert!(parent.conversation.summary.budget_reached);
    assert_eq!(model.parent.requests().len(), 1);
    assert!(check_history(&parent.conversation.history).is_ok());
}
