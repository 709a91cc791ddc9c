//! The settings `/settings` shows and edits: every key docs/settings.md lists
//! as read, with what it holds, its default and what it does, and how a typed
//! value is checked before anything is written ([`Kind::parse`]).

use focus_core::json::Value;

/// What a setting holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `true` or `false`.
    Flag,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A theme's name: a built-in one or a theme file's.
    Theme,
    /// An integer above 0.
    Positive,
    /// An integer, 0 or more.
    Count,
    /// A number of US dollars above 0.
    Dollars,
    /// A line of text.
    Text,
    /// A list of words: `a, b` or a JSON array of strings.
    List,
    /// A JSON object (`hooks`, `mcpServers`).
    Object,
}

/// One setting.
#[derive(Debug)]
pub struct Setting {
    /// The key, a dotted path (`compaction.enabled`).
    pub key: &'static str,
    /// The command its value picker (or prompt) runs: `/settings KEY`.
    pub command: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// Its value when no file sets it, as shown.
    pub default: &'static str,
    /// What it does, in a few words.
    pub what: &'static str,
}

macro_rules! setting {
    ($key:literal, $kind:expr, $default:literal, $what:literal) => {
        Setting {
            key: $key,
            command: concat!("/settings ", $key),
            kind: $kind,
            default: $default,
            what: $what,
        }
    };
}

const FLAG: Kind = Kind::Flag;
const THINKING: Kind = Kind::Choice(&["off", "minimal", "low", "medium", "high", "xhigh"]);
const QUEUE: Kind = Kind::Choice(&["all", "one-at-a-time"]);

