//! The renderer: the conversation's blocks and the *chrome* (queued messages,
//! the notice, the editor and the footer) on a terminal whose scrollback only
//! grows. The model (docs/tui.md tells it at length):
//!
//! - Every row written fits the window ([`rows`](focus_tui::rows)): the renderer
//!   wraps, never the terminal, so it always knows how many rows it drew.
//! - *Committed* rows went to the scrollback for good: finished blocks, in order,
//!   each exactly once, and the stable leading rows of the first live block.
//! - The *live area* below them is redrawn at every frame: the rest of the live
//!   blocks, then the chrome. It never takes more rows than the window has (a
//!   long live block shows its tail), so moving up over it always stays on screen
//!   and nothing of it is ever pushed into the scrollback half-drawn.
//! - A change of the window's size, or Ctrl+L, redraws everything: the screen and
//!   the scrollback are cleared and every block is rendered again at the new width
//!   (re-wrapping by the terminal would leave rows the renderer cannot count).

use super::blocks::{fit_rows, Block, Look};
use focus_tui::rows::editor_rows;
use std::io::Write;

/// Erases from the start of the cursor's row to the end of the screen, the cursor
/// staying where it is: the row by itself (`EL 2`), then everything from the next
/// row down (`ED 0`, between a cursor save and restore). A plain `ED 0` at the top
/// left corner clears the whole screen, and tmux (`scroll-on-clear`, on by
/// default) then copies the screen into its history.
const ERASE_TO_END: &str = "\r\x1b[2K\x1b7\x1b[1B\r\x1b[J\x1b8";

/// Clears the screen and the scrollback, cursor home (a full redraw).
const CLEAR_ALL: &str = "\x1b[H\x1b[2J\x1b[3J";

/// What is drawn below the conversation.
pub struct Chrome {
    /// Rows above the editor (queued messages, the notice, a dialog).
    pub above: Vec<String>,
    /// The editor's lines (prompt included) and the cursor `(line, column)`.
    pub editor: Vec<String>,
    /// Where the cursor stands in the editor: line and visible column.
    pub cursor: (usize, usize),
    /// Rows below the editor (the footer).
    pub below: Vec<String>,
}

/// The terminal's state as the renderer left it.
pub struct Screen {
    /// The window size (columns, rows) the screen was drawn for.
    size: (usize, usize),
    /// Blocks committed whole, and rows of the next one already committed.
    committed_blocks: usize,
    committed_rows: usize,
    /// Rows of the live area on screen, and the cursor's row among them.
    live_rows: usize,
    cursor_row: usize,
    /// A full redraw is due.
    full: bool,
    size_now: fn() -> (usize, usize),
    buffer: String,
}

/// The window size of stdout's terminal (80×24 when unknown).
pub fn window_size() -> (usize, usize) {
    crate::terminal::ffi::window_size(crate::terminal::STDOUT)
        .or_else(|| crate::terminal::ffi::window_size(crate::terminal::STDERR))
        .map_or((80, 24), |(cols, rows)| {
            (usize::from(cols), usize::from(rows).max(3))
        })
}

impl Screen {
    /// A screen with nothing drawn yet, on the terminal of stdout.
    pub fn new() -> Screen {
        Screen::with_size(window_size)
    }

    /// A screen whose window size is read from `size_now`.
    pub fn with_size(size_now: fn() -> (usize, usize)) -> Screen {
        Screen {
            size: (0, 0),
            committed_blocks: 0,
            committed_rows: 0,
            live_rows: 0,
            cursor_row: 0,
            full: false,
            size_now,
            buffer: String::new(),
        }
    }

    /// Asks for a full redraw at the next frame (Ctrl+L, a new transcript, a
    /// block expanded).
    pub fn redraw_all(&mut self) {
        self.full = true;
    }

    /// The window size now.
    pub fn size_now(&self) -> (usize, usize) {
        (self.size_now)()
    }

    /// Forgets the blocks committed so far (the transcript was replaced) and
    /// redraws everything at the next frame (once a frame was drawn).
    pub fn restart(&mut self) {
        self.committed_blocks = 0;
        self.committed_rows = 0;
        // Before the first frame there is nothing of focus's to clear (what the
        // shell printed above stays).
        self.full = self.size != (0, 0);
    }

