//! The permission gate: modes, allow/ask/deny rules, and who approves.
//!
//! [`PermissionConfig::decide`] answers Allow, Deny or Ask for one call, in this order
//! (the first that applies wins):
//!
//! 1. a **deny** rule matches → Deny (deny always wins, in every mode);
//! 2. an edit tool (`write`, `edit`) aimed at a protected path
//!    ([`crate::protected`]: `.git/config`, `.git/hooks/`, `.focus/`…) → Ask, naming
//!    the file, in every mode, auto included (Deny in plan mode, and Deny when
//!    reached through a symbolic link: it is approved by its own name), unless
//!    [`PermissionConfig::protect_paths`] is off (`--sandbox off`);
//! 3. mode **auto** → Allow (nothing asks; for unattended runs);
//! 4. an **ask** rule matches → Ask;
//! 5. the call only reads (`Tool::is_read_only`) → Allow;
//! 6. mode **plan** → Deny, telling the model it is in plan mode;
//! 7. an **allow** rule covers it (for shell commands: every part that is not
//!    read-only; "allow all edits this session" adds `write` and `edit`) → Allow;
//! 8. in **accept-edits**, an edit tool whose path resolves inside the project,
//!    or a shell command that only creates, copies or moves files inside it
//!    (`mkdir`, `touch`, `cp`, `mv`) → Allow;
//! 9. anything else (edits in default mode, writing shell commands, MCP tools,
//!    unknown tools) → Ask.
//!
//! An Ask goes to an [`Approver`]: the terminal asks the user, RPC mode sends an
//! event and waits for an `approve` command, print and JSON modes use
//! [`NonInteractiveApprover`], which denies with a message telling the model not to
//! retry.

use super::judge;
use super::rules::{self, Rule, Subject};
use focus_core::json::Value;
use focus_core::message::ToolCall;
use focus_core::tool::Tool;

/// How much the agent may do without asking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Reads run; file edits, writing shell commands and unknown tools ask
    /// (Claude Code's `default`).
    #[default]
    Default,
    /// Like default, and file edits inside the project, and simple file
    /// operations there (`mkdir`, `touch`, `cp`, `mv`), run without asking
    /// (Claude Code's `acceptEdits`).
    AcceptEdits,
    /// Read-only: writes, edits and writing shell commands are blocked.
    Plan,
    /// Nothing asks (deny rules still apply).
    Auto,
}

impl Mode {
    /// Every mode, in the order a mode switch cycles through them.
    pub const ALL: [Mode; 4] = [Mode::Default, Mode::AcceptEdits, Mode::Plan, Mode::Auto];

    /// The settings spelling: `default`, `accept-edits`, `plan`, `auto`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "accept-edits",
            Mode::Plan => "plan",
            Mode::Auto => "auto",
        }
    }

    /// A line for the system prompt telling the model how the mode constrains it
    /// (`None` for default and auto, which need no warning).
    pub fn prompt_hint(self) -> Option<&'static str> {
        match self {
            Mode::Plan => Some(
                "You are in plan mode: only read-only tools and read-only shell commands run. \
                 Investigate, then present a plan; do not try to change files.",
            ),
            Mode::AcceptEdits => Some(
                "File edits run without asking; other shell commands that change things need \
                 the user's approval.",
            ),
            Mode::Default | Mode::Auto => None,
        }
    }

    /// How much the mode lets run unasked, from plan (0, the strictest) to
    /// auto (3).
    pub fn looseness(self) -> u8 {
        match self {
            Mode::Plan => 0,
            Mode::Default => 1,
            Mode::AcceptEdits => 2,
            Mode::Auto => 3,
        }
    }

    /// The stricter of two modes (a subagent's: never more rights than its
    /// parent's mode gives).
    pub fn stricter(self, other: Mode) -> Mode {
        if other.looseness() < self.looseness() {
            other
        } else {
            self
        }
    }

    /// Parses a mode name (`acceptEdits` is accepted for Claude Code settings).
    ///
    /// # Errors
    ///
    /// `name` is no mode; the message lists the modes.
    pub fn parse(text: &str) -> Result<Mode, String> {
        match text {
            "default" => Ok(Mode::Default),
            "accept-edits" | "acceptEdits" => Ok(Mode::AcceptEdits),
            "plan" => Ok(Mode::Plan),
            "auto" => Ok(Mode::Auto),
            other => Err(format!(
                "unknown permission mode `{other}` (expected default, accept-edits, plan or auto)"
            )),
        }
    }
}

