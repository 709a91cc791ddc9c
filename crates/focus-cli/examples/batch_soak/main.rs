//! `batch_soak N`: N focus runs through GNU parallel against the mock model,
//! with outcomes drawn at random from a seed, every one checked
//! (docs/batch.md, "How it is tested"). `scripts/batch-soak N` builds it and
//! the release focus and runs it; `.ci/run` runs it with 50.
//!
//! Usage: `batch_soak N [--seed S] [--jobs J] [--focus BIN] [--keep]`
//! (`--jobs` is only reported: the recipe says `--jobs 8`; `--keep` leaves
//! the soak's folder for a look). Exits 1 on any mismatch, 2 on bad usage.

mod checks;
mod cost;
mod mock;
mod procs;
mod recipe;
mod task;
mod wrap;

#[path = "../bench_support/mod.rs"]
mod bench_support;

use bench_support::{default_focus, flag_value};
use checks::Job;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use task::{Kind, Task, KINDS};

/// The soak's settings: the bounds every run has (a deadline of a second,
/// three model calls), `touch` allowed, retries quick, the mock model.
const SETTINGS: &str = r#"{"defaultProvider":"mock","defaultModel":"mock-model",
"maxTurns":3,"deadlineSeconds":1,"retry":{"maxRetries":1,"baseDelayMs":1,"maxDelayMs":2},
"permissions":{"allow":["bash(touch:*)"]}}"#;

/// A job that ran longer than its deadline by this much hung.
const HANG: f64 = 10.0;

fn main() {
    // Started as `focus` by a recipe: measure the real focus and leave.
    wrap::run_if_wrapper();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(n) = args
        .first()
        .and_then(|a| a.parse::<usize>().ok())
        .filter(|n| *n > 0)
    else {
        eprintln!("usage: batch_soak N [--seed S] [--focus BIN] [--keep]");
        std::process::exit(2);
    };
    let seed = flag_value(&args, "--seed")
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(30, |d| d.as_secs())
        });
    let focus = flag_value(&args, "--focus")
        .map(PathBuf::from)
        .unwrap_or_else(default_focus);
    // The recipes find it through a link in the soak's folder: a full path.
    let focus = std::fs::canonicalize(&focus).unwrap_or(focus);
    let keep = args.iter().any(|a| a == "--keep");
    let root = std::env::temp_dir().join(format!("focus-batch-soak-{}", std::process::id()));
    let outcome = soak(n, seed, &focus, &root);
    if keep {
        println!("soak folder kept: {}", root.display());
    } else {
        let _ = std::fs::remove_dir_all(&root);
    }
    match outcome {
        Ok(()) => println!("batch-soak: {n} runs, seed {seed}: all checks passed"),
        Err(problems) => {
            for problem in &problems {
                eprintln!("batch-soak: {problem}");
            }
            eprintln!(
                "batch-soak: FAILED, {} problem(s) in {n} runs (seed {seed}; repeat with --seed {seed})",
                problems.len()
            );
            std::process::exit(1);
        }
    }
}

