//! MCP server settings: `mcpServers: {name: {command, args, env, cwd, timeout}}`.
//!
//! The shape is Claude Code's (and Cursor's), so an existing `mcpServers` block can be
//! copied over. `timeout` (seconds, default 60) bounds each request; `startupTimeout`
//! (seconds, default 10) bounds the start (launch, handshake, tool list). A server
//! with `"disabled": true` is skipped. Servers with a `url` (the streamable HTTP
//! transport) are parsed but reported as unsupported when started.

use focus_core::json::Value;
use std::time::Duration;

/// Default bound on one request to a server.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// Default bound on starting a server.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How to start (or reach) one MCP server.
#[derive(Clone, Debug, PartialEq)]
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
    /// The server's URL, for the HTTP transport (not supported yet).
    pub url: Option<String>,
    /// Bound on each request.
    pub request_timeout: Duration,
    /// Bound on the start.
    pub startup_timeout: Duration,
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
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
        }
    }

    /// Reads the `mcpServers` key of a settings object (missing → no servers), in
    /// settings order, skipping disabled ones. Errors name the server and key.
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
                            return Err(format!("`{at}.type` is `{kind}`; expected stdio or http"));
                        }
                    }
                    "args" => {
                        let items = value
                            .as_array()
                            .ok_or_else(|| format!("`{at}.args` must be an array"))?;
                        for (i, item) in items.iter().enumerate() {
                            let arg = item
                                .as_str()
                                .ok_or_else(|| format!("`{at}.args[{i}]` must be a string"))?;
                            config.args.push(arg.to_string());
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
                            config.env.push((var.to_string(), val.to_string()));
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
                        "unknown key `{at}.{other}` (expected command, args, env, cwd, url, type, \
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
}
