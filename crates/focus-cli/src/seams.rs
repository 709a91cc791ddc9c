//! Where the other layers plug into the CLI: one small function per service
//! (model registry, provider construction, tools, system prompt, settings, gate).
//! Keeping them together makes the wiring of focus readable in one screen.

use crate::choose::ModelChoice;
use crate::demo::DemoProvider;
use focus_core::provider::{ModelInfo, Provider, ThinkingLevel};
use focus_core::tool::{Tool, ToolGate};
use std::path::Path;
use std::sync::Arc;

/// The defaults the user configured in settings.
#[derive(Clone, Debug, Default)]
pub struct Defaults {
    /// Default provider.
    pub provider: Option<String>,
    /// Default model.
    pub model: Option<String>,
    /// Default thinking level.
    pub thinking: Option<ThinkingLevel>,
}

/// Reads the settings' defaults for `cwd` (warnings go to stderr).
pub fn settings_defaults(_cwd: &Path) -> Defaults {
    Defaults::default()
}

/// Providers with an API key available (environment or models.json), as
/// `(provider, where the key is)`, in order of preference.
pub fn keyed_providers() -> Vec<(String, String)> {
    Vec::new()
}

/// Builds the provider for a chosen model.
pub fn build_provider(choice: &ModelChoice) -> Result<Arc<dyn Provider>, String> {
    match choice {
        ModelChoice::Demo => Ok(Arc::new(DemoProvider::new())),
        ModelChoice::Registered { provider, model, .. } => Err(format!(
            "cannot use model {:?} of provider {:?}: the model registry is not available in this build",
            model, provider
        )),
        ModelChoice::Local { .. } => Err("local servers are not available in this build".into()),
    }
}

/// The known models matching `search` (all when `None`).
pub fn list_models(_search: Option<&str>) -> Vec<ModelInfo> {
    vec![DemoProvider::new().model().clone()]
}

/// The names of the built-in tools, in their usual order.
pub fn tool_names() -> Vec<&'static str> {
    Vec::new()
}

/// The built-in tools for `cwd`.
pub fn builtin_tools(_cwd: &Path) -> Vec<Arc<dyn Tool>> {
    Vec::new()
}

/// The system prompt for `cwd` with these tools (`replace` replaces the base
/// prompt, `append` goes at the end).
pub fn system_prompt(
    _cwd: &Path,
    tools: &[Arc<dyn Tool>],
    replace: Option<&str>,
    append: Option<&str>,
) -> String {
    let mut prompt = match replace {
        Some(text) => text.to_string(),
        None => {
            let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
            format!(
                "You are focus, a coding agent working in the user's terminal. Tools: {}.",
                names.join(", ")
            )
        }
    };
    if let Some(extra) = append {
        prompt.push_str("\n\n");
        prompt.push_str(extra);
    }
    prompt
}

/// The gate every tool call passes, for a permission mode and whether the user
/// can be asked.
pub fn gate(_mode: Option<&str>, _interactive: bool) -> Option<Arc<dyn ToolGate>> {
    None
}

/// `focus mcp list`: prints the configured MCP servers and their tools; returns the
/// exit code.
pub fn mcp_list() -> i32 {
    println!("No MCP servers configured (add \"mcpServers\" to settings.json).");
    0
}

/// The RPC `approve` command: answers a pending approval request.
pub fn rpc_approve(command: &focus_core::json::Value) -> Result<(), String> {
    let id = command["requestId"].as_str().unwrap_or("");
    Err(format!("no approval request {id:?} is pending"))
}
