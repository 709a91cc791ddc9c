//! [`RunSummary`]: what a conversation's runs came to, kept by the
//! conversation as its events pass ([`RunSummary::observe`]): model calls,
//! tokens and cost, time (all of it and the model's share), the tool calls
//! refused and why, the files written, how the last run ended and whether the
//! session could be saved. [`Outcome`] reads it as one word, the basis of a
//! headless run's exit code and result record; front ends only render it.

use super::event::ConversationEvent;
use focus_core::agent::execute::was_refused;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::message::{Message, Usage};
use std::time::{Duration, Instant};

/// How every warning about a failed session write begins (the conversation
/// words them so; the summary notes them as the session not saved).
pub const SAVE_FAILED: &str = "could not save the session";

/// A tool call the gate refused: by a rule, a hook, or because nobody was
/// there to approve it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeniedCall {
    /// The call's id.
    pub call_id: String,
    /// The tool's name, as the model spelled it.
    pub tool_name: String,
    /// The call's arguments, as JSON text.
    pub arguments: String,
    /// Why it was refused (the text the model read).
    pub reason: String,
}

/// What the runs of a conversation came to, since it was made or since
/// [`RunSummary::restart`].
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// When the summary started.
    pub started: Instant,
    /// How long the runs took, up to the last `RunEnded`.
    pub duration: Duration,
    /// Of that, the time spent waiting for the model (each turn's start to
    /// its assistant message's end).
    pub api_duration: Duration,
    /// Model calls answered (assistant messages).
    pub turns: u32,
    /// Tokens and cost, summed over the answers (estimates count), the
    /// subagents' included.
    pub usage: Usage,
    /// Subagents that ran (`task` calls that started a child).
    pub subagents: u32,
    /// The calls the gate refused, in order.
    pub denied: Vec<DeniedCall>,
    /// The files `write` and `edit` changed, each once, in order; then
    /// those found changed otherwise (by `bash`: [`RunSummary::note_changed`]).
    pub files_changed: Vec<String>,
    /// Whether a tool that may change any file (`bash`, an MCP tool) ran:
    /// only then is the working tree looked at again after the run
    /// ([`super::changed_files`]).
    pub may_have_changed_files: bool,
    /// How the last run ended; `None` while none has.
    pub end: Option<EndReason>,
    /// The last assistant message's text.
    pub final_text: String,
    /// Whether a write to the session failed.
    pub save_failed: bool,
    /// Whether the conversation's deadline stopped a run (or kept one from
    /// starting).
    pub deadline_reached: bool,
    /// Whether the cost budget (`--max-cost`) stopped a run (or kept one from
    /// starting).
    pub budget_reached: bool,
    /// The final answer as a JSON value that validated against the output
    /// schema (`--output-schema`).
    pub structured_output: Option<focus_core::json::Value>,
    /// Whether the last answer failed the output schema after every retry.
    pub schema_failed: bool,
    /// Arguments of the calls under way, by id (to name a refused call).
    pending: Vec<(String, String)>,
    /// When the current turn started.
    turn_started: Option<Instant>,
}

impl Default for RunSummary {
    fn default() -> Self {
        RunSummary::new()
    }
}

/// How the runs ended, in one word; each has its own exit code in the CLI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The model finished and nothing was refused.
    Finished,
    /// A tool call was refused (the model may have answered anyway).
    Refused,
    /// The turn limit stopped the run.
    TurnLimit,
    /// The deadline stopped the run.
    Deadline,
    /// The cost budget stopped the run.
    Budget,
    /// The final answer did not validate against the output schema, however
    /// often the model was asked again.
    SchemaInvalid,
    /// The provider failed (after its retries), or the run failed otherwise.
    Failed,
    /// The user (or a signal) aborted the run.
    Aborted,
    /// The session could not be saved.
    NotSaved,
}

impl Outcome {
    /// The word the result record uses (`subtype`).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Finished => "success",
            Outcome::Refused => "refused",
            Outcome::TurnLimit => "error_max_turns",
            Outcome::Deadline => "error_deadline",
            Outcome::Budget => "error_max_budget_usd",
            Outcome::SchemaInvalid => "error_output_schema",
            Outcome::Failed => "error_during_execution",
            Outcome::Aborted => "aborted",
            Outcome::NotSaved => "error_session_not_saved",
        }
    }
}

