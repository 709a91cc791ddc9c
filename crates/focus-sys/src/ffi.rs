//! The C library calls a tool's child makes between `fork` and `exec`, each
//! behind a small safe function (crate-private).
//!
//! Everything here is async-signal-safe: a system call or a thin C library
//! wrapper of one, arguments prepared by the caller, no allocation, errors
//! read from `errno` into an [`io::Error`] (which does not allocate for an OS
//! error). System call numbers that differ between architectures are given
//! for x86-64 and AArch64, the targets the jail supports.

use std::ffi::{c_char, c_int, c_long, c_uint, c_ulong, c_void, CStr};
use std::io;

extern "C" {
    fn syscall(number: c_long, ...) -> c_long;
    fn prctl(option: c_int, ...) -> c_int;
    fn mount(
        source: *const c_char,
        target: *const c_char,
        fstype: *const c_char,
        flags: c_ulong,
        data: *const c_void,
    ) -> c_int;
    fn unshare(flags: c_int) -> c_int;
    fn open(path: *const c_char, flags: c_int, ...) -> c_int;
    fn write(fd: c_int, buf: *const c_void, count: usize) -> isize;
    fn read(fd: c_int, buf: *mut c_void, count: usize) -> isize;
    fn close(fd: c_int) -> c_int;
    fn pipe2(fds: *mut c_int, flags: c_int) -> c_int;
    fn waitpid(pid: c_int, status: *mut c_int, options: c_int) -> c_int;
    fn _exit(code: c_int) -> !;
    fn kill(pid: c_int, sig: c_int) -> c_int;
    fn getpid() -> c_int;
    // Also declared in `signals` with a handler type; here the handler is
    // SIG_DFL (0), which no `extern fn` can express.
    #[allow(clashing_extern_declarations)]
    fn signal(sig: c_int, handler: usize) -> usize;
    fn setsid() -> c_int;
    fn setrlimit(resource: c_int, limit: *const [c_ulong; 2]) -> c_int;
    fn getrlimit(resource: c_int, limit: *mut [c_ulong; 2]) -> c_int;
    fn geteuid() -> c_uint;
    fn getuid() -> c_uint;
    fn getgid() -> c_uint;
}

#[cfg(target_arch = "x86_64")]
mod nr {
    pub const CLONE: i64 = 56;
    pub const CAPSET: i64 = 126;
}
#[cfg(any(target_arch = "x86", target_arch = "arm", target_arch = "s390x"))]
mod nr {
    pub const CLONE: i64 = 120;
    pub const CAPSET: i64 = 185;
}
#[cfg(any(
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "loongarch64"
))]
mod nr {
    // The generic system call table.
    pub const CLONE: i64 = 220;
    pub const CAPSET: i64 = 91;
}
// `close_range` and `mount_setattr` came after the tables were unified: the
// same number on every architecture.
const SYS_CLOSE_RANGE: c_long = 436;
const SYS_MOUNT_SETATTR: c_long = 442;

const PR_SET_NO_NEW_PRIVS: c_int = 38;
const PR_SET_SECCOMP: c_int = 22;
const SECCOMP_MODE_FILTER: c_long = 2;
const PR_CAPBSET_DROP: c_int = 24;
const PR_CAP_AMBIENT: c_int = 47;
const PR_CAP_AMBIENT_CLEAR_ALL: c_long = 4;
const SIGCHLD: c_long = 17;
const EINTR: i32 = 4;
const EINVAL: i32 = 22;
const EPERM: i32 = 1;

fn check(rc: c_long) -> io::Result<c_long> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// `prctl(PR_SET_NO_NEW_PRIVS, 1)`: no `exec` may grant privileges again.
///
/// # Errors
///
/// The system error when the kernel refuses the `prctl`.
pub fn set_no_new_privs() -> io::Result<()> {
    // SAFETY: integer arguments only; sets a flag on this process.
    check(unsafe {
        prctl(
            PR_SET_NO_NEW_PRIVS,
            1 as c_long,
            0 as c_long,
            0 as c_long,
            0 as c_long,
        )
    } as c_long)
    .map(drop)
}

