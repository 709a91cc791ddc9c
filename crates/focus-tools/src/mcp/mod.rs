//! The Model Context Protocol client: tools served by other programs.
//!
//! An MCP server is a program focus starts and talks to with JSON-RPC 2.0 over its
//! stdin and stdout ([`rpc`]), or one reached over HTTP ([`http`]; the older
//! HTTP+SSE transport, [`legacy_sse`], as the fallback). [`McpManager::start`] launches every configured server
//! ([`config`]) in parallel and waits for each (bounded by its startup timeout);
//! each server's tools become ordinary [`Tool`]s ([`tool`]) named
//! `<server>__<tool>` (hook matchers and permission rules also know them by
//! Claude Code's `mcp__<server>__<tool>`, see [`crate::gates::matcher`]). A server that fails to start or dies is reported once
//! ([`McpManager::take_warnings`]) and its tools disappear; the agent goes on.
//!
//! Dropping the manager stops every server (process group killed, process reaped).
//!
//! The JSON-RPC messages and the line framing are [`jsonrpc`]'s, shared with
//! focus's own server (`focus mcp serve`, in focus-cli).

pub mod config;
pub mod http;
pub mod jsonrpc;
pub mod legacy_sse;
pub mod offers;
pub mod rpc;
pub mod server;
pub mod tool;

use crate::sandbox::Sandbox;
pub use config::McpServerConfig;
use focus_core::sync::lock;
use focus_core::tool::Tool;
pub use server::ServerState;
use server::{RemoteTool, Server};
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tool::McpTool;

/// Longest tool name providers accept.
pub const MAX_TOOL_NAME: usize = 64;

/// What `focus mcp list` shows about one server.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerStatus {
    /// Its name in settings.
    pub name: String,
    /// Running, failed or exited, with the reason.
    pub state: ServerState,
    /// `name version` from its handshake (empty if unknown).
    pub server_info: String,
    /// Its tools as the model sees them (`server__tool`).
    pub tools: Vec<String>,
    /// Where its stderr goes.
    pub log_path: Option<std::path::PathBuf>,
}

/// All MCP servers of a session.
pub struct McpManager {
    servers: Vec<Arc<Server>>,
    generation: Arc<AtomicU64>,
    warnings: Arc<Mutex<Vec<String>>>,
}

impl McpManager {
    /// Starts every server in parallel and returns when each is running or has
    /// failed (at most the longest startup timeout). Server stderr goes to
    /// `<log_dir>/<server>.log`; the directory is created if needed. Servers
    /// run unconfined ([`Sandbox::off`]).
    pub fn start(configs: Vec<McpServerConfig>, log_dir: &Path) -> McpManager {
        McpManager::start_with_http(configs, log_dir, None, Arc::new(Sandbox::off()))
    }

    /// Like [`McpManager::start`], with an HTTP client for servers configured with a
    /// `url` (the streamable HTTP transport; without one they fail to start), and
    /// with the servers started over stdio confined by `sandbox` when its
    /// settings say so (`sandbox.mcpServers`).
    pub fn start_with_http(
        configs: Vec<McpServerConfig>,
        log_dir: &Path,
        http: Option<Arc<dyn focus_transport::Transport>>,
        sandbox: Arc<Sandbox>,
    ) -> McpManager {
        let generation = Arc::new(AtomicU64::new(0));
        let warnings = Arc::new(Mutex::new(Vec::new()));
        // Server logs may quote requests and paths: 0600 files in a 0700 folder.
        let log_dir = match focus_sys::private_files::create_dir_all(log_dir) {
            Ok(()) => Some(log_dir.to_path_buf()),
            Err(e) if !configs.is_empty() => {
                lock(&warnings).push(format!(
                    "cannot create the MCP log directory {}: {e}; server stderr is discarded",
                    log_dir.display()
                ));
                None
            }
            Err(_) => None,
        };
        let handles: Vec<_> = configs
            .into_iter()
            .map(|config| {
                let (generation, warnings, log_dir, http, sandbox) = (
                    generation.clone(),
                    warnings.clone(),
                    log_dir.clone(),
                    http.clone(),
                    sandbox.clone(),
                );
                std::thread::spawn(move || {
                    let log_dir = log_dir.as_deref();
                    Server::start(config, log_dir, generation, warnings, http, sandbox)
                })
            })
            .collect();
        let servers = handles.into_iter().filter_map(|h| h.join().ok()).collect();
        McpManager {
            servers,
            generation,
            warnings,
        }
    }

    /// The tools of every running server, as the model sees them. Names are
    /// `<server>__<tool>` with characters outside `[a-zA-Z0-9_-]` replaced by `_`
    /// and cut to 64 characters; a name that collides with an earlier one is skipped.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut seen = HashSet::new();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        for server in &self.servers {
            if server.state() != ServerState::Running {
                continue;
            }
            for remote in server.tools() {
                let name = exposed_name(&server.config.name, &remote);
                if seen.insert(name.clone()) {
                    tools.push(Arc::new(McpTool::new(server.clone(), &remote, name)));
                }
            }
            // Resources and prompts, as tools (a server's own tool of the same
            // name, listed above, wins).
            for offer in offers::Offer::for_server(server) {
                let mut name = format!("{}__{}", sanitize(&server.config.name), offer.suffix());
                name.truncate(MAX_TOOL_NAME);
                if seen.insert(name.clone()) {
                    tools.push(Arc::new(offers::OfferTool::new(
                        server.clone(),
                        offer,
                        name,
                    )));
                }
            }
        }
        tools
    }

    /// A number that changes whenever the set of tools may have changed (a server
    /// sent `tools/list_changed`, or died): re-read [`McpManager::tools`] then.
    pub fn tools_generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Every server's state and tools, in settings order (for `focus mcp list`).
    pub fn status(&self) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|server| ServerStatus {
                name: server.config.name.clone(),
                state: server.state(),
                server_info: server.server_info(),
                tools: server
                    .tools()
                    .iter()
                    .map(|remote| exposed_name(&server.config.name, remote))
                    .chain(offers::Offer::for_server(server).into_iter().map(|offer| {
                        format!("{}__{}", sanitize(&server.config.name), offer.suffix())
                    }))
                    .collect(),
                log_path: server.log_path().map(Path::to_path_buf),
            })
            .collect()
    }

    /// Warnings not yet shown (a server failed to start or stopped); each is
    /// returned once.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.warnings))
    }

    /// Stops every server now (also done on drop).
    pub fn shutdown(&self) {
        for server in &self.servers {
            server.shutdown();
        }
    }
}

impl Drop for McpManager {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn exposed_name(server: &str, remote: &RemoteTool) -> String {
    let mut name = format!("{}__{}", sanitize(server), sanitize(&remote.name));
    name.truncate(MAX_TOOL_NAME);
    name
}

/// Replaces every character outside `[a-zA-Z0-9_-]` with `_`.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitized_and_capped() {
        let remote = RemoteTool {
            name: "read file/é".into(),
            description: String::new(),
            input_schema: focus_core::json::Value::Null,
            read_only_hint: false,
        };
        assert_eq!(exposed_name("my.server", &remote), "my_server__read_file__");
        let long = RemoteTool {
            name: "x".repeat(100),
            ..remote
        };
        assert_eq!(exposed_name("s", &long).len(), MAX_TOOL_NAME);
    }
}
