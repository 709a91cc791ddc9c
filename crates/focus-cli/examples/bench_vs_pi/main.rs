//! Side-by-side benchmark of focus and pi on the same machine, the same mock LLM
//! server and the same session file: startup, print-mode time and peak memory,
//! session load. `scripts/bench` builds and runs it; run it alone with
//! `cargo run --release -p focus-cli --example bench_vs_pi -- [--pi PATH | --no-pi] [--focus BIN] [--session FILE]`
//! (or `-- --load-warm COUNT FILE` for focus's warm session loads alone).
//!
//! pi is looked for in `$PI_BIN`, on `PATH`, and in `/opt/pi/node_modules/.bin/pi`
//! (install with `npm install --prefix /opt/pi @mariozechner/pi-coding-agent`).
//! Without it, focus's figures are printed alone.

mod session_load;

#[path = "../bench_support/mod.rs"]
mod bench_support;

use bench_support::{default_focus, flag_value, write_models_json};
use focus_testkit::mock_llm::{MockLlm, Scenario};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, path] = &args[..] {
        if flag == "--load-once" {
            // A child of this benchmark: one load in a fresh process (see `first_pairs`),
            // printing its time and the page faults it took.
            let faults_before = session_load::minor_faults();
            match session_load::focus_load_ms(Path::new(path)) {
                Some(ms) => {
                    let faults = session_load::minor_faults().zip(faults_before);
                    let faults = faults.map_or(String::new(), |(a, b)| (a - b).to_string());
                    println!("{ms} {faults}");
                }
                None => std::process::exit(1),
            }
            return;
        }
    }
    if let [flag, count, path] = &args[..] {
        if flag == "--load-warm" {
            // focus alone: COUNT warm loads in this process, their median and spread
            // (for working on the loader without pi's half of the pairs).
            let count: usize = count.parse().unwrap_or(31).max(1);
            let splits: Vec<(f64, f64)> = (0..count)
                .filter_map(|_| session_load::focus_load_split_ms(Path::new(path)))
                .collect();
            let sorted = |mut v: Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v
            };
            let times = sorted(splits.iter().map(|(l, c)| l + c).collect());
            let loads = sorted(splits.iter().map(|s| s.0).collect());
            let contexts = sorted(splits.iter().map(|s| s.1).collect());
            match times.get(times.len() / 2) {
                Some(median) => println!(
                    "warm load + context, {} loads: median {median:.2} ms (fastest {:.2}, slowest {:.2}; load {:.2} + context {:.2})",
                    times.len(),
                    times[0],
                    times[times.len() - 1],
                    loads[loads.len() / 2],
                    contexts[contexts.len() / 2]
                ),
                None => std::process::exit(1),
            }
            return;
        }
    }
    let flag = |name: &str| flag_value(&args, name);
    let focus = flag("--focus")
        .map(PathBuf::from)
        .unwrap_or_else(default_focus);
    // `--no-pi`: focus's rows alone (comparing two builds of focus, say).
    let pi = if args.iter().any(|a| a == "--no-pi") {
        None
    } else {
        flag("--pi").map(PathBuf::from).or_else(find_pi)
    };
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
    write_models_json(&home, &base, 4096);
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
    let mut first_load_faults = None;
    if let Some(session) = &session {
        let me = std::env::current_exe().unwrap_or_default();
        let warm = session_load::warm_pairs(session, pi.as_deref());
        let first = session_load::first_pairs(&me, session, pi.as_deref());
        rows.push(Row::paired(
            "session load + context, 10k entries, warm (ms)",
            &warm,
        ));
        rows.push(Row::paired(
            "session load + context, 10k entries, first in a fresh process (ms)",
            &first,
        ));
        first_load_faults = median(first.focus_faults.clone());
        let copy = work.join("resumed.jsonl");
        let mut resume = Row::new(
            "resume the 10k-entry session, answer once, print mode (ms)",
            resume_ms(session, &copy, || {
                let mut command = Command::new(&focus);
                command.args(["--session".as_ref(), copy.as_os_str()]);
                command.args(["--model", "mock/mock-model", "-p", "say hello"]);
                command.env("FOCUS_HOME", &home).current_dir(&home);
                command
            }),
        );
        if let Some(pi) = &pi {
            let pi_home = work.join("pi-home");
            write_models_json(&pi_home, &base, 4096);
            resume.pi = resume_ms(session, &copy, || {
                let mut command = Command::new(pi);
                command.args(["--session".as_ref(), copy.as_os_str()]);
                command.args(["--provider", "mock", "--model", "mock-model"]);
                command.args(["-p", "say hello"]);
                command
                    .env("PI_CODING_AGENT_DIR", &pi_home)
                    .env("PI_OFFLINE", "1")
                    .current_dir(&work);
                command
            });
        }
        rows.push(resume);
        let html = work.join("export.html");
        let session_arg = session.as_os_str();
        let mut export = Row::new(
            "export the 10k-entry session to HTML, process start to exit (ms)",
            median_ms(5, || {
                let mut command = Command::new(&focus);
                command.arg("--export").arg(session_arg).arg(&html);
                command.env("FOCUS_HOME", &home).current_dir(&home);
                timed(command)
            }),
        );
        if let Some(pi) = &pi {
            export.pi = median_ms(5, || {
                let mut command = Command::new(pi);
                command.arg("--export").arg(session_arg).arg(&html);
                command
                    .env("PI_CODING_AGENT_DIR", work.join("pi-home"))
                    .env("PI_OFFLINE", "1")
                    .current_dir(&work);
                timed(command)
            });
        }
        rows.push(export);
    }

    if let Some(pi) = &pi {
        let pi_home = work.join("pi-home");
        write_models_json(&pi_home, &base, 4096);
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
        let ratio = match (&row.paired_ratio, row.focus, row.pi) {
            (Some(paired), _, _) => paired.clone(),
            (None, Some(f), Some(p)) if f > 0.0 => format!("{:.1}×", p / f),
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
    if let Some(faults) = first_load_faults {
        println!();
        println!("focus's first session load took {faults:.0} page faults (median): each a page of memory touched for the first time");
    }
    let _ = std::fs::remove_dir_all(&work);
}

struct Row {
    name: &'static str,
    focus: Option<f64>,
    pi: Option<f64>,
    /// For measurements taken in pairs: the median of the pairs' ratios.
    paired_ratio: Option<String>,
}

impl Row {
    fn new(name: &'static str, focus: Option<f64>) -> Row {
        Row {
            name,
            focus,
            pi: None,
            paired_ratio: None,
        }
    }

    /// A row of paired samples: each tool's median, and the median ratio of the pairs.
    fn paired(name: &'static str, samples: &session_load::Paired) -> Row {
        Row {
            name,
            focus: median(samples.focus.clone()),
            pi: median(samples.pi.clone()),
            paired_ratio: samples.ratio_summary(),
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

/// The median time of 5 runs that resume a fresh copy of `session` (copied to
/// `copy` before each run, untimed: a resumed session is appended to) and answer
/// once: process start, load, the whole history sent to the mock server, the
/// answer, the new entries written.
fn resume_ms(session: &Path, copy: &Path, command: impl Fn() -> Command) -> Option<f64> {
    median_ms(5, || {
        std::fs::copy(session, copy).ok()?;
        let mut command = command();
        command.env("MOCK_API_KEY", "mock-key");
        timed(command)
    })
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
