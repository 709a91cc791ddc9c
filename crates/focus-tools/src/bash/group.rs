//! Killing a whole process group: the one piece of `unsafe` in focus-tools.
//!
//! A command such as `npm test` or `make -j` forks children, which fork their
//! own; `cmd &` leaves a background process behind. Killing only the shell
//! would orphan all of them, still running and still holding the output pipe.
//! So the shell is started as the leader of a new process group (std's
//! `CommandExt::process_group(0)`, which calls `setpgid` in the child before
//! `exec`), everything it starts inherits the group, and a timeout or an abort
//! sends SIGKILL to the whole group at once with `kill(-pgid, SIGKILL)`.
//!
//! std has no call for signalling a group, so `kill(2)` is declared here from
//! the C library std already links. It is wrapped in [`kill_group`], a safe
//! function: the arguments are plain integers and the call has no memory
//! effects on this process.

/// SIGKILL on every Unix focus supports (Linux, the BSDs, macOS).
const SIGKILL: i32 = 9;

extern "C" {
    /// `int kill(pid_t pid, int sig)` from libc; a negative `pid` names a
    /// process group.
    fn kill(pid: i32, sig: i32) -> i32;
}

/// Sends SIGKILL to every process in group `pgid`. Returns whether the signal
/// was delivered (false if the group no longer exists). Refuses group ids that
/// would mean something else to `kill` (0: our own group; values that do not
/// fit a positive `pid_t`).
pub fn kill_group(pgid: u32) -> bool {
    if pgid <= 1 || pgid > i32::MAX as u32 {
        return false;
    }
    let target = -(pgid as i32);
    // SAFETY: kill(2) takes two integers and touches no memory of ours;
    // `target` is negative and not -1, so it can only address the group
    // `pgid`, never "every process we may signal" (-1) or our own group (0).
    unsafe { kill(target, SIGKILL) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_group_ids_with_special_meaning() {
        assert!(!kill_group(0));
        assert!(!kill_group(1));
        assert!(!kill_group(u32::MAX));
    }
}
