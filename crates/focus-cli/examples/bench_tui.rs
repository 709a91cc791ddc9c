//! The interactive renderer's cost, two rows:
//!
//! 1. CPU time to show a 320 KB streamed answer: focus in print mode (`-p`,
//!    stdout a pipe) against focus's interactive mode in a tmux pane (120×40),
//!    both reading the same mock model over loopback. CPU is user + system time
//!    of focus and the processes it waited for (the kernel's counts in
//!    `/proc/PID/stat`, 10 ms ticks), the mean of ten runs; the ratio is the
//!    figure (target: ≤ 1.05).
//! 2. Keypress echo with a 10,000-entry session open: a character typed with
//!    `tmux send-keys` until `tmux capture-pane` shows it, the median of 30 keys,
//!    beside the same with an empty session (the difference is what the session
//!    costs; the rest is tmux and the polling). Target: ≤ 16 ms.
//!
//! Usage: `bench_tui [--focus PATH]` (default: target/release/focus). Needs tmux.

#[path = "bench_support/mod.rs"]
mod bench_support;

use bench_support::{flag_value, tmux};
use focus_testkit::mock_llm::{MockLlm, Scenario};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Clock ticks a second in `/proc` (USER_HZ: 100 on every Linux target).
const TICKS: f64 = 100.0;
/// Runs per CPU figure (the kernel counts CPU in 10 ms ticks: the figure is the
/// total over the runs, divided).
const RUNS: usize = 10;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let focus = flag_value(&args, "--focus")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/focus"));
    let Ok(focus) = focus.canonicalize() else {
        eprintln!("bench_tui: no focus binary at {}", focus.display());
        std::process::exit(2);
    };
    if !Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        println!("bench_tui: skipped (tmux not found)");
        return;
    }
    let root = std::env::temp_dir().join(format!("focus-bench-tui-{}", std::process::id()));
    let answer = answer_text(320 * 1024);
    let mut print = Vec::new();
    let mut tui = Vec::new();
    for run in 0..RUNS {
        let home = root.join(format!("cpu-{run}"));
        print.extend(cpu_print(&focus, &home.join("p"), &answer));
        tui.extend(cpu_interactive(&focus, &home.join("i"), &answer));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let (p, t) = (mean(&print), mean(&tui));
    println!(
        "rendering a 320 KB streamed answer (CPU s, mean of {}/{} runs):",
        print.len().min(tui.len()),
        RUNS
    );
    println!("  print mode (-p, stdout a pipe)      {p:>8.3}");
    println!("  interactive (tmux pane, 120x40)     {t:>8.3}");
    if p > 0.0 {
        println!("  interactive / print                 {:>8.2}x", t / p);
    }
    let empty = echo_latency(&focus, &root.join("echo-empty"), 0);
    let big = echo_latency(&focus, &root.join("echo-big"), 10_000);
    println!("keypress echo (ms, median of 30; includes tmux send-keys and capture-pane):");
    println!("  empty session                       {empty:>8.1}");
    println!("  10,000-entry session                {big:>8.1}");
    let _ = std::fs::remove_dir_all(&root);
}

/// Markdown-like text of about `bytes` bytes, lines of words, ending in ENDMARK.
fn answer_text(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 64);
    let mut line = 0;
    while text.len() < bytes {
        line += 1;
        if line % 20 == 0 {
            text.push_str(&format!("## Section {line}\\n"));
        }
        text.push_str(&format!(
            "- line {line}: some **bold** words and `code` in a sentence that goes on a while\\n"
        ));
    }
    text.push_str("ENDMARK");
    text
}

/// A mock model that answers `text`, and a FOCUS_HOME whose models.json points at
/// it; returns the server (alive while held).
fn model_home(home: &Path, text: &str) -> MockLlm {
    let scenario = format!(r#"{{"name":"bench","steps":[{{"reply":{{"text":"{text}"}}}}]}}"#);
    let server = MockLlm::start(Scenario::parse(&scenario).expect("scenario"));
    std::fs::create_dir_all(home.join("work")).expect("home");
    std::fs::write(
        home.join("models.json"),
        format!(
            r#"{{"providers":{{"mock":{{"baseUrl":"{}/v1","api":"openai-completions","apiKey":"k","models":[{{"id":"m","contextWindow":1000000,"maxTokens":4096}}]}}}}}}"#,
            server.url()
        ),
    )
    .expect("models.json");
    server
}

/// User + system time of the processes this one has waited for, in seconds.
fn children_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rfind(')')
        .map_or("", |i| &stat[i + 2..])
        .split_whitespace()
        .collect();
    // After the name: state is field 3, cutime 16 and cstime 17 (1-based).
    let at = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<f64>().ok());
    (at(16).unwrap_or(0.0) + at(17).unwrap_or(0.0)) / TICKS
}

/// A process's own and waited-for children's CPU, in seconds.
fn process_cpu(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split_whitespace().collect();
    let at = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<f64>().ok());
    Some((at(14)? + at(15)? + at(16)? + at(17)?) / TICKS)
}

