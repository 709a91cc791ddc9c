//! Settings: `<FOCUS_HOME>/settings.json` (global) and `<cwd>/.focus/settings.json`
//! (project). The project file wins; objects are merged key by key, so a project can
//! change `compaction.reserveTokens` without restating `compaction.enabled`.
//!
//! Each file is checked on its own before merging, so a bad value is reported with
//! the file it is in and its key path (`/p/.focus/settings.json: compaction.reserveTokens:
//! expected a non-negative integer, found string`). Unknown keys are warnings (a typo
//! should be visible, but must not stop focus). Keys owned by other parts of focus
//! (`permissions`, `permissionMode`, `hooks`, `mcpServers`, `sandbox`) are kept raw for them.

use crate::compaction::CompactionSettings;
use focus_core::agent::QueueMode;
use focus_core::json::{self, Object, Value};
use focus_core::provider::ThinkingLevel;
use std::fmt;
use std::path::{Path, PathBuf};

/// Keys whose values other modules read and check.
pub const KEYS_OWNED_ELSEWHERE: [&str; 5] = [
    "permissions",
    "permissionMode",
    "hooks",
    "mcpServers",
    "sandbox",
];

/// The merged, checked settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// `defaultProvider`.
    pub default_provider: Option<String>,
    /// `defaultModel`.
    pub default_model: Option<String>,
    /// `defaultThinkingLevel`.
    pub default_thinking_level: Option<ThinkingLevel>,
    /// `compaction.{enabled, reserveTokens, keepRecentTokens}`, defaults filled in.
    pub compaction: CompactionSettings,
    /// `tools`: the enabled tool names; `None` means the default set.
    pub tools: Option<Vec<String>>,
    /// `shellPath`: the shell the bash tool runs.
    pub shell_path: Option<String>,
    /// `retry.{enabled, maxRetries, baseDelayMs, maxDelayMs}` (pi's keys): how a
    /// model call that failed before answering is retried.
    pub retry: RetrySettings,
    /// `steeringMode`: how queued steering messages are delivered (pi's key;
    /// `None`: all at once).
    pub steering_mode: Option<QueueMode>,
    /// `followUpMode`: how queued follow-up messages are delivered.
    pub follow_up_mode: Option<QueueMode>,
    /// `toolDeadlineSeconds`: how long one tool call may run before it is
    /// cancelled; `None` means the tools' default.
    pub tool_deadline_seconds: Option<u64>,
    /// `bashSpillMaxBytes`: most bytes of one bash spill file; `None` means the
    /// default (ten times the inline cap).
    pub bash_spill_max_bytes: Option<u64>,
    /// `theme`: the interactive mode's colours (`dark`, `light`, or a theme
    /// file's name; pi's key).
    pub theme: Option<String>,
    /// `hideThinkingBlock`: thinking starts folded in the interactive mode
    /// (pi's key; Ctrl+T shows it).
    pub hide_thinking_block: Option<bool>,
    /// `enabledModels`: the model patterns Ctrl+P cycles through (pi's key:
    /// `provider/id`, an id or part of one, a glob, each optionally with a
    /// `:thinking` suffix); `None`: every usable model.
    pub enabled_models: Option<Vec<String>>,
    /// `transport`: `"curl"` sends every request through curl; `"auto"` (the
    /// default, also pi's `"sse"` and `"websocket"`) lets plain `http://` go
    /// through focus's own HTTP client (docs/networking.md).
    pub transport: Option<String>,
    /// The whole merged object, including the keys owned elsewhere
    /// ([`Settings::raw`] reads one).
    pub merged: Value,
}

impl Settings {
    /// A raw top-level value (`permissions`, `hooks`…); `Null` when absent.
    pub fn raw(&self, key: &str) -> &Value {
        &self.merged[key]
    }
}

