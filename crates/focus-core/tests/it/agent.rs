//! The agent loop against a scripted provider: tool calls (single, parallel,
//! alone), validation, steering, follow-ups, aborts, limits, the gate, continue,
//! failures. Every test also checks both invariants on what the run produced.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use focus_core::agent::{
    check_event_grammar, check_history, run_agent, spawn_agent, AgentConfig, AgentHandle,
};
use focus_core::event::{AgentEvent, EndReason};
use focus_core::message::{
    AssistantMessage, Content, CustomMessage, Message, StopReason, ToolCall, ToolResultMessage,
    UserMessage,
};
use focus_core::tool::{GateDecision, Tool, ToolGate, ToolOutput};
use focus_testkit::scripted::{wait_for_cancel, FnTool, Reply, ScriptedProvider};

fn user(text: &str) -> Message {
    Message::User(UserMessage::text(text, 1))
}

fn config(provider: &Arc<ScriptedProvider>, tools: Vec<Arc<dyn Tool>>) -> AgentConfig {
    let mut config = AgentConfig::new(provider.clone());
    config.tools = tools;
    config
}

/// Runs to the end; checks both invariants and that the provider never saw a bad
/// history. Returns the events, the history and the end reason.
fn run(config: AgentConfig, history: Vec<Message>, prompts: Vec<Message>) -> Outcome {
    let run = spawn_agent(config, history, prompts);
    let events: Vec<AgentEvent> = run.events.iter().collect();
    let history = run.join();
    finish(events, history)
}

/// Runs the loop on this thread with `handle`, as `spawn_agent` would on its
/// own, from the one prompt `prompt`; then [`finish`].
fn run_here(config: &AgentConfig, handle: &AgentHandle, prompt: &str) -> Outcome {
    let (sender, events) = mpsc::channel();
    let history = run_agent(config, Vec::new(), vec![user(prompt)], handle, &|e| {
        let _ = sender.send(e);
    });
    drop(sender);
    finish(events.iter().collect(), history)
}

struct Outcome {
    events: Vec<AgentEvent>,
    history: Vec<Message>,
    reason: EndReason,
}

/// Checks both invariants on what a run produced; the end reason is the last
/// event's.
fn finish(events: Vec<AgentEvent>, history: Vec<Message>) -> Outcome {
    check_event_grammar(&events).unwrap();
    check_history(&history).unwrap();
    let reason = match events.last() {
        Some(AgentEvent::AgentEnd { reason, .. }) => reason.clone(),
        other => panic!("last event is not AgentEnd: {other:?}"),
    };
    Outcome {
        events,
        history,
        reason,
    }
}

fn results(history: &[Message]) -> Vec<&ToolResultMessage> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult(r) => Some(r),
            _ => None,
        })
        .collect()
}

fn text_of(result: &ToolResultMessage) -> String {
    result.content.iter().filter_map(Content::as_text).collect()
}

fn roles(history: &[Message]) -> Vec<&str> {
    history.iter().map(Message::role).collect()
}

#[test]
fn single_tool_call_then_answer() {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::new()
            .say("Let me echo.")
            .call("c1", "echo", r#"{"text":"hi there"}"#),
        Reply::text("It said hi there."),
    ]));
    let out = run(
        config(&provider, vec![Arc::new(FnTool::echo())]),
        Vec::new(),
        vec![user("echo hi")],
    );
    assert_eq!(out.reason, EndReason::Completed);
    assert_eq!(
        roles(&out.history),
        ["user", "assistant", "toolResult", "assistant"]
    );
    let result = results(&out.history)[0];
    assert_eq!(
        (result.tool_call_id.as_str(), text_of(result).as_str()),
        ("c1", "hi there")
    );
    assert!(!result.is_error);
    // The second request carried the tool result back.
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].messages.len(), 3);
    assert_eq!(requests[0].tools, ["echo"]);
    assert!(provider.violations().is_empty());
    // AgentEnd lists exactly the messages the run added.
    let Some(AgentEvent::AgentEnd { messages, .. }) = out.events.last() else {
        unreachable!()
    };
    assert_eq!(messages, &out.history);
}