/// `prctl(PR_SET_DUMPABLE, 0)`: this process's memory and `/proc` entries are
/// closed to processes without `CAP_SYS_PTRACE` (reset by the next `exec`).
///
/// # Errors
///
/// The system error when the kernel refuses the `prctl`.
pub fn set_not_dumpable() -> io::Result<()> {
    const PR_SET_DUMPABLE: c_int = 4;
    // SAFETY: integer arguments only.
    check(unsafe {
        prctl(
            PR_SET_DUMPABLE,
            0 as c_long,
            0 as c_long,
            0 as c_long,
            0 as c_long,
        )
    } as c_long)
    .map(drop)
}

/// `prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog)`; `prog` must point to a
/// valid `struct sock_fprog` whose program stays alive during the call.
///
/// # Errors
///
/// The system error when the kernel refuses the filter (no seccomp, no `no_new_privs`, a bad
/// program).
pub fn set_seccomp_filter(prog: *const c_void) -> io::Result<()> {
    // SAFETY: the caller passes a pointer to a live `struct sock_fprog`; the
    // kernel copies the program and keeps no reference to our memory.
    check(unsafe { prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog) } as c_long).map(drop)
}

/// Drops every capability from the bounding set (one `PR_CAPBSET_DROP` per
/// number until the kernel says the number is unknown), clears the ambient set,
/// then empties the effective, permitted and inheritable sets with `capset`.
///
/// # Errors
///
/// The system error of the first `prctl` or `capset` the kernel refused.
pub fn drop_all_capabilities() -> io::Result<()> {
    for cap in 0..64 as c_long {
        // SAFETY: integer arguments only.
        let rc = unsafe { prctl(PR_CAPBSET_DROP, cap, 0 as c_long, 0 as c_long, 0 as c_long) };
        if rc != 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(EINVAL) {
                break; // past the last capability this kernel knows
            }
            if e.raw_os_error() == Some(EPERM) {
                // No CAP_SETPCAP: a normal user outside a user namespace,
                // whose bounding set no exec can use with no_new_privs set.
                break;
            }
            return Err(e);
        }
    }
    // SAFETY: integer arguments only.
    let rc = unsafe {
        prctl(
            PR_CAP_AMBIENT,
            PR_CAP_AMBIENT_CLEAR_ALL,
            0 as c_long,
            0 as c_long,
            0 as c_long,
        )
    };
    // Kernels before 4.3 have no ambient set: nothing to clear.
    if rc != 0 && io::Error::last_os_error().raw_os_error() != Some(EINVAL) {
        return Err(io::Error::last_os_error());
    }
    // `struct __user_cap_header_struct` (version 3) and two
    // `struct __user_cap_data_struct` (effective, permitted, inheritable).
    let header: [u32; 2] = [0x2008_0522, 0];
    let data: [u32; 6] = [0; 6];
    // SAFETY: both pointers are to live arrays of the layout the kernel reads.
    check(unsafe { syscall(nr::CAPSET as c_long, header.as_ptr(), data.as_ptr()) }).map(drop)
}

/// `unshare(flags)`.
///
/// # Errors
///
/// The system error when the kernel refuses to make the namespaces.
pub fn unshare_namespaces(flags: c_int) -> io::Result<()> {
    // SAFETY: an integer argument only.
    check(unsafe { unshare(flags) } as c_long).map(drop)
}

/// `mount(source, target, fstype, flags, data)` with optional strings.
///
/// # Errors
///
/// The system error when the kernel refuses the mount.
pub fn mount_fs(
    source: Option<&CStr>,
    target: &CStr,
    fstype: Option<&CStr>,
    flags: c_ulong,
    data: Option<&CStr>,
) -> io::Result<()> {
    let ptr = |s: Option<&CStr>| s.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: every pointer is null or a live NUL-terminated string.
    check(unsafe {
        mount(
            ptr(source),
            target.as_ptr(),
            ptr(fstype),
            flags,
            ptr(data).cast(),
        )
    } as c_long)
    .map(drop)
}

