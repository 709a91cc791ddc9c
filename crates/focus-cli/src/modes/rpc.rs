//! RPC mode (`--mode rpc`): JSON-lines commands on stdin, events and responses on
//! stdout, for editors and other programs. The protocol is pi's (docs/rpc.md):
//! a command is `{"id"?, "type", ...}`, its response
//! `{"id"?, "type":"response", "command", "success", "data"?|"error"?}`, and agent
//! events are written as they happen, in the JSON-mode shape.
//!
//! One thread reads stdin (splitting on `\n` only) into a channel the loop waits
//! on (with approval requests); the running prompt's events the loop takes from
//! the run's own queue ([`crate::engine::RunFollower`]) whenever it wakes, at least
//! every 8 ms while a prompt runs, and before each input, so this loop is the only
//! writer of state and stdout stays well-ordered. A malformed line gets an error response and the server goes
//! on. At end of input the server lets a running prompt finish its current step
//! (bounded by [`EOF_STEP_LIMIT`] and [`EOF_ABORT_LIMIT`]), then exits 0; approval
//! requests nobody can answer any more (after `abort`, or at end of input) are
//! denied, so the agent's thread never waits on them forever.

use super::json::{write_event, write_line};
use crate::approval::{ApprovalAnswer, PendingApproval};
use crate::args::Args;
use crate::choose::{ModelChoice, ModelSource};
use crate::engine::{AfterRun, Engine};
use crate::seams;
use focus_core::agent::AgentHandle;
use focus_core::event::AgentEvent;
use focus_core::event_lines::EventLines;
use focus_core::json::{parse_str, Object, ToJson, Value};
use focus_core::json_object;
use focus_core::message::{now_ms, Content, Message, UserMessage};
use focus_core::provider::ThinkingLevel;
use focus_harness::compaction::OverflowRecovery;
use focus_harness::conversation::SessionRequest;
use std::io::Read;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};

/// Longest accepted command line; longer ones are answered with an error.
const MAX_LINE: usize = 64 * 1024 * 1024;

/// After stdin closes, how long a running prompt may take to finish its
/// current step before it is aborted.
pub const EOF_STEP_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// After an abort at end of input, how long the run may take to end before
/// the server exits anyway.
pub const EOF_ABORT_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What an approval request is answered with once nobody can answer it (the
/// run was aborted, or stdin closed).
const NOBODY_TO_APPROVE: &str = "The run was aborted (or the client went away) before this call \
    was approved; it was not run. Do not retry it.";

/// What the loop waits for.
pub enum Input {
    /// One line from stdin.
    Line(String),
    /// A line that was too long (its length).
    Oversized(usize),
    /// stdin closed.
    Eof,
    /// A tool call waits for the client's `approve` command.
    Approval(PendingApproval),
}

/// The state of the server between inputs.
struct Server<'a> {
    engine: &'a mut Engine,
    running: Option<AgentHandle>,
    /// The running prompt's events, taken at every wake-up of the loop.
    following: Option<crate::engine::RunFollower>,
    /// Approval requests waiting for `approve`, by request id.
    approvals: Vec<(String, PendingApproval)>,
    next_approval: u64,
    /// The once-only overflow retry of the current prompt.
    recovery: OverflowRecovery,
    cwd: &'a Path,
    /// Set by `abort` (until the run ends) and at end of input: approval
    /// requests are denied at once instead of waiting for an answer.
    refuse_approvals: bool,
    /// A compaction inside the running run is summarizing (`get_state`'s
    /// `isCompacting`).
    compacting_in_run: bool,
}

