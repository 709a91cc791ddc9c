//! Claude Code's hook events outside tool calls, run by the [`Gatekeeper`] (it
//! holds the hooks, the project directory and the permission mode):
//!
//! - `UserPromptSubmit` ([`Gatekeeper::user_prompt_submit`]): before a prompt is
//!   sent. Exit 2 or `{"decision":"block","reason":…}` refuses it; focus also
//!   refuses on any other failure (fails closed, like PreToolUse). Exit 0: stdout
//!   (or `hookSpecificOutput.additionalContext`) is added to the prompt.
//! - `Stop` ([`Gatekeeper::stop`]): when the agent would stop. Exit 2 (stderr) or
//!   `{"decision":"block","reason":…}` makes it go on with the reason as a new user
//!   message; other failures are ignored (the agent stops).
//! - `SessionStart` ([`Gatekeeper::session_start`]): stdout (or
//!   `additionalContext`) is added to the first prompt.
//! - `SessionEnd`, `PreCompact`, `Notification`: informational, output ignored.
//! - `SubagentStart`, `SubagentStop` ([`Gatekeeper::subagent_start`],
//!   [`Gatekeeper::subagent_stop`]): around each subagent the `task` tool runs,
//!   matched against its agent type, with `agent_id`, `agent_type` and (at the
//!   stop) `agent_transcript_path`; informational, output ignored.
//!
//! Every hook reads Claude Code's common fields on standard input: `session_id`,
//! `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, plus the
//! event's own (`prompt`, `stop_hook_active`, `source`, `reason`, `trigger` and
//! `custom_instructions`, `message` and `notification_type`).

use super::hooks::{cap_output, json_block_reason, run_hook, Hook, HookEvent, HookRun};
use super::Gatekeeper;
use focus_core::agent::PromptHooks;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::{Content, Message};
use std::path::Path;
use std::sync::Arc;

/// The session hooks describe: Claude Code's `session_id` and `transcript_path`
/// (empty when focus saves no session).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionRef {
    /// The session's id.
    pub id: String,
    /// The session file.
    pub transcript_path: String,
}

impl Gatekeeper {
    /// Tells the hooks which session they run in (the front end calls it when the
    /// session starts or changes).
    pub fn set_session(&self, id: &str, transcript_path: Option<&Path>) {
        *super::lock(&self.session) = SessionRef {
            id: id.to_string(),
            transcript_path: transcript_path
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
    }

    /// The session file the hooks are told of (see [`Gatekeeper::set_session`]),
    /// if the session has one.
    pub fn session_path(&self) -> Option<std::path::PathBuf> {
        let session = super::lock(&self.session);
        (!session.transcript_path.is_empty()).then(|| session.transcript_path.clone().into())
    }

    /// Claude Code's fields common to every event.
    pub(crate) fn event_input(&self, event: HookEvent) -> Value {
        let session = super::lock(&self.session).clone();
        json_object! {
            "session_id" => session.id,
            "transcript_path" => session.transcript_path,
            "cwd" => self.cwd.to_string_lossy().into_owned(),
            "permission_mode" => claude_mode_name(self.mode().as_str()),
            "hook_event_name" => event.as_str(),
        }
    }

    /// Runs the hooks of `event` matching `subject`, in settings order.
    fn run_event<'a>(
        &'a self,
        event: HookEvent,
        subject: &'a str,
        fields: Value,
    ) -> Vec<(&'a Hook, HookRun)> {
        let hooks: Vec<&Hook> = self.config.hooks.matching(event, subject).collect();
        if hooks.is_empty() {
            return Vec::new();
        }
        let input = with_fields(self.event_input(event), fields);
        hooks
            .into_iter()
            .map(|hook| (hook, run_hook(hook, &input, &self.cwd, &self.sandbox)))
            .collect()
    }

    /// Runs the `UserPromptSubmit` hooks for `prompt`: `Err(reason)` refuses it
    /// (the text for the user), `Ok(Some(context))` is added to it.
    ///
    /// # Errors
    ///
    /// A hook refused the prompt: the text says why, for the user.
    pub fn user_prompt_submit(&self, prompt: &str) -> Result<Option<String>, String> {
        let fields = json_object! {"prompt" => prompt};
        let mut context = Vec::new();
        for (hook, run) in self.run_event(HookEvent::UserPromptSubmit, "", fields) {
            let command = &hook.command;
            if run.ok {
                let (added, refused) = read_stdout(&run.stdout);
                if let Some(reason) = refused {
                    return Err(format!(
                        "the prompt was refused by a UserPromptSubmit hook (command `{command}`): {reason}"
                    ));
                }
                context.extend(added);
                continue;
            }
            let reason = if run.code == Some(2) {
                nonempty(run.stderr.trim())
            } else {
                nonempty(&run.output)
            };
            return Err(format!(
                "the prompt was refused by a UserPromptSubmit hook ({}, command `{command}`): {reason}",
                run.ending
            ));
        }
        Ok(join_context(HookEvent::UserPromptSubmit, context))
    }