/// The permission gate's answer for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run it.
    Allow,
    /// Do not run it; the text is what the model reads.
    Deny(String),
    /// Ask an [`Approver`]; the text says why approval is needed.
    Ask(String),
}

/// Mode and rules from settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PermissionConfig {
    /// The starting mode.
    pub mode: Mode,
    /// Calls that run without asking.
    pub allow: Vec<Rule>,
    /// Calls that always ask (except in auto mode).
    pub ask: Vec<Rule>,
    /// Calls that never run.
    pub deny: Vec<Rule>,
    /// Tools that edit files (allowed in default and accept-edits mode).
    pub edit_tools: Vec<String>,
    /// Tools whose `command` argument is a shell command line.
    pub shell_tools: Vec<String>,
    /// The project directory, when known: accept-edits then also checks that
    /// a file operation's paths resolve inside it (symbolic links followed).
    pub project: Option<std::path::PathBuf>,
    /// Whether writes to the project's protected paths ([`crate::protected`])
    /// through the edit tools need an approval naming the file in every mode
    /// (true unless the user turned the sandbox off).
    pub protect_paths: bool,
}

impl Default for PermissionConfig {
    fn default() -> Self {
        PermissionConfig {
            mode: Mode::Default,
            allow: Vec::new(),
            ask: Vec::new(),
            deny: Vec::new(),
            edit_tools: vec!["write".to_string(), "edit".to_string()],
            shell_tools: vec!["bash".to_string()],
            project: None,
            protect_paths: true,
        }
    }
}

impl PermissionConfig {
    /// Reads `permissionMode` and `permissions: {allow, ask, deny, defaultMode}` from a
    /// settings object; other top-level keys are ignored (they belong to others).
    /// Errors name the bad key or rule.
    ///
    /// # Errors
    ///
    /// A bad mode, a list of the wrong type, or a rule that does not parse: the message names it.
    pub fn from_json(settings: &Value) -> Result<PermissionConfig, String> {
        let mut config = PermissionConfig::default();
        if settings.is_null() {
            return Ok(config);
        }
        if settings.as_object().is_none() {
            return Err(format!(
                "settings must be an object, found {}",
                settings.type_name()
            ));
        }
        let mut mode_text = None;
        match &settings["permissionMode"] {
            Value::Null => {}
            Value::String(s) => mode_text = Some(s.clone()),
            other => {
                return Err(format!(
                    "`permissionMode` must be a string, found {}",
                    other.type_name()
                ))
            }
        }
        match &settings["permissions"] {
            Value::Null => {}
            Value::Object(perms) => {
                for (key, value) in perms.iter() {
                    let list = match key {
                        "allow" => &mut config.allow,
                        "ask" => &mut config.ask,
                        "deny" => &mut config.deny,
                        "defaultMode" => {
                            let s = value.as_str().ok_or("`permissions.defaultMode` must be a string")?;
                            mode_text.get_or_insert_with(|| s.to_string());
                            continue;
                        }
                        other => {
                            return Err(format!(
                                "unknown key `permissions.{other}` (expected allow, ask, deny or defaultMode)"
                            ))
                        }
                    };
                    let items = value.as_array().ok_or_else(|| {
                        format!("`permissions.{key}` must be an array of rule strings")
                    })?;
                    for (i, item) in items.iter().enumerate() {
                        let text = item
                            .as_str()
                            .ok_or_else(|| format!("`permissions.{key}[{i}]` must be a string"))?;
                        list.push(
                            Rule::parse(text)
                                .map_err(|e| format!("`permissions.{key}[{i}]`: {e}"))?,
                        );
                    }
                }
            }
            other => {
                return Err(format!(
                    "`permissions` must be an object, found {}",
                    other.type_name()
                ))
            }
        }
        if let Some(text) = mode_text {
            config.mode = Mode::parse(&text).map_err(|e| format!("`permissionMode`: {e}"))?;
        }
        Ok(config)
    }

    /// Whether `name` is an edit tool (`write`, `edit`).
    pub fn is_edit(&self, name: &str) -> bool {
        self.edit_tools.iter().any(|t| t == name)
    }

    /// Whether `name` is a shell tool.
    pub fn is_shell(&self, name: &str) -> bool {
        self.shell_tools.iter().any(|t| t == name)
    }