/// How a failed model call is retried (pi's `retry` settings, pi's defaults:
/// enabled, 3 retries, 2 s doubling, at most 60 s).
#[derive(Clone, Debug, PartialEq)]
pub struct RetrySettings {
    /// `retry.enabled`: whether to retry at all.
    pub enabled: bool,
    /// `retry.maxRetries`: retries after the first attempt.
    pub max_retries: u32,
    /// `retry.baseDelayMs`: the first wait; each retry doubles it.
    pub base_delay_ms: u64,
    /// `retry.maxDelayMs`: the longest wait (a server asking for longer fails the call).
    pub max_delay_ms: u64,
}

impl Default for RetrySettings {
    fn default() -> RetrySettings {
        RetrySettings {
            enabled: true,
            max_retries: 3,
            base_delay_ms: 2000,
            max_delay_ms: 60_000,
        }
    }
}

/// What a key of a settings section must hold.
#[derive(Clone, Copy)]
enum Expect {
    /// `true` or `false`.
    Flag,
    /// A non-negative integer.
    Count,
}

/// The keys of `compaction`.
const COMPACTION_KEYS: [(&str, Expect); 3] = [
    ("enabled", Expect::Flag),
    ("reserveTokens", Expect::Count),
    ("keepRecentTokens", Expect::Count),
];

/// The keys of `retry`.
const RETRY_KEYS: [(&str, Expect); 4] = [
    ("enabled", Expect::Flag),
    ("maxRetries", Expect::Count),
    ("baseDelayMs", Expect::Count),
    ("maxDelayMs", Expect::Count),
];

/// The keys of `branchSummary` (pi's): `skipPrompt` leaves a branch in
/// `/tree` without asking to summarize it; `reserveTokens` is accepted for
/// pi's files (focus reserves `compaction.reserveTokens`).
const BRANCH_SUMMARY_KEYS: [(&str, Expect); 2] = [
    ("skipPrompt", Expect::Flag),
    ("reserveTokens", Expect::Count),
];

/// Settings together with the warnings loading them produced.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedSettings {
    /// The settings.
    pub settings: Settings,
    /// Unknown keys and similar, one line each, naming the file.
    pub warnings: Vec<String>,
}

/// Settings files that could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingsError {
    /// One line per problem, each naming the file (and key).
    pub problems: Vec<String>,
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("\n"))
    }
}

impl std::error::Error for SettingsError {}

/// The global settings file.
pub fn global_settings_path(config_dir: &Path) -> PathBuf {
    config_dir.join("settings.json")
}

/// The project settings file.
pub fn project_settings_path(cwd: &Path) -> PathBuf {
    cwd.join(".focus").join("settings.json")
}

/// Loads, checks and merges the global and project settings. Missing files are
/// fine; unreadable JSON or bad values are errors.
pub fn load_settings(config_dir: &Path, cwd: &Path) -> Result<LoadedSettings, SettingsError> {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let mut merged = Value::Object(Object::new());
    for path in [global_settings_path(config_dir), project_settings_path(cwd)] {
        let text = match crate::files::read_regular_file(&path) {
            None => continue,
            Some(Ok(bytes)) => bytes,
            Some(Err(e)) => {
                problems.push(format!("{}: cannot read: {e}", path.display()));
                continue;
            }
        };
        match json::parse(&text) {
            Ok(value @ Value::Object(_)) => {
                check_file(&value, &path, &mut problems, &mut warnings);
                deep_merge(&mut merged, value);
            }
            Ok(other) => problems.push(format!(
                "{}: expected a JSON object, found {}",
                path.display(),
                other.type_name()
            )),
            Err(e) => problems.push(format!("{}: invalid JSON: {e}", path.display())),
        }
    }
    if !problems.is_empty() {
        return Err(SettingsError { problems });
    }
    Ok(LoadedSettings {
        settings: from_merged(merged),
        warnings,
    })
}

/// Merges `overlay` into `base`: objects key by key (recursively), anything else
/// replaced.
pub fn deep_merge(base: &mut Value, overlay: Value) {
    if let (Value::Object(base), Value::Object(overlay)) = (&mut *base, &overlay) {
        for (key, value) in overlay.iter() {
            match base.get_mut(key) {
                Some(existing) => deep_merge(existing, value.clone()),
                None => {
                    base.insert(key, value.clone());
                }
            }
        }
        return;
    }
    *base = overlay;
}

