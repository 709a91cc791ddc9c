//! Capabilities: a tool keeps none, even when focus runs as root.
//!
//! Root's power is a set of capabilities (`CAP_MKNOD`, `CAP_SYS_ADMIN`,
//! `CAP_DAC_OVERRIDE`…). [`drop_all`] empties every set a process has: the
//! bounding set (so no later `exec`, not even of a set-uid program, can grant
//! one back), the ambient set, and the effective, permitted and inheritable
//! sets. A root tool is then an ordinary user that happens to own root's files:
//! it cannot make device nodes, mount, load modules, trace processes, or write
//! files it does not own. Combined with `no_new_privs`, nothing it runs can
//! climb back.

use std::io;

/// Drops every capability from the bounding, ambient, effective, permitted and
/// inheritable sets of the calling process. Async-signal-safe (system calls
/// only), for use between `fork` and `exec`; dropping the bounding set needs
/// `CAP_SETPCAP`, which root (or the owner of a fresh user namespace) has.
///
/// # Errors
///
/// The system error of the first `prctl` or `capset` the kernel refused (no `CAP_SETPCAP`, for
/// one).
pub fn drop_all() -> io::Result<()> {
    crate::ffi::drop_all_capabilities()
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    #[test]
    fn a_child_keeps_no_capability() {
        let mut command = Command::new("grep");
        command.args(["^Cap", "/proc/self/status"]);
        // SAFETY: drop_all is async-signal-safe and allocates nothing.
        unsafe {
            command.pre_exec(|| {
                crate::ffi::set_no_new_privs()?;
                super::drop_all()
            });
        }
        let out = command.output().expect("grep runs");
        let text = String::from_utf8_lossy(&out.stdout);
        for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            let line = text.lines().find(|l| l.starts_with(set)).expect(set);
            assert!(line.ends_with("0000000000000000"), "{line}");
        }
    }
}
