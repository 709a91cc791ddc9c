//! Project guidance files: `AGENTS.md` and `CLAUDE.md` from focus's config directory
//! and from every directory between the filesystem root and the working directory.
//!
//! Order is general to specific (config directory, then `/`, then down to the
//! working directory), so the most specific guidance comes last, where models weigh
//! it most. The same file reached twice (a symlink, `CLAUDE.md` linked to
//! `AGENTS.md`, or identical contents) is included once. Files are capped in size so
//! a huge file cannot crowd out the conversation; the cut is marked in the text.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The file names looked for in each directory, in order.
pub const CONTEXT_FILE_NAMES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// Most bytes taken from one file.
pub const MAX_FILE_BYTES: usize = 32 * 1024;

/// Most bytes taken from all files together.
pub const MAX_TOTAL_BYTES: usize = 96 * 1024;

/// One guidance file as it goes into the prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextFile {
    /// Where it was found.
    pub path: PathBuf,
    /// Its text, possibly shortened (with a note saying so).
    pub content: String,
    /// Whether it was shortened.
    pub truncated: bool,
}

/// Finds and reads the guidance files for `cwd`, with `config_dir` (focus's home)
/// first.
pub fn load_context_files(config_dir: &Path, cwd: &Path) -> Vec<ContextFile> {
    let mut dirs = vec![config_dir.to_path_buf()];
    let mut ancestors: Vec<&Path> = cwd.ancestors().collect();
    ancestors.reverse();
    dirs.extend(ancestors.into_iter().map(Path::to_path_buf));

    let mut seen_paths = HashSet::new();
    let mut seen_contents = HashSet::new();
    let mut files = Vec::new();
    let mut budget = MAX_TOTAL_BYTES;
    for dir in dirs {
        for name in CONTEXT_FILE_NAMES {
            let path = dir.join(name);
            let Some(Ok(bytes)) = crate::files::read_regular_file(&path) else {
                continue;
            };
            let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if !seen_paths.insert(canonical) {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if text.trim().is_empty() || !seen_contents.insert(text.clone()) {
                continue;
            }
            let cap = MAX_FILE_BYTES.min(budget);
            let (content, truncated) = cap_text(&text, cap, &path);
            budget = budget.saturating_sub(content.len());
            files.push(ContextFile {
                path,
                content,
                truncated,
            });
        }
    }
    files
}

/// Shortens `text` to at most `cap` bytes (at a character boundary) with a note.
fn cap_text(text: &str, cap: usize, path: &Path) -> (String, bool) {
    if text.len() <= cap {
        return (text.to_string(), false);
    }
    let end = focus_core::char_boundary::floor(text, cap);
    let note = format!(
        "\n\n[focus: {} was cut here; {} more bytes not shown. Read the file for the rest.]",
        path.display(),
        text.len() - end
    );
    (format!("{}{note}", &text[..end]), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_first_specific_last_deduplicated_and_capped() {
        let root = std::env::temp_dir().join(format!("focus-ctx-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let home = root.join("home");
        let project = root.join("a/b");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(home.join("AGENTS.md"), "global rules").unwrap();
        std::fs::write(root.join("a/AGENTS.md"), "outer rules").unwrap();
        std::fs::write(project.join("AGENTS.md"), "inner rules").unwrap();
        // Same contents under the other name: included once.
        std::fs::write(project.join("CLAUDE.md"), "inner rules").unwrap();
        let files = load_context_files(&home, &project);
        let texts: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
        assert_eq!(texts, ["global rules", "outer rules", "inner rules"]);

        std::fs::write(project.join("AGENTS.md"), "é".repeat(MAX_FILE_BYTES)).unwrap();
        let files = load_context_files(&home, &project);
        let last = files
            .iter()
            .find(|f| f.path == project.join("AGENTS.md"))
            .unwrap();
        assert!(last.truncated);
        assert!(last.content.contains("more bytes not shown"));
        assert!(last.content.len() < MAX_FILE_BYTES + 200);
        let _ = std::fs::remove_dir_all(&root);
    }
}
