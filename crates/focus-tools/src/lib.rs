//! focus-tools: the hands of the agent (read, write, edit, bash, grep, find, ls),
//! the gates every call passes (permission modes, the shell read-only judge, user
//! hooks) and tools served by MCP servers.
//!
//! Reading order for the built-in tools: [`path`] (how a path the model gives
//! becomes a file), [`output`] (why and how every output is capped and cleaned),
//! then the tools themselves: [`read`], [`write`](mod@write), [`edit`], [`bash`]; and the
//! search stack underneath [`grep`], [`find`] and [`ls`]: [`regex`] (a Pike VM),
//! [`glob`], [`ignore`] (`.gitignore` rules) and [`walk`] (the tree walk).
//!
//! Everything is std-only. Every tool turns bad input into a `ToolOutput::error`
//! whose text tells the model what went wrong and what to do next; nothing here
//! panics on model output or file contents.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod gates;
pub mod mcp;

pub mod args;
pub mod bash;
pub mod beneath;
pub mod deadline;
pub mod edit;
pub mod find;
pub mod git_env;
pub mod git_tree;
pub mod glob;
pub mod grep;
pub mod ignore;
pub mod ls;
pub mod open;
pub mod output;
pub mod path;
pub mod protected;
pub mod read;
pub mod regex;
pub mod replace;

pub mod sandbox;
pub mod schema;
pub mod scrub;
pub mod secret_env;
pub mod seen;
pub mod state;
pub mod walk;
pub mod write;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use focus_core::tool::Tool;
pub use state::ToolState;

/// The names of the built-in tools, in the order [`builtin_tools`] returns them
/// (pi's order: the four coding tools, then the three read-only search tools).
pub const TOOL_NAMES: &[&str] = &["read", "bash", "edit", "write", "grep", "find", "ls"];

/// All seven built-in tools, working relative to `cwd`, in [`TOOL_NAMES`]
/// order, within the default [`ToolLimits`], sharing one new unconfined
/// [`ToolState`].
pub fn builtin_tools(cwd: &Path) -> Vec<Arc<dyn Tool>> {
    builtin_tools_with(cwd, ToolLimits::default(), &ToolState::unconfined())
}

/// Limits every built-in tool works within (the `toolDeadlineSeconds` and
/// `bashSpillMaxBytes` settings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolLimits {
    /// How long one call may run before it is cancelled ([`deadline`]).
    pub deadline: Duration,
    /// Most bytes of one bash spill file ([`bash::spill`]).
    pub spill_cap: u64,
}

impl Default for ToolLimits {
    fn default() -> ToolLimits {
        ToolLimits {
            deadline: deadline::DEFAULT_DEADLINE,
            spill_cap: bash::spill::DEFAULT_SPILL_CAP,
        }
    }
}

/// All seven built-in tools like [`builtin_tools`], each call bounded by
/// `limits.deadline` and bash spill files by `limits.spill_cap`, sharing
/// `state` (its sandbox, its record of files seen, its spill directory).
pub fn builtin_tools_with(cwd: &Path, limits: ToolLimits, state: &ToolState) -> Vec<Arc<dyn Tool>> {
    TOOL_NAMES
        .iter()
        .filter_map(|name| tool_with_limits(name, cwd, limits, state))
        .collect()
}

/// One built-in tool by name within `limits` (see [`builtin_tools_with`]).
/// `bash` is not wrapped: its deadline is its own `timeout` argument (default
/// 120 s), which the model raises for a long build, and on which it kills the
/// command's whole process group.
pub fn tool_with_limits(
    name: &str,
    cwd: &Path,
    limits: ToolLimits,
    state: &ToolState,
) -> Option<Arc<dyn Tool>> {
    if name == "bash" {
        let bash =
            bash::BashTool::new(cwd.to_path_buf(), state.clone()).with_spill_cap(limits.spill_cap);
        return Some(Arc::new(bash));
    }
    let tool = tool_by_name(name, cwd, state)?;
    Some(Arc::new(deadline::Deadlined::new(tool, limits.deadline)))
}

/// One built-in tool by name (`"read"`, `"bash"`, …), working relative to `cwd`
/// with `state`, without a deadline; `None` for an unknown name.
pub fn tool_by_name(name: &str, cwd: &Path, state: &ToolState) -> Option<Arc<dyn Tool>> {
    let (cwd, state) = (cwd.to_path_buf(), state.clone());
    let tool: Arc<dyn Tool> = match name {
        "read" => Arc::new(read::ReadTool::new(cwd, state)),
        "bash" => Arc::new(bash::BashTool::new(cwd, state)),
        "edit" => Arc::new(edit::EditTool::new(cwd, state)),
        "write" => Arc::new(write::WriteTool::new(cwd, state)),
        "grep" => Arc::new(grep::GrepTool::new(cwd, state)),
        "find" => Arc::new(find::FindTool::new(cwd, state)),
        "ls" => Arc::new(ls::LsTool::new(cwd, state)),
        _ => return None,
    };
    Some(tool)
}
