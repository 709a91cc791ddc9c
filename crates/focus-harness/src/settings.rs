//! Settings: `<FOCUS_HOME>/settings.json` (global) and `<cwd>/.focus/settings.json`
//! (project). The project file wins; objects are merged key by key, so a project can
//! change `compaction.reserveTokens` without restating `compaction.enabled`.
//!
//! **A project's file is untrusted until the user trusts the folder**
//! ([`crate::trust`]): its keys that widen what runs (hooks, MCP servers, a
//! looser permission mode, `permissions.allow`, sandbox changes, `shellPath`)
//! are left out of the merge unless the folder is trusted for exactly those
//! ([`ProjectTrust`]); [`LoadedSettings::withheld`] says which were left out,
//! and [`LoadedSettings::notices`] names every looser setting that applies.
//!
//! Each file is checked on its own before merging, so a bad value is reported with
//! the file it is in and its key path (`/p/.focus/settings.json: compaction.reserveTokens:
//! expected a non-negative integer, found string`). Unknown keys are warnings (a typo
//! should be visible, but must not stop focus). Keys owned by other parts of focus
//! (`permissions`, `permissionMode`, `hooks`, `mcpServers`, `sandbox`) are kept raw for them.

use crate::compaction::CompactionSettings;
use crate::trust::asks::{project_asks, without_asked, ProjectAsks};
use crate::trust::{FolderIdentity, TrustStore};
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

/// pi's own keys that mean nothing to focus: its start screen and changelog
/// (`quietStartup`, `collapseChangelog`, `lastChangelogVersion`, which pi writes
/// itself), its editor's looks (`treeFilterMode`, `doubleEscapeAction`,
/// `editorPaddingX`, `autocompleteMaxVisible`, `showHardwareCursor`, `markdown`),
/// and its npm packages and extensions (`packages`, `extensions`, `themes`,
/// `npmCommand`, `enableSkillCommands`, `enableInstallTelemetry`). A settings file
/// shared with pi has them; they are skipped without a warning on every start.
pub const PI_KEYS_SKIPPED: [&str; 15] = [
    "quietStartup",
    "collapseChangelog",
    "lastChangelogVersion",
    "treeFilterMode",
    "doubleEscapeAction",
    "editorPaddingX",
    "autocompleteMaxVisible",
    "showHardwareCursor",
    "markdown",
    "packages",
    "extensions",
    "themes",
    "npmCommand",
    "enableSkillCommands",
    "enableInstallTelemetry",
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
    /// `streamStallSeconds`: how long a model's stream may send only
    /// keepalives (no text, thinking or tool call) before the attempt counts
    /// as stalled and is retried; `None` means the providers' default.
    pub stream_stall_seconds: Option<u64>,
    /// `maxTurns`: model calls allowed per prompt (`--max-turns` wins).
    pub max_turns: Option<u64>,
    /// `deadlineSeconds`: how long a print or JSON mode run may take in all
    /// (`--deadline` wins).
    pub deadline_seconds: Option<u64>,
    /// `maxCostUsd`: the cost budget of a print or JSON mode run, in USD
    /// (`--max-cost` wins).
    pub max_cost_usd: Option<f64>,
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
    /// The user's own file as read (`Null` when absent): where a setting came
    /// from matters for hooks (the user's run unconfined, the project's
    /// confined).
    pub user_layer: Value,
    /// The project's file as applied: without the keys withheld from an
    /// untrusted folder (`Null` when absent).
    pub project_layer: Value,
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
    /// `both`, `code` or `conversation`.
    Scope,
}

/// The keys of `checkpoints` (crate::checkpoint::CheckpointSettings).
const CHECKPOINT_KEYS: [(&str, Expect); 6] = [
    ("enabled", Expect::Flag),
    ("maxFileBytes", Expect::Count),
    ("maxSessionBytes", Expect::Count),
    ("maxTotalBytes", Expect::Count),
    ("maxPaths", Expect::Count),
    ("rewindDefault", Expect::Scope),
];

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

/// The keys of `subagents` (`crate::subagents::SubagentSettings`).
const SUBAGENT_KEYS: [(&str, Expect); 2] =
    [("maxParallel", Expect::Count), ("maxDepth", Expect::Count)];

