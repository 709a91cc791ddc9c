//! The differential renderer: a program's *parts* (the blocks of a
//! conversation, the entries of a log: whatever shows as rows) and the
//! *chrome* below them (rows above an editor, the editor, rows below it) on a
//! terminal whose scrollback only grows. The model (focus's docs/tui.md tells
//! it at length):
//!
//! - Every row written fits the window ([`rows`](crate::rows)): the renderer
//!   wraps, never the terminal, so it always knows how many rows it drew.
//! - *Committed* rows went to the scrollback for good: finished parts, in order,
//!   each exactly once, and the stable leading rows of the first live part.
//! - The *live area* below them is redrawn at every frame: the rest of the live
//!   parts, then the chrome. It never takes more rows than the window has (a
//!   long live part shows its tail), so moving up over it always stays on screen
//!   and nothing of it is ever pushed into the scrollback half-drawn.
//! - A change of the window's size, or [`Screen::redraw_all`], redraws
//!   everything: the screen and the scrollback are cleared and every part is
//!   rendered again at the new width (re-wrapping by the terminal would leave
//!   rows the renderer cannot count).
//!
//! What a part is stays the caller's: anything that says whether it is
//! finished and gives its rows at a width ([`Part`]).

use crate::rows::{editor_rows, fit_rows};
use std::io::Write;

/// Erases from the start of the cursor's row to the end of the screen, the cursor
/// staying where it is: the row by itself (`EL 2`), then everything from the next
/// row down (`ED 0`, between a cursor save and restore). A plain `ED 0` at the top
/// left corner clears the whole screen, and tmux (`scroll-on-clear`, on by
/// default) then copies the screen into its history.
const ERASE_TO_END: &str = "\r\x1b[2K\x1b7\x1b[1B\r\x1b[J\x1b8";

/// Clears the screen and the scrollback, cursor home (a full redraw).
const CLEAR_ALL: &str = "\x1b[H\x1b[2J\x1b[3J";

/// One thing the screen shows as rows, in order with the others: live while it
/// may change, then finished for good.
pub trait Part {
    /// What the rows are drawn with besides the width (colors, what is
    /// folded): the caller's, handed to every call of a frame.
    type Look;

    /// Whether the part changes no more: once its rows are committed, the
    /// screen never asks for them again (until a full redraw).
    fn finished(&self) -> bool;

    /// The rows from row `skip` on, at `width` columns, that will not change
    /// any more (for a finished part, all of them): the screen commits them to
    /// the scrollback.
    fn stable_rows(&mut self, look: &Self::Look, width: usize, skip: usize) -> Vec<String>;

    /// All the rows from row `skip` on, at `width` columns (the live area).
    fn rows_from(&mut self, look: &Self::Look, width: usize, skip: usize) -> Vec<String>;
}

/// What is drawn below the parts.
pub struct Chrome {
    /// Rows above the editor (queued messages, a notice, a dialog).
    pub above: Vec<String>,
    /// The editor's lines (prompt included).
    pub editor: Vec<String>,
    /// Where the cursor stands in the editor: line and visible column.
    pub cursor: (usize, usize),
    /// Rows below the editor (a footer).
    pub below: Vec<String>,
}

/// The terminal's state as the renderer left it.
pub struct Screen {
    /// The window size (columns, rows) the screen was drawn for.
    size: (usize, usize),
    /// Parts committed whole, and rows of the next one already committed.
    committed_parts: usize,
    committed_rows: usize,
    /// Rows of the live area on screen, and the cursor's row among them.
    live_rows: usize,
    cursor_row: usize,
    /// A full redraw is due.
    full: bool,
    size_now: fn() -> (usize, usize),
    buffer: String,
}

/// The window size of stdout's terminal, else stderr's (80×24 when unknown; at
/// least 3 rows).
pub fn window_size() -> (usize, usize) {
    use crate::terminal::{STDERR, STDOUT};
    crate::terminal::window_size(STDOUT)
        .or_else(|| crate::terminal::window_size(STDERR))
        .map_or((80, 24), |(cols, rows)| {
            (usize::from(cols), usize::from(rows).max(3))
        })
}

impl Screen {
    /// A screen with nothing drawn yet, on the terminal of stdout.
    pub fn new() -> Screen {
        Screen::with_size(window_size)
    }

    /// A screen whose window size is read from `size_now` (at every frame).
    pub fn with_size(size_now: fn() -> (usize, usize)) -> Screen {
        Screen {
            size: (0, 0),
            committed_parts: 0,
            committed_rows: 0,
            live_rows: 0,
            cursor_row: 0,
            full: false,
            size_now,
            buffer: String::new(),
        }
    }

