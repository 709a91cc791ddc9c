//! The gates every tool call passes: permission, then the user's hooks.
//!
//! The agent loop validates a call's arguments against the tool's schema (the
//! argument gate), then asks a [`ToolGate`]. [`Gatekeeper`] is focus's gate:
//!
//! 1. **permission** ([`permission`]): the mode (`default`, `accept-edits`, `plan`,
//!    `auto`), allow/ask/deny rules ([`rules`]) and, for shell commands, the
//!    read-only [`judge`](mod@judge); an "ask" goes to an [`Approver`];
//! 2. **PreToolUse hooks** ([`hooks`]): may veto the call;
//! 3. after the call, **PostToolUse hooks** may add to its output.
//!
//! It also runs Claude Code's other hook events ([`lifecycle`]): around prompts
//! (`UserPromptSubmit`, `Stop`, as the loop's `PromptHooks`), at the session's start
//! and end, before a compaction, and when an approval waits (`Notification`).
//!
//! Tool lists may advertise more than is allowed; the check happens here, on every
//! call, because a model may call a tool it saw earlier.

pub mod approval_queue;
pub mod git_guard;
pub mod hooks;
pub mod judge;
pub mod lifecycle;
pub mod long_options;
pub mod matcher;
pub mod permission;
pub mod readonly_programs;
pub mod rules;
pub mod shell_lexer;

use crate::sandbox::Sandbox;
pub use approval_queue::QueuedApprover;
use focus_core::json::Value;
use focus_core::message::{AssistantMessage, Content, ToolCall};
use focus_core::sync::{self, lock};
use focus_core::tool::{GateDecision, Tool, ToolGate, ToolOutput};
use hooks::{HookConfig, HookEvent};
pub use judge::{is_read_only_command, judge, Verdict};
pub use permission::{
    ApprovalAnswer, ApprovalRequest, Approver, Decision, Mode, NonInteractiveApprover,
    PermissionConfig,
};
use rules::Rule;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

/// Everything the gates read from settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GateConfig {
    /// Mode and rules.
    pub permissions: PermissionConfig,
    /// User hooks.
    pub hooks: HookConfig,
}

impl GateConfig {
    /// Reads `permissionMode`, `permissions` and `hooks` from a settings object.
    ///
    /// # Errors
    ///
    /// A bad mode, rule or hook: the message names the key.
    pub fn from_json(settings: &Value) -> Result<GateConfig, String> {
        Ok(GateConfig {
            permissions: PermissionConfig::from_json(settings)?,
            hooks: HookConfig::from_json(settings)?,
        })
    }
}

/// focus's [`ToolGate`]: permission mode and rules, approvals, and hooks.
///
/// The mode can change while the agent runs ([`Gatekeeper::set_mode`], for a
/// `/permissions` command); "allow always" answers are remembered for the session.
pub struct Gatekeeper {
    config: GateConfig,
    mode: RwLock<Mode>,
    approver: Arc<dyn Approver>,
    session_allow: Mutex<Vec<Rule>>,
    /// One approval prompt at a time, even when calls are gated in parallel
    /// (shared with the gates of this gate's subagents: one dialog at a time).
    asking: Arc<Mutex<()>>,
    /// Which subagent this gate checks the calls of (`None`: the main
    /// conversation's gate); approvals it asks for name it.
    subagent: Option<String>,
    cwd: PathBuf,
    /// The sandbox hooks run in, made read-only in plan mode.
    sandbox: Arc<Sandbox>,
    /// The session the hooks describe.
    session: Mutex<lifecycle::SessionRef>,
    /// What `SessionStart` hooks printed, waiting for the first prompt.
    start_context: Mutex<Option<String>>,
    /// Hooks that failed where nothing stops for it (a `Stop` hook that crashed),
    /// one line each, until the front end takes them.
    hook_failures: Mutex<Vec<String>>,
}

impl Gatekeeper {
    /// A gate with `config`, asking `approver` when needed; hooks run in `cwd`,
    /// unconfined until [`Gatekeeper::with_sandbox`] gives a sandbox.
    pub fn new(mut config: GateConfig, approver: Arc<dyn Approver>, cwd: PathBuf) -> Gatekeeper {
        config
            .permissions
            .project
            .get_or_insert_with(|| cwd.clone());
        Gatekeeper {
            mode: RwLock::new(config.permissions.mode),
            config,
            approver,
            session_allow: Mutex::new(Vec::new()),
            asking: Arc::new(Mutex::new(())),
            subagent: None,
            cwd,
            sandbox: Arc::new(Sandbox::off()),
            session: Mutex::new(lifecycle::SessionRef::default()),
            start_context: Mutex::new(None),
            hook_failures: Mutex::new(Vec::new()),
        }
    }

