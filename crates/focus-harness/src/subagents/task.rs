//! [`TaskTool`]: the `task` tool, Claude Code's Agent tool in focus. A call
//! names an agent definition (`subagent_type`), a short `description` and the
//! `prompt`; the tool asks its [`ChildFactory`] for a new [`Conversation`]
//! (the definition's system prompt and tools, the stricter permission mode,
//! the parent's sandbox and approver, a session file of its own), runs the
//! prompt in it to the end as any front end does ([`Conversation::run_to_end`]),
//! and answers with the child's final text — or, when the child failed or was
//! stopped, why.
//!
//! The agent loop runs the calls of one message in parallel (docs/loop.md,
//! step 8) and `task` never asks to run alone, so several `task` calls run at
//! once; the tool itself lets at most [`SubagentSettings::max_parallel`]
//! children run together, the others wait for a slot. The parent's cancel
//! token is linked to each child's runs ([`Conversation::parent_cancel`]): an
//! abort of the parent aborts every child at once, their tools' processes
//! included, and each child's session ends whole.

use super::clip;
use super::definition::AgentDefinition;
use super::load::Definitions;
use super::record::TASK_TOOL;
use crate::conversation::{Conversation, ConversationEvent};
use focus_core::cancel::CancelToken;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::json::{ToJson, Value};
use focus_core::json_object;
use focus_core::message::{Message, UserMessage};
use focus_core::sync::lock;
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The subagent settings (`subagents` in settings.json).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubagentSettings {
    /// Most children running at the same time, per `task` tool (`maxParallel`).
    pub max_parallel: usize,
    /// How deep subagents may nest (`maxDepth`): 1 lets the main conversation
    /// start subagents, which cannot start their own.
    pub max_depth: u32,
}

impl Default for SubagentSettings {
    fn default() -> Self {
        SubagentSettings {
            max_parallel: 4,
            max_depth: 1,
        }
    }
}

impl SubagentSettings {
    /// Most children at once that `maxParallel` may ask for.
    pub const MAX_PARALLEL: usize = 64;

    /// Reads the `subagents` object of the settings (`Null`: the defaults):
    /// `maxParallel` from 1 to [`SubagentSettings::MAX_PARALLEL`], `maxDepth`
    /// from 0 (no `task` tool) to 8.
    ///
    /// # Errors
    ///
    /// A value out of range: the message names the key.
    pub fn from_json(section: &Value) -> Result<SubagentSettings, String> {
        let mut settings = SubagentSettings::default();
        if let Some(n) = section["maxParallel"].as_u64() {
            if n == 0 || n > SubagentSettings::MAX_PARALLEL as u64 {
                return Err(format!(
                    "`subagents.maxParallel` must be from 1 to {}, found {n}",
                    SubagentSettings::MAX_PARALLEL
                ));
            }
            settings.max_parallel = n as usize;
        }
        if let Some(n) = section["maxDepth"].as_u64() {
            if n > 8 {
                return Err(format!(
                    "`subagents.maxDepth` must be from 0 to 8, found {n}"
                ));
            }
            settings.max_depth = n as u32;
        }
        Ok(settings)
    }
}

/// What a child is asked to be.
#[derive(Clone, Debug)]
pub struct ChildRequest {
    /// Its definition.
    pub agent: AgentDefinition,
    /// The model the call asked for, else the definition's (`None`: the parent's).
    pub model: Option<String>,
    /// Its depth: 1 for a child of the main conversation.
    pub depth: u32,
    /// The call's short description (for the approval dialog and the tree).
    pub description: String,
}

impl ChildRequest {
    /// How approvals and status lines name it: `explore: find the parser`
    /// (the description is the model's: control characters become spaces).
    pub fn label(&self) -> String {
        let description: String = self
            .description
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!("{}: {}", self.agent.name, clip(&description, 60))
    }
}

