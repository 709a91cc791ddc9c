//! Processes, read from `/proc` (the soak runs on Linux): the focus process
//! of a task (to send it SIGTERM) and whatever is left in the soak's folder.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A process: its id, its arguments and its working directory.
pub struct Process {
    /// The process id.
    pub pid: u32,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory, when readable.
    pub cwd: Option<std::path::PathBuf>,
}

/// Every process readable now (but this one).
pub fn processes() -> Vec<Process> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args = cmdline
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let cwd = std::fs::read_link(entry.path().join("cwd")).ok();
        found.push(Process { pid, args, cwd });
    }
    found
}

/// Sends SIGTERM to the focus process (the program `focus`, not the measuring
/// wrapper in front of it) whose arguments hold `marker` (its prompt),
/// waiting up to 10 s for it to show up.
pub fn terminate_focus_with(focus: &Path, marker: &str) {
    let give_up = Instant::now() + Duration::from_secs(10);
    while Instant::now() < give_up {
        let target = processes().into_iter().find(|p| {
            p.args.iter().any(|a| a.contains(marker))
                && std::fs::read_link(format!("/proc/{}/exe", p.pid)).is_ok_and(|e| e == focus)
        });
        if let Some(process) = target {
            signal(process.pid, "TERM");
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    eprintln!("batch_soak: no focus process for {marker} to send SIGTERM to");
}

/// The processes whose arguments name `root` or whose working directory lies
/// in it, once none is left or `grace` has passed.
pub fn leftovers(root: &Path, grace: Duration) -> Vec<Process> {
    let needle = root.to_string_lossy().into_owned();
    let until = Instant::now() + grace;
    loop {
        let left: Vec<Process> = processes()
            .into_iter()
            .filter(|p| {
                p.args.iter().any(|a| a.contains(&needle))
                    || p.cwd.as_ref().is_some_and(|c| c.starts_with(root))
            })
            .collect();
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills every process [`leftovers`] finds (after a hang).
pub fn kill_all(root: &Path) {
    for process in leftovers(root, Duration::ZERO) {
        signal(process.pid, "KILL");
    }
}

/// Sends `pid` the signal named `name`, with the shell's own `kill` (there
/// on every system, unlike a `kill` program).
fn signal(pid: u32, name: &str) {
    let _ = Command::new("sh")
        .args(["-c", "kill -s \"$1\" \"$2\"", "sh", name, &pid.to_string()])
        .status();
}