/// Builds the engine (its gate asks through this server) and serves commands
/// until stdin closes; returns the exit code.
pub fn serve(args: &Args, cwd: &Path, request: &SessionRequest) -> i32 {
    let (sender, inputs) = mpsc::sync_channel(crate::engine::INPUT_QUEUE_CAPACITY);
    let ask = crate::approval::ask_through(sender.clone(), Input::Approval);
    let (mut engine, _choice) = match crate::setup::build_engine(args, cwd, request, Some(ask)) {
        Ok(built) => built,
        Err(error) => {
            errln!("focus: {}", error.message);
            return if error.usage {
                crate::EXIT_USAGE
            } else {
                crate::EXIT_FAILURE
            };
        }
    };
    crate::terminal::signals::catch_interrupts();
    run(&mut engine, cwd, sender, inputs)
}

/// Serves commands for `engine` until stdin closes; returns the exit code.
pub fn run(
    engine: &mut Engine,
    cwd: &Path,
    sender: SyncSender<Input>,
    inputs: Receiver<Input>,
) -> i32 {
    spawn_stdin_reader(sender.clone());
    let mut server = Server {
        engine,
        approvals: Vec::new(),
        next_approval: 1,
        running: None,
        following: None,
        recovery: OverflowRecovery::new(),
        cwd,
        refuse_approvals: false,
        compacting_in_run: false,
    };
    let mut lines = EventLines::new();
    // Inputs that arrived while a compaction ran, handled once it is over.
    let mut deferred: std::collections::VecDeque<Input> = std::collections::VecDeque::new();
    let mut eof: Option<std::time::Instant> = None;
    let mut aborted_at_eof: Option<std::time::Instant> = None;
    // SIGTERM, SIGHUP, SIGQUIT (and SIGINT) stop the server as the end of input
    // does, but abort a running prompt at once; focus then exits with 128 + the
    // signal's number once the run has ended (every tool call answered).
    let signals_before = crate::terminal::signals::interrupts();
    let mut signalled = false;
    loop {
        if !signalled && crate::terminal::signals::interrupts() > signals_before {
            signalled = true;
            let now = std::time::Instant::now();
            if eof.is_none() {
                eof = Some(now);
                server.end_of_input();
            }
            if aborted_at_eof.is_none() {
                server.abort();
                aborted_at_eof = Some(now);
            }
            if server.running.is_none() {
                break;
            }
        }
        // Every wait is short, so a signal is seen within SIGNAL_POLL; after end
        // of input every wait is also bounded (docs/rpc.md).
        let wait = match eof {
            None => SIGNAL_POLL,
            Some(closed) => {
                let limit = match aborted_at_eof {
                    Some(aborted) => aborted + EOF_ABORT_LIMIT,
                    None => closed + EOF_STEP_LIMIT,
                };
                let now = std::time::Instant::now();
                if now >= limit {
                    if aborted_at_eof.is_some() {
                        break;
                    }
                    server.abort();
                    aborted_at_eof = Some(now);
                    continue;
                }
                (limit - now).min(SIGNAL_POLL)
            }
        };
        // A running prompt is looked at every RUN_POLL: its events wait in its
        // queue meanwhile.
        let wait = match server.following {
            Some(_) => wait.min(RUN_POLL),
            None => wait,
        };
        let input = match deferred
            .pop_front()
            .map(Ok)
            .unwrap_or_else(|| inputs.recv_timeout(wait))
        {
            Ok(input) => Some(input),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        // The run's events before the input: what it queued by now (the tool call
        // an approval is about, the turn before a command's answer) goes out first.
        let mut step_ended = false;
        let mut end = None;
        let events = match server.following.as_mut() {
            Some(following) => following.take(),
            None => Default::default(),
        };
        for event in events.iter() {
            server.engine.record(event);
            step_ended |= matches!(event, AgentEvent::TurnEnd { .. });
            match event {
                AgentEvent::CompactionStart { .. } => server.compacting_in_run = true,
                AgentEvent::CompactionEnd { .. } => server.compacting_in_run = false,
                // Written once the server is idle, below.
                AgentEvent::AgentEnd { .. } => {
                    end = Some(event.clone());
                    continue;
                }
                _ => {}
            }
            write_event(&mut lines, event);
            server
                .engine
                .pass_on_warning(&mut |notice| write_line(&notice.to_json()));
        }
        if let Some(following) = server.following.as_mut() {
            following.recycle(events);
        }
        if let Some(end) = end {
            let history = server
                .following
                .take()
                .map(|f| f.join())
                .unwrap_or_default();
            server.running = None;
            server.compacting_in_run = false;
            server.refuse_approvals = eof.is_some();
            server.engine.run_ended(history);
            // Stopping on a signal or after an abort: no compaction (a model
            // call) on the way out.
            let aborted = matches!(
                &end,
                AgentEvent::AgentEnd {
                    reason: focus_core::event::EndReason::Aborted,
                    ..
                }
            );
            let after = if signalled || aborted {
                AfterRun::Done
            } else {
                server.compact_if_needed(&inputs, &mut deferred)
            };
            // `agent_end` once the server is idle: after any compaction.
            write_event(&mut lines, &end);
            server.finished(after);
        }
        match input {
            None => {}
            Some(Input::Line(line)) => server.handle_line(&line),
            Some(Input::Oversized(n)) => write_line(&error_response(
                None,
                "parse",
                &format!("command line of {n} bytes is longer than the 64 MiB limit"),
            )),
            Some(Input::Eof) => {
                eof = Some(std::time::Instant::now());
                server.end_of_input();
            }
            Some(Input::Approval(pending)) if server.refuse_approvals => {
                pending.answer(ApprovalAnswer::Deny(NOBODY_TO_APPROVE.into()));
            }
            Some(Input::Approval(pending)) => {
                let id = format!("approval-{}", server.next_approval);
                server.next_approval += 1;
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
                server.approvals.push((id, pending));
            }
        }
        // At end of input a run stops after its current step.
        if eof.is_some() && step_ended && aborted_at_eof.is_none() {
            server.abort();
            aborted_at_eof = Some(std::time::Instant::now());
        }
        if eof.is_some() && server.running.is_none() {
            break;
        }
    }
    if signalled {
        crate::stopped_exit_code()
    } else {
        0
    }
}

/// How often the server looks for a termination signal while it waits.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// How often a running prompt's queue is looked at: its events reach the client
/// at most this late, and a stream costs the loop at most 125 wake-ups a second
/// however its events come.
const RUN_POLL: std::time::Duration = std::time::Duration::from_millis(8);

/// Reads stdin on its own thread, splitting on `\n` only (JSON strings may hold
/// U+2028, which some line readers wrongly split on) and dropping a trailing `\r`.
fn spawn_stdin_reader(sender: SyncSender<Input>) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut pending: Vec<u8> = Vec::new();
        let mut buffer = [0u8; 64 * 1024];
        let mut skipping = false;
        loop {
            let n = match stdin.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let mut chunk = &buffer[..n];
            while let Some(pos) = chunk.iter().position(|&b| b == b'\n') {
                pending.extend_from_slice(&chunk[..pos]);
                chunk = &chunk[pos + 1..];
                let line = std::mem::take(&mut pending);
                let input = if skipping {
                    skipping = false;
                    Input::Oversized(MAX_LINE + line.len())
                } else {
                    Input::Line(decode_line(line))
                };
                if sender.send(input).is_err() {
                    return;
                }
            }
            pending.extend_from_slice(chunk);
            if pending.len() > MAX_LINE {
                // Drop the oversized line's bytes as they come; answer once it ends.
                pending.clear();
                skipping = true;
            }
        }
        if !pending.is_empty() && !skipping {
            let _ = sender.send(Input::Line(decode_line(pending)));
        }
        let _ = sender.send(Input::Eof);
    });
}

