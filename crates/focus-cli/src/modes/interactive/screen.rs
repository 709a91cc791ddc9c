//! The terminal as two parts: permanent output that scrolls up (the conversation)
//! and a *live area* redrawn at the bottom (the line being streamed, the status
//! footer and the input editor). Each redraw moves the cursor back to the top of
//! the live area, clears to the end of the screen and draws it again, so output
//! can stream while the user types.

use crate::terminal::width::char_width;
use std::io::Write;

/// Erases from the start of the cursor's row to the end of the screen, the cursor
/// staying where it is: the row by itself (`EL 2`), then everything from the next
/// row down (`ED 0`, between a cursor save and restore). A plain `ED 0` from the
/// row's start would do the same, except when the live area starts at the top of
/// the window (a short window, a long input, a window just narrowed): there it
/// clears the whole screen, and tmux (`scroll-on-clear`, on by default) then copies
/// the screen into its history, so every redraw left a copy of the live area in
/// the scrollback.
const ERASE_TO_END: &str = "\r\x1b[2K\x1b7\x1b[1B\r\x1b[J\x1b8";

/// The bottom-of-screen drawing state.
pub struct Screen {
    /// What the live area holds now: each line's width in columns (empty when
    /// nothing is drawn), where the cursor was put, `(line, column)`, and the
    /// terminal width it was drawn for.
    live_widths: Vec<usize>,
    cursor: (usize, usize),
    drawn_width: usize,
    /// The terminal's width now (read at each erase: the window may have been
    /// resized since the live area was drawn).
    width_now: fn() -> usize,
    buffer: String,
}

impl Screen {
    /// A screen with nothing drawn yet, on the terminal of stdout.
    pub fn new() -> Screen {
        Screen::with_width(crate::terminal::width)
    }

    /// A screen whose terminal width is read from `width_now`.
    fn with_width(width_now: fn() -> usize) -> Screen {
        Screen {
            live_widths: Vec::new(),
            cursor: (0, 0),
            drawn_width: 80,
            width_now,
            buffer: String::new(),
        }
    }

    /// Erases the live area (the cursor ends at its top-left).
    ///
    /// Where the live area's rows are depends on the window's width *now*. A
    /// terminal whose window got narrower re-wraps the lines already on screen
    /// (tmux, VTE, iTerm2, kitty, Alacritty and Windows Terminal do), so a line
    /// drawn on one row may take three, and moving up by the rows it took when it
    /// was drawn left the top of the old live area behind on every narrowing. A
    /// window that got wider is the other way round: the cursor stays on its row
    /// while the lines above it are joined (tmux), so the rows as drawn are the
    /// ones to move over. Hence the narrower of the two widths.
    fn clear_live(&mut self) {
        if self.live_widths.is_empty() {
            return;
        }
        let width = self.drawn_width.min((self.width_now)());
        let (rows, cursor_row) = layout(&self.live_widths, self.cursor, width);
        let below_cursor = rows - 1 - cursor_row.min(rows - 1);
        if below_cursor > 0 {
            self.buffer.push_str(&format!("\x1b[{below_cursor}B"));
        }
        if rows > 1 {
            self.buffer.push_str(&format!("\x1b[{}A", rows - 1));
        }
        self.buffer.push_str(ERASE_TO_END);
        self.live_widths.clear();
    }

    /// Prints `text` above the live area (a newline is added when missing); the
    /// live area must be drawn again afterwards.
    pub fn permanent(&mut self, text: &str) {
        self.clear_live();
        self.buffer.push_str(text);
        if !text.ends_with('\n') {
            self.buffer.push('\n');
        }
    }

    /// Draws the live area: `lines` top to bottom, with the cursor put at
    /// `(line index, column)`, for a terminal `width` columns wide.
    pub fn draw_live(&mut self, lines: &[String], cursor: (usize, usize), width: usize) {
        self.clear_live();
        let widths: Vec<usize> = lines.iter().map(|l| visible_width(l)).collect();
        let line = cursor.0.min(lines.len().saturating_sub(1));
        let (rows, cursor_row) = layout(&widths, (line, cursor.1), width);
        self.buffer.push_str(&lines.join("\n"));
        let up = rows - 1 - cursor_row.min(rows - 1);
        if up > 0 {
            self.buffer.push_str(&format!("\x1b[{up}A"));
        }
        self.buffer
            .push_str(&format!("\r\x1b[{}G", cursor.1 % width.max(10) + 1));
        self.live_widths = if widths.is_empty() { vec![0] } else { widths };
        self.cursor = (line, cursor.1);
        self.drawn_width = width;
    }

