//! Benchmark: a 10,000-entry (~20 MB) session — append cost, then load + build the
//! current context (median of several runs; target < 100 ms).
//!
//! Run: `cargo run --release -p focus-harness --example bench_session [dir]`.
//! The session file is left in `dir` (default: a temp dir) so other tools (pi's
//! SessionManager) can load the very same file.

use focus_core::json_object;
use focus_core::message::{
    AssistantMessage, Content, Message, StopReason, ToolCall, ToolResultMessage, Usage, UserMessage,
};
use focus_harness::session::{Durability, SessionManager};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const ENTRIES: usize = 10_000;

/// This process's CPU time so far (user + system, all threads), from
/// `/proc/self/stat` (Linux; `None` elsewhere). Wall time on a busy machine
/// includes waiting for a core; CPU time does not.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // The kernel reports in USER_HZ, 100 on every Linux build that matters.
    Some(Duration::from_millis(ticks * 10))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// A filler text of `n` bytes that looks like code output.
fn filler(n: usize, seed: usize) -> String {
    let line = format!("{seed:>6}: let value = compute(input, options)?; // keep going\n");
    line.repeat(n / line.len() + 1)[..n].to_string()
}

/// The `i`th message of a coding conversation: user, assistant calling a tool,
/// tool result, assistant answer, repeating.
fn message(i: usize) -> Message {
    match i % 4 {
        0 => Message::User(UserMessage::text(
            filler(300, i),
            1_796_000_000_000 + i as u64,
        )),
        1 => Message::Assistant(AssistantMessage {
            content: vec![
                Content::Thinking {
                    thinking: filler(400, i).into(),
                    signature: Some("sig".repeat(20).into()),
                    redacted: false,
                },
                Content::text(filler(200, i)),
                Content::ToolCall(ToolCall {
                    id: format!("call_{i}").into(),
                    name: "read".into(),
                    arguments: json_object! { "path" => format!("src/file_{i}.rs") },
                    thought_signature: None,
                    invalid_arguments: None,
                }),
            ],
            api: "anthropic-messages".into(),
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            usage: Usage {
                input: 1000 + i as u64,
                output: 50,
                total_tokens: 1050 + i as u64,
                ..Usage::default()
            },
            stop_reason: StopReason::ToolUse,
            timestamp: 1_796_000_000_000 + i as u64,
            ..AssistantMessage::default()
        }),
        2 => Message::ToolResult(ToolResultMessage {
            tool_call_id: format!("call_{}", i - 1).into(),
            tool_name: "read".into(),
            content: vec![Content::text(filler(6_000, i))],
            details: focus_core::json::Value::Null,
            is_error: false,
            timestamp: 1_796_000_000_000 + i as u64,
        }),
        _ => Message::Assistant(AssistantMessage {
            content: vec![Content::text(filler(700, i))],
            api: "anthropic-messages".into(),
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            stop_reason: StopReason::Stop,
            timestamp: 1_796_000_000_000 + i as u64,
            ..AssistantMessage::default()
        }),
    }
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("focus-bench-session"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let messages: Vec<Message> = (0..ENTRIES).map(message).collect();

    // Append cost (Flush: handed to the OS, one write per entry).
    let mut session = SessionManager::create_in(&dir, &dir, None).unwrap();
    let mut appends = Vec::with_capacity(ENTRIES);
    for m in &messages {
        let start = Instant::now();
        session.append_message(m).unwrap();
        appends.push(start.elapsed());
    }
    let path = session.path().unwrap().to_path_buf();
    let first_half = median(appends[..ENTRIES / 2].to_vec());
    let second_half = median(appends[ENTRIES / 2..].to_vec());
    drop(session);
    let size = std::fs::metadata(&path).unwrap().len();

    // Fsync cost, on a copy (a few hundred appends are enough for a median).
    let copy = dir.join("fsync-copy.jsonl");
    std::fs::copy(&path, &copy).unwrap();
    let mut synced = SessionManager::open(&copy).unwrap();
    synced.set_durability(Durability::Fsync);
    let mut fsync_appends = Vec::new();
    for m in messages.iter().take(200) {
        let start = Instant::now();
        synced.append_message(m).unwrap();
        fsync_appends.push(start.elapsed());
    }
    drop(synced);
    let _ = std::fs::remove_file(&copy);

    // Load + build context.
    let mut loads = Vec::new();
    let mut contexts = Vec::new();
    let mut totals = Vec::new();
    let mut count = 0;
    let cpu_before = cpu_time();
    for _ in 0..11 {
        let start = Instant::now();
        let loaded = SessionManager::open_read_only(&path).unwrap();
        let loaded_at = start.elapsed();
        let context = loaded.context();
        let total = start.elapsed();
        count = context.messages.len();
        loads.push(loaded_at);
        contexts.push(total - loaded_at);
        totals.push(total);
    }
    assert_eq!(count, ENTRIES);
    let cpu_per_load = cpu_before
        .zip(cpu_time())
        .map(|(before, after)| (after - before) / 11);

    println!(
        "session file: {} ({:.1} MB, {ENTRIES} entries)",
        path.display(),
        size as f64 / 1e6
    );
    println!(
        "append (flush), median per entry: first 5,000 {:?}, last 5,000 {:?}",
        first_half, second_half
    );
    println!(
        "append (fsync), median per entry: {:?}",
        median(fsync_appends)
    );
    println!(
        "load + build context, median of 11: {:?} (load {:?}, context {:?}); target < 100 ms",
        median(totals),
        median(loads),
        median(contexts)
    );
    if let Some(cpu) = cpu_per_load {
        println!("CPU time per load + build context (all threads, mean of 11): {cpu:?}");
    }
}
