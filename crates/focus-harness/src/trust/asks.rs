//! What a project's settings file asks for that widens what runs: the keys
//! that take effect only once the user trusts the folder.
//!
//! A cloned repository ships its `.focus/settings.json`; read as it is, it
//! could start programs (hooks, MCP servers, another shell), let the agent act
//! without asking (a looser permission mode, `permissions.allow` rules) or take
//! the sandbox down. Those keys are listed here, each with what it would do in
//! words the user can judge; everything else in the file (a theme, compaction
//! sizes, a default model) applies without asking.
//!
//! | key | asked when |
//! |---|---|
//! | `hooks` | it names at least one command |
//! | `mcpServers` | it names at least one server |
//! | `permissionMode`, `permissions.defaultMode` | looser than the user's own (plan < default < accept-edits < auto) |
//! | `permissions.allow` | it holds a rule |
//! | `sandbox.*` | any key but the strict values `enabled: true`, `network: false`, `hooks: true`, `mcpServers: true` |
//! | `shellPath` | always (it is the program the bash tool runs) |

use super::sha256::sha256_hex;
use focus_core::json::{Object, Value};

/// One key a project's settings ask for.
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    /// The key's path in the file: `hooks`, `permissions.allow`, `sandbox.enabled`.
    pub key: String,
    /// What it would do, one line each (`PreToolUse: sh ./check.sh`); text
    /// from the file, to be sanitized before it reaches a terminal.
    pub details: Vec<String>,
    /// The start notice when it applies: `sandbox off`, `permission mode auto`.
    pub notice: String,
}

/// Everything one project settings file asks for, and its digest.
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectAsks {
    /// The keys, in the file's order.
    pub asks: Vec<Ask>,
    /// SHA-256 of the asked keys and their values: a trust answer holds for
    /// exactly these.
    pub digest: String,
}

impl ProjectAsks {
    /// The asked keys, comma separated (`hooks, sandbox.enabled`).
    pub fn keys(&self) -> String {
        let keys: Vec<&str> = self.asks.iter().map(|a| a.key.as_str()).collect();
        keys.join(", ")
    }
}

/// The permission modes from strictest to loosest, with Claude Code's names.
const MODE_RANKS: [(&str, u8); 8] = [
    ("plan", 0),
    ("default", 1),
    ("accept-edits", 2),
    ("acceptEdits", 2),
    ("auto", 3),
    ("bypassPermissions", 3),
    ("dontAsk", 3),
    ("dont-ask", 3),
];

/// How loose a mode is; an unknown spelling counts as the loosest.
fn mode_rank(mode: &str) -> u8 {
    MODE_RANKS
        .iter()
        .find(|(name, _)| *name == mode)
        .map_or(3, |(_, rank)| *rank)
}

/// The mode a settings object sets (`permissionMode`, else
/// `permissions.defaultMode`).
fn mode_of(settings: &Value) -> Option<&str> {
    settings["permissionMode"]
        .as_str()
        .or_else(|| settings["permissions"]["defaultMode"].as_str())
}

/// What `project` (a project settings object) asks for, judged against the
/// user's own `global` settings; `None` when it asks for nothing.
pub fn project_asks(project: &Value, global: &Value) -> Option<ProjectAsks> {
    let object = project.as_object()?;
    let mut asks = Vec::new();
    let mut asked = Object::new();
    for (key, value) in object.iter() {
        match key {
            "hooks" => {
                if let Some(ask) = hooks_ask(value) {
                    asked.insert(key, value.clone());
                    asks.push(ask);
                }
            }
            "mcpServers" => {
                if let Some(ask) = servers_ask(value) {
                    asked.insert(key, value.clone());
                    asks.push(ask);
                }
            }
            "permissionMode" => {
                if let Some(ask) = mode_ask(key, value, global) {
                    asked.insert(key, value.clone());
                    asks.push(ask);
                }
            }
            "permissions" => {
                let Some(permissions) = value.as_object() else {
                    asked.insert(key, value.clone());
                    asks.push(whole(key, value));
                    continue;
                };
                for (sub, sv) in permissions.iter() {
                    let path = format!("permissions.{sub}");
                    let ask = match sub {
                        "allow" => allow_ask(&path, sv),
                        "defaultMode" => mode_ask(&path, sv, global),
                        _ => None,
                    };
                    if let Some(ask) = ask {
                        asked.insert(path, sv.clone());
                        asks.push(ask);
                    }
                }
            }
            "sandbox" => {
                let Some(sandbox) = value.as_object() else {
                    asked.insert(key, value.clone());
                    asks.push(whole(key, value));
                    continue;
                };
                for (sub, sv) in sandbox.iter() {
                    if let Some(ask) = sandbox_ask(sub, sv) {
                        asked.insert(format!("sandbox.{sub}"), sv.clone());
                        asks.push(ask);
                    }
                }
            }
            "shellPath" => {
                asked.insert(key, value.clone());
                asks.push(Ask {
                    key: key.to_string(),
                    details: vec![format!("the bash tool runs {}", shown(value))],
                    notice: format!("shell {}", shown(value)),
                });
            }
            _ => {}
        }
    }
    if asks.is_empty() {
        return None;
    }
    Some(ProjectAsks {
        asks,
        digest: sha256_hex(Value::Object(asked).to_json_string().as_bytes()),
    })
}

