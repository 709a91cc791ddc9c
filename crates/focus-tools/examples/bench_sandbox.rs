//! Benchmark: what the kernel sandbox costs per tool call.
//!
//! Run with `cargo run --release -p focus-tools --example bench_sandbox`. For
//! default and plan mode, 1,000 rounds of:
//!
//! - **setup**: building the confinement in the parent (`Sandbox::confine`:
//!   the Landlock ruleset, the seccomp program, the namespace plan with the
//!   project's protected paths, the limits);
//! - **spawn**: starting and reaping `/bin/true` confined, against the same
//!   unconfined; the difference is what the child pays (the mount and PID
//!   namespaces with their extra fork and `/proc` mount, the read-only
//!   mounts, `setrlimit`, dropping capabilities, `landlock_restrict_self` and
//!   the seccomp filter, between fork and exec).
//!
//! Printed: median and worst of setup + spawn difference per call. Target:
//! the median at most 2 ms per tool call. The project is a git repository, so
//! its `config`, `hooks` and `info` are mounted read-only every time.

use focus_tools::gates::Mode;
use focus_tools::sandbox::{Sandbox, SandboxSettings};
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 1000;

fn main() {
    let project = std::env::temp_dir().join(format!("focus-bench-sandbox-{}", std::process::id()));
    std::fs::create_dir_all(&project).expect("project dir");
    let _ = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project)
        .status();
    let sandbox = Sandbox::new(&SandboxSettings::default(), &project).expect("sandbox");
    if !sandbox.is_enforcing() {
        println!("{}: nothing to measure", sandbox.describe());
        return;
    }
    println!("{}", sandbox.describe());
    // FOCUS_BENCH_RUNS overrides the count (a quick look, or a run under strace).
    let runs = std::env::var("FOCUS_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(RUNS);
    for mode in [Mode::Default, Mode::Plan] {
        sandbox.set_mode(mode);
        let mut per_call = Vec::with_capacity(runs);
        let mut setups = Vec::with_capacity(runs);
        let mut plains = Vec::with_capacity(runs);
        for _ in 0..runs {
            let started = Instant::now();
            let mut command = Command::new("/bin/true");
            sandbox.confine(&mut command).expect("confine");
            let setup = started.elapsed();
            let started = Instant::now();
            let status = command.status().expect("true runs");
            assert!(status.success(), "a confined /bin/true failed: {status:?}");
            let confined = started.elapsed();
            let started = Instant::now();
            Command::new("/bin/true").status().expect("true runs");
            let plain = started.elapsed();
            setups.push(setup);
            plains.push(plain);
            per_call.push(setup + confined.saturating_sub(plain));
        }
        let (median, worst) = spread(&mut per_call);
        let (setup, _) = spread(&mut setups);
        let (plain, _) = spread(&mut plains);
        println!(
            "{:<9} per call: median {:>7.1} µs, worst {:>8.1} µs (setup median {:>6.1} µs; \
             plain spawn {:>6.1} µs) over {runs} spawns (target: median ≤ 2000 µs)",
            mode.as_str(),
            micros(median),
            micros(worst),
            micros(setup),
            micros(plain),
        );
    }
    sandbox.remove_temp_dir();
    let _ = std::fs::remove_dir_all(&project);
}

/// Median and maximum.
fn spread(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort();
    (samples[samples.len() / 2], samples[samples.len() - 1])
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
