//! Landlock: the kernel confines what a child process may write.
//!
//! Linux's Landlock (since 5.13) lets an unprivileged process restrict itself,
//! and everything it later starts, to a set of file hierarchies per kind of
//! access. focus uses it for every process it starts on a tool's behalf: the
//! rules are built in the parent ([`Confinement::new`]: one ruleset file
//! descriptor, one `O_PATH` descriptor per allowed path), and the child applies
//! them between `fork` and `exec` ([`Confinement::apply_to`], through std's
//! `CommandExt::pre_exec`) with two calls that are async-signal-safe:
//! `prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self`. A child that
//! cannot be confined is not started (the spawn fails), so a rule is never
//! silently dropped.
//!
//! The policy is "read and execute anything, write only beneath these paths":
//! every write-like right the running kernel knows is *handled* (so denied by
//! default) and granted back beneath the writable paths. Rights by ABI version:
//!
//! | ABI | kernel | adds |
//! |-----|--------|------|
//! | 1 | 5.13 | write, remove, make (file, dir, symlink, fifo, socket, device) |
//! | 2 | 5.19 | `REFER`: linking or renaming across directories |
//! | 3 | 6.2 | `TRUNCATE` |
//! | 4 | 6.7 | TCP `bind` and `connect` ([`Rules::deny_tcp`]) |
//! | 5 | 6.10 | `IOCTL_DEV`: ioctl on devices (so no `TIOCSTI` into the terminal) |
//! | 6 | 6.12 | scopes: signals and abstract Unix sockets stay inside the sandbox |
//!
//! `MAKE_CHAR`, `MAKE_BLOCK` and `IOCTL_DEV` are handled but never granted,
//! not even beneath the writable paths: no device node is made, and no device
//! (a terminal) takes an ioctl.
//!
//! On an older ABI the newer rights are simply not handled (best effort: a
//! kernel without `TRUNCATE` cannot refuse a truncate); [`abi_version`] says
//! which applies. Elsewhere than Linux, [`abi_version`] is `None` and
//! [`Confinement::new`] fails with [`std::io::ErrorKind::Unsupported`].

use std::io;
use std::path::PathBuf;
use std::process::Command;

/// What a confined child may do beyond reading and executing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    /// Directories beneath which every write-like access is allowed (a path that
    /// does not exist is skipped). Opened, so symbolic links are followed: the
    /// rule covers the directory the link points to.
    pub writable_dirs: Vec<PathBuf>,
    /// Single files that may be opened for writing and truncated (`/dev/null`).
    pub writable_files: Vec<PathBuf>,
    /// Refuse TCP `bind` and `connect` (ABI 4 and later; UDP is not covered),
    /// and keep abstract Unix sockets inside the sandbox (ABI 6).
    pub deny_tcp: bool,
}

#[cfg(target_os = "linux")]
pub use linux::{abi_version, Confinement};

#[cfg(not(target_os = "linux"))]
pub use other::{abi_version, Confinement};

#[cfg(target_os = "linux")]
mod linux {
    use super::Rules;
    use std::fs::OpenOptions;
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::raw::{c_int, c_long, c_void};
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::process::CommandExt;
    use std::path::Path;
    use std::process::Command;
    use std::sync::OnceLock;

    // System call numbers: the same on every architecture with Linux's unified
    // table (x86, x86-64, ARM, AArch64, RISC-V, LoongArch, s390x).
    const SYS_LANDLOCK_CREATE_RULESET: c_long = 444;
    const SYS_LANDLOCK_ADD_RULE: c_long = 445;
    const SYS_LANDLOCK_RESTRICT_SELF: c_long = 446;

    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1 << 0;
    const LANDLOCK_RULE_PATH_BENEATH: c_int = 1;
    const PR_SET_NO_NEW_PRIVS: c_int = 38;
    /// `O_PATH` on the generic ABI: a descriptor naming a file, not opening it.
    const O_PATH: c_int = 0o10000000;

