//! The project's files for the `@` picker, walked on a thread of their own: at
//! start, after each run (a tool may have added or removed files) and each time
//! the picker opens (for the next time), so typing `@` never waits for a walk
//! of 100,000 files (only the very first `@`, when typed before the first walk
//! ended, walks on the spot).

use super::{Input, Ui};
use focus_tools::walk::{walk, Flow};
use focus_tui::fuzzy::Packed;
use focus_tui::picker::{Item, Picker};
use std::path::Path;
use std::sync::Arc;

/// The most files the `@` picker lists.
pub const MAX_FILES: usize = 100_000;

/// The files known, and whether a walk is going on.
#[derive(Debug, Default)]
pub struct FileIndex {
    /// The last walk's files, as picker entries, packed.
    files: Option<Walked>,
    /// A walk was started and has not come back.
    walking: bool,
}

/// A walk's files as picker entries, and their labels packed for the matcher
/// (both made off the keystroke, on the walking thread).
#[derive(Clone, Debug)]
pub struct Walked {
    items: Arc<Vec<Item>>,
    labels: Arc<Packed>,
}

impl Walked {
    /// The entries and packed labels of `files`.
    pub fn new(files: Vec<String>) -> Walked {
        let items: Vec<Item> = files.into_iter().map(|f| Item::new(f, "")).collect();
        Walked {
            labels: Arc::new(Picker::pack(&items)),
            items: Arc::new(items),
        }
    }

    /// A picker titled `title` over these files.
    pub fn picker(&self, title: &str) -> Picker {
        Picker::packed(title, self.items.clone(), self.labels.clone())
    }

    /// Whether there are no files.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl Ui<'_> {
    /// Starts walking the project in the background (unless a walk is going
    /// on); its files arrive as [`Input::FilesWalked`].
    pub(super) fn walk_files_in_background(&mut self) {
        if std::mem::replace(&mut self.file_index.walking, true) {
            return;
        }
        let root = self.cwd.clone();
        let sender = self.inputs.clone();
        std::thread::spawn(move || {
            let _ = sender.send(Input::FilesWalked(Walked::new(project_files(&root))));
        });
    }

    /// A background walk came back.
    pub(super) fn files_walked(&mut self, files: Walked) {
        self.file_index.walking = false;
        self.file_index.files = Some(files);
    }

    /// The project's files for a picker opening now: the last walk's (and a
    /// new walk for next time), or a walk on the spot when none ended yet.
    pub(super) fn project_items(&mut self) -> Walked {
        let files = match &self.file_index.files {
            Some(files) => files.clone(),
            None => {
                let files = Walked::new(project_files(&self.cwd));
                self.file_index.files = Some(files.clone());
                files
            }
        };
        self.walk_files_in_background();
        files
    }
}

/// The files under `root` (relative, `/`-separated), `.gitignore` respected,
/// at most [`MAX_FILES`].
pub fn project_files(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    walk(root, true, &mut |entry| {
        if !entry.is_dir {
            files.push(entry.rel.clone());
        }
        if files.len() >= MAX_FILES {
            Flow::Stop
        } else {
            Flow::Continue
        }
    });
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_files_leave_out_what_git_ignores() {
        let root = std::env::temp_dir().join(format!("focus-pickers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        std::fs::write(root.join("target/out.bin"), "x").unwrap();
        let files = project_files(&root);
        let _ = std::fs::remove_dir_all(&root);
        assert!(files.contains(&"src/main.rs".to_string()), "{files:?}");
        assert!(!files.iter().any(|f| f.starts_with("target")), "{files:?}");
    }

    #[test]
    fn walked_files_pick_like_a_picker_made_on_the_spot() {
        let files: Vec<String> = ["src/main.rs", "docs/model.md", "Makefile", "src/mod.rs"]
            .iter()
            .map(|f| f.to_string())
            .collect();
        let walked = Walked::new(files.clone());
        assert!(!walked.is_empty());
        let mut kept = walked.picker("files");
        let mut fresh = Picker::new("files", files.iter().map(|f| Item::new(f, "")).collect());
        for query in ["m", "mo", "mod", "s"] {
            kept.set_query(query);
            fresh.set_query(query);
            assert_eq!(kept.match_count(), fresh.match_count(), "{query}");
            assert_eq!(
                kept.rows(80, 12, crate::terminal::style::Style::PLAIN),
                fresh.rows(80, 12, crate::terminal::style::Style::PLAIN)
            );
        }
    }
}