/// `first` waits until `second` has finished: passes only if the calls run in
/// parallel, and then they finish in reverse order.
#[test]
fn parallel_calls_finish_in_reverse_but_results_keep_the_asked_order() {
    let second_done = Arc::new((Mutex::new(false), Condvar::new()));
    let (flag, flag2) = (second_done.clone(), second_done.clone());
    let first = FnTool::new("first", "{}", move |_, _| {
        let (lock, cond) = &*flag;
        let done = lock.lock().unwrap();
        let (done, timeout) = cond
            .wait_timeout_while(done, Duration::from_secs(5), |d| !*d)
            .unwrap();
        drop(done);
        if timeout.timed_out() {
            ToolOutput::error("second never finished: calls did not run in parallel")
        } else {
            ToolOutput::text("first done")
        }
    });
    let second = FnTool::new("second", "{}", move |_, _| {
        let (lock, cond) = &*flag2;
        *lock.lock().unwrap() = true;
        cond.notify_all();
        ToolOutput::text("second done")
    });
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::new()
            .call("a", "first", "{}")
            .call("b", "second", "{}"),
        Reply::text("done"),
    ]));
    let out = run(
        config(&provider, vec![Arc::new(first), Arc::new(second)]),
        Vec::new(),
        vec![user("go")],
    );
    assert_eq!(out.reason, EndReason::Completed);
    let res = results(&out.history);
    assert_eq!(text_of(res[0]), "first done");
    assert_eq!(
        (res[0].tool_call_id.as_str(), res[1].tool_call_id.as_str()),
        ("a", "b")
    );
    // (tool_execution_end follows completion order, but "a" may be woken and report
    // before "b" has sent its own end event, so that order is not asserted.)
    let ends = out
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolExecutionEnd { .. }))
        .count();
    assert_eq!(ends, 2);
}

#[test]
fn a_call_that_must_run_alone_makes_the_batch_sequential() {
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (r, m) = (running.clone(), most.clone());
    let busy = move |_: &focus_core::json::Value, _: &focus_core::tool::ToolContext<'_>| {
        let now = r.fetch_add(1, Ordering::SeqCst) + 1;
        m.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(5));
        r.fetch_sub(1, Ordering::SeqCst);
        ToolOutput::text("ok")
    };
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::new()
            .call("1", "busy", "{}")
            .call("2", "solo", "{}")
            .call("3", "busy", "{}"),
        Reply::text("done"),
    ]));
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(FnTool::new("busy", "{}", busy.clone())),
        Arc::new(FnTool::new("solo", "{}", busy).alone()),
    ];
    let out = run(config(&provider, tools), Vec::new(), vec![user("go")]);
    assert_eq!(out.reason, EndReason::Completed);
    assert_eq!(results(&out.history).len(), 3);
    assert_eq!(most.load(Ordering::SeqCst), 1, "calls overlapped");
}

#[test]
fn invalid_arguments_unknown_tools_panics_and_errors_become_results() {
    let executed = Arc::new(AtomicUsize::new(0));
    let seen = executed.clone();
    let echo = FnTool::new(
        "echo",
        r#"{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}"#,
        move |args, _| {
            seen.fetch_add(1, Ordering::SeqCst);
            ToolOutput::text(args["text"].as_str().unwrap_or_default())
        },
    );
    let boom = FnTool::new("boom", "{}", |_, _| panic!("boom went the tool"));
    let fails = FnTool::new("fails", "{}", |_, _| ToolOutput::error("disk full"));
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::new()
            .call("1", "echo", r#"{"text":5}"#)
            .call("2", "nope", "{}")
            .call("3", "boom", "{}")
            .call("4", "fails", "{}")
            .call("5", "echo", r#"{"text":"fine"}"#),
        Reply::text("noted"),
    ]));
    let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(echo), Arc::new(boom), Arc::new(fails)];
    let out = run(config(&provider, tools), Vec::new(), vec![user("go")]);
    assert_eq!(out.reason, EndReason::Completed);
    let res = results(&out.history);
    let texts: Vec<String> = res.iter().map(|r| text_of(r)).collect();
    assert!(
        texts[0].contains("arguments.text: expected string, found number"),
        "{}",
        texts[0]
    );
    assert!(
        texts[0].contains(r#"Received arguments: {"text":5}"#),
        "{}",
        texts[0]
    );
    assert_eq!(
        texts[1],
        r#"Tool "nope" not found. Available tools: echo, boom, fails."#
    );
    assert!(
        texts[2].contains("crashed (panic: boom went the tool)"),
        "{}",
        texts[2]
    );
    assert_eq!(texts[3], "disk full");
    assert_eq!(texts[4], "fine");
    let errors: Vec<bool> = res.iter().map(|r| r.is_error).collect();
    assert_eq!(errors, [true, true, true, true, false]);
    assert_eq!(
        executed.load(Ordering::SeqCst),
        1,
        "invalid call must not run"
    );
}

