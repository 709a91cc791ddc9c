//! The full-screen views opened by a command and drawn where the conversation
//! is until they close: `/rewind` ([`RewindView`]) and `/diff`
//! ([`DiffView`]); and Esc Esc, which opens `/rewind` ([`Panels::second_esc`]).
//! The UI holds one [`Panels`], hands it the keys while a view is open and
//! draws its rows; what a view asks for comes back as a [`Request`].

use super::diff_view::{self, DiffView};
use super::rewind_picker::{self, Request, RewindView};
use focus_harness::conversation::Conversation;
use focus_tui::keys::Key;
use std::time::{Duration, Instant};

/// The most time between the two presses of Esc Esc.
pub const DOUBLE_ESC: Duration = Duration::from_millis(1500);

/// An open view.
#[derive(Debug)]
pub enum Panel {
    /// `/rewind`, Esc Esc, or a `/tree` move to other files.
    Rewind(RewindView),
    /// `/diff`.
    Diff(DiffView),
}

/// The open view, if any, and a first Esc waiting for its second.
#[derive(Debug, Default)]
pub struct Panels {
    /// The open view.
    pub open: Option<Panel>,
    /// When a first Esc on an empty, idle input was read.
    esc_at: Option<Instant>,
}

impl Panels {
    /// Whether a view is open.
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// A key for the open view; a rewind it asks for. Closes the view when it
    /// is done.
    pub fn key(&mut self, key: &Key, conversation: &mut Conversation) -> Option<Request> {
        let closed_with = match self.open.as_mut()? {
            Panel::Rewind(view) => match view.key(key, conversation) {
                rewind_picker::Done::Stay => return None,
                rewind_picker::Done::Close => None,
                rewind_picker::Done::Rewind(request) => Some(request),
            },
            Panel::Diff(view) => match view.key(key) {
                diff_view::Done::Stay => return None,
                diff_view::Done::Close => None,
            },
        };
        self.open = None;
        closed_with
    }

    /// The open view's rows over `height` rows of `width` columns, with the
    /// line shown where the editor is and the cursor's column in it; `None`
    /// when no view is open.
    pub fn rows(&mut self, width: usize, height: usize) -> Option<(Vec<String>, String, usize)> {
        let (mut rows, line) = match self.open.as_mut()? {
            Panel::Rewind(view) => (view.render(width, height), view.input_line()),
            Panel::Diff(view) => (view.render(width, height), ("diff› ".to_string(), 6)),
        };
        // Blank rows below a short view: the conversation does not show through.
        rows.truncate(height.max(3));
        rows.resize(height.max(3), String::new());
        Some((rows, line.0, line.1))
    }

    /// An Esc on an empty input while nothing runs, read at `read_at`: whether
    /// it is the second of Esc Esc (then `/rewind` opens); else it is the
    /// first, and waits [`DOUBLE_ESC`] for its second.
    pub fn second_esc(&mut self, read_at: Instant) -> bool {
        match self.esc_at.take() {
            Some(first) if read_at.saturating_duration_since(first) <= DOUBLE_ESC => true,
            _ => {
                self.esc_at = Some(read_at);
                false
            }
        }
    }

    /// Any other key: a first Esc is forgotten.
    pub fn forget_esc(&mut self) {
        self.esc_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two Escs close together are Esc Esc; another key, or a long pause,
    /// between them is not.
    #[test]
    fn esc_esc_is_two_escs_close_together() {
        let mut panels = Panels::default();
        let t = Instant::now();
        assert!(!panels.second_esc(t));
        assert!(panels.second_esc(t + Duration::from_millis(200)));
        assert!(
            !panels.second_esc(t + Duration::from_millis(300)),
            "a third starts again"
        );
        panels.forget_esc();
        assert!(!panels.second_esc(t + Duration::from_millis(400)));
        assert!(!panels.second_esc(t + Duration::from_secs(5)), "too late");
        assert!(panels.second_esc(t + Duration::from_secs(6)));
    }
}
