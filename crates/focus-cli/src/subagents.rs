//! What the CLI makes a subagent of (docs/subagents.md): [`CliChildFactory`]
//! builds each child [`Conversation`] the harness's `task` tool runs —
//!
//! - **rights**: a gate from the parent's (`Gatekeeper::for_subagent`): the
//!   same rules and hooks, the stricter of the definition's and the parent's
//!   permission mode, the parent's approver (each request names the subagent)
//!   and the parent's sandbox;
//! - **tools**: the built-in tools anew on the parent's sandbox and spill
//!   directory (with a record of files seen of their own, so a file a child
//!   changed is read again before the parent edits it) plus the MCP tools,
//!   narrowed to the definition's `tools` less its `disallowedTools`; a `task`
//!   tool only while the depth limit allows;
//! - **model**: the call's `model`, else the definition's, else the parent's;
//! - **prompt**: the definition's text as the base of focus's system prompt
//!   (project guidance, tools, the mode's line are added as for any run);
//! - **session**: a file of its own beside the parent's
//!   (`focus_harness::subagents::child_store`);
//! - **hooks**: `SubagentStart` and `SubagentStop` through the parent's gate.

use crate::seams::PromptSource;
use focus_core::agent::AgentConfig;
use focus_core::provider::Provider;
use focus_core::tool::Tool;
use focus_harness::conversation::Conversation;
use focus_harness::settings::Settings;
use focus_harness::subagents::{
    child_store, ChildFactory, ChildRequest, Definitions, SubagentSettings, TaskTool, TASK_TOOL,
};
use focus_tools::gates::{Gatekeeper, Mode};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

/// Resolves a model spec (`provider/model`) to a provider.
pub type ModelResolver = dyn Fn(&str) -> Result<Arc<dyn Provider>, String> + Send + Sync;

/// Builds the CLI's children (see the module's text).
pub struct CliChildFactory {
    /// Itself, for the `task` tool of a child that may start its own.
    me: Weak<CliChildFactory>,
    /// The working directory.
    pub cwd: PathBuf,
    /// The session's settings (tool limits, compaction).
    pub settings: Settings,
    /// The parent's gate (rules, hooks, approver, sandbox, session).
    pub gate: Arc<Gatekeeper>,
    /// The parent's tool state (sandbox and spill directory shared).
    pub tool_state: focus_tools::ToolState,
    /// The MCP servers' tools when the session started.
    pub mcp_tools: Vec<Arc<dyn Tool>>,
    /// The built-in tools the parent was given (`--tools`): a child gets no others.
    pub allowed_builtins: Vec<String>,
    /// The parent's configuration (model, thinking, limits).
    pub parent: AgentConfig,
    /// The agent definitions.
    pub agents: Arc<Definitions>,
    /// `subagents` settings.
    pub limits: SubagentSettings,
    /// The parent's budget (`--max-cost`): each child is held to it too.
    pub max_cost_usd: Option<f64>,
    /// Finds a model named by a definition or a call.
    pub resolve: Arc<ModelResolver>,
}

/// What the factory is built from (see [`CliChildFactory`]'s fields).
pub struct FactoryParts {
    /// The working directory.
    pub cwd: PathBuf,
    /// The session's settings.
    pub settings: Settings,
    /// The parent's gate.
    pub gate: Arc<Gatekeeper>,
    /// The parent's tool state.
    pub tool_state: focus_tools::ToolState,
    /// The MCP servers' tools.
    pub mcp_tools: Vec<Arc<dyn Tool>>,
    /// The built-in tools the parent was given.
    pub allowed_builtins: Vec<String>,
    /// The parent's configuration.
    pub parent: AgentConfig,
    /// The agent definitions.
    pub agents: Arc<Definitions>,
    /// `subagents` settings.
    pub limits: SubagentSettings,
    /// The parent's budget.
    pub max_cost_usd: Option<f64>,
    /// Finds a model.
    pub resolve: Arc<ModelResolver>,
}

impl CliChildFactory {
    /// The factory, shared.
    pub fn new(parts: FactoryParts) -> Arc<CliChildFactory> {
        Arc::new_cyclic(|me| CliChildFactory {
            me: me.clone(),
            cwd: parts.cwd,
            settings: parts.settings,
            gate: parts.gate,
            tool_state: parts.tool_state,
            mcp_tools: parts.mcp_tools,
            allowed_builtins: parts.allowed_builtins,
            parent: parts.parent,
            agents: parts.agents,
            limits: parts.limits,
            max_cost_usd: parts.max_cost_usd,
            resolve: parts.resolve,
        })
    }

    /// The `task` tool of a conversation at `depth` (0: the main one).
    pub fn task_tool(self: &Arc<Self>, depth: u32) -> Arc<dyn Tool> {
        Arc::new(TaskTool::new(
            self.clone(),
            self.agents.clone(),
            self.limits,
            depth,
        ))
    }