    // File system rights (`LANDLOCK_ACCESS_FS_*`).
    const WRITE_FILE: u64 = 1 << 1;
    const REMOVE_DIR: u64 = 1 << 4;
    const REMOVE_FILE: u64 = 1 << 5;
    const MAKE_CHAR: u64 = 1 << 6;
    const MAKE_DIR: u64 = 1 << 7;
    const MAKE_REG: u64 = 1 << 8;
    const MAKE_SOCK: u64 = 1 << 9;
    const MAKE_FIFO: u64 = 1 << 10;
    const MAKE_BLOCK: u64 = 1 << 11;
    const MAKE_SYM: u64 = 1 << 12;
    const REFER: u64 = 1 << 13;
    const TRUNCATE: u64 = 1 << 14;
    const IOCTL_DEV: u64 = 1 << 15;
    // Network rights (`LANDLOCK_ACCESS_NET_*`).
    const BIND_TCP: u64 = 1 << 0;
    const CONNECT_TCP: u64 = 1 << 1;
    // Scopes (`LANDLOCK_SCOPE_*`).
    const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
    const SCOPE_SIGNAL: u64 = 1 << 1;

    /// `struct landlock_ruleset_attr` as of ABI 6; older kernels accept it as
    /// long as the fields they do not know are zero.
    #[repr(C)]
    struct RulesetAttr {
        handled_access_fs: u64,
        handled_access_net: u64,
        scoped: u64,
    }

