//! Killing a whole process group.
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

/// SIGKILL: 9 on every Unix focus builds for (Linux, macOS, the BSDs).
const SIGKILL: i32 = 9;

extern "C" {
    /// `int kill(pid_t pid, int sig)`; `pid_t` is 32 bits on every supported
    /// target, and a negative `pid` names a process group.
    fn kill(pid: i32, sig: i32) -> i32;
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
