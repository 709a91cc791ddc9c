//! Credentials in the environment, and keeping them from the programs focus starts
//! for others: the shell the model drives, and MCP servers (third-party code).
//!
//! focus needs the API key it talks to the provider with, but nothing it starts
//! does: a command's output goes into the session file and back to the provider
//! (`printenv` counts as read-only), and an MCP server is someone else's program.
//! A variable named like a credential is removed from such a child's environment;
//! a server that needs one is given it explicitly in its configuration (`env`).
//! Hooks get the same treatment. Every variable focus itself takes a key from
//! (`focus_sys::secrets::hidden_names`) counts too, whatever its name.

use std::process::Command;

/// Whether an environment variable holds a credential: names ending in
/// `_API_KEY`, `_AUTH_TOKEN`, `_OAUTH_TOKEN` or `_SECRET_KEY` (any case), and the
/// AWS secret key and session token.
pub fn is_secret_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if focus_sys::secrets::hidden_names().iter().any(|n| n == name) {
        return true;
    }
    ["_API_KEY", "_AUTH_TOKEN", "_OAUTH_TOKEN", "_SECRET_KEY"]
        .iter()
        .any(|suffix| upper.ends_with(suffix))
        || upper == "AWS_SECRET_ACCESS_KEY"
        || upper == "AWS_SESSION_TOKEN"
}

/// Replaces every key value focus knows (`focus_sys::secrets::values`, at least
/// 8 characters long) in `text` with `[redacted]`, also reversed, base64- or
/// hex-encoded, or split across lines ([`crate::scrub`]): what a tool prints
/// never carries a key into the history, the session file or the next request.
pub fn redact(text: &str) -> std::borrow::Cow<'_, str> {
    crate::scrub::redact_values(text, &focus_sys::secrets::values())
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
