//! Every key of the interactive mode, in one table: what the UI loop and the
//! editor do with it ([`action`]), and how docs/cli.md shows it ([`KEYS`]; a
//! test checks the two against each other and against the document).

use crate::keys::Key;

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send (while the agent works: steer).
    Send,
    /// Queue a follow-up.
    FollowUp,
    /// A new line in the input.
    NewLine,
    /// Abort the run.
    Abort,
    /// Clear the input, else abort, else (twice) quit.
    ClearAbortQuit,
    /// Quit on an empty input.
    Quit,
    /// Stop focus (the shell's `fg` resumes it).
    Suspend,
    /// Show or fold thinking.
    ToggleThinking,
    /// Redraw the whole screen and open the model picker (pi's
    /// `selectModel`).
    SelectModel,
    /// Edit the input in `$VISUAL` or `$EDITOR`.
    ExternalEditor,
    /// Expand or collapse the last tool call or summary.
    Expand,
    /// Complete a command name.
    Complete,
    /// In a picker: a page up or down.
    Page,
    /// The next thinking level.
    CycleThinking,
    /// The next model of the scope (else the next usable one).
    CycleModel,
    /// The model before, in the same list.
    CycleModelBackward,
    /// Older input or the line above.
    Up,
    /// Queued messages back to the editor.
    Unqueue,
    /// Newer input or the line below.
    Down,
    /// One character (grapheme cluster) left or right.
    Move,
    /// A word left or right.
    MoveWord,
    /// Start or end of the line.
    MoveLine,
    /// Delete the character before or under the cursor.
    Delete,
    /// Cut the word before the cursor.
    KillWordBack,
    /// Cut the word after the cursor.
    KillWordForward,
    /// Cut to the start of the line.
    KillToStart,
    /// Cut to the end of the line.
    KillToEnd,
    /// Paste the last cut.
    Yank,
    /// Replace what was just pasted by the cut before it.
    YankPop,
    /// Undo the last change of the input.
    Undo,
    /// Redo what undo took back.
    Redo,
    /// Insert text (typed or pasted).
    Insert,
    /// Attach the clipboard's image.
    PasteImage,
}

