//! The workspace's source tree, for the tests that check rules about all of it
//! (tidy, the unsafe check, the documents' citations): where it is, and every
//! Rust file in a folder.

use std::path::{Path, PathBuf};

/// The workspace's root folder (the one with the top `Cargo.toml`).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, at any depth, sorted; `target` folders are
/// passed over. A folder that cannot be read counts as empty.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_this_file_and_the_workspace() {
        assert!(workspace().join("Cargo.toml").is_file());
        let files = rust_files(&workspace().join("crates/focus-testkit"));
        assert!(
            files.iter().any(|f| f.ends_with("src/tree.rs")),
            "{files:?}"
        );
        assert!(files.windows(2).all(|w| w[0] < w[1]), "sorted");
        assert!(rust_files(Path::new("/no/such/folder")).is_empty());
    }
}