#[test]
fn steering_arrives_after_the_whole_tool_batch_and_before_the_next_call() {
    let handle = AgentHandle::new();
    let steerer = handle.clone();
    let steer = FnTool::new("steer", "{}", move |_, _| {
        steerer.steer(user("also do Y"));
        ToolOutput::text("steered")
    });
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::new()
            .call("1", "steer", "{}")
            .call("2", "echo", r#"{"text":"still ran"}"#),
        Reply::text("ok, doing Y too"),
    ]));
    let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(steer), Arc::new(FnTool::echo())];
    let cfg = config(&provider, tools);
    let out = run_here(&cfg, &handle, "do X");
    assert_eq!(out.reason, EndReason::Completed);
    assert_eq!(
        roles(&out.history),
        [
            "user",
            "assistant",
            "toolResult",
            "toolResult",
            "user",
            "assistant"
        ]
    );
    assert_eq!(text_of(results(&out.history)[1]), "still ran");
    let second = &provider.requests()[1];
    assert_eq!(second.messages.last(), Some(&user("also do Y")));
}

#[test]
fn follow_ups_wait_until_the_agent_would_stop() {
    let handle = AgentHandle::new();
    handle.follow_up(user("and then Z"));
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("1", "echo", r#"{"text":"x"}"#),
        Reply::text("X done"),
        Reply::text("Z done"),
    ]));
    let cfg = config(&provider, vec![Arc::new(FnTool::echo())]);
    let out = run_here(&cfg, &handle, "do X");
    assert_eq!(out.reason, EndReason::Completed);
    assert_eq!(
        roles(&out.history),
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "user",
            "assistant"
        ]
    );
    assert_eq!(out.history[4], user("and then Z"));
    assert!(handle.drain_queued().is_empty());
}

fn wait_for(
    events: &focus_core::agent::EventReceiver,
    seen: &mut Vec<AgentEvent>,
    what: fn(&AgentEvent) -> bool,
) {
    loop {
        let event = events
            .recv_timeout(Duration::from_secs(5))
            .expect("the awaited event never came");
        let hit = what(&event);
        seen.push(event);
        if hit {
            return;
        }
    }
}

/// Aborts once `trigger` is seen; returns the outcome and how long the abort took
/// to hand control back (AgentEnd received).
fn abort_when(config: AgentConfig, trigger: fn(&AgentEvent) -> bool) -> (Outcome, Duration) {
    let run = spawn_agent(config, Vec::new(), vec![user("go")]);
    let mut seen = Vec::new();
    wait_for(&run.events, &mut seen, trigger);
    let started = Instant::now();
    run.handle.abort();
    wait_for(&run.events, &mut seen, |e| {
        matches!(e, AgentEvent::AgentEnd { .. })
    });
    let took = started.elapsed();
    assert!(!run.handle.is_running());
    seen.extend(run.events.try_iter());
    let history = run.join();
    (finish(seen, history), took)
}

#[test]
fn abort_during_the_stream_keeps_the_partial_message() {
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::new()
        .say("I was about to")
        .call("c1", "echo", r#"{"text":"never"}"#)
        .hang()]));
    // Abort once the call is complete in the partial message (the provider then hangs).
    let (out, took) = abort_when(config(&provider, vec![Arc::new(FnTool::echo())]), |e| {
        matches!(
            e,
            AgentEvent::MessageUpdate {
                event: focus_core::provider::StreamEvent::ToolCallEnd { .. },
                ..
            }
        )
    });
    println!("abort during stream returned control in {took:?}");
    assert!(took < Duration::from_secs(2));
    assert_eq!(out.reason, EndReason::Aborted);
    let assistant = out.history[1].as_assistant().unwrap();
    assert_eq!(assistant.stop_reason, StopReason::Aborted);
    assert_eq!(assistant.text(), "I was about to");
    // The complete call in the partial message is answered, not run.
    let res = results(&out.history);
    assert_eq!(res.len(), 1);
    assert!(text_of(res[0]).contains("not executed: the user aborted"));
}

fn slow_tool(name: &str) -> FnTool {
    FnTool::new(name, "{}", |_, ctx| {
        (ctx.on_update)(ToolOutput::text("working…"));
        if wait_for_cancel(ctx.cancel, Some(Duration::from_secs(30))) {
            ToolOutput::error("cancelled")
        } else {
            ToolOutput::text("finished")
        }
    })
}

