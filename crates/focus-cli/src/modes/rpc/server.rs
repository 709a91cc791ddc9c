//! [`Server`]: RPC mode's state between two inputs, and how it renders what
//! the conversation reports. Events go out in the JSON-mode shape as they are
//! taken; a run's `agent_end` is held until the run is over (after the
//! compaction that may follow it, or before the retry after an overflow), so a
//! client that waits for `agent_end` finds the server idle. Approval requests
//! become `approval_request` events, or are denied at once when nobody can
//! answer them any more.

use super::input::Input;
use super::wire::{error_response, ok_response};
use crate::approval::{ApprovalAnswer, PendingApproval};
use crate::engine::Engine;
use crate::modes::json::write_line;
use focus_core::event::AgentEvent;
use focus_core::event_lines::EventLines;
use focus_core::json::{parse_str, ToJson, Value};
use focus_core::json_object;
use focus_harness::conversation::{CompactionReason, ConversationEvent};
use std::path::Path;
use std::time::Instant;

/// What an approval request is answered with once nobody can answer it (the
/// run was aborted, or stdin closed).
const NOBODY_TO_APPROVE: &str = "The run was aborted (or the client went away) before this call \
    was approved; it was not run. Do not retry it.";

/// The state of the server between inputs.
pub struct Server<'a> {
    /// The conversation and what the CLI plugged into it.
    pub(super) engine: &'a mut Engine,
    /// The working directory (for sessions).
    pub(super) cwd: &'a Path,
    /// Approval requests waiting for `approve`, by request id.
    pub(super) approvals: Vec<(String, PendingApproval)>,
    next_approval: u64,
    /// Set by `abort` (until the run ends) and at end of input: approval
    /// requests are denied at once instead of waiting for an answer.
    refuse_approvals: bool,
    /// stdin closed.
    eof: bool,
    /// The run's `agent_end`, until the run is over.
    held_end: Option<AgentEvent>,
    /// A `compact` command waiting for its end: its id.
    pub(super) compact_request: Option<Option<Value>>,
    lines: EventLines,
}

impl<'a> Server<'a> {
    /// A server for `engine`, idle.
    pub fn new(engine: &'a mut Engine, cwd: &'a Path) -> Server<'a> {
        Server {
            engine,
            cwd,
            approvals: Vec::new(),
            next_approval: 1,
            refuse_approvals: false,
            eof: false,
            held_end: None,
            compact_request: None,
            lines: EventLines::new(),
        }
    }

    /// Writes what the conversation reported since the last look; whether a
    /// turn ended among it (at end of input a run stops after its step).
    pub fn forward(&mut self) -> bool {
        let mut turn_ended = false;
        let events = self.engine.conversation.poll(Instant::now());
        for event in &events {
            match event {
                ConversationEvent::Agent(end @ AgentEvent::AgentEnd { .. }) => {
                    self.held_end = Some(end.clone());
                }
                ConversationEvent::Agent(event) => {
                    turn_ended |= matches!(event, AgentEvent::TurnEnd { .. });
                    super::super::json::write_event(&mut self.lines, event);
                }
                ConversationEvent::RetryAfterOverflow => self.write_held_end(),
                ConversationEvent::RecoveryFailed(_) | ConversationEvent::RunEnded(_) => {
                    self.write_held_end();
                    self.refuse_approvals = self.eof;
                    if let Some(line) = event.own_json() {
                        write_line(&line);
                    }
                }
                ConversationEvent::CompactionEnd(CompactionReason::Manual, ended) => {
                    let id = self.compact_request.take().flatten();
                    write_line(&match (&ended.result, &ended.error_message) {
                        (Some(done), _) => {
                            ok_response(id.as_ref(), "compact", Some(done.to_json()))
                        }
                        (None, error) => error_response(
                            id.as_ref(),
                            "compact",
                            error.as_deref().unwrap_or("compaction failed"),
                        ),
                    });
                }
                ConversationEvent::CompactionStart(CompactionReason::Manual) => {}
                other => {
                    if let Some(line) = other.own_json() {
                        write_line(&line);
                    }
                }
            }
        }
        turn_ended
    }

    fn write_held_end(&mut self) {
        if let Some(end) = self.held_end.take() {
            super::super::json::write_event(&mut self.lines, &end);
        }
    }

    /// Whether `input` must wait: between a run's end and `RunEnded` (a
    /// compaction after the run) only `abort` and `get_state` are answered;
    /// during `compact`, whose response comes at its end, only `abort` (so
    /// responses keep the commands' order).
    pub fn must_wait(&self, input: &Input) -> bool {
        let conversation = &self.engine.conversation;
        if !conversation.is_busy() || conversation.is_running() {
            return false;
        }
        let Input::Line(line) = input else {
            return false;
        };
        let command = parse_str(line).unwrap_or(Value::Null);
        match command["type"].as_str() {
            Some("abort") => false,
            Some("get_state") => self.compact_request.is_some(),
            _ => true,
        }
    }

    /// Asks the client about a tool call (or denies it when nobody can answer).
    pub fn ask(&mut self, pending: PendingApproval) {
        if self.refuse_approvals {
            pending.answer(ApprovalAnswer::Deny(NOBODY_TO_APPROVE.into()));
            return;
        }
        let id = format!("approval-{}", self.next_approval);
        self.next_approval += 1;
        let mut event = json_object! {
            "type" => "approval_request",
            "requestId" => id.as_str(),
        };
        let request = pending.request.to_json();
        if let (Value::Object(e), Some(r)) = (&mut event, request.as_object()) {
            for (k, v) in r.iter() {
                e.insert(k, v.clone());
            }
        }
        write_line(&event);
        self.approvals.push((id, pending));
    }

    /// Aborts the running prompt (or compaction), if any. A pending approval
    /// request is answered "denied" (the agent's thread waits on it, so an
    /// abort alone would never end the run), and so is any that arrives until
    /// the run ends.
    pub fn abort(&mut self) {
        if !self.engine.conversation.abort() {
            return;
        }
        self.refuse_approvals = true;
        self.deny_pending();
    }

    /// stdin closed: nobody can answer approval requests any more, so pending
    /// and later ones are denied; a running prompt may finish its current step
    /// (the loop aborts it at the next `turn_end`, or after
    /// [`super::EOF_STEP_LIMIT`]).
    pub fn end_of_input(&mut self) {
        self.eof = true;
        self.refuse_approvals = true;
        self.deny_pending();
    }

    fn deny_pending(&mut self) {
        for (_, pending) in self.approvals.drain(..) {
            pending.answer(ApprovalAnswer::Deny(NOBODY_TO_APPROVE.into()));
        }
    }
}