impl RunSummary {
    /// An empty summary starting now.
    pub fn new() -> RunSummary {
        RunSummary {
            started: Instant::now(),
            duration: Duration::ZERO,
            api_duration: Duration::ZERO,
            turns: 0,
            usage: Usage::default(),
            subagents: 0,
            denied: Vec::new(),
            files_changed: Vec::new(),
            may_have_changed_files: false,
            end: None,
            final_text: String::new(),
            save_failed: false,
            deadline_reached: false,
            budget_reached: false,
            structured_output: None,
            schema_failed: false,
            pending: Vec::new(),
            turn_started: None,
        }
    }

    /// Starts over from now.
    pub fn restart(&mut self) {
        *self = RunSummary::new();
    }

    /// Takes one event of the conversation into account.
    pub fn observe(&mut self, event: &ConversationEvent) {
        match event {
            ConversationEvent::Agent(event) => self.observe_agent(event),
            ConversationEvent::Warning(text) if text.starts_with(SAVE_FAILED) => {
                self.save_failed = true;
            }
            ConversationEvent::RunEnded(reason) => {
                self.end = Some(reason.clone());
                self.duration = self.started.elapsed();
            }
            _ => {}
        }
    }

    /// Marks the session as not saved (a write failed).
    pub fn note_save_failure(&mut self) {
        self.save_failed = true;
    }

    fn observe_agent(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::TurnStart => self.turn_started = Some(Instant::now()),
            AgentEvent::MessageEnd {
                message: Message::Assistant(m),
            } => {
                self.turns += 1;
                if let Some(start) = self.turn_started.take() {
                    self.api_duration += start.elapsed();
                }
                add_usage(&mut self.usage, &m.usage);
                self.final_text = m.text();
            }
            AgentEvent::ToolExecutionStart { call_id, args, .. } => {
                self.pending.push((call_id.clone(), args.to_json_string()));
            }
            AgentEvent::ToolExecutionEnd {
                call_id,
                tool_name,
                output,
            } => {
                let arguments = match self.pending.iter().position(|(id, _)| id == call_id) {
                    Some(i) => self.pending.swap_remove(i).1,
                    None => String::new(),
                };
                // A subagent's tokens and cost are the run's too.
                if let Some(usage) =
                    crate::subagents::record::child_usage(tool_name, &output.details)
                {
                    add_usage(&mut self.usage, &usage);
                    self.subagents += 1;
                }
                if was_refused(output) {
                    self.denied.push(DeniedCall {
                        call_id: call_id.clone(),
                        tool_name: tool_name.clone(),
                        arguments,
                        reason: output.text_content(),
                    });
                } else if !output.is_error && matches!(tool_name.as_str(), "write" | "edit") {
                    self.note_file(&arguments);
                } else if super::changed_files::may_change_files(tool_name) {
                    // Even a call that failed may have changed files first.
                    self.may_have_changed_files = true;
                }
            }
            _ => {}
        }
    }

    fn note_file(&mut self, arguments: &str) {
        let Ok(args) = focus_core::json::parse_str(arguments) else {
            return;
        };
        let path = args["path"].as_str().or(args["file_path"].as_str());
        if let Some(path) = path {
            if !self.files_changed.iter().any(|p| p == path) {
                self.files_changed.push(path.to_string());
            }
        }
    }

    /// Adds `paths` (relative to `root`, found changed by a look at the tree)
    /// to [`RunSummary::files_changed`], but those `write` or `edit` named
    /// already (relative or absolute, `./` or not).
    pub fn note_changed(&mut self, paths: Vec<String>, root: &std::path::Path) {
        let plain = |path: &str| -> std::path::PathBuf {
            root.join(path)
                .components()
                .filter(|c| !matches!(c, std::path::Component::CurDir))
                .collect()
        };
        for path in paths {
            let full = plain(&path);
            if !self.files_changed.iter().any(|known| plain(known) == full) {
                self.files_changed.push(path);
            }
        }
    }

    /// The outcome: the deadline first, the budget next, then how the last run ended (an
    /// abort, a failure, the turn limit), then an answer that failed the output schema, then a session not saved, then a refused call.
    pub fn outcome(&self) -> Outcome {
        match &self.end {
            _ if self.deadline_reached => Outcome::Deadline,
            _ if self.budget_reached => Outcome::Budget,
            Some(EndReason::Aborted) => Outcome::Aborted,
            Some(EndReason::TurnLimit(_)) => Outcome::TurnLimit,
            Some(EndReason::Error(_))
            | Some(EndReason::CircuitBreaker(_))
            | Some(EndReason::StopHookLimit(_)) => Outcome::Failed,
            _ if self.schema_failed => Outcome::SchemaInvalid,
            _ if self.save_failed => Outcome::NotSaved,
            _ if !self.denied.is_empty() => Outcome::Refused,
            Some(EndReason::Completed) => Outcome::Finished,
            None => Outcome::Failed,
        }
    }
}