#[test]
fn abort_during_slow_parallel_tools_returns_promptly() {
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::new()
        .call("a", "slow", "{}")
        .call("b", "slow2", "{}")]));
    let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(slow_tool("slow")), Arc::new(slow_tool("slow2"))];
    let (out, took) = abort_when(config(&provider, tools), |e| {
        matches!(e, AgentEvent::ToolExecutionUpdate { .. })
    });
    println!("abort during a slow tool returned control in {took:?}");
    assert!(took < Duration::from_secs(2));
    assert_eq!(out.reason, EndReason::Aborted);
    let texts: Vec<String> = results(&out.history).iter().map(|r| text_of(r)).collect();
    assert_eq!(texts, ["cancelled", "cancelled"]);
    assert_eq!(provider.requests().len(), 1, "no model call after an abort");
}

#[test]
fn abort_in_a_sequential_batch_does_not_start_the_remaining_calls() {
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::new()
        .call("a", "slow", "{}")
        .call("b", "echo", r#"{"text":"never"}"#)]));
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(slow_tool("slow").alone()),
        Arc::new(FnTool::echo()),
    ];
    let (out, _) = abort_when(config(&provider, tools), |e| {
        matches!(e, AgentEvent::ToolExecutionUpdate { .. })
    });
    assert_eq!(out.reason, EndReason::Aborted);
    let texts: Vec<String> = results(&out.history).iter().map(|r| text_of(r)).collect();
    assert_eq!(texts[0], "cancelled");
    assert!(texts[1].starts_with("Aborted by the user"), "{}", texts[1]);
}

#[test]
fn the_turn_limit_ends_the_run_with_a_clear_reason() {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("1", "echo", r#"{"text":"a"}"#),
        Reply::tool_call("2", "echo", r#"{"text":"b"}"#),
        Reply::tool_call("3", "echo", r#"{"text":"c"}"#),
    ]));
    let mut cfg = config(&provider, vec![Arc::new(FnTool::echo())]);
    cfg.max_turns = 2;
    let out = run(cfg, Vec::new(), vec![user("loop")]);
    assert_eq!(out.reason, EndReason::TurnLimit(2));
    assert_eq!(provider.requests().len(), 2);
    assert_eq!(out.history.last().unwrap().role(), "toolResult");
}

#[test]
fn the_breaker_trips_after_consecutive_all_failed_turns_only() {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("1", "missing", "{}"),
        Reply::tool_call("2", "echo", r#"{"text":"ok"}"#), // a success resets
        Reply::tool_call("3", "missing", "{}"),
        Reply::tool_call("4", "echo", "{}"), // invalid arguments: a failure too
        Reply::tool_call("5", "missing", "{}"),
        Reply::text("never reached"),
    ]));
    let mut cfg = config(&provider, vec![Arc::new(FnTool::echo())]);
    cfg.max_failed_turns = 3;
    let out = run(cfg, Vec::new(), vec![user("go")]);
    assert_eq!(out.reason, EndReason::CircuitBreaker(3));
    assert_eq!(provider.requests().len(), 5);
    assert_eq!(provider.remaining(), 1);
}

struct Gate;
impl ToolGate for Gate {
    fn before_call(&self, call: &ToolCall, _: &dyn Tool, _: &AssistantMessage) -> GateDecision {
        if call.arguments["text"].as_str() == Some("rm -rf") {
            GateDecision::Block("Blocked: the user denied this call.".into())
        } else {
            GateDecision::Allow
        }
    }
    fn after_call(&self, _: &ToolCall, _: &dyn Tool, output: ToolOutput) -> ToolOutput {
        ToolOutput::text(format!("[checked] {}", output.text_content()))
    }
}

#[test]
fn the_gate_blocks_and_replaces() {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::new().call("1", "echo", r#"{"text":"rm -rf"}"#).call(
            "2",
            "echo",
            r#"{"text":"ls"}"#,
        ),
        Reply::text("ok"),
    ]));
    let mut cfg = config(&provider, vec![Arc::new(FnTool::echo())]);
    cfg.gate = Some(Arc::new(Gate));
    let out = run(cfg, Vec::new(), vec![user("go")]);
    let res = results(&out.history);
    assert_eq!(text_of(res[0]), "Blocked: the user denied this call.");
    assert!(res[0].is_error);
    assert_eq!(text_of(res[1]), "[checked] ls");
}