/// The whole soak; the problems found.
fn soak(n: usize, seed: u64, focus: &Path, root: &Path) -> Result<(), Vec<String>> {
    let one = |e: String| vec![e];
    if !focus.is_file() {
        return Err(one(format!("no focus binary at {}", focus.display())));
    }
    let doc = std::fs::read_to_string(recipe::doc_path()).map_err(|e| one(e.to_string()))?;
    let run_block = recipe::block(&doc, "run").map_err(one)?;
    let resume_block = recipe::block(&doc, "resume").map_err(one)?;
    let k8s_block = recipe::block(&doc, "k8s-index").map_err(one)?;
    let _ = std::fs::remove_dir_all(root);
    let setup = || -> std::io::Result<Vec<Task>> {
        std::fs::create_dir_all(root.join("bin"))?;
        std::fs::create_dir_all(root.join("times"))?;
        // `focus` on the recipes' PATH is this program, measuring the real
        // one (wrap.rs); the recipes run unchanged.
        std::os::unix::fs::symlink(std::env::current_exe()?, root.join("bin/focus"))?;
        std::fs::create_dir_all(root.join("home"))?;
        std::fs::write(root.join("home/settings.json"), SETTINGS)?;
        task::make_tasks(root, n, seed)
    };
    let tasks = setup().map_err(|e| one(format!("setting up {}: {e}", root.display())))?;
    let mock = mock::Mock::start(focus);
    bench_support::write_models_json(
        &root.join("home"),
        &format!("{}/v1", mock.server.url()),
        4096,
    );
    let env = environment(root, focus);
    let limit = Duration::from_secs(60) + Duration::from_millis(300 * n as u64);
    let mut problems = Vec::new();
    let counts: Vec<String> = KINDS
        .iter()
        .map(|k| {
            format!(
                "{} {}",
                tasks.iter().filter(|t| t.kind == *k).count(),
                k.name()
            )
        })
        .collect();
    println!(
        "batch-soak: {n} runs, seed {seed}, 8 at a time: {}",
        counts.join(", ")
    );

    // The first pass: the recipe as docs/batch.md has it.
    let load_before = cost::load_average();
    let started = Instant::now();
    let ran = recipe::run("bash", &run_block, root, &env, limit, root).map_err(one)?;
    let wall = started.elapsed();
    let failed_expected = tasks.iter().filter(|t| t.kind != Kind::Finish).count();
    if ran.hung {
        problems.push(format!("HANG: the run recipe did not end within {limit:?}"));
    } else if ran.code != Some(failed_expected.min(101) as i32) {
        problems.push(format!(
            "parallel exited {:?}, expected {} (the failed jobs); stderr: {}",
            ran.code,
            failed_expected,
            ran.stderr.trim()
        ));
    }
    let jobs = checks::read_joblog(&root.join("out/joblog")).map_err(one)?;
    let (found, _) = checks::check_records(
        &tasks,
        &jobs,
        &root.join("out/results"),
        &root.join("out/sessions"),
        &|t| t.kind,
    );
    problems.extend(found);
    problems.extend(hangs(&jobs));
    let files = checks::session_files(&root.join("out/sessions")).len();
    if files != n {
        problems.push(format!("{files} session files for {n} runs"));
    }
    problems.extend(left_over(root));
    let first_pass_requests = mock.server.request_count();
    let measured = wrap::read_all(&root.join("times"));
    let figures = cost::report(&tasks, &jobs, &measured, &mock, 0, wall, &load_before);
    // Judged by wall time only; the CPU time is printed beside it, for a
    // machine whose other work shares the cores (the load average says).
    println!(
        "target (issue 30): focus's own wall time ≤ 15 ms median at 8 runs at once: {}",
        match figures.own_wall_ms {
            Some(w) if w <= 15.0 => "met".to_string(),
            Some(w) => format!(
                "NOT met ({w:.1} ms, at load average {load_before}; CPU time per run {} ms)",
                figures.cpu_ms.map_or("-".into(), |c| format!("{c:.1}"))
            ),
            None => "not measured".to_string(),
        }
    );
    // Later passes' wrapper lines are not counted.
    let _ = std::fs::remove_dir_all(root.join("times"));
    let _ = std::fs::create_dir_all(root.join("times"));

    // The resume pass: every failure was transient; exactly the failed jobs run again.
    mock.healed.store(true, std::sync::atomic::Ordering::SeqCst);
    let ran = recipe::run("bash", &resume_block, root, &env, limit, root).map_err(one)?;
    if ran.hung || ran.code != Some(0) {
        problems.push(format!(
            "the resume recipe: exit {:?}, hung {}; stderr: {}",
            ran.code,
            ran.hung,
            ran.stderr.trim()
        ));
    }
    let all_jobs = checks::read_joblog(&root.join("out/joblog")).map_err(one)?;
    let rerun: Vec<&Job> = all_jobs[jobs.len().min(all_jobs.len())..].iter().collect();
    if rerun.len() != failed_expected {
        problems.push(format!(
            "--resume-failed ran {} jobs again, {failed_expected} had failed",
            rerun.len()
        ));
    }
    for job in &rerun {
        if tasks
            .get(job.seq - 1)
            .is_some_and(|t| t.kind == Kind::Finish)
        {
            problems.push(format!(
                "--resume-failed ran job {} again, which had succeeded",
                job.seq
            ));
        }
    }
    let (found, _) = checks::check_records(
        &tasks,
        &all_jobs,
        &root.join("out/results"),
        &root.join("out/sessions"),
        &|_| Kind::Finish,
    );
    problems.extend(found);
    problems.extend(hangs(&rerun.into_iter().cloned().collect::<Vec<_>>()));
    let files = checks::session_files(&root.join("out/sessions")).len();
    if files != n + failed_expected {
        problems.push(format!(
            "{files} session files after {} runs",
            n + failed_expected
        ));
    }
    let requests = mock.server.requests();
    for request in &requests[first_pass_requests..] {
        if let Some((id, Kind::Finish)) = mock::task_of(request) {
            problems.push(format!(
                "{id}: succeeded, yet asked the model again on resume"
            ));
        }
    }
    problems.extend(left_over(root));

    // The Kubernetes pod's script, for the first two indexes.
    for (index, task) in tasks.iter().enumerate().take(2) {
        let mut env = env.clone();
        env.push(("JOB_COMPLETION_INDEX", index.to_string()));
        env.push((
            "TASKS",
            root.join("tasks.tsv").to_string_lossy().into_owned(),
        ));
        env.push(("RESULTS", root.join("k8s").to_string_lossy().into_owned()));
        let ran = recipe::run("sh", &k8s_block, root, &env, limit, root).map_err(one)?;
        // The task is the only one checked: its job is number 1.
        let job = Job {
            seq: 1,
            runtime: 0.0,
            exitval: ran.code.unwrap_or(-1),
            signal: 0,
        };
        let (found, _) = checks::check_records(
            std::slice::from_ref(task),
            &[job],
            &root.join("k8s"),
            &root.join("k8s/sessions"),
            &|_| Kind::Finish,
        );
        problems.extend(found.into_iter().map(|p| format!("k8s index {index}: {p}")));
    }
    problems.extend(left_over(root));
    match problems.is_empty() {
        true => Ok(()),
        false => Err(problems),
    }
}

