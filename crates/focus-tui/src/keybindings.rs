//! `keybindings.json` (in `<FOCUS_HOME>`, pi's file in pi's format): actions,
//! by pi's names where pi has the action, bound to other keys.
//!
//! `{"cycleThinkingLevel": "ctrl+x", "cursorLeft": ["left", "ctrl+h"]}`: an
//! action named gets exactly the keys given, and loses its default ones. The
//! rest of the UI knows nothing of this: a key the user bound is translated
//! into the action's own default key before anyone sees it ([`Bindings::translate`]),
//! and a default key taken away becomes no key at all. Keys a terminal sends
//! alike are one key (Ctrl+B is Left, Ctrl+A is Home).

use crate::columns::COLUMN;
use crate::keymap::{self, Action};
use crate::keys::{Key, KeyDecoder};
use crate::printable::printable;
use focus_core::json::Value;
use std::path::Path;

/// The actions `keybindings.json` can bind: the name, what it does, and its
/// default keys (the first is the one a bound key stands for).
pub const ACTIONS: &[(&str, Action, &[&str])] = &[
    ("submit", Action::Send, &["enter"]),
    ("followUp", Action::FollowUp, &["alt+enter"]),
    ("newLine", Action::NewLine, &["shift+enter", "ctrl+j"]),
    ("interrupt", Action::Abort, &["escape"]),
    ("clear", Action::ClearAbortQuit, &["ctrl+c"]),
    ("exit", Action::Quit, &["ctrl+d"]),
    ("suspend", Action::Suspend, &["ctrl+z"]),
    ("toggleThinking", Action::ToggleThinking, &["ctrl+t"]),
    ("cycleThinkingLevel", Action::CycleThinking, &["shift+tab"]),
    ("cycleModelForward", Action::CycleModel, &["ctrl+p"]),
    (
        "cycleModelBackward",
        Action::CycleModelBackward,
        &["shift+ctrl+p"],
    ),
    ("selectModel", Action::SelectModel, &["ctrl+l"]),
    ("externalEditor", Action::ExternalEditor, &["ctrl+g"]),
    ("expandTools", Action::Expand, &["ctrl+o"]),
    ("complete", Action::Complete, &["tab"]),
    ("pageUp", Action::Page, &["pageup"]),
    ("pageDown", Action::Page, &["pagedown"]),
    ("cursorUp", Action::Up, &["up"]),
    ("cursorDown", Action::Down, &["down"]),
    ("dequeue", Action::Unqueue, &["alt+up"]),
    ("cursorLeft", Action::Move, &["left", "ctrl+b"]),
    ("cursorRight", Action::Move, &["right", "ctrl+f"]),
    ("cursorWordLeft", Action::MoveWord, &["ctrl+left", "alt+b"]),
    (
        "cursorWordRight",
        Action::MoveWord,
        &["ctrl+right", "alt+f"],
    ),
    ("cursorLineStart", Action::MoveLine, &["home", "ctrl+a"]),
    ("cursorLineEnd", Action::MoveLine, &["end", "ctrl+e"]),
    ("deleteCharBackward", Action::Delete, &["backspace"]),
    ("deleteCharForward", Action::Delete, &["delete"]),
    (
        "deleteWordBackward",
        Action::KillWordBack,
        &["ctrl+w", "alt+backspace"],
    ),
    ("deleteWordForward", Action::KillWordForward, &["alt+d"]),
    ("deleteToLineStart", Action::KillToStart, &["ctrl+u"]),
    ("deleteToLineEnd", Action::KillToEnd, &["ctrl+k"]),
    ("yank", Action::Yank, &["ctrl+y"]),
    ("yankPop", Action::YankPop, &["alt+y"]),
    ("undo", Action::Undo, &["ctrl+_"]),
    ("redo", Action::Redo, &["alt+z", "ctrl+shift+z"]),
    ("pasteImage", Action::PasteImage, &["ctrl+v"]),
];

