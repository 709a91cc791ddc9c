//! Opening files beneath a directory without following any symbolic link, so a
//! path checked before a write is the path written, whatever another process
//! swaps in between.
//!
//! A tool resolves a path, checks it (inside the project? protected?), then
//! writes. If the write opens the *path* again, a process that replaces a
//! directory on it by a symbolic link between the check and the open redirects
//! the write anywhere. Here every open starts from a directory already open
//! (`root`) and walks a relative path that must contain no symbolic link at
//! all: a link found on the way (planted, or swapped in) makes the open fail
//! with `ELOOP` instead of being followed.
//!
//! On Linux ≥ 5.6 the kernel does the walk in one call: `openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`. Where it is
//! missing (`ENOSYS`, or `EPERM` from a seccomp filter that does not know it),
//! and on other systems, the walk is done component by component with
//! `openat(…, O_NOFOLLOW)` from the directory descriptor, which holds the same
//! way: each step opens a name inside the directory opened by the step before.
//!
//! [`mkdir_at`], [`rename_at`] and [`unlink_at`] act on one name inside an open
//! directory (`mkdirat`, `renameat`, `unlinkat`), so a replacement by rename
//! happens in the directory that was checked.

use std::ffi::{CStr, CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::raw::{c_char, c_int, c_uint};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

/// How [`open_beneath`] opens the last component.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Open {
    /// Open for reading.
    pub read: bool,
    /// Open for writing.
    pub write: bool,
    /// Create the file, failing if it exists, with this mode (less the umask).
    pub create_new: Option<u32>,
    /// Open without blocking (a FIFO does not wait for a writer).
    pub nonblock: bool,
    /// The last component must be a directory (opened for reading).
    pub directory: bool,
    /// Only name the file, for `fstat` (Linux's `O_PATH`: opening has no
    /// effect on a device or FIFO); elsewhere a non-blocking read-only open.
    pub path_only: bool,
}

// Open flags. Linux: the generic ABI, with ARM's own O_DIRECTORY/O_NOFOLLOW.
#[cfg(target_os = "linux")]
pub(crate) mod flags {
    use std::os::raw::c_int;
    pub const O_RDONLY: c_int = 0;
    pub const O_WRONLY: c_int = 1;
    pub const O_RDWR: c_int = 2;
    pub const O_CREAT: c_int = 0o100;
    pub const O_EXCL: c_int = 0o200;
    pub const O_NONBLOCK: c_int = 0o4000;
    pub const O_CLOEXEC: c_int = 0o2000000;
    pub const O_PATH: c_int = 0o10000000;
    #[cfg(any(target_arch = "arm", target_arch = "aarch64"))]
    pub const O_DIRECTORY: c_int = 0o40000;
    #[cfg(any(target_arch = "arm", target_arch = "aarch64"))]
    pub const O_NOFOLLOW: c_int = 0o100000;
    #[cfg(not(any(target_arch = "arm", target_arch = "aarch64")))]
    pub const O_DIRECTORY: c_int = 0o200000;
    #[cfg(not(any(target_arch = "arm", target_arch = "aarch64")))]
    pub const O_NOFOLLOW: c_int = 0o400000;
}

// macOS and the BSDs share these values; O_DIRECTORY and O_CLOEXEC differ
// between them, so they are not used there (a directory is checked with
// `fstat` after opening instead).
#[cfg(not(target_os = "linux"))]
pub(crate) mod flags {
    use std::os::raw::c_int;
    pub const O_RDONLY: c_int = 0;
    pub const O_WRONLY: c_int = 1;
    pub const O_RDWR: c_int = 2;
    pub const O_CREAT: c_int = 0x200;
    pub const O_EXCL: c_int = 0x800;
    pub const O_NONBLOCK: c_int = 0x4;
    pub const O_CLOEXEC: c_int = 0;
    pub const O_PATH: c_int = 0;
    pub const O_DIRECTORY: c_int = 0;
    pub const O_NOFOLLOW: c_int = 0x100;
}

use flags::*;

