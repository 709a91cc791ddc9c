//! User hooks: shell commands from settings run at Claude Code's hook events. This
//! file reads the settings, runs one hook, and runs the tool-call events
//! (`PreToolUse`, `PostToolUse`); the other events are in
//! [`lifecycle`](super::lifecycle).
//!
//! ```json
//! "hooks": {
//!   "PreToolUse":  [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 10}]}],
//!   "PostToolUse": [{"matcher": "mcp__.*",   "hooks": [{"type": "command", "command": "./audit.sh"}]}]
//! }
//! ```
//!
//! - `matcher`: as Claude Code reads it ([`super::matcher`]): names separated by
//!   `|` (`Bash|Edit`), a regular expression (`mcp__memory__.*`), or focus's older
//!   `*` globs (`github__*`); empty, missing or `*` matches every tool. A tool
//!   answers to focus's name and Claude Code's (`bash` and `Bash`,
//!   `fs__read` and `mcp__fs__read`).
//! - A hook runs with `sh -c`, in the working directory, with the call as JSON on
//!   standard input: `hook_event_name`, `tool_name`, `tool_input`, `tool_call_id`,
//!   `cwd` (and `tool_response` for PostToolUse: `{text, is_error}`), and
//!   `FOCUS_PROJECT_DIR` (also `CLAUDE_PROJECT_DIR`, for copied hooks) in its
//!   environment.
//! - `timeout` in seconds (default 60). At the timeout the hook's whole process group
//!   is killed: a hanging hook delays a call by at most its timeout.
//! - **PreToolUse fails closed**: exit 0 lets the call run; any other exit code, a
//!   crash (killed by a signal), a timeout or a failure to start blocks it, and the
//!   hook's output becomes the reason the model reads. (Claude Code blocks only on
//!   exit 2 and lets other failures through; a guard that crashes should not
//!   silently stop guarding, so focus blocks on every failure.)
//! - A PreToolUse hook that exits 0 may still block by printing Claude Code's JSON:
//!   `{"decision": "block", "reason": "…"}` or `{"hookSpecificOutput":
//!   {"permissionDecision": "deny", "permissionDecisionReason": "…"}}`.
//! - **PostToolUse cannot undo anything**: its output (if any) is appended to the
//!   result, headed by `[PostToolUse hook]`, or `[PostToolUse hook failed: exit N]`.

use super::matcher::{tool_names, Matcher};
use crate::sandbox::Sandbox;
use focus_core::char_boundary;
use focus_core::json::Value;
use focus_core::json_object;
use focus_sys::process::{self, Ending, Job, Outcome};
use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

/// When a hook runs (Claude Code's event names; see `docs/permissions.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookEvent {
    /// Before a call; may block it.
    PreToolUse,
    /// After a call; may add to its output.
    PostToolUse,
    /// Before a user prompt is sent; may refuse it or add context.
    UserPromptSubmit,
    /// When the agent would stop; may make it go on.
    Stop,
    /// When a session starts (or is resumed, or replaced by `/new`); may add context.
    SessionStart,
    /// When a session ends (focus exits, or `/new`); output ignored.
    SessionEnd,
    /// Before a compaction; output ignored.
    PreCompact,
    /// When focus waits for the user to approve a call; output ignored.
    Notification,
    /// When a subagent starts (the `task` tool); output ignored.
    SubagentStart,
    /// When a subagent has finished; output ignored.
    SubagentStop,
}

impl HookEvent {
    /// Every event focus runs.
    pub const ALL: [HookEvent; 10] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::PreCompact,
        HookEvent::Notification,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
    ];

    /// The settings spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Notification => "Notification",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
        }
    }

    /// The event spelled `name` in settings.
    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// Whether a group's `matcher` means something for this event (a tool name, a
    /// session start's `source`, a compaction's `trigger`, …). For the others
    /// (`UserPromptSubmit`, `Stop`) it is ignored, as in Claude Code.
    pub fn uses_matcher(self) -> bool {
        !matches!(self, HookEvent::UserPromptSubmit | HookEvent::Stop)
    }
}

/// One configured hook command.
#[derive(Clone, Debug, PartialEq)]
pub struct Hook {
    /// When it runs.
    pub event: HookEvent,
    /// What it applies to (a tool name, a session start's `source`, …).
    pub matcher: Matcher,
    /// The shell command.
    pub command: String,
    /// How long it may run.
    pub timeout: Duration,
    /// Whether it comes from the project's settings (run confined by the
    /// sandbox) rather than the user's own (run as the user's code,
    /// unconfined unless `sandbox.hooks` is true).
    pub from_project: bool,
}

