//! [`Engine`]: the harness's [`Conversation`] with what the CLI plugs into it —
//! the permission gate (as the conversation's [`ConversationHooks`]), the MCP
//! servers (as its [`ToolSource`]), Ctrl+C and the termination signals (as its
//! interrupts) — beside what only the CLI needs: the retry policy for models
//! chosen later, the system prompt's source, the model scope, the session tree
//! as pi's JSON and HTML export.
//!
//! The run itself is the conversation's: a mode reaches it through
//! `engine.conversation` — `run_to_end` in print and JSON modes,
//! `prompt`/`steer`/`abort` and `poll` from the loops of the RPC and
//! interactive modes (docs/loop.md, "Front ends").

use focus_core::agent::AgentConfig;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::{Content, Message};
use focus_core::tool::Tool;
use focus_harness::conversation::{Conversation, ConversationHooks, Store, ToolSource};
use focus_harness::session::EntryKind;
use focus_tools::gates::Gatekeeper;
use focus_tools::mcp::McpManager;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A conversation with the CLI's gate, MCP servers and retry policy.
pub struct Engine {
    /// The conversation: history, session, and every run from start to end.
    pub conversation: Conversation,
    /// The permission gate (for `/permissions`); also the conversation's hooks.
    pub gatekeeper: Option<Arc<Gatekeeper>>,
    /// The MCP servers, kept alive as long as the conversation; also its tool
    /// source.
    pub mcp: Option<Arc<McpManager>>,
    /// How model calls are retried (the `retry` settings), for providers built
    /// later (a model switch).
    pub retry: focus_providers::RetryPolicy,
    /// What the system prompt is built from (the conversation's `prompt` builds
    /// from it); `/reload` reads its warnings.
    pub prompt_source: Option<crate::seams::PromptSource>,
    /// The model patterns Ctrl+P and RPC `cycle_model` step through
    /// (`--models`, else the `enabledModels` setting; empty: every usable
    /// model; [`crate::scope`]).
    pub model_scope: Vec<String>,
    /// `--output-diff`: the tree the run started from, and the file its patch
    /// goes to at the end ([`crate::modes::output_diff`]).
    pub diff_start: Option<(std::path::PathBuf, focus_tools::git_tree::TreeSnapshot)>,
}

impl Engine {
    /// An engine with `config`, starting from `history`, saving into `store`;
    /// Ctrl+C and the termination signals interrupt its runs and compactions.
    pub fn new(config: AgentConfig, history: Vec<Message>, store: Store) -> Engine {
        let mut conversation = Conversation::new(config, history, store);
        conversation.interrupts = Arc::new(|| crate::terminal::signals::interrupts() as u64);
        Engine {
            conversation,
            gatekeeper: None,
            mcp: None,
            retry: focus_providers::RetryPolicy::default(),
            prompt_source: None,
            model_scope: Vec::new(),
            diff_start: None,
        }
    }

    /// Builds the system prompt from `source` before every model call.
    pub fn set_prompt_source(&mut self, source: crate::seams::PromptSource) {
        let builder = source.clone();
        self.conversation.prompt = Some(Arc::new(
            move |specs: &[focus_core::provider::ToolSpec]| builder.build(specs).0,
        ));
        self.prompt_source = Some(source);
    }

    /// Plugs in the permission gate: it checks the tool calls (set in the
    /// config) and runs the session hooks.
    pub fn set_gatekeeper(&mut self, gate: Arc<Gatekeeper>) {
        self.conversation.hooks = Some(Arc::new(GateHooks(gate.clone())));
        self.gatekeeper = Some(gate);
    }

    /// Plugs in the MCP servers, whose tools join `base_tools`.
    pub fn set_mcp(&mut self, mcp: McpManager, base_tools: Vec<Arc<dyn Tool>>) {
        let mcp = Arc::new(mcp);
        self.conversation.tools_generation = mcp.tools_generation();
        self.conversation.base_tools = base_tools;
        self.conversation.tool_source = Some(Arc::new(McpTools(mcp.clone())));
        self.mcp = Some(mcp);
    }

