//! Files only their owner may read: sessions, input history, logs, exports,
//! settings and the trust store hold conversations, commands and paths, so
//! focus creates them with mode 0600 in folders of mode 0700, whatever the
//! umask. Safe code over std's Unix extensions; no call into the C library.
//!
//! A file or folder that already exists with looser bits is tightened when
//! focus opens it to write (a file written by an older focus, or a folder a
//! user made by hand). Folders above the one focus writes in are left as they
//! are (the user's home directory is not focus's to change).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The mode of the files: read and write for the owner only.
pub const FILE_MODE: u32 = 0o600;

/// The mode of the folders: the owner only.
pub const DIR_MODE: u32 = 0o700;

/// Creates `dir` and its missing parents with mode 0700; `dir` itself, if it
/// existed with group or other bits, is narrowed to 0700 (a failure to
/// narrow, say on a folder of another user, is not an error: the caller's
/// writes will tell).
///
/// # Errors
///
/// The system's error when a folder on the way cannot be created.
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)?;
    narrow(dir, DIR_MODE);
    Ok(())
}

/// [`OpenOptions`] that create a missing file with mode 0600 (the other
/// options are the caller's).
pub fn options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.mode(FILE_MODE);
    options
}

/// Opens `path` for appending, created with mode 0600 if missing and narrowed
/// to 0600 if it existed with looser bits.
///
/// # Errors
///
/// The system's error when `path` cannot be opened or created (a missing folder, no permission, a
/// name that is a folder).
pub fn open_append(path: &Path) -> io::Result<File> {
    let file = options().create(true).append(true).open(path)?;
    narrow_file(&file);
    Ok(file)
}

/// Writes `bytes` to `path` (created 0600, or narrowed to 0600, truncated).
///
/// # Errors
///
/// The system's error when `path` cannot be opened, created or written.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    use std::io::Write;
    let mut file = options()
        .create(true)
        .write(true)
        .truncate(true)
        .open(path)?;
    narrow_file(&file);
    file.write_all(bytes.as_ref())
}

/// Narrows an open file to 0600 when it has group or other bits.
pub fn narrow_file(file: &File) {
    if let Ok(meta) = file.metadata() {
        if meta.permissions().mode() & 0o077 != 0 {
            let _ = file.set_permissions(fs::Permissions::from_mode(FILE_MODE));
        }
    }
}

/// Narrows `path` (not followed if it is a symbolic link) to `mode` when it has
/// group or other bits.
fn narrow(path: &Path, mode: u32) {
    if let Ok(meta) = fs::symlink_metadata(path) {
        if !meta.file_type().is_symlink() && meta.permissions().mode() & 0o077 != 0 {
            let _ = fs::set_permissions(path, fs::Permissions::from_mode(mode));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn new_files_are_0600_in_0700_folders_and_old_ones_are_narrowed() {
        let root = std::env::temp_dir().join(format!("focus-private-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        let dir = root.join("a/b");
        create_dir_all(&dir).unwrap();
        assert_eq!((mode(&root.join("a")), mode(&dir)), (0o700, 0o700));
        let file = dir.join("f.jsonl");
        write(&file, "x").unwrap();
        assert_eq!(mode(&file), 0o600);

        let loose = root.join("loose");
        fs::create_dir(&loose).unwrap();
        fs::set_permissions(&loose, fs::Permissions::from_mode(0o755)).unwrap();
        let old = loose.join("history");
        fs::write(&old, "old\n").unwrap();
        fs::set_permissions(&old, fs::Permissions::from_mode(0o644)).unwrap();
        create_dir_all(&loose).unwrap();
        drop(open_append(&old).unwrap());
        assert_eq!((mode(&loose), mode(&old)), (0o700, 0o600));
        assert_eq!(
            fs::read_to_string(&old).unwrap(),
            "old\n",
            "appending keeps it"
        );
        let _ = fs::remove_dir_all(&root);
    }
}
