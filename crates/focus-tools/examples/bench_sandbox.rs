//! Benchmark: what the kernel sandbox costs per tool call.
//!
//! Run with `cargo run --release -p focus-tools --example bench_sandbox`. Two
//! figures, each the median of many runs:
//!
//! - **setup**: building the Landlock ruleset for default mode in the parent
//!   (`Sandbox::confine`: one ruleset, one rule per writable path);
//! - **spawn**: starting and reaping `/bin/true` confined, against the same
//!   unconfined; the difference is what the child pays (`prctl` and
//!   `landlock_restrict_self` between fork and exec).
//!
//! Target: setup plus the spawn difference at most 2 ms per tool call.

use focus_tools::gates::Mode;
use focus_tools::sandbox::{Sandbox, SandboxSettings};
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 400;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let project = std::env::temp_dir().join(format!("focus-bench-sandbox-{}", std::process::id()));
    std::fs::create_dir_all(&project).expect("project dir");
    let sandbox = Sandbox::new(&SandboxSettings::default(), &project).expect("sandbox");
    if !sandbox.is_enforcing() {
        println!("{}: nothing to measure", sandbox.describe());
        return;
    }
    println!("{}", sandbox.describe());
    for mode in [Mode::Default, Mode::Plan] {
        sandbox.set_mode(mode);
        let mut setup = Vec::new();
        let mut confined = Vec::new();
        let mut plain = Vec::new();
        for _ in 0..RUNS {
            let started = Instant::now();
            let mut command = Command::new("/bin/true");
            sandbox.confine(&mut command).expect("confine");
            setup.push(started.elapsed());
            let started = Instant::now();
            command.status().expect("true runs");
            confined.push(started.elapsed());
            let started = Instant::now();
            Command::new("/bin/true").status().expect("true runs");
            plain.push(started.elapsed());
        }
        let (setup, confined, plain) = (median(setup), median(confined), median(plain));
        let extra = confined.saturating_sub(plain);
        println!(
            "{:<13} setup {:>7.1} µs · spawn confined {:>7.1} µs vs plain {:>7.1} µs · per call {:>7.1} µs (target ≤ 2000 µs)",
            mode.as_str(),
            setup.as_secs_f64() * 1e6,
            confined.as_secs_f64() * 1e6,
            plain.as_secs_f64() * 1e6,
            (setup + extra).as_secs_f64() * 1e6,
        );
    }
    sandbox.remove_temp_dir();
    let _ = std::fs::remove_dir_all(&project);
}