fn decode_line(mut bytes: Vec<u8>) -> String {
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A success response.
pub fn ok_response(id: Option<&Value>, command: &str, data: Option<Value>) -> Value {
    let mut o = Object::new();
    if let Some(id) = id {
        o.insert("id", id.clone());
    }
    o.insert("type", "response");
    o.insert("command", command);
    o.insert("success", true);
    if let Some(data) = data {
        o.insert("data", data);
    }
    Value::Object(o)
}

/// An error response.
pub fn error_response(id: Option<&Value>, command: &str, error: &str) -> Value {
    let mut o = Object::new();
    if let Some(id) = id {
        o.insert("id", id.clone());
    }
    o.insert("type", "response");
    o.insert("command", command);
    o.insert("success", false);
    o.insert("error", error);
    Value::Object(o)
}

/// The commands this server knows, for the unknown-command error.
pub const COMMANDS: &[&str] = &[
    "prompt",
    "steer",
    "follow_up",
    "abort",
    "get_state",
    "get_messages",
    "set_model",
    "set_thinking_level",
    "compact",
    "new_session",
    "switch_session",
    "fork",
    "get_session_tree",
    "navigate_tree",
    "set_label",
    "export_html",
    "approve",
    "set_session_name",
    "get_last_assistant_text",
    "get_session_stats",
    "get_available_models",
];

impl Server<'_> {
    fn handle_line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let command = match parse_str(line) {
            Ok(v @ Value::Object(_)) => v,
            Ok(other) => {
                let message = format!(
                    "a command must be a JSON object like {{\"type\":\"get_state\"}}, not {}",
                    other.type_name()
                );
                return write_line(&error_response(None, "parse", &message));
            }
            Err(e) => {
                return write_line(&error_response(
                    None,
                    "parse",
                    &format!("invalid JSON: {e}"),
                ))
            }
        };
        let id = command.get("id").cloned();
        let Some(kind) = command["type"].as_str().map(String::from) else {
            return write_line(&error_response(
                id.as_ref(),
                "parse",
                "the command has no string \"type\" field (e.g. \"prompt\", \"get_state\")",
            ));
        };
        let response = match self.dispatch(&kind, &command) {
            Ok(data) => ok_response(id.as_ref(), &kind, data),
            Err(error) => error_response(id.as_ref(), &kind, &error),
        };
        write_line(&response);
    }

    fn dispatch(&mut self, kind: &str, c: &Value) -> Result<Option<Value>, String> {
        match kind {
            "prompt" => self.prompt(c).map(|_| None),
            "steer" | "follow_up" => {
                let message = user_message(c)?;
                let handle = self.running.as_ref().ok_or_else(|| {
                    format!("nothing is running to {kind}; send a \"prompt\" command instead")
                })?;
                if kind == "steer" {
                    handle.steer(message);
                } else {
                    handle.follow_up(message);
                }
                Ok(None)
            }
            "abort" => {
                self.abort();
                Ok(None)
            }
            "get_state" => Ok(Some(self.state())),
            "get_messages" => Ok(Some(json_object! {
                "messages" => self.engine.history.to_json()
            })),
            "set_model" => self.set_model(c).map(Some),
            "get_commands" => Ok(Some(commands_json())),
            // pi's answer: the new model and level, or null with nothing else.
            "cycle_model" => Ok(Some(match crate::scope::cycle(self.engine, false)? {
                Some(to) => json_object! {
                    "model" => model_json(&to.model),
                    "thinkingLevel" => to.thinking.as_str(),
                    "isScoped" => to.scoped,
                },
                None => Value::Null,
            })),
            "set_thinking_level" => {
                let level = c["level"].as_str().ok_or("missing \"level\"")?;
                let level = ThinkingLevel::parse(level).ok_or_else(|| {
                    format!("unknown level {level:?}; use off, minimal, low, medium, high or xhigh")
                })?;
                self.engine.set_thinking(level);
                Ok(None)
            }
            "compact" => {
                self.idle("compact")?;
                self.engine
                    .compact(c["customInstructions"].as_str())
                    .map(|done| Some(done.to_json()))
            }
            "new_session" => {
                self.idle("start a new session")?;
                self.engine.new_session(self.cwd)?;
                Ok(Some(json_object! {"cancelled" => false}))
            }
            "switch_session" => {
                self.idle("switch sessions")?;
                let path = c["sessionPath"].as_str().ok_or("missing \"sessionPath\"")?;
                self.engine.switch_session(path, self.cwd)?;
                Ok(Some(json_object! {"cancelled" => false}))
            }
            "fork" => {
                self.idle("fork")?;
                let entry = c["entryId"].as_str().ok_or("missing \"entryId\"")?;
                let text = self.engine.fork(entry)?;
                Ok(Some(json_object! {"text" => text, "cancelled" => false}))
            }
            "get_session_tree" => self.engine.session_tree().map(Some),
            "navigate_tree" => {
                self.idle("move in the session tree")?;
                let target = c["entryId"].as_str().ok_or("missing \"entryId\"")?;
                let summarize = c["summarize"].as_bool().unwrap_or(false);
                let summary = self.engine.leave_branch(target, summarize)?;
                Ok(Some(json_object! {
                    "summaryEntryId" => summary.map_or(Value::Null, Value::from),
                    "messageCount" => self.engine.history.len(),
                }))
            }
            "set_label" => {
                let target = c["entryId"].as_str().ok_or("missing \"entryId\"")?;
                let label = c["label"].as_str().filter(|l| !l.trim().is_empty());
                self.engine.set_label(target, label)?;
                Ok(None)
            }
            "export_html" => {
                let path = self
                    .engine
                    .export_html(c["outputPath"].as_str().map(Path::new))?;
                Ok(Some(json_object! {"path" => path.display().to_string()}))
            }
            "approve" => self.approve(c).map(|_| None),
            "set_session_name" => {
                let name = c["name"].as_str().filter(|n| !n.trim().is_empty());
                let name = name.ok_or("set_session_name needs a non-empty \"name\"")?;
                self.engine.session.lock().set_name(name).map(|_| None)
            }
            "get_last_assistant_text" => {
                let text = self
                    .engine
                    .history
                    .iter()
                    .rev()
                    .find_map(Message::as_assistant)
                    .map(|m| m.text());
                Ok(Some(json_object! {"text" => text}))
            }
            "get_session_stats" => Ok(Some(self.stats())),
            "get_available_models" => {
                let registry = seams::registry()?;
                let keyed: Vec<String> = seams::keyed_providers(&registry)
                    .into_iter()
                    .map(|(p, _)| p)
                    .collect();
                let models: Vec<Value> = seams::list_models(&registry, None)
                    .iter()
                    .filter(|m| {
                        keyed.contains(&m.provider) || m.provider == crate::demo::DEMO_PROVIDER
                    })
                    .map(model_json)
                    .collect();
                Ok(Some(json_object! {"models" => Value::Array(models)}))
            }
            other => Err(format!(
                "Unknown command: {other} (known: {})",
                COMMANDS.join(", ")
            )),
        }
    }

    fn approve(&mut self, c: &Value) -> Result<(), String> {
        let id = c["requestId"].as_str().ok_or("missing \"requestId\"")?;
        let decision = match c["decision"].as_str() {
            Some("allow") | Some("allow_once") => ApprovalAnswer::AllowOnce,
            Some("always") | Some("allow_always") => ApprovalAnswer::AllowAlways,
            Some("deny") => ApprovalAnswer::Deny(c["reason"].as_str().unwrap_or("").to_string()),
            _ => return Err("\"decision\" must be \"allow\", \"always\" or \"deny\"".into()),
        };
        let position = self
            .approvals
            .iter()
            .position(|(pending, _)| pending == id)
            .ok_or_else(|| format!("no approval request {id:?} is pending"))?;
        let (_, request) = self.approvals.remove(position);
        request.answer(decision);
        Ok(())
    }

    fn idle(&self, what: &str) -> Result<(), String> {
        if self.running.is_some() {
            return Err(format!(
                "cannot {what} while a prompt is running; send \"abort\" first or wait for agent_end"
            ));
        }
        Ok(())
    }

    fn prompt(&mut self, c: &Value) -> Result<(), String> {
        let message = user_message(c)?;
        if let Some(handle) = &self.running {
            return match c["streamingBehavior"].as_str() {
                Some("steer") => {
                    handle.steer(message);
                    Ok(())
                }
                Some("followUp") => {
                    handle.follow_up(message);
                    Ok(())
                }
                _ => Err("a prompt is already running; set \"streamingBehavior\" to \"steer\" or \"followUp\", or send \"abort\"".into()),
            };
        }
        self.recovery = OverflowRecovery::new();
        self.start(vec![message]);
        Ok(())
    }

    /// Aborts the running prompt, if any. A pending approval request is
    /// answered "denied" (the agent's thread waits on it, so an abort alone
    /// would never end the run), and so is any that arrives until the run ends.
    fn abort(&mut self) {
        let Some(handle) = &self.running else {
            return;
        };
        handle.abort();
        self.refuse_approvals = true;
        for (_, pending) in self.approvals.drain(..) {
            pending.answer(ApprovalAnswer::Deny(NOBODY_TO_APPROVE.into()));
        }
    }

    /// stdin closed: nobody can answer approval requests any more, so pending
    /// and later ones are denied; a running prompt may finish its current step
    /// (the loop aborts it at the next `turn_end`, or after [`EOF_STEP_LIMIT`]).
    fn end_of_input(&mut self) {
        self.refuse_approvals = true;
        for (_, pending) in self.approvals.drain(..) {
            pending.answer(ApprovalAnswer::Deny(NOBODY_TO_APPROVE.into()));
        }
    }

    fn start(&mut self, prompts: Vec<Message>) {
        let run = self.engine.spawn(prompts);
        self.running = Some(run.handle.clone());
        self.following = Some(crate::engine::RunFollower::new(run));
    }

    /// After a run: the automatic compaction, if the context needs it. While its
    /// summary call runs, `abort` cancels it and `get_state` is answered (with
    /// `isCompacting`); every other input waits in `deferred` until it is over.
    fn compact_if_needed(
        &mut self,
        inputs: &Receiver<Input>,
        deferred: &mut std::collections::VecDeque<Input>,
    ) -> AfterRun {
        let mut state = self.state();
        if let Some(o) = state.as_object_mut() {
            o.insert("isCompacting", true);
        }
        let mut watch = |cancel: &focus_core::cancel::CancelToken| {
            while let Ok(input) = inputs.try_recv() {
                let Input::Line(line) = &input else {
                    deferred.push_back(input);
                    continue;
                };
                let command = parse_str(line).unwrap_or(Value::Null);
                let id = command.get("id").cloned();
                match command["type"].as_str() {
                    Some("abort") => {
                        cancel.cancel();
                        write_line(&ok_response(id.as_ref(), "abort", None));
                    }
                    Some("get_state") => {
                        write_line(&ok_response(id.as_ref(), "get_state", Some(state.clone())));
                    }
                    _ => deferred.push_back(input),
                }
            }
        };
        self.engine.after_run_watching(
            &mut self.recovery,
            &mut |notice| write_line(&notice.to_json()),
            &mut watch,
        )
    }

    /// What follows a run, once `agent_end` is out: the overflow retry, or the
    /// note that recovery failed.
    fn finished(&mut self, after: AfterRun) {
        match after {
            AfterRun::Retry => self.start(Vec::new()),
            AfterRun::GaveUp(note) => write_line(&json_object! {
                "type" => "auto_retry_end", "success" => false, "attempt" => 1,
                "finalError" => note,
            }),
            // auto_compaction_end said so (aborted: true).
            AfterRun::Aborted | AfterRun::Done => {}
        }
    }

    fn state(&self) -> Value {
        let model = self.engine.config.provider.model();
        let store = self.engine.session.lock();
        json_object! {
            "model" => model_json(model),
            "thinkingLevel" => self.engine.config.options.thinking.as_str(),
            "isStreaming" => self.running.is_some(),
            "isCompacting" => self.compacting_in_run,
            "steeringMode" => queue_mode(self.engine.config.steering_mode),
            "followUpMode" => queue_mode(self.engine.config.follow_up_mode),
            "autoCompactionEnabled" => self.engine.compaction.enabled,
            "sessionFile" => store.path().map(|p| p.display().to_string()),
            "sessionId" => Some(store.id()).filter(|s| !s.is_empty()),
            "sessionName" => store.name(),
            "messageCount" => self.engine.history.len(),
        }
    }

    /// pi's `get_session_stats`: message counts, tokens and cost of the context.
    fn stats(&self) -> Value {
        let (mut users, mut assistants, mut calls, mut results) = (0u64, 0u64, 0u64, 0u64);
        let (mut input, mut output, mut cache_read, mut cache_write) = (0u64, 0u64, 0u64, 0u64);
        let mut cost = 0.0;
        for message in &self.engine.history {
            match message {
                Message::User(_) => users += 1,
                Message::Assistant(a) => {
                    assistants += 1;
                    calls += a.tool_calls().count() as u64;
                    // Token counts come from servers and session files: saturate.
                    input = input.saturating_add(a.usage.input);
                    output = output.saturating_add(a.usage.output);
                    cache_read = cache_read.saturating_add(a.usage.cache_read);
                    cache_write = cache_write.saturating_add(a.usage.cache_write);
                    cost += a.usage.cost.total;
                }
                Message::ToolResult(_) => results += 1,
                Message::Custom(_) => {}
            }
        }
        let store = self.engine.session.lock();
        json_object! {
            "sessionFile" => store.path().map(|p| p.display().to_string()),
            "sessionId" => store.id(),
            "userMessages" => users,
            "assistantMessages" => assistants,
            "toolCalls" => calls,
            "toolResults" => results,
            "totalMessages" => self.engine.history.len(),
            "tokens" => json_object! {
                "input" => input, "output" => output, "cacheRead" => cache_read,
                "cacheWrite" => cache_write,
                "total" => [input, output, cache_read, cache_write]
                    .into_iter()
                    .fold(0u64, u64::saturating_add),
            },
            "cost" => cost,
        }
    }

    fn set_model(&mut self, c: &Value) -> Result<Value, String> {
        let provider = c["provider"].as_str().unwrap_or("");
        let model = c["modelId"].as_str().or(c["model"].as_str()).unwrap_or("");
        if provider.is_empty() && model.is_empty() {
            return Err("set_model needs \"provider\" and \"modelId\"".into());
        }
        let choice = if provider == crate::demo::DEMO_PROVIDER {
            ModelChoice::Demo
        } else {
            ModelChoice::Registered {
                provider: provider.to_string(),
                model: model.to_string(),
                source: ModelSource::Flags,
            }
        };
        let registry = seams::registry()?;
        let built = seams::build_provider(&choice, &registry, &self.engine.retry)?;
        self.engine.switch_model(built);
        Ok(model_json(self.engine.config.provider.model()))
    }
}