/// Default hook timeout.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

/// Longest hook output kept in a reason or appended to a result.
pub(crate) const MAX_HOOK_OUTPUT: usize = 10_000;

/// `text` cut to at most [`MAX_HOOK_OUTPUT`] bytes (at a character boundary),
/// with a note when cut.
pub(crate) fn cap_output(mut text: String) -> String {
    if text.len() > MAX_HOOK_OUTPUT {
        text.truncate(char_boundary::floor(&text, MAX_HOOK_OUTPUT));
        text.push_str("\n[hook output truncated]");
    }
    text
}

impl Hook {
    /// Whether the hook applies to `subject` (a tool under any of its names, see
    /// [`tool_names`]).
    pub fn matches(&self, subject: &str) -> bool {
        self.matcher.matches_any(&tool_names(subject))
    }
}

/// All configured hooks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookConfig {
    /// Hooks in settings order.
    pub hooks: Vec<Hook>,
    /// Hook settings that were read but will not run (an event focus does not run,
    /// or does not know), one line each for the user.
    pub warnings: Vec<String>,
}

impl HookConfig {
    /// Reads the `hooks` key of a settings object (missing → no hooks). Errors name
    /// the bad key with its path, e.g. `hooks.PreToolUse[0].hooks[1].timeout`.
    ///
    /// # Errors
    ///
    /// A malformed hook entry: the message names its key with its path.
    pub fn from_json(settings: &Value) -> Result<HookConfig, String> {
        let mut config = HookConfig::default();
        let hooks = &settings["hooks"];
        if hooks.is_null() {
            return Ok(config);
        }
        let events = hooks
            .as_object()
            .ok_or_else(|| format!("`hooks` must be an object, found {}", hooks.type_name()))?;
        for (event_name, groups) in events.iter() {
            let event = match HookEvent::parse(event_name) {
                Some(event) => event,
                None => {
                    let known: Vec<&str> = HookEvent::ALL.iter().map(|e| e.as_str()).collect();
                    config.warnings.push(format!(
                        "hooks.{event_name}: unknown hook event, ignored (focus runs {})",
                        known.join(", ")
                    ));
                    continue;
                }
            };
            let groups = groups
                .as_array()
                .ok_or_else(|| format!("`hooks.{event_name}` must be an array"))?;
            for (gi, group) in groups.iter().enumerate() {
                let at = format!("hooks.{event_name}[{gi}]");
                let object = group
                    .as_object()
                    .ok_or_else(|| format!("`{at}` must be an object"))?;
                for key in object.keys() {
                    if key != "matcher" && key != "hooks" {
                        return Err(format!(
                            "unknown key `{at}.{key}` (expected matcher, hooks)"
                        ));
                    }
                }
                let matcher = match &group["matcher"] {
                    Value::Null => Matcher::All,
                    Value::String(s) => {
                        Matcher::parse(s).map_err(|e| format!("`{at}.matcher`: {e}"))?
                    }
                    other => {
                        return Err(format!(
                            "`{at}.matcher` must be a string, found {}",
                            other.type_name()
                        ))
                    }
                };
                let commands = group["hooks"]
                    .as_array()
                    .ok_or_else(|| format!("`{at}.hooks` must be an array"))?;
                for (hi, hook) in commands.iter().enumerate() {
                    let at = format!("{at}.hooks[{hi}]");
                    config
                        .hooks
                        .push(parse_hook(hook, &at, event, matcher.clone())?);
                }
            }
        }
        Ok(config)
    }

    /// The hooks of the user's own settings (`user`) followed by the
    /// project's (`project`, marked [`Hook::from_project`]): both run, as
    /// Claude Code runs the hooks of every settings file. Errors name the
    /// file's key, prefixed `project settings: ` for the project's.
    ///
    /// # Errors
    ///
    /// As [`HookConfig::from_json`] for either layer, prefixed `project settings: ` for the
    /// project's.
    pub fn from_layers(user: &Value, project: &Value) -> Result<HookConfig, String> {
        let mut config = HookConfig::from_json(user)?;
        let mut theirs =
            HookConfig::from_json(project).map_err(|e| format!("project settings: {e}"))?;
        for hook in &mut theirs.hooks {
            hook.from_project = true;
        }
        config.hooks.append(&mut theirs.hooks);
        config.warnings.append(&mut theirs.warnings);
        Ok(config)
    }

    /// The hooks for `event` that match `subject` (a tool name, a session start's
    /// `source`, …; ignored for events without a matcher).
    pub fn matching<'a>(
        &'a self,
        event: HookEvent,
        subject: &'a str,
    ) -> impl Iterator<Item = &'a Hook> + 'a {
        self.hooks
            .iter()
            .filter(move |h| h.event == event && (!event.uses_matcher() || h.matches(subject)))
    }
}

