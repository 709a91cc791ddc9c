//! The open picker of the interactive mode (the command menu, `@` files,
//! `/model`, a numbered list) and what it is for; [`pickers`](super::pickers)
//! opens and answers it.

use focus_tui::picker::Picker;

/// What an open picker chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A slash command (query: the input after `/`).
    Command,
    /// A project file (query: the input after `@`).
    File,
    /// A model (query typed into the picker).
    Model,
    /// Entry N of a numbered command's list (`/tree`, `/fork`, `/resume`):
    /// Enter runs `command N`.
    Numbered(&'static str),
}

/// An open picker and what it is for.
#[derive(Debug)]
pub struct Popup {
    pub(super) picker: Picker,
    pub(super) purpose: Purpose,
    /// Where its `/` or `@` stands in the input (a character index); `None`
    /// for a picker with a query of its own.
    pub(super) anchor: Option<usize>,
}