/// `mount_setattr(AT_FDCWD, path, AT_RECURSIVE, {attr_set: attr})`.
///
/// # Errors
///
/// The system error when the kernel refuses the change (no `mount_setattr` before Linux 5.12).
pub fn mount_set_attr(path: &CStr, attr: u64) -> io::Result<()> {
    const AT_FDCWD: c_int = -100;
    const AT_RECURSIVE: c_uint = 0x8000;
    // `struct mount_attr`: attr_set, attr_clr, propagation, userns_fd.
    let attrs: [u64; 4] = [attr, 0, 0, 0];
    // SAFETY: `path` is NUL-terminated and `attrs` a live `struct mount_attr`
    // of the size passed.
    check(unsafe {
        syscall(
            SYS_MOUNT_SETATTR,
            AT_FDCWD,
            path.as_ptr(),
            AT_RECURSIVE,
            attrs.as_ptr(),
            std::mem::size_of_val(&attrs),
        )
    })
    .map(drop)
}

/// Opens `path` for writing, writes all of `bytes`, closes it.
///
/// # Errors
///
/// The system error when `path` cannot be opened or written.
pub fn write_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    const O_WRONLY: c_int = 1;
    const O_CLOEXEC: c_int = 0o2000000;
    // SAFETY: `path` is NUL-terminated.
    let fd = check(unsafe { open(path.as_ptr(), O_WRONLY | O_CLOEXEC) } as c_long)? as c_int;
    let result = write_all(fd, bytes);
    close_fd(fd);
    result
}