/// Builds and follows the children; the front end that owns the parent
/// conversation implements it (the CLI: the gate, the tools, the model, the
/// session file, the hooks).
pub trait ChildFactory: Send + Sync {
    /// A new conversation for `request`, idle, with its own session. The
    /// child's `task` tool (if `request.depth` allows one) is the factory's
    /// business too.
    ///
    /// # Errors
    ///
    /// The child cannot be built (its model is unknown, its session cannot be
    /// created): the sentence the parent's model reads.
    fn build(&self, request: &ChildRequest) -> Result<Conversation, String>;

    /// The child `agent_id` started (`SubagentStart` hooks).
    fn started(&self, _request: &ChildRequest, _agent_id: &str) {}

    /// The child `agent_id` finished, its session file at `session`
    /// (`SubagentStop` hooks).
    fn stopped(&self, _request: &ChildRequest, _agent_id: &str, _session: Option<&PathBuf>) {}
}

/// The `task` tool.
pub struct TaskTool {
    factory: Arc<dyn ChildFactory>,
    agents: Arc<Definitions>,
    settings: SubagentSettings,
    /// The depth of the conversation this tool serves (0: the main one).
    depth: u32,
    slots: Arc<Slots>,
    description: String,
    /// Children started so far (ids of children without a session file).
    started: AtomicU64,
}

impl TaskTool {
    /// The tool for a conversation at `depth` (0: the main one), starting
    /// children of `agents` through `factory`.
    pub fn new(
        factory: Arc<dyn ChildFactory>,
        agents: Arc<Definitions>,
        settings: SubagentSettings,
        depth: u32,
    ) -> TaskTool {
        let description = describe(&agents);
        TaskTool {
            factory,
            agents,
            settings,
            depth,
            slots: Arc::new(Slots::new(settings.max_parallel.max(1))),
            description,
            started: AtomicU64::new(0),
        }
    }

    /// Whether a conversation at `depth` gets a `task` tool under `settings`.
    pub fn allowed_at(depth: u32, settings: &SubagentSettings) -> bool {
        depth < settings.max_depth
    }

    /// Runs one child to its end; the tool's answer.
    fn run(&self, request: ChildRequest, prompt: &str, ctx: &ToolContext<'_>) -> ToolOutput {
        let Some(_slot) = self.slots.take(ctx.cancel) else {
            return ToolOutput::error(format!(
                "The subagent `{}` was not started: the run was aborted while it waited for a free slot.",
                request.agent.name
            ));
        };
        let mut child = match self.factory.build(&request) {
            Ok(child) => child,
            Err(error) => {
                return ToolOutput::error(format!(
                    "The subagent `{}` could not be started: {error}",
                    request.agent.name
                ))
            }
        };
        let (session, session_id) = {
            let store = child.session.lock();
            (
                store.path().map(|p| p.to_path_buf()),
                store.id().to_string(),
            )
        };
        let number = self.started.fetch_add(1, Ordering::SeqCst) + 1;
        let agent_id = if session_id.is_empty() {
            format!("{}-{number}", request.agent.name)
        } else {
            session_id.clone()
        };
        // The parent's abort (Esc, RPC abort, a signal, the deadline, the
        // budget) reaches the child's run at once, from the aborting thread.
        child.parent_cancel = Some(ctx.cancel.clone());
        let cancel = ctx.cancel.clone();
        child.interrupts = Arc::new(move || u64::from(cancel.is_cancelled()));
        self.factory.started(&request, &agent_id);
        let mut status = Status::new(&request);
        let outcome = child.run_to_end(
            vec![Message::User(UserMessage::text(
                prompt,
                focus_core::message::now_ms(),
            ))],
            &mut |event| {
                if status.follow(event) {
                    (ctx.on_update)(status.output());
                }
            },
        );
        self.factory.stopped(&request, &agent_id, session.as_ref());
        let summary = &child.summary;
        let record = json_object! {
            "agent" => request.agent.name.as_str(),
            "description" => request.description.as_str(),
            "agentId" => agent_id.as_str(),
            "sessionId" => session_id.as_str(),
            "sessionFile" => session.as_ref().map(|p| p.to_string_lossy().into_owned()),
            "model" => child.config.provider.model().label(),
            "end" => end_word(&outcome.reason),
            "turns" => summary.turns,
            "usage" => summary.usage.to_json(),
            "depth" => request.depth,
        };
        let details = json_object! {"subagent" => record};
        let answer = outcome.final_text.trim();
        let output = match &outcome.reason {
            EndReason::Completed if !answer.is_empty() => ToolOutput::text(answer.to_string()),
            EndReason::Completed => ToolOutput::text(format!(
                "The subagent `{}` finished without an answer.",
                request.agent.name
            )),
            reason => {
                let mut text = format!(
                    "The subagent `{}` did not finish: {}.",
                    request.agent.name,
                    why(reason)
                );
                if !answer.is_empty() {
                    text.push_str("\nIts last words:\n");
                    text.push_str(answer);
                }
                ToolOutput::error(text)
            }
        };
        output.with_details(details)
    }
}

