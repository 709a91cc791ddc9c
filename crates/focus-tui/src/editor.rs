//! The line editor's state: a multi-line buffer with a cursor, and the history of
//! earlier inputs (kept across runs in `FOCUS_HOME/history.jsonl`). Pure logic:
//! keys in, [`EditAction`]s out; drawing is the screen's job.

use crate::keys::Key;
use crate::width::char_width;
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
    /// Up/Down: the column to return to on a line long enough (kept across
    /// short lines).
    goal: Option<usize>,
    /// Killed text, newest last (Ctrl+W/U/K, Alt+D); Ctrl+Y yanks the newest,
    /// Alt+Y right after a yank replaces it with the one before.
    kill_ring: Vec<String>,
    /// What the last key did, to join consecutive kills and allow Alt+Y.
    last: Last,
    /// The range of the last yank and the ring entry it came from.
    yanked: Option<(usize, usize, usize)>,
    /// States before each change (typing a run of characters is one change).
    undo: Vec<(Vec<char>, usize)>,
    /// States undo took back, newest last (any new change forgets them).
    redo: Vec<(Vec<char>, usize)>,
    /// The text of each big paste, shown as `[paste #N +L lines]`.
    pastes: Vec<String>,
}

/// A paste of more lines than this (or more bytes than [`PASTE_BYTES`]) shows as
/// a marker in the editor.
const PASTE_LINES: usize = 10;
/// See [`PASTE_LINES`].
const PASTE_BYTES: usize = 2000;

/// The marker of paste `n` of `lines` lines.
fn paste_marker(n: usize, lines: usize) -> String {
    format!("[paste #{n} +{lines} lines]")
}

/// What the previous key did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Last {
    #[default]
    Other,
    Typed,
    Killed,
    Yanked,
}

