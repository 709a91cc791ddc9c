//! Opening a file to read it without ever waiting on it.
//!
//! A path the model gives can name something that is not a file on disk: a
//! FIFO (a read waits for a writer), a terminal or device, or a kernel file such
//! as `/proc/kmsg` that *looks* like an empty regular file but whose `read`
//! waits until the kernel logs something. Checking the type before opening is
//! not enough (`/proc/kmsg` passes, and a path can be swapped between the check
//! and the open), so every tool that reads file contents opens through
//! [`open_regular`]: the file is opened with `O_NONBLOCK` (opening a FIFO then
//! never waits for a writer, and a read that would wait fails at once with
//! `WouldBlock`), and the type is checked on the opened handle. On a regular
//! file on disk `O_NONBLOCK` changes nothing.

use std::fs::{File, Metadata, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

// Per target, like every constant of the C library: in focus-sys.
use focus_sys::fs::O_NONBLOCK;

/// Why a path could not be opened for reading.
#[derive(Debug)]
pub enum OpenError {
    /// The operating system refused (no such file, permission denied…).
    Io(std::io::Error),
    /// It opened, but it is not a regular file; the text names what it is.
    NotRegular(&'static str),
}

/// Opens `path` (following symbolic links) for reading without blocking, and
/// only if what it names is a regular file. Returns the file and its metadata
/// (taken from the opened handle, so it describes what will be read).
///
/// # Errors
///
/// [`OpenError::NotRegular`] for a folder, FIFO, socket or device; [`OpenError::Io`] when it cannot
/// be opened (missing, no permission).
pub fn open_regular(path: &Path) -> Result<(File, Metadata), OpenError> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)
        .map_err(OpenError::Io)?;
    let metadata = file.metadata().map_err(OpenError::Io)?;
    if !metadata.is_file() {
        return Err(OpenError::NotRegular(kind_of(&metadata)));
    }
    Ok((file, metadata))
}

/// Like [`open_regular`] for a file a tool reads to change or show it: `path`
/// is resolved once, checked by the sandbox, and opened with no symbolic link
/// followed after that ([`crate::beneath::open_for_read`]), so the file read
/// is the file checked.
///
/// # Errors
///
/// As [`crate::beneath::open_for_read`] (an [`OpenError::Io`]), or [`OpenError::NotRegular`] for
/// what is not a regular file.
pub fn open_regular_checked(
    path: &Path,
    sandbox: &crate::sandbox::Sandbox,
) -> Result<(File, Metadata), OpenError> {
    let file = crate::beneath::open_for_read(path, sandbox).map_err(OpenError::Io)?;
    let metadata = file.metadata().map_err(OpenError::Io)?;
    if !metadata.is_file() {
        return Err(OpenError::NotRegular(kind_of(&metadata)));
    }
    Ok((file, metadata))
}

/// How [`kind_of`] names a directory.
pub const DIRECTORY: &str = "a directory";

/// What a non-regular file is, in words.
pub fn kind_of(metadata: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    if kind.is_dir() {
        DIRECTORY
    } else if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    }
}

/// Whether a read failed only because it would have had to wait (a kernel file
/// such as `/proc/kmsg` with nothing to say yet).
pub fn would_block(err: &std::io::Error) -> bool {
    err.kind() == ErrorKind::WouldBlock
}

/// The sentence a tool returns for a file whose read would wait forever.
pub fn would_block_text(shown: &str) -> String {
    format!(
        "{shown} cannot be read without waiting: it is a special file (like /proc/kmsg) whose \
         reads block until something happens, so it was not read. Use bash with a timeout if you \
         really need it, for example `timeout 2 cat <path>`."
    )
}

/// The sentence a tool returns for a path that is not a regular file.
pub fn not_regular_text(shown: &str, kind: &str) -> String {
    format!("{shown} is {kind}, not a regular file; it was not read (reading it could block).")
}
