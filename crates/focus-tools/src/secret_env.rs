//! Credentials in the environment, and keeping them from the programs focus starts
//! for others: the shell the model drives, and MCP servers (third-party code).
//!
//! focus needs the API key it talks to the provider with, but nothing it starts
//! does: a command's output goes into the session file and back to the provider
//! (`printenv` counts as read-only), and an MCP server is someone else's program.
//! A variable named like a credential is removed from such a child's environment;
//! a server that needs one is given it explicitly in its configuration (`env`).
//! Hooks are the user's own commands and keep the whole environment.

use std::process::Command;

/// Whether an environment variable holds a credential: names ending in
/// `_API_KEY`, `_AUTH_TOKEN`, `_OAUTH_TOKEN` or `_SECRET_KEY` (any case), and the
/// AWS secret key and session token.
pub fn is_secret_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["_API_KEY", "_AUTH_TOKEN", "_OAUTH_TOKEN", "_SECRET_KEY"]
        .iter()
        .any(|suffix| upper.ends_with(suffix))
        || upper == "AWS_SECRET_ACCESS_KEY"
        || upper == "AWS_SESSION_TOKEN"
}

/// Removes every inherited credential ([`is_secret_variable`]) from `command`'s
/// environment. Variables set on `command` afterwards are kept.
pub fn remove_secret_variables(command: &mut Command) {
    for (name, _) in std::env::vars_os() {
        if is_secret_variable(&name.to_string_lossy()) {
            command.env_remove(name);
        }
    }
}