impl Tool for TaskTool {
    fn name(&self) -> &str {
        TASK_TOOL
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        let names: Vec<Value> = self
            .agents
            .agents
            .iter()
            .map(|a| Value::from(a.name.as_str()))
            .collect();
        json_object! {
            "type" => "object",
            "properties" => json_object! {
                "description" => json_object! {
                    "type" => "string",
                    "description" => "A short (3-5 word) description of the task",
                },
                "prompt" => json_object! {
                    "type" => "string",
                    "description" => "The task for the agent to perform: everything it needs to know, since it does not see this conversation",
                },
                "subagent_type" => json_object! {
                    "type" => "string",
                    "enum" => Value::Array(names),
                    "description" => "The type of specialized agent to use for this task",
                },
                "model" => json_object! {
                    "type" => "string",
                    "description" => "Optional model for this agent (provider/model); default: the agent definition's, else this conversation's",
                },
                "run_in_background" => json_object! {
                    "type" => "boolean",
                    "description" => "Accepted for compatibility; focus always waits for the agent's answer (several task calls in one message run in parallel)",
                },
            },
            "required" => Value::Array(vec!["description".into(), "prompt".into(), "subagent_type".into()]),
            "additionalProperties" => false,
        }
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let name = args["subagent_type"].as_str().unwrap_or_default();
        let Some(agent) = self.agents.find(name) else {
            let names: Vec<&str> = self.agents.agents.iter().map(|a| a.name.as_str()).collect();
            return ToolOutput::error(format!(
                "Unknown subagent_type {:?}. Available: {}.",
                clip(name, 64),
                names.join(", ")
            ));
        };
        if !TaskTool::allowed_at(self.depth, &self.settings) {
            return ToolOutput::error(format!(
                "Subagents cannot start subagents here (the depth limit is {}). Do the task yourself.",
                self.settings.max_depth
            ));
        }
        let model = args["model"]
            .as_str()
            .filter(|m| !m.trim().is_empty())
            .map(str::to_string)
            .or_else(|| agent.model.clone());
        let request = ChildRequest {
            agent: agent.clone(),
            model,
            depth: self.depth + 1,
            description: args["description"].as_str().unwrap_or_default().to_string(),
        };
        self.run(request, args["prompt"].as_str().unwrap_or_default(), ctx)
    }

    fn is_read_only(&self, _args: &Value) -> bool {
        // The call itself changes nothing: every call of the child passes the
        // child's own gate, whose mode is never looser than this one's.
        true
    }
}

/// The tool's description: what it does and the agents there are.
fn describe(agents: &Definitions) -> String {
    let mut text = String::from(
        "Launch a subagent to handle a task on its own: it starts with a fresh context (it \
         does not see this conversation), its own system prompt and tools, works until done, \
         and its final answer comes back as this tool's result. Use it for searches and \
         investigations that would fill your context, and for independent pieces of work. \
         Several task calls in one message run in parallel. Write a complete, self-contained \
         prompt and say what the answer must contain.\n\nAvailable agents (subagent_type):",
    );
    for agent in &agents.agents {
        text.push_str(&format!(
            "\n- {}: {}",
            agent.name,
            clip(&agent.description.replace('\n', " "), 400)
        ));
    }
    text
}