    /// Runs the `Stop` hooks; `Some(reason)` when one asks the agent to go on.
    /// `active` is Claude Code's `stop_hook_active`: the agent is already going on
    /// because of a Stop hook.
    pub fn stop(&self, active: bool) -> Option<String> {
        let fields = json_object! {"stop_hook_active" => active};
        let mut reasons = Vec::new();
        for (hook, run) in self.run_event(HookEvent::Stop, "", fields) {
            match run.code {
                Some(0) => reasons.extend(json_block_reason(&run.stdout)),
                Some(2) => reasons.push(nonempty(run.stderr.trim())),
                _ => super::lock(&self.hook_failures).push(format!(
                    "Stop hook failed ({}, command `{}`), so the agent stopped: {}",
                    run.ending,
                    hook.command,
                    nonempty(&run.output)
                )),
            }
        }
        (!reasons.is_empty())
            .then(|| cap_output(format!("Stop hook feedback:\n{}", reasons.join("\n"))))
    }

    /// The hook failures nothing stopped for since the last call (a `Stop` hook
    /// that crashed), one line each, for the user.
    pub fn take_hook_failures(&self) -> Vec<String> {
        std::mem::take(&mut *super::lock(&self.hook_failures))
    }

    /// Runs the `SessionStart` hooks (`source`: `startup`, `resume` or `clear`);
    /// what they print is kept for the next prompt. Returns one line per hook
    /// that failed, for the user.
    pub fn session_start(&self, source: &str) -> Vec<String> {
        let fields = json_object! {"source" => source};
        let mut context = Vec::new();
        let mut failures = Vec::new();
        for (hook, run) in self.run_event(HookEvent::SessionStart, source, fields) {
            if run.ok {
                context.extend(read_stdout(&run.stdout).0);
            } else {
                failures.push(format!(
                    "SessionStart hook failed ({}, command `{}`): {}",
                    run.ending,
                    hook.command,
                    nonempty(&run.output)
                ));
            }
        }
        *super::lock(&self.start_context) = join_context(HookEvent::SessionStart, context);
        failures
    }

    /// Runs the `SessionEnd` hooks (`reason`: `clear` for `/new`, `other` at exit);
    /// their output is ignored.
    pub fn session_end(&self, reason: &str) {
        let fields = json_object! {"reason" => reason};
        self.run_event(HookEvent::SessionEnd, reason, fields);
    }

    /// Runs the `PreCompact` hooks (`trigger`: `manual` or `auto`); their output is
    /// ignored and the compaction goes ahead.
    pub fn pre_compact(&self, trigger: &str, instructions: Option<&str>) {
        let fields = json_object! {
            "trigger" => trigger,
            "custom_instructions" => instructions.unwrap_or(""),
        };
        self.run_event(HookEvent::PreCompact, trigger, fields);
    }

    /// Runs the `SubagentStart` hooks for subagent `agent_id` of type
    /// `agent_type` (the matcher is matched against the type); output ignored.
    pub fn subagent_start(&self, agent_id: &str, agent_type: &str) {
        let fields = json_object! {"agent_id" => agent_id, "agent_type" => agent_type};
        self.run_event(HookEvent::SubagentStart, agent_type, fields);
    }

    /// Runs the `SubagentStop` hooks once subagent `agent_id` has finished,
    /// with its session file (`agent_transcript_path`); output ignored.
    pub fn subagent_stop(&self, agent_id: &str, agent_type: &str, transcript: Option<&Path>) {
        let fields = json_object! {
            "agent_id" => agent_id,
            "agent_type" => agent_type,
            "agent_transcript_path" => transcript.map(|p| p.to_string_lossy().into_owned()).unwrap_or_default(),
            "stop_hook_active" => false,
        };
        self.run_event(HookEvent::SubagentStop, agent_type, fields);
    }

