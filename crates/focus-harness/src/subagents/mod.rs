//! Subagents: a conversation that hands a task to a child conversation with
//! a fresh context (docs/subagents.md).
//!
//! - [`definition`]: an agent definition (Claude Code's Markdown with
//!   frontmatter), parsed without trusting the file; the built-in `explore`.
//! - [`load`]: where definitions are found (`.focus/agents/`,
//!   `.claude/agents/`, `FOCUS_HOME/agents/`).
//! - [`task`]: the `task` tool, which runs each child as one more front end of
//!   a [`Conversation`](crate::conversation::Conversation) and answers with
//!   its final text.
//! - [`record`]: what a child leaves in its parent — the link to its session
//!   file and its usage, which rolls up into the parent's; a file below both
//!   this module and the conversation, which reads it.
//!
//! The harness decides how a child runs; what it is made of (gate, tools,
//! model, hooks) comes from the front end through [`task::ChildFactory`].

pub mod definition;
pub mod load;
pub mod record;
pub mod task;

pub use definition::{parse_definition, AgentDefinition, DefinitionError};
pub use load::{load_definitions, Definitions};
pub use record::TASK_TOOL;
pub use task::{ChildFactory, ChildRequest, SubagentSettings, TaskTool};

use crate::conversation::Store;
use std::path::Path;

/// A new session for a child of the session at `parent` (its file records
/// the parent as `parentSession`), in a `subagents` folder beside the
/// parent's file so that session lists (`-r`, `-c`) keep showing only
/// conversations the user had; in memory when the parent has no file.
///
/// # Errors
///
/// The folder or the file cannot be created: the message says where.
pub fn child_store(parent: Option<&Path>, cwd: &Path) -> Result<Store, String> {
    let Some(parent) = parent else {
        return Ok(Store::disabled(cwd));
    };
    let dir = parent
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("subagents");
    focus_sys::private_files::create_dir_all(&dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Store::create_child(&dir, cwd, parent)
}

/// `text` cut to at most `max` bytes at a character boundary, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let end = focus_core::char_boundary::floor(text, max);
    format!("{}…", &text[..end])
}
