//! The `sandbox` object of settings.json:
//!
//! ```json
//! "sandbox": {
//!   "enabled": true,
//!   "writablePaths": ["~/.cargo", "/var/tmp/build"],
//!   "network": false,
//!   "hooks": false,
//!   "mcpServers": false,
//!   "allowUnixSockets": ["/run/user/1000/podman/podman.sock"],
//!   "limits": {"processes": 1024, "tempDirMb": 1024}
//! }
//! ```
//!
//! `enabled` (default true) turns the kernel sandbox on; `--sandbox off` on the
//! command line overrides it. `writablePaths` are written to in default,
//! accept-edits and auto modes besides the project and the private temporary
//! directory (`~/` expands to the home directory; relative paths are taken
//! from the project). `network: false` refuses TCP `connect` and `bind` to
//! tools. Hooks from the project's settings always run confined; `hooks: true`
//! confines the user's own hooks too (default false: they are the user's code,
//! as in Claude Code).
//! `mcpServers: true` confines MCP servers started on stdio too, with the
//! policy of default mode (a server lives across mode changes, and a Landlock
//! ruleset can only be tightened, never loosened). `allowUnixSockets` lists Unix
//! sockets tools may reach; seccomp cannot see which path a socket connects to,
//! so a non-empty list lets tools create Unix sockets at all (and focus says so
//! at start); empty (the default), `socket(AF_UNIX)` is refused. `limits`: see
//! [`super::limits`].

use focus_core::json::Value;
use std::path::{Path, PathBuf};

/// What settings say about the sandbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxSettings {
    /// Whether to confine tools at all.
    pub enabled: bool,
    /// Paths writable in the modes that write, besides the project and the
    /// temporary directory.
    pub writable_paths: Vec<PathBuf>,
    /// Whether tools may open TCP connections.
    pub network: bool,
    /// Whether the user's own hooks run confined too (the project's always do).
    pub hooks: bool,
    /// Whether MCP servers started on stdio run confined too.
    pub mcp_servers: bool,
    /// Unix sockets tools may reach (non-empty: Unix sockets are allowed).
    pub allow_unix_sockets: Vec<PathBuf>,
    /// Resource limits of tool processes.
    pub limits: super::limits::ToolLimits,
    /// The user's state folder, where the namespace probe's answer is
    /// remembered ([`super::probe_cache`]); `None`: probe every time. Never
    /// read from settings (a project must not name it).
    pub state_dir: Option<PathBuf>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            enabled: true,
            writable_paths: Vec::new(),
            network: true,
            hooks: false,
            mcp_servers: false,
            allow_unix_sockets: Vec::new(),
            limits: super::limits::ToolLimits::default(),
            state_dir: None,
        }
    }
}

impl SandboxSettings {
    /// Reads the `sandbox` key of a settings object (absent: the defaults);
    /// relative `writablePaths` are taken from `project`. Errors name the key.
    ///
    /// # Errors
    ///
    /// A value of the wrong type: the message names the key.
    pub fn from_json(settings: &Value, project: &Path) -> Result<SandboxSettings, String> {
        let mut out = SandboxSettings::default();
        let object = match &settings["sandbox"] {
            Value::Null => return Ok(out),
            Value::Object(object) => object,
            other => {
                return Err(format!(
                    "`sandbox` must be an object, found {}",
                    other.type_name()
                ))
            }
        };
        for (key, value) in object.iter() {
            let flag = || {
                value
                    .as_bool()
                    .ok_or_else(|| format!("`sandbox.{key}` must be true or false"))
            };
            match key {
                "enabled" => out.enabled = flag()?,
                "network" => out.network = flag()?,
                "hooks" => out.hooks = flag()?,
                "mcpServers" => out.mcp_servers = flag()?,
                "limits" => out.limits = super::limits::ToolLimits::from_json(value)?,
                "allowUnixSockets" => {
                    let items = value
                        .as_array()
                        .ok_or("`sandbox.allowUnixSockets` must be an array of paths")?;
                    for (i, item) in items.iter().enumerate() {
                        let text = item
                            .as_str()
                            .filter(|t| !t.trim().is_empty())
                            .ok_or_else(|| {
                                format!("`sandbox.allowUnixSockets[{i}]` must be a non-empty string")
                            })?;
                        out.allow_unix_sockets
                            .push(crate::path::resolve(project, text).map_err(|e| {
                                format!("`sandbox.allowUnixSockets[{i}]`: {e}")
                            })?);
                    }
                }
                "writablePaths" => {
                    let items = value
                        .as_array()
                        .ok_or("`sandbox.writablePaths` must be an array of paths")?;
                    for (i, item) in items.iter().enumerate() {
                        let text = item
                            .as_str()
                            .filter(|t| !t.trim().is_empty())
                            .ok_or_else(|| {
                                format!("`sandbox.writablePaths[{i}]` must be a non-empty string")
                            })?;
                        out.writable_paths
                            .push(crate::path::resolve(project, text).map_err(|e| {
                                format!("`sandbox.writablePaths[{i}]`: {e}")
                            })?);
                    }
                }
                other => {
                    return Err(format!(
                        "unknown key `sandbox.{other}` (expected enabled, writablePaths, network, hooks, mcpServers, allowUnixSockets or limits)"
                    ))
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str as parse;

    #[test]
    fn reads_every_key_and_names_bad_ones() {
        let project = Path::new("/p");
        let s = parse(r#"{"sandbox":{"enabled":false,"network":false,"hooks":false,"mcpServers":true,"writablePaths":["build","/x"]}}"#).unwrap();
        let read = SandboxSettings::from_json(&s, project).unwrap();
        assert!(!read.enabled && !read.network && !read.hooks && read.mcp_servers);
        assert_eq!(
            read.writable_paths,
            vec![PathBuf::from("/p/build"), PathBuf::from("/x")]
        );
        let absent = SandboxSettings::from_json(&parse("{}").unwrap(), project).unwrap();
        assert_eq!(absent, SandboxSettings::default());
        for (bad, says) in [
            (r#"{"sandbox":1}"#, "`sandbox` must be an object"),
            (r#"{"sandbox":{"enabled":"no"}}"#, "`sandbox.enabled`"),
            (r#"{"sandbox":{"writablePaths":[""]}}"#, "writablePaths[0]"),
            (r#"{"sandbox":{"net":true}}"#, "sandbox.net"),
        ] {
            let err = SandboxSettings::from_json(&parse(bad).unwrap(), project).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
