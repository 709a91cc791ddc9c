//! Write where you checked: the file tools' way to a file on disk.
//!
//! A path is resolved once, with every symbolic link followed
//! ([`crate::protected::resolve_links`]), and that resolved path is what the
//! sandbox checks ([`crate::sandbox::Sandbox::check_write`] /
//! [`crate::sandbox::Sandbox::check_read`]). The file is then reached from the
//! writable place that contains it (the project, the private temporary
//! directory, a `sandbox.writablePaths` entry; `/` with the sandbox off) by
//! [`focus_sys::openat::open_beneath`], which follows no symbolic link at all.
//! The resolved path has none, so a link found on the way was swapped in after
//! the check, and the open fails instead of following it. A new file is
//! created, and renamed over the old one, inside the directory descriptor
//! opened this way ([`Placed`]), never by path.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use focus_sys::openat::{self, Open};

use crate::sandbox::Sandbox;

/// A file's directory, open and checked, and the file's name in it.
#[derive(Debug)]
pub struct Placed {
    /// The directory holding the file (opened beneath its writable place).
    pub dir: File,
    /// The file's name inside `dir`.
    pub name: OsString,
    /// The file's path, resolved (no symbolic link), as checked.
    pub target: PathBuf,
}

impl Placed {
    /// Opens the file itself (no symbolic link followed) with `how`.
    ///
    /// # Errors
    ///
    /// The system's error, or one saying the file changed under us when a symbolic link was planted
    /// after the check.
    pub fn open(&self, how: Open) -> io::Result<File> {
        openat::open_beneath(&self.dir, Path::new(&self.name), how).map_err(changed_under_us)
    }
}

/// Resolves `path` (absolute), checks that the sandbox lets a file tool write
/// it (and that it is not a protected file reached through a symbolic link),
/// and opens its directory beneath the writable place holding it, creating
/// missing directories when `create_dirs`. Refusals are errors whose text
/// says why. `sandbox` is the tools' ([`crate::ToolState`]).
///
/// # Errors
///
/// The path is not absolute, the sandbox refuses it, it leads through a symbolic link to a
/// protected file, it names no file, or a directory on the way cannot be opened (or created)
/// without following a symbolic link; the text says which.
pub fn place_for_write(path: &Path, create_dirs: bool, sandbox: &Sandbox) -> io::Result<Placed> {
    if !path.is_absolute() {
        return Err(io::Error::other(format!(
            "{} is not an absolute path",
            path.display()
        )));
    }
    let target = crate::protected::resolve_links(path);
    sandbox.check_write(&target).map_err(io::Error::other)?;
    if sandbox.protects_paths() {
        let lexical = crate::path::normalize(path);
        if target != lexical && crate::protected::protected_by(sandbox.project(), &target).is_some()
        {
            return Err(io::Error::other(format!(
                "{} leads through a symbolic link to the protected file {}; write it by its \
                 own name",
                crate::path::printable(&lexical.display().to_string()),
                crate::path::printable(&target.display().to_string())
            )));
        }
    }
    let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
        return Err(io::Error::other(format!(
            "{} names no file",
            target.display()
        )));
    };
    let root = sandbox.write_root(&target);
    let root_dir = File::open(&root)?;
    let relative = parent.strip_prefix(&root).unwrap_or(Path::new(""));
    let dir = if create_dirs {
        open_or_create_dirs(&root_dir, relative)?
    } else {
        open_dir(&root_dir, relative)?
    };
    Ok(Placed {
        dir,
        name: name.to_os_string(),
        target,
    })
}

/// Resolves `path` (absolute), checks that the sandbox lets a file tool read
/// it, and opens it for reading without blocking, following no symbolic link
/// after the resolution (so the file read is the file checked).
///
/// # Errors
///
/// The path is not absolute, the sandbox refuses it, or it cannot be opened without following a
/// symbolic link (one planted after the check), or the system's error.
pub fn open_for_read(path: &Path, sandbox: &Sandbox) -> io::Result<File> {
    if !path.is_absolute() {
        return Err(io::Error::other(format!(
            "{} is not an absolute path",
            path.display()
        )));
    }
    let target = crate::protected::resolve_links(path);
    sandbox.check_read(&target).map_err(io::Error::other)?;
    let root = File::open("/")?;
    let relative = target.strip_prefix("/").unwrap_or(&target);
    openat::open_beneath(
        &root,
        relative,
        Open {
            read: true,
            nonblock: true,
            ..Open::default()
        },
    )
    .map_err(changed_under_us)
}

fn open_dir(root: &File, relative: &Path) -> io::Result<File> {
    openat::open_beneath(
        root,
        relative,
        Open {
            directory: true,
            ..Open::default()
        },
    )
    .map_err(changed_under_us)
}

/// Opens `relative` beneath `root` one directory at a time, creating each
/// that is missing (`mkdirat` in its open parent).
fn open_or_create_dirs(root: &File, relative: &Path) -> io::Result<File> {
    let mut dir = open_dir(root, Path::new(""))?;
    for component in relative.components() {
        let name = component.as_os_str();
        let next = match open_dir(&dir, Path::new(name)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                match openat::mkdir_at(&dir, name, 0o777) {
                    Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
                    _ => open_dir(&dir, Path::new(name))?,
                }
            }
            other => other?,
        };
        dir = next;
    }
    Ok(dir)
}

/// `ELOOP` from a walk that follows no link: a symbolic link appeared on a
/// path that had none when it was checked.
fn changed_under_us(error: io::Error) -> io::Error {
    // ELOOP is 40 on every Linux architecture focus builds for, 62 on the BSDs and macOS.
    let eloop = if cfg!(target_os = "linux") { 40 } else { 62 };
    if error.raw_os_error() == Some(eloop) {
        io::Error::other(
            "a symbolic link appeared on the path after it was checked (another program changed \
             it meanwhile); nothing was written through it",
        )
    } else {
        error
    }
}
