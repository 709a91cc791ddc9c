//! Child processes that must never hang focus: a deadline, a process group,
//! output drained on threads, and a reaped child whatever happened; and the
//! CPU time benchmarks read.
//!
//! Every process focus starts on someone's behalf (the bash tool, a user hook,
//! an `!command` API key, an MCP server) can misbehave: loop forever, fork a
//! tree of children, leave a daemon behind holding its output pipe, print
//! gigabytes, never read its input. [`Job::run_with_deadline`] is the one
//! place that waits for such a child, and each of its steps is there for one
//! of those failures.
//!
//! **A process group.** A command such as `npm test` or `make -j` forks
//! children, which fork their own; `cmd &` leaves a background process behind.
//! Killing only the shell would orphan all of them, still running and still
//! holding the output pipe. So the child is started as the leader of a new
//! process group (std's `CommandExt::process_group(0)`, which calls `setpgid`
//! in the child before `exec`), everything it starts inherits the group, and a
//! timeout sends SIGKILL to the whole group at once with `kill(-pgid, SIGKILL)`
//! ([`kill_group`]). The one exception is a helper that must talk to the
//! terminal (a password prompt behind an `!command` key): a process in a
//! background group that reads the terminal is stopped by SIGTTIN and would sit
//! there until the deadline, so [`Job::in_our_group`] keeps it in focus's group
//! and a timeout kills only the child itself.
//!
//! **Output drained on threads.** A pipe holds 64 KiB on Linux (often less
//! elsewhere). A child that writes more than that to a pipe nobody reads
//! blocks in `write`, and a parent that waits for it to exit before reading
//! waits forever: the classic pipe deadlock. Reading stdout and then stderr in
//! turn is no better (the child blocks on a full stderr while we wait on
//! stdout). So each stream gets its own reader thread from the moment the child
//! starts, keeping at most [`Job::keep`] bytes and handing every chunk to
//! [`Job::on_output`] as it arrives. Input is the mirror image: it is written
//! by its own thread, so a child that never reads stdin cannot block us, and
//! that thread's end closes the pipe, which the child sees as end of input.
//!
//! **Polling, not blocking.** std's `Child::wait` has no timeout, so the
//! waiting thread polls `try_wait` every few milliseconds, asking the caller's
//! check in between (an abort, or streaming partial output to a user
//! interface). The poll costs nothing measurable and keeps this std-only.
//! Between two looks it waits on a channel the reader threads send to when
//! their pipe closes, which is usually the moment the child exits: a short
//! command is seen gone at once, not at the next poll.
//!
//! **Kill order.** At the deadline (or on a cancel) the group is killed first,
//! so no grandchild outlives the shell; then the child itself, in case it left
//! the group (`setsid`) or was never put in one; then it is reaped. When the
//! child exits by itself, whatever it left in its group is killed too, unless
//! the caller asked to leave background processes running
//! ([`Job::leave_background`]: the bash tool's `server &`).
//!
//! **Reaping.** Every child is waited for, so none stays a zombie. A pid is
//! signalled only while it cannot name anyone else: an unreaped child holds
//! its id even as a zombie, std's `Child::kill` sends nothing once it has seen
//! the status, and a group id is not handed out again while the group has
//! members. The one signal sent after a reap is the group kill of a child
//! that exited by itself, sent at once: an empty group's id could in principle
//! be reused, but not between two consecutive system calls of ours on systems
//! that hand out ids in turn. [`kill_and_reap`] is the same step for a
//! long-lived child (an MCP server, a curl) that has no deadline but must go
//! when focus says so, and [`reap_if_exited`] for one that ended by itself.
//!
//! **A bounded drain.** Once the child is gone its output pipes normally close
//! at once. A grandchild that escaped the group (or that the caller left
//! running) may keep them open, so the readers are waited for only briefly
//! ([`Job::grace`]); after that the result is returned with what arrived, and
//! the reader threads keep draining in the background (so the straggler never
//! blocks on a full pipe) without passing anything on.
//!
//! std has no call for signalling a group, so `kill(2)` is declared here from
//! the C library std already links, once, wrapped in [`kill_group`] and in
//! [`exists`] (signal 0: "is there such a process?"): the arguments are plain
//! integers and the call has no memory effects on this process. The shells
//! scripts run in are built in one place too ([`sh`], [`bash`]).
//!
//! std has no `getrusage(2)` either: [`cpu_time`] reads the CPU time (user +
//! system, microsecond resolution) of this process or of its reaped children,
//! which benchmarks use where `/proc/PID/stat`'s 10 ms ticks are too coarse.

mod deadline;
mod shell;

pub use deadline::{Ending, Job, OnOutput, Outcome};
pub use shell::{bash, bash_or_sh, sh};

use crate::signals::SIGKILL;
use std::process::{Child, ExitStatus};
use std::thread;
use std::time::{Duration, Instant};

extern "C" {
    /// `int kill(pid_t pid, int sig)`; `pid_t` is 32 bits on every supported
    /// target, and a negative `pid` names a process group.
    fn kill(pid: i32, sig: i32) -> i32;
}

/// `struct timeval`: `time_t` and `suseconds_t` are both `long` on Linux and
/// the BSDs; macOS has a 32-bit `suseconds_t` (then padding).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct TimeVal {
    seconds: std::ffi::c_long,
    #[cfg(not(target_os = "macos"))]
    micros: std::ffi::c_long,
    #[cfg(target_os = "macos")]
    micros: i32,
}

/// `struct rusage`: two `timeval`s, then 14 `long` counters (room for more is
/// kept, so a larger layout could never be written past the end).
#[repr(C)]
#[derive(Default)]
struct RUsage {
    user: TimeVal,
    system: TimeVal,
    counters: [std::ffi::c_long; 32],
}

