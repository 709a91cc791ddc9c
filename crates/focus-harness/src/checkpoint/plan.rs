//! From "what focus last recorded" and "what the chosen entry had" to the
//! exact file operations a restore performs ([`Plan`]), after comparing every
//! path with the disk: a path whose content is not what focus last recorded
//! was changed by someone else and is a [`Conflict`], skipped unless forced.

use super::blobs::BlobStore;
use super::history::State;
use super::manifest::Change;
use super::node::{Kind, Node};
use super::observe::{observe, Observed};
use super::relpath::show;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// One file operation of a restore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Remove what is at the path (a folder must be empty by then).
    Remove {
        /// The path.
        path: PathBuf,
        /// What is removed.
        kind: Kind,
    },
    /// Create a folder (mode set by a later [`Op::SetMode`]).
    MakeDir {
        /// The path.
        path: PathBuf,
    },
    /// Write a file from the store (temporary file, then rename).
    PutFile {
        /// The path.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
        /// Its content id.
        blob: String,
        /// Its size.
        size: u64,
    },
    /// Create a symbolic link (temporary name, then rename).
    PutLink {
        /// The path.
        path: PathBuf,
        /// Where it points.
        target: std::ffi::OsString,
    },
    /// Set a folder's permission bits (last, deepest first).
    SetMode {
        /// The path.
        path: PathBuf,
        /// The bits.
        mode: u32,
    },
}

impl Op {
    /// The path the operation acts on.
    pub fn path(&self) -> &Path {
        match self {
            Op::Remove { path, .. }
            | Op::MakeDir { path }
            | Op::PutFile { path, .. }
            | Op::PutLink { path, .. }
            | Op::SetMode { path, .. } => path,
        }
    }

    /// The operation as a dry run prints it.
    pub fn describe(&self) -> String {
        match self {
            Op::Remove { path, kind } => {
                let what = match kind {
                    Kind::Dir => "folder",
                    Kind::Symlink => "symlink",
                    _ => "file",
                };
                format!("remove {what} {}", show(path))
            }
            Op::MakeDir { path } => format!("create folder {}", show(path)),
            Op::PutFile {
                path, mode, size, ..
            } => format!("write {} ({size} bytes, mode {mode:o})", show(path)),
            Op::PutLink { path, target } => {
                format!("symlink {} -> {}", show(path), target.to_string_lossy())
            }
            Op::SetMode { path, mode } => format!("chmod {mode:o} {}", show(path)),
        }
    }
}

/// A path changed outside focus since it last recorded it.
#[derive(Clone, Debug)]
pub struct Conflict {
    /// The path.
    pub path: PathBuf,
    /// What focus last recorded there.
    pub recorded: Option<Node>,
    /// What is there now (`None`: nothing, or something untracked).
    pub found: Option<Node>,
    /// A short diff of the two (text files) or a description.
    pub diff: String,
}

/// What a restore does.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// The operations, in the order they run.
    pub ops: Vec<Op>,
    /// Paths skipped (or, forced, overwritten) because they changed outside focus.
    pub conflicts: Vec<Conflict>,
    /// Every path the plan changes, with what it held and what it will hold
    /// (the restore's own record).
    pub changes: Vec<Change>,
    /// Whether conflicts are overwritten.
    pub forced: bool,
}

impl Plan {
    /// The dry run's lines: every operation, then every conflict.
    pub fn describe(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.ops.iter().map(Op::describe).collect();
        for conflict in &self.conflicts {
            let verb = if self.forced {
                "overwrite (changed outside focus, --force)"
            } else {
                "skip (changed outside focus since focus recorded it; --force overwrites)"
            };
            lines.push(format!("{verb}: {}", show(&conflict.path)));
            for line in conflict.diff.lines() {
                lines.push(format!("    {line}"));
            }
        }
        lines
    }
}

/// Plans the move of the project at `root` from `recorded` (what focus last
/// recorded) to `target`.
///
/// # Errors
///
/// A path cannot be read (permission), or the store cannot be written.
pub fn plan(
    root: &Path,
    blobs: &BlobStore,
    recorded: &State,
    target: &State,
    force: bool,
) -> io::Result<Plan> {
    let root_dir = File::open(root)?;
    let mut out = Plan {
        forced: force,
        ..Plan::default()
    };
    let mut removes = Vec::new();
    let mut mkdirs = Vec::new();
    let mut puts = Vec::new();
    let mut modes = Vec::new();
    for (path, wanted) in target {
        let expected = recorded
            .get(path)
            .cloned()
            .unwrap_or_else(|| wanted.clone());
        let found = match observe(root, &root_dir, path, blobs, u64::MAX)? {
            Observed::Node(node, _) => Some(node),
            _ => None,
        };
        if &found == wanted {
            continue;
        }
        if found != expected {
            out.conflicts.push(Conflict {
                path: path.clone(),
                diff: super::conflict_diff::describe(blobs, &expected, &found),
                recorded: expected,
                found: found.clone(),
            });
            if !force {
                continue;
            }
        }
        out.changes.push(Change {
            path: path.clone(),
            before: found.clone(),
            after: wanted.clone(),
        });
        let is_dir = |n: &Option<Node>| matches!(n, Some(Node::Dir { .. }));
        if let Some(current) = &found {
            if wanted.is_none() || is_dir(&found) != is_dir(wanted) {
                removes.push(Op::Remove {
                    path: path.clone(),
                    kind: current.kind(),
                });
            }
        }
        match wanted {
            None => {}
            Some(Node::Dir { mode }) => {
                if !is_dir(&found) {
                    mkdirs.push(Op::MakeDir { path: path.clone() });
                }
                modes.push(Op::SetMode {
                    path: path.clone(),
                    mode: *mode,
                });
            }
            Some(Node::File { mode, blob, size }) => puts.push(Op::PutFile {
                path: path.clone(),
                mode: *mode,
                blob: blob.clone(),
                size: *size,
            }),
            Some(Node::Symlink { target }) => puts.push(Op::PutLink {
                path: path.clone(),
                target: target.clone(),
            }),
        }
    }
    let depth = |op: &Op| op.path().components().count();
    removes.sort_by(|a, b| depth(b).cmp(&depth(a)).then(b.path().cmp(a.path())));
    mkdirs.sort_by(|a, b| depth(a).cmp(&depth(b)).then(a.path().cmp(b.path())));
    modes.sort_by(|a, b| depth(b).cmp(&depth(a)).then(b.path().cmp(a.path())));
    out.ops = removes;
    out.ops.extend(mkdirs);
    out.ops.extend(puts);
    out.ops.extend(modes);
    Ok(out)
}