/// `project` without the keys `asks` names (what an untrusted folder's file
/// may still set).
pub fn without_asked(project: &Value, asks: &ProjectAsks) -> Value {
    let mut kept = project.clone();
    for ask in &asks.asks {
        match ask.key.split_once('.') {
            None => {
                if let Some(object) = kept.as_object_mut() {
                    object.remove(&ask.key);
                }
            }
            Some((section, sub)) => {
                if let Some(inner) = kept
                    .as_object_mut()
                    .and_then(|o| o.get_mut(section))
                    .and_then(Value::as_object_mut)
                {
                    inner.remove(sub);
                }
            }
        }
    }
    kept
}

/// A key whose value is not of the expected kind: asked whole (loading will
/// report the bad value once it is trusted).
fn whole(key: &str, value: &Value) -> Ask {
    Ask {
        key: key.to_string(),
        details: vec![format!("{key} = {}", clip(&value.to_json_string()))],
        notice: format!("{key} from the project"),
    }
}

fn hooks_ask(value: &Value) -> Option<Ask> {
    let Some(events) = value.as_object() else {
        return (!value.is_null()).then(|| whole("hooks", value));
    };
    let mut details = Vec::new();
    for (event, groups) in events.iter() {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group["matcher"]
                .as_str()
                .filter(|m| !m.is_empty())
                .map(|m| format!(" [{m}]"))
                .unwrap_or_default();
            for hook in group["hooks"].as_array().into_iter().flatten() {
                details.push(format!(
                    "{event}{matcher}: runs {}",
                    hook["command"]
                        .as_str()
                        .map_or_else(|| clip(&hook.to_json_string()), clip)
                ));
            }
        }
        if !groups
            .as_array()
            .is_some_and(|g| g.iter().all(|x| x.as_object().is_some()))
        {
            details.push(format!("{event}: {}", clip(&groups.to_json_string())));
        }
    }
    (!details.is_empty()).then(|| Ask {
        key: "hooks".into(),
        notice: match details.len() {
            1 => "1 hook".to_string(),
            n => format!("{n} hooks"),
        },
        details,
    })
}

fn servers_ask(value: &Value) -> Option<Ask> {
    let Some(servers) = value.as_object() else {
        return (!value.is_null()).then(|| whole("mcpServers", value));
    };
    let mut details = Vec::new();
    let mut names = Vec::new();
    for (name, server) in servers.iter() {
        names.push(clip(name));
        let what = if let Some(url) = server["url"].as_str() {
            format!("connects to {}", clip(url))
        } else {
            let mut command = server["command"].as_str().unwrap_or("?").to_string();
            for arg in server["args"].as_array().into_iter().flatten() {
                command.push(' ');
                command.push_str(
                    &arg.as_str()
                        .map_or_else(|| arg.to_json_string(), String::from),
                );
            }
            format!("starts {}", clip(&command))
        };
        details.push(format!("{name}: {what}"));
    }
    (!details.is_empty()).then(|| Ask {
        key: "mcpServers".into(),
        details,
        notice: format!("MCP servers {}", names.join(", ")),
    })
}

fn mode_ask(key: &str, value: &Value, global: &Value) -> Option<Ask> {
    let Some(mode) = value.as_str() else {
        return Some(whole(key, value));
    };
    let baseline = mode_of(global).map_or(1, mode_rank);
    (mode_rank(mode) > baseline).then(|| Ask {
        key: key.to_string(),
        details: vec![format!("permission mode {}", clip(mode))],
        notice: format!("permission mode {}", clip(mode)),
    })
}

fn allow_ask(key: &str, value: &Value) -> Option<Ask> {
    let Some(rules) = value.as_array() else {
        return Some(whole(key, value));
    };
    let details: Vec<String> = rules
        .iter()
        .map(|r| {
            format!(
                "allow {}",
                r.as_str().map_or_else(|| r.to_json_string(), clip)
            )
        })
        .collect();
    (!details.is_empty()).then(|| Ask {
        key: key.to_string(),
        notice: match details.len() {
            1 => "1 allow rule".to_string(),
            n => format!("{n} allow rules"),
        },
        details,
    })
}