/// Every setting docs/settings.md lists under "Read", in its order.
pub const SETTINGS: &[Setting] = &[
    setting!(
        "defaultProvider",
        Kind::Text,
        "(none)",
        "the model's provider when no flag chooses one"
    ),
    setting!(
        "defaultModel",
        Kind::Text,
        "(none)",
        "the model when no flag chooses one"
    ),
    setting!(
        "defaultThinkingLevel",
        THINKING,
        "(the model's)",
        "thinking level of new sessions"
    ),
    setting!(
        "compaction.enabled",
        FLAG,
        "true",
        "compact the history automatically"
    ),
    setting!(
        "compaction.reserveTokens",
        Kind::Count,
        "16384",
        "tokens kept free for the answer"
    ),
    setting!(
        "compaction.keepRecentTokens",
        Kind::Count,
        "20000",
        "recent tokens kept whole when compacting"
    ),
    setting!(
        "checkpoints.enabled",
        FLAG,
        "true",
        "record file changes so /rewind and focus rewind can undo them"
    ),
    setting!(
        "checkpoints.watch",
        FLAG,
        "true",
        "list only the folders with file change events after a call (inotify)"
    ),
    setting!(
        "checkpoints.maxFileBytes",
        Kind::Count,
        "67108864",
        "larger files are not recorded"
    ),
    setting!(
        "checkpoints.maxPaths",
        Kind::Count,
        "500000",
        "a project with more paths is not tracked"
    ),
    setting!(
        "checkpoints.maxSessionBytes",
        Kind::Count,
        "1073741824",
        "content one session's checkpoints may hold (swept at start, focus sessions gc)"
    ),
    setting!(
        "checkpoints.maxTotalBytes",
        Kind::Count,
        "4294967296",
        "content all sessions of a folder may hold (swept at start, focus sessions gc)"
    ),
    setting!(
        "checkpoints.rewindDefault",
        Kind::Choice(&["both", "code", "conversation"]),
        "both",
        "what a rewind restores by default"
    ),
    setting!(
        "branchSummary.skipPrompt",
        FLAG,
        "false",
        "/tree leaves a branch without asking to summarize"
    ),
    setting!(
        "branchSummary.reserveTokens",
        Kind::Count,
        "(compaction's)",
        "accepted for pi's files"
    ),
    setting!(
        "retry.enabled",
        FLAG,
        "true",
        "retry a model call that failed"
    ),
    setting!(
        "retry.maxRetries",
        Kind::Count,
        "3",
        "retries after the first attempt"
    ),
    setting!(
        "retry.baseDelayMs",
        Kind::Count,
        "2000",
        "the first wait, doubled each retry"
    ),
    setting!("retry.maxDelayMs", Kind::Count, "60000", "the longest wait"),
    setting!(
        "steeringMode",
        QUEUE,
        "all",
        "how queued steering messages are delivered"
    ),
    setting!(
        "followUpMode",
        QUEUE,
        "all",
        "how queued follow-ups are delivered"
    ),
    setting!(
        "tools",
        Kind::List,
        "(the default set)",
        "the built-in tools enabled"
    ),
    setting!(
        "shellPath",
        Kind::Text,
        "(the user's shell)",
        "the shell the bash tool runs"
    ),
    setting!(
        "permissionMode",
        Kind::Choice(&["default", "accept-edits", "plan", "auto"]),
        "default",
        "permission mode (applied now too)"
    ),
    setting!(
        "permissions.allow",
        Kind::List,
        "[]",
        "rules of calls that run without asking"
    ),
    setting!(
        "permissions.deny",
        Kind::List,
        "[]",
        "rules of calls refused"
    ),
    setting!(
        "permissions.ask",
        Kind::List,
        "[]",
        "rules of calls that always ask"
    ),
    setting!(
        "hooks",
        Kind::Object,
        "{}",
        "commands run at tool calls, prompts, stops (JSON)"
    ),
    setting!("mcpServers", Kind::Object, "{}", "MCP servers (JSON)"),
    setting!(
        "sandbox.enabled",
        FLAG,
        "true",
        "the kernel sandbox for tools"
    ),
    setting!(
        "sandbox.writablePaths",
        Kind::List,
        "[]",
        "more paths tools may write"
    ),
    setting!(
        "sandbox.network",
        FLAG,
        "false",
        "tools may open network connections"
    ),
    setting!(
        "sandbox.hooks",
        FLAG,
        "false",
        "confine the user's own hooks too"
    ),
    setting!("sandbox.mcpServers", FLAG, "false", "confine MCP servers"),
    setting!(
        "sandbox.allowUnixSockets",
        Kind::List,
        "[]",
        "tools may create Unix sockets (non-empty: all)"
    ),
    setting!(
        "sandbox.limits.processes",
        Kind::Count,
        "1024",
        "processes of a tool call (0: no limit)"
    ),
    setting!(
        "sandbox.limits.fileSizeMb",
        Kind::Count,
        "4096",
        "largest file a tool writes, MB"
    ),
    setting!(
        "sandbox.limits.memoryMb",
        Kind::Count,
        "8192",
        "memory of a tool process, MB"
    ),
    setting!(
        "sandbox.limits.cpuSeconds",
        Kind::Count,
        "7200",
        "CPU seconds of a tool process"
    ),
    setting!(
        "sandbox.limits.tempDirMb",
        Kind::Count,
        "1024",
        "the private temporary directory, MB"
    ),
    setting!(
        "sandbox.limits.maxTimeoutSeconds",
        Kind::Count,
        "7200",
        "the longest bash timeout"
    ),
    setting!(
        "subagents.maxParallel",
        Kind::Positive,
        "4",
        "subagents running at once (1 to 64)"
    ),
    setting!(
        "subagents.maxDepth",
        Kind::Count,
        "1",
        "how deep subagents nest (0: no task tool)"
    ),
    setting!(
        "maxTurns",
        Kind::Positive,
        "(no limit)",
        "model calls per prompt in a headless run"
    ),
    setting!(
        "deadlineSeconds",
        Kind::Positive,
        "(none)",
        "seconds for a whole headless run"
    ),
    setting!(
        "maxCostUsd",
        Kind::Dollars,
        "(none)",
        "cost budget of a headless run, USD"
    ),
    setting!(
        "toolDeadlineSeconds",
        Kind::Positive,
        "(the tools')",
        "a tool call's deadline"
    ),
    setting!(
        "bashSpillMaxBytes",
        Kind::Positive,
        "(10 × the inline cap)",
        "cap of a bash spill file"
    ),
    setting!(
        "streamStallSeconds",
        Kind::Positive,
        "300",
        "seconds of keepalives before a stream counts as stalled"
    ),
    setting!(
        "theme",
        Kind::Theme,
        "dark",
        "colours of the interactive mode"
    ),
    setting!(
        "enabledModels",
        Kind::List,
        "(every usable model)",
        "models Ctrl+P steps through"
    ),
    setting!(
        "hideThinkingBlock",
        FLAG,
        "false",
        "thinking starts folded (Ctrl+T shows it)"
    ),
    setting!(
        "transport",
        Kind::Choice(&["auto", "curl"]),
        "auto",
        "how requests are sent"
    ),
    setting!("skills", Kind::List, "[]", "more directories of skills"),
    setting!(
        "prompts",
        Kind::List,
        "[]",
        "more directories of prompt templates"
    ),
];

impl Kind {
    /// The values a picker offers (`themes`: the theme names there are);
    /// empty for a value typed in.
    pub fn values(self, themes: &[String]) -> Vec<String> {
        match self {
            Kind::Flag => vec!["true".into(), "false".into()],
            Kind::Choice(words) => words.iter().map(|w| w.to_string()).collect(),
            Kind::Theme => themes.to_vec(),
            _ => Vec::new(),
        }
    }

    /// What a value must be, for an error.
    pub fn expected(self, themes: &[String]) -> String {
        match self {
            Kind::Flag => "true or false".into(),
            Kind::Choice(words) => format!("one of {}", words.join(", ")),
            Kind::Theme => format!("a theme: {}", themes.join(", ")),
            Kind::Positive => "a whole number above 0".into(),
            Kind::Count => "a whole number, 0 or more".into(),
            Kind::Dollars => "an amount of dollars above 0 (such as 2.50)".into(),
            Kind::Text => "some text".into(),
            Kind::List => "words separated by commas, or a JSON array of strings".into(),
            Kind::Object => "a JSON object".into(),
        }
    }

