//! The line editor's state: a multi-line buffer with a cursor, and the history of
//! earlier inputs (kept across runs in `FOCUS_HOME/history.jsonl`). Pure logic:
//! keys in, [`EditAction`]s out; drawing is the screen's job.

use super::keys::Key;
use focus_core::json::{parse_str, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a key asked for beyond editing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditAction {
    /// Nothing beyond a possible change of the buffer.
    None,
    /// Enter: the text to send.
    Submit(String),
    /// Alt+Enter: the text to queue as a follow-up.
    FollowUp(String),
}

/// The input buffer and its history.
#[derive(Debug, Default)]
pub struct Editor {
    buffer: Vec<char>,
    cursor: usize,
    history: Vec<String>,
    /// Position while browsing history (`None`: editing the draft).
    browsing: Option<usize>,
    draft: String,
}

/// The most history entries kept.
const HISTORY_LIMIT: usize = 1000;

impl Editor {
    /// An empty editor with `history` (oldest first).
    pub fn new(history: Vec<String>) -> Editor {
        Editor {
            history,
            ..Editor::default()
        }
    }

    /// The text being edited.
    pub fn text(&self) -> String {
        self.buffer.iter().collect()
    }

    /// The cursor as a character index into [`Editor::text`].
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Replaces the text (cursor at the end).
    pub fn set_text(&mut self, text: &str) {
        self.buffer = text.chars().collect();
        self.cursor = self.buffer.len();
        self.browsing = None;
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// Applies one key.
    pub fn handle(&mut self, key: &Key) -> EditAction {
        match key {
            Key::Char(c) => self.insert(&[*c]),
            Key::Paste(text) => {
                let chars: Vec<char> = text
                    .chars()
                    .filter(|c| *c == '\n' || *c == '\t' || !c.is_control())
                    .collect();
                self.insert(&chars);
            }
            Key::Newline => self.insert(&['\n']),
            Key::Enter | Key::AltEnter => {
                // A trailing backslash continues the input on a new line.
                if *key == Key::Enter
                    && self.cursor == self.buffer.len()
                    && self.buffer.last() == Some(&'\\')
                {
                    self.buffer.pop();
                    self.cursor -= 1;
                    self.insert(&['\n']);
                    return EditAction::None;
                }
                let text = self.take();
                if text.trim().is_empty() {
                    return EditAction::None;
                }
                self.remember(&text);
                return if *key == Key::Enter {
                    EditAction::Submit(text)
                } else {
                    EditAction::FollowUp(text)
                };
            }
            Key::Backspace if self.cursor > 0 => {
                self.cursor -= 1;
                self.buffer.remove(self.cursor);
            }
            Key::Delete if self.cursor < self.buffer.len() => {
                self.buffer.remove(self.cursor);
            }
            Key::Left => self.cursor = self.cursor.saturating_sub(1),
            Key::Right => self.cursor = (self.cursor + 1).min(self.buffer.len()),
            Key::Home => self.cursor = self.line_start(),
            Key::End => self.cursor = self.line_end(),
            Key::WordLeft => self.cursor = self.word_left(),
            Key::WordRight => {
                let mut i = self.cursor;
                while i < self.buffer.len() && !self.buffer[i].is_alphanumeric() {
                    i += 1;
                }
                while i < self.buffer.len() && self.buffer[i].is_alphanumeric() {
                    i += 1;
                }
                self.cursor = i;
            }
            Key::Up => {
                if self.buffer[..self.cursor].contains(&'\n') {
                    self.move_vertically(-1);
                } else {
                    self.history_back();
                }
            }
            Key::Down => {
                if self.buffer[self.cursor..].contains(&'\n') {
                    self.move_vertically(1);
                } else {
                    self.history_forward();
                }
            }
            Key::Ctrl('w') => {
                let start = self.word_left();
                self.buffer.drain(start..self.cursor);
                self.cursor = start;
            }
            Key::Ctrl('u') => {
                let start = self.line_start();
                self.buffer.drain(start..self.cursor);
                self.cursor = start;
            }
            Key::Ctrl('k') => {
                let end = self.line_end();
                self.buffer.drain(self.cursor..end);
            }
            _ => {}
        }
        EditAction::None
    }

    /// Empties the buffer and returns its text.
    pub fn take(&mut self) -> String {
        let text = self.text();
        self.buffer.clear();
        self.cursor = 0;
        self.browsing = None;
        text
    }

    fn insert(&mut self, chars: &[char]) {
        for (i, c) in chars.iter().enumerate() {
            self.buffer.insert(self.cursor + i, *c);
        }
        self.cursor += chars.len();
    }

    fn line_start(&self) -> usize {
        self.buffer[..self.cursor]
            .iter()
            .rposition(|&c| c == '\n')
            .map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.buffer[self.cursor..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(self.buffer.len(), |i| self.cursor + i)
    }

    fn word_left(&self) -> usize {
        let mut i = self.cursor;
        while i > 0 && !self.buffer[i - 1].is_alphanumeric() {
            i -= 1;
        }
        while i > 0 && self.buffer[i - 1].is_alphanumeric() {
            i -= 1;
        }
        i
    }

    fn move_vertically(&mut self, direction: i32) {
        let column = self.cursor - self.line_start();
        let target_start = if direction < 0 {
            let this_start = self.line_start();
            self.buffer[..this_start - 1]
                .iter()
                .rposition(|&c| c == '\n')
                .map_or(0, |i| i + 1)
        } else {
            self.line_end() + 1
        };
        let target_end = self.buffer[target_start..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(self.buffer.len(), |i| target_start + i);
        self.cursor = (target_start + column).min(target_end);
    }

    fn history_back(&mut self) {
        let next = match self.browsing {
            None if self.history.is_empty() => return,
            None => {
                self.draft = self.text();
                self.history.len() - 1
            }
            Some(0) => return,
            Some(i) => i - 1,
        };
        self.browsing = Some(next);
        let text = self.history[next].clone();
        self.buffer = text.chars().collect();
        self.cursor = self.buffer.len();
    }

    fn history_forward(&mut self) {
        let Some(i) = self.browsing else { return };
        let text = if i + 1 < self.history.len() {
            self.browsing = Some(i + 1);
            self.history[i + 1].clone()
        } else {
            self.browsing = None;
            std::mem::take(&mut self.draft)
        };
        self.buffer = text.chars().collect();
        self.cursor = self.buffer.len();
    }

    fn remember(&mut self, text: &str) {
        if self.history.last().map(String::as_str) != Some(text) {
            self.history.push(text.to_string());
            if self.history.len() > HISTORY_LIMIT {
                self.history.remove(0);
            }
        }
    }
}

/// Where input history is kept: one JSON string per line (so multi-line inputs
/// survive), in focus's config directory.
pub fn history_path(home: &Path) -> PathBuf {
    home.join("history.jsonl")
}

/// Loads the history (oldest first); unreadable lines are skipped (one bad
/// byte must not hide every other entry).
pub fn load_history(path: &Path) -> Vec<String> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut entries: Vec<String> = text
        .lines()
        .filter_map(|line| parse_str(line).ok()?.as_str().map(String::from))
        .collect();
    let excess = entries.len().saturating_sub(HISTORY_LIMIT);
    entries.drain(..excess);
    entries
}

/// Appends one input to the history file (errors are ignored: history is a
/// convenience, never a reason to fail).
pub fn append_history(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let line = Value::from(text).to_json_string();
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(file, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(editor: &mut Editor, text: &str) {
        for c in text.chars() {
            editor.handle(&Key::Char(c));
        }
    }

    #[test]
    fn editing_and_cursor_movement() {
        let mut e = Editor::new(Vec::new());
        typed(&mut e, "hello world");
        e.handle(&Key::WordLeft);
        e.handle(&Key::Ctrl('w'));
        assert_eq!(e.text(), "world");
        e.handle(&Key::End);
        e.handle(&Key::Backspace);
        e.handle(&Key::Home);
        e.handle(&Key::Delete);
        assert_eq!(e.text(), "orl");
        assert_eq!(e.handle(&Key::Enter), EditAction::Submit("orl".into()));
        assert!(e.is_empty());
    }

    #[test]
    fn multi_line_by_backslash_newline_and_paste() {
        let mut e = Editor::new(Vec::new());
        typed(&mut e, "a\\");
        assert_eq!(e.handle(&Key::Enter), EditAction::None);
        typed(&mut e, "b");
        e.handle(&Key::Newline);
        e.handle(&Key::Paste("c\nd".into()));
        assert_eq!(e.text(), "a\nb\nc\nd");
        e.handle(&Key::Up);
        e.handle(&Key::Up);
        assert_eq!(e.cursor(), 3); // start of "b" + column 1 clipped to the line
        assert_eq!(
            e.handle(&Key::AltEnter),
            EditAction::FollowUp("a\nb\nc\nd".into())
        );
    }

    #[test]
    fn history_browsing_keeps_the_draft() {
        let mut e = Editor::new(vec!["one".into(), "two".into()]);
        typed(&mut e, "dr");
        e.handle(&Key::Up);
        assert_eq!(e.text(), "two");
        e.handle(&Key::Up);
        e.handle(&Key::Up);
        assert_eq!(e.text(), "one");
        e.handle(&Key::Down);
        e.handle(&Key::Down);
        assert_eq!(e.text(), "dr");
    }

    #[test]
    fn history_file_round_trip() {
        let dir = std::env::temp_dir().join(format!("focus-hist-{}", std::process::id()));
        let path = history_path(&dir);
        append_history(&path, "first");
        append_history(&path, "multi\nline \"q\"");
        std::fs::write(
            &path,
            std::fs::read_to_string(&path).unwrap() + "not json\n",
        )
        .unwrap();
        assert_eq!(load_history(&path), ["first", "multi\nline \"q\""]);
        // A damaged line (here: not UTF-8) costs only itself.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(b"\"bad \xff\"\nnot json\n");
        std::fs::write(&path, bytes).unwrap();
        append_history(&path, "last");
        assert_eq!(
            load_history(&path),
            ["first", "multi\nline \"q\"", "bad \u{fffd}", "last"]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