/// Writes all of `bytes` to `fd`, retrying on `EINTR`.
///
/// # Errors
///
/// The system error of a write that failed (other than `EINTR`).
pub fn write_all(fd: c_int, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a live buffer of the length passed.
        let n = unsafe { write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(EINTR) {
                continue;
            }
            return Err(e);
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// Reads into `buf` until it is full or the end of input; returns the count.
pub fn read_full(fd: c_int, buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: the tail of `buf` is live and writable for the length passed.
        let n = unsafe { read(fd, buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        if n < 0 && io::Error::last_os_error().raw_os_error() == Some(EINTR) {
            continue;
        }
        if n <= 0 {
            break;
        }
        got += n as usize;
    }
    got
}

/// `close(fd)`, errors ignored.
pub fn close_fd(fd: c_int) {
    // SAFETY: closing a descriptor touches no memory.
    unsafe { close(fd) };
}

/// Closes every descriptor in `first..=last` (`close_range`, Linux 5.9); on an
/// older kernel, one `close` each up to 1024.
pub fn close_range(first: c_uint, last: c_uint) {
    if first > last {
        return;
    }
    // SAFETY: integer arguments only.
    if unsafe { syscall(SYS_CLOSE_RANGE, first, last, 0 as c_uint) } != 0 {
        for fd in first..=last.min(1024) {
            close_fd(fd as c_int);
        }
    }
}

/// `pipe2(O_CLOEXEC)`: (read end, write end).
///
/// # Errors
///
/// The system error when no pipe can be made (too many open descriptors).
pub fn pipe() -> io::Result<(c_int, c_int)> {
    const O_CLOEXEC: c_int = 0o2000000;
    let mut fds = [0 as c_int; 2];
    // SAFETY: `fds` is a live array of two ints.
    check(unsafe { pipe2(fds.as_mut_ptr(), O_CLOEXEC) } as c_long)?;
    Ok((fds[0], fds[1]))
}

/// A plain `fork` as the raw `clone` system call (no `atfork` handlers, so no
/// C library lock is taken in a child of a multi-threaded program). Returns 0
/// in the child and the child's pid in the parent.
///
/// # Errors
///
/// The system error when the kernel cannot make the process.
pub fn fork_raw() -> io::Result<c_int> {
    // SAFETY: clone with only the exit signal set and no new stack behaves as
    // fork: the child continues on a copy of this stack.
    // s390x takes the stack first and the flags second.
    let (first, second) = if cfg!(target_arch = "s390x") {
        (0 as c_long, SIGCHLD)
    } else {
        (SIGCHLD, 0 as c_long)
    };
    check(unsafe {
        syscall(
            nr::CLONE as c_long,
            first,
            second,
            0 as c_long,
            0 as c_long,
            0 as c_long,
        )
    })
    .map(|pid| pid as c_int)
}

/// `waitpid(pid, &status, 0)` retried on `EINTR`: (pid, raw status).
///
/// # Errors
///
/// The system error of `waitpid` (no such child, for one).
pub fn wait_for(pid: c_int) -> io::Result<(c_int, c_int)> {
    loop {
        let mut status: c_int = 0;
        // SAFETY: `status` is a live int.
        let rc = unsafe { waitpid(pid, &mut status, 0) };
        if rc >= 0 {
            return Ok((rc, status));
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(EINTR) {
            return Err(e);
        }
    }
}

/// Ends this process at once with `code` (no destructors, no `atexit`).
pub fn exit_now(code: c_int) -> ! {
    // SAFETY: `_exit` never returns and touches no memory of ours.
    unsafe { _exit(code) }
}

/// Ends this process the way a child ended (`status` as `waitpid` gave it):
/// the same exit code, or the same signal with its default action.
pub fn exit_like(status: c_int) -> ! {
    let signal = status & 0x7f;
    if signal == 0 {
        exit_now((status >> 8) & 0xff);
    }
    // No core file of this copy of focus: RLIMIT_CORE 0.
    let _ = set_limit(4, 0);
    // SAFETY: resetting a disposition to SIG_DFL (0) and signalling ourselves
    // touch no memory of ours.
    unsafe {
        signal_default(signal);
        kill(getpid(), signal);
    }
    exit_now(128 + signal)
}

/// Resets `sig` to its default action.
///
/// # Safety
/// Changes process-wide signal state; call only in a single-threaded child.
unsafe fn signal_default(sig: c_int) {
    signal(sig, 0);
}

/// Sends SIGKILL to every process this one may signal (`kill(-1)`): inside a
/// PID namespace, run by its init, everything in the namespace but itself.
pub fn kill_everyone_else() {
    // SAFETY: integer arguments only.
    unsafe { kill(-1, 9) };
}

/// `setsid()`: a new session without a controlling terminal.
///
/// # Errors
///
/// The system error when the process already leads a process group.
pub fn new_session() -> io::Result<()> {
    // SAFETY: no arguments.
    check(unsafe { setsid() } as c_long).map(drop)
}

/// `setrlimit(resource, {value, value})` (soft and hard limit alike). `rlim_t`
/// is an `unsigned long`; a value it cannot hold means "unlimited".
///
/// # Errors
///
/// The system error when the kernel refuses the limit (raising a hard limit without privilege).
pub fn set_limit(resource: c_int, value: u64) -> io::Result<()> {
    let value = c_ulong::try_from(value).unwrap_or(c_ulong::MAX);
    let limit = [value, value];
    // SAFETY: `limit` is a live `struct rlimit` (two `rlim_t`).
    check(unsafe { setrlimit(resource, &limit) } as c_long).map(drop)
}

/// The hard limit of `resource` now (`None` if `getrlimit` fails).
pub fn hard_limit(resource: c_int) -> Option<u64> {
    let mut limit: [c_ulong; 2] = [0; 2];
    // SAFETY: `limit` is a live, writable `struct rlimit`; the call only writes it.
    if unsafe { getrlimit(resource, &mut limit) } != 0 {
        return None;
    }
    // `unsigned long` is 64 bits on 64-bit targets, 32 on the others.
    #[allow(clippy::unnecessary_cast)]
    Some(limit[1] as u64)
}

/// The effective user id.
pub fn effective_uid() -> u32 {
    // SAFETY: no arguments, cannot fail.
    unsafe { geteuid() }
}

/// The real user and group ids.
pub fn real_ids() -> (u32, u32) {
    // SAFETY: no arguments, cannot fail.
    unsafe { (getuid(), getgid()) }
}