/// Settings together with the warnings loading them produced.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedSettings {
    /// The settings.
    pub settings: Settings,
    /// Unknown keys and similar, one line each, naming the file.
    pub warnings: Vec<String>,
    /// The project file's keys left out because the folder is not trusted
    /// for them; `None` when nothing was left out.
    pub withheld: Option<Withheld>,
    /// Looser settings in effect, one line each naming the file they come
    /// from (`sandbox off (from /p/.focus/settings.json)`), for the start.
    pub notices: Vec<String>,
}

/// Keys of a project settings file left out because the folder is untrusted.
#[derive(Clone, Debug, PartialEq)]
pub struct Withheld {
    /// The project settings file.
    pub file: PathBuf,
    /// What it asks for.
    pub asks: ProjectAsks,
}

impl Withheld {
    /// One line for standard error: the file and the keys ignored.
    pub fn line(&self) -> String {
        format!(
            "{}: ignored {} (this folder is not trusted: an interactive start asks to trust it, --trust-project applies them for one run)",
            self.file.display(),
            self.asks.keys()
        )
    }
}

/// Whether a project's widening keys apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProjectTrust {
    /// As the trust store says (the folder trusted for exactly these keys).
    #[default]
    Stored,
    /// Trusted for this run (`--trust-project`, or the user just said yes).
    Granted,
}

/// What a project settings file asks for that needs trust, with the
/// folder's identity: what a trust dialog shows and records.
#[derive(Clone, Debug, PartialEq)]
pub struct TrustQuestion {
    /// The project settings file.
    pub file: PathBuf,
    /// The folder being trusted.
    pub folder: FolderIdentity,
    /// What the file asks for.
    pub asks: ProjectAsks,
}

