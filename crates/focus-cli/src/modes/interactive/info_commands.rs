//! Commands that only show something: `/hotkeys` (the keys table, with the
//! bindings `keybindings.json` changed) and `/changelog` (the project's
//! CHANGELOG.md).

use super::blocks::{Block, Kind, Streamed};
use super::ui::Ui;
use std::path::{Path, PathBuf};

/// The most lines of a changelog shown (the newest entries come first).
const CHANGELOG_LINES: usize = 60;

impl Ui<'_> {
    /// `/hotkeys`: every key and what it does.
    pub(super) fn show_hotkeys(&mut self) {
        let text = format!("Keys:\n{}", self.keys_text());
        self.say(&text);
    }

    /// The keys table, with what keybindings.json changed.
    pub(super) fn keys_text(&self) -> String {
        focus_tui::keybindings::keys_text(&self.bindings)
    }

    /// `/changelog`: the first lines of the project's CHANGELOG.md, as
    /// Markdown, or a note that there is none.
    pub(super) fn show_changelog(&mut self) -> Result<(), String> {
        let Some(path) = changelog_path(&self.cwd) else {
            self.say(&self.style.dim(
                "this project has no CHANGELOG.md (looked in the working directory and up to the repository's root)",
            ));
            return Ok(());
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let lines: Vec<&str> = text.lines().collect();
        let mut shown = lines[..lines.len().min(CHANGELOG_LINES)].join("\n");
        if lines.len() > CHANGELOG_LINES {
            shown.push_str(&format!(
                "\n\n… {} more lines in {}",
                lines.len() - CHANGELOG_LINES,
                path.display()
            ));
        }
        // A file's text, shown as an answer is: Markdown, sanitized by the renderer.
        self.blocks
            .push(Block::done(Kind::Answer(Streamed::new(&shown))));
        Ok(())
    }
}

/// CHANGELOG.md in `cwd` or a directory above it, up to the repository's root.
fn changelog_path(cwd: &Path) -> Option<PathBuf> {
    for dir in cwd.ancestors() {
        let file = dir.join("CHANGELOG.md");
        if file.is_file() {
            return Some(file);
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}