    /// `struct landlock_path_beneath_attr` (packed in the kernel's header).
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }

    extern "C" {
        fn syscall(number: c_long, ...) -> c_long;
        fn prctl(option: c_int, ...) -> c_int;
    }

    /// The Landlock ABI version the running kernel offers, `None` when it has
    /// none (too old, or Landlock not enabled at boot). Probed once.
    pub fn abi_version() -> Option<u32> {
        static VERSION: OnceLock<Option<u32>> = OnceLock::new();
        *VERSION.get_or_init(|| {
            // SAFETY: with a null attribute, size 0 and the VERSION flag the
            // call reads no memory and only returns a number.
            let rc = unsafe {
                syscall(
                    SYS_LANDLOCK_CREATE_RULESET,
                    std::ptr::null::<c_void>(),
                    0usize,
                    LANDLOCK_CREATE_RULESET_VERSION,
                )
            };
            u32::try_from(rc).ok().filter(|v| *v >= 1)
        })
    }

    /// The write-like file system rights ABI `abi` knows.
    fn write_rights(abi: u32) -> u64 {
        let mut rights = WRITE_FILE
            | REMOVE_DIR
            | REMOVE_FILE
            | MAKE_CHAR
            | MAKE_DIR
            | MAKE_REG
            | MAKE_SOCK
            | MAKE_FIFO
            | MAKE_BLOCK
            | MAKE_SYM;
        if abi >= 2 {
            rights |= REFER;
        }
        if abi >= 3 {
            rights |= TRUNCATE;
        }
        if abi >= 5 {
            rights |= IOCTL_DEV;
        }
        rights
    }

    /// Rights that may be granted on a single file rather than a directory.
    const FILE_RIGHTS: u64 = WRITE_FILE | TRUNCATE | IOCTL_DEV;

    /// A ruleset ready to be applied in a child: see the module docs.
    #[derive(Debug)]
    pub struct Confinement {
        ruleset: OwnedFd,
        abi: u32,
    }

    impl Confinement {
        /// Builds the ruleset for `rules` in this process (nothing is
        /// restricted yet). Fails with `Unsupported` where the kernel has no
        /// Landlock, and with the kernel's error if a rule is refused.
        ///
        /// # Errors
        ///
        /// `Unsupported` where the kernel has no Landlock; the kernel's error when it refuses the
        /// ruleset or a rule (a path that cannot be opened is skipped, not an error).
        pub fn new(rules: &Rules) -> io::Result<Confinement> {
            let abi = abi_version().ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::Unsupported,
                    "this kernel offers no Landlock (too old, or not enabled at boot)",
                )
            })?;
            let handled_fs = write_rights(abi);
            let attr = RulesetAttr {
                handled_access_fs: handled_fs,
                handled_access_net: if rules.deny_tcp && abi >= 4 {
                    BIND_TCP | CONNECT_TCP
                } else {
                    0
                },
                scoped: match (abi >= 6, rules.deny_tcp) {
                    (false, _) => 0,
                    (true, false) => SCOPE_SIGNAL,
                    (true, true) => SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET,
                },
            };
            // SAFETY: `attr` is a valid `struct landlock_ruleset_attr` of the
            // size passed, which the kernel only reads; fields an older kernel
            // does not know are zero.
            let fd = unsafe {
                syscall(
                    SYS_LANDLOCK_CREATE_RULESET,
                    &attr as *const RulesetAttr,
                    std::mem::size_of::<RulesetAttr>(),
                    0u32,
                )
            };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: the kernel just returned this descriptor (opened with
            // O_CLOEXEC) and nothing else owns it.
            let ruleset = unsafe { OwnedFd::from_raw_fd(fd as c_int) };
            let confinement = Confinement { ruleset, abi };
            // Handled but never granted: making device nodes and ioctl on
            // devices (a tty's TIOCSTI), beneath the writable paths too.
            let granted = handled_fs & !(MAKE_CHAR | MAKE_BLOCK | IOCTL_DEV);
            for dir in &rules.writable_dirs {
                confinement.allow_beneath(dir, granted)?;
            }
            for file in &rules.writable_files {
                confinement.allow_beneath(file, granted & FILE_RIGHTS)?;
            }
            Ok(confinement)
        }

        /// The ABI version the ruleset was built for.
        pub fn abi(&self) -> u32 {
            self.abi
        }

        /// Grants `access` beneath `path`; a path that does not exist is
        /// skipped (nothing beneath it can be written through it anyway).
        fn allow_beneath(&self, path: &Path, access: u64) -> io::Result<()> {
            let file = match OpenOptions::new()
                .read(true)
                .custom_flags(O_PATH)
                .open(path)
            {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("cannot open {} for a sandbox rule: {e}", path.display()),
                    ))
                }
            };
            let access = if file.metadata()?.is_dir() {
                access
            } else {
                access & FILE_RIGHTS
            };
            let attr = PathBeneathAttr {
                allowed_access: access,
                parent_fd: file.as_raw_fd(),
            };
            // SAFETY: `attr` is a valid packed `struct
            // landlock_path_beneath_attr` that the kernel only reads; both
            // descriptors are open for the duration of the call.
            let rc = unsafe {
                syscall(
                    SYS_LANDLOCK_ADD_RULE,
                    self.ruleset.as_raw_fd(),
                    LANDLOCK_RULE_PATH_BENEATH,
                    &attr as *const PathBeneathAttr,
                    0u32,
                )
            };
            if rc != 0 {
                let e = io::Error::last_os_error();
                return Err(io::Error::new(
                    e.kind(),
                    format!(
                        "the kernel refused a sandbox rule for {}: {e}",
                        path.display()
                    ),
                ));
            }
            Ok(())
        }

        /// Restricts the calling process (and everything it starts) to the
        /// ruleset. `no_new_privs` (or `CAP_SYS_ADMIN`) must be set already.
        /// Async-signal-safe: one system call, for use between fork and exec.
        ///
        /// # Errors
        ///
        /// The system error when the kernel refuses the ruleset (no `no_new_privs`, for one).
        pub fn restrict_self(&self) -> io::Result<()> {
            // SAFETY: a plain system call on a descriptor we own; no memory
            // is read or written.
            if unsafe { syscall(SYS_LANDLOCK_RESTRICT_SELF, self.ruleset.as_raw_fd(), 0u32) } != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        }

        /// Makes `command`'s child confine itself before `exec`: it sets
        /// `no_new_privs` (required by Landlock for unprivileged processes, and
        /// it stops set-uid programs from gaining rights) and restricts itself
        /// to the ruleset. If either call fails the child exits and the spawn
        /// returns the error, so the command never runs unconfined.
        pub fn apply_to(self, command: &mut Command) {
            let ruleset = self.ruleset;
            let restrict = move || -> io::Result<()> {
                // SAFETY: prctl with integer arguments only sets a flag on the
                // calling process; it is async-signal-safe.
                if unsafe {
                    prctl(
                        PR_SET_NO_NEW_PRIVS,
                        1 as c_long,
                        0 as c_long,
                        0 as c_long,
                        0 as c_long,
                    )
                } != 0
                {
                    return Err(io::Error::last_os_error());
                }
                // SAFETY: a plain system call on a descriptor the closure owns,
                // inherited across fork; no memory is read or written, and it is
                // async-signal-safe (no allocation happens on this path).
                if unsafe { syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset.as_raw_fd(), 0u32) } != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            };
            // SAFETY: the closure runs in the forked child before exec and
            // makes only two async-signal-safe system calls; it allocates
            // nothing and touches no lock.
            unsafe {
                command.pre_exec(restrict);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod other {
    use super::Rules;
    use std::io;
    use std::process::Command;

    /// No Landlock outside Linux.
    pub fn abi_version() -> Option<u32> {
        None
    }

    /// Where there is no Landlock nothing can be built; see the module docs.
    #[derive(Debug)]
    pub struct Confinement(());

    impl Confinement {
        /// Always fails with `Unsupported` on this target.
        ///
        /// # Errors
        ///
        /// Always: `Unsupported`, since Landlock exists only on Linux.
        pub fn new(_rules: &Rules) -> io::Result<Confinement> {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "Landlock exists only on Linux",
            ))
        }

        /// The ABI version (never reached: no value exists).
        pub fn abi(&self) -> u32 {
            0
        }

        /// Never reached: no value exists.
        pub fn apply_to(self, _command: &mut Command) {}

        /// Never reached: no value exists.
        ///
        /// # Errors
        ///
        /// Never: no value exists to call it on.
        pub fn restrict_self(&self) -> io::Result<()> {
            Ok(())
        }
    }
}