/// The bytes a terminal sends for key `spec` (pi's syntax: `ctrl+x`,
/// `alt+enter`, `shift+tab`, `pageUp`…).
fn bytes_of(spec: &str) -> Option<Vec<u8>> {
    let spec = spec.trim().to_ascii_lowercase();
    let fixed: &[u8] = match spec.as_str() {
        "escape" | "esc" => b"\x1b",
        "enter" | "return" => b"\r",
        "alt+enter" | "alt+return" => b"\x1b\r",
        "shift+enter" => b"\x1b[13;2u",
        "tab" => b"\t",
        "shift+tab" => b"\x1b[Z",
        "backspace" => b"\x7f",
        "alt+backspace" => b"\x1b\x7f",
        "delete" => b"\x1b[3~",
        "up" => b"\x1b[A",
        "down" => b"\x1b[B",
        "right" => b"\x1b[C",
        "left" => b"\x1b[D",
        "alt+up" => b"\x1b[1;3A",
        "ctrl+left" => b"\x1b[1;5D",
        "ctrl+right" => b"\x1b[1;5C",
        "alt+left" => b"\x1b[1;3D",
        "alt+right" => b"\x1b[1;3C",
        "home" => b"\x1b[H",
        "end" => b"\x1b[F",
        "pageup" => b"\x1b[5~",
        "pagedown" => b"\x1b[6~",
        "ctrl+_" | "ctrl+-" => b"\x1f",
        "ctrl+shift+z" => b"\x1b[122;6u",
        "space" => b" ",
        _ => {
            // The kitty protocol's Ctrl+Shift+letter (pi writes `shift+ctrl+p`).
            let shifted = spec
                .strip_prefix("shift+ctrl+")
                .or_else(|| spec.strip_prefix("ctrl+shift+"));
            if let Some(letter) = shifted {
                let c = single(letter).filter(char::is_ascii_lowercase)?;
                return Some(format!("\x1b[{};6u", c as u32).into_bytes());
            }
            if let Some(letter) = spec.strip_prefix("ctrl+") {
                let c = single(letter).filter(char::is_ascii_lowercase)?;
                return Some(vec![c as u8 & 0x1f]);
            }
            if let Some(rest) = spec.strip_prefix("alt+") {
                let c = single(rest).filter(char::is_ascii_graphic)?;
                return Some(vec![0x1b, c as u8]);
            }
            let c = single(&spec).filter(char::is_ascii_graphic)?;
            return Some(vec![c as u8]);
        }
    };
    Some(fixed.to_vec())
}

fn single(text: &str) -> Option<char> {
    let mut chars = text.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

/// The key focus reads for `spec`, if it can tell that key apart.
pub fn parse_key(spec: &str) -> Option<Key> {
    let keys = KeyDecoder::new().feed(&bytes_of(spec)?);
    match <[Key; 1]>::try_from(keys) {
        Ok([key]) => Some(key),
        Err(_) => None,
    }
}

/// The keys as `keybindings.json` changed them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bindings {
    /// A key the user bound, and the default key of its action.
    bound: Vec<(Key, Key)>,
    /// Default keys whose action was given other keys (they do nothing now).
    unbound: Vec<Key>,
    /// The actions changed, with the keys given, for `/hotkeys`.
    pub changed: Vec<(String, Vec<String>)>,
}

impl Bindings {
    /// The key the rest of the UI should see for `key`: the action's default
    /// key for a bound one, `None` for a key taken away, else `key` itself.
    pub fn translate(&self, key: Key) -> Option<Key> {
        if let Some((_, to)) = self.bound.iter().find(|(from, _)| *from == key) {
            return Some(to.clone());
        }
        if self.unbound.contains(&key) {
            return None;
        }
        Some(key)
    }

    /// Reads `json` (an object of action names to a key or a list of keys);
    /// returns the bindings and a warning for each entry that was not used.
    pub fn from_json(json: &Value) -> (Bindings, Vec<String>) {
        let mut bindings = Bindings::default();
        let mut warnings = Vec::new();
        let Some(object) = json.as_object() else {
            return (bindings, vec!["expected an object of action names".into()]);
        };
        for (name, value) in object.iter() {
            let Some((_, _, defaults)) = ACTIONS.iter().find(|(n, _, _)| *n == name) else {
                warnings.push(format!("unknown action {name:?} ignored"));
                continue;
            };
            let specs: Vec<&str> = match value {
                Value::String(s) => vec![s.as_str()],
                Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
                _ => {
                    warnings.push(format!("{name}: expected a key or a list of keys"));
                    continue;
                }
            };
            let Some(target) = parse_key(defaults[0]) else {
                continue;
            };
            for default in defaults.iter().filter_map(|d| parse_key(d)) {
                bindings.unbound.push(default);
            }
            let mut given = Vec::new();
            for spec in specs {
                match parse_key(spec) {
                    Some(key) => {
                        bindings.bound.push((key, target.clone()));
                        given.push(spec.to_string());
                    }
                    None => warnings.push(format!("{name}: focus cannot read the key {spec:?}")),
                }
            }
            bindings.changed.push((name.to_string(), given));
        }
        (bindings, warnings)
    }
}

