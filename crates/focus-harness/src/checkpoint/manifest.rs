//! One checkpoint's manifest: every path that changed, with what it held
//! before and after ([`Change`]), and the files left out because they were
//! over the size cap ([`Skipped`]). Stored as
//! `checkpoints/manifests/<id>.json` beside the sessions, written to a
//! temporary file and renamed, so a manifest that exists is whole; the session
//! entry that points to it is appended only after that.

use super::node::Node;
use super::relpath;
use focus_core::json::{Object, Value};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One path's change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The path, relative to the project.
    pub path: PathBuf,
    /// What it held before (`None`: nothing).
    pub before: Option<Node>,
    /// What it holds after (`None`: removed).
    pub after: Option<Node>,
}

/// A file not recorded because it was larger than the cap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The path, relative to the project.
    pub path: PathBuf,
    /// Its size.
    pub size: u64,
}

/// A checkpoint: the changes one cause made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The checkpoint id (16 hex digits).
    pub id: String,
    /// What changed.
    pub changes: Vec<Change>,
    /// What was left out.
    pub skipped: Vec<Skipped>,
    /// Lines added and removed over the text files that changed.
    pub lines: (u64, u64),
}

impl Manifest {
    /// The manifest as JSON.
    pub fn to_json(&self) -> Value {
        let mut root = Object::new();
        root.insert("version", 1u64);
        root.insert("id", self.id.as_str());
        let changes: Vec<Value> = self
            .changes
            .iter()
            .map(|change| {
                let mut object = Object::new();
                object.insert("path", relpath::to_json(&change.path));
                object.insert("before", node_or_null(&change.before));
                object.insert("after", node_or_null(&change.after));
                Value::Object(object)
            })
            .collect();
        root.insert("changes", changes);
        let skipped: Vec<Value> = self
            .skipped
            .iter()
            .map(|s| {
                let mut object = Object::new();
                object.insert("path", relpath::to_json(&s.path));
                object.insert("size", s.size);
                Value::Object(object)
            })
            .collect();
        root.insert("skipped", skipped);
        root.insert("linesAdded", self.lines.0);
        root.insert("linesRemoved", self.lines.1);
        Value::Object(root)
    }

    /// A manifest read back.
    ///
    /// # Errors
    ///
    /// A change that cannot be read: the message names its index.
    pub fn from_json(value: &Value) -> Result<Manifest, String> {
        let id = value
            .get("id")
            .and_then(Value::as_str)
            .ok_or("the manifest has no id")?;
        let mut changes = Vec::new();
        for (i, change) in value
            .get("changes")
            .and_then(Value::as_array)
            .ok_or("the manifest has no changes list")?
            .iter()
            .enumerate()
        {
            let bad = || format!("change {i} of checkpoint {id} cannot be read");
            let path = change
                .get("path")
                .and_then(relpath::from_json)
                .ok_or_else(bad)?;
            let node = |key: &str| match change.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(value) => Node::from_json(value).map(Some).ok_or_else(bad),
            };
            changes.push(Change {
                path,
                before: node("before")?,
                after: node("after")?,
            });
        }
        let skipped = value
            .get("skipped")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|s| {
                        Some(Skipped {
                            path: relpath::from_json(s.get("path")?)?,
                            size: s.get("size")?.as_u64()?,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let count = |key: &str| value.get(key).and_then(Value::as_u64).unwrap_or(0);
        Ok(Manifest {
            id: id.to_string(),
            changes,
            skipped,
            lines: (count("linesAdded"), count("linesRemoved")),
        })
    }
}

fn node_or_null(node: &Option<Node>) -> Value {
    node.as_ref().map_or(Value::Null, Node::to_json)
}

/// The manifests folder of a checkpoint store.
#[derive(Clone, Debug)]
pub struct Manifests {
    dir: PathBuf,
}

impl Manifests {
    /// The folder `dir`.
    pub fn new(dir: &Path) -> Manifests {
        Manifests {
            dir: dir.to_path_buf(),
        }
    }

    /// Where manifest `id` lives (`id` must be hex: it comes from a session file).
    pub fn path(&self, id: &str) -> Option<PathBuf> {
        let valid = !id.is_empty() && id.len() <= 32 && id.bytes().all(|b| b.is_ascii_hexdigit());
        valid.then(|| self.dir.join(format!("{id}.json")))
    }

    /// Writes `manifest` (temporary file, then rename).
    ///
    /// # Errors
    ///
    /// The folder or file cannot be written.
    pub fn save(&self, manifest: &Manifest) -> io::Result<()> {
        focus_sys::private_files::create_dir_all(&self.dir)?;
        let path = self
            .path(&manifest.id)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "bad checkpoint id"))?;
        let temp = self.dir.join(format!(".{}.tmp", manifest.id));
        focus_sys::private_files::write(&temp, manifest.to_json().to_json_string())?;
        fs::rename(&temp, &path)
    }

    /// Reads manifest `id`.
    ///
    /// # Errors
    ///
    /// Missing (pruned), unreadable or damaged: the message says which.
    pub fn load(&self, id: &str) -> Result<Manifest, String> {
        let path = self
            .path(id)
            .ok_or(format!("{id:?} is not a checkpoint id"))?;
        let bytes = fs::read(&path)
            .map_err(|e| format!("checkpoint {id} is not stored ({}): {e}", path.display()))?;
        let value = focus_core::json::parse(&bytes)
            .map_err(|e| format!("checkpoint {id} is damaged ({}): {e}", path.display()))?;
        Manifest::from_json(&value)
    }

    /// Every manifest id in the folder, with its modification time.
    pub fn list(&self) -> Vec<(String, std::time::SystemTime)> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let id = name.strip_suffix(".json")?.to_string();
                let time = e.metadata().and_then(|m| m.modified()).ok()?;
                Some((id, time))
            })
            .collect()
    }

    /// Removes manifest `id`.
    ///
    /// # Errors
    ///
    /// It could not be removed.
    pub fn remove(&self, id: &str) -> io::Result<()> {
        match self.path(id) {
            Some(path) => fs::remove_file(path),
            None => Ok(()),
        }
    }
}

/// A new checkpoint id: the time in milliseconds and 16 random bits, in hex,
/// so ids sort by age.
pub fn new_id() -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    format!(
        "{millis:012x}{:04x}",
        crate::session::ids::random_u64() as u16
    )
}