/// A `sandbox` key: asked unless it holds the strict value.
fn sandbox_ask(sub: &str, value: &Value) -> Option<Ask> {
    let strict = match sub {
        "enabled" | "hooks" | "mcpServers" => Some(true),
        "network" => Some(false),
        _ => None,
    };
    if strict.is_some() && value.as_bool() == strict {
        return None;
    }
    let notice = match (sub, value.as_bool()) {
        ("enabled", Some(false)) => "sandbox off".to_string(),
        ("network", Some(true)) => "sandbox lets tools open TCP connections".to_string(),
        ("hooks", Some(false)) => "hooks run outside the sandbox".to_string(),
        ("mcpServers", Some(false)) => "MCP servers run outside the sandbox".to_string(),
        ("writablePaths", _) => format!("sandbox also writable: {}", list(value)),
        _ => format!("sandbox.{sub} = {}", clip(&value.to_json_string())),
    };
    Some(Ask {
        key: format!("sandbox.{sub}"),
        details: vec![notice.clone()],
        notice,
    })
}

/// A string value as it is, anything else as JSON.
fn shown(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| clip(&value.to_json_string()), clip)
}

/// An array's items as text, comma separated.
fn list(value: &Value) -> String {
    match value.as_array() {
        Some(items) => items.iter().map(shown).collect::<Vec<_>>().join(", "),
        None => shown(value),
    }
}

/// At most 200 characters of `text`.
fn clip(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    fn asks(project: &str, global: &str) -> Option<ProjectAsks> {
        project_asks(&parse_str(project).unwrap(), &parse_str(global).unwrap())
    }

    #[test]
    fn widening_keys_are_asked_and_the_rest_is_not() {
        let found = asks(
            r#"{"theme":"light","hooks":{"PreToolUse":[{"matcher":"bash","hooks":[{"type":"command","command":"touch /tmp/x"}]}]},
                "mcpServers":{"evil":{"command":"sh","args":["-c","id"]}},
                "permissionMode":"auto","permissions":{"allow":["bash(rm:*)"],"deny":["read"]},
                "sandbox":{"enabled":false,"network":false,"writablePaths":["/"]},"shellPath":"./sh",
                "compaction":{"enabled":false}}"#,
            "{}",
        )
        .unwrap();
        assert_eq!(
            found.keys(),
            "hooks, mcpServers, permissionMode, permissions.allow, sandbox.enabled, sandbox.writablePaths, shellPath"
        );
        assert_eq!(
            found.asks[0].details,
            ["PreToolUse [bash]: runs touch /tmp/x"]
        );
        assert_eq!(found.asks[1].details, ["evil: starts sh -c id"]);
        assert_eq!(found.asks[4].notice, "sandbox off");
        assert!(asks(
            r#"{"theme":"light","sandbox":{"enabled":true},"hooks":{}}"#,
            "{}"
        )
        .is_none());
    }

    #[test]
    fn a_mode_is_asked_only_when_looser_than_the_users() {
        assert!(asks(r#"{"permissionMode":"plan"}"#, "{}").is_none());
        assert!(asks(r#"{"permissionMode":"default"}"#, "{}").is_none());
        assert!(asks(
            r#"{"permissionMode":"default"}"#,
            r#"{"permissionMode":"plan"}"#
        )
        .is_some());
        assert!(asks(
            r#"{"permissionMode":"acceptEdits"}"#,
            r#"{"permissionMode":"auto"}"#
        )
        .is_none());
        assert!(asks(
            r#"{"permissions":{"defaultMode":"bypassPermissions"}}"#,
            "{}"
        )
        .is_some());
    }

    #[test]
    fn the_digest_follows_the_asked_part_only_and_stripping_removes_it() {
        let project = r#"{"theme":"a","hooks":{"Stop":[{"hooks":[{"command":"x"}]}]},"sandbox":{"enabled":false,"network":false}}"#;
        let a = asks(project, "{}").unwrap();
        let b = asks(&project.replace("\"a\"", "\"b\""), "{}").unwrap();
        assert_eq!(a.digest, b.digest, "a theme change is not a new question");
        let c = asks(&project.replace("\"x\"", "\"y\""), "{}").unwrap();
        assert_ne!(a.digest, c.digest, "another hook command is");
        let kept = without_asked(&parse_str(project).unwrap(), &a);
        assert_eq!(
            kept.to_json_string(),
            r#"{"theme":"a","sandbox":{"network":false}}"#
        );
    }
}
