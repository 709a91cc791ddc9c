//! Performing a restore's operations on the project, each one whole: a file
//! or link is written under a temporary name in its own folder and renamed
//! over the old one, so a reader (or a crash) sees the old or the new, never
//! a mix. Every step opens the parent folder beneath the project with no
//! symbolic link followed, so a link planted in the tree cannot send a write
//! outside it. Every operation can run twice with the same result: a restore
//! a crash interrupted is finished by running them all again
//! ([`super::journal`]).

use super::blobs::BlobStore;
use super::node::Kind;
use super::observe::gone;
use super::plan::Op;
use super::relpath::show;
use super::tracker::TEMP_SUFFIX;
use focus_sys::openat::{mkdir_at, open_beneath, rename_at, unlink_at, Open};
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Permissions};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Runs `ops` in order under `root`; the failures, one sentence each (the
/// other operations still run).
pub fn apply(root: &Path, blobs: &BlobStore, ops: &[Op]) -> Vec<String> {
    let root_dir = match File::open(root) {
        Ok(dir) => dir,
        Err(e) => return vec![format!("cannot open {}: {e}", root.display())],
    };
    let mut failures = Vec::new();
    for op in ops {
        if let Err(e) = apply_one(root, &root_dir, blobs, op) {
            failures.push(format!("{}: {e}", op.describe()));
        }
    }
    failures
}

fn apply_one(root: &Path, root_dir: &File, blobs: &BlobStore, op: &Op) -> io::Result<()> {
    let path = op.path();
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let parent_rel = path.parent().unwrap_or(Path::new(""));
    let parent = open_beneath(
        root_dir,
        parent_rel,
        Open {
            read: true,
            directory: true,
            ..Open::default()
        },
    )?;
    match op {
        Op::Remove { kind, .. } => remove(root, &parent, path, name, *kind),
        Op::MakeDir { .. } => match mkdir_at(&parent, name, 0o700) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                if fs::symlink_metadata(root.join(path))?.is_dir() {
                    Ok(())
                } else {
                    Err(e)
                }
            }
            other => other,
        },
        Op::PutFile { mode, blob, .. } => {
            let temp = temp_name(name);
            let _ = unlink_at(&parent, &temp);
            let mut source = blobs.open(blob)?;
            let mut out = open_beneath(
                &parent,
                Path::new(&temp),
                Open {
                    write: true,
                    create_new: Some(0o600),
                    ..Open::default()
                },
            )?;
            let written = io::copy(&mut source, &mut out).and_then(|_| {
                out.set_permissions(Permissions::from_mode(*mode))?;
                out.sync_all()
            });
            if let Err(e) = written {
                let _ = unlink_at(&parent, &temp);
                return Err(e);
            }
            rename_at(&parent, &temp, name)
        }
        Op::PutLink { target, .. } => {
            let temp = temp_name(name);
            let _ = unlink_at(&parent, &temp);
            // `symlinkat` is not in focus-sys: the parent was just checked to be
            // beneath the project without a symbolic link on the way.
            std::os::unix::fs::symlink(target, root.join(parent_rel).join(&temp))?;
            rename_at(&parent, &temp, name)
        }
        Op::SetMode { mode, .. } => {
            let meta = fs::symlink_metadata(root.join(path))?;
            if !meta.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is no longer a folder", show(path)),
                ));
            }
            fs::set_permissions(root.join(path), Permissions::from_mode(*mode))
        }
    }
}

/// Removes `name` in `parent`; gone already is done.
fn remove(root: &Path, parent: &File, path: &Path, name: &OsStr, kind: Kind) -> io::Result<()> {
    let meta = match fs::symlink_metadata(root.join(path)) {
        Ok(meta) => meta,
        Err(e) if gone(&e) => return Ok(()),
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        return fs::remove_dir(root.join(path)).map_err(|e| {
            // ENOTEMPTY: 39 on Linux, 66 on macOS and the BSDs.
            if kind == Kind::Dir && matches!(e.raw_os_error(), Some(39) | Some(66)) {
                io::Error::new(
                    e.kind(),
                    "kept: the folder holds files focus does not track".to_string(),
                )
            } else {
                e
            }
        });
    }
    match unlink_at(parent, name) {
        Err(e) if gone(&e) => Ok(()),
        other => other,
    }
}

/// The temporary name a file is written under before it is renamed to `name`:
/// fixed for a name, so a crash leaves at most one, which the resumed restore
/// replaces.
pub fn temp_name(name: &OsStr) -> OsString {
    let digest = crate::trust::sha256::sha256(name.as_encoded_bytes());
    OsString::from(format!(
        ".{}{TEMP_SUFFIX}",
        super::relpath::hex(&digest[..8])
    ))
}