    /// Asks for a full redraw at the next frame (Ctrl+L, a part that changed
    /// after it was committed).
    pub fn redraw_all(&mut self) {
        self.full = true;
    }

    /// The window size now.
    pub fn size_now(&self) -> (usize, usize) {
        (self.size_now)()
    }

    /// Forgets the parts committed so far (the caller replaced them all) and
    /// redraws everything at the next frame (once a frame was drawn).
    pub fn restart(&mut self) {
        self.committed_parts = 0;
        self.committed_rows = 0;
        // Before the first frame there is nothing of ours to clear (what the
        // shell printed above stays).
        self.full = self.size != (0, 0);
    }

    /// How many parts are in the scrollback for good (a part from there on may
    /// still be drawn in the live area).
    pub fn committed_parts(&self) -> usize {
        self.committed_parts
    }

    /// How many rows of the first part not committed whole are committed.
    pub fn committed_rows(&self) -> usize {
        self.committed_rows
    }

    /// How many rows the live area took in the last frame.
    pub fn live_rows(&self) -> usize {
        self.live_rows
    }

    /// Draws one frame into the buffer (see [`Screen::flush`]): what became
    /// stable is committed, the live area drawn again.
    pub fn draw<P: Part>(&mut self, parts: &mut [P], look: &P::Look, chrome: &Chrome) {
        let (width, height) = (self.size_now)();
        if self.full || self.size != (width, height) {
            // The first frame has nothing to clear: what the shell printed stays.
            if self.size != (0, 0) || self.full {
                self.buffer.push_str(CLEAR_ALL);
            }
            self.size = (width, height);
            self.full = false;
            self.committed_parts = 0;
            self.committed_rows = 0;
        } else {
            self.erase_live();
        }
        self.live_rows = 0;
        self.cursor_row = 0;
        self.commit(parts, look, width);
        let mut content = self.live_content(parts, look, width);
        let (chrome_rows, editor_top, cursor_row, cursor_col) = chrome_rows(chrome, width, height);
        let room = height - chrome_rows.len();
        if content.len() > room {
            content.drain(..content.len() - room);
        }
        let cursor_row = (content.len() + editor_top + cursor_row).min(height - 1);
        let total = content.len() + chrome_rows.len();
        let all: Vec<String> = content.into_iter().chain(chrome_rows).collect();
        self.buffer.push_str(&all.join("\r\n"));
        let up = total - 1 - cursor_row.min(total - 1);
        if up > 0 {
            self.buffer.push_str(&format!("\x1b[{up}A"));
        }
        self.buffer.push_str(&format!("\r\x1b[{}G", cursor_col + 1));
        self.live_rows = total;
        self.cursor_row = cursor_row;
    }

    /// Commits what will not change: finished parts whole, the stable leading
    /// rows of the first live one.
    fn commit<P: Part>(&mut self, parts: &mut [P], look: &P::Look, width: usize) {
        while self.committed_parts < parts.len() {
            let part = &mut parts[self.committed_parts];
            let new = part.stable_rows(look, width, self.committed_rows);
            for row in &new {
                self.buffer.push_str(row);
                self.buffer.push_str("\r\n");
            }
            if part.finished() {
                self.committed_parts += 1;
                self.committed_rows = 0;
            } else {
                self.committed_rows += new.len();
                break;
            }
        }
    }

    /// The rows of the parts not committed, the first from its first row not
    /// committed.
    fn live_content<P: Part>(&self, parts: &mut [P], look: &P::Look, width: usize) -> Vec<String> {
        let mut content = Vec::new();
        for (i, part) in parts[self.committed_parts..].iter_mut().enumerate() {
            let skip = if i == 0 { self.committed_rows } else { 0 };
            content.extend(part.rows_from(look, width, skip));
        }
        content
    }

    /// Erases the live area (the cursor ends at its top-left).
    fn erase_live(&mut self) {
        if self.live_rows == 0 {
            return;
        }
        if self.cursor_row > 0 {
            self.buffer.push_str(&format!("\x1b[{}A", self.cursor_row));
        }
        self.buffer.push_str(ERASE_TO_END);
        self.live_rows = 0;
        self.cursor_row = 0;
    }

    /// Erases the live area for good (before exiting or suspending); the next
    /// frame draws it again.
    pub fn finish(&mut self) {
        self.erase_live();
    }

    /// Writes what was drawn to stdout, in one write. Raw mode has the
    /// terminal's output processing off (with it on, the kernel stops at every
    /// newline and hands the terminal two writes per row), so the rows end with
    /// `\r\n` of their own; a newline without its `\r` (none is drawn; a guard)
    /// is written as `\r\n`, as output processing would.
    pub fn flush(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(with_carriage_returns(&self.buffer).as_bytes());
        let _ = out.flush();
        drop(out);
        self.buffer.clear();
    }

