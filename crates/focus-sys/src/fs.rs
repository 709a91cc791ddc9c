//! Open flags std does not name, per target (for
//! `std::os::unix::fs::OpenOptionsExt::custom_flags`), and `flock` (an
//! exclusive lock on a file's inode, for the session writer lock).

/// `O_NONBLOCK`: opening a FIFO does not wait for a writer, and a read that
/// would wait fails with `WouldBlock`. The same value on every architecture of
/// Linux's generic ABI (focus-sys refuses MIPS and SPARC, where it differs).
#[cfg(target_os = "linux")]
pub const O_NONBLOCK: i32 = 0o4000;
/// `O_NONBLOCK`: opening a FIFO does not wait for a writer, and a read that
/// would wait fails with `WouldBlock` (macOS and the BSDs share the value).
#[cfg(not(target_os = "linux"))]
pub const O_NONBLOCK: i32 = 0x4;

/// `LOCK_EX`: an exclusive `flock`. The same value on Linux, macOS and the BSDs.
const LOCK_EX: i32 = 2;
/// `LOCK_NB`: fail instead of waiting. The same value on Linux, macOS and the BSDs.
const LOCK_NB: i32 = 4;

extern "C" {
    /// `int flock(int fd, int operation)`.
    fn flock(fd: i32, operation: i32) -> i32;
}

/// Takes an exclusive advisory lock (`flock(LOCK_EX | LOCK_NB)`) on `file`'s
/// inode without waiting: `Ok(true)` taken, `Ok(false)` another open file
/// holds it (in this process or another). The lock lasts until every
/// descriptor of this open file is closed. (std has `File::try_lock` from Rust
/// 1.89; focus supports older compilers.)
///
/// # Errors
/// When the file system does not support `flock`, or another failure.
pub fn try_lock_exclusive(file: &std::fs::File) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: `flock` takes a descriptor and flags and touches no memory; the
    // descriptor is valid for as long as `file` is borrowed.
    let rc = unsafe { flock(file.as_raw_fd(), LOCK_EX | LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let error = std::io::Error::last_os_error();
    if error.kind() == std::io::ErrorKind::WouldBlock {
        return Ok(false);
    }
    Err(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_open_file_cannot_take_the_lock_until_the_first_closes() {
        let path = std::env::temp_dir().join(format!("focus-flock-{}", std::process::id()));
        std::fs::write(&path, "x").unwrap();
        let first = std::fs::File::open(&path).unwrap();
        let second = std::fs::File::open(&path).unwrap();
        assert!(try_lock_exclusive(&first).unwrap());
        assert!(!try_lock_exclusive(&second).unwrap());
        drop(first);
        // Another test of this binary may fork (the jail's tests do) while
        // `first` is open: the child holds a copy of the descriptor, and so the
        // lock, until it execs or exits. Wait for that, not for a fixed time.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !try_lock_exclusive(&second).unwrap() {
            assert!(
                std::time::Instant::now() < deadline,
                "the lock outlived its file by 30 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = std::fs::remove_file(&path);
    }
}
