//! Linux's inotify, narrowly: an instance whose descriptor never blocks
//! (`inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`), watches on directories
//! (`inotify_add_watch` with `IN_ONLYDIR | IN_DONT_FOLLOW`, so a symbolic link
//! or a file swapped in is refused), `inotify_rm_watch`, and the events read
//! from the descriptor, parsed from their bytes without `unsafe`
//! (`struct inotify_event` in `<linux/inotify.h>`: `wd`, `mask`, `cookie`,
//! `len` as native-endian 32-bit numbers, then `len` bytes of NUL-padded name).
//!
//! The file checkpoints use it to compare only the folders that had events
//! after a tool call (focus-harness's `checkpoint::watch`). Other targets have
//! no inotify: [`Inotify::new`] fails with [`io::ErrorKind::Unsupported`] and
//! the caller walks the whole project instead.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::Path;

/// A file was written (`IN_MODIFY`).
pub const IN_MODIFY: u32 = 0x0000_0002;
/// Metadata changed: mode, times, links (`IN_ATTRIB`).
pub const IN_ATTRIB: u32 = 0x0000_0004;
/// A file opened for writing was closed (`IN_CLOSE_WRITE`).
pub const IN_CLOSE_WRITE: u32 = 0x0000_0008;
/// A name moved out of the watched folder (`IN_MOVED_FROM`).
pub const IN_MOVED_FROM: u32 = 0x0000_0040;
/// A name moved into the watched folder (`IN_MOVED_TO`).
pub const IN_MOVED_TO: u32 = 0x0000_0080;
/// A name was created in the watched folder (`IN_CREATE`).
pub const IN_CREATE: u32 = 0x0000_0100;
/// A name was deleted from the watched folder (`IN_DELETE`).
pub const IN_DELETE: u32 = 0x0000_0200;
/// The watched folder itself was deleted (`IN_DELETE_SELF`).
pub const IN_DELETE_SELF: u32 = 0x0000_0400;
/// The watched folder itself was moved (`IN_MOVE_SELF`).
pub const IN_MOVE_SELF: u32 = 0x0000_0800;
/// Its file system was unmounted (`IN_UNMOUNT`).
pub const IN_UNMOUNT: u32 = 0x0000_2000;
/// The kernel's queue overflowed: events were lost (`IN_Q_OVERFLOW`, `wd` −1).
pub const IN_Q_OVERFLOW: u32 = 0x0000_4000;
/// The watch was removed, explicitly or because its folder went (`IN_IGNORED`).
pub const IN_IGNORED: u32 = 0x0000_8000;
/// The event's name is a folder (`IN_ISDIR`).
pub const IN_ISDIR: u32 = 0x4000_0000;
/// Everything a change of a folder's content, names or metadata raises.
pub const CHANGES: u32 = IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF;

/// Watch only a directory (`IN_ONLYDIR`).
#[cfg(target_os = "linux")]
const IN_ONLYDIR: u32 = 0x0100_0000;
/// Do not follow a symbolic link (`IN_DONT_FOLLOW`).
#[cfg(target_os = "linux")]
const IN_DONT_FOLLOW: u32 = 0x0200_0000;
/// No events for names unlinked but still open (`IN_EXCL_UNLINK`).
#[cfg(target_os = "linux")]
const IN_EXCL_UNLINK: u32 = 0x0400_0000;
/// `IN_NONBLOCK` is `O_NONBLOCK`: 0o4000 on every architecture focus-sys
/// builds for (Linux's generic value; MIPS, SPARC and Alpha differ and are refused).
#[cfg(target_os = "linux")]
const IN_NONBLOCK: i32 = 0o4000;
/// `IN_CLOEXEC` is `O_CLOEXEC`: 0o2000000 on the same architectures.
#[cfg(target_os = "linux")]
const IN_CLOEXEC: i32 = 0o2000000;
/// The size of `struct inotify_event` before its name.
const HEADER: usize = 16;

#[cfg(target_os = "linux")]
extern "C" {
    /// `int inotify_init1(int flags)`.
    fn inotify_init1(flags: i32) -> i32;
    /// `int inotify_add_watch(int fd, const char *pathname, uint32_t mask)`.
    fn inotify_add_watch(fd: i32, pathname: *const std::ffi::c_char, mask: u32) -> i32;
    /// `int inotify_rm_watch(int fd, int wd)`.
    fn inotify_rm_watch(fd: i32, wd: i32) -> i32;
}

