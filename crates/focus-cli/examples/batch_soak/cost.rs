//! focus's own cost per run, from three clocks that do not share a bias:
//!
//! - **focus's own wall time**: the wrapper's time from `fork` to reaped of the
//!   focus process (`wrap.rs`) minus the mock model's time answering that
//!   run's requests (`TestServer::answer_times`, from the whole request read
//!   to the last byte written);
//! - **CPU time**: user + system of focus and of everything it waited for (the
//!   jail's processes, the tools' commands), from `getrusage`; on a loaded
//!   machine this still says what a run costs, where wall time mostly says how
//!   long it waited for a core;
//! - **not focus's**: parallel's run time of the job minus the wrapper's wall
//!   time: the `sh` parallel starts, the wrapper's own start, parallel's
//!   bookkeeping. Shown beside, never subtracted silently.
//!
//! A run whose answer never ends (the deadline and SIGTERM tasks: a stream of
//! keepalives until focus leaves) has no "answer time" to subtract (the
//! server notices the client gone only at its next keepalive): those runs count
//! in the CPU figures but not in the wall-time medians, which the report says.

use super::checks::Job;
use super::mock::{self, Mock};
use super::task::{Kind, Task, KINDS};
use super::wrap::Measured;
use std::collections::HashMap;
use std::time::Duration;

/// The figures of one pass.
pub struct Report {
    /// Median of focus's own wall time (ms), runs whose answers end.
    pub own_wall_ms: Option<f64>,
    /// Median CPU time per run (ms), all runs.
    pub cpu_ms: Option<f64>,
}

/// The load average now (1, 5, 15 minutes), as `/proc/loadavg` has it.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("-".into(), |m| format!("{m:.1}"))
}

/// Prints the pass's figures (requests from index `from` on are this pass's)
/// and returns the two headline medians.
pub fn report(
    tasks: &[Task],
    jobs: &[Job],
    measured: &[Measured],
    mock: &Mock,
    from: usize,
    wall: Duration,
    load_before: &str,
) -> Report {
    let requests = mock.server.requests();
    let mut answering: HashMap<String, f64> = HashMap::new();
    for (index, took) in mock.server.answer_times() {
        if index < from {
            continue;
        }
        if let Some((id, _)) = requests.get(index).and_then(mock::task_of) {
            *answering.entry(id).or_default() += ms(took);
        }
    }
    let by_id: HashMap<&str, &Measured> = measured.iter().map(|m| (m.id.as_str(), m)).collect();
    let mut own: HashMap<Kind, Vec<f64>> = HashMap::new();
    let mut cpu: HashMap<Kind, Vec<f64>> = HashMap::new();
    let (mut own_all, mut job_all, mut cpu_all, mut user_all, mut system_all, mut not_focus) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for job in jobs {
        let Some(task) = job.seq.checked_sub(1).and_then(|i| tasks.get(i)) else {
            continue;
        };
        let Some(m) = by_id.get(task.id.as_str()) else {
            continue;
        };
        let answer = answering.get(&task.id).copied().unwrap_or(0.0);
        let run_cpu = ms(m.user + m.system);
        cpu.entry(task.kind).or_default().push(run_cpu);
        cpu_all.push(run_cpu);
        user_all.push(ms(m.user));
        system_all.push(ms(m.system));
        not_focus.push(job.runtime * 1000.0 - ms(m.wall));
        if task.kind.answer_ends() {
            let focus_own = ms(m.wall) - answer;
            own.entry(task.kind).or_default().push(focus_own);
            own_all.push(focus_own);
            job_all.push(job.runtime * 1000.0 - answer);
        }
    }
    let per_kind = |table: &HashMap<Kind, Vec<f64>>| {
        KINDS
            .iter()
            .filter_map(|k| {
                Some(format!(
                    "{} {}",
                    k.name(),
                    fmt(median(table.get(k)?.clone()))
                ))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let result = Report {
        own_wall_ms: median(own_all.clone()),
        cpu_ms: median(cpu_all.clone()),
    };
    println!(
        "focus's own wall time per run (fork to exit, minus the mock's answer time), median: {} ms over {} runs whose answers end ({})",
        fmt(result.own_wall_ms),
        own_all.len(),
        per_kind(&own)
    );
    println!(
        "focus's CPU time per run (user + system, with the processes it waited for), median: {} ms (user {}, system {}) over {} runs ({})",
        fmt(result.cpu_ms),
        fmt(median(user_all)),
        fmt(median(system_all)),
        cpu_all.len(),
        per_kind(&cpu)
    );
    println!(
        "not focus's: parallel's job time minus focus's (sh, the measuring wrapper, parallel), median {} ms; parallel's job time minus the answer time, median {} ms",
        fmt(median(not_focus)),
        fmt(median(job_all))
    );
    println!(
        "the pass took {:.2} s on {} cores; load average {} before, {} after",
        wall.as_secs_f64(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_before,
        load_average()
    );
    if measured.len() < jobs.len() {
        println!(
            "({} of {} runs left no wrapper line: not counted)",
            jobs.len() - measured.len(),
            jobs.len()
        );
    }
    result
}
