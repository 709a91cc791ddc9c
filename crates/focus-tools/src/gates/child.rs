//! Running a child process that must never hang the agent: its own process group
//! (so a timeout kills the shell *and* what it started), a deadline, and output
//! readers that are abandoned if a stray grandchild keeps the pipes open.
//!
//! Shared by user hooks and MCP servers.

use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Kills every process in the group led by `pid` (the child was started with
/// `process_group(0)`, so its group id is its pid). Errors (the group is already
/// gone) are ignored: the goal is that nothing is left running.
pub fn kill_process_group(pid: u32) {
    // Refuses 0 and 1 ("our own group", init's), so nothing else is signalled.
    focus_sys::process::kill_group(pid);
}

/// What a finished (or killed) command produced.
#[derive(Debug)]
pub struct Finished {
    /// Exit status, `None` if it was killed at the deadline.
    pub status: Option<ExitStatus>,
    /// Captured standard output (lossy UTF-8, capped).
    pub stdout: String,
    /// Captured standard error (lossy UTF-8, capped).
    pub stderr: String,
    /// Whether the deadline killed it.
    pub timed_out: bool,
}

/// Output kept per stream; the rest is dropped (a hook printing forever must not
/// exhaust memory).
const MAX_CAPTURE: usize = 64 * 1024;

/// Runs `command` in its own process group with `stdin_data` on standard input,
/// killing the group after `timeout`. Never waits longer than `timeout` plus a short
/// grace period, whatever the command does.
pub fn run_with_timeout(
    mut command: Command,
    stdin_data: &[u8],
    timeout: Duration,
) -> Result<Finished, String> {
    use std::os::unix::process::CommandExt;
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command.spawn().map_err(|e| format!("cannot start: {e}"))?;
    let stdin = child.stdin.take();
    let data = stdin_data.to_vec();
    // A writer thread: a command that never reads stdin must not block us.
    thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&data);
        }
    });
    let stdout = spawn_reader(child.stdout.take());
    let stderr = spawn_reader(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let (status, timed_out) = wait_until(&mut child, deadline);
    // Readers finish when every holder of the pipes is gone; a grandchild that
    // escaped the group could keep them open, so wait only briefly.
    let grace = Duration::from_millis(300);
    Ok(Finished {
        status,
        stdout: stdout.recv_timeout(grace).unwrap_or_default(),
        stderr: stderr.recv_timeout(grace).unwrap_or_default(),
        timed_out,
    })
}

/// Waits for `child` until `deadline`; at the deadline kills its group and reaps it.
pub fn wait_until(child: &mut Child, deadline: Instant) -> (Option<ExitStatus>, bool) {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                // The shell exited; anything it left in its group goes too.
                kill_process_group(child.id());
                return (Some(status), false);
            }
            Ok(None) => {}
            Err(_) => break,
        }
        if Instant::now() >= deadline {
            break;
        }
        thread::sleep(Duration::from_millis(5));
    }
    kill_process_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
    (None, true)
}

fn spawn_reader<R: Read + Send + 'static>(pipe: Option<R>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(mut pipe) = pipe {
            let mut buf = [0u8; 8192];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let room = MAX_CAPTURE.saturating_sub(kept.len());
                        kept.extend_from_slice(&buf[..n.min(room)]);
                    }
                }
            }
        }
        let _ = tx.send(String::from_utf8_lossy(&kept).into_owned());
    });
    rx
}
