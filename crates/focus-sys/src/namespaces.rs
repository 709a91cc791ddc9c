//! Namespaces: a tool's own view of the mounts and of the processes.
//!
//! **Read-only paths inside a writable tree.** Landlock only grants; it cannot
//! take a right back beneath a directory it granted (a project's `.git/config`
//! beneath the writable project). A mount can: in a mount namespace of its
//! own, the child bind-mounts each protected path onto itself and makes that
//! mount read-only (`mount_setattr(MOUNT_ATTR_RDONLY)`, or a read-only
//! remount on kernels before 5.12). The mounts are private to the child and
//! what it starts; writing, creating, renaming or removing beneath them fails
//! with `EROFS` (a mount point cannot be renamed or removed either: `EBUSY`).
//! As root `CLONE_NEWNS` suffices; a normal user first makes a user namespace
//! (`CLONE_NEWUSER`) mapping its own uid and gid to themselves, which is what
//! allows the mounts. The seccomp filter then refuses every mount call, and
//! the dropped capabilities would refuse them anyway.
//!
//! **Other processes invisible.** With `CLONE_NEWPID` the child's children are
//! in a new PID namespace. `unshare` does not move the caller, so the child
//! (A, still outside, leading the process group focus kills) forks once more:
//! B is the new namespace's init (pid 1). B mounts a fresh `/proc`, which
//! shows only the namespace's processes, so no `/proc/PID/environ`, `cmdline`
//! or `mem` of any process outside is reachable. B forks C, which becomes the
//! tool's command. Then:
//!
//! - A waits for a report from B over a pipe: C's wait status. It then ends
//!   the same way (same exit code, or the same signal), so focus sees the
//!   command's status as if A were the command. A closes every descriptor but
//!   the pipe and its standard streams first, so std's spawn (which waits for
//!   its close-on-exec error pipe to close) returns as soon as C has `exec`ed.
//! - B stays in A's process group, and C starts a session of its own (so it
//!   has no controlling terminal: no `/dev/tty`, no `TIOCSTI` into the user's
//!   shell). Killing the group (a timeout, an abort, the end of a hook) kills B,
//!   and when a namespace's init dies the kernel kills everything in it,
//!   even processes that left the group with `setsid`.
//! - B reaps every orphan of the namespace and stays alive while any process
//!   is left in it (`server &` keeps running after the shell exits, as
//!   before). Each time it reaps one it checks that a `fork` still succeeds:
//!   one that fails with `EAGAIN` means the namespace hit its process limit (a
//!   fork bomb), and B kills everything in the namespace; if C was still
//!   running, A prints why on standard error.
//!
//! A and B are copies of focus's memory that never `exec`; both are made
//! non-dumpable first, so the command cannot read B (pid 1 in its namespace)
//! through `/proc/1/mem`, `environ` or `cmdline`.
//!
//! The extra fork costs a few hundred microseconds (`examples/bench_sandbox.rs`).
//! Where namespaces are not available (a kernel without user namespaces, a
//! container that forbids them) [`probe`] says so, and the caller falls back.

use std::ffi::{c_int, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::ffi;

const CLONE_NEWNS: c_int = 0x0002_0000;
const CLONE_NEWUSER: c_int = 0x1000_0000;
const CLONE_NEWPID: c_int = 0x2000_0000;
const MS_RDONLY: u64 = 1;
const MS_NOSUID: u64 = 2;
const MS_NODEV: u64 = 4;
const MS_NOEXEC: u64 = 8;
const MS_REMOUNT: u64 = 32;
const MS_BIND: u64 = 4096;
const MS_REC: u64 = 16384;
const MS_PRIVATE: u64 = 1 << 18;
const MOUNT_ATTR_RDONLY: u64 = 1;
const EAGAIN: i32 = 11;

/// Which namespaces this system lets focus make for a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Support {
    /// A mount namespace (so read-only protected paths).
    pub mounts: bool,
    /// A PID namespace with its own `/proc`.
    pub pids: bool,
    /// Whether a user namespace is needed first (not root, or root without
    /// `CAP_SYS_ADMIN`).
    pub user: bool,
}

/// What a child sets up: built in the parent ([`Plan::new`]), carried out in
/// the child ([`Plan::enter`], then [`Plan::split_pid`]).
#[derive(Debug)]
pub struct Plan {
    support: Support,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    pinned: Vec<CString>,
    read_only: Vec<CString>,
    cgroup_procs: Option<CString>,
    limit_message: Vec<u8>,
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"))
}

fn c(text: &str) -> &std::ffi::CStr {
    std::ffi::CStr::from_bytes_with_nul(text.as_bytes()).expect("NUL-terminated literal")
}

