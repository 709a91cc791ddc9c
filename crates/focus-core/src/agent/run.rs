//! The loop itself: the functions that decide what happens next. Everything else
//! (tool execution, validation, checkers) lives in sibling files, so this one reads
//! in one sitting.
//!
//! Shape (pi's double loop): an outer loop over prompts (the first one, then each
//! queued follow-up) and an inner loop over turns. A turn is one model call plus the
//! tool calls it asked for. The inner loop goes on while the model calls tools or
//! steering messages wait; the outer loop goes on while follow-ups wait.

use super::config::AgentConfig;
use super::context::{error_text, failed_message, llm_view};
use super::execute::{execute_batch, not_executed, panic_text, Batch};
use super::handle::AgentHandle;
use super::invariants::unanswered_calls;
use crate::event::{AgentEvent, EndReason, EventSink};
use crate::message::{AssistantMessage, Message, StopReason, ToolResultMessage};
use crate::provider::{ModelRequest, StreamEvent, ToolSpec};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs the loop on the current thread until it ends and returns the full history
/// (`history` plus everything the run added). [`super::spawn_agent`] calls this on a
/// new thread; call it directly when you already have a thread (tests, benchmarks).
///
/// `handle` belongs to this run (its cancel token, once fired, stays fired): use a
/// fresh [`AgentHandle::new`] per run. `events` receives every event as it
/// happens; it may block (a bounded channel whose reader is behind), which slows
/// the run down instead of letting events pile up in memory.
///
/// Never panics: a panic in the provider, a tool, the gate or the hooks becomes an
/// error the model or the caller reads; a panic in the loop itself ends the run with
/// `EndReason::Error` and a repaired history.
pub fn run_agent(
    config: &AgentConfig,
    history: Vec<Message>,
    prompts: Vec<Message>,
    handle: &AgentHandle,
    events: &EventSink<'_>,
) -> Vec<Message> {
    handle.set_running(true);
    // The observer (the session writer) sees each event before anyone else.
    let observed = |event: AgentEvent| {
        if let Some(observe) = &config.observe {
            observe(&event);
        }
        events(event);
    };
    let events: &EventSink<'_> = match config.observe {
        Some(_) => &observed,
        None => events,
    };
    let mut run = Run {
        config,
        handle,
        events,
        first_new: history.len(),
        history,
        specs: config.tools.iter().map(|tool| tool.spec()).collect(),
        turn_open: false,
    };
    run.emit(AgentEvent::AgentStart);
    let reason = match catch_unwind(AssertUnwindSafe(|| run.run(prompts))) {
        Ok(reason) => reason,
        Err(panic) => run.recover(&panic_text(&*panic)),
    };
    // `is_running` turns false before AgentEnd is sent, so a consumer that has seen
    // AgentEnd never sees a running agent.
    handle.set_running(false);
    let messages = run.history[run.first_new..].to_vec();
    run.emit(AgentEvent::AgentEnd { messages, reason });
    run.history
}

/// The state of one run.
struct Run<'a> {
    config: &'a AgentConfig,
    handle: &'a AgentHandle,
    events: &'a EventSink<'a>,
    history: Vec<Message>,
    /// Where this run's messages begin in `history` (for `AgentEnd::messages`).
    first_new: usize,
    /// The tools as the model sees them, computed once per run.
    specs: Vec<ToolSpec>,
    /// Whether a `TurnStart` awaits its `TurnEnd` (for panic recovery).
    turn_open: bool,
}

