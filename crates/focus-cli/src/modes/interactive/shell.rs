//! `!command` and `!!command`: a shell command the user runs from the editor,
//! as pi runs it.
//!
//! It goes the bash tool's way: the permission mode and rules decide first (in
//! plan mode a command that writes is refused; the user typing it is the
//! approval an "ask" would want), the sandbox confines it, its output is
//! capped and secrets are scrubbed from it as for a tool call (hooks are for
//! the model's calls, and do not run). It runs on a
//! thread of its own (Esc cancels it) and comes back as [`ShellDone`]. The
//! session records it as pi's `bashExecution` message: with `!` the model sees
//! it in the next prompt's context ("Ran `cmd`" and the output); with `!!`
//! (`excludeFromContext`) only the user does.

use super::input::{Input, ShellDone};
use super::ui::Ui;
use focus_core::cancel::CancelToken;
use focus_core::event::AgentEvent;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::{now_ms, Content, CustomMessage, Message, ToolCall};
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use focus_tools::gates::permission::Decision;
use std::sync::mpsc::SyncSender;
use std::sync::Arc;

impl Ui<'_> {
    /// Runs `!command` or `!!command` (`line` starts with `!`).
    pub(super) fn run_shell(&mut self, line: &str) -> Result<(), String> {
        let (exclude, command) = match line.strip_prefix("!!") {
            Some(rest) => (true, rest.trim()),
            None => (false, line[1..].trim()),
        };
        let (tool, call) = self.shell_call(command)?;
        let cancel = CancelToken::new();
        self.shell = Some(cancel.clone());
        self.busy = Some("running");
        self.notice = Some(format!(
            "running !{}… · Esc cancels",
            crate::modes::print::clip(command, 60)
        ));
        // Shown as the model's bash calls are: a live block, its output
        // streaming in (the same events), finished by `shell_done`.
        self.event(&AgentEvent::ToolExecutionStart {
            call_id: call.id.to_string(),
            tool_name: "bash".into(),
            args: call.arguments.clone(),
        });
        let inputs = self.inputs.clone();
        let command = command.to_string();
        std::thread::spawn(move || {
            let output = run_bash(tool.as_ref(), &call, &cancel, &inputs);
            let _ = inputs.send(Input::Shell(ShellDone {
                call_id: call.id.to_string(),
                command,
                exclude,
                output,
            }));
        });
        Ok(())
    }

    /// The bash tool and the call that runs `command`, if it may run now: not
    /// empty, nothing else running, the tool enabled and the gate's mode and
    /// rules allowing it (the user typing it is the approval an "ask" wants).
    fn shell_call(&self, command: &str) -> Result<(Arc<dyn Tool>, ToolCall), String> {
        if command.is_empty() {
            return Err("give a command: !ls runs ls (its output goes to the model), !!ls shows it to you only".into());
        }
        if self.engine.conversation.is_busy() || self.shell.is_some() {
            return Err(
                "a shell command waits until the agent (or the last command) is done".into(),
            );
        }
        let tool = self
            .engine
            .conversation
            .config
            .tools
            .iter()
            .find(|t| t.name() == "bash")
            .cloned()
            .ok_or(
                "the bash tool is not enabled in this session (--tools), so ! cannot run commands",
            )?;
        let call = ToolCall {
            id: format!("user-bash-{}", now_ms()).into(),
            name: "bash".into(),
            arguments: json_object! { "command" => command },
            thought_signature: None,
            invalid_arguments: None,
        };
        if let Some(gate) = &self.engine.gatekeeper {
            if let Decision::Deny(reason) = gate.decide(&call, tool.as_ref()) {
                return Err(format!("not run ({} mode): {reason}", gate.mode().as_str()));
            }
        }
        Ok((tool, call))
    }

    /// Esc while a `!command` runs: it is cancelled (its processes killed).
    pub(super) fn cancel_shell(&mut self) -> bool {
        match &self.shell {
            Some(cancel) => {
                cancel.cancel();
                self.notice = Some("cancelling the command…".into());
                true
            }
            None => false,
        }
    }

    /// A `!command` ended: shown as a bash block, recorded in the session.
    pub(super) fn shell_done(&mut self, done: ShellDone) {
        self.shell = None;
        self.busy = None;
        self.notice = None;
        let details = done.output.details.clone();
        let text = done.output.text_content();
        // A key typed into the command stays out of the session too.
        let command = focus_tools::secret_env::redact(&done.command);
        let message = bash_execution(&command, &text, &details, done.exclude);
        self.event(&AgentEvent::ToolExecutionEnd {
            call_id: done.call_id,
            tool_name: "bash".into(),
            output: done.output,
        });
        self.engine.conversation.add_message(message);
        let note = if done.exclude {
            "(!! output shown to you only: not in the model's context)"
        } else {
            "(output added to the model's context for your next message)"
        };
        self.say(&self.style.dim(note));
    }
}

