//! focus-sys: the one crate of focus allowed to say `unsafe`.
//!
//! std covers almost everything focus needs from the operating system. What it
//! does not wrap is a handful of C library calls, and each lives here behind a
//! safe function, with the constants and struct layouts of every target written
//! out under `cfg`:
//!
//! - [`process`]: children run to a deadline in their own process group
//!   ([`process::Job::run_with_deadline`]), killed as a group (`kill(-pgid, SIGKILL)`),
//!   whether a pid exists (`kill(pid, 0)`), and CPU time (`getrusage`) for benchmarks;
//! - [`terminal`]: `isatty`, `tcgetattr`/`tcsetattr` (raw mode), the window size;
//! - [`signals`]: Ctrl+C counting, stopping ourselves on Ctrl+Z, and recording
//!   SIGTERM, SIGHUP and SIGQUIT so a caller can treat them as an abort;
//! - [`secrets`]: API keys moved out of the environment (and out of
//!   `/proc/PID/environ`, wiped in place through `/proc/self/mem`, or by
//!   restarting without them and handing them over a pipe);
//! - [`fs`]: open flags std does not name (`O_NONBLOCK`), and `flock`;
//! - [`openat`]: opening beneath a directory with no symbolic link followed
//!   (`openat2` with `RESOLVE_BENEATH`, or a walk with `O_NOFOLLOW`), and
//!   `mkdirat`/`renameat`/`unlinkat`, so a file tool writes where it checked;
//! - [`inotify`]: Linux's file change notification (`inotify_init1`,
//!   `inotify_add_watch`, `inotify_rm_watch`, events parsed from the bytes
//!   read), so the file checkpoints compare only the folders that changed;
//! - [`stamp`]: housekeeping at most every so often (a stamp file's age), so
//!   a sweep hundreds of runs would each repeat is done once;
//! - [`private_files`]: files of mode 0600 in folders of mode 0700 (safe code
//!   over std's Unix extensions, here so every crate can share it);
//! - [`landlock`]: confining a child process's file system (and TCP) access with
//!   Linux's Landlock, applied in the child between `fork` and `exec`;
//! - [`jail`]: everything else a tool's child does before `exec`, in order:
//!   [`namespaces`] (read-only mounts of protected paths, a PID namespace with
//!   its own `/proc`), [`rlimits`], [`cgroup`] (a process limit that holds for
//!   root), [`capabilities`] (all dropped) and a [`seccomp`] filter.
//!
//! Every `unsafe` block is one call, with a `SAFETY:` comment saying why the
//! arguments are valid. The rest of the workspace declares
//! `#![forbid(unsafe_code)]`, so this crate is where a reviewer looks.
//!
//! Targets: Linux (x86, x86-64, 32- and 64-bit ARM, RISC-V 64, LoongArch 64,
//! s390x: the architectures sharing the generic `termios` layout), macOS and
//! the BSDs (FreeBSD, OpenBSD, NetBSD, DragonFly). Only Linux is tested here; the
//! others carry constants read from their headers. Any other target fails to
//! build rather than run with wrong numbers.

#![warn(missing_docs)]

#[cfg(not(any(
    all(
        target_os = "linux",
        any(
            target_arch = "x86",
            target_arch = "x86_64",
            target_arch = "arm",
            target_arch = "aarch64",
            target_arch = "riscv64",
            target_arch = "loongarch64",
            target_arch = "s390x",
        )
    ),
    target_os = "macos",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly",
)))]
compile_error!(
    "focus-sys has no constants for this target: add its termios layout, signal numbers \
     and ioctl codes (from the platform's headers) before building focus here"
);

#[cfg(target_os = "linux")]
pub mod capabilities;
#[cfg(target_os = "linux")]
pub mod cgroup;
#[cfg(target_os = "linux")]
mod ffi;
pub mod fs;
pub mod inotify;
#[cfg(target_os = "linux")]
pub mod jail;
pub mod landlock;
#[cfg(target_os = "linux")]
pub mod namespaces;
pub mod openat;
pub mod private_files;
pub mod process;
#[cfg(target_os = "linux")]
pub mod rlimits;
#[cfg(target_os = "linux")]
pub mod seccomp;
pub mod secrets;
pub mod signals;
pub mod stamp;
pub mod terminal;