/// Loads `<config_dir>/keybindings.json` (absent: no change), with warnings
/// naming the file.
pub fn load(config_dir: &Path) -> (Bindings, Vec<String>) {
    let path = config_dir.join("keybindings.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return (Bindings::default(), Vec::new());
    };
    match focus_core::json::parse_str(&text) {
        Ok(json) => {
            let (bindings, warnings) = Bindings::from_json(&json);
            let named = warnings
                .into_iter()
                .map(|w| format!("{}: {w}", path.display()))
                .collect();
            (bindings, named)
        }
        Err(e) => (
            Bindings::default(),
            vec![format!("{}: invalid JSON, ignored: {e}", path.display())],
        ),
    }
}

/// The keys table as `/hotkeys` and `/help` show it, with what
/// `keybindings.json` changed after it: a note whose rows are two aligned
/// columns ([`COLUMN`] between the cells), laid out at the window's width.
pub fn keys_text(bindings: &Bindings) -> String {
    let mut text = String::new();
    for (keys, _, what) in keymap::KEYS {
        text.push_str(&format!("  {keys}{COLUMN}{what}\n"));
    }
    if !bindings.changed.is_empty() {
        text.push_str("Changed by keybindings.json:\n");
        for (action, keys) in &bindings.changed {
            let keys = if keys.is_empty() {
                "(no key)".to_string()
            } else {
                keys.join(", ")
            };
            // Names come from a file: shown printable.
            let action = printable(action);
            let keys = printable(&keys);
            text.push_str(&format!("  {action}{COLUMN}{keys}\n"));
        }
    }
    text
}

/// The actions' table as docs/cli.md has it: name, default keys, what it does.
pub fn markdown_table() -> String {
    let mut table = String::from("| action | default keys | what it does |\n|---|---|---|\n");
    for (name, action, defaults) in ACTIONS {
        let what = keymap::KEYS
            .iter()
            .find(|(_, a, _)| a == action)
            .map_or("", |k| k.2);
        table.push_str(&format!("| {name} | {} | {what} |\n", defaults.join(", ")));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every action's default keys are read as keys doing that action.
    #[test]
    fn the_defaults_do_what_the_actions_say() {
        for (name, action, defaults) in ACTIONS {
            for spec in *defaults {
                let key = parse_key(spec).unwrap_or_else(|| panic!("{name}: {spec}"));
                assert_eq!(keymap::action(&key), *action, "{name}: {spec}");
            }
        }
    }

    #[test]
    fn a_bound_key_stands_for_the_default_and_the_default_goes() {
        let json = focus_core::json::parse_str(
            r#"{"cycleThinkingLevel":"ctrl+x","cursorLeft":["ctrl+q"],"cursorRight":["right","ctrl+n"],"nope":"a","exit":"ctrl+alt+q","cycleModelBackward":"ctrl+shift+b"}"#,
        )
        .unwrap();
        let (b, warnings) = Bindings::from_json(&json);
        assert_eq!(b.translate(Key::Ctrl('x')), Some(Key::BackTab));
        assert_eq!(b.translate(Key::BackTab), None, "a default not given again");
        assert_eq!(b.translate(Key::Ctrl('q')), Some(Key::Left));
        assert_eq!(b.translate(Key::Left), None);
        assert_eq!(b.translate(Key::Right), Some(Key::Right), "given again");
        assert_eq!(b.translate(Key::Ctrl('n')), Some(Key::Right));
        assert_eq!(b.translate(Key::Ctrl('t')), Some(Key::Ctrl('t')));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("\"nope\""));
        assert!(warnings[1].contains("ctrl+alt+q"));
        assert_eq!(b.translate(Key::CtrlShift('b')), Some(Key::CtrlShift('p')));
    }
}