/// The most history entries kept.
const HISTORY_LIMIT: usize = 1000;
/// The most kills and undo steps kept.
const RING_LIMIT: usize = 60;

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
        self.save_undo();
        self.buffer = text.chars().collect();
        self.cursor = self.buffer.len();
        self.browsing = None;
    }

    /// Replaces the characters `start..end` (clamped to the text) by `text`,
    /// the cursor after it: a picker's choice taking the place of what was typed
    /// to find it. One undo step.
    pub fn replace_range(&mut self, start: usize, end: usize, text: &str) {
        self.save_undo();
        let end = end.min(self.buffer.len());
        let start = start.min(end);
        let chars: Vec<char> = text.chars().collect();
        self.buffer.splice(start..end, chars.iter().copied());
        self.cursor = start + chars.len();
        self.browsing = None;
    }

    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// Applies one key.
    pub fn handle(&mut self, key: &Key) -> EditAction {
        let last = std::mem::take(&mut self.last);
        if !matches!(key, Key::Up | Key::Down) {
            self.goal = None;
        }
        match key {
            Key::Char(c) => {
                if last != Last::Typed {
                    self.save_undo();
                }
                self.insert(&[*c]);
                self.last = Last::Typed;
            }
            Key::Paste(text) => {
                self.save_undo();
                let clean: String = text
                    .chars()
                    .filter(|c| *c == '\n' || *c == '\t' || !c.is_control())
                    .collect();
                let lines = clean.lines().count();
                let shown = if lines > PASTE_LINES || clean.len() > PASTE_BYTES {
                    // A big paste shows as a marker, expanded when sent.
                    self.pastes.push(clean);
                    paste_marker(self.pastes.len(), lines)
                } else {
                    clean
                };
                self.insert(&shown.chars().collect::<Vec<_>>());
            }
            Key::Newline => {
                self.save_undo();
                self.insert(&['\n']);
            }
            Key::Enter | Key::AltEnter => {
                // A trailing backslash continues the input on a new line.
                if *key == Key::Enter
                    && self.cursor == self.buffer.len()
                    && self.buffer.last() == Some(&'\\')
                {
                    self.save_undo();
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
                self.save_undo();
                let start = prev_boundary(&self.buffer, self.cursor);
                self.buffer.drain(start..self.cursor);
                self.cursor = start;
            }
            Key::Delete if self.cursor < self.buffer.len() => {
                self.save_undo();
                let end = next_boundary(&self.buffer, self.cursor);
                self.buffer.drain(self.cursor..end);
            }
            Key::Left => self.cursor = prev_boundary(&self.buffer, self.cursor),
            Key::Right => self.cursor = next_boundary(&self.buffer, self.cursor),
            Key::Home => self.cursor = self.line_start(),
            Key::End => self.cursor = self.line_end(),
            Key::WordLeft => self.cursor = self.word_left(),
            Key::WordRight => self.cursor = self.word_right(),
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
            Key::Ctrl('w') => self.kill(self.word_left(), self.cursor, last, true),
            Key::Alt('d') => self.kill(self.cursor, self.word_right(), last, false),
            Key::Ctrl('u') => self.kill(self.line_start(), self.cursor, last, true),
            Key::Ctrl('k') => {
                // At a line's end, Ctrl+K joins the next line.
                let end = self.line_end();
                let end = if end == self.cursor && end < self.buffer.len() {
                    end + 1
                } else {
                    end
                };
                self.kill(self.cursor, end, last, false);
            }
            Key::Ctrl('y') => {
                if let Some(text) = self.kill_ring.last().cloned() {
                    self.save_undo();
                    let start = self.cursor;
                    self.insert(&text.chars().collect::<Vec<_>>());
                    self.yanked = Some((start, self.cursor, self.kill_ring.len() - 1));
                    self.last = Last::Yanked;
                }
            }
            Key::Alt('y') if last == Last::Yanked => {
                if let Some((start, end, index)) = self.yanked {
                    let index = index.checked_sub(1).unwrap_or(self.kill_ring.len() - 1);
                    let text: Vec<char> = self.kill_ring[index].chars().collect();
                    self.buffer.drain(start..end);
                    self.cursor = start;
                    self.insert(&text);
                    self.yanked = Some((start, self.cursor, index));
                    self.last = Last::Yanked;
                }
            }
            Key::Undo => {
                if let Some((buffer, cursor)) = self.undo.pop() {
                    let now = std::mem::replace(&mut self.buffer, buffer);
                    self.redo.push((now, self.cursor));
                    self.cursor = cursor.min(self.buffer.len());
                }
            }
            Key::Redo => {
                if let Some((buffer, cursor)) = self.redo.pop() {
                    let now = std::mem::replace(&mut self.buffer, buffer);
                    self.undo.push((now, self.cursor));
                    self.cursor = cursor.min(self.buffer.len());
                }
            }
            _ => {}
        }
        EditAction::None
    }

    /// Empties the buffer and returns its text (paste markers expanded).
    pub fn take(&mut self) -> String {
        let text = self.expand_pastes(&self.text());
        self.buffer.clear();
        self.cursor = 0;
        self.browsing = None;
        self.undo.clear();
        self.redo.clear();
        self.pastes.clear();
        text
    }

    /// `text` with each paste marker still whole replaced by its paste.
    fn expand_pastes(&self, text: &str) -> String {
        let mut text = text.to_string();
        for (i, paste) in self.pastes.iter().enumerate() {
            let marker = paste_marker(i + 1, paste.lines().count());
            if let Some(at) = text.find(&marker) {
                text.replace_range(at..at + marker.len(), paste);
            }
        }
        text
    }

    /// Remembers the state before a change, for Ctrl+_ (what undo took back
    /// can no longer be redone).
    fn save_undo(&mut self) {
        self.redo.clear();
        if self.undo.last().is_some_and(|(b, _)| *b == self.buffer) {
            return;
        }
        self.undo.push((self.buffer.clone(), self.cursor));
        if self.undo.len() > RING_LIMIT {
            self.undo.remove(0);
        }
    }

    /// Cuts `start..end` into the kill ring (joined to the previous kill when the
    /// key before was a kill too: before it when killing backwards).
    fn kill(&mut self, start: usize, end: usize, last: Last, backwards: bool) {
        if start >= end {
            self.last = Last::Killed;
            return;
        }
        self.save_undo();
        let text: String = self.buffer.drain(start..end).collect();
        self.cursor = start;
        match self.kill_ring.last_mut() {
            Some(previous) if last == Last::Killed => {
                if backwards {
                    previous.insert_str(0, &text);
                } else {
                    previous.push_str(&text);
                }
            }
            _ => {
                self.kill_ring.push(text);
                if self.kill_ring.len() > RING_LIMIT {
                    self.kill_ring.remove(0);
                }
            }
        }
        self.last = Last::Killed;
    }

    fn insert(&mut self, chars: &[char]) {
        self.buffer
            .splice(self.cursor..self.cursor, chars.iter().copied());
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

    fn word_right(&self) -> usize {
        let mut i = self.cursor;
        while i < self.buffer.len() && !self.buffer[i].is_alphanumeric() {
            i += 1;
        }
        while i < self.buffer.len() && self.buffer[i].is_alphanumeric() {
            i += 1;
        }
        i
    }

    /// Moves to the line above or below, to the goal column (the display column
    /// where vertical moves began) or the line's end when it is shorter; a move
    /// never lands inside a grapheme cluster.
    fn move_vertically(&mut self, direction: i32) {
        let start = self.line_start();
        let goal = *self
            .goal
            .get_or_insert_with(|| columns(&self.buffer[start..self.cursor]));
        let target_start = if direction < 0 {
            self.buffer[..start - 1]
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
        let mut at = target_start;
        while at < target_end {
            let next = next_boundary(&self.buffer, at).min(target_end);
            if columns(&self.buffer[target_start..next]) > goal {
                break;
            }
            at = next;
        }
        self.cursor = at;
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

/// The display columns of `chars`.
fn columns(chars: &[char]) -> usize {
    chars.iter().map(|&c| char_width(c)).sum()
}

/// Whether `c` joins the character before it into one grapheme cluster: a
/// combining mark (no columns), a variation selector, an emoji skin tone, a tag
/// (flag sequences), or a zero-width joiner (which also joins what follows it).
fn extends(c: char) -> bool {
    let code = c as u32;
    c == '\u{200D}'
        || (char_width(c) == 0 && !c.is_control() && c != '\n')
        || (0xFE00..=0xFE0F).contains(&code)
        || (0x1F3FB..=0x1F3FF).contains(&code)
        || (0xE0020..=0xE007F).contains(&code)
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

/// The end of the grapheme cluster starting at `at` (a simplified UAX #29:
/// marks, joiners, selectors, skin tones, tags, flag pairs).
pub fn next_boundary(chars: &[char], at: usize) -> usize {
    if at >= chars.len() {
        return chars.len();
    }
    let first = chars[at];
    let mut i = at + 1;
    if is_regional_indicator(first) && chars.get(i).copied().is_some_and(is_regional_indicator) {
        i += 1;
    }
    while i < chars.len() && extends(chars[i]) {
        if chars[i] == '\u{200D}' && i + 1 < chars.len() && chars[i + 1] != '\n' {
            i += 2;
        } else {
            i += 1;
        }
    }
    i
}

/// The start of the grapheme cluster ending at `at`.
pub fn prev_boundary(chars: &[char], at: usize) -> usize {
    if at == 0 {
        return 0;
    }
    // Walk clusters from the start of the line: boundaries depend on what
    // came before (flag pairs).
    let line_start = chars[..at]
        .iter()
        .rposition(|&c| c == '\n')
        .map_or(0, |i| i + 1);
    let line_start = if line_start == at { at - 1 } else { line_start };
    let mut i = line_start;
    loop {
        let next = next_boundary(chars, i);
        if next >= at {
            return i;
        }
        i = next;
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
        let _ = focus_sys::private_files::create_dir_all(dir);
    }
    let line = Value::from(text).to_json_string();
    // What the user typed is private: 0600 in a 0700 folder.
    if let Ok(mut file) = focus_sys::private_files::open_append(path) {
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
    fn a_range_is_replaced_with_the_cursor_after_it() {
        let mut e = Editor::new(Vec::new());
        typed(&mut e, "see @ma and more");
        e.replace_range(4, 7, "@src/main.rs ");
        assert_eq!(e.text(), "see @src/main.rs  and more");
        assert_eq!(e.cursor(), 17);
        e.replace_range(100, 200, "!");
        assert_eq!(e.text(), "see @src/main.rs  and more!");
        e.handle(&Key::Undo);
        assert_eq!(e.text(), "see @src/main.rs  and more");
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
    fn a_big_paste_is_a_marker_until_sent() {
        let mut e = Editor::new(vec![]);
        typed(&mut e, "look: ");
        let paste: String = (1..=200).map(|i| format!("line {i}\n")).collect();
        e.handle(&Key::Paste(paste.clone()));
        assert_eq!(e.text(), "look: [paste #1 +200 lines]");
        e.handle(&Key::Paste("two\nlines".into()));
        assert_eq!(e.text(), "look: [paste #1 +200 lines]two\nlines");
        assert_eq!(
            e.handle(&Key::Enter),
            EditAction::Submit(format!("look: {paste}two\nlines"))
        );
        // A marker the user broke stays as typed.
        e.handle(&Key::Paste(paste));
        e.handle(&Key::Backspace);
        assert_eq!(e.take(), "[paste #1 +200 lines");
    }

    #[test]
    fn the_cursor_moves_by_grapheme_cluster() {
        let mut e = Editor::new(vec![]);
        // A family (three people joined by ZWJ), a thumb with a skin tone, a
        // flag, an e with a combining accent.
        typed(&mut e, "a👨\u{200D}👩\u{200D}👧👍🏽🇫🇷e\u{301}");
        let len = e.text().chars().count();
        e.handle(&Key::Left);
        assert_eq!(e.cursor(), len - 2, "e + accent");
        e.handle(&Key::Left);
        assert_eq!(e.cursor(), len - 4, "the flag");
        e.handle(&Key::Left);
        assert_eq!(e.cursor(), len - 6, "thumb + tone");
        e.handle(&Key::Left);
        assert_eq!(e.cursor(), 1, "the family in one press");
        e.handle(&Key::Delete);
        assert_eq!(e.text(), "a👍🏽🇫🇷e\u{301}");
        e.handle(&Key::End);
        e.handle(&Key::Backspace);
        assert_eq!(e.text(), "a👍🏽🇫🇷");
    }

    #[test]
    fn up_and_down_keep_the_goal_column() {
        let mut e = Editor::new(vec![]);
        e.set_text("a long first line\nab\nanother long line");
        e.handle(&Key::Up);
        e.handle(&Key::Up);
        e.handle(&Key::End);
        // Column 17 of the first line; the short middle line clamps, the last
        // line gets column 17 back.
        e.handle(&Key::Down);
        assert_eq!(e.cursor(), 18 + 2);
        e.handle(&Key::Down);
        assert_eq!(e.cursor(), 21 + 17);
    }

    #[test]
    fn kill_ring_yank_and_undo() {
        let mut e = Editor::new(vec![]);
        typed(&mut e, "one two three");
        e.handle(&Key::Ctrl('w'));
        e.handle(&Key::Ctrl('w'));
        // Two kills in a row are one entry.
        assert_eq!(e.text(), "one ");
        e.handle(&Key::Ctrl('y'));
        assert_eq!(e.text(), "one two three");
        e.handle(&Key::Home);
        e.handle(&Key::Alt('d'));
        assert_eq!(e.text(), " two three");
        e.handle(&Key::End);
        e.handle(&Key::Ctrl('y'));
        assert_eq!(e.text(), " two threeone");
        e.handle(&Key::Alt('y'));
        assert_eq!(e.text(), " two threetwo three");
        e.handle(&Key::Undo);
        assert_eq!(e.text(), " two three");
        e.handle(&Key::Undo);
        assert_eq!(e.text(), "one two three");
        // A run of typed characters is one step.
        typed(&mut e, " four");
        e.handle(&Key::Undo);
        assert_eq!(e.text(), "one two three");
    }

    #[test]
    fn redo_takes_back_undo_until_the_next_change() {
        let mut e = Editor::new(vec![]);
        typed(&mut e, "one");
        e.handle(&Key::Ctrl('w'));
        typed(&mut e, "two");
        e.handle(&Key::Undo);
        e.handle(&Key::Undo);
        assert_eq!(e.text(), "one");
        e.handle(&Key::Redo);
        assert_eq!(e.text(), "");
        e.handle(&Key::Redo);
        assert_eq!((e.text().as_str(), e.cursor()), ("two", 3));
        e.handle(&Key::Redo);
        assert_eq!(e.text(), "two");
        e.handle(&Key::Undo);
        assert_eq!(e.text(), "");
        // A new change forgets what could be redone.
        typed(&mut e, "x");
        e.handle(&Key::Redo);
        assert_eq!(e.text(), "x");
    }

    #[test]
    fn history_file_round_trip() {
        let dir = std::env::temp_dir().join(format!("focus-hist-{}", std::process::id()));
        let path = history_path(&dir);
        append_history(&path, "first");
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(
                (mode(&dir), mode(&path)),
                (0o700, 0o600),
                "history is private"
            );
        }
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