impl Plan {
    /// A plan for `support`: `pinned` paths (existing directories, resolved)
    /// are bound onto themselves writable, so they are mount points that
    /// cannot be renamed or removed; `read_only` paths (existing, resolved)
    /// become read-only mounts; `cgroup_procs` is a control group's `cgroup.procs` to
    /// join first; `limit_message` is what A prints when B stopped a fork bomb.
    ///
    /// # Errors
    ///
    /// `InvalidInput` when a path holds a NUL byte.
    pub fn new(
        support: Support,
        pinned: &[&Path],
        read_only: &[&Path],
        cgroup_procs: Option<&Path>,
        limit_message: &str,
    ) -> io::Result<Plan> {
        let (uid, gid) = ffi::real_ids();
        Ok(Plan {
            support,
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            pinned: pinned
                .iter()
                .map(|p| c_path(p))
                .collect::<io::Result<_>>()?,
            read_only: read_only
                .iter()
                .map(|p| c_path(p))
                .collect::<io::Result<_>>()?,
            cgroup_procs: cgroup_procs.map(c_path).transpose()?,
            limit_message: limit_message.as_bytes().to_vec(),
        })
    }

    /// Whether [`Plan::split_pid`] will make a PID namespace.
    pub fn has_pid_namespace(&self) -> bool {
        self.support.pids
    }

    /// In the child (A): joins the control group, makes the namespaces, maps
    /// the ids, and mounts the protected paths read-only. Async-signal-safe.
    ///
    /// # Errors
    ///
    /// The system error of the first step the kernel refused (joining the group, `unshare`, the
    /// id maps, a mount); the child must not run the command then.
    pub fn enter(&self) -> io::Result<()> {
        if let Some(procs) = &self.cgroup_procs {
            ffi::write_file(procs, b"0")?;
        }
        if !self.support.mounts {
            return Ok(());
        }
        let mut flags = CLONE_NEWNS;
        if self.support.user {
            flags |= CLONE_NEWUSER;
        }
        if self.support.pids {
            flags |= CLONE_NEWPID;
        }
        ffi::unshare_namespaces(flags)?;
        if self.support.user {
            ffi::write_file(c("/proc/self/setgroups\0"), b"deny")?;
            ffi::write_file(c("/proc/self/uid_map\0"), &self.uid_map)?;
            ffi::write_file(c("/proc/self/gid_map\0"), &self.gid_map)?;
        }
        // Nothing mounted here may propagate back to the system's namespace.
        ffi::mount_fs(None, c("/\0"), None, MS_REC | MS_PRIVATE, None)?;
        for path in &self.pinned {
            ffi::mount_fs(Some(path), path, None, MS_BIND | MS_REC, None)?;
        }
        for path in &self.read_only {
            ffi::mount_fs(Some(path), path, None, MS_BIND | MS_REC, None)?;
            if ffi::mount_set_attr(path, MOUNT_ATTR_RDONLY).is_err() {
                ffi::mount_fs(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)?;
            }
        }
        Ok(())
    }

    /// In the child (A), after [`Plan::enter`]: forks B (init of the new PID
    /// namespace) and C (the command), as the module docs describe. Returns
    /// only in C; A and B never return. Does nothing without a PID namespace.
    ///
    /// # Errors
    ///
    /// The system error when a fork or the pipe between A and B fails; the child must not run
    /// the command then.
    pub fn split_pid(&self) -> io::Result<()> {
        if !self.support.pids {
            return Ok(());
        }
        // A and B are copies of focus's memory (keys included) that never
        // exec: not dumpable, so the command cannot read them through
        // `/proc/1/mem` or `environ` (C's exec makes C dumpable again).
        ffi::set_not_dumpable()?;
        let (report_read, report_write) = ffi::pipe()?;
        let b = ffi::fork_raw()?;
        if b != 0 {
            ffi::close_fd(report_write);
            ffi::close_range(3, report_read as u32 - 1);
            ffi::close_range(report_read as u32 + 1, u32::MAX);
            self.wait_as_a(report_read, b);
        }
        // B: pid 1 of the new namespace.
        ffi::close_fd(report_read);
        ffi::mount_fs(
            Some(c("proc\0")),
            c("/proc\0"),
            Some(c("proc\0")),
            MS_NOSUID | MS_NODEV | MS_NOEXEC,
            None,
        )?;
        let command = ffi::fork_raw()?;
        if command == 0 {
            // C: the command, in a session of its own (no controlling terminal).
            ffi::close_fd(report_write);
            ffi::new_session()?;
            return Ok(());
        }
        ffi::close_range(0, report_write as u32 - 1);
        ffi::close_range(report_write as u32 + 1, u32::MAX);
        init_loop(command, report_write)
    }

    /// A: ends as C ended (B's report), or as B ended if B sent none.
    fn wait_as_a(&self, report: c_int, b: c_int) -> ! {
        let mut buf = [0u8; 5];
        if ffi::read_full(report, &mut buf) == 5 {
            if buf[4] == 1 {
                let _ = ffi::write_all(2, &self.limit_message);
            }
            ffi::exit_like(i32::from_ne_bytes([buf[0], buf[1], buf[2], buf[3]]));
        }
        match ffi::wait_for(b) {
            Ok((_, status)) => ffi::exit_like(status),
            Err(_) => ffi::exit_now(127),
        }
    }
}

