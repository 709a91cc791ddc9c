//! Trusted folders: a project's settings widen what runs only once the user
//! said yes to them (Claude Code's trust dialog, codex's trusted projects).
//!
//! - [`asks`]: which keys of a project settings file widen what runs, and a
//!   digest of them.
//! - [`TrustStore`]: the answers, in `<FOCUS_HOME>/trusted-projects.json`
//!   (mode 0600), one per folder, keyed by the folder's identity: its
//!   canonical path *and* its device and inode numbers, so a different
//!   folder later made at the same path (a fresh clone of another repository)
//!   is asked again. Each answer holds the digest of what the folder asked
//!   for; a settings file that asks for something else is asked again.
//!
//! Only "yes" is stored: a folder whose user said no is asked again at the
//! next interactive start.

pub mod asks;
pub mod sha256;

use focus_core::json::{self, Object, Value};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A folder as the trust store knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolderIdentity {
    /// The canonical path (every symbolic link resolved).
    pub path: PathBuf,
    /// The device number of the file system holding it.
    pub device: u64,
    /// Its inode number on that device.
    pub inode: u64,
}

impl FolderIdentity {
    /// The identity of the folder at `dir`.
    ///
    /// # Errors
    /// When the folder cannot be resolved or examined.
    pub fn of(dir: &Path) -> std::io::Result<FolderIdentity> {
        let path = std::fs::canonicalize(dir)?;
        let meta = std::fs::metadata(&path)?;
        Ok(FolderIdentity {
            path,
            device: meta.dev(),
            inode: meta.ino(),
        })
    }
}

/// The file of trust answers in the config directory.
pub fn trust_store_path(config_dir: &Path) -> PathBuf {
    config_dir.join("trusted-projects.json")
}

/// The trust answers of one user.
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    /// The store in `config_dir` (`FOCUS_HOME`).
    pub fn new(config_dir: &Path) -> TrustStore {
        TrustStore {
            path: trust_store_path(config_dir),
        }
    }

    /// Whether `folder` is trusted for settings asking for what `digest`
    /// sums up. A missing or unreadable store trusts nothing.
    pub fn is_trusted(&self, folder: &FolderIdentity, digest: &str) -> bool {
        self.entries().iter().any(|entry| {
            entry["path"].as_str() == folder.path.to_str()
                && entry["device"].as_u64() == Some(folder.device)
                && entry["inode"].as_u64() == Some(folder.inode)
                && entry["digest"].as_str() == Some(digest)
        })
    }

    /// Records that the user trusts `folder` with what `digest` sums up,
    /// replacing an earlier answer for the same path. Written whole to a
    /// temporary file, then renamed (mode 0600, folder 0700).
    ///
    /// # Errors
    /// When the store exists but is not a trust store (it is left as it is),
    /// or cannot be written; the message names the file.
    pub fn trust(&self, folder: &FolderIdentity, digest: &str) -> Result<(), String> {
        let shown = self.path.display();
        let mut entries = match crate::files::read_regular_file(&self.path) {
            None => Vec::new(),
            Some(Err(e)) => return Err(format!("{shown}: cannot read: {e}")),
            Some(Ok(bytes)) => match json::parse(&bytes) {
                Ok(value) if value["trustedProjects"].as_array().is_some() => value
                    ["trustedProjects"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
                _ => {
                    return Err(format!(
                        "{shown}: not a trust store (expected {{\"trustedProjects\": [...]}}); \
                         move it away to record new answers"
                    ))
                }
            },
        };
        let path_text = folder.path.to_string_lossy().into_owned();
        entries.retain(|e| e["path"].as_str() != Some(path_text.as_str()));
        let mut entry = Object::new();
        entry.insert("path", path_text);
        entry.insert("device", Value::from(folder.device));
        entry.insert("inode", Value::from(folder.inode));
        entry.insert("digest", digest);
        entry.insert(
            "trustedAtMs",
            Value::from(focus_core::message::now_ms() as u64),
        );
        entries.push(Value::Object(entry));
        let mut root = Object::new();
        root.insert("trustedProjects", Value::Array(entries));
        let text = format!("{}\n", Value::Object(root).to_pretty_string());
        if let Some(dir) = self.path.parent() {
            focus_sys::private_files::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let mut temporary = self.path.as_os_str().to_owned();
        temporary.push(format!(".tmp-{}", std::process::id()));
        let temporary = PathBuf::from(temporary);
        focus_sys::private_files::write(&temporary, text)
            .and_then(|()| std::fs::rename(&temporary, &self.path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&temporary);
                format!("cannot write {shown}: {e}")
            })
    }

    fn entries(&self) -> Vec<Value> {
        match crate::files::read_regular_file(&self.path) {
            Some(Ok(bytes)) => json::parse(&bytes)
                .ok()
                .and_then(|v| v["trustedProjects"].as_array().cloned())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_holds_for_that_folder_and_digest_only() {
        let root = std::env::temp_dir().join(format!("focus-trust-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (home, project) = (root.join("home"), root.join("project"));
        std::fs::create_dir_all(&project).unwrap();
        let store = TrustStore::new(&home);
        let folder = FolderIdentity::of(&project).unwrap();
        assert!(!store.is_trusted(&folder, "d1"));
        store.trust(&folder, "d1").unwrap();
        assert!(store.is_trusted(&folder, "d1"));
        assert!(
            !store.is_trusted(&folder, "d2"),
            "other settings are asked again"
        );
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(trust_store_path(&home))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Another folder at the same path (a new clone) is not the trusted one.
        // Both exist at once so the new one cannot reuse the inode number.
        let old = root.join("old-project");
        std::fs::rename(&project, &old).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        let again = FolderIdentity::of(&project).unwrap();
        assert_eq!(again.path, folder.path);
        assert!(!store.is_trusted(&again, "d1"));
        store.trust(&again, "d1").unwrap();
        assert!(store.is_trusted(&again, "d1"));
        let text = std::fs::read_to_string(trust_store_path(&home)).unwrap();
        assert_eq!(text.matches("\"digest\"").count(), 1, "one answer per path");
        // A file that is not a store is never overwritten.
        std::fs::write(trust_store_path(&home), "[1]").unwrap();
        assert!(store
            .trust(&again, "d1")
            .unwrap_err()
            .contains("not a trust store"));
        assert_eq!(
            std::fs::read_to_string(trust_store_path(&home)).unwrap(),
            "[1]"
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
