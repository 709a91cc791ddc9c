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
    /// What the live area holds now: the columns each visible character of each
    /// line takes (empty when nothing is drawn), where the cursor was put,
    /// `(line, column)`, and the terminal width it was drawn for.
    live_lines: Vec<Vec<u8>>,
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
            live_lines: Vec::new(),
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
    /// ones to move over. Hence the narrower of the two widths. (A terminal that
    /// does not re-wrap on narrowing, such as xterm, keeps the rows as drawn; there a
    /// live line wider than the new window makes the erase start a row or two higher,
    /// over the last lines of the conversation. Re-wrapping terminals are the common
    /// case, tmux above all on the remote hosts focus is made for.)
    fn clear_live(&mut self) {
        if self.live_lines.is_empty() {
            return;
        }
        let width = self.drawn_width.min((self.width_now)());
        let (rows, (cursor_row, _)) = layout(&self.live_lines, self.cursor, width);
        let below_cursor = rows - 1 - cursor_row.min(rows - 1);
        if below_cursor > 0 {
            self.buffer.push_str(&format!("\x1b[{below_cursor}B"));
        }
        if rows > 1 {
            self.buffer.push_str(&format!("\x1b[{}A", rows - 1));
        }
        self.buffer.push_str(ERASE_TO_END);
        self.live_lines.clear();
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
        let mut drawn: Vec<Vec<u8>> = lines.iter().map(|l| char_widths(l)).collect();
        if drawn.is_empty() {
            drawn.push(Vec::new());
        }
        let line = cursor.0.min(drawn.len() - 1);
        let (rows, (cursor_row, cursor_col)) = layout(&drawn, (line, cursor.1), width);
        self.buffer.push_str(&lines.join("\n"));
        let up = rows - 1 - cursor_row.min(rows - 1);
        if up > 0 {
            self.buffer.push_str(&format!("\x1b[{up}A"));
        }
        self.buffer.push_str(&format!("\r\x1b[{}G", cursor_col + 1));
        self.live_lines = drawn;
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

/// The rows that lines (the columns of each visible character, as
/// [`char_widths`] gives them) take at `width` columns, and the screen position
/// `(row from the top, column)` of the cursor put at `(line, visible column)`.
///
/// The lines are laid out as a terminal wraps them: a character that does not fit
/// in what is left of a row starts the next one, so a wide character never
/// straddles a row end and the cell it did not fit in stays empty. (Counting
/// columns and dividing by the width put the cursor one column off for every such
/// gap, in Chinese or Japanese input longer than a row.) A cursor just past a full
/// row shows on that row's last column, as the terminal shows it.
fn layout(lines: &[Vec<u8>], cursor: (usize, usize), width: usize) -> (usize, (usize, usize)) {
    let width = width.max(10);
    let mut rows = 0;
    let mut at = (0, 0);
    for (index, widths) in lines.iter().enumerate() {
        let (mut row, mut col, mut seen) = (0, 0, 0);
        let mut place = |row: usize, col: usize, seen: usize| {
            if index == cursor.0 && seen <= cursor.1 {
                at = (rows + row, col.min(width - 1));
            }
        };
        for &w in widths {
            let w = usize::from(w);
            if w == 0 {
                continue;
            }
            if col + w > width {
                row += 1;
                col = 0;
            }
            place(row, col, seen);
            col += w;
            seen += w;
        }
        place(row, col, seen);
        rows += row + 1;
    }
    (rows.max(1), at)
}

/// The number of columns `text` shows, skipping ANSI escape sequences (CJK and
/// emoji take two columns, combining marks none: [`char_width`]).
pub fn visible_width(text: &str) -> usize {
    char_widths(text).iter().map(|&w| usize::from(w)).sum()
}

/// The columns each visible character of `text` takes, ANSI escape sequences
/// skipped.
fn char_widths(text: &str) -> Vec<u8> {
    let mut widths = Vec::with_capacity(text.len());
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
        widths.push(char_width(c) as u8);
    }
    widths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_skip_escapes() {
        assert_eq!(visible_width("\x1b[1mab\x1b[0mc"), 3);
        assert_eq!(visible_width("\x1b[2m你好\x1b[0m!"), 5);
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
        let ascii = |n: usize| vec![1u8; n];
        let lines = [ascii(25), ascii(5), ascii(12)];
        // At width 10 they take 3, 1 and 2 rows.
        assert_eq!(layout(&lines, (0, 0), 10), (6, (0, 0)));
        assert_eq!(layout(&lines, (0, 21), 10), (6, (2, 1)));
        assert_eq!(layout(&lines, (2, 11), 10), (6, (5, 1)));
        assert_eq!(layout(&lines, (1, 5), 10), (6, (3, 5)));
        // A full row: the cursor after it shows on its last column.
        assert_eq!(layout(&[ascii(10)], (0, 10), 10), (1, (0, 9)));
        assert_eq!(layout(&[], (0, 0), 10), (1, (0, 0)));
    }

    /// "› a" then five ideographs at width 10: the fourth does not fit in the last
    /// column of the first row and starts the second, so the text ends at column 4
    /// of row 1 (dividing 13 columns by 10 said column 3).
    #[test]
    fn wide_characters_that_do_not_fit_start_the_next_row() {
        let lines = [char_widths("› a你好世界啊")];
        assert_eq!(lines[0].iter().map(|&w| usize::from(w)).sum::<usize>(), 13);
        assert_eq!(layout(&lines, (0, 13), 10), (2, (1, 4)));
        assert_eq!(layout(&lines, (0, 9), 10), (2, (1, 0)));
        assert_eq!(layout(&lines, (0, 7), 10), (2, (0, 7)));
        assert_eq!(char_widths("\x1b[1m你\x1b[0me\u{301}"), [2, 1, 0]);
    }
}