extern "C" {
    fn openat(dirfd: c_int, path: *const c_char, flags: c_int, ...) -> c_int;
    fn mkdirat(dirfd: c_int, path: *const c_char, mode: c_uint) -> c_int;
    fn renameat(
        olddirfd: c_int,
        oldpath: *const c_char,
        newdirfd: c_int,
        newpath: *const c_char,
    ) -> c_int;
    fn unlinkat(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int;
}

impl Open {
    fn flags(&self) -> c_int {
        let mut flags = match (self.read, self.write) {
            (_, false) => O_RDONLY,
            (false, true) => O_WRONLY,
            (true, true) => O_RDWR,
        };
        if self.create_new.is_some() {
            flags |= O_CREAT | O_EXCL;
        }
        if self.nonblock {
            flags |= O_NONBLOCK;
        }
        if self.directory {
            flags |= O_DIRECTORY;
        }
        if self.path_only {
            flags = if O_PATH != 0 {
                O_PATH
            } else {
                O_RDONLY | O_NONBLOCK
            };
        }
        flags | O_CLOEXEC | O_NOFOLLOW
    }
}

/// Opens `relative` beneath the open directory `root`, following no symbolic
/// link on the way or at the end (see the module docs). `relative` must be
/// relative and free of `..`; an empty path (or `.`) opens `root` itself again.
///
/// # Errors
///
/// `InvalidInput` for an absolute path or one with `..`; the system's error (`ELOOP` for a symbolic
/// link met on the way or at the end, `ENOENT`, `EACCES`…) when a step cannot be opened.
pub fn open_beneath(root: &File, relative: &Path, how: Open) -> io::Result<File> {
    let names = names_of(relative)?;
    #[cfg(target_os = "linux")]
    {
        if let Some(result) = linux::openat2_beneath(root, &names, how) {
            return result.and_then(|file| checked(file, how));
        }
    }
    walk(root, &names, how).and_then(|file| checked(file, how))
}

/// The components of `relative`, refusing what cannot stay beneath.
fn names_of(relative: &Path) -> io::Result<Vec<CString>> {
    let mut names = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(name) => names.push(c_name(name)?),
            Component::CurDir => {}
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is not a plain relative path", relative.display()),
                ))
            }
        }
    }
    Ok(names)
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a name holds a NUL byte"))
}

/// Where `O_DIRECTORY` is not used: a directory asked for must be one.
fn checked(file: File, how: Open) -> io::Result<File> {
    if how.directory && O_DIRECTORY == 0 && !file.metadata()?.is_dir() {
        return Err(io::Error::other("not a directory"));
    }
    Ok(file)
}

/// The portable walk: one `openat(…, O_NOFOLLOW)` per component.
fn walk(root: &File, names: &[CString], how: Open) -> io::Result<File> {
    let Some((last, dirs)) = names.split_last() else {
        return open_one(
            root,
            c".",
            Open {
                directory: true,
                ..how
            },
        );
    };
    let mut dir: Option<File> = None;
    for name in dirs {
        let from = dir.as_ref().unwrap_or(root);
        let next = open_one(
            from,
            name,
            Open {
                directory: true,
                ..Open::default()
            },
        )?;
        dir = Some(checked(
            next,
            Open {
                directory: true,
                ..Open::default()
            },
        )?);
    }
    open_one(dir.as_ref().unwrap_or(root), last, how)
}

