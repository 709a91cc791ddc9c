//! The terminal as two parts: permanent output that scrolls up (the conversation)
//! and a *live area* redrawn at the bottom (the line being streamed, the status
//! footer and the input editor). Each redraw moves the cursor back to the top of
//! the live area, clears to the end of the screen and draws it again, so output
//! can stream while the user types.

use crate::terminal::width::char_width;
use std::io::Write;

/// The bottom-of-screen drawing state.
pub struct Screen {
    /// Rows the live area occupies now.
    live_rows: usize,
    /// Rows between the live area's last row and the cursor (the cursor sits in
    /// the editor, which may not be the last row).
    cursor_up: usize,
    buffer: String,
}

impl Screen {
    /// A screen with nothing drawn yet.
    pub fn new() -> Screen {
        Screen {
            live_rows: 0,
            cursor_up: 0,
            buffer: String::new(),
        }
    }

    /// Erases the live area (the cursor ends at its top-left).
    fn clear_live(&mut self) {
        if self.live_rows == 0 {
            return;
        }
        if self.cursor_up > 0 {
            self.buffer.push_str(&format!("\x1b[{}B", self.cursor_up));
        }
        if self.live_rows > 1 {
            self.buffer
                .push_str(&format!("\x1b[{}A", self.live_rows - 1));
        }
        self.buffer.push_str("\r\x1b[J");
        self.live_rows = 0;
        self.cursor_up = 0;
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
    /// `(line index, column)`.
    pub fn draw_live(&mut self, lines: &[String], cursor: (usize, usize), width: usize) {
        self.clear_live();
        let width = width.max(10);
        let rows: Vec<usize> = lines
            .iter()
            .map(|l| rows_for(visible_width(l), width))
            .collect();
        self.buffer.push_str(&lines.join("\n"));
        let total: usize = rows.iter().sum();
        let (line, column) = cursor;
        let line = line.min(lines.len().saturating_sub(1));
        let row = rows[..line].iter().sum::<usize>() + column / width;
        let col = column % width;
        self.live_rows = total.max(1);
        self.cursor_up = self.live_rows - 1 - row.min(self.live_rows - 1);
        if self.cursor_up > 0 {
            self.buffer.push_str(&format!("\x1b[{}A", self.cursor_up));
        }
        self.buffer.push_str(&format!("\r\x1b[{}G", col + 1));
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
        let mut screen = Screen::new();
        screen.draw_live(&["status".into(), "› hi".into()], (1, 4), 80);
        assert!(screen.buffer.ends_with("\r\x1b[5G"));
        screen.buffer.clear();
        screen.permanent("done");
        assert_eq!(screen.buffer, "\x1b[1A\r\x1b[Jdone\n");
    }
}
