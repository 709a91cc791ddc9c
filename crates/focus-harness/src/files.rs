//! Reading the files the harness looks for (settings, `AGENTS.md`, skills) without
//! trusting what sits at those paths.
//!
//! A FIFO named `AGENTS.md` would block a plain read forever, and `/dev/zero` would
//! never end; only regular files are read. A path that is missing, or that goes
//! through something that is not a directory, simply is not there.

use std::io;
use std::path::Path;

/// The bytes of `path` if it is a regular file (symlinks followed); `None` when
/// nothing is there; an error when something else is there or it cannot be read.
pub fn read_regular_file(path: &Path) -> Option<io::Result<Vec<u8>>> {
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if is_absent(&e) => return None,
        Err(e) => return Some(Err(e)),
    };
    if !metadata.is_file() {
        let what = if metadata.is_dir() {
            "a directory"
        } else {
            "not a regular file"
        };
        return Some(Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {what}"),
        )));
    }
    Some(std::fs::read(path))
}

/// Whether an error means "there is no file here": not found, or a path component
/// that is not a directory (`ENOTDIR`, e.g. `FOCUS_HOME=/dev/null/x`).
fn is_absent(error: &io::Error) -> bool {
    const ENOTDIR: i32 = 20;
    error.kind() == io::ErrorKind::NotFound || error.raw_os_error() == Some(ENOTDIR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read() {
        let dir = std::env::temp_dir().join(format!("focus-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.md");
        std::fs::write(&file, "hello").unwrap();
        assert_eq!(read_regular_file(&file).unwrap().unwrap(), b"hello");
        assert!(read_regular_file(&dir.join("missing.md")).is_none());
        assert!(read_regular_file(&file.join("below-a-file")).is_none());
        assert!(read_regular_file(&dir).unwrap().is_err());
        let fifo = dir.join("fifo.md");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Would block forever if it were opened.
            assert!(read_regular_file(&fifo).unwrap().is_err());
        }
        assert!(read_regular_file(Path::new("/dev/null")).unwrap().is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
