//! The interactive renderer's cost, two rows:
//!
//! 1. CPU time to show a 320 KB streamed answer (about 20,000 deltas of three
//!    words): focus in print mode (`-p`, stdout a pipe) against focus's
//!    interactive mode in a tmux pane (120×40), both reading the same mock model
//!    over loopback, both started, fed one prompt and ended (interactive: Ctrl+D
//!    once the answer and the idle mark show). The modes alternate (print first
//!    in even runs, interactive first in odd ones), `--runs N` times (default 11);
//!    the figures are medians (and quartiles), with the ratio of the medians, its
//!    90% bootstrap interval and the median of each run's ratio, and
//!    `/proc/loadavg` before and after.
//!
//!    How CPU is measured: this program, started as `bench_tui --wrap FILE
//!    PROGRAM ARGS…`, runs PROGRAM, waits for it and writes the CPU time of what
//!    it waited for (`getrusage(RUSAGE_CHILDREN)`: user + system, microseconds,
//!    through `focus_sys::process::cpu_time`) to FILE. Both modes run under it
//!    (in the pane, the wrapper is what tmux starts). curl, which focus reads
//!    the model through, does the same work in both modes and is left out:
//!    `FOCUS_CURL` points at this program again under the name `curl-shim`,
//!    which starts the real curl in a process group of its own (focus kills and
//!    reaps the shim, never curl) and logs its own CPU, and curl's once it has
//!    waited for it (what focus reaped then includes curl; a shim focus killed
//!    first leaves curl an orphan, counted nowhere). *focus's own CPU* is the
//!    total less what the shims logged: that is the figure (target: interactive
//!    / print ≤ 1.05). A third row, interactive started and ended without a prompt, shows
//!    the fixed cost of the mode.
//! 2. Keypress echo with a 10,000-entry session open: a character typed with
//!    `tmux send-keys` until `tmux capture-pane` shows it, the median of 30 keys,
//!    beside the same with an empty session (the difference is what the session
//!    costs; the rest is tmux and the polling). Target: ≤ 16 ms.
//!
//! `--paced MS` has the mock model wait MS milliseconds between events, as a
//! model writing at its own pace does (at 1 ms, about 25 s an answer): the
//! screen then draws many frames of a little new text each, where an answer
//! read at once is a few frames of much.
//!
//! Usage: `bench_tui [--focus PATH] [--runs N] [--paced MS] [--cpu-only | --echo-only]`
//! (default: target/release/focus). Needs tmux and curl.

#[path = "bench_support/mod.rs"]
mod bench_support;