extern "C" {
    /// `int getrusage(int who, struct rusage *usage)`.
    fn getrusage(who: i32, usage: *mut RUsage) -> i32;
}

/// Whose CPU time [`cpu_time`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Usage {
    /// This process, all its threads (`RUSAGE_SELF`).
    OwnProcess,
    /// The children this process has waited for, and the children they waited
    /// for, all added up (`RUSAGE_CHILDREN`).
    ReapedChildren,
}

/// User and system CPU time so far of `who`, or `None` if `getrusage` fails.
pub fn cpu_time(who: Usage) -> Option<(std::time::Duration, std::time::Duration)> {
    let code = match who {
        Usage::OwnProcess => 0,
        Usage::ReapedChildren => -1,
    };
    let mut usage = RUsage::default();
    // SAFETY: `usage` is a live, writable struct at least as large as the C
    // library's `struct rusage`, and `code` is RUSAGE_SELF or RUSAGE_CHILDREN.
    if unsafe { getrusage(code, &mut usage) } != 0 {
        return None;
    }
    let time = |t: TimeVal| {
        std::time::Duration::from_secs(t.seconds.max(0) as u64)
            + std::time::Duration::from_micros(t.micros.max(0) as u64)
    };
    Some((time(usage.user), time(usage.system)))
}

/// Sends SIGKILL to every process in group `pgid`. Returns whether the signal
/// was delivered (false if the group no longer exists). Refuses group ids that
/// would mean something else to `kill` (0: our own group; 1: init's; values
/// that do not fit a positive `pid_t`).
pub fn kill_group(pgid: u32) -> bool {
    if pgid <= 1 || pgid > i32::MAX as u32 {
        return false;
    }
    let target = -(pgid as i32);
    // SAFETY: kill(2) takes two integers and touches no memory of ours;
    // `target` is negative and below -1, so it can only address the group
    // `pgid`, never "every process we may signal" (-1) or our own group (0).
    unsafe { kill(target, SIGKILL) == 0 }
}

/// Whether a process with id `pid` exists (`kill(pid, 0)`: no signal is sent,
/// only the check). A process of another user exists too (the call then
/// fails with `EPERM`, not `ESRCH`). Ids that mean a group to `kill` (0, and
/// those past `i32::MAX`) are not processes.
pub fn exists(pid: u32) -> bool {
    if pid == 0 || pid > i32::MAX as u32 {
        return false;
    }
    // SAFETY: kill(2) with signal 0 sends nothing and touches no memory of
    // ours; a positive `pid` names one process.
    if unsafe { kill(pid as i32, 0) } == 0 {
        return true;
    }
    std::io::Error::last_os_error().raw_os_error() == Some(EPERM)
}

/// `EPERM`: 1 on every supported target.
const EPERM: i32 = 1;

/// Kills `child`'s process group (if it leads one), then the child itself,
/// then reaps it; does nothing to a child already reaped, whose id may belong
/// to another process by now. Errors are ignored: the point is that nothing
/// is left running and no zombie stays. A child that is not a group leader is
/// safe to pass: no group can bear the id of a live process that does not
/// lead it.
pub fn kill_and_reap(child: &mut Child) {
    // Unreaped, even a child that has just exited holds its id as a zombie, so
    // the group id below names its group or nobody.
    if let Ok(None) = child.try_wait() {
        kill_group(child.id());
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Waits up to `within` for `child` to exit by itself. If it does, reaps it,
/// kills what it left in its group (at once: see the essay on reaping) and
/// returns its status; a child still running is left alone (`None`).
pub fn reap_if_exited(child: &mut Child, within: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + within;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                kill_group(child.id());
                return Some(status);
            }
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    #[test]
    fn cpu_time_counts_own_work_and_reaped_children() {
        let before = cpu_time(Usage::OwnProcess).expect("getrusage");
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let after = cpu_time(Usage::OwnProcess).expect("getrusage");
        assert!(after.0 + after.1 > before.0 + before.1);
        let children = cpu_time(Usage::ReapedChildren).expect("getrusage");
        assert!(children.0 + children.1 < std::time::Duration::from_secs(3600));
    }

    #[test]
    fn refuses_group_ids_with_special_meaning() {
        assert!(!kill_group(0));
        assert!(!kill_group(1));
        assert!(!kill_group(u32::MAX));
    }

    #[test]
    fn kills_a_group_leader_and_reports_a_missing_group() {
        let mut child = Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("sleep starts");
        assert!(kill_group(child.id()));
        let status = child.wait().expect("reaped");
        assert!(!status.success());
        // The group is gone once its only member was reaped.
        assert!(!kill_group(child.id()));
    }

    #[test]
    fn exists_sees_us_and_init_but_not_a_reaped_child() {
        assert!(exists(std::process::id()));
        assert!(
            exists(1),
            "init runs as another user: EPERM still means it exists"
        );
        assert!(!exists(0));
        let mut child = Command::new("true").spawn().expect("true starts");
        let pid = child.id();
        child.wait().expect("reaped");
        assert!(!exists(pid));
    }

    #[test]
    fn reap_if_exited_takes_the_status_and_leaves_a_runner_alone() {
        let mut done = sh("exit 3").process_group(0).spawn().expect("sh starts");
        let status = reap_if_exited(&mut done, Duration::from_secs(5)).expect("exited");
        assert_eq!(status.code(), Some(3));
        let mut running = Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep starts");
        assert!(reap_if_exited(&mut running, Duration::from_millis(20)).is_none());
        kill_and_reap(&mut running);
    }

    #[test]
    fn kill_and_reap_ends_a_child_outside_any_group_of_its_own() {
        let mut child = Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep starts");
        kill_and_reap(&mut child);
        assert!(child.try_wait().expect("status known").is_some());
    }
}
