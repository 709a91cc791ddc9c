//! [`PrivateTempFile`]: a file only this user can read, removed when dropped. The
//! request body waits in one for curl (`--data-binary @file`), so it never passes
//! through a command line.

use std::collections::hash_map::RandomState;
use std::fs::OpenOptions;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// A temporary file with mode 0600, deleted on drop.
#[derive(Debug)]
pub(super) struct PrivateTempFile {
    path: PathBuf,
}

impl PrivateTempFile {
    /// Creates a new file in the temporary directory holding `contents`.
    ///
    /// `create_new` (O_EXCL) refuses an existing path, so nobody can make us write
    /// through a planted symlink; the mode is set at creation, so the contents are
    /// never readable by others, not even for an instant.
    pub(super) fn with_contents(contents: &[u8]) -> std::io::Result<PrivateTempFile> {
        let dir = std::env::temp_dir();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut attempts = 0;
        loop {
            // A fresh `RandomState` has fresh keys: a new number each time,
            // with no counter kept for the whole process.
            let id = RandomState::new().build_hasher().finish();
            let path = dir.join(format!(
                "focus-curl-{}-{id}-{nanos:08x}.body",
                std::process::id()
            ));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(mut file) => {
                    let file_guard = PrivateTempFile { path };
                    file.write_all(contents)?;
                    return Ok(file_guard);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempts < 100 => {
                    attempts += 1;
                }
                Err(e) => {
                    return Err(std::io::Error::new(
                        e.kind(),
                        format!("cannot create a temporary file in {}: {e}", dir.display()),
                    ))
                }
            }
        }
    }

    /// Where the file is.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateTempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn private_and_removed_on_drop() {
        let file = PrivateTempFile::with_contents(b"body").unwrap();
        let path = file.path().to_path_buf();
        assert_eq!(std::fs::read(&path).unwrap(), b"body");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        drop(file);
        assert!(!path.exists());
    }
}