#[test]
fn continue_runs_on_a_history_ending_with_results_and_refuses_after_an_assistant() {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("1", "echo", r#"{"text":"a"}"#).fail("overloaded"),
        Reply::text("recovered"),
    ]));
    let cfg = config(&provider, vec![Arc::new(FnTool::echo())]);
    let first = run(cfg.clone(), Vec::new(), vec![user("go")]);
    assert_eq!(first.reason, EndReason::Error("overloaded".into()));
    let failed = first.history[1].as_assistant().unwrap();
    assert_eq!(failed.stop_reason, StopReason::Error);
    // The partial call of the failed message is answered, so the history is valid.
    assert!(text_of(results(&first.history)[0]).contains("response failed"));
    // Retry: continue from a history that ends with a tool result.
    let again = run(cfg.clone(), first.history.clone(), Vec::new());
    assert_eq!(again.reason, EndReason::Completed);
    assert_eq!(
        again.history.last().unwrap().as_assistant().unwrap().text(),
        "recovered"
    );
    assert_eq!(provider.requests()[1].messages, first.history);
    // Refused: the history ends with an assistant message, and an empty one.
    let refused = run(cfg.clone(), again.history.clone(), Vec::new());
    assert!(
        matches!(&refused.reason, EndReason::Error(m) if m.contains("ends with an assistant message"))
    );
    assert_eq!(refused.history, again.history);
    let empty = run(cfg, Vec::new(), Vec::new());
    assert!(matches!(&empty.reason, EndReason::Error(m) if m.contains("empty")));
    assert_eq!(
        provider.requests().len(),
        2,
        "a refused continue calls no model"
    );
}

#[test]
fn length_with_tool_calls_answers_them_unexecuted_and_goes_on() {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("1", "echo", r#"{"text":"a very long"#).stop(StopReason::Length),
        Reply::text("shorter now"),
    ]));
    let executed = Arc::new(AtomicUsize::new(0));
    let seen = executed.clone();
    let echo = FnTool::new("echo", "{}", move |_, _| {
        seen.fetch_add(1, Ordering::SeqCst);
        ToolOutput::text("ran")
    });
    let out = run(
        config(&provider, vec![Arc::new(echo)]),
        Vec::new(),
        vec![user("go")],
    );
    assert_eq!(out.reason, EndReason::Completed);
    assert_eq!(executed.load(Ordering::SeqCst), 0);
    let text = text_of(results(&out.history)[0]);
    assert!(text.contains("output token limit"), "{text}");
}

#[test]
fn context_hooks_shape_what_the_model_sees_but_not_the_history() {
    let custom = Message::Custom(CustomMessage {
        role: "bashExecution".into(),
        raw: focus_core::json_object! { "role" => "bashExecution", "command" => "ls" },
    });
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::text("a"),
        Reply::text("b"),
    ]));
    let history = vec![user("old"), custom.clone()];
    // Default conversion drops the custom message.
    let out = run(
        config(&provider, vec![]),
        history.clone(),
        vec![user("new")],
    );
    assert_eq!(out.history.len(), 4);
    assert_eq!(provider.requests()[0].messages, [user("old"), user("new")]);
    // transform_context prunes the view (keep the last message only).
    let mut cfg = config(&provider, vec![]);
    cfg.transform_context = Some(Arc::new(|messages: Vec<Message>, _: &_, _: &_| {
        messages.into_iter().rev().take(1).collect()
    }));
    let out = run(cfg, history, vec![user("newest")]);
    assert_eq!(provider.requests()[1].messages, [user("newest")]);
    assert_eq!(out.history.len(), 4, "the stored history is untouched");
}

struct PanickyProvider(focus_core::provider::ModelInfo);
impl focus_core::provider::Provider for PanickyProvider {
    fn model(&self) -> &focus_core::provider::ModelInfo {
        &self.0
    }
    fn stream(
        &self,
        _: &focus_core::provider::ModelRequest<'_>,
        _: &mut focus_core::provider::StreamSink<'_>,
    ) -> AssistantMessage {
        panic!("provider bug")
    }
}

#[test]
fn a_panicking_provider_ends_the_run_with_an_error_not_a_crash() {
    let cfg = AgentConfig::new(Arc::new(PanickyProvider(Default::default())));
    let out = run(cfg, Vec::new(), vec![user("go")]);
    assert!(
        matches!(&out.reason, EndReason::Error(m) if m.contains("provider bug")),
        "{:?}",
        out.reason
    );
    assert_eq!(roles(&out.history), ["user", "assistant"]);
}