fn parse_hook(hook: &Value, at: &str, event: HookEvent, matcher: Matcher) -> Result<Hook, String> {
    let object = hook
        .as_object()
        .ok_or_else(|| format!("`{at}` must be an object"))?;
    for key in object.keys() {
        if !matches!(key, "type" | "command" | "timeout") {
            return Err(format!(
                "unknown key `{at}.{key}` (expected type, command, timeout)"
            ));
        }
    }
    match hook["type"].as_str() {
        Some("command") | None => {}
        Some(other) => {
            return Err(format!(
                "`{at}.type` is `{other}`; only \"command\" is supported"
            ))
        }
    }
    let command = hook["command"]
        .as_str()
        .filter(|c| !c.trim().is_empty())
        .ok_or_else(|| format!("`{at}.command` must be a non-empty string"))?
        .to_string();
    let timeout = match &hook["timeout"] {
        Value::Null => DEFAULT_HOOK_TIMEOUT,
        value => {
            let secs = value
                .as_f64()
                .filter(|s| *s > 0.0 && *s <= 3600.0)
                .ok_or_else(|| {
                    format!("`{at}.timeout` must be a number of seconds between 0 and 3600")
                })?;
            Duration::from_secs_f64(secs)
        }
    };
    Ok(Hook {
        event,
        matcher,
        command,
        timeout,
        from_project: false,
    })
}

/// The outcome of running one hook.
#[derive(Debug)]
pub struct HookRun {
    /// Whether it exited with status 0.
    pub ok: bool,
    /// How it ended, for messages: `exit 2`, `killed by a signal`, `timed out after 10s`.
    pub ending: String,
    /// Its standard error and standard output, trimmed and capped.
    pub output: String,
    /// Its standard output alone (for a JSON decision).
    pub stdout: String,
    /// Its standard error alone (Claude Code's exit-2 feedback).
    pub stderr: String,
    /// Its exit code, when it exited.
    pub code: Option<i32>,
}

/// Runs `hook` with `input` (the call as JSON) on standard input, in `cwd`,
/// confined by `sandbox` (as its settings say hooks are).
pub fn run_hook(hook: &Hook, input: &Value, cwd: &Path, sandbox: &Sandbox) -> HookRun {
    let mut command = process::sh(&hook.command);
    command
        .current_dir(cwd)
        .env("FOCUS_PROJECT_DIR", cwd)
        .env("CLAUDE_PROJECT_DIR", cwd);
    crate::secret_env::remove_secret_variables(&mut command);
    if let Err(e) = sandbox.confine_hook(&mut command, hook.from_project) {
        return HookRun {
            ok: false,
            ending: "not started".to_string(),
            output: e,
            stdout: String::new(),
            stderr: String::new(),
            code: None,
        };
    }
    let stdin = input.to_json_string();
    let deadline = Instant::now() + hook.timeout;
    let job = Job::new(command).stdin(stdin).keep(MAX_CAPTURE);
    match job.run_with_deadline(deadline, || ControlFlow::Continue(())) {
        Err(e) => HookRun {
            ok: false,
            ending: "failed to start".to_string(),
            output: format!("cannot start: {e}"),
            stdout: String::new(),
            stderr: String::new(),
            code: None,
        },
        Ok(finished) => describe(finished, hook.timeout),
    }
}

/// Output kept per stream; the rest is dropped (a hook printing forever must not
/// exhaust memory).
const MAX_CAPTURE: usize = 64 * 1024;

fn describe(finished: Outcome, timeout: Duration) -> HookRun {
    let stdout = String::from_utf8_lossy(&finished.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&finished.stderr).into_owned();
    let mut output = String::new();
    for part in [stderr.trim(), stdout.trim()] {
        if !part.is_empty() {
            if !output.is_empty() {
                output.push('\n');
            }
            output.push_str(part);
        }
    }
    let output = cap_output(output);
    let (ok, ending) = match &finished.ending {
        Ending::TimedOut => (false, format!("timed out after {}s", timeout.as_secs_f64())),
        Ending::Exited(status) if status.success() => (true, "exit 0".to_string()),
        Ending::Exited(status) => match status.code() {
            Some(code) => (false, format!("exit {code}")),
            None => (false, "killed by a signal".to_string()),
        },
        Ending::Cancelled | Ending::Lost(_) => (false, "killed".to_string()),
    };
    let code = match finished.ending {
        Ending::Exited(status) => status.code(),
        _ => None,
    };
    HookRun {
        ok,
        ending,
        output,
        stdout,
        stderr,
        code,
    }
}