    /// What was drawn and not yet written, taken instead of written (tests, or
    /// a caller that writes elsewhere than stdout).
    pub fn take(&mut self) -> String {
        std::mem::take(&mut self.buffer)
    }
}

impl Default for Screen {
    fn default() -> Self {
        Screen::new()
    }
}

/// The chrome's rows for a window of `width`×`height`: the rows above, the
/// editor (what the rows above and below leave it, around the cursor) and the
/// rows below, at most `height` in all; with the editor's first row among
/// them and the cursor's row and column in the editor.
fn chrome_rows(chrome: &Chrome, width: usize, height: usize) -> (Vec<String>, usize, usize, usize) {
    let above = fit_rows(chrome.above.clone(), width);
    let below = fit_rows(chrome.below.clone(), width);
    let (mut editor, (mut cursor_row, cursor_col)) =
        editor_rows(&chrome.editor, chrome.cursor, width);
    let editor_room = height.saturating_sub(above.len() + below.len()).max(1);
    if editor.len() > editor_room {
        let start = (cursor_row + 1).saturating_sub(editor_room);
        editor = editor[start..start + editor_room].to_vec();
        cursor_row -= start;
    }
    let mut rows = above;
    let editor_top = rows.len();
    rows.extend(editor);
    rows.extend(below);
    rows.truncate(height);
    (rows, editor_top, cursor_row, cursor_col)
}