    /// Decides one call in `mode`; `session_allow` are rules the user added with
    /// "allow always" during this session. See the module docs for the order.
    pub fn decide(
        &self,
        mode: Mode,
        tool: &dyn Tool,
        call: &ToolCall,
        session_allow: &[Rule],
    ) -> Decision {
        let name = tool.name();
        let args = &call.arguments;
        let is_shell = self.is_shell(name);
        let subject = Subject::of(is_shell, args);
        if let Some(rule) = rules::any_matches(&self.deny, name, &subject) {
            return Decision::Deny(format!(
                "`{name}` is blocked by the deny rule `{rule}` in the settings. Do not retry it; \
                 find another way or ask the user."
            ));
        }
        if let Some(protected) = self.protected_target(name, args) {
            if mode == Mode::Plan {
                return Decision::Deny(plan_mode_message(name, is_shell, args));
            }
            let resolved = crate::protected::resolve_links(&protected);
            if resolved != protected {
                // The tool would refuse it too (`beneath`): approve the file by its name.
                return Decision::Deny(format!(
                    "{} is a symbolic link to the protected file {}. Do not retry it this way; \
                     write the file by its own name, which needs the user's approval.",
                    crate::path::printable(&protected.display().to_string()),
                    crate::path::printable(&resolved.display().to_string())
                ));
            }
            return Decision::Ask(protected_reason(&protected));
        }
        if mode == Mode::Auto {
            return Decision::Allow;
        }
        if let Some(rule) = rules::any_matches(&self.ask, name, &subject) {
            return Decision::Ask(format!("the ask rule `{rule}` matches"));
        }
        // A shell tool that has not wired the judge into `is_read_only` still gets it.
        let judged_read_only = match subject {
            Subject::Command(cmd) if is_shell => judge::is_read_only_command(cmd),
            _ => false,
        };
        let reads_only = tool.is_read_only(args) || judged_read_only;
        let git_problem = self.git_problem(reads_only, is_shell, args);
        if reads_only && git_problem.is_none() {
            return Decision::Allow;
        }
        if mode == Mode::Plan {
            return Decision::Deny(match &git_problem {
                Some(problem) => plan_mode_git_message(problem),
                None => plan_mode_message(name, is_shell, args),
            });
        }
        // Before the allow rules: a line whose every part reads passes them
        // without a rule, and this one only seems to read.
        if let Some(problem) = git_problem {
            return Decision::Ask(format!("git could run a program here: {problem}"));
        }
        if rules::allows(&self.allow, name, &subject)
            || rules::allows(session_allow, name, &subject)
        {
            return Decision::Allow;
        }
        let is_edit = self.edit_tools.iter().any(|t| t == name);
        if is_edit && mode == Mode::AcceptEdits && self.edit_inside_project(args) {
            return Decision::Allow;
        }
        if is_edit {
            return Decision::Ask(if mode == Mode::AcceptEdits {
                format!("`{name}` writes outside the project")
            } else {
                format!("`{name}` changes a file (default mode asks before every edit)")
            });
        }
        if mode == Mode::AcceptEdits && is_shell {
            if let Subject::Command(cmd) = subject {
                let inside = match &self.project {
                    Some(project) => judge::is_workspace_edit_command_in(cmd, project),
                    None => judge::is_workspace_edit_command(cmd),
                };
                if inside {
                    return Decision::Allow;
                }
            }
        }
        if is_shell {
            let why = match &subject {
                Subject::Command(cmd) => match judge::judge(cmd) {
                    judge::Verdict::NotReadOnly(reason) => reason,
                    judge::Verdict::ReadOnly => {
                        "the tool did not report it as read-only".to_string()
                    }
                },
                _ => "no command given".to_string(),
            };
            Decision::Ask(format!("the command may change things: {why}"))
        } else {
            Decision::Ask(format!("`{name}` may change things and no rule allows it"))
        }
    }

    /// The rule "allow always" adds for a call: for a shell command of one simple
    /// command, its first word, plus its second if that is a subcommand
    /// (`bash(cargo test:*)`); for a longer command line, that exact line; for other
    /// tools, the whole tool.
    pub fn suggested_rule(&self, call: &ToolCall) -> Rule {
        if !self.is_shell(&call.name) {
            return Rule::tool(&call.name);
        }
        let command = call.arguments["command"].as_str().unwrap_or("").trim();
        match judge::split_commands(command) {
            Some(parts) if parts.len() == 1 && !parts[0].effective.is_empty() => {
                let words: Vec<&str> = parts[0].effective.split(' ').collect();
                let mut prefix = words[0].to_string();
                if let Some(second) = words.get(1) {
                    let is_subcommand = second
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-')
                        && !second.starts_with('-');
                    if is_subcommand {
                        prefix = format!("{prefix} {second}");
                    }
                }
                Rule::with_pattern(&call.name, &format!("{prefix}:*"))
            }
            _ => Rule::exact(&call.name, command),
        }
    }
}