#[test]
fn the_checkers_catch_broken_histories_and_event_streams() {
    let call = |id: &str| {
        Content::ToolCall(ToolCall {
            id: id.into(),
            name: "echo".into(),
            arguments: focus_core::json_object! {},
            thought_signature: None,
            invalid_arguments: None,
        })
    };
    let asst = Message::Assistant(AssistantMessage {
        content: vec![call("a"), call("b")],
        ..Default::default()
    });
    let result = |id: &str| {
        Message::ToolResult(ToolResultMessage {
            tool_call_id: id.into(),
            tool_name: "echo".into(),
            content: vec![],
            details: focus_core::json::Value::Null,
            is_error: false,
            timestamp: 0,
        })
    };
    assert!(check_history(&[user("x"), asst.clone(), result("a"), result("b")]).is_ok());
    let swapped = check_history(&[asst.clone(), result("b"), result("a")]).unwrap_err();
    assert!(
        swapped.contains("messages[1]") && swapped.contains(r#""a""#),
        "{swapped}"
    );
    let missing = check_history(&[asst.clone(), result("a")]).unwrap_err();
    assert!(missing.contains("ends before call \"b\""), "{missing}");
    let interrupted =
        check_history(&[asst.clone(), result("a"), user("hi"), result("b")]).unwrap_err();
    assert!(interrupted.contains("user message before"), "{interrupted}");
    assert!(check_history(&[result("z")])
        .unwrap_err()
        .contains("no pending"));

    let update = AgentEvent::MessageUpdate {
        event: focus_core::provider::StreamEvent::Start,
        block: None,
    };
    let end = AgentEvent::AgentEnd {
        messages: vec![],
        reason: EndReason::Completed,
    };
    let bad = [
        AgentEvent::AgentStart,
        AgentEvent::TurnStart,
        update,
        AgentEvent::TurnEnd {
            message: AssistantMessage::default(),
            tool_results: vec![],
        },
        end.clone(),
    ];
    assert!(check_event_grammar(&bad).unwrap_err().contains("events[2]"));
    let open_tool = [
        AgentEvent::AgentStart,
        AgentEvent::TurnStart,
        AgentEvent::ToolExecutionStart {
            call_id: "a".into(),
            tool_name: "echo".into(),
            args: focus_core::json::Value::Null,
        },
        AgentEvent::TurnEnd {
            message: AssistantMessage::default(),
            tool_results: vec![],
        },
        end,
    ];
    assert!(check_event_grammar(&open_tool)
        .unwrap_err()
        .contains("still running"));
}

fn call_content(id: &str) -> Content {
    Content::ToolCall(ToolCall {
        id: id.into(),
        name: "echo".into(),
        arguments: focus_core::json_object! { "text" => "x" },
        thought_signature: None,
        invalid_arguments: None,
    })
}

fn result_for(id: &str, text: &str) -> Message {
    Message::ToolResult(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "echo".into(),
        content: vec![Content::text(text)],
        details: focus_core::json::Value::Null,
        is_error: false,
        timestamp: 0,
    })
}

#[test]
fn a_loaded_history_with_unanswered_calls_is_repaired_in_what_the_model_sees() {
    // As pi leaves it: an aborted message whose call was never answered, then a user
    // message; and a later message whose results came back out of order.
    let aborted = Message::Assistant(AssistantMessage {
        content: vec![call_content("a")],
        stop_reason: StopReason::Aborted,
        ..Default::default()
    });
    let two = Message::Assistant(AssistantMessage {
        content: vec![call_content("b"), call_content("c")],
        stop_reason: StopReason::ToolUse,
        ..Default::default()
    });
    let loaded = vec![
        user("one"),
        aborted.clone(),
        user("two"),
        two.clone(),
        result_for("c", "C"),
        result_for("b", "B"),
        result_for("zz", "stray"),
    ];
    assert!(check_history(&loaded).is_err());
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::text("fine")]));
    let run = spawn_agent(
        config(&provider, vec![]),
        loaded.clone(),
        vec![user("three")],
    );
    let events: Vec<AgentEvent> = run.events.iter().collect();
    let history = run.join();
    check_event_grammar(&events).unwrap();
    assert_eq!(
        history[..loaded.len()],
        loaded[..],
        "the stored history is not rewritten"
    );
    assert!(
        provider.violations().is_empty(),
        "{:?}",
        provider.violations()
    );
    let sent = &provider.requests()[0].messages;
    let no_result = match &sent[2] {
        Message::ToolResult(r) => (r.tool_call_id.as_str(), text_of(r), r.is_error),
        other => panic!("expected a synthesized result, got {other:?}"),
    };
    assert_eq!(no_result, ("a", "No result provided.".to_string(), true));
    assert_eq!(sent[5], result_for("b", "B"));
    assert_eq!(sent[6], result_for("c", "C"));
    assert_eq!(sent.len(), 8, "the stray result is dropped");
}