/// Runs `call` with the bash tool (on the shell's thread): its output so far
/// goes to the loop as [`Input::ShellOutput`], and no key focus holds reaches
/// what it gives back (the gate does the same for the model's calls; hooks
/// are for the model's calls only).
fn run_bash(
    tool: &dyn Tool,
    call: &ToolCall,
    cancel: &CancelToken,
    inputs: &SyncSender<Input>,
) -> ToolOutput {
    let on_update = |partial: ToolOutput| {
        let update = AgentEvent::ToolExecutionUpdate {
            call_id: call.id.to_string(),
            tool_name: "bash".into(),
            args: Value::Null,
            partial,
        };
        let _ = inputs.send(Input::ShellOutput(update));
    };
    let context = ToolContext {
        call_id: &call.id,
        cancel,
        on_update: &on_update,
    };
    let mut output = tool.execute(&call.arguments, &context);
    for content in output.content.iter_mut() {
        if let Content::Text { text, .. } = content {
            if let std::borrow::Cow::Owned(clean) = focus_tools::secret_env::redact(text) {
                *text = clean.into();
            }
        }
    }
    output
}

/// pi's `bashExecution` message for a command and the bash tool's output
/// (the exit note the tool appends is left to the message's own fields).
fn bash_execution(command: &str, text: &str, details: &Value, exclude: bool) -> Message {
    let code = details["exitCode"].as_i64();
    let cancelled = details["aborted"].as_bool() == Some(true);
    let mut output = text;
    if let Some(cut) = output
        .find("\n\nCommand exited with code ")
        .filter(|_| code.is_some())
    {
        output = &output[..cut];
    }
    if let Some(cut) = output
        .find("\n\nCommand aborted by the user")
        .filter(|_| cancelled)
    {
        output = &output[..cut];
    }
    let mut raw = json_object! {
        "role" => "bashExecution",
        "command" => command,
        "output" => output,
        "exitCode" => code,
        "cancelled" => cancelled,
        "truncated" => details["truncated"].as_bool() == Some(true),
        "timestamp" => now_ms(),
    };
    if let Some(object) = raw.as_object_mut() {
        if let Some(path) = details["fullOutputPath"].as_str() {
            object.insert("fullOutputPath", path);
        }
        if exclude {
            object.insert("excludeFromContext", true);
        }
    }
    Message::Custom(CustomMessage {
        role: "bashExecution".into(),
        raw,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bash_execution_message_as_pi_writes_it() {
        let details = focus_core::json::parse_str(r#"{"exitCode":2,"truncated":false}"#).unwrap();
        let message = bash_execution(
            "ls nope",
            "ls: nope\n\nCommand exited with code 2",
            &details,
            false,
        );
        let Message::Custom(c) = &message else {
            panic!()
        };
        assert_eq!(c.raw["output"].as_str(), Some("ls: nope"));
        assert_eq!(c.raw["exitCode"].as_i64(), Some(2));
        assert!(c.raw["excludeFromContext"].is_null());
        let text = focus_harness::session::convert::bash_execution_text(&c.raw);
        assert!(text.starts_with("Ran `ls nope`"), "{text}");
        assert!(text.ends_with("Command exited with code 2"), "{text}");
        let hidden = bash_execution("ls", "a", &Value::Null, true);
        let Message::Custom(c) = &hidden else {
            panic!()
        };
        assert_eq!(c.raw["excludeFromContext"].as_bool(), Some(true));
    }
}