    /// How many blocks are in the scrollback for good (a block from there on may
    /// still be drawn in the live area).
    pub fn committed_blocks(&self) -> usize {
        self.committed_blocks
    }

    /// How many rows of the first block not committed whole are committed.
    pub fn committed_rows(&self) -> usize {
        self.committed_rows
    }

    /// Draws one frame into the buffer (see [`Screen::flush`]).
    pub fn draw(&mut self, blocks: &mut [Block], look: Look, chrome: &Chrome) {
        let (width, height) = (self.size_now)();
        let look = Look { width, ..look };
        if self.full || self.size != (width, height) {
            // The first frame has nothing to clear: what the shell printed stays.
            if self.size != (0, 0) || self.full {
                self.buffer.push_str(CLEAR_ALL);
            }
            self.size = (width, height);
            self.full = false;
            self.committed_blocks = 0;
            self.committed_rows = 0;
        } else {
            self.erase_live();
        }
        self.live_rows = 0;
        self.cursor_row = 0;
        // Commit what will not change.
        while self.committed_blocks < blocks.len() {
            let block = &mut blocks[self.committed_blocks];
            let new = block.stable_rows(&look, self.committed_rows);
            for row in &new {
                self.buffer.push_str(row);
                self.buffer.push_str("\r\n");
            }
            if block.finished {
                self.committed_blocks += 1;
                self.committed_rows = 0;
            } else {
                self.committed_rows += new.len();
                break;
            }
        }
        // The live area: the rest of the live blocks, then the chrome.
        let mut content = Vec::new();
        for (i, block) in blocks[self.committed_blocks..].iter_mut().enumerate() {
            let skip = if i == 0 { self.committed_rows } else { 0 };
            // Images are drawn once, in the scrollback, not at every frame.
            let rows = block.rows_from(&look, skip).into_iter();
            content.extend(rows.map(focus_tui::graphics::without_image));
        }
        let above = fit_rows(chrome.above.clone(), width);
        let below = fit_rows(chrome.below.clone(), width);
        let (mut editor, (mut cursor_row, cursor_col)) =
            editor_rows(&chrome.editor, chrome.cursor, width);
        // The editor gets what the notice and footer leave, around the cursor.
        let editor_room = height.saturating_sub(above.len() + below.len()).max(1);
        if editor.len() > editor_room {
            let start = (cursor_row + 1).saturating_sub(editor_room);
            editor = editor[start..start + editor_room].to_vec();
            cursor_row -= start;
        }
        let mut chrome_rows = above;
        let editor_top = chrome_rows.len();
        chrome_rows.extend(editor);
        chrome_rows.extend(below);
        chrome_rows.truncate(height);
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

    /// Writes what was drawn to the terminal, in one write. Raw mode has the
    /// terminal's output processing off (with it on, the kernel stops at every
    /// newline and hands the terminal two writes per row), so the rows end with
    /// `\r\n` of their own; a newline without its `\r` (none is drawn; a guard)
    /// is written as `\r\n`, as output processing would.
    pub fn flush(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        // Raw mode writes bytes as they are (no `\n` to `\r\n`): every line
        // ends in `\r\n` here, and the frame goes out in one write.
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(with_carriage_returns(&self.buffer).as_bytes());
        let _ = out.flush();
        drop(out);
        self.buffer.clear();
    }

    /// What was drawn and not yet written (for tests).
    #[cfg(test)]
    fn take(&mut self) -> String {
        std::mem::take(&mut self.buffer)
    }
}

impl Default for Screen {
    fn default() -> Self {
        Screen::new()
    }
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

pub use focus_tui::width::visible_width;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::interactive::blocks::{Kind, Streamed};
    use crate::terminal::style::Style;

