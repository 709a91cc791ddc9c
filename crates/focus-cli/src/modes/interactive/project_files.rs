//! The project's files for the `@` picker, walked on a thread of their own: at
//! start, after each run (a tool may have added or removed files) and each time
//! the picker opens (for the next time), so typing `@` never waits for a walk
//! of 100,000 files (only the very first `@`, when typed before the first walk
//! ended, walks on the spot).

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

impl FileIndex {
    /// Starts walking `root` on a thread of its own (unless a walk is going
    /// on); `done` gets its files there, and gives them back to
    /// [`FileIndex::walked`].
    pub fn walk_in_background(&mut self, root: &Path, done: impl FnOnce(Walked) + Send + 'static) {
        if std::mem::replace(&mut self.walking, true) {
            return;
        }
        let root = root.to_path_buf();
        std::thread::spawn(move || done(Walked::new(project_files(&root))));
    }

    /// A background walk came back.
    pub fn walked(&mut self, files: Walked) {
        self.walking = false;
        self.files = Some(files);
    }

    /// The files for a picker opening now: the last walk's, or a walk of
    /// `root` on the spot when none ended yet (the caller starts a new walk
    /// for next time).
    pub fn files_now(&mut self, root: &Path) -> Walked {
        self.files
            .get_or_insert_with(|| Walked::new(project_files(root)))
            .clone()
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

    #[test]
    fn one_walk_at_a_time_and_its_files_kept() {
        let root = std::env::temp_dir().join(format!("focus-file-index-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        let mut index = FileIndex::default();
        let (sender, walks) = std::sync::mpsc::channel();
        let first = sender.clone();
        index.walk_in_background(&root, move |w| first.send(w).unwrap());
        // A second walk while the first goes on is not started.
        index.walk_in_background(&root, move |w| sender.send(w).unwrap());
        let walked = walks.recv().unwrap();
        assert!(walks.recv().is_err(), "a second walk ran");
        // Until it comes back, a picker walks on the spot (a file made since
        // shows); then the walk's files are the ones given.
        std::fs::write(root.join("b.txt"), "b").unwrap();
        assert_eq!(index.files_now(&root).picker("f").match_count(), 2);
        assert!(index.walking);
        index.walked(walked);
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(index.files_now(&root).picker("f").match_count(), 1);
        assert!(!index.walking);
    }
}
