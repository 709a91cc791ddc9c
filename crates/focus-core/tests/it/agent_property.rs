//! Property-style test: 10,000 random scripted runs (random replies, tool mixes,
//! provider errors, token-limit stops, panics, steering, follow-ups, gates, limits,
//! continues and aborts at random points), checking after every run that the event
//! grammar and the history invariant hold, that every request the provider saw was
//! well-formed (even behind a transform that drops a random message), and that
//! `AgentEnd` lists exactly what the run added.
//!
//! Seeded and deterministic: aborts are triggered from inside the script (the
//! provider or a tool cancels the token at a chosen point), not by timing. A failure
//! prints the run's seed; rerun one with `FOCUS_AGENT_SEED=<seed> FOCUS_AGENT_RUNS=1`.

use focus_testkit::rng::Rng;
use std::sync::mpsc;
use std::sync::Arc;

use focus_core::agent::{check_event_grammar, check_history, run_agent, AgentConfig, AgentHandle};
use focus_core::event::{AgentEvent, EndReason};
use focus_core::message::{AssistantMessage, Message, StopReason, ToolCall, UserMessage};
use focus_core::tool::{GateDecision, Tool, ToolGate, ToolOutput};
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};

fn user(text: &str) -> Message {
    Message::User(UserMessage::text(text, 1))
}

struct BlockSome;
impl ToolGate for BlockSome {
    fn before_call(&self, call: &ToolCall, _: &dyn Tool, _: &AssistantMessage) -> GateDecision {
        match call.arguments["text"].as_str() {
            Some("block") => GateDecision::Block("blocked by policy".into()),
            _ => GateDecision::Allow,
        }
    }
    fn after_call(&self, _: &ToolCall, _: &dyn Tool, output: ToolOutput) -> ToolOutput {
        output
    }
}

fn tools(handle: &AgentHandle) -> Vec<Arc<dyn Tool>> {
    let steerer = handle.clone();
    vec![
        Arc::new(FnTool::echo()),
        Arc::new(FnTool::new("fail", "{}", |_, _| {
            ToolOutput::error("failed")
        })),
        Arc::new(FnTool::new("boom", "{}", |_, _| panic!("boom"))),
        Arc::new(FnTool::new("alone", "{}", |_, _| ToolOutput::text("alone")).alone()),
        Arc::new(FnTool::new("steer", "{}", move |_, _| {
            steerer.steer(user("steered"));
            ToolOutput::text("steered")
        })),
        // The user aborts while this tool runs.
        Arc::new(FnTool::new("abort", "{}", |_, ctx| {
            ctx.cancel.cancel();
            (ctx.on_update)(ToolOutput::text("stopping"));
            ToolOutput::error("cancelled")
        })),
    ]
}

const NAMES: [&str; 8] = [
    "echo", "fail", "boom", "alone", "steer", "abort", "nope", "echo",
];

fn random_reply(rng: &mut Rng, call_no: &mut u32) -> Reply {
    let mut reply = Reply::new();
    if rng.chance(30) {
        reply = reply.think("hmm");
    }
    if rng.chance(60) {
        reply = reply.say("some text");
    }
    for _ in 0..rng.below_u64(4) {
        *call_no += 1;
        let id = format!("call_{call_no}");
        let name = NAMES[rng.below_u64(NAMES.len() as u64) as usize];
        let args = match rng.below_u64(5) {
            0 => r#"{"text":5}"#, // invalid for echo
            1 => r#"{"text":"block"}"#,
            2 => r#"{"text":"#, // cut off: parsed leniently
            _ => r#"{"text":"hello"}"#,
        };
        reply = reply.call(&id, name, args);
        if rng.chance(4) {
            reply = reply.abort_here();
        }
    }
    match rng.below_u64(20) {
        0 | 1 => reply.stop(StopReason::Length),
        2 | 3 => reply.fail("server error"),
        4 => reply.abort_here(),
        _ => reply,
    }
}