/// One event read from an instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The watch it came from (−1 for [`IN_Q_OVERFLOW`]).
    pub wd: i32,
    /// What happened (`IN_*` bits).
    pub mask: u32,
    /// Pairs an [`IN_MOVED_FROM`] with its [`IN_MOVED_TO`].
    pub cookie: u32,
    /// The name in the watched folder the event is about (none for the folder itself).
    pub name: Option<OsString>,
}

/// An inotify instance; its descriptor is closed when dropped (which removes
/// every watch).
#[derive(Debug)]
pub struct Inotify {
    file: File,
}

impl Inotify {
    /// A new instance whose reads never block.
    ///
    /// # Errors
    ///
    /// Not Linux ([`io::ErrorKind::Unsupported`]), or the kernel refused
    /// (`EMFILE`: `fs.inotify.max_user_instances` reached).
    #[cfg(target_os = "linux")]
    pub fn new() -> io::Result<Inotify> {
        use std::os::fd::FromRawFd;
        // SAFETY: `inotify_init1` takes flags only and touches no memory.
        let fd = unsafe { inotify_init1(IN_NONBLOCK | IN_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just returned by the kernel and is owned by nothing
        // else; the `File` closes it once.
        let file = unsafe { File::from_raw_fd(fd) };
        Ok(Inotify { file })
    }

    /// A new instance: not on this target.
    ///
    /// # Errors
    ///
    /// Always [`io::ErrorKind::Unsupported`].
    #[cfg(not(target_os = "linux"))]
    pub fn new() -> io::Result<Inotify> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "inotify exists on Linux only",
        ))
    }

    /// Watches the directory `path` (never a symbolic link, never a file) for
    /// `mask` events; the watch descriptor. Watching a directory already
    /// watched by this instance returns its descriptor again.
    ///
    /// # Errors
    ///
    /// `path` holds a NUL byte, is not a directory (`ENOTDIR`), is gone
    /// (`ENOENT`), cannot be read (`EACCES`), or the user's watches are used up
    /// (`ENOSPC`: `fs.inotify.max_user_watches`).
    #[cfg(target_os = "linux")]
    pub fn add_watch(&self, path: &Path, mask: u32) -> io::Result<i32> {
        use std::os::fd::AsRawFd;
        use std::os::unix::ffi::OsStrExt;
        let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a path"))?;
        let flags = mask | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK;
        // SAFETY: the descriptor is valid while `self` is borrowed; `c_path` is
        // a NUL-terminated string that outlives the call, which only reads it.
        let wd = unsafe { inotify_add_watch(self.file.as_raw_fd(), c_path.as_ptr(), flags) };
        if wd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(wd)
    }

    /// Watches a directory: not on this target.
    ///
    /// # Errors
    ///
    /// Always [`io::ErrorKind::Unsupported`].
    #[cfg(not(target_os = "linux"))]
    pub fn add_watch(&self, _path: &Path, _mask: u32) -> io::Result<i32> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "inotify exists on Linux only",
        ))
    }

    /// Removes the watch `wd` (an [`IN_IGNORED`] event follows).
    ///
    /// # Errors
    ///
    /// `wd` is no watch of this instance (`EINVAL`).
    #[cfg(target_os = "linux")]
    pub fn remove_watch(&self, wd: i32) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        // SAFETY: two integers in, no memory touched; the descriptor is valid
        // while `self` is borrowed.
        let rc = unsafe { inotify_rm_watch(self.file.as_raw_fd(), wd) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Removes a watch: not on this target.
    ///
    /// # Errors
    ///
    /// Always [`io::ErrorKind::Unsupported`].
    #[cfg(not(target_os = "linux"))]
    pub fn remove_watch(&self, _wd: i32) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "inotify exists on Linux only",
        ))
    }

    /// Appends every event queued now to `out` (never waits); how many.
    ///
    /// # Errors
    ///
    /// Reading the descriptor failed for another reason than an empty queue.
    pub fn read_events(&self, out: &mut Vec<Event>) -> io::Result<usize> {
        use std::io::Read;
        // Room for many events, and for at least one with the longest name
        // (NAME_MAX 255 + NUL), as read(2) on inotify requires.
        let mut buffer = vec![0u8; 64 * 1024];
        let mut count = 0;
        loop {
            let n = match (&self.file).read(&mut buffer) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(count),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                return Ok(count);
            }
            count += parse_events(&buffer[..n], out);
        }
    }
}