impl PermissionConfig {
    /// The protected path (see [`crate::protected`]) an edit tool's call would
    /// write, when paths are protected and it would.
    pub fn protected_target(&self, tool: &str, args: &Value) -> Option<std::path::PathBuf> {
        if !self.protect_paths || !self.edit_tools.iter().any(|t| t == tool) {
            return None;
        }
        let project = self.project.as_deref()?;
        let target = edit_target(project, args)?;
        crate::protected::protected_by(project, &target).map(|_| target)
    }

    /// For a shell command that runs git and reads only, or whose every part
    /// reads only (so that no allow rule is needed): why git could still run a
    /// program ([`super::git_guard`]: the line, then the repository's
    /// configuration), if it could.
    fn git_problem(&self, reads_only: bool, is_shell: bool, args: &Value) -> Option<String> {
        let cmd = args["command"].as_str().filter(|_| is_shell)?;
        if !super::git_guard::runs_git(cmd) {
            return None;
        }
        let parts_read =
            judge::split_commands(cmd).is_some_and(|parts| parts.iter().all(|p| p.read_only));
        if !reads_only && !parts_read {
            return None;
        }
        if let Some(problem) = super::git_guard::git_line_problem(cmd) {
            return Some(problem);
        }
        let project = self
            .project
            .clone()
            .unwrap_or_else(|| std::path::PathBuf::from("."));
        super::git_guard::repository_runs_code(&project)
    }

    /// Whether an edit tool's `path` resolves (symbolic links followed) inside
    /// the project.
    fn edit_inside_project(&self, args: &Value) -> bool {
        let Some(project) = self.project.as_deref() else {
            return false;
        };
        let project = crate::sandbox::resolve_existing(project);
        edit_target(&project, args)
            .is_some_and(|target| crate::sandbox::resolve_existing(&target).starts_with(&project))
    }
}

/// The file an edit tool's call names (`path`, or `file_path`), joined to
/// `project` and normalised.
fn edit_target(project: &std::path::Path, args: &Value) -> Option<std::path::PathBuf> {
    let given = args["path"]
        .as_str()
        .or_else(|| args["file_path"].as_str())?;
    crate::path::resolve(project, given).ok()
}

/// Why an edit of a protected file asks, naming it and how to allow it.
fn protected_reason(target: &std::path::Path) -> String {
    format!(
        "{} is protected: it configures programs that run code (git, or an agent's settings), \
         so every write to it needs your approval naming it, in every mode. Approve it here, or \
         run focus with --sandbox off to lift the protection",
        crate::path::printable(&target.display().to_string())
    )
}

fn plan_mode_git_message(problem: &str) -> String {
    format!(
        "Blocked: focus is in plan mode (read-only), and this git command would read a \
         repository configuration that runs programs ({problem}). Do not try to work around \
         this; read the files with the read tool instead."
    )
}

fn plan_mode_message(name: &str, is_shell: bool, args: &Value) -> String {
    let what = if is_shell {
        let cmd = args["command"].as_str().unwrap_or("");
        match judge::judge(cmd) {
            judge::Verdict::NotReadOnly(reason) => {
                format!("this command is not read-only ({reason})")
            }
            judge::Verdict::ReadOnly => "this command is not read-only".to_string(),
        }
    } else {
        format!("`{name}` may change files or other state")
    };
    format!(
        "Blocked: focus is in plan mode (read-only), and {what}. Do not try to work around this. \
         Investigate with read-only tools and commands, then present your plan; the user will \
         switch modes to carry it out."
    )
}

/// A call waiting for approval, as shown to the user.
#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalRequest {
    /// The tool call id.
    pub call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The call's arguments.
    pub arguments: Value,
    /// One line to show: the command, the path, or the arguments as JSON.
    pub summary: String,
    /// Why approval is needed.
    pub reason: String,
    /// What "allow always" would allow for the rest of the session (a rule such
    /// as `bash(cargo test:*)`, or `all edits (write, edit)`); empty when the
    /// request cannot be allowed always (a protected file: each write asks).
    pub always_rule: String,
    /// The subagent whose call this is (its agent type and task), `None` for
    /// the main conversation's own calls: the dialog says who asks.
    pub subagent: Option<String>,
}

