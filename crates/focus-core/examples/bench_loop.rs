//! Loop overhead per turn, excluding the provider and the tools.
//!
//! Runs prompts of `TURNS` turns (each a model call asking for trivial tool calls,
//! then a final answer) against an instant scripted provider, with a consumer
//! thread draining events as the CLI would. Then measures the scripted provider
//! and the tool alone for the same number of calls, and subtracts them.
//!
//! Two clocks: wall time, and the loop thread's on-CPU time (Linux
//! `/proc/thread-self/schedstat`), which leaves out time spent waiting for a core
//! on a busy machine. Each figure is the best of `REPEAT` repetitions.
//!
//! `cargo run --release -p focus-core --example bench_loop` (target: < 50 µs/turn).

use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use focus_core::agent::{run_agent, AgentConfig, AgentHandle};
use focus_core::cancel::CancelToken;
use focus_core::message::{Message, UserMessage};
use focus_core::provider::{ModelRequest, Provider, RequestOptions};
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};

const TURNS: usize = 20;
const RUNS: usize = 1_000;
const REPEAT: usize = 5;

/// One measurement: wall time and this thread's on-CPU time (when available).
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    cpu: Option<Duration>,
}

/// On-CPU time of the calling thread, from `/proc/thread-self/schedstat`.
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    (nanos > 0).then(|| Duration::from_nanos(nanos))
}

/// Measures `f` (which does its own setup before calling `start`).
fn measure(f: impl FnOnce(&mut dyn FnMut())) -> Sample {
    let mut start: Option<(Instant, Option<Duration>)> = None;
    f(&mut || start = Some((Instant::now(), thread_cpu())));
    let (wall, cpu) = start.expect("the benchmark never started its clock");
    Sample {
        wall: wall.elapsed(),
        cpu: cpu.zip(thread_cpu()).map(|(a, b)| b.saturating_sub(a)),
    }
}

/// The best (smallest) of `REPEAT` samples, per clock.
fn best(f: &dyn Fn() -> Sample) -> Sample {
    let samples: Vec<Sample> = (0..REPEAT).map(|_| f()).collect();
    Sample {
        wall: samples.iter().map(|s| s.wall).min().unwrap_or_default(),
        cpu: samples.iter().filter_map(|s| s.cpu).min(),
    }
}

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

/// `RUNS` prompts of `TURNS` turns each, through the loop.
fn time_loop(calls_per_turn: usize) -> Sample {
    measure(|start| {
        let providers: Vec<Arc<ScriptedProvider>> = (0..RUNS)
            .map(|_| Arc::new(ScriptedProvider::new(script(calls_per_turn)).without_recording()))
            .collect();
        let tool: Arc<dyn Tool> = Arc::new(noop());
        let (sender, events) = mpsc::channel();
        let consumer = std::thread::spawn(move || events.iter().count());
        start();
        for provider in providers {
            let mut config = AgentConfig::new(provider);
            config.tools = vec![tool.clone()];
            let prompt = vec![Message::User(UserMessage::text("go", 1))];
            let history = run_agent(&config, Vec::new(), prompt, &AgentHandle::new(), &|e| {
                let _ = sender.send(e);
            });
            assert_eq!(history.len(), 1 + TURNS + (TURNS - 1) * calls_per_turn);
        }
        drop(sender);
        assert!(consumer.join().unwrap() > RUNS * TURNS);
    })
}

/// The scripted provider alone, streaming the same replies.
fn time_provider(calls_per_turn: usize) -> Sample {
    measure(|start| {
        let providers: Vec<ScriptedProvider> = (0..RUNS)
            .map(|_| ScriptedProvider::new(script(calls_per_turn)).without_recording())
            .collect();
        let history = vec![Message::User(UserMessage::text("go", 1))];
        let options = RequestOptions::default();
        let specs = [noop().spec()];
        let cancel = CancelToken::new();
        start();
        for provider in &providers {
            for _ in 0..TURNS {
                let request = ModelRequest {
                    system_prompt: "",
                    messages: &history,
                    tools: &specs,
                    options: &options,
                    cancel: &cancel,
                };
                std::hint::black_box(provider.stream(&request, &mut |_, _| {}));
            }
        }
    })
}

/// The tool alone, called as often as in the loop.
fn time_tool(calls_per_turn: usize) -> Sample {
    measure(|start| {
        let tool = noop();
        let cancel = CancelToken::new();
        let args = focus_core::json_object! {};
        let on_update = |_: ToolOutput| {};
        start();
        for _ in 0..RUNS * (TURNS - 1) * calls_per_turn {
            let ctx = ToolContext {
                call_id: "c",
                cancel: &cancel,
                on_update: &on_update,
            };
            std::hint::black_box(tool.execute(&args, &ctx));
        }
    })
}

/// Spawning and joining `threads` empty scoped threads per turn: the floor for a
/// parallel batch on this machine (wall clock).
fn time_threads(threads: usize) -> Sample {
    measure(|start| {
        start();
        for _ in 0..RUNS * (TURNS - 1) {
            std::thread::scope(|scope| {
                for _ in 0..threads {
                    scope.spawn(|| std::hint::black_box(1));
                }
            });
        }
    })
}

fn per_turn(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6 / (RUNS * TURNS) as f64
}

fn main() {
    println!("bench_loop: {RUNS} prompts x {TURNS} turns, consumer thread draining events, best of {REPEAT}");
    for calls in [1, 4] {
        time_loop(calls); // warm-up
        let (total, provider, tool) = (
            best(&|| time_loop(calls)),
            best(&|| time_provider(calls)),
            best(&|| time_tool(calls)),
        );
        let overhead = |f: fn(&Sample) -> Option<Duration>| -> Option<f64> {
            Some(per_turn(f(&total)?) - per_turn(f(&provider)?) - per_turn(f(&tool)?))
        };
        let wall = overhead(|s| Some(s.wall)).unwrap_or_default();
        print!("{calls} call(s)/turn: loop overhead {wall:.2} µs/turn (wall)");
        match overhead(|s| s.cpu) {
            Some(cpu) if calls == 1 => println!(", {cpu:.2} µs/turn (on-CPU)"),
            _ => println!(),
        }
        if calls > 1 {
            let threads = per_turn(best(&|| time_threads(calls - 1)).wall);
            println!(
                "  of which spawning {} scoped threads (measured bare): {threads:.2} µs/turn",
                calls - 1
            );
        }
    }
}