impl Run<'_> {
    /// The double loop. Returns why the run ended.
    fn run(&mut self, prompts: Vec<Message>) -> EndReason {
        // Continue (no prompts) is only meaningful when the model has something to
        // answer: a user message or tool results. After an assistant message the
        // model would be asked to talk to itself.
        if prompts.is_empty() {
            if let Err(why) = can_continue(&self.history) {
                return EndReason::Error(why);
            }
        }
        if let Some(why) = prompts.iter().find_map(empty_prompt) {
            return EndReason::Error(why);
        }
        let mut incoming = prompts; // delivered at the start of the next turn
        if let Err(why) = self.check_prompts(&mut incoming) {
            return EndReason::Error(why);
        }
        // Times a Stop hook kept the current prompt going.
        let mut continuations = 0;
        loop {
            // One prompt: the limits count per prompt, so a follow-up starts afresh.
            let (mut turns, mut failed_streak) = (0, 0);
            let mut wants_more = true; // the first turn of a prompt always happens
            while wants_more || self.handle.has_steering() {
                // Step boundary: the only place a run stops early. The previous turn
                // is complete (every tool call answered), so the history is valid.
                if let Some(reason) = self.stop_before_turn(turns) {
                    self.handle.requeue_follow_ups(incoming);
                    return reason;
                }
                // Steering is read here, after the previous tool batch finished in
                // full and before the next model call: no call is ever skipped.
                let mut steering = self.handle.take_steering(self.config.steering_mode);
                if let Err(why) = self.check_prompts(&mut steering) {
                    self.handle.requeue_follow_ups(incoming);
                    return EndReason::Error(why);
                }
                incoming.extend(steering);
                let (assistant, results) = self.turn(std::mem::take(&mut incoming));
                turns += 1;
                match assistant.stop_reason {
                    StopReason::Error => return EndReason::Error(error_text(&assistant)),
                    StopReason::Aborted => return EndReason::Aborted,
                    _ if self.handle.cancel_token().is_cancelled() => return EndReason::Aborted,
                    _ => {}
                }
                // The breaker counts turns in which the model tried tools and every
                // one failed; a single success (or a turn without tools) resets it.
                let all_failed = !results.is_empty() && results.iter().all(|r| r.is_error);
                failed_streak = if all_failed { failed_streak + 1 } else { 0 };
                let breaker = self.config.max_failed_turns;
                if breaker > 0 && failed_streak >= breaker {
                    return EndReason::CircuitBreaker(breaker);
                }
                // Tool results must go back to the model; a turn without tool calls
                // is the model's answer.
                wants_more = !results.is_empty();
            }
            // The agent would stop here: follow-ups turn into the next prompt.
            if self.handle.cancel_token().is_cancelled() {
                return EndReason::Aborted;
            }
            incoming = self.handle.take_follow_ups(self.config.follow_up_mode);
            if !incoming.is_empty() {
                continuations = 0;
                if let Err(why) = self.check_prompts(&mut incoming) {
                    return EndReason::Error(why);
                }
                continue;
            }
            let go_on = self.stop_hook(continuations);
            // An abort while the hook ran wins; its message is not queued.
            if self.handle.cancel_token().is_cancelled() {
                return EndReason::Aborted;
            }
            match go_on {
                // The loop guard: a hook that always says "go on" would run forever.
                Some(_) if continuations >= super::MAX_STOP_CONTINUATIONS => {
                    return EndReason::StopHookLimit(continuations)
                }
                Some(message) => {
                    continuations += 1;
                    incoming.push(message);
                }
                None => return EndReason::Completed,
            }
        }
    }

    /// Passes each user prompt in `prompts` through [`PromptHooks::before_prompt`]:
    /// context it returns is added to the prompt; a refusal is the run's error.
    fn check_prompts(&self, prompts: &mut [Message]) -> Result<(), String> {
        let Some(hooks) = &self.config.prompt_hooks else {
            return Ok(());
        };
        for prompt in prompts.iter_mut() {
            if !matches!(prompt, Message::User(_)) {
                continue;
            }
            let added = catch_unwind(AssertUnwindSafe(|| hooks.before_prompt(prompt)))
                .unwrap_or_else(|panic| Err(panic_text(&*panic)))?;
            if let (Some(text), Message::User(user)) = (added, prompt) {
                user.content.push(crate::message::Content::text(text));
            }
        }
        Ok(())
    }

    /// Asks [`PromptHooks::before_stop`] whether the run goes on; the message to
    /// deliver when it does (the caller delivers it at most
    /// [`super::MAX_STOP_CONTINUATIONS`] times per prompt, and says why it stops
    /// when the hook asks once more).
    fn stop_hook(&self, continuations: u32) -> Option<Message> {
        let hooks = self.config.prompt_hooks.as_ref()?;
        let text = catch_unwind(AssertUnwindSafe(|| {
            hooks.before_stop(&self.history, continuations)
        }))
        .ok()
        .flatten()?;
        Some(Message::User(crate::message::UserMessage::text(
            text,
            crate::message::now_ms(),
        )))
    }

    /// Whether the run must stop instead of starting another turn.
    fn stop_before_turn(&self, turns: usize) -> Option<EndReason> {
        if self.handle.cancel_token().is_cancelled() {
            return Some(EndReason::Aborted);
        }
        let limit = self.config.max_turns;
        (limit > 0 && turns >= limit).then_some(EndReason::TurnLimit(limit))
    }

    /// One turn: deliver incoming messages, call the model, answer its tool calls.
    fn turn(&mut self, incoming: Vec<Message>) -> (AssistantMessage, Vec<ToolResultMessage>) {
        self.emit(AgentEvent::TurnStart);
        self.turn_open = true;
        for message in incoming {
            self.append(message);
        }
        let assistant = self.call_model();
        let results = self.answer_tool_calls(&assistant);
        for result in &results {
            self.append(Message::ToolResult(result.clone()));
        }
        self.emit(AgentEvent::TurnEnd {
            message: assistant.clone(),
            tool_results: results.clone(),
        });
        self.turn_open = false;
        (assistant, results)
    }

    /// Streams one assistant message, forwarding its events, and appends it to the
    /// history. Never fails: a failure is a message with `StopReason::Error`.
    fn call_model(&mut self) -> AssistantMessage {
        let (config, events, cancel) = (self.config, self.events, self.handle.cancel_token());
        let mut started = false;
        // The last retry the provider announced, to report how it ended.
        let mut retried: Option<u32> = None;
        let streamed = catch_unwind(AssertUnwindSafe(|| {
            let messages = llm_view(config, &self.history, cancel, events);
            let rebuilt = config.system_prompt_source.as_ref().map(|build| build());
            let request = ModelRequest {
                system_prompt: rebuilt.as_deref().unwrap_or(&config.system_prompt),
                messages: &messages,
                tools: &self.specs,
                options: &config.options,
                cancel,
            };
            let mut ended = false;
            config.provider.stream(&request, &mut |event, partial| {
                // MessageStart on the first event (providers send `Start` first, but
                // a lax one must not break the grammar); nothing after the terminal
                // event; `Done`/`Error` are carried by MessageEnd's stop reason.
                if ended {
                    return;
                }
                // A retry comes before the message starts: not part of it.
                if let StreamEvent::Retry {
                    attempt,
                    max_attempts,
                    delay_ms,
                    error,
                } = event
                {
                    if !started {
                        retried = Some(*attempt);
                        events(AgentEvent::AutoRetryStart {
                            attempt: *attempt,
                            max_attempts: *max_attempts,
                            delay_ms: *delay_ms,
                            error_message: error.clone(),
                        });
                    }
                    return;
                }
                if !started {
                    started = true;
                    let message = Message::Assistant(partial.clone());
                    events(AgentEvent::MessageStart { message });
                }
                match event {
                    StreamEvent::Start => {}
                    StreamEvent::Done { .. } | StreamEvent::Error { .. } => ended = true,
                    // What changed, and for a block's start or end the block
                    // itself; never the message so far (see `MessageUpdate`).
                    _ => {
                        let block = event
                            .opens_or_closes_a_block()
                            .then(|| event.index().and_then(|i| partial.content.get(i)))
                            .flatten()
                            .cloned();
                        let event = event.clone();
                        events(AgentEvent::MessageUpdate { event, block });
                    }
                }
            })
        }));
        let mut message = streamed.unwrap_or_else(|panic| {
            let why = format!("the model call failed (panic: {})", panic_text(&*panic));
            failed_message(config, why)
        });
        // A provider that reports the killed connection as an error after an abort
        // is still reporting an abort.
        if message.stop_reason == StopReason::Error && cancel.is_cancelled() {
            message.stop_reason = StopReason::Aborted;
        }
        unique_call_ids(&mut message);
        if !started {
            let start = Message::Assistant(message.clone());
            self.emit(AgentEvent::MessageStart { message: start });
        }
        self.append_ended(Message::Assistant(message.clone()));
        if let Some(attempt) = retried {
            let success = !matches!(message.stop_reason, StopReason::Error | StopReason::Aborted);
            self.emit(AgentEvent::AutoRetryEnd {
                success,
                attempt,
                final_error: (!success).then(|| error_text(&message)),
            });
        }
        message
    }

    /// Results for every tool call of `assistant`, in the order the model asked.
    /// Calls are executed only when the message ended normally; otherwise each gets
    /// a result saying why it was not run, so the history stays well-formed.
    fn answer_tool_calls(&self, assistant: &AssistantMessage) -> Vec<ToolResultMessage> {
        let calls: Vec<_> = assistant.tool_calls().collect();
        let why = match assistant.stop_reason {
            _ if calls.is_empty() => return Vec::new(),
            StopReason::Stop | StopReason::ToolUse => {
                let batch = Batch {
                    config: self.config,
                    specs: &self.specs,
                    cancel: self.handle.cancel_token(),
                    events: self.events,
                    message: assistant,
                };
                return execute_batch(&batch, &calls);
            }
            // Arguments cut off by the token limit may be silently truncated: running
            // `write` with half a file would be worse than not running it.
            StopReason::Length => {
                "was not executed: the response hit the output token limit, \
                 so its arguments may be truncated. Re-issue the call with shorter arguments \
                 (split large content into several calls)"
            }
            StopReason::Aborted => "was not executed: the user aborted the response",
            StopReason::Error => "was not executed: the response failed before it was complete",
        };
        calls.iter().map(|call| not_executed(call, why)).collect()
    }

    /// After a panic in the loop: answer any open tool calls, close the turn, and
    /// report an error, so the history and the event grammar stay valid.
    fn recover(&mut self, panic: &str) -> EndReason {
        let why = "was not executed: the agent loop failed";
        let open: Vec<_> = unanswered_calls(&self.history)
            .into_iter()
            .cloned()
            .collect();
        for call in &open {
            self.append(Message::ToolResult(not_executed(call, why)));
        }
        if self.turn_open {
            let message = match self.history.iter().rev().find_map(Message::as_assistant) {
                Some(last) => last.clone(),
                None => failed_message(self.config, panic.to_string()),
            };
            let since = self
                .history
                .iter()
                .rposition(|m| matches!(m, Message::Assistant(_)));
            let tool_results = self.history[since.map_or(0, |at| at + 1)..]
                .iter()
                .filter_map(|m| match m {
                    Message::ToolResult(result) => Some(result.clone()),
                    _ => None,
                })
                .collect();
            self.emit(AgentEvent::TurnEnd {
                message,
                tool_results,
            });
        }
        EndReason::Error(format!("internal error in the agent loop: {panic}"))
    }

    /// Appends a complete message, with its start and end events.
    fn append(&mut self, message: Message) {
        self.emit(AgentEvent::MessageStart {
            message: message.clone(),
        });
        self.append_ended(message);
    }

    /// Emits `MessageEnd` for `message` and appends it to the history.
    fn append_ended(&mut self, message: Message) {
        self.emit(AgentEvent::MessageEnd {
            message: message.clone(),
        });
        self.history.push(message);
    }

    /// Sends an event. A consumer that hung up does not stop the run (the sink
    /// drops what it cannot deliver): the history is still returned by `join`.
    fn emit(&self, event: AgentEvent) {
        (self.events)(event);
    }
}

