//! A response with many tool calls runs them in waves of at most
//! `MAX_PARALLEL_TOOLS` threads, and still answers each call in the order asked.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use focus_core::agent::execute::MAX_PARALLEL_TOOLS;
use focus_core::agent::{check_history, spawn_agent, AgentConfig};
use focus_core::message::{Message, UserMessage};
use focus_core::tool::ToolOutput;
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};

#[test]
fn many_calls_run_in_bounded_waves_in_order() {
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (now, peak) = (running.clone(), most.clone());
    let tool = FnTool::new("slow", "{}", move |_, _| {
        let current = now.fetch_add(1, Ordering::SeqCst) + 1;
        peak.fetch_max(current, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(5));
        now.fetch_sub(1, Ordering::SeqCst);
        ToolOutput::text("ok")
    });
    let calls = 3 * MAX_PARALLEL_TOOLS + 5;
    let mut reply = Reply::new();
    for i in 0..calls {
        reply = reply.call(&format!("call_{i}"), "slow", "{}");
    }
    let provider = Arc::new(ScriptedProvider::new(vec![reply, Reply::text("done")]));
    let mut config = AgentConfig::new(provider);
    config.tools = vec![Arc::new(tool)];
    let run = spawn_agent(
        config,
        Vec::new(),
        vec![Message::User(UserMessage::text("go", 0))],
    );
    let _events: Vec<_> = run.events.iter().collect();
    let history = run.join();
    check_history(&history).unwrap();
    let ids: Vec<&str> = history
        .iter()
        .filter_map(|m| match m {
            Message::ToolResult(r) => Some(r.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    let expected: Vec<String> = (0..calls).map(|i| format!("call_{i}")).collect();
    assert_eq!(ids, expected.iter().map(String::as_str).collect::<Vec<_>>());
    let peak = most.load(Ordering::SeqCst);
    assert!(peak <= MAX_PARALLEL_TOOLS, "{peak} calls ran at once");
    assert!(peak > 1, "the calls did not run in parallel at all");
}