use crate::subagents::record::add_usage;

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json_object;
    use focus_core::tool::ToolOutput;
    use std::path::Path;

    fn call(
        id: &str,
        tool: &str,
        args: focus_core::json::Value,
        output: ToolOutput,
    ) -> [ConversationEvent; 2] {
        [
            ConversationEvent::Agent(AgentEvent::ToolExecutionStart {
                call_id: id.into(),
                tool_name: tool.into(),
                args,
            }),
            ConversationEvent::Agent(AgentEvent::ToolExecutionEnd {
                call_id: id.into(),
                tool_name: tool.into(),
                output,
            }),
        ]
    }

    #[test]
    fn a_refused_call_is_named_and_decides_the_outcome() {
        let mut summary = RunSummary::new();
        let mut refused = ToolOutput::error("needs approval");
        refused.details = json_object! {"refused" => true};
        for event in call("c1", "bash", json_object! {"command" => "rm x"}, refused) {
            summary.observe(&event);
        }
        for event in call(
            "c2",
            "write",
            json_object! {"path" => "a.txt"},
            ToolOutput::text("ok"),
        ) {
            summary.observe(&event);
        }
        // A failed call is not a refused one.
        for event in call(
            "c3",
            "bash",
            json_object! {"command" => "false"},
            ToolOutput::error("exit 1"),
        ) {
            summary.observe(&event);
        }
        summary.observe(&ConversationEvent::RunEnded(EndReason::Completed));
        assert_eq!(summary.denied.len(), 1);
        assert_eq!(summary.denied[0].tool_name, "bash");
        assert!(summary.denied[0].arguments.contains("rm x"));
        assert_eq!(summary.denied[0].reason, "needs approval");
        assert_eq!(summary.files_changed, ["a.txt"]);
        // A failed bash call may have changed files all the same; a refused one did not run.
        assert!(summary.may_have_changed_files);
        // Files found changed by a look at the tree join those `write` named, once.
        summary.note_changed(vec!["a.txt".into(), "made.txt".into()], Path::new("/p"));
        summary.note_changed(vec!["./made.txt".into()], Path::new("/p"));
        assert_eq!(summary.files_changed, ["a.txt", "made.txt"]);
        assert_eq!(summary.outcome(), Outcome::Refused);
        summary.note_save_failure();
        assert_eq!(summary.outcome(), Outcome::NotSaved);
    }

    #[test]
    fn the_end_reason_comes_first() {
        let mut summary = RunSummary::new();
        assert_eq!(summary.outcome(), Outcome::Failed);
        summary.observe(&ConversationEvent::RunEnded(EndReason::Completed));
        assert_eq!(summary.outcome(), Outcome::Finished);
        summary.observe(&ConversationEvent::RunEnded(EndReason::TurnLimit(3)));
        assert_eq!(summary.outcome(), Outcome::TurnLimit);
        summary.observe(&ConversationEvent::RunEnded(EndReason::Aborted));
        assert_eq!(summary.outcome(), Outcome::Aborted);
        summary.observe(&ConversationEvent::RunEnded(EndReason::Error("x".into())));
        assert_eq!(summary.outcome(), Outcome::Failed);
    }
}