    /// The tools of a child of `request`.
    fn tools(&self, request: &ChildRequest) -> Vec<Arc<dyn Tool>> {
        let state = focus_tools::ToolState {
            sandbox: Arc::clone(&self.tool_state.sandbox),
            seen: Arc::new(focus_tools::seen::SeenFiles::new()),
            spill: Arc::clone(&self.tool_state.spill),
        };
        let builtins = crate::seams::builtin_tools(&self.cwd, &self.settings, &state)
            .into_iter()
            .filter(|t| self.allowed_builtins.iter().any(|n| n == t.name()));
        let mut tools: Vec<Arc<dyn Tool>> =
            builtins.chain(self.mcp_tools.iter().cloned()).collect();
        if TaskTool::allowed_at(request.depth, &self.limits) {
            if let Some(me) = self.me.upgrade() {
                tools.push(me.task_tool(request.depth));
            }
        }
        let agent = &request.agent;
        tools.retain(|tool| {
            let name = tool.name();
            let wanted = match &agent.tools {
                Some(wanted) => wanted.iter().any(|w| w == name),
                None => true,
            };
            wanted && !agent.disallowed_tools.iter().any(|d| d == name)
        });
        tools
    }

    /// The provider for a child of `request`.
    fn provider(&self, request: &ChildRequest) -> Result<Arc<dyn Provider>, String> {
        let Some(spec) = request.model.as_deref() else {
            return Ok(self.parent.provider.clone());
        };
        match (self.resolve)(spec) {
            Ok(provider) => Ok(provider),
            // Claude Code's aliases name its own models: elsewhere they mean
            // "a model like the parent's".
            Err(_) if matches!(spec, "sonnet" | "opus" | "haiku") => {
                Ok(self.parent.provider.clone())
            }
            Err(error) => Err(format!("its model {spec:?} is not available: {error}")),
        }
    }
}

/// The mode a definition asks for (`None`: the parent's).
///
/// # Errors
///
/// The definition names no mode focus knows (the parser lets only known ones
/// through, so this is a definition built in code).
pub fn wanted_mode(asked: Option<&str>) -> Result<Option<Mode>, String> {
    match asked {
        None | Some("inherit") => Ok(None),
        Some("bypassPermissions") => Ok(Some(Mode::Auto)),
        // Claude Code's "deny what would ask": approvals still go to the
        // parent's approver here, as in default mode.
        Some("dontAsk") => Ok(Some(Mode::Default)),
        Some(other) => Mode::parse(other).map(Some),
    }
}

impl ChildFactory for CliChildFactory {
    fn build(&self, request: &ChildRequest) -> Result<Conversation, String> {
        let mode = wanted_mode(request.agent.permission_mode.as_deref())?;
        let gate = Arc::new(self.gate.for_subagent(mode, &request.label()));
        let provider = self.provider(request)?;
        let mut config = AgentConfig::new(provider);
        config.tools = self.tools(request);
        config.options.thinking = self.parent.options.thinking;
        config.max_turns = self.parent.max_turns;
        config.steering_mode = self.parent.steering_mode;
        config.follow_up_mode = self.parent.follow_up_mode;
        config.gate = Some(gate.clone());
        let mut store = child_store(self.gate.session_path().as_deref(), &self.cwd)?;
        let model = config.provider.model().clone();
        config.options.session_id = Some(store.id().to_string()).filter(|s| !s.is_empty());
        if let Err(error) = store.append_model_change(&model.provider, &model.id) {
            return Err(format!("its session cannot be written: {error}"));
        }
        let prompt = PromptSource {
            cwd: self.cwd.clone(),
            replace: Some(request.agent.prompt.clone()).filter(|p| !p.is_empty()),
            append: None,
            gate: Some(gate),
        };
        let specs: Vec<_> = config.tools.iter().map(|t| t.spec()).collect();
        config.system_prompt = prompt.build(&specs).0;
        let mut child = Conversation::new(config, Vec::new(), store);
        child.compaction = self.settings.compaction;
        child.max_cost_usd = self.max_cost_usd;
        child.prompt = Some(Arc::new(
            move |specs: &[focus_core::provider::ToolSpec]| prompt.build(specs).0,
        ));
        Ok(child)
    }

    fn started(&self, request: &ChildRequest, agent_id: &str) {
        self.gate.subagent_start(agent_id, &request.agent.name);
    }

    fn stopped(&self, request: &ChildRequest, agent_id: &str, session: Option<&PathBuf>) {
        self.gate
            .subagent_stop(agent_id, &request.agent.name, session.map(PathBuf::as_path));
    }
}

/// Whether `name` is the `task` tool's.
pub fn is_task(name: &str) -> bool {
    name == TASK_TOOL
}