/// The word for how a child ended, as the record keeps it.
fn end_word(reason: &EndReason) -> &'static str {
    match reason {
        EndReason::Completed => "completed",
        EndReason::Aborted => "aborted",
        EndReason::Error(_) => "error",
        EndReason::TurnLimit(_) => "turnLimit",
        EndReason::CircuitBreaker(_) => "circuitBreaker",
        EndReason::StopHookLimit(_) => "stopHookLimit",
    }
}

/// Why a child did not finish, for the parent's model.
fn why(reason: &EndReason) -> String {
    match reason {
        EndReason::Completed => "it completed".into(),
        EndReason::Aborted => "it was aborted (the run was stopped)".into(),
        EndReason::Error(error) => format!("it failed: {}", clip(error, 2_000)),
        EndReason::TurnLimit(n) => format!("it reached the limit of {n} turns"),
        EndReason::CircuitBreaker(n) => format!("every tool call failed {n} turns in a row"),
        EndReason::StopHookLimit(n) => format!("a Stop hook kept it going {n} times"),
    }
}

/// A running child's status line: its agent, the tool it runs now, its
/// tokens so far.
struct Status {
    label: String,
    tool: Option<String>,
    tokens: u64,
    turns: u32,
}

impl Status {
    fn new(request: &ChildRequest) -> Status {
        Status {
            label: request.label(),
            tool: None,
            tokens: 0,
            turns: 0,
        }
    }

    /// Takes `event` in; whether the line changed.
    fn follow(&mut self, event: &ConversationEvent) -> bool {
        match event {
            ConversationEvent::Agent(AgentEvent::ToolExecutionStart { tool_name, .. }) => {
                self.tool = Some(focus_core::tool::safe_tool_name(tool_name).to_string());
            }
            ConversationEvent::Agent(AgentEvent::ToolExecutionEnd { .. }) => self.tool = None,
            ConversationEvent::Agent(AgentEvent::MessageEnd {
                message: Message::Assistant(m),
            }) => {
                self.turns += 1;
                self.tokens +=
                    m.usage.input + m.usage.output + m.usage.cache_read + m.usage.cache_write;
            }
            _ => return false,
        }
        true
    }

    /// The line, as a partial output of the `task` call.
    fn output(&self) -> ToolOutput {
        let doing = self.tool.as_deref().unwrap_or("thinking");
        let line = format!("{} · {doing} · {} tokens", self.label, self.tokens);
        ToolOutput::text(line).with_details(json_object! {
            "subagentStatus" => json_object! {
                "label" => self.label.as_str(),
                "tool" => self.tool.as_deref(),
                "tokens" => self.tokens,
                "turns" => self.turns,
            },
        })
    }
}

/// At most so many children at once: a count of free slots.
struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

/// A slot taken; given back when dropped.
struct Slot(Arc<Slots>);

impl Slots {
    fn new(count: usize) -> Slots {
        Slots {
            free: Mutex::new(count),
            freed: Condvar::new(),
        }
    }

    /// Waits for a free slot; `None` once `cancel` fires first.
    fn take(self: &Arc<Self>, cancel: &CancelToken) -> Option<Slot> {
        let waker = Arc::clone(self);
        let _wake = cancel.on_cancel(move || {
            let _held = lock(&waker.free);
            waker.freed.notify_all();
        });
        let mut free = lock(&self.free);
        loop {
            if cancel.is_cancelled() {
                return None;
            }
            if *free > 0 {
                *free -= 1;
                return Some(Slot(Arc::clone(self)));
            }
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *lock(&self.0.free) += 1;
        self.0.freed.notify_one();
    }
}
