//! MCP server settings: `mcpServers: {name: {command, args, env, cwd, timeout}}`.
//!
//! The shape is Claude Code's (and Cursor's), so an existing `mcpServers` block can be
//! copied over. `timeout` (seconds, default 60) bounds each request; `startupTimeout`
//! (seconds, default 10) bounds the start (launch, handshake, tool list). A server
//! with `"disabled": true` is skipped. A server with a `url` (and optional
//! `headers`) speaks the streamable HTTP transport, if the front end gave the
//! manager an HTTP client (`"type": "sse"`: the older HTTP+SSE transport).
//!
//! `${NAME}` and `${NAME:-default}` in `command`, `args`, `env`, `cwd` and `url` are
//! replaced from focus's environment ([`expand_env`]), so tokens need not be written
//! into settings files.

use focus_core::json::Value;
use std::time::Duration;

/// Default bound on one request to a server.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// Default bound on starting a server.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How to start (or reach) one MCP server.
///
/// Its `Debug` output hides the values of `env`, which often hold tokens.
#[derive(Clone, PartialEq)]
pub struct McpServerConfig {
    /// The name in settings; tool names are `<name>__<tool>`.
    pub name: String,
    /// The program to run (stdio transport).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment variables (added to focus's own environment).
    pub env: Vec<(String, String)>,
    /// Working directory, if not focus's.
    pub cwd: Option<String>,
    /// The server's URL, for the streamable HTTP transport.
    pub url: Option<String>,
    /// Extra HTTP headers (e.g. `Authorization`), for the HTTP transport.
    pub headers: Vec<(String, String)>,
    /// `"type": "sse"`: the older HTTP+SSE transport from the start (otherwise
    /// it is only the fallback when the streamable HTTP POST is refused).
    pub legacy_sse: bool,
    /// Bound on each request.
    pub request_timeout: Duration,
    /// Bound on the start.
    pub startup_timeout: Duration,
}

impl std::fmt::Debug for McpServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let env: Vec<String> = self.env.iter().map(|(k, _)| format!("{k}=…")).collect();
        f.debug_struct("McpServerConfig")
            .field("name", &self.name)
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &env)
            .field("cwd", &self.cwd)
            .field("url", &self.url)
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(k, _)| format!("{k}: …"))
                    .collect::<Vec<_>>(),
            )
            .field("legacy_sse", &self.legacy_sse)
            .field("request_timeout", &self.request_timeout)
            .field("startup_timeout", &self.startup_timeout)
            .finish()
    }
}

impl McpServerConfig {
    /// A stdio server running `command args…` with default timeouts.
    pub fn stdio(name: &str, command: &str, args: &[&str]) -> McpServerConfig {
        McpServerConfig {
            name: name.to_string(),
            command: command.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Vec::new(),
            cwd: None,
            url: None,
            headers: Vec::new(),
            legacy_sse: false,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
        }
    }

    /// Reads the `mcpServers` key of a settings object (missing → no servers), in
    /// settings order, skipping disabled ones. Errors name the server and key.
    ///
    /// # Errors
    ///
    /// A malformed server entry: the message names the server and the key.
    pub fn from_json(settings: &Value) -> Result<Vec<McpServerConfig>, String> {
        let servers = &settings["mcpServers"];
        if servers.is_null() {
            return Ok(Vec::new());
        }
        let servers = servers.as_object().ok_or_else(|| {
            format!(
                "`mcpServers` must be an object, found {}",
                servers.type_name()
            )
        })?;
        let mut configs = Vec::new();
        for (name, server) in servers.iter() {
            let at = format!("mcpServers.{name}");
            if name.is_empty() {
                return Err("`mcpServers` has a server with an empty name".to_string());
            }
            let object = server
                .as_object()
                .ok_or_else(|| format!("`{at}` must be an object"))?;
            let mut config = McpServerConfig::stdio(name, "", &[]);
            let mut disabled = false;
            for (key, value) in object.iter() {
                let string = || {
                    value.as_str().map(str::to_string).ok_or_else(|| {
                        format!("`{at}.{key}` must be a string, found {}", value.type_name())
                    })
                };
                match key {
                    "command" => config.command = string()?,
                    "url" => config.url = Some(string()?),
                    "cwd" => config.cwd = Some(string()?),
                    "type" => {
                        let kind = string()?;
                        if !matches!(kind.as_str(), "stdio" | "http" | "streamable-http" | "sse") {
                            return Err(format!(
                                "`{at}.type` is `{kind}`; expected stdio, http or sse"
                            ));
                        }
                        config.legacy_sse = kind == "sse";
                    }
                    "args" => {
                        let items = value
                            .as_array()
                            .ok_or_else(|| format!("`{at}.args` must be an array"))?;
                        for (i, item) in items.iter().enumerate() {
                            let arg = item
                                .as_str()
                                .ok_or_else(|| format!("`{at}.args[{i}]` must be a string"))?;
                            config.args.push(
                                expand_env(arg).map_err(|e| format!("`{at}.args[{i}]`: {e}"))?,
                            );
                        }
                    }
                    "env" => {
                        let vars = value
                            .as_object()
                            .ok_or_else(|| format!("`{at}.env` must be an object"))?;
                        for (var, val) in vars.iter() {
                            let val = val
                                .as_str()
                                .ok_or_else(|| format!("`{at}.env.{var}` must be a string"))?;
                            let val =
                                expand_env(val).map_err(|e| format!("`{at}.env.{var}`: {e}"))?;
                            config.env.push((var.to_string(), val));
                        }
                    }
                    "headers" => {
                        let headers = value
                            .as_object()
                            .ok_or_else(|| format!("`{at}.headers` must be an object"))?;
                        for (header, val) in headers.iter() {
                            let val = val
                                .as_str()
                                .ok_or_else(|| format!("`{at}.headers.{header}` must be a string"))?;
                            let val = expand_env(val)
                                .map_err(|e| format!("`{at}.headers.{header}`: {e}"))?;
                            config.headers.push((header.to_string(), val));
                        }
                    }
                    "timeout" => config.request_timeout = seconds(value, &at, key)?,
                    "startupTimeout" => config.startup_timeout = seconds(value, &at, key)?,
                    "disabled" => {
                        disabled = value
                            .as_bool()
                            .ok_or_else(|| format!("`{at}.disabled` must be true or false"))?
                    }
                    other => {
                        return Err(format!(
                        "unknown key `{at}.{other}` (expected command, args, env, cwd, url, headers, type, \
                             timeout, startupTimeout, disabled)"
                    ))
                    }
                }
            }
            if config.command.is_empty() && config.url.is_none() {
                return Err(format!("`{at}` needs a `command` (or a `url`)"));
            }
            if !disabled {
                configs.push(config);
            }
        }
        Ok(configs)
    }
}