/// The documented keys: how docs/cli.md names them, what they do, and the keys
/// (as decoded) each name stands for.
pub const KEYS: &[(&str, Action, &str)] = &[
    (
        "Enter",
        Action::Send,
        "send; while the agent works, steer (delivered after the current tool batch)",
    ),
    (
        "Alt+Enter",
        Action::FollowUp,
        "queue a follow-up (delivered when the agent would stop)",
    ),
    (
        "Shift+Enter, Ctrl+J, a trailing \\",
        Action::NewLine,
        "new line in the input",
    ),
    (
        "Esc",
        Action::Abort,
        "abort the run (queued messages return to the editor); Esc Esc on an empty input while idle: `/rewind`; in an approval: abort the run; in a picker: close it",
    ),
    (
        "Ctrl+C",
        Action::ClearAbortQuit,
        "clear the input, else abort the run, else (twice) quit; in an approval: abort the run",
    ),
    ("Ctrl+D", Action::Quit, "quit (on an empty input)"),
    ("Ctrl+Z", Action::Suspend, "stop focus; `fg` resumes it"),
    ("Ctrl+T", Action::ToggleThinking, "show or fold thinking"),
    (
        "Shift+Tab",
        Action::CycleThinking,
        "next thinking level (off … xhigh; recorded in the session)",
    ),
    (
        "Ctrl+P",
        Action::CycleModel,
        "next model of `enabledModels` / `--models`, else of the `/model` picker's list (recorded in the session)",
    ),
    (
        "Shift+Ctrl+P",
        Action::CycleModelBackward,
        "the model before, in the same list (terminals with the kitty keyboard protocol or modifyOtherKeys)",
    ),
    (
        "Ctrl+L",
        Action::SelectModel,
        "redraw the whole screen and open the model picker (as `/model`; while the agent works: redraw only)",
    ),
    (
        "Ctrl+G",
        Action::ExternalEditor,
        "edit the input in `$VISUAL` or `$EDITOR` (else `vi`)",
    ),
    (
        "Ctrl+O",
        Action::Expand,
        "expand or collapse the last tool call or summary",
    ),
    (
        "Tab",
        Action::Complete,
        "complete a command name; in a picker: put the entry in the input",
    ),
    (
        "/",
        Action::Insert,
        "on an empty input: the command menu (type to filter, Enter runs)",
    ),
    (
        "@",
        Action::Insert,
        "at the start or after a space: pick a project file to attach",
    ),
    (
        "PageUp, PageDown",
        Action::Page,
        "in a picker: a page up or down (Up and Down: one entry)",
    ),
    (
        "Up",
        Action::Up,
        "the line above, or older input from the history",
    ),
    ("Down", Action::Down, "the line below, or newer input"),
    (
        "Alt+Up",
        Action::Unqueue,
        "while the agent works: queued messages back to the editor, unsent",
    ),
    (
        "Left, Right, Ctrl+B, Ctrl+F",
        Action::Move,
        "move by character (a whole emoji or accented letter)",
    ),
    (
        "Ctrl+Left, Ctrl+Right, Alt+B, Alt+F",
        Action::MoveWord,
        "move by word",
    ),
    (
        "Home, End, Ctrl+A, Ctrl+E",
        Action::MoveLine,
        "start or end of the line",
    ),
    ("Backspace, Delete", Action::Delete, "delete a character"),
    (
        "Ctrl+W, Alt+Backspace",
        Action::KillWordBack,
        "cut the word before the cursor",
    ),
    (
        "Alt+D",
        Action::KillWordForward,
        "cut the word after the cursor",
    ),
    (
        "Ctrl+U",
        Action::KillToStart,
        "cut to the start of the line",
    ),
    ("Ctrl+K", Action::KillToEnd, "cut to the end of the line"),
    ("Ctrl+Y", Action::Yank, "paste the last cut"),
    (
        "Alt+Y",
        Action::YankPop,
        "right after Ctrl+Y: cycle to the cut before",
    ),
    (
        "Ctrl+_, Ctrl+-",
        Action::Undo,
        "undo the last change of the input",
    ),
    (
        "Ctrl+Shift+Z, Alt+Z",
        Action::Redo,
        "redo what undo took back (Ctrl+Shift+Z where the terminal reports it)",
    ),
    (
        "Ctrl+V",
        Action::PasteImage,
        "attach the clipboard's image (`[image #1]` in the input; wl-paste, xclip or pngpaste); text pastes as usual",
    ),
];

/// What `key` does (outside an approval dialog).
pub fn action(key: &Key) -> Action {
    match key {
        Key::Enter => Action::Send,
        Key::AltEnter => Action::FollowUp,
        Key::Newline => Action::NewLine,
        Key::Esc => Action::Abort,
        Key::Ctrl('c') => Action::ClearAbortQuit,
        Key::Ctrl('d') => Action::Quit,
        Key::Ctrl('z') => Action::Suspend,
        Key::Ctrl('t') => Action::ToggleThinking,
        Key::Ctrl('l') => Action::SelectModel,
        Key::Ctrl('g') => Action::ExternalEditor,
        Key::Ctrl('o') => Action::Expand,
        Key::Tab => Action::Complete,
        Key::BackTab => Action::CycleThinking,
        Key::Ctrl('p') => Action::CycleModel,
        Key::CtrlShift('p') => Action::CycleModelBackward,
        Key::PageUp | Key::PageDown => Action::Page,
        Key::Up => Action::Up,
        Key::AltUp => Action::Unqueue,
        Key::Down => Action::Down,
        Key::Left | Key::Right => Action::Move,
        Key::WordLeft | Key::WordRight => Action::MoveWord,
        Key::Home | Key::End => Action::MoveLine,
        Key::Backspace | Key::Delete => Action::Delete,
        Key::Ctrl('w') => Action::KillWordBack,
        Key::Alt('d') => Action::KillWordForward,
        Key::Ctrl('u') => Action::KillToStart,
        Key::Ctrl('k') => Action::KillToEnd,
        Key::Ctrl('y') => Action::Yank,
        Key::Alt('y') => Action::YankPop,
        Key::Undo => Action::Undo,
        Key::Redo => Action::Redo,
        Key::Ctrl('v') => Action::PasteImage,
        _ => Action::Insert,
    }
}