    /// Reads the gate settings from a settings object (see [`GateConfig::from_json`]).
    ///
    /// # Errors
    ///
    /// As [`GateConfig::from_json`].
    pub fn from_settings(
        settings: &Value,
        approver: Arc<dyn Approver>,
        cwd: PathBuf,
    ) -> Result<Gatekeeper, String> {
        Ok(Gatekeeper::new(
            GateConfig::from_json(settings)?,
            approver,
            cwd,
        ))
    }

    /// The same gate with hooks confined by `sandbox` (the one the tools were
    /// built with, [`crate::ToolState`]), which follows the gate's mode from now
    /// on: plan mode makes it read-only.
    pub fn with_sandbox(mut self, sandbox: Arc<Sandbox>) -> Gatekeeper {
        sandbox.set_mode(self.mode());
        self.sandbox = sandbox;
        self
    }

    /// The gate of a subagent started under this one (docs/subagents.md): the
    /// same rules and hooks, the same approver (each request naming `label`),
    /// the same sandbox, the same session for its hooks, and the stricter of
    /// `wanted` and this gate's mode now — never more rights than the parent.
    /// Its mode is fixed: it does not follow a later change of the parent's,
    /// and it never changes the shared sandbox's mode.
    pub fn for_subagent(&self, wanted: Option<Mode>, label: &str) -> Gatekeeper {
        let parent = self.mode();
        let mode = wanted.map_or(parent, |wanted| wanted.stricter(parent));
        Gatekeeper {
            config: self.config.clone(),
            mode: RwLock::new(mode),
            approver: Arc::clone(&self.approver),
            session_allow: Mutex::new(lock(&self.session_allow).clone()),
            asking: Arc::clone(&self.asking),
            subagent: Some(label.to_string()),
            cwd: self.cwd.clone(),
            sandbox: Arc::clone(&self.sandbox),
            session: Mutex::new(lock(&self.session).clone()),
            start_context: Mutex::new(None),
            hook_failures: Mutex::new(Vec::new()),
        }
    }

    /// The subagent this gate belongs to (see [`Gatekeeper::for_subagent`]).
    pub fn subagent(&self) -> Option<&str> {
        self.subagent.as_deref()
    }

    /// The sandbox hooks run in (see [`Gatekeeper::with_sandbox`]).
    pub fn sandbox(&self) -> &Arc<Sandbox> {
        &self.sandbox
    }

    /// Settings that were read but will not take effect (hook events focus does
    /// not run), one line each, for the user to see once.
    pub fn warnings(&self) -> &[String] {
        &self.config.hooks.warnings
    }

    /// The configuration it was built from (rules and hooks, for display).
    pub fn config(&self) -> &GateConfig {
        &self.config
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        *sync::read(&self.mode)
    }

    /// Switches the mode; applies to the next call gated, and to the gate's
    /// sandbox (plan mode makes it read-only).
    pub fn set_mode(&self, mode: Mode) {
        *sync::write(&self.mode) = mode;
        // A subagent's gate shares its parent's sandbox and leaves it alone.
        if self.subagent.is_none() {
            self.sandbox.set_mode(mode);
        }
    }

    /// The rules added by "allow always" answers this session, as text.
    pub fn session_rules(&self) -> Vec<String> {
        lock(&self.session_allow)
            .iter()
            .map(Rule::to_string)
            .collect()
    }

    /// The permission decision alone (no approver, no hooks): what would happen to
    /// this call now. Useful for tests and for showing the mode's effect.
    pub fn decide(&self, call: &ToolCall, tool: &dyn Tool) -> Decision {
        let session = lock(&self.session_allow).clone();
        self.config
            .permissions
            .decide(self.mode(), tool, call, &session)
    }

