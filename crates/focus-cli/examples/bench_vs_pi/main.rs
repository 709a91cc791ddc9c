//! Side-by-side benchmark of focus and pi on the same machine, the same mock LLM
//! server and the same session file: startup, print-mode time and peak memory,
//! session load. `scripts/bench` builds and runs it; run it alone with
//! `cargo run --release -p focus-cli --example bench_vs_pi -- [--pi PATH] [--session FILE]`.
//!
//! pi is looked for in `$PI_BIN`, on `PATH`, and in `/opt/pi/node_modules/.bin/pi`
//! (install with `npm install --prefix /opt/pi @mariozechner/pi-coding-agent`).
//! Without it, focus's figures are printed alone.

use focus_providers::mock_llm::{MockLlm, Scenario};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path] = &args[..] {
        if flag == "--load-once" {
            // A child of this benchmark: one load in a fresh process (see `session_rounds`).
            match focus_session_load_ms(Path::new(path), 1) {
                Some(ms) => println!("{ms}"),
                None => std::process::exit(1),
            }
            return;
        }
    }
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let focus = flag("--focus")
        .map(PathBuf::from)
        .unwrap_or_else(default_focus);
    let pi = flag("--pi").map(PathBuf::from).or_else(find_pi);
    let session = flag("--session").map(PathBuf::from);
    if !focus.is_file() {
        eprintln!(
            "bench_vs_pi: no focus binary at {} (build with cargo build --release)",
            focus.display()
        );
        std::process::exit(2);
    }
    let work = std::env::temp_dir().join(format!("focus-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&work);

    let scenario =
        Scenario::parse(r#"{"steps":[{"reply":{"text":"Hello from the mock model."}}]}"#)
            .expect("built-in scenario parses");
    let server = MockLlm::start(scenario);
    let base = format!("{}/v1", server.url());
    let home = work.join("home");
    write_models_json(&home, &base);
    let baseline = curl_baseline(&server.url());

    let mut rows: Vec<Row> = Vec::new();
    let version = median_ms(30, || run(&focus, &["--version"], &home));
    let help = median_ms(30, || run(&focus, &["--help"], &home));
    let print_args = [
        "-p",
        "say hello",
        "--model",
        "mock/mock-model",
        "--no-session",
    ];
    let print = median_ms(15, || run(&focus, &print_args, &home));
    let rss = peak_rss_kib(&focus, &print_args, &home);
    rows.push(Row::new("startup: --version (ms)", version));
    rows.push(Row::new("startup: --help (ms)", help));
    rows.push(Row::new("print mode, one answer (ms)", print));
    rows.push(Row::new(
        "print mode minus a bare curl request (ms)",
        print.map(|p| p - baseline.unwrap_or(0.0)),
    ));
    rows.push(Row::new(
        "print mode peak RSS, with children (MiB)",
        rss.map(|k| k as f64 / 1024.0),
    ));
    let own_rss = own_peak_rss_kib(&focus, &print_args, &home);
    rows.push(Row::new(
        "print mode peak RSS, the agent process alone (MiB)",
        own_rss.map(|k| k as f64 / 1024.0),
    ));
    let (focus_load, pi_load) = match &session {
        Some(session) => session_rounds(session, pi.as_deref()),
        None => Default::default(),
    };
    rows.push(Row::new(
        "session load + context, 10k entries, warm (ms)",
        focus_load.warm,
    ));
    rows.push(Row::new(
        "session load + context, 10k entries, first in a fresh process (ms)",
        focus_load.first,
    ));
    rows[6].pi = pi_load.warm;
    rows[7].pi = pi_load.first;

    if let Some(pi) = &pi {
        let pi_home = work.join("pi-home");
        write_models_json(&pi_home, &base);
        let pi_run = |args: &[&str]| {
            let mut command = Command::new(pi);
            command
                .args(args)
                .env("PI_CODING_AGENT_DIR", &pi_home)
                .env("PI_OFFLINE", "1");
            command.env("MOCK_API_KEY", "mock-key").current_dir(&work);
            timed(command)
        };
        rows[0].pi = median_ms(5, || pi_run(&["--version"]));
        rows[1].pi = median_ms(5, || pi_run(&["--help"]));
        let pi_print = [
            "-p",
            "say hello",
            "--provider",
            "mock",
            "--model",
            "mock-model",
            "--no-session",
        ];
        rows[2].pi = median_ms(5, || pi_run(&pi_print));
        rows[3].pi = rows[2].pi.map(|p| p - baseline.unwrap_or(0.0));
        let mut command = Command::new("/usr/bin/time");
        command.arg("-f").arg("%M").arg(pi).args(pi_print);
        command
            .env("PI_CODING_AGENT_DIR", &pi_home)
            .env("PI_OFFLINE", "1")
            .env("MOCK_API_KEY", "mock-key");
        rows[4].pi = time_rss(command).map(|k| k as f64 / 1024.0);
        // pi has no child process in print mode: its own peak is the tree's.
        rows[5].pi = rows[4].pi;
    }

    println!("machine: {}", machine());
    println!(
        "focus: {}",
        String::from_utf8_lossy(&output(&focus, &["--version"], &home)).trim()
    );
    match &pi {
        Some(pi) => println!(
            "pi: {} ({})",
            String::from_utf8_lossy(&output(pi, &["--version"], &home)).trim(),
            pi.display()
        ),
        None => println!("pi: not installed (set PI_BIN or install @mariozechner/pi-coding-agent)"),
    }
    println!(
        "bare curl request to the mock server (ms): {}",
        fmt(baseline)
    );
    println!();
    println!("| measurement | focus | pi | pi / focus |");
    println!("|---|---:|---:|---:|");
    for row in &rows {
        let ratio = match (row.focus, row.pi) {
            (Some(f), Some(p)) if f > 0.0 => format!("{:.1}×", p / f),
            _ => "–".into(),
        };
        println!(
            "| {} | {} | {} | {} |",
            row.name,
            fmt(row.focus),
            fmt(row.pi),
            ratio
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}

struct Row {
    name: &'static str,
    focus: Option<f64>,
    pi: Option<f64>,
}

impl Row {
    fn new(name: &'static str, focus: Option<f64>) -> Row {
        Row {
            name,
            focus,
            pi: None,
        }
    }
}

fn fmt(value: Option<f64>) -> String {
    value.map_or("–".into(), |v| {
        if v < 10.0 {
            format!("{v:.2}")
        } else {
            format!("{v:.1}")
        }
    })
}

fn default_focus() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // target/release/examples/bench_vs_pi → target/release/focus
    exe.parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("focus"))
        .unwrap_or_default()
}

fn find_pi() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("PI_BIN") {
        return Some(PathBuf::from(bin));
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("pi"))
                .find(|p| p.is_file())
        })
        .unwrap_or(None);
    on_path.or_else(|| Some(PathBuf::from("/opt/pi/node_modules/.bin/pi")).filter(|p| p.is_file()))
}