    /// The session tree as JSON for `/tree` and RPC `get_session_tree`: every entry with
    /// `id`, `parentId`, `type`, a short `text`, `label`, and the `leafId`.
    pub fn session_tree(&self) -> Result<Value, String> {
        let store = self.conversation.session.lock();
        let tree = store.manager().tree();
        let entries: Vec<Value> = tree
            .entries()
            .iter()
            .map(|e| {
                json_object! {
                    "id" => e.id.as_str(),
                    "parentId" => e.parent_id.as_deref(),
                    "type" => e.kind.type_name(),
                    "role" => match &e.kind { EntryKind::Message(m) => Some(m.role().to_string()), _ => None },
                    "text" => entry_preview(&e.kind),
                    "label" => tree.label(&e.id),
                    "timestamp" => e.timestamp.as_str(),
                }
            })
            .collect();
        Ok(json_object! {
            "entries" => Value::Array(entries),
            "leafId" => tree.leaf_id(),
        })
    }

    /// Writes the conversation as one self-contained HTML file; returns its path.
    pub fn export_html(&self, output: Option<&Path>) -> Result<PathBuf, String> {
        let store = self.conversation.session.lock();
        let default_name = format!(
            "focus-session-{}.html",
            if store.id().is_empty() {
                "unsaved"
            } else {
                store.id()
            }
        );
        let path = output
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from(default_name));
        let meta = crate::export::Meta {
            title: store.name().unwrap_or("focus session").to_string(),
            model: self.conversation.config.provider.model().label(),
            session_id: store.id().to_string(),
            cwd: String::new(),
            system_prompt: self.conversation.config.system_prompt.clone(),
        };
        let turns = crate::export_files::turn_files(&store.manager().tree().current_branch());
        drop(store);
        let html = crate::export::render_html_with_files(&meta, &self.conversation.history, &turns);
        focus_sys::private_files::write(&path, html)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    }
}

/// The gate's session hooks, as the conversation calls them.
struct GateHooks(Arc<Gatekeeper>);

impl ConversationHooks for GateHooks {
    fn set_session(&self, id: &str, path: Option<&Path>) {
        self.0.set_session(id, path);
    }
    fn session_start(&self, source: &str) -> Vec<String> {
        self.0.session_start(source)
    }
    fn session_end(&self, reason: &str) {
        self.0.session_end(reason);
    }
    fn pre_compact(&self, trigger: &str, instructions: Option<&str>) {
        self.0.pre_compact(trigger, instructions);
    }
    fn take_hook_failures(&self) -> Vec<String> {
        self.0.take_hook_failures()
    }
}

/// The MCP servers' tools, as the conversation reads them.
struct McpTools(Arc<McpManager>);

impl ToolSource for McpTools {
    fn generation(&self) -> u64 {
        self.0.tools_generation()
    }
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.0.tools()
    }
    fn take_warnings(&self) -> Vec<String> {
        self.0.take_warnings()
    }
}

/// A one-line preview of an entry for tree views.
pub fn entry_preview(kind: &EntryKind) -> String {
    let text = match kind {
        EntryKind::Message(Message::User(u)) => u
            .content
            .iter()
            .filter_map(Content::as_text)
            .collect::<Vec<_>>()
            .join(" "),
        EntryKind::Message(Message::Assistant(a)) => {
            let text = a.text();
            let calls: Vec<&str> = a.tool_calls().map(|c| c.name.as_str()).collect();
            if calls.is_empty() {
                text
            } else {
                format!("{text} [{}]", calls.join(", "))
            }
        }
        EntryKind::Message(Message::ToolResult(r)) => {
            format!("{} result", focus_core::tool::safe_tool_name(&r.tool_name))
        }
        EntryKind::Message(Message::Custom(c)) => c.role.clone(),
        EntryKind::ModelChange { provider, model_id } => {
            format!(
                "model {}",
                focus_core::provider::model_label(provider, model_id)
            )
        }
        EntryKind::ThinkingLevelChange { thinking_level } => format!("thinking {thinking_level}"),
        EntryKind::Compaction(c) => format!("compaction ({} tokens before)", c.tokens_before),
        EntryKind::SessionInfo { name } => format!("name {}", name.as_deref().unwrap_or("")),
        EntryKind::Custom { custom_type, data }
            if custom_type == focus_harness::subagents::record::LINK_TYPE =>
        {
            crate::subagents::link_preview(data)
        }
        other => other.type_name().to_string(),
    };
    crate::modes::print::clip(text.trim(), 100)
}

/// How many inputs (keys, stdin lines, approval requests, finished background
/// work) a mode's loop may have waiting; the threads that feed it wait when it is
/// full. (The run's events are not among them: they wait in the conversation's
/// own bounded queue until the loop polls it.)
pub const INPUT_QUEUE_CAPACITY: usize = 64;