fn open_one(dir: &File, name: &CStr, how: Open) -> io::Result<File> {
    let mode = how.create_new.unwrap_or(0) as c_uint;
    // SAFETY: `dir` is an open descriptor, `name` a NUL-terminated string that
    // outlives the call, and the mode is passed as the variadic `unsigned int`
    // `openat` reads when O_CREAT is set.
    let fd = unsafe { openat(dir.as_raw_fd(), name.as_ptr(), how.flags(), mode) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by `openat` and is owned by nothing else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Creates the directory `name` inside the open directory `dir` (`mkdirat`).
///
/// # Errors
///
/// The system's error (`EEXIST`, `EACCES`, `ENOSPC`…), or `InvalidInput` for a name with a NUL
/// byte.
pub fn mkdir_at(dir: &File, name: &OsStr, mode: u32) -> io::Result<()> {
    let name = c_name(name)?;
    // SAFETY: an open descriptor and a NUL-terminated name outliving the call.
    if unsafe { mkdirat(dir.as_raw_fd(), name.as_ptr(), mode as c_uint) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Renames `from` to `to`, both names inside the open directory `dir`
/// (`renameat`; atomic, replacing `to`).
///
/// # Errors
///
/// The system's error (`ENOENT`, `EACCES`, `EXDEV`…), or `InvalidInput` for a name with a NUL byte.
pub fn rename_at(dir: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
    let (from, to) = (c_name(from)?, c_name(to)?);
    let fd = dir.as_raw_fd();
    // SAFETY: one open descriptor and two NUL-terminated names outliving the call.
    if unsafe { renameat(fd, from.as_ptr(), fd, to.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Removes the file `name` inside the open directory `dir` (`unlinkat`).
///
/// # Errors
///
/// The system's error (`ENOENT`, `EACCES`, `EISDIR`…), or `InvalidInput` for a name with a NUL
/// byte.
pub fn unlink_at(dir: &File, name: &OsStr) -> io::Result<()> {
    let name = c_name(name)?;
    // SAFETY: an open descriptor and a NUL-terminated name outliving the call.
    if unsafe { unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(target_os = "linux")]
mod linux {
    use super::Open;
    use std::ffi::CString;
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::raw::{c_int, c_long};
    use std::sync::atomic::{AtomicBool, Ordering};

    /// `openat2`: the same number on every architecture of the unified table.
    const SYS_OPENAT2: c_long = 437;
    const RESOLVE_NO_MAGICLINKS: u64 = 0x02;
    const RESOLVE_NO_SYMLINKS: u64 = 0x04;
    const RESOLVE_BENEATH: u64 = 0x08;
    const ENOSYS: i32 = 38;
    const EPERM: i32 = 1;
    const EAGAIN: i32 = 11;

    /// `struct open_how`.
    #[repr(C)]
    struct OpenHow {
        flags: u64,
        mode: u64,
        resolve: u64,
    }

    extern "C" {
        fn syscall(number: c_long, ...) -> c_long;
    }

    /// Set once `openat2` turned out to be missing: the walk is used after.
    static MISSING: AtomicBool = AtomicBool::new(false);

    /// The kernel's walk, or `None` when this kernel has no `openat2`.
    pub(super) fn openat2_beneath(
        root: &File,
        names: &[CString],
        how: Open,
    ) -> Option<io::Result<File>> {
        if MISSING.load(Ordering::Relaxed) {
            return None;
        }
        let mut path = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                path.push(b'/');
            }
            path.extend_from_slice(name.as_bytes());
        }
        if path.is_empty() {
            path.push(b'.');
        }
        let path = CString::new(path).ok()?;
        let open_how = OpenHow {
            flags: how.flags() as u32 as u64,
            mode: u64::from(how.create_new.unwrap_or(0)),
            resolve: RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        for _ in 0..8 {
            // SAFETY: `root` is an open descriptor, `path` a NUL-terminated
            // string and `open_how` a valid `struct open_how` whose size is
            // passed; all outlive the call.
            let fd = unsafe {
                syscall(
                    SYS_OPENAT2,
                    root.as_raw_fd(),
                    path.as_ptr(),
                    &open_how as *const OpenHow,
                    std::mem::size_of::<OpenHow>(),
                )
            };
            if fd >= 0 {
                // SAFETY: a descriptor `openat2` just returned, owned by nothing else.
                return Some(Ok(unsafe { File::from_raw_fd(fd as c_int) }));
            }
            let error = io::Error::last_os_error();
            match error.raw_os_error() {
                // A rename elsewhere raced the lookup: the kernel asks to retry.
                Some(EAGAIN) => continue,
                Some(ENOSYS) | Some(EPERM) => {
                    MISSING.store(true, Ordering::Relaxed);
                    return None;
                }
                _ => return Some(Err(error)),
            }
        }
        Some(Err(io::Error::from_raw_os_error(EAGAIN)))
    }

    /// Whether the kernel's walk is in use (tests compare it with the portable one).
    pub fn has_openat2() -> bool {
        !MISSING.load(Ordering::Relaxed)
    }
}

/// Opens `relative` beneath `root` with the portable walk only (what systems
/// without `openat2` use); for tests comparing the two.
///
/// # Errors
///
/// As [`open_beneath`].
pub fn open_beneath_by_walk(root: &File, relative: &Path, how: Open) -> io::Result<File> {
    let names = names_of(relative)?;
    walk(root, &names, how).and_then(|file| checked(file, how))
}

/// Whether `openat2` is used here (false after it was found missing, and on
/// systems other than Linux).
pub fn kernel_walk_available() -> bool {
    #[cfg(target_os = "linux")]
    {
        linux::has_openat2()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("focus-openat-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("real/sub")).unwrap();
        std::fs::create_dir_all(dir.join("outside")).unwrap();
        std::os::unix::fs::symlink("../outside", dir.join("real/link")).unwrap();
        std::fs::write(dir.join("real/sub/f"), "x").unwrap();
        dir
    }

    #[test]
    fn both_walks_refuse_links_and_dot_dot_and_open_plain_paths() {
        let dir = scratch("walks");
        let root = File::open(dir.join("real")).unwrap();
        let read = Open {
            read: true,
            ..Open::default()
        };
        type OpenFn = fn(&File, &Path, Open) -> io::Result<File>;
        for open in [open_beneath as OpenFn, open_beneath_by_walk] {
            assert!(open(&root, Path::new("sub/f"), read).is_ok());
            assert!(open(&root, Path::new("link/x"), read).is_err());
            assert!(open(&root, Path::new("../outside"), read).is_err());
            assert!(open(&root, Path::new("/etc/hostname"), read).is_err());
            let new = Open {
                write: true,
                create_new: Some(0o600),
                ..Open::default()
            };
            assert!(open(&root, Path::new("link/new"), new).is_err());
            let sub = open(
                &root,
                Path::new("sub"),
                Open {
                    directory: true,
                    ..Open::default()
                },
            )
            .unwrap();
            assert!(open(&sub, Path::new("f"), read).is_ok());
        }
        assert!(!dir.join("outside/new").exists());
        let sub = File::open(dir.join("real/sub")).unwrap();
        mkdir_at(&sub, OsStr::new("d"), 0o755).unwrap();
        rename_at(&sub, OsStr::new("f"), OsStr::new("g")).unwrap();
        unlink_at(&sub, OsStr::new("g")).unwrap();
        assert!(dir.join("real/sub/d").is_dir() && !dir.join("real/sub/g").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
