//! Resource limits of a tool's process (`setrlimit`), set between `fork` and
//! `exec` and inherited by everything it starts.
//!
//! | field | resource | what happens at the limit |
//! |---|---|---|
//! | `processes` | `RLIMIT_NPROC` | `fork` fails (`EAGAIN`) |
//! | `file_size` | `RLIMIT_FSIZE` | a write past it fails (`EFBIG`; `SIGXFSZ`) |
//! | `data` | `RLIMIT_DATA` | `brk`/`mmap` of private memory fail (`ENOMEM`) |
//! | `cpu_seconds` | `RLIMIT_CPU` | `SIGXCPU`, then `SIGKILL` |
//!
//! `RLIMIT_NPROC` counts the processes of the real user id, and the kernel
//! never applies it to uid 0 (nor to a process with `CAP_SYS_RESOURCE` or
//! `CAP_SYS_ADMIN`). In a fresh user namespace (how focus confines a normal
//! user's tools) the count is kept per namespace, so it counts the tool's
//! processes only. For root, see [`crate::cgroup`]. `RLIMIT_DATA` rather than
//! `RLIMIT_AS`: runtimes such as V8 and Go reserve large address ranges they
//! never touch, which `RLIMIT_AS` counts.
//!
//! A limit above the current hard limit is lowered to it (an unprivileged
//! process cannot raise a hard limit), so applying never fails for that reason.

use std::io;

// Resource numbers: the same on x86-64, AArch64 and the generic table.
const RLIMIT_CPU: i32 = 0;
const RLIMIT_FSIZE: i32 = 1;
const RLIMIT_DATA: i32 = 2;
const RLIMIT_NPROC: i32 = 6;

/// The limits for a tool's process; `None` leaves a resource as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Processes of the user (see the module docs), `RLIMIT_NPROC`.
    pub processes: Option<u64>,
    /// Largest file a process may write, in bytes, `RLIMIT_FSIZE`.
    pub file_size: Option<u64>,
    /// Private memory (heap and anonymous mappings) in bytes, `RLIMIT_DATA`.
    pub data: Option<u64>,
    /// CPU time of each process in seconds, `RLIMIT_CPU`.
    pub cpu_seconds: Option<u64>,
}

/// [`Limits`] checked against the current hard limits, ready for a child.
#[derive(Clone, Copy, Debug)]
pub struct Prepared {
    values: [(i32, Option<u64>); 4],
}

impl Limits {
    /// Lowers each limit to the current hard limit (in the parent: it reads
    /// them with `getrlimit`).
    pub fn prepare(&self) -> Prepared {
        let clamp = |resource: i32, value: Option<u64>| {
            value.map(|v| v.min(crate::ffi::hard_limit(resource).unwrap_or(u64::MAX)))
        };
        Prepared {
            values: [
                (RLIMIT_NPROC, clamp(RLIMIT_NPROC, self.processes)),
                (RLIMIT_FSIZE, clamp(RLIMIT_FSIZE, self.file_size)),
                (RLIMIT_DATA, clamp(RLIMIT_DATA, self.data)),
                (RLIMIT_CPU, clamp(RLIMIT_CPU, self.cpu_seconds)),
            ],
        }
    }
}

impl Prepared {
    /// Sets every limit on the calling process (soft and hard alike, so the
    /// tool cannot raise them again). Async-signal-safe.
    ///
    /// # Errors
    ///
    /// The system error of the first limit the kernel refused.
    pub fn apply(&self) -> io::Result<()> {
        for (resource, value) in self.values {
            if let Some(value) = value {
                crate::ffi::set_limit(resource, value)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    #[test]
    fn a_child_runs_under_the_limits() {
        let limits = Limits {
            file_size: Some(4096),
            cpu_seconds: Some(7),
            ..Limits::default()
        }
        .prepare();
        let mut command = Command::new("sh");
        command.args(["-c", "ulimit -f; ulimit -t; ulimit -Ht"]);
        // SAFETY: apply is async-signal-safe and allocates nothing.
        unsafe {
            command.pre_exec(move || limits.apply());
        }
        let out = command.output().expect("sh runs");
        // `ulimit -f` counts 512-byte blocks in sh, 1024 in bash: either way 4096 bytes.
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0] == "8" || lines[0] == "4", "{text}");
        assert_eq!(&lines[1..], ["7", "7"], "{text}");
    }
}