fn one_run(seed: u64) -> Result<&'static str, String> {
    // Seeds are small numbers: spread them over the state's bits first.
    let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let handle = AgentHandle::new();
    let mut call_no = 0;
    let replies: Vec<Reply> = (0..1 + rng.below_u64(6))
        .map(|_| random_reply(&mut rng, &mut call_no))
        .collect();
    let provider = Arc::new(ScriptedProvider::new(replies));
    let mut config = AgentConfig::new(provider.clone());
    config.tools = tools(&handle);
    config.max_turns = rng.below_u64(5) as usize;
    config.max_failed_turns = rng.below_u64(3) as usize;
    if rng.chance(30) {
        config.gate = Some(Arc::new(BlockSome));
    }
    if rng.chance(10) {
        // A careless transform that drops one message from the view: the view
        // repair must still hand the provider a well-formed history.
        let victim = rng.next_u64();
        config.transform_context = Some(Arc::new(move |mut view: Vec<Message>, _: &_, _: &_| {
            if !view.is_empty() {
                let at = (victim % view.len() as u64) as usize;
                view.remove(at);
            }
            view
        }));
    }
    for _ in 0..rng.below_u64(3) {
        handle.follow_up(user("follow-up"));
    }
    let (history, prompts) = match rng.below_u64(10) {
        0 => (vec![user("earlier")], Vec::new()), // continue
        1 => (Vec::new(), Vec::new()),            // continue refused: empty
        _ => (Vec::new(), vec![user("go")]),
    };
    let initial = history.clone();
    let (sender, receiver) = mpsc::channel();
    let history = run_agent(&config, history, prompts, &handle, &|e| {
        let _ = sender.send(e);
    });
    drop(sender);
    let events: Vec<AgentEvent> = receiver.iter().collect();
    check_event_grammar(&events).map_err(|e| format!("event grammar: {e}"))?;
    check_history(&history).map_err(|e| format!("history: {e}"))?;
    if let Some(problem) = provider.violations().first() {
        return Err(format!("the provider received a bad history: {problem}"));
    }
    let Some(AgentEvent::AgentEnd { messages, reason }) = events.last() else {
        return Err("no AgentEnd".into());
    };
    if history[..initial.len()] != initial[..] || history[initial.len()..] != messages[..] {
        return Err("AgentEnd.messages is not what the run appended".into());
    }
    if *reason == EndReason::Completed {
        let last = history.last().and_then(Message::as_assistant);
        if !last.is_some_and(|m| m.tool_calls().next().is_none()) {
            return Err("completed, but the last message is not a final answer".into());
        }
    }
    if handle.is_running() {
        return Err("still running after AgentEnd".into());
    }
    Ok(reason.as_str())
}

#[test]
fn ten_thousand_random_runs_keep_both_invariants() {
    let base: u64 = std::env::var("FOCUS_AGENT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_F0C5);
    let runs: u64 = std::env::var("FOCUS_AGENT_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    // Panicking tools are part of the mix; keep their messages off the test output.
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let mut endings = std::collections::BTreeMap::new();
    for i in 0..runs {
        let seed = base.wrapping_add(i);
        match one_run(seed) {
            Ok(reason) => *endings.entry(reason).or_insert(0) += 1,
            Err(problem) => failures.push(format!("seed {seed}: {problem}")),
        }
    }
    let _ = std::panic::take_hook();
    println!("endings over {runs} runs: {endings:?}");
    if runs >= 1000 {
        // The generator must reach every way a run can end, or it proves little.
        for reason in [
            "completed",
            "aborted",
            "error",
            "turnLimit",
            "circuitBreaker",
        ] {
            assert!(
                endings.get(reason).copied().unwrap_or(0) > 10,
                "too few {reason} runs: {endings:?}"
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs broke an invariant (rerun one with FOCUS_AGENT_SEED=<seed> FOCUS_AGENT_RUNS=1):\n{}",
        failures.len(),
        failures.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}