/// `text` with every `\n` not preceded by `\r` written as `\r\n` (what the
/// terminal's output processing does, for a write made without it).
fn with_carriage_returns(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let bare = |i: usize| bytes[i] == b'\n' && (i == 0 || bytes[i - 1] != b'\r');
    if !(0..bytes.len()).any(bare) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut start = 0;
    for i in (0..bytes.len()).filter(|&i| bare(i)) {
        out.push_str(&text[start..i]);
        out.push_str("\r\n");
        start = i + 1;
    }
    out.push_str(&text[start..]);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::text_rows;

    /// A part of plain text: its complete lines are stable while it is live.
    struct Text {
        text: String,
        finished: bool,
    }

    impl Text {
        fn live(text: &str) -> Text {
            Text {
                text: text.into(),
                finished: false,
            }
        }

        fn done(text: &str) -> Text {
            Text {
                finished: true,
                ..Text::live(text)
            }
        }
    }

    impl Part for Text {
        type Look = ();

        fn finished(&self) -> bool {
            self.finished
        }

        fn stable_rows(&mut self, _: &(), width: usize, skip: usize) -> Vec<String> {
            if self.finished {
                return self.rows_from(&(), width, skip);
            }
            let complete = match self.text.rfind('\n') {
                Some(end) => &self.text[..end],
                None => return Vec::new(),
            };
            text_rows(complete, width).into_iter().skip(skip).collect()
        }

        fn rows_from(&mut self, _: &(), width: usize, skip: usize) -> Vec<String> {
            text_rows(&self.text, width)
                .into_iter()
                .skip(skip)
                .collect()
        }
    }

    fn chrome(editor: &str) -> Chrome {
        Chrome {
            above: vec![],
            editor: vec![format!("› {editor}")],
            cursor: (0, 2 + editor.len()),
            below: vec!["footer".into()],
        }
    }

    /// How many rows a frame's output ends (committed rows and the live
    /// area's row ends).
    fn row_ends(out: &str) -> usize {
        out.matches("\r\n").count()
    }

    #[test]
    fn bare_newlines_get_their_carriage_return() {
        assert!(matches!(
            with_carriage_returns("a\r\nb\r\n"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            with_carriage_returns("\na\nb\r\nc\n"),
            "\r\na\r\nb\r\nc\r\n"
        );
    }

    #[test]
    fn finished_parts_are_committed_once() {
        let mut screen = Screen::with_size(|| (40, 10));
        let mut parts = vec![Text::done("hello")];
        screen.draw(&mut parts, &(), &chrome(""));
        let first = screen.take();
        assert!(first.starts_with("hello\r\n› \r\nfooter"), "{first:?}");
        assert_eq!(screen.committed_parts(), 1);
        screen.draw(&mut parts, &(), &chrome("x"));
        let second = screen.take();
        assert!(!second.contains("hello"), "{second:?}");
        // Up one row (the cursor is on the editor), erase, draw.
        assert!(second.starts_with(&format!("{ERASE_TO_END}› x\r\nfooter\x1b[1A")));
    }

    #[test]
    fn a_long_live_part_shows_its_tail_within_the_window() {
        let mut screen = Screen::with_size(|| (20, 8));
        let long = "word\n".repeat(200);
        let long = long.trim_end();
        let mut parts = vec![Text::live(long)];
        // Its complete lines are committed; the last one and the chrome are live.
        screen.draw(&mut parts, &(), &chrome(""));
        assert_eq!(screen.committed_rows(), 199);
        assert_eq!(screen.live_rows(), 3);
        assert_eq!(screen.take().matches("word").count(), 200);
        // A live part with no stable rows shows only what the window has room
        // for: its tail.
        let mut screen = Screen::with_size(|| (20, 8));
        let mut parts = vec![Text::live(&"word ".repeat(200))];
        screen.draw(&mut parts, &(), &chrome(""));
        assert_eq!(screen.live_rows(), 8);
        assert_eq!(row_ends(&screen.take()), 7);
        // Finished: all of it goes to the scrollback, once.
        parts[0].finished = true;
        screen.draw(&mut parts, &(), &chrome(""));
        let out = screen.take();
        assert_eq!(out.matches("word").count(), 200, "{out:?}");
        assert_eq!(screen.live_rows(), 2);
    }

    #[test]
    fn stable_rows_of_a_live_part_are_committed_as_they_come() {
        let mut screen = Screen::with_size(|| (40, 10));
        let mut parts = vec![Text::live("one\ntw")];
        screen.draw(&mut parts, &(), &chrome(""));
        let out = screen.take();
        assert!(out.starts_with("one\r\ntw\r\n"), "{out:?}");
        parts[0].text.push_str("o\nthree");
        screen.draw(&mut parts, &(), &chrome(""));
        let out = screen.take();
        assert_eq!(out.matches("one").count(), 0, "{out:?}");
        assert!(out.contains("two\r\nthree\r\n"), "{out:?}");
    }

    #[test]
    fn a_new_size_redraws_everything() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static WIDTH_NOW: AtomicUsize = AtomicUsize::new(40);
        fn size() -> (usize, usize) {
            (WIDTH_NOW.load(Ordering::Relaxed), 10)
        }
        let mut screen = Screen::with_size(size);
        let mut parts = vec![Text::done(&"a".repeat(30))];
        screen.draw(&mut parts, &(), &chrome(""));
        screen.take();
        WIDTH_NOW.store(20, Ordering::Relaxed);
        screen.draw(&mut parts, &(), &chrome(""));
        let out = screen.take();
        assert!(out.starts_with(CLEAR_ALL), "{out:?}");
        assert!(out.contains(&format!("{}\r\n{}\r\n", "a".repeat(20), "a".repeat(10))));
    }

    #[test]
    fn a_restart_clears_and_commits_everything_again() {
        let mut screen = Screen::with_size(|| (40, 10));
        let mut parts = vec![Text::done("first")];
        screen.draw(&mut parts, &(), &chrome(""));
        screen.take();
        screen.restart();
        let mut parts = vec![Text::done("second")];
        screen.draw(&mut parts, &(), &chrome(""));
        let out = screen.take();
        assert!(
            out.starts_with(&format!("{CLEAR_ALL}second\r\n")),
            "{out:?}"
        );
        assert!(!out.contains("first"), "{out:?}");
        // Before any frame, a restart clears nothing (the shell's output stays).
        let mut fresh = Screen::with_size(|| (40, 10));
        fresh.restart();
        fresh.draw(&mut parts, &(), &chrome(""));
        assert!(!fresh.take().contains(CLEAR_ALL));
    }

    #[test]
    fn a_tall_editor_keeps_the_cursor_row_on_screen() {
        let mut screen = Screen::with_size(|| (40, 5));
        let lines: Vec<String> = (0..30).map(|i| format!("line {i}")).collect();
        let chrome = Chrome {
            above: vec!["notice".into()],
            editor: lines,
            cursor: (29, 7),
            below: vec!["footer".into()],
        };
        screen.draw::<Text>(&mut [], &(), &chrome);
        let out = screen.take();
        assert_eq!(screen.live_rows(), 5);
        assert!(out.contains("line 29\r\nfooter"), "{out:?}");
        assert!(!out.contains("line 10"), "{out:?}");
    }

    #[test]
    fn rows_wider_than_the_window_are_split() {
        let mut screen = Screen::with_size(|| (10, 6));
        let chrome = Chrome {
            above: vec!["n".repeat(15)],
            editor: vec!["› ".into()],
            cursor: (0, 2),
            below: vec![],
        };
        screen.draw::<Text>(&mut [], &(), &chrome);
        let out = screen.take();
        assert!(
            out.starts_with(&format!("{}\r\n{}\r\n› ", "n".repeat(10), "n".repeat(5))),
            "{out:?}"
        );
    }
}