/// Expands `${NAME}` and `${NAME:-default}` from focus's environment (so tokens can
/// stay out of settings files). A missing variable without a default is an error
/// naming the variable, never its value.
///
/// # Errors
///
/// A `${NAME}` without a default whose variable is not set (the message names the variable, never a
/// value), or a `${…}` that is no variable reference.
pub fn expand_env(text: &str) -> Result<String, String> {
    expand_env_with(text, focus_sys::secrets::var)
}

fn expand_env_with(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| "`${` without a closing `}`".to_string())?;
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!("`${{{inner}}}` is not a variable reference"));
        }
        match (lookup(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(format!("environment variable `{name}` is not set")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn seconds(value: &Value, at: &str, key: &str) -> Result<Duration, String> {
    value
        .as_f64()
        .filter(|s| *s > 0.0 && *s <= 86_400.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("`{at}.{key}` must be a positive number of seconds"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    #[test]
    fn reads_servers_and_names_bad_keys() {
        let settings = parse_str(
            r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "srv"], "env": {"A": "1"}, "timeout": 5},
                               "off": {"command": "x", "disabled": true}}}"#,
        )
        .unwrap();
        let configs = McpServerConfig::from_json(&settings).unwrap();
        assert_eq!(configs.len(), 1);
        assert_eq!(configs[0].args, vec!["-y", "srv"]);
        assert_eq!(configs[0].env, vec![("A".to_string(), "1".to_string())]);
        assert_eq!(configs[0].request_timeout, Duration::from_secs(5));
        let bad = parse_str(r#"{"mcpServers": {"fs": {"command": "x", "argz": []}}}"#).unwrap();
        assert!(McpServerConfig::from_json(&bad)
            .unwrap_err()
            .contains("mcpServers.fs.argz"));
        let bad = parse_str(r#"{"mcpServers": {"fs": {"args": []}}}"#).unwrap();
        assert!(McpServerConfig::from_json(&bad)
            .unwrap_err()
            .contains("needs a `command`"));
    }

    #[test]
    fn expands_environment_references_and_hides_env_values() {
        let lookup = |name: &str| (name == "TOKEN").then(|| "s3cret".to_string());
        assert_eq!(
            expand_env_with("Bearer ${TOKEN}", lookup).unwrap(),
            "Bearer s3cret"
        );
        assert_eq!(
            expand_env_with("${NOPE:-dflt}/x", lookup).unwrap(),
            "dflt/x"
        );
        assert!(expand_env_with("${NOPE}", lookup)
            .unwrap_err()
            .contains("NOPE"));
        assert!(expand_env_with("${bad name}", lookup).is_err());
        assert!(expand_env_with("${TOKEN", lookup).is_err());
        assert_eq!(
            expand_env_with("$HOME and $$", lookup).unwrap(),
            "$HOME and $$"
        );
        let mut config = McpServerConfig::stdio("s", "x", &[]);
        config.env.push(("API_KEY".into(), "s3cret".into()));
        let shown = format!("{config:?}");
        assert!(
            shown.contains("API_KEY") && !shown.contains("s3cret"),
            "{shown}"
        );
    }
}