/// A models.json naming the mock server, understood by focus and pi alike.
fn write_models_json(home: &Path, base_url: &str) {
    let _ = std::fs::create_dir_all(home);
    let text = format!(
        r#"{{"providers":{{"mock":{{"baseUrl":"{base_url}","api":"openai-completions","apiKey":"MOCK_API_KEY",
"models":[{{"id":"mock-model","name":"Mock","contextWindow":128000,"maxTokens":4096,"reasoning":false,"input":["text"],
"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}}}}]}}}}}}"#
    );
    let _ = std::fs::write(home.join("models.json"), text);
}

fn run(program: &Path, args: &[&str], home: &Path) -> Option<Duration> {
    let mut command = Command::new(program);
    command
        .args(args)
        .env("FOCUS_HOME", home)
        .env("MOCK_API_KEY", "mock-key")
        .env("NO_COLOR", "1");
    command.current_dir(home);
    timed(command)
}

fn output(program: &Path, args: &[&str], home: &Path) -> Vec<u8> {
    let out = Command::new(program)
        .args(args)
        .env("FOCUS_HOME", home)
        .output();
    out.map(|o| {
        if o.stdout.is_empty() {
            o.stderr
        } else {
            o.stdout
        }
    })
    .unwrap_or_default()
}

/// Wall time of one run; `None` if it failed.
fn timed(mut command: Command) -> Option<Duration> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let start = Instant::now();
    let status = command.status().ok()?;
    let elapsed = start.elapsed();
    status.success().then_some(elapsed)
}

fn median_ms(n: usize, mut f: impl FnMut() -> Option<Duration>) -> Option<f64> {
    median_of(n, || f().map(|d| d.as_secs_f64() * 1000.0))
}

/// The median of `n` samples; `None` if any failed.
fn median_of(n: usize, mut f: impl FnMut() -> Option<f64>) -> Option<f64> {
    let mut samples: Vec<f64> = Vec::new();
    for _ in 0..n {
        samples.push(f()?);
    }
    median(samples)
}

fn median(mut samples: Vec<f64>) -> Option<f64> {
    samples.sort_by(|a, b| a.total_cmp(b));
    samples.get(samples.len() / 2).copied()
}

/// Peak RSS in KiB of one run, via GNU time when installed.
fn peak_rss_kib(program: &Path, args: &[&str], home: &Path) -> Option<u64> {
    let mut command = Command::new("/usr/bin/time");
    command.arg("-f").arg("%M").arg(program).args(args);
    command
        .env("FOCUS_HOME", home)
        .env("MOCK_API_KEY", "mock-key")
        .current_dir(home);
    time_rss(command)
}

/// focus's own peak RSS in KiB (`VmHWM`, which focus prints at exit when
/// `FOCUS_REPORT_PEAK_RSS` is set): the agent without the curl process it spawns.
fn own_peak_rss_kib(program: &Path, args: &[&str], home: &Path) -> Option<u64> {
    let mut command = Command::new(program);
    command
        .args(args)
        .env("FOCUS_HOME", home)
        .env("MOCK_API_KEY", "mock-key");
    command
        .env("FOCUS_REPORT_PEAK_RSS", "1")
        .current_dir(home)
        .stdin(Stdio::null());
    let out = command.output().ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("focus-peak-rss:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

fn time_rss(mut command: Command) -> Option<u64> {
    let out = command.stdin(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    text.lines().last()?.trim().parse().ok()
}

/// The time of a bare `curl` POST to the mock server: process spawn plus the
/// server's own answer, the floor any curl-based client pays.
fn curl_baseline(url: &str) -> Option<f64> {
    let body =
        r#"{"model":"mock-model","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    median_ms(15, || {
        let mut command = Command::new("curl");
        command.args([
            "-sN",
            "-X",
            "POST",
            "-H",
            "content-type: application/json",
            "--data-binary",
            body,
        ]);
        command.arg(format!("{url}/v1/chat/completions"));
        timed(command)
    })
}

/// Session load + context times of one tool, in ms.
#[derive(Default)]
struct LoadFigures {
    /// The median of repeated loads in one process (pi: in one node process).
    warm: Option<f64>,
    /// One load in a process that has loaded nothing before (pi: node's first
    /// load, its module already imported).
    first: Option<f64>,
}

/// How many times focus's and pi's load figures are taken in turn.
const LOAD_ROUNDS: usize = 3;

/// Loads the session with focus and pi in alternating rounds, so both meet the same
/// minutes of a shared machine (whose speed moves by a third from one minute to the
/// next), and gives each tool's median over the rounds. Each round is printed.
fn session_rounds(session: &Path, pi: Option<&Path>) -> (LoadFigures, LoadFigures) {
    let mut focus_rounds = (Vec::new(), Vec::new());
    let mut pi_rounds = (Vec::new(), Vec::new());
    let me = std::env::current_exe().ok();
    for round in 1..=LOAD_ROUNDS {
        let warm = focus_session_load_ms(session, 7);
        let first = me.as_deref().and_then(|me| {
            median_of(5, || {
                let out = Command::new(me)
                    .arg("--load-once")
                    .arg(session)
                    .output()
                    .ok()?;
                String::from_utf8_lossy(&out.stdout).trim().parse().ok()
            })
        });
        let (pi_first, pi_warm) = pi.and_then(|pi| pi_session_load_ms(pi, session)).unzip();
        println!(
            "session load, round {round}: focus warm {} / first {}; pi warm {} / first {}",
            fmt(warm),
            fmt(first),
            fmt(pi_warm),
            fmt(pi_first)
        );
        focus_rounds.0.extend(warm);
        focus_rounds.1.extend(first);
        pi_rounds.0.extend(pi_warm);
        pi_rounds.1.extend(pi_first);
    }
    let figures = |(warm, first): (Vec<f64>, Vec<f64>)| LoadFigures {
        warm: median(warm),
        first: median(first),
    };
    (figures(focus_rounds), figures(pi_rounds))
}

/// The median of `n` in-process loads + contexts of `path`, in ms.
fn focus_session_load_ms(path: &Path, n: usize) -> Option<f64> {
    median_ms(n, || {
        let start = Instant::now();
        let manager = focus_harness::session::SessionManager::open_read_only(path).ok()?;
        let context = manager.context();
        std::hint::black_box(context.messages.len());
        Some(start.elapsed())
    })
}

/// pi's `SessionManager.open` + `buildSessionContext` on the same file, timed inside
/// node (node's own startup excluded, as focus's process startup is): the first
/// load and the median of 7, in ms.
fn pi_session_load_ms(pi: &Path, session: &Path) -> Option<(f64, f64)> {
    let real = std::fs::canonicalize(pi).ok()?;
    let package = real.parent()?.parent()?; // dist/cli.js → package root
    let script = format!(
        r#"import {{ SessionManager }} from "{}/dist/index.js";
const times = [];
for (let i = 0; i < 7; i++) {{
  const t = performance.now();
  const sm = SessionManager.open({:?});
  const ctx = sm.buildSessionContext();
  if (!ctx.messages.length) throw new Error("empty");
  times.push(performance.now() - t);
}}
const first = times[0];
times.sort((a, b) => a - b);
console.log(first, times[3]);"#,
        package.display(),
        session.display().to_string()
    );
    let file = std::env::temp_dir().join(format!("focus-bench-pi-load-{}.mjs", std::process::id()));
    std::fs::write(&file, script).ok()?;
    let out = Command::new("node").arg(&file).output().ok()?;
    let _ = std::fs::remove_file(&file);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut numbers = text.split_whitespace().map(str::parse::<f64>);
    match (numbers.next(), numbers.next()) {
        (Some(Ok(first)), Some(Ok(warm))) => Some((first, warm)),
        _ => None,
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "{cpu}, {cores} cores, {} {}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}
