//! What a front end plugs into a [`Conversation`](super::Conversation) besides
//! the model: the session lifecycle hooks (Claude Code's `SessionStart`,
//! `SessionEnd`, `PreCompact`) and a source of tools that can change while the
//! conversation lives (MCP servers announcing `tools/list_changed`, or dying).
//! Traits, so the harness needs neither the permission gate nor MCP.

use focus_core::tool::Tool;
use std::path::Path;
use std::sync::Arc;

/// The session lifecycle, as hooks see it.
pub trait ConversationHooks: Send + Sync {
    /// The conversation now writes to session `id` at `path` (before each run:
    /// `/new` or a fork may have changed it).
    fn set_session(&self, id: &str, path: Option<&Path>);
    /// A session starts (`startup`, `resume`, `clear`); the failures to show.
    fn session_start(&self, source: &str) -> Vec<String>;
    /// The session ends (`clear`, `other`…).
    fn session_end(&self, reason: &str);
    /// A compaction is about to start (`auto` or `manual`, with `/compact`'s
    /// instructions).
    fn pre_compact(&self, trigger: &str, instructions: Option<&str>);
    /// Failures of hooks that ran during the last run (a `Stop` hook), once.
    fn take_hook_failures(&self) -> Vec<String>;
}

/// Tools that may change while the conversation lives.
pub trait ToolSource: Send + Sync {
    /// Goes up whenever [`ToolSource::tools`] would answer differently.
    fn generation(&self) -> u64;
    /// The tools now.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
    /// What went wrong since last asked (a server that died), once.
    fn take_warnings(&self) -> Vec<String>;
}