fn check_file(value: &Value, path: &Path, problems: &mut Vec<String>, warnings: &mut Vec<String>) {
    let file = path.display();
    let mut bad = |key: &str, expected: &str, found: &Value| {
        problems.push(format!(
            "{file}: {key}: expected {expected}, found {}",
            describe(found)
        ))
    };
    let Some(object) = value.as_object() else {
        return;
    };
    for (key, v) in object.iter() {
        match key {
            "hideThinkingBlock" => {
                if v.as_bool().is_none() {
                    bad(key, "true or false", v)
                }
            }
            "defaultProvider" | "defaultModel" | "shellPath" | "theme" => {
                if !matches!(v, Value::String(_)) {
                    bad(key, "a string", v)
                }
            }
            "toolDeadlineSeconds" | "bashSpillMaxBytes" => {
                if v.as_u64().filter(|n| *n > 0).is_none() {
                    bad(key, "a positive integer", v)
                }
            }
            "transport" => {
                if !matches!(v.as_str(), Some("auto" | "curl" | "sse" | "websocket")) {
                    bad(key, "\"auto\" or \"curl\"", v)
                }
            }
            "steeringMode" | "followUpMode" => {
                if v.as_str().and_then(QueueMode::parse).is_none() {
                    bad(key, "\"all\" or \"one-at-a-time\"", v)
                }
            }
            "defaultThinkingLevel" => {
                if v.as_str().and_then(ThinkingLevel::parse).is_none() {
                    bad(key, "one of off, minimal, low, medium, high, xhigh", v)
                }
            }
            "tools" | "enabledModels" | "skills" | "prompts" => {
                let names = v
                    .as_array()
                    .filter(|a| a.iter().all(|t| t.as_str().is_some()));
                if names.is_none() {
                    let what = match key {
                        "tools" => "tool names",
                        "enabledModels" => "model patterns",
                        _ => "directory paths",
                    };
                    bad(key, &format!("an array of {what}"), v)
                }
            }
            "compaction" | "retry" | "branchSummary" => {
                let Some(section) = v.as_object() else {
                    bad(key, "an object", v);
                    continue;
                };
                let known: &[(&str, Expect)] = match key {
                    "retry" => &RETRY_KEYS,
                    "branchSummary" => &BRANCH_SUMMARY_KEYS,
                    _ => &COMPACTION_KEYS,
                };
                for (sub, sv) in section.iter() {
                    let full = format!("{key}.{sub}");
                    match known.iter().find(|(name, _)| *name == sub) {
                        Some((_, Expect::Flag)) if sv.as_bool().is_none() => {
                            bad(&full, "true or false", sv)
                        }
                        Some((_, Expect::Count)) if sv.as_u64().is_none() => {
                            bad(&full, "a non-negative integer", sv)
                        }
                        Some(_) => {}
                        None => warnings.push(format!("{file}: unknown setting {full:?} ignored")),
                    }
                }
            }
            _ if KEYS_OWNED_ELSEWHERE.contains(&key) => {}
            _ => warnings.push(format!("{file}: unknown setting {key:?} ignored")),
        }
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("string {s:?}"),
        Value::Number(n) => format!("number {n}"),
        other => other.type_name().to_string(),
    }
}