/// B's life: reap, report C's status once, stop a fork bomb, leave when the
/// namespace is empty.
fn init_loop(command: c_int, report: c_int) -> ! {
    let mut reported = false;
    let send = |status: c_int, at_limit: bool| {
        let s = status.to_ne_bytes();
        let _ = ffi::write_all(report, &[s[0], s[1], s[2], s[3], u8::from(at_limit)]);
        ffi::close_fd(report);
    };
    loop {
        let Ok((pid, status)) = ffi::wait_for(-1) else {
            ffi::exit_now(0); // no child left: the namespace is empty
        };
        if pid == command && !reported {
            reported = true;
            // A command that ended while the namespace is full (a shell
            // that could not fork) is reported as stopped at the limit.
            let full = at_process_limit();
            if full {
                ffi::kill_everyone_else();
            }
            send(status, full);
            if full {
                ffi::exit_now(0);
            }
            continue;
        }
        if at_process_limit() {
            ffi::kill_everyone_else();
            if !reported {
                send(9, true); // as if C was killed by SIGKILL
            }
            ffi::exit_now(0);
        }
    }
}

/// Whether a `fork` fails for lack of processes now (the probe child exits at once).
fn at_process_limit() -> bool {
    match ffi::fork_raw() {
        Ok(0) => ffi::exit_now(0),
        Ok(pid) => {
            let _ = ffi::wait_for(pid);
            false
        }
        Err(e) => e.raw_os_error() == Some(EAGAIN),
    }
}

/// Whether this process runs as root (effective uid 0).
pub fn is_root() -> bool {
    ffi::effective_uid() == 0
}

/// What this system allows, tried once in a throw-away child (which leaves
/// with `_exit(0)` where a command would `exec`) with the whole setup: mounts
/// and a PID namespace with `/proc`, else mounts alone; as root without a user
/// namespace first, then with one.
pub fn probe() -> Option<Support> {
    static FOUND: OnceLock<Option<Support>> = OnceLock::new();
    *FOUND.get_or_init(|| {
        let root = ffi::effective_uid() == 0;
        let users: &[bool] = if root { &[false, true] } else { &[true] };
        for pids in [true, false] {
            for &user in users {
                let support = Support {
                    mounts: true,
                    pids,
                    user,
                };
                if works(support) {
                    return Some(support);
                }
            }
        }
        None
    })
}

fn works(support: Support) -> bool {
    let Ok(plan) = Plan::new(support, &[], &[], None, "") else {
        return false;
    };
    // The program is never run: the child that would become the command
    // leaves with 0 once the whole setup succeeded (an `exec` proves
    // nothing more about namespaces, and it was half of the probe's cost).
    let mut command = Command::new("/");
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: enter and split_pid are async-signal-safe: system calls on
    // buffers prepared in `plan`, no allocation; `exit_now` is `_exit(2)`.
    unsafe {
        command.pre_exec(move || {
            plan.enter()?;
            plan.split_pid()?;
            ffi::exit_now(0)
        });
    }
    command.status().is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(plan: Plan, script: &str) -> std::process::Output {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        // SAFETY: see `works`.
        unsafe {
            command.pre_exec(move || {
                plan.enter()?;
                plan.split_pid()
            });
        }
        command.output().expect("sh runs")
    }

    #[test]
    fn a_protected_path_is_read_only_and_the_rest_writable() {
        let Some(support) = probe() else {
            eprintln!("SKIPPED: no namespaces here");
            return;
        };
        let root = std::env::temp_dir().join(format!("focus-sys-ns-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("guarded")).unwrap();
        std::fs::write(root.join("config"), "kept\n").unwrap();
        let guarded = root.join("guarded");
        let config = root.join("config");
        let plan = Plan::new(support, &[&root], &[&guarded, &config], None, "").unwrap();
        let out = run(
            plan,
            &format!(
                "cd {}; echo x > guarded/new; echo x > config; mv config c2; mv ../$(basename {0}) ../moved-away; echo y > free && echo free-ok; \
                 echo pid=$$; ls /proc | grep -c '^[0-9]'",
                root.display()
            ),
        );
        assert!(root.exists());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("free-ok"), "{text}");
        assert!(!guarded.join("new").exists());
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "kept\n");
        if support.pids {
            // B is pid 1, the command pid 2.
            assert!(text.contains("pid=2"), "{text}");
        }
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_exit_status_passes_through() {
        let Some(support) = probe() else {
            eprintln!("SKIPPED: no namespaces here");
            return;
        };
        let out = run(Plan::new(support, &[], &[], None, "").unwrap(), "exit 7");
        assert_eq!(out.status.code(), Some(7));
        let out = run(
            Plan::new(support, &[], &[], None, "").unwrap(),
            "kill -TERM $$; sleep 1; exit 3",
        );
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(15), "{:?}", out.status);
    }
}
