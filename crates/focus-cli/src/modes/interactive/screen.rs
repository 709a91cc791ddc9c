//! The conversation's blocks on focus-tui's differential renderer
//! ([`focus_tui::screen`]: what is finished goes to the scrollback once, a live
//! area below it is redrawn at every frame; docs/tui.md tells it at length).
//! A [`Block`] is one of the screen's parts: its rows come at the window's
//! width with the mode's [`Look`] (colors, thinking shown or folded, links).

use super::blocks::{Block, Look};
pub use focus_tui::screen::{Chrome, Screen};
pub use focus_tui::width::visible_width;

impl focus_tui::screen::Part for Block {
    type Look = Look;

    fn finished(&self) -> bool {
        self.finished
    }

    fn stable_rows(&mut self, look: &Look, width: usize, skip: usize) -> Vec<String> {
        Block::stable_rows(self, &Look { width, ..*look }, skip)
    }

    fn rows_from(&mut self, look: &Look, width: usize, skip: usize) -> Vec<String> {
        Block::rows_from(self, &Look { width, ..*look }, skip)
    }
}

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
        }
    }

    fn chrome() -> Chrome {
        Chrome {
            above: vec![],
            editor: vec!["› ".into()],
            cursor: (0, 2),
            below: vec!["footer".into()],
        }
    }

    #[test]
    fn complete_lines_of_a_live_answer_are_committed_as_they_come() {
        let mut screen = Screen::with_size(|| (40, 10));
        let mut blocks = vec![Block::live(Kind::Answer(Streamed::new("one\ntw")))];
        screen.draw(&mut blocks, &look(), &chrome());
        let out = screen.take();
        assert!(out.starts_with("one\r\ntw\r\n"), "{out:?}");
        assert_eq!(screen.committed_rows(), 1);
        if let Kind::Answer(text) = &mut blocks[0].kind {
            text.push("o\nthree");
        }
        screen.draw(&mut blocks, &look(), &chrome());
        let out = screen.take();
        assert_eq!(out.matches("one").count(), 0, "{out:?}");
        assert!(out.contains("two\r\nthree\r\n"), "{out:?}");
    }

    #[test]
    fn blocks_are_drawn_at_the_window_width() {
        let mut screen = Screen::with_size(|| (20, 8));
        let mut blocks = vec![Block::done(Kind::Note("word ".repeat(10)))];
        screen.draw(&mut blocks, &look(), &chrome());
        let out = screen.take();
        assert!(out.starts_with("word word word word\r\n"), "{out:?}");
        assert_eq!(screen.committed_parts(), 1);
    }
}
