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

/// The session entry a restore still owes when it was interrupted: the
/// `focus.restore` record of manifest `manifest` in the session file
/// `session` ([`super::rewind::finish_records`] appends it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestoreLink {
    /// The session file.
    pub session: PathBuf,
    /// The restore's manifest id (saved before the journal).
    pub manifest: String,
}

/// What finishing interrupted restores did.
#[derive(Clone, Debug, Default)]
pub struct Resumed {
    /// What went wrong, one sentence each.
    pub failures: Vec<String>,
    /// The records the finished restores owe their sessions.
    pub links: Vec<RestoreLink>,
}

/// Runs `ops` on `root` under a journal that names `link`.
///
/// The journal stays until the caller has recorded the restore and calls
/// [`done`] with the path returned.
///
/// # Errors
///
/// The journal cannot be written (then nothing was touched). Failures of single
/// operations are returned in the `Ok` list.
pub fn run(
    store: &CheckpointStore,
    root: &Path,
    ops: &[Op],
    link: Option<&RestoreLink>,
) -> io::Result<(Vec<String>, PathBuf)> {
    let dir = store.dir.join("journals");
    focus_sys::private_files::create_dir_all(&dir)?;
    let id = super::manifest::new_id();
    let path = dir.join(format!("{id}.json"));
    let temp = dir.join(format!(".{id}.tmp"));
    let mut file = focus_sys::private_files::options()
        .write(true)
        .create_new(true)
        .open(&temp)?;
    file.write_all(to_json(root, ops, link).to_json_string().as_bytes())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp, &path)?;
    if let Ok(folder) = fs::File::open(&dir) {
        let _ = folder.sync_all();
    }
    let failures = apply(root, &store.blobs, ops);
    Ok((failures, path))
}

/// The restore whose journal is `path` is done and recorded.
///
/// # Errors
///
/// The journal cannot be removed.
pub fn done(path: &Path) -> io::Result<()> {
    fs::remove_file(path)
}

/// Finishes every restore a crash interrupted in `store` (whatever project it
/// was for). What went wrong, one sentence each.
///
/// # Errors
///
/// The journal folder cannot be read.
pub fn resume(store: &CheckpointStore, _root: &Path) -> io::Result<Resumed> {
    let dir = store.dir.join("journals");
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Resumed::default()),
        Err(e) => return Err(e),
    };
    let mut resumed = Resumed::default();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name.as_bytes().starts_with(b".") {
            // A journal that was never complete: nothing was touched yet.
            let _ = fs::remove_file(&path);
            continue;
        }
        if !name.as_bytes().ends_with(b".json") {
            continue;
        }
        let parsed = fs::read(&path)
            .ok()
            .and_then(|b| focus_core::json::parse(&b).ok())
            .and_then(|v| from_json(&v));
        match parsed {
            Some((root, ops, link)) => {
                resumed
                    .failures
                    .extend(resume_one(&store.blobs, &root, &ops));
                resumed.links.extend(link);
                fs::remove_file(&path)?;
            }
            None => {
                resumed
                    .failures
                    .push(format!("{} cannot be read; kept aside", path.display()));
                let _ = fs::rename(&path, path.with_extension("damaged"));
            }
        }
    }
    Ok(resumed)
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

fn to_json(root: &Path, ops: &[Op], link: Option<&RestoreLink>) -> Value {
    let mut object = Object::new();
    object.insert("rootHex", relpath::hex(root.as_os_str().as_bytes()));
    if let Some(link) = link {
        object.insert(
            "sessionHex",
            relpath::hex(link.session.as_os_str().as_bytes()),
        );
        object.insert("restore", link.manifest.as_str());
    }
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

fn from_json(value: &Value) -> Option<(PathBuf, Vec<Op>, Option<RestoreLink>)> {
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
    let link = (|| {
        let session = relpath::unhex(value.get("sessionHex")?.as_str()?)?;
        Some(RestoreLink {
            session: PathBuf::from(std::ffi::OsStr::from_bytes(&session)),
            manifest: value.get("restore")?.as_str()?.to_string(),
        })
    })();
    Some((root, ops, link))
}