/// The keys' table as docs/cli.md has it (between its markers).
pub fn markdown_table() -> String {
    let mut table = String::from("| Key | What it does |\n|---|---|\n");
    for (keys, _, what) in KEYS {
        let keys = keys.replace('\\', "\\\\");
        table.push_str(&format!("| {keys} | {what} |\n"));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::KeyDecoder;

    /// The bytes terminals send for each name of the table.
    fn bytes_of(name: &str) -> Option<&'static [u8]> {
        Some(match name {
            "Enter" => b"\r",
            "Alt+Enter" => b"\x1b\r",
            "Shift+Enter" => b"\x1b[13;2u",
            "Ctrl+J" => b"\n",
            "Esc" => b"\x1b",
            "Ctrl+C" => b"\x03",
            "Ctrl+D" => b"\x04",
            "Ctrl+Z" => b"\x1a",
            "Ctrl+T" => b"\x14",
            "Ctrl+L" => b"\x0c",
            "Ctrl+G" => b"\x07",
            "Ctrl+O" => b"\x0f",
            "Tab" => b"\t",
            "Shift+Tab" => b"\x1b[Z",
            "Ctrl+P" => b"\x10",
            "Shift+Ctrl+P" => b"\x1b[112;6u",
            "/" => b"/",
            "@" => b"@",
            "PageUp" => b"\x1b[5~",
            "PageDown" => b"\x1b[6~",
            "Up" => b"\x1b[A",
            "Alt+Up" => b"\x1b[1;3A",
            "Down" => b"\x1b[B",
            "Left" => b"\x1b[D",
            "Right" => b"\x1b[C",
            "Ctrl+B" => b"\x02",
            "Ctrl+F" => b"\x06",
            "Ctrl+Left" => b"\x1b[1;5D",
            "Ctrl+Right" => b"\x1b[1;5C",
            "Alt+B" => b"\x1bb",
            "Alt+F" => b"\x1bf",
            "Home" => b"\x1b[H",
            "End" => b"\x1b[F",
            "Ctrl+A" => b"\x01",
            "Ctrl+E" => b"\x05",
            "Backspace" => b"\x7f",
            "Delete" => b"\x1b[3~",
            "Ctrl+W" => b"\x17",
            "Alt+Backspace" => b"\x1b\x7f",
            "Alt+D" => b"\x1bd",
            "Ctrl+U" => b"\x15",
            "Ctrl+K" => b"\x0b",
            "Ctrl+Y" => b"\x19",
            "Alt+Y" => b"\x1by",
            "Ctrl+_" => b"\x1f",
            "Ctrl+-" => b"\x1b[45;5u",
            "Ctrl+Shift+Z" => b"\x1b[122;6u",
            "Alt+Z" => b"\x1bz",
            "Ctrl+V" => b"\x16",
            _ => return None,
        })
    }

    /// Each name in the table, decoded from what a terminal sends, does what
    /// the table says; each action of the handler has a row.
    #[test]
    fn the_table_matches_the_key_handler() {
        for (names, expected, _) in KEYS {
            for name in names.split(", ") {
                if name == "a trailing \\" {
                    continue;
                }
                let bytes = bytes_of(name).unwrap_or_else(|| panic!("no bytes for {name}"));
                let keys = KeyDecoder::new().feed(bytes);
                assert_eq!(keys.len(), 1, "{name}: {keys:?}");
                assert_eq!(action(&keys[0]), *expected, "{name}");
            }
        }
        let documented: Vec<Action> = KEYS.iter().map(|k| k.1).collect();
        for key in [
            Key::Enter,
            Key::AltEnter,
            Key::Newline,
            Key::Esc,
            Key::Tab,
            Key::PageUp,
            Key::BackTab,
            Key::Char('/'),
            Key::Up,
            Key::AltUp,
            Key::Down,
            Key::Left,
            Key::WordLeft,
            Key::Home,
            Key::Backspace,
            Key::Undo,
            Key::Redo,
            Key::Alt('d'),
            Key::Alt('y'),
            Key::CtrlShift('p'),
        ]
        .into_iter()
        .chain("cdztlgowukypv".chars().map(Key::Ctrl))
        {
            let action = action(&key);
            assert!(
                documented.contains(&action),
                "{key:?} ({action:?}) has no row"
            );
        }
    }
}