/// pi's `get_commands`: the prompt templates and skills a `prompt` can start
/// with, as `{commands:[{name, description, source, path}]}` (`name` without
/// the `/`).
fn commands_json() -> Value {
    let cwd = std::env::current_dir().unwrap_or_default();
    let home = focus_harness::session::focus_home();
    let commands = focus_harness::prompt::listing::user_commands(&home, &cwd)
        .into_iter()
        .map(|c| {
            let name = c.name.trim_start_matches('/');
            let source = if name.starts_with("skill:") {
                "skill"
            } else {
                "prompt"
            };
            json_object! {
                "name" => name,
                "description" => c.description.as_str(),
                "source" => source,
                "path" => c.path.display().to_string(),
            }
        })
        .collect();
    json_object! {"commands" => Value::Array(commands)}
}

/// The user message of a `prompt`/`steer`/`follow_up` command: `message` text plus
/// optional `images` (`[{"type":"image","data","mimeType"}]`).
fn user_message(c: &Value) -> Result<Message, String> {
    let text = c["message"]
        .as_str()
        .ok_or("missing \"message\" (the text to send)")?;
    // `/skill:name` and `/template args` expand as they do when typed.
    let expanded = match std::env::current_dir() {
        Ok(cwd) => crate::input::expand_typed_command(text, &cwd)?,
        Err(_) => None,
    };
    let text = expanded.as_deref().unwrap_or(text);
    let mut content = vec![Content::text(text)];
    let images = c["images"].as_array().map_or(0, Vec::len);
    if text.trim().is_empty() && images == 0 {
        return Err("\"message\" is empty: send some text (or an image)".into());
    }
    if let Some(images) = c["images"].as_array() {
        for (i, image) in images.iter().enumerate() {
            let (Some(data), Some(mime)) = (image["data"].as_str(), image["mimeType"].as_str())
            else {
                return Err(format!(
                    "images[{i}] needs \"data\" (base64) and \"mimeType\""
                ));
            };
            content.push(Content::Image {
                data: data.into(),
                mime_type: mime.to_string(),
            });
        }
    }
    Ok(Message::User(UserMessage {
        content,
        timestamp: now_ms(),
    }))
}

