//! The measuring wrapper: what `focus` on the recipes' PATH is during a soak.
//!
//! `root/bin/focus` is a link to this very program; run under that name with
//! [`REAL`] set, it starts the real focus with the same arguments, waits for
//! it, and appends one line to `$BATCH_SOAK_TIMES/PID.tsv`: the task's id, the
//! focus process's wall time from `fork` to reaped, and the CPU time (user,
//! system) of focus and of every process it waited for (the jail's processes,
//! the commands its tools ran), from `getrusage(RUSAGE_CHILDREN)` before and
//! after: microseconds, not `/proc`'s 10 ms ticks. Then it exits with focus's
//! code (128 + n for a signal, as a shell reports it).
//!
//! So the soak can tell focus's own time from what is not focus's: the `sh`
//! GNU parallel starts for each job, this wrapper's own start, parallel's
//! bookkeeping (all in parallel's run time of the job, not in the wrapper's).

use focus_sys::process::{cpu_time, Usage};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The variable naming the real focus binary (set only in the recipes' environment).
pub const REAL: &str = "BATCH_SOAK_REAL_FOCUS";
/// The variable naming the folder the wrapper writes its lines into.
pub const TIMES: &str = "BATCH_SOAK_TIMES";

/// Runs as the wrapper if this process was started as one; returns otherwise.
pub fn run_if_wrapper() {
    let Some(real) = std::env::var_os(REAL) else {
        return;
    };
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let zero = Duration::ZERO;
    let before = cpu_time(Usage::ReapedChildren).unwrap_or((zero, zero));
    let started = Instant::now();
    let status = Command::new(&real)
        .args(&args)
        .env_remove(REAL)
        .env_remove(TIMES)
        .status();
    let wall = started.elapsed();
    let after = cpu_time(Usage::ReapedChildren).unwrap_or((zero, zero));
    let code = match status {
        Ok(s) => s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)),
        Err(e) => {
            eprintln!(
                "batch_soak wrapper: cannot run {}: {e}",
                Path::new(&real).display()
            );
            127
        }
    };
    let id = args
        .iter()
        .filter_map(|a| a.to_str())
        .find_map(|a| Some(a.split("[soak ").nth(1)?.split(' ').next()?.to_string()))
        .unwrap_or_default();
    if let Some(dir) = std::env::var_os(TIMES) {
        let line = format!(
            "{id}\t{}\t{}\t{}\t{code}\n",
            wall.as_micros(),
            after.0.saturating_sub(before.0).as_micros(),
            after.1.saturating_sub(before.1).as_micros()
        );
        let file = Path::new(&dir).join(format!("{}.tsv", std::process::id()));
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&file)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("batch_soak wrapper: {}: {e}", file.display());
        }
    }
    std::process::exit(code);
}

/// One wrapper line: a focus process as the wrapper saw it.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The task's id.
    pub id: String,
    /// From `fork` to reaped.
    pub wall: Duration,
    /// User CPU time of focus and what it waited for.
    pub user: Duration,
    /// System CPU time of the same.
    pub system: Duration,
}

/// Every line in `dir`, in no particular order (unreadable lines are skipped).
pub fn read_all(dir: &Path) -> Vec<Measured> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            let micros = |i: usize| {
                f.get(i)
                    .and_then(|v| v.parse().ok())
                    .map(Duration::from_micros)
            };
            if let (Some(id), Some(wall), Some(user), Some(system)) =
                (f.first(), micros(1), micros(2), micros(3))
            {
                found.push(Measured {
                    id: id.to_string(),
                    wall,
                    user,
                    system,
                });
            }
        }
    }
    found
}