/// The agent definitions for `cwd`; each file left out is said on standard
/// error (its name and line come from the file: sanitized).
pub fn definitions(cwd: &Path) -> Arc<Definitions> {
    let found =
        focus_harness::subagents::load_definitions(cwd, &focus_harness::session::focus_home());
    for error in &found.errors {
        errln!(
            "focus: agent definition left out: {}",
            focus_tools::output::sanitize(&error.to_string())
        );
    }
    Arc::new(found)
}

/// The `task` tool for the main conversation, unless the tools chosen leave
/// it out (`--no-tools`, a `--tools` or `tools` list without `task`) or
/// `subagents.maxDepth` is 0.
///
/// # Errors
///
/// The `subagents` settings are out of range: the message names the key.
#[allow(clippy::too_many_arguments)]
pub fn task_tool_for(
    args: &crate::args::Args,
    settings: &Settings,
    cwd: &Path,
    gate: &Arc<Gatekeeper>,
    tool_state: &focus_tools::ToolState,
    config: &AgentConfig,
    mcp: Option<&focus_tools::mcp::McpManager>,
    retry: &focus_providers::RetryPolicy,
) -> Result<Option<Arc<dyn Tool>>, crate::setup::SetupError> {
    let limits = SubagentSettings::from_json(settings.raw("subagents"))
        .map_err(|e| crate::setup::SetupError::usage(format!("settings: {e}")))?;
    let listed = args.tools.as_ref().or(settings.tools.as_ref());
    let wanted = !args.no_tools && listed.is_none_or_contains(TASK_TOOL);
    if !wanted || !TaskTool::allowed_at(0, &limits) {
        return Ok(None);
    }
    let retry = retry.clone();
    let resolve: Arc<ModelResolver> = Arc::new(move |spec: &str| {
        let registry = crate::seams::registry()?;
        let choice = crate::choose::ModelChoice::Registered {
            provider: String::new(),
            model: spec.to_string(),
            source: crate::choose::ModelSource::Flags,
        };
        crate::seams::build_provider(&choice, &registry, &retry)
    });
    let factory = CliChildFactory::new(FactoryParts {
        cwd: cwd.to_path_buf(),
        settings: settings.clone(),
        gate: gate.clone(),
        tool_state: tool_state.clone(),
        mcp_tools: mcp.map(|m| m.tools()).unwrap_or_default(),
        allowed_builtins: config.tools.iter().map(|t| t.name().to_string()).collect(),
        parent: config.clone(),
        agents: definitions(cwd),
        limits,
        max_cost_usd: args.headless.max_cost_usd.or(settings.max_cost_usd),
        resolve,
    });
    Ok(Some(factory.task_tool(0)))
}

/// Whether a tool list (none: every tool) holds a name.
trait ListHolds {
    fn is_none_or_contains(&self, name: &str) -> bool;
}

impl ListHolds for Option<&Vec<String>> {
    fn is_none_or_contains(&self, name: &str) -> bool {
        match self {
            Some(list) => list.iter().any(|n| n == name),
            None => true,
        }
    }
}

/// One line for a subagent's link entry (`/tree`, RPC `get_session_tree`):
/// `▸ explore: find the parser — completed, 3 model calls, 1234 tokens`.
pub fn link_preview(data: &focus_core::json::Value) -> String {
    let text = |key: &str| data[key].as_str().unwrap_or("?").to_string();
    let tokens = data["usage"]["totalTokens"].as_u64().unwrap_or(0);
    let turns = data["turns"].as_u64().unwrap_or(0);
    let calls = if turns == 1 {
        "model call"
    } else {
        "model calls"
    };
    format!(
        "▸ {}: {} — {}, {turns} {calls}, {tokens} tokens",
        text("agent"),
        text("description"),
        text("end")
    )
}

/// The conversation of the subagent a `task` result names, for the HTML
/// export: a title and its messages. Only a session file in a `subagents`
/// folder is read (the path comes from a session file), without taking its
/// lock; `None` for other results, or when it cannot be read. A child's own
/// children are found the same way when its messages are rendered, at most
/// as deep as subagents may nest.
pub fn child_conversation(
    result: &focus_core::message::ToolResultMessage,
) -> Option<(String, Vec<focus_core::message::Message>)> {
    let record =
        focus_harness::subagents::record::subagent_details(&result.tool_name, &result.details)?;
    let path = Path::new(record["sessionFile"].as_str()?);
    let in_subagents = path.parent().and_then(Path::file_name) == Some("subagents".as_ref());
    if !in_subagents || path.extension() != Some("jsonl".as_ref()) {
        return None;
    }
    let session = focus_harness::session::SessionManager::open_read_only(path).ok()?;
    let messages = session
        .tree()
        .current_branch()
        .iter()
        .filter_map(|e| match &e.kind {
            focus_harness::session::EntryKind::Message(m) => Some(m.clone()),
            _ => None,
        })
        .collect();
    Some((format!("subagent {}", link_preview(record)), messages))
}