/// Builds a confinement for `rules` and applies it to `command` in one step;
/// see [`Confinement`].
///
/// # Errors
///
/// As [`Confinement::new`]: no Landlock here, or a rule the kernel refuses.
pub fn confine(command: &mut Command, rules: &Rules) -> io::Result<u32> {
    let confinement = Confinement::new(rules)?;
    let abi = confinement.abi();
    confinement.apply_to(command);
    Ok(abi)
}

#[cfg(test)]
#[cfg(target_os = "linux")]
mod tests {
    use super::*;
    use std::path::Path;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("focus-sys-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    fn sh(script: &str, rules: &Rules) -> std::process::Output {
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        confine(&mut command, rules).expect("confined");
        command.output().expect("sh runs")
    }

    #[test]
    fn writes_land_only_beneath_writable_paths() {
        let Some(_) = abi_version() else {
            focus_testkit::skipped("this kernel has no Landlock");
            return;
        };
        let root = temp_dir("rules");
        let inside = root.join("inside");
        let outside = root.join("outside");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let rules = Rules {
            writable_dirs: vec![inside.clone()],
            writable_files: vec![PathBuf::from("/dev/null")],
            deny_tcp: false,
        };
        let script = format!(
            "echo a > {0}/a; echo b > {1}/b; echo c > /dev/null && echo null-ok; mkdir {1}/d; cat {0}/a",
            inside.display(),
            outside.display()
        );
        let out = sh(&script, &rules);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(inside.join("a").exists());
        assert!(!outside.join("b").exists());
        assert!(!outside.join("d").exists());
        assert!(stdout.contains("null-ok"), "{stdout}");
        assert!(stdout.contains('a'));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_symlink_out_of_a_writable_dir_does_not_carry_the_right() {
        let Some(_) = abi_version() else {
            focus_testkit::skipped("this kernel has no Landlock");
            return;
        };
        let root = temp_dir("symlink");
        let inside = root.join("inside");
        let outside = root.join("outside");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, inside.join("link")).unwrap();
        let rules = Rules {
            writable_dirs: vec![inside.clone()],
            ..Rules::default()
        };
        sh(&format!("echo x > {}/link/x", inside.display()), &rules);
        assert!(!Path::new(&outside.join("x")).exists());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_abi_version_is_stable() {
        assert_eq!(abi_version(), abi_version());
    }
}