    /// Erases the live area for good (before exiting).
    pub fn finish(&mut self) {
        self.clear_live();
    }

    /// Writes what was drawn to the terminal.
    pub fn flush(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(self.buffer.as_bytes());
        let _ = out.flush();
        self.buffer.clear();
    }
}

impl Default for Screen {
    fn default() -> Self {
        Screen::new()
    }
}

/// The rows lines of these `widths` take at `width` columns, and the row (from the
/// top, 0-based) the cursor `(line, column)` is on.
fn layout(widths: &[usize], cursor: (usize, usize), width: usize) -> (usize, usize) {
    let width = width.max(10);
    let rows: Vec<usize> = widths.iter().map(|&w| rows_for(w, width)).collect();
    let total = rows.iter().sum::<usize>().max(1);
    let line = cursor.0.min(rows.len().saturating_sub(1));
    let cursor_row = rows[..line].iter().sum::<usize>() + cursor.1 / width;
    (total, cursor_row)
}

/// Terminal rows a line of `visible` columns takes at `width`.
fn rows_for(visible: usize, width: usize) -> usize {
    visible.div_ceil(width).max(1)
}

/// The number of columns `text` shows, skipping ANSI escape sequences (CJK and
/// emoji take two columns, combining marks none: [`char_width`]).
pub fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ ... final byte in @..~
            if chars.next() == Some('[') {
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        width += char_width(c);
    }
    width
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_skip_escapes() {
        assert_eq!(visible_width("\x1b[1mab\x1b[0mc"), 3);
        assert_eq!(visible_width("\x1b[2m你好\x1b[0m!"), 5);
        assert_eq!(rows_for(0, 80), 1);
        assert_eq!(rows_for(81, 80), 2);
    }

    #[test]
    fn redraw_moves_back_over_the_live_area() {
        let mut screen = Screen::with_width(|| 80);
        screen.draw_live(&["status".into(), "› hi".into()], (1, 4), 80);
        assert!(screen.buffer.ends_with("\r\x1b[5G"));
        screen.buffer.clear();
        screen.permanent("done");
        assert_eq!(screen.buffer, format!("\x1b[1A{ERASE_TO_END}done\n"));
    }

    /// Drawn at 80 columns, erased at 40: the 70-column status line now takes two
    /// rows and the editor line (cursor at column 50) two, so the erase goes down
    /// none and up three.
    #[test]
    fn erasing_after_the_window_narrowed_counts_the_rewrapped_rows() {
        fn narrow() -> usize {
            40
        }
        let mut screen = Screen::with_width(narrow);
        let status = "s".repeat(70);
        let editor = format!("› {}", "e".repeat(58));
        screen.draw_live(&[status, editor], (1, 50), 80);
        screen.buffer.clear();
        screen.finish();
        assert_eq!(screen.buffer, format!("\x1b[3A{ERASE_TO_END}"));
    }

    /// Drawn at 40, erased at 80: the rows as drawn (two and two), up three.
    #[test]
    fn erasing_after_the_window_widened_counts_the_rows_as_drawn() {
        fn wide() -> usize {
            80
        }
        let mut screen = Screen::with_width(wide);
        let status = "s".repeat(70);
        let editor = format!("› {}", "e".repeat(58));
        screen.draw_live(&[status, editor], (1, 50), 40);
        screen.buffer.clear();
        screen.finish();
        assert_eq!(screen.buffer, format!("\x1b[3A{ERASE_TO_END}"));
    }

    #[test]
    fn the_cursor_row_and_the_rows_below_it() {
        // Three lines at width 10: 25 columns (3 rows), 5 (1), 12 (2).
        assert_eq!(layout(&[25, 5, 12], (0, 0), 10), (6, 0));
        assert_eq!(layout(&[25, 5, 12], (0, 21), 10), (6, 2));
        assert_eq!(layout(&[25, 5, 12], (2, 11), 10), (6, 5));
        assert_eq!(layout(&[], (0, 0), 10), (1, 0));
    }
}