    fn look() -> Look {
        Look {
            width: 0,
            style: Style::PLAIN,
            show_thinking: true,
            hyperlinks: false,
            graphics: None,
            host: Default::default(),
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

    /// The text a sequence of frames printed to the scrollback: everything before
    /// each erase of the live area.
    fn committed(out: &str) -> usize {
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
    fn finished_blocks_are_committed_once() {
        let mut screen = Screen::with_size(|| (40, 10));
        let mut blocks = vec![Block::done(Kind::Note("hello".into()))];
        screen.draw(&mut blocks, look(), &chrome(""));
        let first = screen.take();
        assert!(first.starts_with("hello\r\n› \r\nfooter"), "{first:?}");
        screen.draw(&mut blocks, look(), &chrome("x"));
        let second = screen.take();
        assert!(!second.contains("hello"), "{second:?}");
        // Up one row (the cursor is on the editor), erase, draw.
        assert!(second.starts_with(&format!("{ERASE_TO_END}› x\r\nfooter\x1b[1A")));
    }

    /// An image waiting in the live area (behind a live answer) is not drawn
    /// at every frame: only its label and blank rows, until its block
    /// reaches the scrollback, where it is drawn once.
    #[test]
    fn an_image_is_drawn_once_in_the_scrollback() {
        use crate::modes::interactive::images::ShownImage;
        use crate::modes::interactive::tool_view::ToolBlock;
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x40\0\0\0\x28".to_vec();
        png.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
        let image = focus_core::message::Content::Image {
            data: focus_tools::read::base64_encode(&png).into(),
            mime_type: "image/png".into(),
        };
        let mut tool = ToolBlock::ended("c1", "read", &Default::default(), None);
        tool.end("Read image file a.png".into(), Default::default(), false);
        tool.show_images(ShownImage::all(&[image]));
        let mut blocks = vec![
            Block::live(Kind::Answer(Streamed::new("still going"))),
            Block::done(Kind::Tool(Box::new(tool))),
        ];
        let kitty = Look {
            graphics: Some(focus_tui::graphics::Protocol::Kitty),
            ..look()
        };
        let mut screen = Screen::with_size(|| (60, 30));
        for _ in 0..3 {
            screen.draw(&mut blocks, kitty, &chrome(""));
            let live = screen.take();
            assert!(live.contains("[image 64x40, 33 B]"), "{live:?}");
            assert!(!live.contains("\x1b_G"), "{live:?}");
        }
        blocks[0].finished = true;
        screen.draw(&mut blocks, kitty, &chrome(""));
        let committed = screen.take();
        assert_eq!(committed.matches("\x1b_Ga=T").count(), 1, "{committed:?}");
        screen.draw(&mut blocks, kitty, &chrome("x"));
        assert!(!screen.take().contains("\x1b_G"));
    }

    #[test]
    fn a_long_live_block_shows_its_tail_within_the_window() {
        let mut screen = Screen::with_size(|| (20, 8));
        let long = "word ".repeat(200);
        let mut blocks = vec![Block::live(Kind::Answer(Streamed::new(&long)))];
        screen.draw(&mut blocks, look(), &chrome(""));
        assert_eq!(screen.live_rows, 8);
        assert_eq!(committed(&screen.take()), 7);
        // Finished: all of it goes to the scrollback, once.
        blocks[0].finished = true;
        screen.draw(&mut blocks, look(), &chrome(""));
        let out = screen.take();
        assert_eq!(out.matches("word").count(), 200, "{out:?}");
        assert_eq!(screen.live_rows, 2);
    }

    #[test]
    fn complete_lines_of_a_live_answer_are_committed_as_they_come() {
        let mut screen = Screen::with_size(|| (40, 10));
        let mut blocks = vec![Block::live(Kind::Answer(Streamed::new("one\ntw")))];
        screen.draw(&mut blocks, look(), &chrome(""));
        let out = screen.take();
        assert!(out.starts_with("one\r\ntw\r\n"), "{out:?}");
        if let Kind::Answer(text) = &mut blocks[0].kind {
            text.push("o\nthree");
        }
        screen.draw(&mut blocks, look(), &chrome(""));
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
        let mut blocks = vec![Block::done(Kind::Note("a".repeat(30)))];
        screen.draw(&mut blocks, look(), &chrome(""));
        screen.take();
        WIDTH_NOW.store(20, Ordering::Relaxed);
        screen.draw(&mut blocks, look(), &chrome(""));
        let out = screen.take();
        assert!(out.starts_with(CLEAR_ALL), "{out:?}");
        assert!(out.contains(&format!("{}\r\n{}\r\n", "a".repeat(20), "a".repeat(10))));
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
        screen.draw(&mut [], look(), &chrome);
        let out = screen.take();
        assert_eq!(screen.live_rows, 5);
        assert!(out.contains("line 29\r\nfooter"), "{out:?}");
        assert!(!out.contains("line 10"), "{out:?}");
    }
}
