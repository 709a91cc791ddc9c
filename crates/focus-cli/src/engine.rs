//! [`Engine`]: the harness's [`Conversation`] as the CLI's modes use it — with
//! the permission gate and the MCP servers plugged in, Ctrl+C and the
//! termination signals as its interrupts, and what only a front end does: the
//! session tree as pi's JSON, HTML export, and following a run from a mode's own
//! loop ([`RunFollower`]). Everything else (history, session writes, compaction)
//! is the conversation's: `Engine` dereferences to it.

use focus_core::agent::AgentConfig;
use focus_core::agent::AgentRun;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::{Content, Message};
use focus_core::tool::Tool;
use focus_harness::conversation::{Conversation, ConversationHooks, Store, ToolSource};
use focus_harness::session::EntryKind;
use focus_tools::gates::Gatekeeper;
use focus_tools::mcp::McpManager;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use focus_harness::conversation::{AfterRun, RunOutcome};

/// A conversation with the CLI's gate, MCP servers and retry policy.
pub struct Engine {
    conversation: Conversation,
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
}

impl std::ops::Deref for Engine {
    type Target = Conversation;
    fn deref(&self) -> &Conversation {
        &self.conversation
    }
}

impl std::ops::DerefMut for Engine {
    fn deref_mut(&mut self) -> &mut Conversation {
        &mut self.conversation
    }
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
        let store = self.session.lock();
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
        let store = self.session.lock();
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
            model: self.config.provider.model().label(),
            session_id: store.id().to_string(),
            cwd: String::new(),
            system_prompt: self.config.system_prompt.clone(),
        };
        drop(store);
        let html = crate::export::render_html(&meta, &self.history);
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
        other => other.type_name().to_string(),
    };
    crate::modes::print::clip(text.trim(), 100)
}

/// How many inputs (keys, stdin lines, approval requests, finished background
/// work) a mode's loop may have waiting; the threads that feed it wait when it is
/// full. (The run's events are not among them: they wait in the run's own
/// bounded queue until the loop takes them, see [`RunFollower`].)
pub const INPUT_QUEUE_CAPACITY: usize = 64;

/// A running prompt followed from the mode's own loop: at every wake-up (a key
/// or a frame, at least every 33 ms while a prompt runs, in interactive mode; a
/// command, or every 8 ms, in RPC mode) the loop takes what the run queued
/// meanwhile, so the events cost no thread and no wake-up of their own, however
/// fast or slowly they come.
pub struct RunFollower {
    run: AgentRun,
    /// A spent buffer, to become the queue's storage at the next look.
    spare: VecDeque<AgentEvent>,
    ended: bool,
}

impl RunFollower {
    /// Follows `run`.
    pub fn new(run: AgentRun) -> RunFollower {
        RunFollower {
            run,
            spare: VecDeque::new(),
            ended: false,
        }
    }

    /// What the run queued since the last look, in order, without waiting
    /// (often nothing). The run's `AgentEnd` comes last; then [`Self::join`]. A
    /// run that closed its events without one (a bug) gets one with an error.
    pub fn take(&mut self) -> VecDeque<AgentEvent> {
        let mut events = self.run.events.take_all(std::mem::take(&mut self.spare));
        if events.is_empty() && !self.ended {
            match self.run.events.try_recv() {
                Ok(event) => events.push_back(event),
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    events.push_back(AgentEvent::AgentEnd {
                        messages: Vec::new(),
                        reason: EndReason::Error("the agent stopped without an end event".into()),
                    })
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
            }
        }
        self.ended |= matches!(events.back(), Some(AgentEvent::AgentEnd { .. }));
        events
    }

    /// Hands back a buffer [`Self::take`] returned, once read: its room serves
    /// the next events.
    pub fn recycle(&mut self, mut spent: VecDeque<AgentEvent>) {
        spent.clear();
        self.spare = spent;
    }

    /// Whether the run's `AgentEnd` has been taken.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The run's full history, once it ended ([`AgentRun::join`]).
    pub fn join(self) -> Vec<Message> {
        self.run.join()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::agent::{spawn_agent, AgentConfig};
    use focus_core::message::UserMessage;
    use focus_testkit::scripted::{Reply, ScriptedProvider};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// Takes what a run queued until its end, as the interactive loop does.
    fn follow_to_the_end(follower: &mut RunFollower) -> (Vec<AgentEvent>, usize) {
        let (mut seen, mut looks) = (Vec::new(), 0);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !follower.ended() {
            assert!(Instant::now() < deadline, "the run never ended");
            let events = follower.take();
            looks += 1;
            seen.extend(events.iter().cloned());
            follower.recycle(events);
            std::thread::sleep(Duration::from_millis(1));
        }
        (seen, looks)
    }

    #[test]
    fn a_follower_takes_every_event_in_order_and_the_history_at_the_end() {
        let answer = "word ".repeat(2_000);
        let provider = ScriptedProvider::new(vec![Reply::text(&answer)]);
        let config = AgentConfig::new(Arc::new(provider));
        let prompt = Message::User(UserMessage::text("go", 0));
        let mut follower = RunFollower::new(spawn_agent(config, Vec::new(), vec![prompt]));
        let (events, looks) = follow_to_the_end(&mut follower);
        assert!(looks >= 1);
        assert!(matches!(events.first(), Some(AgentEvent::AgentStart)));
        assert!(matches!(
            events.last(),
            Some(AgentEvent::AgentEnd {
                reason: EndReason::Completed,
                ..
            })
        ));
        // Every delta arrived, once and in order: together they are the answer.
        let streamed: String = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::MessageUpdate {
                    event: focus_core::provider::StreamEvent::TextDelta { delta, .. },
                    ..
                } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(streamed, answer);
        // Nothing after the end, and the history holds the answer.
        assert!(follower.take().is_empty());
        let history = follower.join();
        assert_eq!(history.len(), 2);
        assert_eq!(history[1].as_assistant().map(|a| a.text()), Some(answer));
    }

    #[test]
    fn a_recycled_buffer_is_emptied_before_it_serves_again() {
        let provider = ScriptedProvider::new(vec![Reply::text("hello there")]);
        let config = AgentConfig::new(Arc::new(provider));
        let prompt = Message::User(UserMessage::text("go", 0));
        let mut follower = RunFollower::new(spawn_agent(config, Vec::new(), vec![prompt]));
        let mut roomy = VecDeque::with_capacity(512);
        roomy.push_back(AgentEvent::TurnStart);
        follower.recycle(roomy);
        // The stale `TurnStart` left in it never shows: turns still pair up.
        let (events, _) = follow_to_the_end(&mut follower);
        let count = |wanted: fn(&AgentEvent) -> bool| events.iter().filter(|e| wanted(e)).count();
        let starts = count(|e| matches!(e, AgentEvent::TurnStart));
        let ends = count(|e| matches!(e, AgentEvent::TurnEnd { .. }));
        assert_eq!((starts, ends), (1, 1));
        assert!(focus_core::agent::check_event_grammar(&events).is_ok());
        let _ = follower.join();
    }
}