/// Gives every tool call of `message` an id of its own. Results, events and
/// consumers pair a call with its answer by id, and a provider may send none or
/// the same one twice; such an id gets the call's position as a suffix.
fn unique_call_ids(message: &mut AssistantMessage) {
    let mut seen = std::collections::HashSet::new();
    for (position, content) in message.content.iter_mut().enumerate() {
        if let crate::message::Content::ToolCall(call) = content {
            if call.id.is_empty() {
                call.id = format!("call_{position}").into();
            }
            while !seen.insert(call.id.clone()) {
                call.id = format!("{}_{position}", call.id).into();
            }
        }
    }
}

/// Why `prompt` cannot be sent, if it is a user message with nothing in it (no
/// text but whitespace, no image): a model asked nothing answers at random.
pub fn empty_prompt(prompt: &Message) -> Option<String> {
    let Message::User(user) = prompt else {
        return None;
    };
    let said_something = user.content.iter().any(|c| match c {
        crate::message::Content::Text { text, .. } => !text.trim().is_empty(),
        _ => true,
    });
    (!said_something).then(|| "the prompt is empty: write something for the model to answer".into())
}

/// Why `continue` cannot run on this history, if it cannot.
fn can_continue(history: &[Message]) -> Result<(), String> {
    match history
        .iter()
        .rev()
        .find(|m| !matches!(m, Message::Custom(_)))
    {
        None => Err("cannot continue: the history is empty (send a prompt instead)".into()),
        Some(Message::Assistant(_)) => Err("cannot continue: the history ends with an assistant \
             message, so there is nothing for the model to answer (send a prompt instead)"
            .into()),
        Some(_) => Ok(()),
    }
}
