//! Start-up and print-mode overhead of the `focus` binary.
//!
//! `cargo build --release -p focus-cli && cargo run --release -p focus-cli --example bench_cli`
//!
//! Measures, as medians over repeated runs of the release binary:
//! - `focus --version` and `focus --help` wall time (target: under 5 ms);
//! - a print-mode run (`focus -p --no-session --no-tools`) against a loopback mock
//!   model that answers at once, next to a bare `curl` POST of the same size to the
//!   same server: the difference is what focus adds (target: under 20 ms);
//! - focus's peak resident set size during that run, as the kernel reports it
//!   (VmHWM, printed by the binary under `FOCUS_REPORT_PEAK_RSS`; target: under 10 MB).

use focus_testkit::mock_llm::{MockLlm, Scenario};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn focus_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // target/release/examples/bench_cli → target/release/focus
    let dir = exe.parent().and_then(|p| p.parent()).expect("target dir");
    let binary = dir.join("focus");
    assert!(
        binary.exists(),
        "{} not found: run `cargo build --release -p focus-cli` first",
        binary.display()
    );
    binary
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time_runs(runs: usize, mut make: impl FnMut() -> Command) -> Duration {
    let samples = (0..runs)
        .map(|_| {
            let mut cmd = make();
            cmd.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            let start = Instant::now();
            let status = cmd.status().expect("run");
            let elapsed = start.elapsed();
            assert!(status.success(), "{cmd:?} failed");
            elapsed
        })
        .collect();
    median(samples)
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let focus = focus_binary();
    let sandbox = std::env::temp_dir().join(format!("focus-bench-cli-{}", std::process::id()));
    let home = sandbox.join("home");
    std::fs::create_dir_all(&home).unwrap();

    let version = time_runs(50, || {
        let mut c = Command::new(&focus);
        c.arg("--version");
        c
    });
    let help = time_runs(50, || {
        let mut c = Command::new(&focus);
        c.arg("--help");
        c
    });
    println!("focus --version            median {}", ms(version));
    println!("focus --help               median {}", ms(help));

    let scenario =
        Scenario::parse(r#"{"name":"bench","steps":[{"reply":{"text":"ok"}}]}"#).expect("scenario");
    let server = MockLlm::start(scenario);
    std::fs::write(
        home.join("models.json"),
        format!(
            r#"{{"providers":{{"bench":{{"baseUrl":"{}/v1","api":"openai-completions","apiKey":"k","models":[{{"id":"m"}}]}}}}}}"#,
            server.url()
        ),
    )
    .unwrap();
    let focus_cmd = || {
        let mut c = Command::new(&focus);
        c.args([
            "-p",
            "--no-session",
            "--no-tools",
            "--model",
            "bench/m",
            "hi",
        ])
        .current_dir(&sandbox)
        .env("FOCUS_HOME", &home)
        .env("FOCUS_OFFLINE", "1");
        c
    };
    let body = r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    let url = format!("{}/v1/chat/completions", server.url());
    let curl_cmd = || {
        let mut c = Command::new("curl");
        c.args([
            "-sS",
            "-N",
            "-H",
            "content-type: application/json",
            "--data-binary",
            body,
            &url,
        ]);
        c
    };
    // Warm up both (page cache, server threads).
    time_runs(3, focus_cmd);
    time_runs(3, curl_cmd);
    let print_run = time_runs(30, focus_cmd);
    let bare_curl = time_runs(30, curl_cmd);
    println!("focus -p (loopback mock)   median {}", ms(print_run));
    println!("bare curl, same server     median {}", ms(bare_curl));
    println!(
        "added by focus             {}",
        ms(print_run.saturating_sub(bare_curl))
    );

    let out = focus_cmd()
        .env("FOCUS_REPORT_PEAK_RSS", "1")
        .output()
        .expect("run focus");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss = stderr
        .lines()
        .find_map(|l| l.strip_prefix("focus-peak-rss: "))
        .unwrap_or("unknown");
    println!("focus peak RSS (VmHWM)     {rss}");
    let _ = std::fs::remove_dir_all(&sandbox);
}