    /// Starts the `Notification` hooks for `message` on a thread of their own, so
    /// the approval they announce is not delayed; their output is ignored.
    pub fn notify(&self, message: &str) {
        const KIND: &str = "permission_prompt";
        let hooks: Vec<Hook> = self
            .config
            .hooks
            .matching(HookEvent::Notification, KIND)
            .cloned()
            .collect();
        if hooks.is_empty() {
            return;
        }
        let fields = json_object! {"message" => message, "notification_type" => KIND};
        let input = with_fields(self.event_input(HookEvent::Notification), fields);
        let (cwd, sandbox) = (self.cwd.clone(), Arc::clone(&self.sandbox));
        std::thread::spawn(move || {
            for hook in &hooks {
                run_hook(hook, &input, &cwd, &sandbox);
            }
        });
    }
}

impl PromptHooks for Gatekeeper {
    fn before_prompt(&self, prompt: &Message) -> Result<Option<String>, String> {
        let text = match prompt {
            Message::User(user) => user
                .content
                .iter()
                .filter_map(Content::as_text)
                .collect::<Vec<_>>()
                .join("\n"),
            _ => return Ok(None),
        };
        let added = self.user_prompt_submit(&text)?;
        // The SessionStart context goes with the first prompt that is let through.
        let started = super::lock(&self.start_context).take();
        let parts: Vec<String> = started.into_iter().chain(added).collect();
        Ok((!parts.is_empty()).then(|| parts.join("\n\n")))
    }

    fn before_stop(&self, _history: &[Message], continuations: u32) -> Option<String> {
        self.stop(continuations > 0)
    }
}

/// Claude Code's spelling of a permission mode (`acceptEdits`,
/// `bypassPermissions`); focus's own name for the others.
fn claude_mode_name(focus: &str) -> &str {
    match focus {
        "accept-edits" => "acceptEdits",
        "auto" => "bypassPermissions",
        other => other,
    }
}

/// `base` with `fields`' keys added.
fn with_fields(mut base: Value, fields: Value) -> Value {
    if let (Some(object), Some(extra)) = (base.as_object_mut(), fields.as_object()) {
        for (key, value) in extra.iter() {
            object.insert(key, value.clone());
        }
    }
    base
}

/// What a hook that exited 0 printed: the context it adds, and a refusal
/// (Claude Code's JSON: `decision: block`, or `continue: false` with its
/// `stopReason`). Plain text is context as it is.
fn read_stdout(stdout: &str) -> (Option<String>, Option<String>) {
    let text = stdout.trim();
    if text.is_empty() {
        return (None, None);
    }
    let Some(value) = text
        .starts_with('{')
        .then(|| focus_core::json::parse_str(text).ok())
        .flatten()
    else {
        return (Some(text.to_string()), None);
    };
    if value["continue"].as_bool() == Some(false) {
        let reason = value["stopReason"].as_str().unwrap_or("(no reason given)");
        return (None, Some(reason.to_string()));
    }
    if let Some(reason) = json_block_reason(text) {
        return (None, Some(reason));
    }
    let added = value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string);
    (added, None)
}

/// The contexts of one event's hooks as one text block headed by the event name.
fn join_context(event: HookEvent, parts: Vec<String>) -> Option<String> {
    (!parts.is_empty()).then(|| {
        cap_output(format!(
            "{} hook additional context:\n{}",
            event.as_str(),
            parts.join("\n")
        ))
    })
}

fn nonempty(text: &str) -> String {
    if text.is_empty() {
        "(no reason given)".to_string()
    } else {
        cap_output(text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::super::hooks::MAX_HOOK_OUTPUT;
    use super::*;

    #[test]
    fn stdout_is_context_unless_it_is_a_decision() {
        assert_eq!(read_stdout("  \n"), (None, None));
        assert_eq!(
            read_stdout("branch main\n"),
            (Some("branch main".into()), None)
        );
        // Text that only looks like JSON is context as it is.
        assert_eq!(read_stdout("{not json"), (Some("{not json".into()), None));
        assert_eq!(
            read_stdout(r#"{"decision":"block","reason":"no"}"#),
            (None, Some("no".into()))
        );
        assert_eq!(
            read_stdout(r#"{"continue":false,"stopReason":"halt"}"#),
            (None, Some("halt".into()))
        );
        assert_eq!(
            read_stdout(r#"{"hookSpecificOutput":{"additionalContext":"ctx"}}"#),
            (Some("ctx".into()), None)
        );
        assert_eq!(read_stdout(r#"{"suppressOutput":true}"#), (None, None));
    }

    #[test]
    fn long_context_is_capped_at_a_character_boundary() {
        let capped = cap_output("é".repeat(MAX_HOOK_OUTPUT));
        assert!(capped.ends_with("[hook output truncated]"));
        assert!(capped.len() < MAX_HOOK_OUTPUT + 40);
        assert_eq!(claude_mode_name("accept-edits"), "acceptEdits");
        assert_eq!(claude_mode_name("plan"), "plan");
    }
}