/// Reads the typed fields from an already checked, merged object.
fn from_merged(merged: Value) -> Settings {
    let string = |key: &str| merged[key].as_str().map(str::to_string);
    let strings = |key: &str| {
        merged[key].as_array().map(|a| {
            a.iter()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect::<Vec<String>>()
        })
    };
    let defaults = CompactionSettings::default();
    let compaction = &merged["compaction"];
    Settings {
        default_provider: string("defaultProvider"),
        default_model: string("defaultModel"),
        default_thinking_level: merged["defaultThinkingLevel"]
            .as_str()
            .and_then(ThinkingLevel::parse),
        compaction: CompactionSettings {
            enabled: compaction["enabled"].as_bool().unwrap_or(defaults.enabled),
            reserve_tokens: compaction["reserveTokens"]
                .as_u64()
                .unwrap_or(defaults.reserve_tokens),
            keep_recent_tokens: compaction["keepRecentTokens"]
                .as_u64()
                .unwrap_or(defaults.keep_recent_tokens),
        },
        tools: strings("tools"),
        enabled_models: strings("enabledModels"),
        shell_path: string("shellPath"),
        steering_mode: merged["steeringMode"].as_str().and_then(QueueMode::parse),
        follow_up_mode: merged["followUpMode"].as_str().and_then(QueueMode::parse),
        retry: {
            let (retry, defaults) = (&merged["retry"], RetrySettings::default());
            RetrySettings {
                enabled: retry["enabled"].as_bool().unwrap_or(defaults.enabled),
                max_retries: retry["maxRetries"]
                    .as_u64()
                    .map_or(defaults.max_retries, |n| n.min(100) as u32),
                base_delay_ms: retry["baseDelayMs"]
                    .as_u64()
                    .unwrap_or(defaults.base_delay_ms),
                max_delay_ms: retry["maxDelayMs"]
                    .as_u64()
                    .unwrap_or(defaults.max_delay_ms),
            }
        },
        tool_deadline_seconds: merged["toolDeadlineSeconds"].as_u64().filter(|n| *n > 0),
        bash_spill_max_bytes: merged["bashSpillMaxBytes"].as_u64().filter(|n| *n > 0),
        theme: string("theme"),
        hide_thinking_block: merged["hideThinkingBlock"].as_bool(),
        transport: string("transport"),
        merged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(tag: &str) -> (PathBuf, PathBuf) {
        let root =
            std::env::temp_dir().join(format!("focus-settings-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        let cwd = root.join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(cwd.join(".focus")).unwrap();
        (home, cwd)
    }

    #[test]
    fn pi_retry_keys_are_read_and_checked() {
        let (home, cwd) = dirs("retry");
        std::fs::write(
            global_settings_path(&home),
            r#"{"retry":{"maxRetries":1,"baseDelayMs":250,"jitter":true}}"#,
        )
        .unwrap();
        let loaded = load_settings(&home, &cwd).unwrap();
        let retry = &loaded.settings.retry;
        assert_eq!(
            (retry.enabled, retry.max_retries, retry.base_delay_ms),
            (true, 1, 250)
        );
        assert_eq!(retry.max_delay_ms, 60_000, "the default where unset");
        assert!(
            loaded.warnings[0].contains("\"retry.jitter\""),
            "{:?}",
            loaded.warnings
        );
        std::fs::write(global_settings_path(&home), r#"{"retry":{"enabled":"no"}}"#).unwrap();
        let error = load_settings(&home, &cwd).unwrap_err();
        assert!(
            error.problems[0]
                .ends_with("retry.enabled: expected true or false, found string \"no\""),
            "{:?}",
            error.problems
        );
    }

    #[test]
    fn project_wins_objects_merge_and_unknown_keys_warn() {
        let (home, cwd) = dirs("merge");
        std::fs::write(
            global_settings_path(&home),
            r#"{"defaultModel":"a","compaction":{"enabled":false,"reserveTokens":1000},"permissions":{"allow":["read"]},"colour":"red"}"#,
        )
        .unwrap();
        std::fs::write(
            project_settings_path(&cwd),
            r#"{"defaultModel":"b","defaultThinkingLevel":"high","compaction":{"reserveTokens":2000},"tools":["read","bash"],"hooks":{}}"#,
        )
        .unwrap();
        let loaded = load_settings(&home, &cwd).unwrap();
        let s = &loaded.settings;
        assert_eq!(s.default_model.as_deref(), Some("b"));
        assert_eq!(s.default_thinking_level, Some(ThinkingLevel::High));
        assert!(!s.compaction.enabled, "kept from the global file");
        assert_eq!(s.compaction.reserve_tokens, 2000);
        assert_eq!(s.compaction.keep_recent_tokens, 20_000);
        assert_eq!(
            s.tools.as_deref(),
            Some(&["read".to_string(), "bash".to_string()][..])
        );
        assert_eq!(s.raw("permissions")["allow"][0].as_str(), Some("read"));
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
        assert!(loaded.warnings[0].contains("\"colour\""));
    }

    #[test]
    fn enabled_models_are_read_and_checked() {
        let (home, cwd) = dirs("scope");
        std::fs::write(
            global_settings_path(&home),
            r#"{"enabledModels":["anthropic/*","gpt-5:high"]}"#,
        )
        .unwrap();
        std::fs::write(
            project_settings_path(&cwd),
            r#"{"enabledModels":["*sonnet*"]}"#,
        )
        .unwrap();
        let loaded = load_settings(&home, &cwd).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(
            loaded.settings.enabled_models.as_deref(),
            Some(&["*sonnet*".to_string()][..]),
            "the project's list replaces the global one"
        );
        std::fs::write(project_settings_path(&cwd), r#"{"enabledModels":"sonnet"}"#).unwrap();
        let err = load_settings(&home, &cwd).unwrap_err();
        assert!(
            err.problems[0].contains("enabledModels: expected an array of model patterns"),
            "{:?}",
            err.problems
        );
    }

    #[test]
    fn tool_limits_are_read_and_checked() {
        let (home, cwd) = dirs("limits");
        std::fs::write(
            project_settings_path(&cwd),
            r#"{"toolDeadlineSeconds":30,"bashSpillMaxBytes":100000}"#,
        )
        .unwrap();
        let s = load_settings(&home, &cwd).unwrap().settings;
        assert_eq!(s.tool_deadline_seconds, Some(30));
        assert_eq!(s.bash_spill_max_bytes, Some(100_000));
        std::fs::write(project_settings_path(&cwd), r#"{"toolDeadlineSeconds":0}"#).unwrap();
        let err = load_settings(&home, &cwd).unwrap_err();
        assert!(
            err.problems[0].contains("toolDeadlineSeconds: expected a positive integer"),
            "{:?}",
            err.problems
        );
    }

    #[test]
    fn bad_values_and_bad_json_are_named_with_file_and_key() {
        let (home, cwd) = dirs("bad");
        std::fs::write(
            project_settings_path(&cwd),
            r#"{"compaction":{"reserveTokens":"lots"},"defaultThinkingLevel":"max"}"#,
        )
        .unwrap();
        let err = load_settings(&home, &cwd).unwrap_err();
        let path = project_settings_path(&cwd).display().to_string();
        assert_eq!(
            err.problems,
            [
                format!("{path}: compaction.reserveTokens: expected a non-negative integer, found string \"lots\""),
                format!("{path}: defaultThinkingLevel: expected one of off, minimal, low, medium, high, xhigh, found string \"max\""),
            ]
        );
        std::fs::write(global_settings_path(&home), "{\"a\": }").unwrap();
        let err = load_settings(&home, &cwd).unwrap_err();
        assert!(err.problems[0].contains("invalid JSON"), "{err}");
        assert!(load_settings(&home.join("none"), &home.join("none")).is_ok());
    }

    #[test]
    fn branch_summary_keys_are_pis() {
        let (home, cwd) = dirs("branch-summary");
        std::fs::write(
            project_settings_path(&cwd),
            r#"{"branchSummary":{"skipPrompt":true,"reserveTokens":16384}}"#,
        )
        .unwrap();
        let loaded = load_settings(&home, &cwd).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(
            loaded.settings.raw("branchSummary")["skipPrompt"].as_bool(),
            Some(true)
        );
        std::fs::write(
            project_settings_path(&cwd),
            r#"{"branchSummary":{"skipPrompt":"yes"}}"#,
        )
        .unwrap();
        let err = load_settings(&home, &cwd).unwrap_err();
        assert!(err.problems[0].contains("branchSummary.skipPrompt: expected true or false"));
    }
}