use bench_support::{flag_value, tmux};
use focus_sys::process::{cpu_time, Usage};
use focus_testkit::mock_llm::{MockLlm, Scenario};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs per CPU figure unless `--runs` says otherwise.
const RUNS: usize = 11;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if std::env::args_os()
        .next()
        .is_some_and(|a| Path::new(&a).file_name() == Some("curl-shim".as_ref()))
    {
        std::process::exit(curl_shim(&args));
    }
    if args.first().map(String::as_str) == Some("--wrap") && args.len() >= 3 {
        std::process::exit(wrap(&args[1], &args[2], &args[3..]));
    }
    let flag = |name: &str| flag_value(&args, name);
    let focus = flag("--focus")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/focus"));
    let runs = flag("--runs")
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(RUNS)
        .max(1);
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
    let me = std::env::current_exe().expect("own path");
    let root = std::env::temp_dir().join(format!("focus-bench-tui-{}", std::process::id()));
    let answer = answer_text(320 * 1024);
    let pace = flag("--paced")
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    if args.iter().any(|a| a == "--echo-only") {
        echo_rows(&focus, &root);
        return;
    }
    let load_before = loadavg();
    let (mut print, mut tui, mut idle) = (Vec::new(), Vec::new(), Vec::new());
    let mut ratios = Vec::new();
    for run in 0..runs {
        let home = root.join(format!("cpu-{run}"));
        let bench = Bench {
            me: &me,
            focus: &focus,
            pace,
        };
        let (p, t) = if run % 2 == 0 {
            let p = bench.print(&home.join("p"), &answer);
            (p, bench.interactive(&home.join("i"), Some(&answer)))
        } else {
            let t = bench.interactive(&home.join("i"), Some(&answer));
            (bench.print(&home.join("p"), &answer), t)
        };
        if let Some(i) = bench.interactive(&home.join("idle"), None) {
            idle.push(i);
        }
        if let (Some(p), Some(t)) = (p, t) {
            ratios.push(t.own / p.own);
            print.push(p);
            tui.push(t);
        }
        if std::env::var_os("BENCH_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&home);
        }
    }
    let load_after = loadavg();
    let own = |v: &[Cpu]| median(&mut v.iter().map(|c| c.own).collect::<Vec<_>>());
    let total = |v: &[Cpu]| median(&mut v.iter().map(|c| c.total).collect::<Vec<_>>());
    let paced = match pace {
        0 => String::new(),
        ms => format!(", {ms} ms between events"),
    };
    println!(
        "rendering a 320 KB streamed answer{paced} (CPU ms, median of {} interleaved runs of {runs}):",
        print.len()
    );
    println!("  load average before: {load_before}; after: {load_after}");
    println!("                                      focus own   with shims");
    let row = |name: &str, v: &[Cpu]| {
        println!(
            "  {name:<36}{:>9.1}   {:>10.1}",
            own(v) * 1e3,
            total(v) * 1e3
        );
    };
    row("print mode (-p, stdout a pipe)", &print);
    row("interactive (tmux pane, 120x40)", &tui);
    row("interactive, no prompt (start, quit)", &idle);
    let quartiles = |v: &[Cpu]| {
        let mut own: Vec<f64> = v.iter().map(|c| c.own * 1e3).collect();
        own.sort_by(|a, b| a.total_cmp(b));
        let at = |q: usize| {
            own.get((own.len().max(1) - 1) * q / 4)
                .copied()
                .unwrap_or(f64::NAN)
        };
        format!("{:.1} / {:.1} / {:.1}", at(1), at(2), at(3))
    };
    println!(
        "  focus own, quartiles (ms): print {}; interactive {}",
        quartiles(&print),
        quartiles(&tui)
    );
    if own(&print) > 0.0 {
        println!(
            "  interactive / print, focus own: {:.3}x (ratio of medians), {:.3}x (median of the runs' ratios, {:.3}-{:.3})",
            own(&tui) / own(&print),
            median(&mut ratios.clone()),
            ratios.iter().cloned().fold(f64::INFINITY, f64::min),
            ratios.iter().cloned().fold(0.0, f64::max),
        );
    }
    if let Some((low, high)) = bootstrap(&print, &tui) {
        println!("  interactive / print, focus own: 90% bootstrap interval of the ratio of medians {low:.3}-{high:.3}x");
    }
    if args.iter().any(|a| a == "--cpu-only") {
        if std::env::var_os("BENCH_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&root);
        }
        return;
    }
    echo_rows(&focus, &root);
}

/// Row 2: keypress echo with an empty and a 10,000-entry session (then the
/// bench's directory is removed).
fn echo_rows(focus: &Path, root: &Path) {
    let load = loadavg();
    let empty = echo_latency(focus, &root.join("echo-empty"), 0);
    let big = echo_latency(focus, &root.join("echo-big"), 10_000);
    println!("keypress echo (ms, median of 30; includes tmux send-keys and capture-pane; load {load} before):");
    println!("  empty session                       {empty:>8.1}");
    println!("  10,000-entry session                {big:>8.1}");
    let _ = std::fs::remove_dir_all(root);
}

