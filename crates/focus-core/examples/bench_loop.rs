//! Loop overhead per turn, excluding the provider and the tools.
//!
//! Runs prompts of `TURNS` turns (each a model call asking for one trivial tool
//! call, then a final answer) against an instant scripted provider, with a consumer
//! thread draining events as the CLI would. Then measures the scripted provider
//! and the tool alone for the same number of calls, and subtracts them.
//!
//! Each figure is the best of `REPEAT` repetitions (the least disturbed by other
//! processes on a shared machine).
//!
//! `cargo run --release -p focus-core --example bench_loop` (target: < 50 µs/turn).

use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use focus_core::agent::testing::{FnTool, Reply, ScriptedProvider};
use focus_core::agent::{run_agent, AgentConfig, AgentHandle};
use focus_core::cancel::CancelToken;
use focus_core::message::{Message, UserMessage};
use focus_core::provider::{ModelRequest, Provider, RequestOptions};
use focus_core::tool::{Tool, ToolContext, ToolOutput};

const TURNS: usize = 20;
const RUNS: usize = 1_000;
const REPEAT: usize = 5;

fn script(calls_per_turn: usize) -> Vec<Reply> {
    let mut replies: Vec<Reply> = (0..TURNS - 1)
        .map(|t| {
            (0..calls_per_turn).fold(Reply::new(), |r, c| {
                r.call(&format!("c{t}_{c}"), "noop", "{}")
            })
        })
        .collect();
    replies.push(Reply::text("done"));
    replies
}

fn noop() -> FnTool {
    FnTool::new("noop", r#"{"type":"object"}"#, |_, _| {
        ToolOutput::text("ok")
    })
}

/// Total time for `RUNS` prompts of `TURNS` turns each.
fn time_loop(calls_per_turn: usize) -> Duration {
    let providers: Vec<Arc<ScriptedProvider>> = (0..RUNS)
        .map(|_| Arc::new(ScriptedProvider::new(script(calls_per_turn)).without_recording()))
        .collect();
    let tool: Arc<dyn Tool> = Arc::new(noop());
    let (sender, events) = mpsc::channel();
    let consumer = std::thread::spawn(move || events.iter().count());
    let started = Instant::now();
    for provider in providers {
        let mut config = AgentConfig::new(provider);
        config.tools = vec![tool.clone()];
        let prompt = vec![Message::User(UserMessage::text("go", 1))];
        let history = run_agent(&config, Vec::new(), prompt, &AgentHandle::new(), &sender);
        assert_eq!(history.len(), 1 + TURNS + (TURNS - 1) * calls_per_turn);
    }
    drop(sender);
    let events = consumer.join().unwrap();
    let took = started.elapsed();
    assert!(events > RUNS * TURNS);
    took
}

/// Time for the scripted provider alone to stream the same replies.
fn time_provider(calls_per_turn: usize) -> Duration {
    let providers: Vec<ScriptedProvider> = (0..RUNS)
        .map(|_| ScriptedProvider::new(script(calls_per_turn)).without_recording())
        .collect();
    let history = vec![Message::User(UserMessage::text("go", 1))];
    let options = RequestOptions::default();
    let specs = [noop().spec()];
    let cancel = CancelToken::new();
    let started = Instant::now();
    for provider in &providers {
        for _ in 0..TURNS {
            let request = ModelRequest {
                system_prompt: "",
                messages: &history,
                tools: &specs,
                options: &options,
            };
            let message = provider.stream(&request, &cancel, &mut |_, _| {});
            std::hint::black_box(message);
        }
    }
    started.elapsed()
}

/// Time for the tool alone, called as often as in the loop.
fn time_tool(calls_per_turn: usize) -> Duration {
    let tool = noop();
    let cancel = CancelToken::new();
    let args = focus_core::json_object! {};
    let on_update = |_: ToolOutput| {};
    let started = Instant::now();
    for _ in 0..RUNS * (TURNS - 1) * calls_per_turn {
        let ctx = ToolContext {
            call_id: "c",
            cancel: &cancel,
            on_update: &on_update,
        };
        std::hint::black_box(tool.execute(&args, &ctx));
    }
    started.elapsed()
}

/// Time to spawn and join `threads` empty scoped threads per turn: the floor for a
/// parallel batch on this machine.
fn time_threads(threads: usize) -> Duration {
    let started = Instant::now();
    for _ in 0..RUNS * (TURNS - 1) {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| std::hint::black_box(1));
            }
        });
    }
    started.elapsed()
}

fn per_turn(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6 / (RUNS * TURNS) as f64
}

fn main() {
    println!(
        "bench_loop: {RUNS} prompts x {TURNS} turns (consumer thread draining events), best of {REPEAT}"
    );
    // The best of several repetitions: on a shared machine the minimum is the figure
    // least disturbed by other processes.
    let best = |f: &dyn Fn() -> Duration| (0..REPEAT).map(|_| f()).min().unwrap_or_default();
    for calls in [1, 4] {
        time_loop(calls); // warm-up
        let total = best(&|| time_loop(calls));
        let provider = best(&|| time_provider(calls));
        let tool = best(&|| time_tool(calls));
        let threads = if calls > 1 {
            time_threads(calls - 1)
        } else {
            Duration::ZERO
        };
        let overhead = per_turn(total) - per_turn(provider) - per_turn(tool);
        println!(
            "{calls} call(s)/turn: total {:.2} µs/turn, provider {:.2}, tool {:.2} => loop overhead {:.2} µs/turn",
            per_turn(total),
            per_turn(provider),
            per_turn(tool),
            overhead,
        );
        if calls > 1 {
            println!(
                "  of which spawning {} scoped threads (measured bare): {:.2} µs/turn => {:.2} µs/turn without them",
                calls - 1,
                per_turn(threads),
                overhead - per_turn(threads)
            );
        }
    }
}