fn cpu_print(focus: &Path, home: &Path, answer: &str) -> Option<f64> {
    let _server = model_home(home, answer);
    let before = children_cpu();
    let output = Command::new(focus)
        .current_dir(home.join("work"))
        .env("FOCUS_HOME", home)
        .env("HOME", home)
        .env("FOCUS_OFFLINE", "1")
        .args(["--model", "mock/m", "--no-session", "-p", "go"])
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !text.contains("ENDMARK") {
        eprintln!(
            "print mode: no answer: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        return None;
    }
    Some(children_cpu() - before)
}

/// focus started in a tmux pane (120×40) with `args`; the session name and
/// focus's pid once its prompt shows.
fn start_pane(focus: &Path, home: &Path, args: &str, name: &str) -> Option<u32> {
    let line = format!(
        "cd '{}' && FOCUS_HOME='{}' HOME='{}' FOCUS_OFFLINE=1 exec '{}' {args}",
        home.join("work").display(),
        home.display(),
        home.display(),
        focus.display()
    );
    let ok = Command::new("tmux")
        .args([
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            name,
            &line,
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return None;
    }
    let pid = tmux(&["list-panes", "-t", name, "-F", "#{pane_pid}"])
        .trim()
        .parse::<u32>()
        .ok()?;
    wait(|| tmux(&["capture-pane", "-p", "-t", name]).contains('›'))?;
    Some(pid)
}

/// Waits (up to two minutes) until `done`; `None` on timeout.
fn wait(mut done: impl FnMut() -> bool) -> Option<()> {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if done() {
            return Some(());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

fn cpu_interactive(focus: &Path, home: &Path, answer: &str) -> Option<f64> {
    let _server = model_home(home, answer);
    let name = format!("focus-bench-tui-{}", std::process::id());
    let pid = start_pane(focus, home, "--model mock/m --no-session", &name)?;
    let before = process_cpu(pid)?;
    tmux(&["send-keys", "-t", &name, "-l", "go"]);
    tmux(&["send-keys", "-t", &name, "Enter"]);
    let seen = wait(|| {
        let screen = tmux(&["capture-pane", "-p", "-t", &name]);
        screen.contains("ENDMARK") && screen.contains('○')
    });
    let after = process_cpu(pid);
    tmux(&["kill-session", "-t", &name]);
    seen?;
    Some(after? - before)
}

/// A session file of `entries` messages (user and assistant in turn).
fn write_session(path: &Path, entries: usize) {
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"0190a000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}"#,
    );
    text.push('\n');
    let mut parent = "null".to_string();
    for i in 0..entries {
        let id = format!("{i:08x}");
        let message = if i % 2 == 0 {
            format!(
                r#"{{"role":"user","content":[{{"type":"text","text":"question number {i} about the code"}}],"timestamp":1}}"#
            )
        } else {
            format!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":"answer number {i}: a paragraph of text that explains something at some length."}}],"api":"openai-completions","provider":"mock","model":"m","usage":{{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{{"input":0.0,"output":0.0,"cacheRead":0.0,"cacheWrite":0.0,"total":0.0}}}},"stopReason":"stop","timestamp":1}}"#
            )
        };
        text.push_str(&format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{message}}}"#
        ));
        text.push('\n');
        parent = format!("\"{id}\"");
    }
    std::fs::write(path, text).expect("session file");
}

/// The median echo time of 30 keys, in ms, with a session of `entries` open.
fn echo_latency(focus: &Path, home: &Path, entries: usize) -> f64 {
    let _server = model_home(home, "unused");
    let session = home.join("big.jsonl");
    write_session(&session, entries);
    let name = format!("focus-bench-echo-{}-{entries}", std::process::id());
    let args = format!("--model mock/m --session '{}'", session.display());
    if start_pane(focus, home, &args, &name).is_none() {
        tmux(&["kill-session", "-t", &name]);
        return f64::NAN;
    }
    let mut times = Vec::new();
    for i in 0..30 {
        let marker = format!("{}", (b'a' + (i % 26) as u8) as char);
        let typed = "k".repeat(i) + &marker;
        let start = Instant::now();
        tmux(&["send-keys", "-t", &name, "-l", &marker]);
        let seen = wait(|| {
            tmux(&["capture-pane", "-p", "-t", &name])
                .lines()
                .any(|l| l.trim_end().ends_with(&typed))
        });
        if seen.is_some() {
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        // The next key types "k" then its marker: make the text so.
        tmux(&["send-keys", "-t", &name, "BSpace"]);
        tmux(&["send-keys", "-t", &name, "-l", "k"]);
        let settled = "k".repeat(i + 1);
        wait(|| {
            tmux(&["capture-pane", "-p", "-t", &name])
                .lines()
                .any(|l| l.trim_end().ends_with(&format!("› {settled}")))
        });
    }
    tmux(&["kill-session", "-t", &name]);
    median(&mut times)
}

fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