/// The recipes' environment: focus (the measuring wrapper in front of `focus`)
/// on PATH, the soak's FOCUS_HOME and HOME, no model probing, a plain shell
/// for parallel's jobs.
fn environment(root: &Path, focus: &Path) -> Vec<(&'static str, String)> {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
    vec![
        ("PATH", format!("{}:{path}", root.join("bin").display())),
        (
            "FOCUS_HOME",
            root.join("home").to_string_lossy().into_owned(),
        ),
        ("HOME", root.to_string_lossy().into_owned()),
        ("SHELL", "/bin/sh".into()),
        ("FOCUS_OFFLINE", "1".into()),
        ("NO_COLOR", "1".into()),
        ("MOCK_API_KEY", "mock-key".into()),
        (wrap::REAL, focus.to_string_lossy().into_owned()),
        (
            wrap::TIMES,
            root.join("times").to_string_lossy().into_owned(),
        ),
    ]
}

/// Jobs that ran past their deadline (a second) by [`HANG`] seconds.
fn hangs(jobs: &[Job]) -> Vec<String> {
    jobs.iter()
        .filter(|j| j.runtime > 1.0 + HANG)
        .map(|j| format!("HANG: job {} ran {:.1} s", j.seq, j.runtime))
        .collect()
}

/// Processes left in the soak's folder, named.
fn left_over(root: &Path) -> Vec<String> {
    procs::leftovers(root, Duration::from_secs(2))
        .into_iter()
        .map(|p| format!("process {} left over: {}", p.pid, p.args.join(" ")))
        .collect()
}