    fn check_permission(&self, call: &ToolCall, tool: &dyn Tool) -> Result<(), String> {
        let reason = match self.decide(call, tool) {
            Decision::Allow => return Ok(()),
            Decision::Deny(reason) => return Err(reason),
            Decision::Ask(reason) => reason,
        };
        let _one_at_a_time = lock(&self.asking);
        // An "allow always" given while this call waited may cover it now.
        if let Decision::Allow = self.decide(call, tool) {
            return Ok(());
        }
        let permissions = &self.config.permissions;
        // A protected file is approved one write at a time: no "always".
        let protected = permissions
            .protected_target(tool.name(), &call.arguments)
            .is_some();
        let is_edit = permissions.is_edit(tool.name());
        // "Always" on an edit allows every edit tool for the session.
        let always_rules: Vec<Rule> = if protected {
            Vec::new()
        } else if is_edit {
            permissions
                .edit_tools
                .iter()
                .map(|t| Rule::tool(t))
                .collect()
        } else {
            vec![permissions.suggested_rule(call)]
        };
        let always_text = if is_edit && !protected {
            format!("all edits ({})", permissions.edit_tools.join(", "))
        } else {
            always_rules
                .iter()
                .map(Rule::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let request = ApprovalRequest {
            call_id: call.id.to_string(),
            tool_name: tool.name().to_string(),
            arguments: call.arguments.clone(),
            summary: permission::summarize_call(call),
            reason,
            always_rule: always_text,
            subagent: self.subagent.clone(),
        };
        if self.approver.waits() {
            self.notify(&format!(
                "focus needs your permission to use {}",
                tool.name()
            ));
        }
        match self.approver.ask(&request) {
            ApprovalAnswer::AllowOnce => Ok(()),
            ApprovalAnswer::AllowAlways => {
                lock(&self.session_allow).extend(always_rules);
                Ok(())
            }
            ApprovalAnswer::Deny(reason) => Err(permission::denied_message(tool.name(), &reason)),
        }
    }
}

impl Gatekeeper {
    /// A tool hook's input: the call ([`hooks::hook_input`]) and Claude Code's
    /// common fields (session, permission mode, `tool_use_id`).
    fn tool_hook_input(
        &self,
        event: HookEvent,
        call: &ToolCall,
        tool: &dyn Tool,
        response: Option<(&str, bool)>,
    ) -> Value {
        let mut input = hooks::hook_input(
            event,
            tool.name(),
            &call.arguments,
            &call.id,
            &self.cwd,
            response,
        );
        let common = self.event_input(event);
        if let (Some(object), Some(common)) = (input.as_object_mut(), common.as_object()) {
            for (key, value) in common.iter() {
                object.insert(key, value.clone());
            }
            object.insert("tool_use_id", call.id.to_string());
        }
        input
    }
}

impl ToolGate for Gatekeeper {
    fn before_call(
        &self,
        call: &ToolCall,
        tool: &dyn Tool,
        _message: &AssistantMessage,
    ) -> GateDecision {
        if let Err(reason) = self.check_permission(call, tool) {
            return GateDecision::Block(reason);
        }
        if self
            .config
            .hooks
            .matching(HookEvent::PreToolUse, tool.name())
            .next()
            .is_none()
        {
            return GateDecision::Allow;
        }
        let input = self.tool_hook_input(HookEvent::PreToolUse, call, tool, None);
        match hooks::run_pre_tool_use(
            &self.config.hooks,
            tool.name(),
            &input,
            &self.cwd,
            &self.sandbox,
        ) {
            Ok(()) => GateDecision::Allow,
            Err(reason) => GateDecision::Block(reason),
        }
    }

    fn after_call(&self, call: &ToolCall, tool: &dyn Tool, mut output: ToolOutput) -> ToolOutput {
        // No key focus holds goes back to the model, whatever the tool read.
        for content in output.content.iter_mut() {
            if let Content::Text { text, .. } = content {
                if let std::borrow::Cow::Owned(clean) = crate::secret_env::redact(text) {
                    *text = clean.into();
                }
            }
        }
        if self
            .config
            .hooks
            .matching(HookEvent::PostToolUse, tool.name())
            .next()
            .is_none()
        {
            return output;
        }
        let text = output.text_content();
        let input = self.tool_hook_input(
            HookEvent::PostToolUse,
            call,
            tool,
            Some((&text, output.is_error)),
        );
        let appended = hooks::run_post_tool_use(
            &self.config.hooks,
            tool.name(),
            &input,
            &self.cwd,
            &self.sandbox,
        );
        if !appended.is_empty() {
            match output.content.iter_mut().rev().find_map(|c| match c {
                Content::Text { text, .. } => Some(text),
                _ => None,
            }) {
                Some(last) => *last = format!("{last}{appended}").into(),
                None => output.content.push(Content::text(appended.trim_start())),
            }
        }
        output
    }
}
