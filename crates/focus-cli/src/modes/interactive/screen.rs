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

    /// The live area's rows, images left out: an image is drawn once, when its
    /// block's rows reach the scrollback, not at every frame
    /// ([`without_image`](focus_tui::graphics::without_image)).
    fn rows_from(&mut self, look: &Look, width: usize, skip: usize) -> Vec<String> {
        let rows = Block::rows_from(self, &Look { width, ..*look }, skip);
        let rows = rows.into_iter();
        rows.map(focus_tui::graphics::without_image).collect()
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
            graphics: None,
            host: Default::default(),
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
            screen.draw(&mut blocks, &kitty, &chrome());
            let live = screen.take();
            assert!(live.contains("[image 64x40, 33 B]"), "{live:?}");
            assert!(!live.contains("\x1b_G"), "{live:?}");
        }
        blocks[0].finished = true;
        screen.draw(&mut blocks, &kitty, &chrome());
        let committed = screen.take();
        assert_eq!(committed.matches("\x1b_Ga=T").count(), 1, "{committed:?}");
        screen.draw(&mut blocks, &kitty, &chrome());
        assert!(!screen.take().contains("\x1b_G"));
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