#[test]
fn a_panicking_transform_ends_the_run_with_an_error() {
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::text("unused")]));
    let mut cfg = config(&provider, vec![]);
    cfg.transform_context = Some(Arc::new(|_: Vec<Message>, _: &_, _: &_| {
        panic!("compaction bug")
    }));
    let out = run(cfg, Vec::new(), vec![user("go")]);
    assert!(matches!(&out.reason, EndReason::Error(m) if m.contains("compaction bug")));
    assert_eq!(provider.remaining(), 1, "the model was not called");
    let failed = out.history[1].as_assistant().unwrap();
    assert_eq!(failed.stop_reason, StopReason::Error);
}

#[test]
fn the_loop_never_needs_repair_on_its_own_histories() {
    // repair_history is the identity on well-formed histories.
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::new()
            .call("1", "echo", r#"{"text":"a"}"#)
            .call("2", "echo", "{}"),
        Reply::text("done"),
    ]));
    let out = run(
        config(&provider, vec![Arc::new(FnTool::echo())]),
        Vec::new(),
        vec![user("go")],
    );
    assert_eq!(focus_core::agent::repair_history(&out.history), out.history);
}

#[test]
fn abort_mid_text_keeps_what_was_streamed() {
    let long = "word ".repeat(200);
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::text(&long).piece_delay(Duration::from_millis(2))
    ]));
    let (out, took) = abort_when(config(&provider, vec![]), |e| {
        matches!(
            e,
            AgentEvent::MessageUpdate {
                event: focus_core::provider::StreamEvent::TextDelta { .. },
                ..
            }
        )
    });
    println!("abort mid-text returned control in {took:?}");
    assert!(took < Duration::from_secs(2));
    assert_eq!(out.reason, EndReason::Aborted);
    let kept = out.history[1].as_assistant().unwrap().text();
    assert!(
        !kept.is_empty() && kept.len() < long.len(),
        "kept {} bytes",
        kept.len()
    );
}

#[test]
fn huge_invalid_arguments_are_not_echoed_whole() {
    let items = vec![r#""aaaaaaaaaa""#; 300].join(",");
    let big = format!(r#"{{"text":[{items}]}}"#);
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("1", "echo", &big),
        Reply::text("ok"),
    ]));
    let out = run(
        config(&provider, vec![Arc::new(FnTool::echo())]),
        Vec::new(),
        vec![user("go")],
    );
    let text = text_of(results(&out.history)[0]);
    assert!(
        text.contains("arguments.text: expected string, found array"),
        "{}",
        &text[..200]
    );
    assert!(
        text.len() < 3_000 && text.contains("more bytes)"),
        "{} bytes",
        text.len()
    );
}

#[test]
fn undelivered_messages_stay_queued_for_the_caller() {
    // Turn limit with steering waiting: the steering message is not lost.
    let handle = AgentHandle::new();
    let steerer = handle.clone();
    let steer = FnTool::new("steer", "{}", move |_, _| {
        steerer.steer(user("late steering"));
        ToolOutput::text("ok")
    });
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::tool_call(
        "1", "steer", "{}",
    )]));
    let mut cfg = config(&provider, vec![Arc::new(steer)]);
    cfg.max_turns = 1;
    handle.follow_up(user("later"));
    let out = run_here(&cfg, &handle, "go");
    assert_eq!(out.reason, EndReason::TurnLimit(1));
    assert_eq!(
        handle.drain_queued(),
        [user("late steering"), user("later")]
    );
    assert!(handle.drain_queued().is_empty());

    // Aborted before it began: the prompt is handed back, nothing is sent.
    let handle = AgentHandle::new();
    handle.abort();
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::text("unused")]));
    let out = run_here(&config(&provider, vec![]), &handle, "go");
    assert_eq!(out.reason, EndReason::Aborted);
    assert!(out.history.is_empty());
    assert_eq!(handle.drain_queued(), [user("go")]);
    assert_eq!(provider.remaining(), 1);
}