/// The 5th and 95th percentiles of the ratio of medians (interactive / print,
/// focus's own CPU) over 2,000 resamples of each mode's runs: how far the ratio
/// could move with other runs on the same machine.
fn bootstrap(print: &[Cpu], tui: &[Cpu]) -> Option<(f64, f64)> {
    if print.len() < 3 || tui.len() < 3 {
        return None;
    }
    // A fixed-seed xorshift: the interval is the same for the same runs.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut ratios = Vec::with_capacity(2000);
    for _ in 0..2000 {
        let mut p: Vec<f64> = (0..print.len())
            .map(|_| print[next(print.len())].own)
            .collect();
        let mut t: Vec<f64> = (0..tui.len()).map(|_| tui[next(tui.len())].own).collect();
        ratios.push(median(&mut t) / median(&mut p));
    }
    ratios.sort_by(|a, b| a.total_cmp(b));
    Some((ratios[100], ratios[1899]))
}

/// `/proc/loadavg`'s three averages.
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// User + system CPU of the children reaped so far, in seconds.
fn reaped_cpu() -> f64 {
    cpu_time(Usage::ReapedChildren).map_or(0.0, |(u, s)| (u + s).as_secs_f64())
}

/// Wrapper mode: runs `program args`, waits, writes the CPU seconds of what it
/// waited for to `out`; exits with the program's code.
fn wrap(out: &str, program: &str, args: &[String]) -> i32 {
    let before = reaped_cpu();
    let code = Command::new(program)
        .args(args)
        .status()
        .map_or(127, |s| s.code().unwrap_or(1));
    let _ = std::fs::write(out, format!("{}", reaped_cpu() - before));
    code
}

/// Shim mode (invoked as `curl-shim`): starts the real curl with the same
/// arguments in a process group of its own, appends its own CPU seconds so far to
/// `cpu.log` beside the shim, and waits for curl. focus ends its curl by killing
/// the group it started, which is the shim's alone: curl is never reaped by
/// focus, so focus's count of its children holds the shim (less than a
/// millisecond, subtracted) and not curl.
fn curl_shim(args: &[String]) -> i32 {
    use std::os::unix::process::CommandExt;
    let child = Command::new("curl").args(args).process_group(0).spawn();
    let seconds = |who| cpu_time(who).map_or(0.0, |(u, s)| (u + s).as_secs_f64());
    log_shim_cpu(seconds(Usage::OwnProcess));
    let status = match child {
        Ok(mut child) => child.wait().map_or(1, |s| s.code().unwrap_or(1)),
        Err(_) => 127,
    };
    // curl, reaped here, is counted in what focus reaps when this shim exits
    // normally: it is logged (and subtracted) then. A shim focus kills first
    // logs nothing more, and its curl, an orphan then, is not in focus's count.
    log_shim_cpu(seconds(Usage::ReapedChildren));
    status
}

/// Appends a CPU figure (seconds) to `cpu.log` beside the shim.
fn log_shim_cpu(seconds: f64) {
    let Some(dir) = std::env::args_os()
        .next()
        .and_then(|a| Path::new(&a).parent().map(Path::to_path_buf))
    else {
        return;
    };
    use std::io::Write;
    if let Ok(mut log) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("cpu.log"))
    {
        let _ = writeln!(log, "{seconds}");
    }
}

/// One measurement: everything focus reaped (itself and its curl shims), and
/// focus alone, in seconds.
#[derive(Clone, Copy, Debug)]
struct Cpu {
    total: f64,
    own: f64,
}

/// What a measurement runs: this program (wrapper and shim) and focus.
struct Bench<'a> {
    me: &'a Path,
    focus: &'a Path,
    /// Milliseconds between the mock model's events.
    pace: u64,
}