/// Parses the events in `bytes` (as read from an inotify descriptor) into
/// `out`; how many. A truncated tail is ignored (the kernel never sends one).
pub fn parse_events(bytes: &[u8], out: &mut Vec<Event>) -> usize {
    let word = |at: usize| -> Option<u32> {
        let slice = bytes.get(at..at + 4)?;
        Some(u32::from_ne_bytes([slice[0], slice[1], slice[2], slice[3]]))
    };
    let mut at = 0;
    let mut count = 0;
    while at + HEADER <= bytes.len() {
        let (Some(wd), Some(mask), Some(cookie), Some(len)) =
            (word(at), word(at + 4), word(at + 8), word(at + 12))
        else {
            break;
        };
        let start = at + HEADER;
        let Some(name_bytes) = bytes.get(start..start + len as usize) else {
            break;
        };
        let name = name_bytes
            .split(|b| *b == 0)
            .next()
            .filter(|n| !n.is_empty())
            .map(os_string);
        out.push(Event {
            wd: wd as i32,
            mask,
            cookie,
            name,
        });
        count += 1;
        at = start + len as usize;
    }
    count
}

fn os_string(bytes: &[u8]) -> OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(bytes).to_os_string()
}

/// `fs.inotify.max_user_watches`, when readable.
pub fn max_user_watches() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
        .ok()?
        .trim()
        .parse()
        .ok()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn header(wd: i32, mask: u32, cookie: u32, name: &[u8], padded: usize) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&wd.to_ne_bytes());
        out.extend_from_slice(&mask.to_ne_bytes());
        out.extend_from_slice(&cookie.to_ne_bytes());
        out.extend_from_slice(&(padded as u32).to_ne_bytes());
        out.extend_from_slice(name);
        out.resize(HEADER + padded, 0);
        out
    }

    #[test]
    fn events_are_parsed_from_their_bytes_and_a_truncated_tail_is_dropped() {
        let mut bytes = header(3, IN_CREATE | IN_ISDIR, 0, b"sub", 16);
        bytes.extend(header(-1, IN_Q_OVERFLOW, 0, b"", 0));
        bytes.extend(header(4, IN_MOVED_TO, 9, b"long-name", 32)[..20].to_vec());
        let mut out = Vec::new();
        assert_eq!(parse_events(&bytes, &mut out), 2);
        assert_eq!(out[0].wd, 3);
        assert_eq!(out[0].mask, IN_CREATE | IN_ISDIR);
        assert_eq!(out[0].name.as_deref(), Some(std::ffi::OsStr::new("sub")));
        assert_eq!(out[1].wd, -1);
        assert_eq!(out[1].name, None);
    }

    #[test]
    fn a_watched_folder_reports_a_created_and_a_written_file_without_blocking() {
        let dir = std::env::temp_dir().join(format!("focus-inotify-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let inotify = Inotify::new().unwrap();
        let mut events = Vec::new();
        assert_eq!(inotify.read_events(&mut events).unwrap(), 0);
        let wd = inotify.add_watch(&dir, CHANGES).unwrap();
        assert_eq!(inotify.add_watch(&dir, CHANGES).unwrap(), wd);
        std::fs::write(dir.join("a.txt"), "hello").unwrap();
        inotify.read_events(&mut events).unwrap();
        assert!(events.iter().any(|e| e.wd == wd
            && e.mask & IN_CREATE != 0
            && e.name.as_deref() == Some(std::ffi::OsStr::new("a.txt"))));
        assert!(events.iter().any(|e| e.mask & IN_MODIFY != 0));
        let file = dir.join("a.txt");
        let refused = inotify.add_watch(&file, CHANGES).unwrap_err();
        assert_eq!(refused.raw_os_error(), Some(20), "ENOTDIR: {refused}");
        inotify.remove_watch(wd).unwrap();
        events.clear();
        inotify.read_events(&mut events).unwrap();
        assert!(events
            .iter()
            .any(|e| e.wd == wd && e.mask & IN_IGNORED != 0));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
