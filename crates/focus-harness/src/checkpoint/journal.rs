//! The restore journal: before a restore touches the project, its whole list
//! of operations is written (temporary file, `fsync`, rename) to
//! `checkpoints/journals/<id>.json`; it is removed when the last operation is
//! done. A journal found at the next start belongs to a restore that was
//! interrupted (killed, crashed, power lost): [`resume`] runs its operations
//! again (each can run twice, see [`super::apply`]) and the project ends in
//! the restored state, never between the two.

use super::apply::apply;
use super::blobs::BlobStore;
use super::node::{Kind, Node};
use super::plan::Op;
use super::relpath;
use super::store::CheckpointStore;
use focus_core::json::{Object, Value};
use std::fs;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Runs `ops` on `root` under a journal.
///
/// # Errors
///
/// The journal cannot be written (then nothing was touched). Failures of single
/// operations are returned in the `Ok` list.
pub fn run(store: &CheckpointStore, root: &Path, ops: &[Op]) -> io::Result<Vec<String>> {
    let dir = store.dir.join("journals");
    focus_sys::private_files::create_dir_all(&dir)?;
    let id = super::manifest::new_id();
    let path = dir.join(format!("{id}.json"));
    let temp = dir.join(format!(".{id}.tmp"));
    let mut file = focus_sys::private_files::options()
        .write(true)
        .create_new(true)
        .open(&temp)?;
    file.write_all(to_json(root, ops).to_json_string().as_bytes())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp, &path)?;
    if let Ok(folder) = fs::File::open(&dir) {
        let _ = folder.sync_all();
    }
    let failures = apply(root, &store.blobs, ops);
    fs::remove_file(&path)?;
    Ok(failures)
}

/// Finishes every restore a crash interrupted in `store` (whatever project it
/// was for). What went wrong, one sentence each.
///
/// # Errors
///
/// The journal folder cannot be read.
pub fn resume(store: &CheckpointStore, _root: &Path) -> io::Result<Vec<String>> {
    let dir = store.dir.join("journals");
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut failures = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name.as_bytes().starts_with(b".") {
            // A journal that was never complete: nothing was touched yet.
            let _ = fs::remove_file(&path);
            continue;
        }
        let parsed = fs::read(&path)
            .ok()
            .and_then(|b| focus_core::json::parse(&b).ok())
            .and_then(|v| from_json(&v));
        match parsed {
            Some((root, ops)) => {
                failures.extend(resume_one(&store.blobs, &root, &ops));
                fs::remove_file(&path)?;
            }
            None => {
                failures.push(format!("{} cannot be read; kept aside", path.display()));
                let _ = fs::rename(&path, path.with_extension("damaged"));
            }
        }
    }
    Ok(failures)
}

fn resume_one(blobs: &BlobStore, root: &Path, ops: &[Op]) -> Vec<String> {
    apply(root, blobs, ops)
        .into_iter()
        .map(|f| {
            format!(
                "finishing an interrupted restore in {}: {f}",
                root.display()
            )
        })
        .collect()
}

fn to_json(root: &Path, ops: &[Op]) -> Value {
    let mut object = Object::new();
    object.insert("rootHex", relpath::hex(root.as_os_str().as_bytes()));
    let list: Vec<Value> = ops.iter().map(op_to_json).collect();
    object.insert("ops", list);
    Value::Object(object)
}

fn op_to_json(op: &Op) -> Value {
    let mut object = Object::new();
    object.insert("path", relpath::to_json(op.path()));
    match op {
        Op::Remove { kind, .. } => {
            object.insert("op", "remove");
            object.insert("dir", *kind == Kind::Dir);
        }
        Op::MakeDir { .. } => {
            object.insert("op", "mkdir");
        }
        Op::PutFile {
            mode, blob, size, ..
        } => {
            object.insert("op", "put");
            object.insert(
                "node",
                Node::File {
                    mode: *mode,
                    blob: blob.clone(),
                    size: *size,
                }
                .to_json(),
            );
        }
        Op::PutLink { target, .. } => {
            object.insert("op", "put");
            object.insert(
                "node",
                Node::Symlink {
                    target: target.clone(),
                }
                .to_json(),
            );
        }
        Op::SetMode { mode, .. } => {
            object.insert("op", "chmod");
            object.insert("mode", u64::from(*mode));
        }
    }
    Value::Object(object)
}

fn from_json(value: &Value) -> Option<(PathBuf, Vec<Op>)> {
    let root_bytes = relpath::unhex(value.get("rootHex")?.as_str()?)?;
    let root = PathBuf::from(std::ffi::OsStr::from_bytes(&root_bytes));
    if !root.is_absolute() {
        return None;
    }
    let mut ops = Vec::new();
    for op in value.get("ops")?.as_array()? {
        let path = relpath::from_json(op.get("path")?)?;
        ops.push(match op.get("op")?.as_str()? {
            "remove" => Op::Remove {
                path,
                kind: if op.get("dir")?.as_bool()? {
                    Kind::Dir
                } else {
                    Kind::File
                },
            },
            "mkdir" => Op::MakeDir { path },
            "chmod" => Op::SetMode {
                path,
                mode: u32::try_from(op.get("mode")?.as_u64()?).ok()? & 0o7777,
            },
            "put" => match Node::from_json(op.get("node")?)? {
                Node::File { mode, blob, size } => Op::PutFile {
                    path,
                    mode,
                    blob,
                    size,
                },
                Node::Symlink { target } => Op::PutLink { path, target },
                Node::Dir { .. } => return None,
            },
            _ => return None,
        });
    }
    Some((root, ops))
}