/// pi's spelling of a queue mode.
fn queue_mode(mode: focus_core::agent::QueueMode) -> &'static str {
    match mode {
        focus_core::agent::QueueMode::All => "all",
        focus_core::agent::QueueMode::OneAtATime => "one-at-a-time",
    }
}

/// A model as JSON (pi's field names).
pub fn model_json(m: &focus_core::provider::ModelInfo) -> Value {
    json_object! {
        "id" => m.id.as_str(),
        "name" => m.name.as_str(),
        "api" => m.api.as_str(),
        "provider" => m.provider.as_str(),
        "baseUrl" => m.base_url.as_str(),
        "reasoning" => m.reasoning,
        "contextWindow" => m.context_window,
        "maxTokens" => m.max_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_echo_the_id() {
        let id = Value::from(7);
        assert_eq!(
            ok_response(Some(&id), "abort", None).to_json_string(),
            r#"{"id":7,"type":"response","command":"abort","success":true}"#
        );
        assert_eq!(
            error_response(None, "parse", "bad").to_json_string(),
            r#"{"type":"response","command":"parse","success":false,"error":"bad"}"#
        );
    }

    #[test]
    fn an_empty_message_is_refused_unless_it_carries_an_image() {
        for blank in [r#"{"message":""}"#, r#"{"message":" \n "}"#] {
            let error = user_message(&parse_str(blank).unwrap()).unwrap_err();
            assert!(error.contains("is empty"), "{blank}: {error}");
        }
        let image = r#"{"message":"","images":[{"data":"AA==","mimeType":"image/png"}]}"#;
        assert!(user_message(&parse_str(image).unwrap()).is_ok());
    }

    #[test]
    fn user_messages_need_text_and_valid_images() {
        let c = parse_str(r#"{"message":"hi","images":[{"data":"AA==","mimeType":"image/png"}]}"#)
            .unwrap();
        let Message::User(u) = user_message(&c).unwrap() else {
            panic!()
        };
        assert_eq!(u.content.len(), 2);
        assert!(user_message(&parse_str("{}").unwrap())
            .unwrap_err()
            .contains("missing \"message\""));
        assert!(
            user_message(&parse_str(r#"{"message":"x","images":[{}]}"#).unwrap())
                .unwrap_err()
                .contains("images[0]")
        );
    }

    #[test]
    fn lines_drop_carriage_returns_and_survive_bad_utf8() {
        assert_eq!(decode_line(b"{}\r".to_vec()), "{}");
        assert_eq!(decode_line(vec![b'a', 0xff]), "a\u{fffd}");
    }
}