/// The question to put to the user before settings in `cwd` apply: `None`
/// when the project's file asks for nothing that needs trust, or the folder
/// is already trusted for exactly that.
///
/// # Errors
/// When a settings file cannot be read or holds bad values (as
/// [`load_settings`]).
pub fn trust_question(
    config_dir: &Path,
    cwd: &Path,
) -> Result<Option<TrustQuestion>, SettingsError> {
    let files = read_files(config_dir, cwd)?;
    let Some((file, asks)) = files.project_asks() else {
        return Ok(None);
    };
    let Ok(folder) = FolderIdentity::of(cwd) else {
        return Ok(None);
    };
    if TrustStore::new(config_dir).is_trusted(&folder, &asks.digest) {
        return Ok(None);
    }
    Ok(Some(TrustQuestion { file, folder, asks }))
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

/// Loads, checks and merges the global and project settings, the project's
/// widening keys only if the trust store trusts the folder for them. Missing
/// files are fine; unreadable JSON or bad values are errors.
///
/// # Errors
///
/// A settings file exists but cannot be read, is not JSON, or holds a value of the wrong type: the
/// error names the file and the key.
pub fn load_settings(config_dir: &Path, cwd: &Path) -> Result<LoadedSettings, SettingsError> {
    load_settings_with(config_dir, cwd, ProjectTrust::Stored)
}

/// [`load_settings`], with the project's widening keys applied as `trust`
/// says.
///
/// # Errors
///
/// As [`load_settings`].
pub fn load_settings_with(
    config_dir: &Path,
    cwd: &Path,
    trust: ProjectTrust,
) -> Result<LoadedSettings, SettingsError> {
    let files = read_files(config_dir, cwd)?;
    let asked = files.project_asks();
    let trusted = match (&asked, trust) {
        (None, _) | (_, ProjectTrust::Granted) => true,
        (Some((_, asks)), ProjectTrust::Stored) => FolderIdentity::of(cwd)
            .is_ok_and(|folder| TrustStore::new(config_dir).is_trusted(&folder, &asks.digest)),
    };
    let mut notices = Vec::new();
    if let Some((file, global)) = &files.global {
        // The user's own looser choices are said too, never applied silently.
        let strict_defaults = Value::Object(Object::new());
        for ask in project_asks(global, &strict_defaults)
            .iter()
            .flat_map(|a| &a.asks)
        {
            let weakens = matches!(
                ask.key.as_str(),
                "permissionMode" | "permissions.defaultMode" | "sandbox.enabled"
            );
            if weakens {
                notices.push(format!("{} (from {})", ask.notice, file.display()));
            }
        }
    }
    let mut withheld = None;
    let mut project_layer = files
        .project
        .as_ref()
        .map_or(Value::Null, |(_, v)| v.clone());
    if let Some((file, asks)) = asked {
        if trusted {
            for ask in &asks.asks {
                notices.push(format!("{} (from {})", ask.notice, file.display()));
            }
        } else {
            project_layer = without_asked(&project_layer, &asks);
            withheld = Some(Withheld { file, asks });
        }
    }
    let user_layer = files.global.map_or(Value::Null, |(_, v)| v);
    let mut merged = Value::Object(Object::new());
    for layer in [&user_layer, &project_layer] {
        if !layer.is_null() {
            deep_merge(&mut merged, layer.clone());
        }
    }
    let mut settings = from_merged(merged);
    settings.user_layer = user_layer;
    settings.project_layer = project_layer;
    Ok(LoadedSettings {
        settings,
        warnings: files.warnings,
        withheld,
        notices,
    })
}

/// The two settings files, each read and checked on its own.
struct SettingsFiles {
    /// The global file and its object.
    global: Option<(PathBuf, Value)>,
    /// The project file and its object.
    project: Option<(PathBuf, Value)>,
    /// Unknown keys and similar.
    warnings: Vec<String>,
}

impl SettingsFiles {
    /// The project file and what it asks for that needs trust.
    fn project_asks(&self) -> Option<(PathBuf, ProjectAsks)> {
        let (file, project) = self.project.as_ref()?;
        let global = self.global.as_ref().map_or(Value::Null, |(_, v)| v.clone());
        project_asks(project, &global).map(|asks| (file.clone(), asks))
    }
}

/// Reads and checks both files; missing ones are fine.
fn read_files(config_dir: &Path, cwd: &Path) -> Result<SettingsFiles, SettingsError> {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let mut found = Vec::new();
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
                found.push((path, value));
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
    let project_path = project_settings_path(cwd);
    let (mut global, mut project) = (None, None);
    for (path, value) in found {
        if path == project_path {
            project = Some((path, value));
        } else {
            global = Some((path, value));
        }
    }
    Ok(SettingsFiles {
        global,
        project,
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
            "toolDeadlineSeconds"
            | "bashSpillMaxBytes"
            | "streamStallSeconds"
            | "maxTurns"
            | "deadlineSeconds" => {
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
            "compaction" | "retry" | "branchSummary" | "checkpoints" | "subagents" => {
                let Some(section) = v.as_object() else {
                    bad(key, "an object", v);
                    continue;
                };
                let known: &[(&str, Expect)] = match key {
                    "retry" => &RETRY_KEYS,
                    "branchSummary" => &BRANCH_SUMMARY_KEYS,
                    "checkpoints" => &CHECKPOINT_KEYS,
                    "subagents" => &SUBAGENT_KEYS,
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
                        Some((_, Expect::Scope))
                            if !matches!(sv.as_str(), Some("both" | "code" | "conversation")) =>
                        {
                            bad(&full, "\"both\", \"code\" or \"conversation\"", sv)
                        }
                        Some(_) => {}
                        None => warnings.push(format!("{file}: unknown setting {full:?} ignored")),
                    }
                }
            }
            _ if KEYS_OWNED_ELSEWHERE.contains(&key) || PI_KEYS_SKIPPED.contains(&key) => {}
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
        stream_stall_seconds: merged["streamStallSeconds"].as_u64().filter(|n| *n > 0),
        max_turns: merged["maxTurns"].as_u64().filter(|n| *n > 0),
        deadline_seconds: merged["deadlineSeconds"].as_u64().filter(|n| *n > 0),
        max_cost_usd: merged["maxCostUsd"].as_f64().filter(|n| *n > 0.0),
        theme: string("theme"),
        hide_thinking_block: merged["hideThinkingBlock"].as_bool(),
        transport: string("transport"),
        merged,
        user_layer: Value::Null,
        project_layer: Value::Null,
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
    fn transport_is_auto_curl_or_one_of_pis_values() {
        let (home, cwd) = dirs("transport");
        for (value, kept) in [("curl", "curl"), ("auto", "auto"), ("sse", "sse")] {
            std::fs::write(
                global_settings_path(&home),
                format!(r#"{{"transport":"{value}"}}"#),
            )
            .unwrap();
            let loaded = load_settings(&home, &cwd).unwrap();
            assert_eq!(loaded.settings.transport.as_deref(), Some(kept));
            assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        }
        std::fs::write(global_settings_path(&home), r#"{"transport":"tcp"}"#).unwrap();
        let err = load_settings(&home, &cwd).unwrap_err();
        assert!(
            err.problems[0]
                .contains("transport: expected \"auto\" or \"curl\", found string \"tcp\""),
            "{:?}",
            err.problems
        );
    }

    #[test]
    fn pis_own_keys_are_skipped_quietly() {
        let (home, cwd) = dirs("pi-keys");
        std::fs::write(
            global_settings_path(&home),
            r#"{"quietStartup":true,"treeFilterMode":"default","lastChangelogVersion":"0.73.1","packages":["npm:pi-foo"],"enableSkillCommands":true,"collapseChangelog":true,"markdown":{"codeBlockIndent":"  "},"thinkingBudgets":{"low":1024}}"#,
        )
        .unwrap();
        let loaded = load_settings(&home, &cwd).unwrap();
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
        assert!(
            loaded.warnings[0].contains("\"thinkingBudgets\""),
            "a key whose meaning focus drops still warns: {:?}",
            loaded.warnings
        );
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
            r#"{"toolDeadlineSeconds":30,"bashSpillMaxBytes":100000,"streamStallSeconds":45,"maxTurns":7,"deadlineSeconds":60}"#,
        )
        .unwrap();
        let s = load_settings(&home, &cwd).unwrap().settings;
        assert_eq!(s.stream_stall_seconds, Some(45));
        assert_eq!(s.tool_deadline_seconds, Some(30));
        assert_eq!(s.bash_spill_max_bytes, Some(100_000));
        assert_eq!((s.max_turns, s.deadline_seconds), (Some(7), Some(60)));
        std::fs::write(project_settings_path(&cwd), r#"{"maxTurns":-1}"#).unwrap();
        let err = load_settings(&home, &cwd).unwrap_err();
        assert!(err.problems[0].contains("maxTurns: expected a positive integer"));
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
    fn an_untrusted_projects_widening_keys_are_withheld_until_trusted() {
        let (home, cwd) = dirs("trust");
        std::fs::write(
            global_settings_path(&home),
            r#"{"permissions":{"allow":["read"]},"sandbox":{"enabled":false}}"#,
        )
        .unwrap();
        std::fs::write(
            project_settings_path(&cwd),
            r#"{"theme":"light","hooks":{"Stop":[{"hooks":[{"command":"touch x"}]}]},"sandbox":{"enabled":true,"network":false},"permissionMode":"auto"}"#,
        )
        .unwrap();
        let file = project_settings_path(&cwd).display().to_string();
        let loaded = load_settings(&home, &cwd).unwrap();
        let s = &loaded.settings;
        assert_eq!(s.theme.as_deref(), Some("light"), "harmless keys apply");
        assert!(s.raw("hooks").is_null() && s.raw("permissionMode").is_null());
        assert_eq!(s.raw("sandbox")["network"].as_bool(), Some(false));
        assert_eq!(
            s.raw("sandbox")["enabled"].as_bool(),
            Some(true),
            "strict values apply"
        );
        let withheld = loaded.withheld.as_ref().expect("withheld");
        assert!(
            withheld
                .line()
                .starts_with(&format!("{file}: ignored hooks, permissionMode (")),
            "{}",
            withheld.line()
        );
        let global = global_settings_path(&home).display().to_string();
        assert_eq!(loaded.notices, [format!("sandbox off (from {global})")]);

        let question = trust_question(&home, &cwd).unwrap().expect("asked");
        TrustStore::new(&home)
            .trust(&question.folder, &question.asks.digest)
            .unwrap();
        assert_eq!(trust_question(&home, &cwd).unwrap(), None);
        let trusted = load_settings(&home, &cwd).unwrap();
        assert_eq!(trusted.withheld, None);
        assert_eq!(
            trusted.settings.raw("permissionMode").as_str(),
            Some("auto")
        );
        assert_eq!(
            trusted.notices[1..],
            [
                format!("1 hook (from {file})"),
                format!("permission mode auto (from {file})")
            ]
        );
        assert!(trusted.settings.user_layer["hooks"].is_null());
        assert!(!trusted.settings.project_layer["hooks"].is_null());

        // Asking for more is a new question; --trust-project grants it anyway.
        std::fs::write(
            project_settings_path(&cwd),
            r#"{"hooks":{"Stop":[{"hooks":[{"command":"touch y"}]}]},"permissionMode":"auto"}"#,
        )
        .unwrap();
        assert!(trust_question(&home, &cwd).unwrap().is_some());
        assert!(load_settings(&home, &cwd).unwrap().withheld.is_some());
        let granted = load_settings_with(&home, &cwd, ProjectTrust::Granted).unwrap();
        assert_eq!(granted.withheld, None);
        assert!(!granted.settings.raw("hooks").is_null());
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
