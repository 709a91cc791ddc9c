//! The `agent` tool: a whole focus conversation for one prompt, with the
//! model, tools, permission mode, sandbox and settings of the server's
//! command line, and its final answer as the result. It is a front end of
//! the harness's `Conversation` like print mode: the engine is built as print
//! mode builds it (`setup::build_engine`, no approver: what would ask is
//! refused) and the run is `Conversation::run_to_end`, which writes the
//! session, compacts and retries. `notifications/cancelled` reaches it as the
//! user's interrupt: the run is aborted, its tools' processes killed, its
//! session left whole.

use super::catalog::{self, Hints};
use super::progress::Progress;
use crate::args::Args;
use focus_core::cancel::CancelToken;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::{now_ms, Message, UserMessage};
use focus_harness::conversation::ConversationEvent;
use std::path::PathBuf;
use std::sync::Arc;

/// The tool's name.
pub const NAME: &str = "agent";

const DESCRIPTION: &str = "Hand a whole task to a focus agent: it works on this machine's \
    project folder with its own tools (read, write, edit, bash, grep, find, ls) under the \
    server's permission mode and sandbox, and returns its final answer. Say everything it \
    needs in `prompt`: it does not see your conversation.";

/// How the server runs a conversation.
pub struct AgentTool {
    args: Args,
    cwd: PathBuf,
}

impl AgentTool {
    /// Conversations configured by the server's `args`, in `cwd`.
    pub fn new(args: Args, cwd: PathBuf) -> AgentTool {
        AgentTool { args, cwd }
    }

    /// Its `tools/list` entry.
    pub fn entry(&self) -> Value {
        let hints = Hints {
            read_only: false,
            destructive: true,
            idempotent: false,
            open_world: true,
        };
        catalog::describe(NAME, "Run a focus agent", DESCRIPTION, self.schema(), hints)
    }

    /// Its arguments' JSON Schema.
    pub fn schema(&self) -> Value {
        json_object! {
            "type" => "object",
            "properties" => json_object! {
                "prompt" => json_object! {
                    "type" => "string",
                    "minLength" => 1,
                    "description" => "The task, complete: the agent sees nothing else.",
                },
            },
            "required" => focus_core::json_array!["prompt"],
            "additionalProperties" => false,
        }
    }

    /// Runs one conversation for `arguments.prompt` until it ends or `cancel`
    /// fires; its answer as a `CallToolResult`.
    pub fn run(&self, arguments: &Value, cancel: &CancelToken, progress: &Progress<'_>) -> Value {
        let prompt = arguments["prompt"]
            .as_str()
            .unwrap_or("")
            .trim()
            .to_string();
        if prompt.is_empty() {
            return failed("`prompt` is empty: say what the agent should do");
        }
        let request = crate::setup::session_request(&self.args);
        let mut engine = match crate::setup::build_engine(&self.args, &self.cwd, &request, None) {
            Ok((engine, _)) => engine,
            Err(error) => return failed(&format!("the agent could not start: {}", error.message)),
        };
        let stop = cancel.clone();
        engine.conversation.interrupts = Arc::new(move || u64::from(stop.is_cancelled()));
        let message = Message::User(UserMessage::text(prompt.as_str(), now_ms()));
        let outcome = progress.while_running(|| {
            engine
                .conversation
                .run_to_end(vec![message], &mut |event| report(event, progress))
        });
        match outcome.reason {
            EndReason::Completed => json_object! {
                "content" => focus_core::json_array![
                    json_object! { "type" => "text", "text" => outcome.final_text.as_str() }
                ],
                "isError" => false,
            },
            EndReason::Aborted => {
                failed("the agent's run was stopped (cancelled, or past its deadline)")
            }
            EndReason::Error(error) => failed(&format!("the agent's run failed: {error}")),
            other => failed(&format!("the agent's run ended early: {other:?}")),
        }
    }
}

/// What the client hears of a run: each tool the agent starts.
fn report(event: &ConversationEvent, progress: &Progress<'_>) {
    if let ConversationEvent::Agent(AgentEvent::ToolExecutionStart { tool_name, .. }) = event {
        progress.report(&format!(
            "agent runs {}",
            focus_core::tool::safe_tool_name(tool_name)
        ));
    }
}

/// A failed `CallToolResult` saying `why`.
fn failed(why: &str) -> Value {
    json_object! {
        "content" => focus_core::json_array![json_object! { "type" => "text", "text" => why }],
        "isError" => true,
    }
}