    /// `text` as this kind's JSON value, or what is wrong with it.
    pub fn parse(self, text: &str, themes: &[String]) -> Result<Value, String> {
        let text = text.trim();
        let bad = || format!("expected {}, not {text:?}", self.expected(themes));
        match self {
            Kind::Flag => match text {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(bad()),
            },
            Kind::Choice(words) if words.contains(&text) => Ok(Value::String(text.into())),
            Kind::Theme if themes.iter().any(|t| t == text) => Ok(Value::String(text.into())),
            Kind::Choice(_) | Kind::Theme => Err(bad()),
            Kind::Positive | Kind::Count => match text.parse::<u64>() {
                Ok(n) if n > 0 || self == Kind::Count => Ok(Value::from(n)),
                _ => Err(bad()),
            },
            Kind::Dollars => match text.parse::<f64>() {
                Ok(n) if n.is_finite() && n > 0.0 => Ok(Value::from(n)),
                _ => Err(bad()),
            },
            Kind::Text if !text.is_empty() && !text.chars().any(char::is_control) => {
                Ok(Value::String(text.into()))
            }
            Kind::Text => Err(bad()),
            Kind::List if text.starts_with('[') => match focus_core::json::parse_str(text) {
                Ok(value @ Value::Array(_))
                    if value
                        .as_array()
                        .is_some_and(|a| a.iter().all(|i| i.as_str().is_some())) =>
                {
                    Ok(value)
                }
                _ => Err(bad()),
            },
            Kind::List => {
                let words: Vec<Value> = text
                    .split(',')
                    .map(str::trim)
                    .filter(|w| !w.is_empty())
                    .map(|w| Value::String(w.into()))
                    .collect();
                Ok(Value::Array(words))
            }
            Kind::Object => match focus_core::json::parse_str(text) {
                Ok(value @ Value::Object(_)) => Ok(value),
                _ => Err(bad()),
            },
        }
    }
}

/// The setting named `key`.
pub fn find(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of docs/settings.md's "Read" table: each backquoted key of a
    /// row's first cell (`.x` after a key is a sibling of that key), and the
    /// `sandbox.*` keys named in its row.
    fn documented_keys() -> Vec<String> {
        let doc = include_str!("../../../../../docs/settings.md");
        let table = doc
            .split("## Read")
            .nth(1)
            .and_then(|rest| rest.split("\n## ").next())
            .expect("docs/settings.md has a Read section");
        let mut keys = Vec::new();
        for row in table.lines().filter(|l| l.starts_with("| `")) {
            let cell = row.split(" | ").next().unwrap_or("");
            let mut parent = String::new();
            for word in cell.split('`').skip(1).step_by(2) {
                if word == "sandbox.*" {
                    continue;
                }
                let key = match word.strip_prefix('.') {
                    Some(sibling) => format!("{parent}.{sibling}"),
                    None => word.to_string(),
                };
                parent = key.rsplit_once('.').map_or(String::new(), |p| p.0.into());
                keys.push(key);
            }
        }
        keys
    }

    #[test]
    fn every_documented_setting_is_listed() {
        let keys = documented_keys();
        assert!(keys.len() > 30, "{keys:?}");
        for key in &keys {
            assert!(find(key).is_some(), "/settings does not list {key}");
        }
        for setting in SETTINGS {
            let root = setting.key.split('.').next().unwrap();
            assert!(
                keys.iter().any(|k| k == setting.key || k.starts_with(root)) || root == "sandbox",
                "{} is not documented",
                setting.key
            );
        }
    }

    #[test]
    fn values_are_checked_by_kind() {
        let themes = vec!["dark".to_string(), "light".to_string(), "mine".to_string()];
        assert_eq!(Kind::Positive.parse("12", &themes), Ok(Value::from(12u64)));
        assert!(Kind::Positive.parse("0", &themes).is_err());
        assert!(Kind::Positive
            .parse("abc", &themes)
            .unwrap_err()
            .contains("\"abc\""));
        assert_eq!(Kind::Count.parse("0", &themes), Ok(Value::from(0u64)));
        assert!(Kind::Dollars.parse("-1", &themes).is_err());
        assert_eq!(
            Kind::Theme.parse("mine", &themes),
            Ok(Value::String("mine".into()))
        );
        let error = Kind::Theme.parse("nosuch", &themes).unwrap_err();
        assert!(error.contains("mine"), "{error}");
        assert_eq!(
            Kind::List
                .parse("read, bash", &themes)
                .unwrap()
                .to_json_string(),
            r#"["read","bash"]"#
        );
        assert!(Kind::List.parse("[1]", &themes).is_err());
        assert!(Kind::Object.parse("[]", &themes).is_err());
        assert!(Kind::Flag.parse("yes", &themes).is_err());
        assert!(THINKING.parse("high", &themes).is_ok());
    }
}