/// The JSON a hook reads on standard input.
pub fn hook_input(
    event: HookEvent,
    tool_name: &str,
    tool_input: &Value,
    call_id: &str,
    cwd: &Path,
    response: Option<(&str, bool)>,
) -> Value {
    let mut value = json_object! {
        "hook_event_name" => event.as_str(),
        "tool_name" => tool_name,
        "tool_input" => tool_input.clone(),
        "tool_call_id" => call_id,
        "cwd" => cwd.to_string_lossy().into_owned(),
    };
    if let (Some((text, is_error)), Some(object)) = (response, value.as_object_mut()) {
        object.insert(
            "tool_response",
            json_object! { "text" => text, "is_error" => is_error },
        );
    }
    value
}

/// Runs the PreToolUse hooks for a call in order, in `cwd` and `sandbox`
/// ([`run_hook`]).
///
/// # Errors
///
/// The first failure blocks: the text is the reason the model (and the user)
/// reads: the hook's own reason comes first, whole (its output is capped at
/// 10,000 bytes), and the hook's command last, so a display that shows only
/// the start of a message still shows why.
pub fn run_pre_tool_use(
    config: &HookConfig,
    tool_name: &str,
    input: &Value,
    cwd: &Path,
    sandbox: &Sandbox,
) -> Result<(), String> {
    for hook in config.matching(HookEvent::PreToolUse, tool_name) {
        let run = run_hook(hook, input, cwd, sandbox);
        if let Some(reason) = run.ok.then(|| json_block_reason(&run.stdout)).flatten() {
            return Err(block_message(tool_name, "", &reason, &hook.command));
        }
        if !run.ok {
            let detail = if run.output.is_empty() {
                "(no output)"
            } else {
                &run.output
            };
            return Err(block_message(tool_name, &run.ending, detail, &hook.command));
        }
    }
    Ok(())
}

/// Longest part of a hook's command quoted in a message.
const MAX_QUOTED_COMMAND: usize = 200;

/// "`bash` was blocked by a PreToolUse hook (exit 2): <reason>" and, on a line of
/// its own, the hook's command (cut to [`MAX_QUOTED_COMMAND`] bytes). The reason
/// is cleaned of terminal escapes: it is the hook's output, shown to the user.
fn block_message(tool_name: &str, ending: &str, reason: &str, command: &str) -> String {
    let how = if ending.is_empty() {
        String::new()
    } else {
        format!(" ({ending})")
    };
    let reason = crate::output::sanitize(reason.trim());
    let mut command = command.trim().to_string();
    if command.len() > MAX_QUOTED_COMMAND {
        command.truncate(char_boundary::floor(&command, MAX_QUOTED_COMMAND));
        command.push('…');
    }
    let command = crate::output::sanitize(&command).replace('\n', " ");
    format!(
        "`{tool_name}` was blocked by a PreToolUse hook{how}: {reason}\n(the hook's command: `{command}`)"
    )
}

/// A block decision printed as JSON by a hook that exited 0, in either of Claude
/// Code's forms: `{"decision": "block", "reason": "…"}` or
/// `{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "…"}}`.
pub(crate) fn json_block_reason(stdout: &str) -> Option<String> {
    let text = stdout.trim();
    if !text.starts_with('{') {
        return None;
    }
    let value = focus_core::json::parse_str(text).ok()?;
    let specific = &value["hookSpecificOutput"];
    let reason = if value["decision"].as_str() == Some("block") {
        value["reason"].as_str()
    } else if specific["permissionDecision"].as_str() == Some("deny") {
        specific["permissionDecisionReason"].as_str()
    } else {
        return None;
    };
    Some(reason.unwrap_or("(no reason given)").to_string())
}

/// Runs the PostToolUse hooks for a call; returns the text to append to its result
/// (empty if the hooks were silent and succeeded); they run in `cwd` and
/// `sandbox` ([`run_hook`]).
pub fn run_post_tool_use(
    config: &HookConfig,
    tool_name: &str,
    input: &Value,
    cwd: &Path,
    sandbox: &Sandbox,
) -> String {
    let mut appended = String::new();
    for hook in config.matching(HookEvent::PostToolUse, tool_name) {
        let run = run_hook(hook, input, cwd, sandbox);
        if run.ok && run.output.is_empty() {
            continue;
        }
        let header = if run.ok {
            "[PostToolUse hook]".to_string()
        } else {
            format!("[PostToolUse hook failed: {}]", run.ending)
        };
        appended.push_str(&format!("\n{header}\n{}", run.output));
    }
    appended
}
