//! Killing a whole process group, and reading CPU time.
//!
//! A command such as `npm test` or `make -j` forks children, which fork their
//! own; `cmd &` leaves a background process behind. Killing only the shell
//! would orphan all of them, still running and still holding the output pipe.
//! So focus starts each child as the leader of a new process group (std's
//! `CommandExt::process_group(0)`, which calls `setpgid` in the child before
//! `exec`), everything it starts inherits the group, and a timeout or an abort
//! sends SIGKILL to the whole group at once with `kill(-pgid, SIGKILL)`.
//!
//! std has no call for signalling a group, so `kill(2)` is declared here from
//! the C library std already links, wrapped in [`kill_group`]: the arguments
//! are plain integers and the call has no memory effects on this process.
//!
//! std has no `getrusage(2)` either: [`cpu_time`] reads the CPU time (user +
//! system, microsecond resolution) of this process or of its reaped children,
//! which benchmarks use where `/proc/PID/stat`'s 10 ms ticks are too coarse.

/// SIGKILL: 9 on every Unix focus builds for (Linux, macOS, the BSDs).
const SIGKILL: i32 = 9;

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
}