impl Bench<'_> {
    /// A home with a mock model answering `text`, the curl shim in it.
    fn setup(&self, home: &Path, text: &str) -> MockLlm {
        let server = model_home(home, text, self.pace);
        let shim = home.join("curl-shim");
        let _ = std::fs::remove_file(&shim);
        std::os::unix::fs::symlink(self.me, &shim).expect("shim link");
        server
    }

    /// The CPU of the wrapped run whose result went to `out`, less the shim's.
    fn read(&self, home: &Path, out: &Path) -> Option<Cpu> {
        let total: f64 = std::fs::read_to_string(out).ok()?.trim().parse().ok()?;
        let shims: f64 = std::fs::read_to_string(home.join("cpu.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse::<f64>().ok())
            .sum();
        Some(Cpu {
            total,
            own: total - shims,
        })
    }

    fn print(&self, home: &Path, answer: &str) -> Option<Cpu> {
        let _server = self.setup(home, answer);
        let out = home.join("cpu.out");
        let output = Command::new(self.me)
            .arg("--wrap")
            .arg(&out)
            .arg(self.focus)
            .args(["--model", "mock/m", "--no-session", "-p", "go"])
            .current_dir(home.join("work"))
            .env("FOCUS_HOME", home)
            .env("HOME", home)
            .env("FOCUS_OFFLINE", "1")
            .env("FOCUS_CURL", home.join("curl-shim"))
            .stdin(Stdio::null())
            .output()
            .ok()?;
        if !String::from_utf8_lossy(&output.stdout).contains("ENDMARK") {
            eprintln!(
                "print mode: no answer: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            return None;
        }
        self.read(home, &out)
    }

    /// Interactive mode in a tmux pane: with `answer`, one prompt answered;
    /// without, started and ended.
    fn interactive(&self, home: &Path, answer: Option<&str>) -> Option<Cpu> {
        let _server = self.setup(home, answer.unwrap_or("unused"));
        let out = home.join("cpu.out");
        let name = format!("focus-bench-tui-{}", std::process::id());
        let line = format!(
            "cd '{}' && FOCUS_HOME='{}' HOME='{}' FOCUS_OFFLINE=1 FOCUS_CURL='{}' exec '{}' --wrap '{}' '{}' --model mock/m --no-session",
            home.join("work").display(),
            home.display(),
            home.display(),
            home.join("curl-shim").display(),
            self.me.display(),
            out.display(),
            self.focus.display()
        );
        let started = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-x",
                "120",
                "-y",
                "40",
                "-s",
                &name,
                &line,
            ])
            .status()
            .is_ok_and(|s| s.success());
        if !started {
            return None;
        }
        let shown = (|| {
            wait(|| tmux(&["capture-pane", "-p", "-t", &name]).contains('›'))?;
            if answer.is_some() {
                tmux(&["send-keys", "-t", &name, "-l", "go"]);
                tmux(&["send-keys", "-t", &name, "Enter"]);
                wait(|| {
                    let screen = tmux(&["capture-pane", "-p", "-t", &name]);
                    screen.contains("ENDMARK") && screen.contains('○')
                })?;
            }
            tmux(&["send-keys", "-t", &name, "C-d"]);
            wait(|| out.exists())
        })();
        tmux(&["kill-session", "-t", &name]);
        shown?;
        // The wrapper writes the figure in one call; a read can race it.
        wait(|| std::fs::read_to_string(&out).is_ok_and(|t| t.trim().parse::<f64>().is_ok()))?;
        self.read(home, &out)
    }
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

/// A mock model that answers `text` (waiting `pace_ms` between events), and a
/// FOCUS_HOME whose models.json points at it; returns the server (alive while
/// held).
fn model_home(home: &Path, text: &str, pace_ms: u64) -> MockLlm {
    let scenario = format!(
        r#"{{"name":"bench","steps":[{{"reply":{{"text":"{text}","chunkDelayMs":{pace_ms}}}}}]}}"#
    );
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
        std::thread::sleep(Duration::from_millis(10));
    }
    None
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
    let _server = model_home(home, "unused", 0);
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