#[test]
fn the_system_prompt_is_rebuilt_before_every_model_call() {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::new().call("c1", "echo", r#"{"text":"x"}"#),
        Reply::text("done"),
    ]));
    let mut cfg = config(&provider, vec![Arc::new(FnTool::echo())]);
    let built = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = built.clone();
    cfg.system_prompt = "never sent".into();
    cfg.system_prompt_source = Some(Arc::new(move || {
        let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        format!("prompt #{n}")
    }));
    let run = spawn_agent(cfg, Vec::new(), vec![user("go")]);
    let _: Vec<AgentEvent> = run.events.iter().collect();
    run.join();
    let prompts: Vec<String> = provider
        .requests()
        .into_iter()
        .map(|r| r.system_prompt)
        .collect();
    assert_eq!(prompts, ["prompt #1", "prompt #2"]);
}

/// Prompt hooks for the tests: refuse prompts containing `secret`, add `ctx` to
/// the others, and ask to go on at every stop (counting the calls).
struct TestPromptHooks {
    stops: AtomicUsize,
}

impl focus_core::agent::PromptHooks for TestPromptHooks {
    fn before_prompt(&self, prompt: &Message) -> Result<Option<String>, String> {
        let text = match prompt {
            Message::User(u) => u.content.iter().filter_map(Content::as_text).collect(),
            _ => String::new(),
        };
        if text.contains("secret") {
            return Err("no secrets".into());
        }
        Ok(Some("ctx".into()))
    }

    fn before_stop(&self, _history: &[Message], continuations: u32) -> Option<String> {
        assert_eq!(
            self.stops.fetch_add(1, Ordering::SeqCst),
            continuations as usize
        );
        Some(format!("keep going {continuations}"))
    }
}

#[test]
fn prompt_hooks_refuse_add_context_and_keep_going_at_most_three_times() {
    let hooks = Arc::new(TestPromptHooks {
        stops: AtomicUsize::new(0),
    });
    // Refused: nothing reaches the provider.
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::text("never")]));
    let mut cfg = config(&provider, vec![]);
    cfg.prompt_hooks = Some(hooks.clone());
    let out = run(cfg, vec![], vec![user("my secret")]);
    assert_eq!(out.reason, EndReason::Error("no secrets".into()));
    assert!(provider.requests().is_empty());
    assert!(out.history.is_empty());
    assert_eq!(hooks.stops.load(Ordering::SeqCst), 0);

    // Allowed: the context is added; each stop goes on, three times at most.
    let provider = Arc::new(ScriptedProvider::new(
        (0..5).map(|i| Reply::text(&format!("a{i}"))).collect(),
    ));
    let mut cfg = config(&provider, vec![]);
    cfg.prompt_hooks = Some(hooks.clone());
    let out = run(cfg, vec![], vec![user("hello")]);
    // Asked a fourth time, the hook still says go on: the guard ends the run and
    // says why.
    assert_eq!(out.reason, EndReason::StopHookLimit(3));
    assert!(
        out.reason.to_string().contains("Stop hook"),
        "{}",
        out.reason
    );
    assert_eq!(provider.requests().len(), 4);
    assert_eq!(hooks.stops.load(Ordering::SeqCst), 4);
    let Message::User(first) = &out.history[0] else {
        panic!("not a user message")
    };
    let texts: Vec<&str> = first.content.iter().filter_map(Content::as_text).collect();
    assert_eq!(texts, ["hello", "ctx"]);
    assert_eq!(
        roles(&out.history),
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant"
        ]
    );
}

#[test]
fn follow_ups_are_delivered_all_at_once_or_one_at_a_time() {
    use focus_core::agent::QueueMode;
    for (mode, calls) in [(QueueMode::All, 2), (QueueMode::OneAtATime, 3)] {
        let provider = Arc::new(ScriptedProvider::new(vec![
            Reply::text("one"),
            Reply::text("two"),
            Reply::text("three"),
        ]));
        let mut cfg = config(&provider, vec![]);
        cfg.follow_up_mode = mode;
        let handle = AgentHandle::new();
        handle.follow_up(user("first follow-up"));
        handle.follow_up(user("second follow-up"));
        let history = run_agent(&cfg, Vec::new(), vec![user("go")], &handle, &|_| {});
        assert_eq!(provider.requests().len(), calls, "{mode:?}");
        // Every follow-up reached the model, in order.
        let texts: Vec<String> = history
            .iter()
            .filter_map(|m| match m {
                Message::User(u) => Some(u.content[0].as_text().unwrap_or("").to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(
            texts,
            ["go", "first follow-up", "second follow-up"],
            "{mode:?}"
        );
    }
}