impl ApprovalRequest {
    /// The request as JSON (for RPC clients): `{callId, toolName, arguments, summary,
    /// reason, alwaysRule}`, and `subagent` for a subagent's call.
    pub fn to_json(&self) -> Value {
        let mut json = focus_core::json_object! {
            "callId" => self.call_id.as_str(),
            "toolName" => self.tool_name.as_str(),
            "arguments" => self.arguments.clone(),
            "summary" => self.summary.as_str(),
            "reason" => self.reason.as_str(),
            "alwaysRule" => self.always_rule.as_str(),
        };
        if let (Some(object), Some(who)) = (json.as_object_mut(), &self.subagent) {
            object.insert("subagent", who.as_str());
        }
        json
    }
}

/// The user's answer to an [`ApprovalRequest`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalAnswer {
    /// Run this call.
    AllowOnce,
    /// Run this call and, for the rest of the session, calls the request's
    /// `always_rule` covers (only this call when it is empty).
    AllowAlways,
    /// Do not run it; the reason (may be empty) is passed to the model.
    Deny(String),
}

/// Asks someone whether a call may run. Implemented by the terminal (a prompt) and
/// RPC mode (an event and an `approve` command). `ask` may block until answered;
/// the gate calls it from the agent loop's thread, one request at a time.
pub trait Approver: Send + Sync {
    /// Answers one request.
    fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer;

    /// Whether `ask` waits for a person (a `Notification` hook announces it);
    /// false for an approver that answers at once.
    fn waits(&self) -> bool {
        true
    }
}

/// The approver for print and JSON modes: nobody is there to ask, so every request
/// is denied with a message telling the model not to retry.
#[derive(Clone, Copy, Debug, Default)]
pub struct NonInteractiveApprover;

impl Approver for NonInteractiveApprover {
    fn waits(&self) -> bool {
        false
    }

    fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        ApprovalAnswer::Deny(format!(
            "`{}` needs the user's approval ({}), but focus is running non-interactively. \
             Do not retry it; continue without it, or finish and say what needs approval \
             (the user can allow it with a permission rule or --permission-mode).",
            request.tool_name, request.reason
        ))
    }
}

/// The text the model reads when the user denies a call.
pub fn denied_message(tool_name: &str, reason: &str) -> String {
    let reason = reason.trim();
    if reason.is_empty() {
        format!("The user denied this `{tool_name}` call. Do not retry it; ask what to do instead.")
    } else if reason.contains("Do not retry") {
        reason.to_string()
    } else {
        format!(
            "The user denied this `{tool_name}` call: {reason}. Do not retry it; ask what to do instead."
        )
    }
}

/// A summary of a call's arguments for approval prompts: a shell command whole,
/// anything else cut at 200 characters with a count of what was cut.
pub fn summarize_call(call: &ToolCall) -> String {
    let args = &call.arguments;
    let text = args["command"]
        .as_str()
        .or_else(|| args["path"].as_str())
        .or_else(|| args["file_path"].as_str())
        .map(str::to_string)
        .unwrap_or_else(|| args.to_json_string());
    // A shell command is shown whole: the user approves exactly what will run, and
    // a cut could hide `; rm …` behind a harmless-looking start.
    if args["command"].as_str().is_some() || text.chars().count() <= 200 {
        return text;
    }
    let hidden = text.chars().count() - 200;
    format!(
        "{}… ({hidden} more characters)",
        text.chars().take(200).collect::<String>()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json_object;

    fn call(arguments: focus_core::json::Value) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: "bash".into(),
            arguments,
            thought_signature: None,
            invalid_arguments: None,
        }
    }

    #[test]
    fn a_long_command_is_shown_whole_in_the_approval_prompt() {
        let command = format!("ls{}; rm -rf ~", " ".repeat(300));
        assert_eq!(
            summarize_call(&call(json_object! { "command" => command.as_str() })),
            command
        );
        let long_path = "d/".repeat(150);
        let summary = summarize_call(&call(json_object! { "path" => long_path.as_str() }));
        assert!(summary.ends_with("… (100 more characters)"), "{summary}");
    }
}
