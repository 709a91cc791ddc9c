//! Bytes from a raw-mode terminal to [`Key`]s: UTF-8 characters, control keys,
//! the escape sequences of arrows and friends, Alt+Enter, Shift+Enter (in the
//! encodings terminals use for it) and bracketed paste.
//!
//! [`KeyDecoder`] is fed whatever `read` returned; sequences split across reads are
//! kept until complete. An Escape byte at the very end of a read is the Escape key
//! (terminals send a whole sequence in one write, so a lone one is a key press).
//!
//! [`KEYBOARD_ON`] asks the terminal for the encodings the decoder reads best
//! (bracketed paste, the kitty protocol's first level, modifyOtherKeys);
//! [`KEYBOARD_OFF`] undoes it.

/// Bracketed paste on (pasted text arrives marked, so its newlines do not
/// send), the kitty keyboard protocol's first level and xterm's modifyOtherKeys
/// (so Shift+Enter differs from Enter where the terminal supports either;
/// others ignore the requests).
pub const KEYBOARD_ON: &str = "\x1b[?2004h\x1b[>1u\x1b[>4;1m";
/// Everything [`KEYBOARD_ON`] asked for, undone.
pub const KEYBOARD_OFF: &str = "\x1b[?2004l\x1b[<u\x1b[>4;0m";

/// One key press (or one paste).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// A printable character.
    Char(char),
    /// Enter (carriage return).
    Enter,
    /// Alt+Enter: queue a follow-up.
    AltEnter,
    /// Shift+Enter or Ctrl+J: a new line in the input.
    Newline,
    /// Backspace.
    Backspace,
    /// Delete (forward).
    Delete,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// Arrow up.
    Up,
    /// Alt+Up: queued messages back to the editor.
    AltUp,
    /// Arrow down.
    Down,
    /// Home / Ctrl+A.
    Home,
    /// End / Ctrl+E.
    End,
    /// Ctrl+Left / Alt+B.
    WordLeft,
    /// Ctrl+Right / Alt+F.
    WordRight,
    /// Page Up.
    PageUp,
    /// Page Down.
    PageDown,
    /// Tab.
    Tab,
    /// Shift+Tab.
    BackTab,
    /// Escape.
    Esc,
    /// Ctrl plus a letter not given its own variant (`'c'`, `'d'`, `'k'`, …).
    Ctrl(char),
    /// Ctrl+Shift plus a letter (lower case), which only the kitty keyboard
    /// protocol and modifyOtherKeys tell apart from Ctrl alone (`'p'`).
    CtrlShift(char),
    /// Alt plus a character not given its own variant (`'d'`, `'y'`).
    Alt(char),
    /// Ctrl+_ (also Ctrl+- and Ctrl+/ in most terminals): undo.
    Undo,
    /// Ctrl+Shift+Z (where the terminal reports it: the kitty protocol or
    /// modifyOtherKeys) or Alt+Z (everywhere): redo what undo took back.
    Redo,
    /// Text pasted between bracketed-paste markers.
    Paste(String),
}

/// Turns raw input bytes into keys, across reads.
#[derive(Debug, Default)]
pub struct KeyDecoder {
    pending: Vec<u8>,
    paste: Option<Vec<u8>>,
}

const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

impl KeyDecoder {
    /// A decoder with nothing pending.
    pub fn new() -> KeyDecoder {
        KeyDecoder::default()
    }

    /// Decodes `bytes` (one read's worth) into keys.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Key> {
        self.pending.extend_from_slice(bytes);
        let mut keys = Vec::new();
        let mut i = 0;
        let input = std::mem::take(&mut self.pending);
        while i < input.len() {
            if let Some(paste) = &mut self.paste {
                match find(&input[i..], PASTE_END) {
                    Some(end) => {
                        paste.extend_from_slice(&input[i..i + end]);
                        let text = String::from_utf8_lossy(paste)
                            .replace("\r\n", "\n")
                            .replace('\r', "\n");
                        keys.push(Key::Paste(text));
                        self.paste = None;
                        i += end + PASTE_END.len();
                    }
                    None => {
                        // Keep a possible partial end marker for the next read.
                        let keep = partial_suffix(&input[i..], PASTE_END);
                        paste.extend_from_slice(&input[i..input.len() - keep]);
                        self.pending = input[input.len() - keep..].to_vec();
                        return keys;
                    }
                }
                continue;
            }
            match decode_one(&input[i..]) {
                Decoded::Key(key, used) => {
                    keys.push(key);
                    i += used;
                }
                Decoded::PasteStart(used) => {
                    self.paste = Some(Vec::new());
                    i += used;
                }
                Decoded::Skip(used) => i += used,
                Decoded::Incomplete => {
                    self.pending = input[i..].to_vec();
                    return keys;
                }
            }
        }
        keys
    }
}

enum Decoded {
    Key(Key, usize),
    PasteStart(usize),
    Skip(usize),
    Incomplete,
}

fn decode_one(bytes: &[u8]) -> Decoded {
    let b = bytes[0];
    match b {
        b'\r' => Decoded::Key(Key::Enter, 1),
        b'\n' => Decoded::Key(Key::Newline, 1),
        b'\t' => Decoded::Key(Key::Tab, 1),
        0x7f | 0x08 => Decoded::Key(Key::Backspace, 1),
        0x01 => Decoded::Key(Key::Home, 1),
        0x1f => Decoded::Key(Key::Undo, 1),
        0x05 => Decoded::Key(Key::End, 1),
        0x02 => Decoded::Key(Key::Left, 1),
        0x06 => Decoded::Key(Key::Right, 1),
        0x1b => decode_escape(bytes),
        0x00..=0x1f => Decoded::Key(Key::Ctrl((b + b'a' - 1) as char), 1),
        _ => decode_utf8(bytes),
    }
}

fn decode_utf8(bytes: &[u8]) -> Decoded {
    let len = match bytes[0] {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return Decoded::Skip(1),
    };
    if bytes.len() < len {
        return Decoded::Incomplete;
    }
    match std::str::from_utf8(&bytes[..len]) {
        Ok(s) => Decoded::Key(Key::Char(s.chars().next().unwrap_or('\u{fffd}')), len),
        Err(_) => Decoded::Skip(1),
    }
}

fn decode_escape(bytes: &[u8]) -> Decoded {
    let Some(&next) = bytes.get(1) else {
        return Decoded::Key(Key::Esc, 1);
    };
    match next {
        b'\r' | b'\n' => Decoded::Key(Key::AltEnter, 2),
        b'[' => decode_csi(bytes),
        b'O' => match bytes.get(2) {
            None => Decoded::Incomplete,
            Some(b'A') => Decoded::Key(Key::Up, 3),
            Some(b'B') => Decoded::Key(Key::Down, 3),
            Some(b'C') => Decoded::Key(Key::Right, 3),
            Some(b'D') => Decoded::Key(Key::Left, 3),
            Some(b'H') => Decoded::Key(Key::Home, 3),
            Some(b'F') => Decoded::Key(Key::End, 3),
            Some(_) => Decoded::Skip(3),
        },
        b'b' => Decoded::Key(Key::WordLeft, 2),
        b'f' => Decoded::Key(Key::WordRight, 2),
        b'z' => Decoded::Key(Key::Redo, 2),
        0x7f => Decoded::Key(Key::Ctrl('w'), 2),
        0x1b => Decoded::Key(Key::Esc, 1),
        c if c.is_ascii_graphic() => Decoded::Key(Key::Alt(c as char), 2),
        _ => Decoded::Skip(2),
    }
}

/// `ESC [ params final`: arrows, Home/End, Delete, paste markers, and the CSI-u /
/// modifyOtherKeys encodings of Shift+Enter and Alt+Enter.
fn decode_csi(bytes: &[u8]) -> Decoded {
    let body_start = 2;
    let Some(end) = bytes[body_start..]
        .iter()
        .position(|&b| (0x40..=0x7e).contains(&b))
    else {
        // Unterminated: wait for more unless it is absurdly long (then drop it).
        return if bytes.len() > 32 {
            Decoded::Skip(bytes.len())
        } else {
            Decoded::Incomplete
        };
    };
    let final_byte = bytes[body_start + end];
    let params = &bytes[body_start..body_start + end];
    let used = body_start + end + 1;
    if &bytes[..used] == PASTE_START {
        return Decoded::PasteStart(used);
    }
    let key = match (params, final_byte) {
        (b"", b'A') => Key::Up,
        (b"", b'B') => Key::Down,
        (b"", b'C') => Key::Right,
        (b"", b'D') => Key::Left,
        (b"", b'H') | (b"1", b'~') | (b"7", b'~') => Key::Home,
        (b"", b'F') | (b"4", b'~') | (b"8", b'~') => Key::End,
        (b"3", b'~') => Key::Delete,
        (b"", b'Z') => Key::BackTab,
        (b"5", b'~') => Key::PageUp,
        (b"6", b'~') => Key::PageDown,
        (b"1;5", b'C') | (b"1;3", b'C') => Key::WordRight,
        (b"1;3", b'A') => Key::AltUp,
        (b"1;5", b'D') | (b"1;3", b'D') => Key::WordLeft,
        (b"13;2", b'u') | (b"27;2;13", b'~') => Key::Newline,
        (b"13;3", b'u') | (b"27;3;13", b'~') => Key::AltEnter,
        (b"13", b'u') => Key::Enter,
        (b"27", b'u') => Key::Esc,
        (params, b'u') => match modified_key(params) {
            Some(key) => key,
            None => return Decoded::Skip(used),
        },
        (params, b'~') if params.starts_with(b"27;") => {
            // modifyOtherKeys: 27;MODIFIERS;CODE~ (the same fields, swapped).
            let text = String::from_utf8_lossy(&params[3..]).into_owned();
            let swapped: Vec<&str> = text.split(';').rev().collect();
            match modified_key(swapped.join(";").as_bytes()) {
                Some(key) => key,
                None => return Decoded::Skip(used),
            }
        }
        _ => return Decoded::Skip(used),
    };
    Decoded::Key(key, used)
}

/// A key of the kitty keyboard protocol or modifyOtherKeys: `CODE;MODIFIERS`
/// (1 none, 2 Shift, 3 Alt, 5 Ctrl, 6 Ctrl+Shift), as the key the plain encoding would give.
fn modified_key(params: &[u8]) -> Option<Key> {
    let text = std::str::from_utf8(params).ok()?;
    let mut fields = text.split(';');
    let code: u32 = fields.next()?.split(':').next()?.parse().ok()?;
    let modifiers: u32 = fields
        .next()
        .map_or(Some(1), |m| m.split(':').next()?.parse().ok())?;
    let c = char::from_u32(code)?;
    Some(match (modifiers, c) {
        (1 | 2, '\r') => {
            if modifiers == 2 {
                Key::Newline
            } else {
                Key::Enter
            }
        }
        (3, '\r') => Key::AltEnter,
        (1, '\t') => Key::Tab,
        (1, '\x7f') => Key::Backspace,
        (1, '\x1b') => Key::Esc,
        (6, 'z' | 'Z') | (3, 'z') => Key::Redo,
        (1 | 2, c) if !c.is_control() => Key::Char(c),
        (3, 'b') => Key::WordLeft,
        (3, 'f') => Key::WordRight,
        (3, '\x7f') => Key::Ctrl('w'),
        (3, c) if !c.is_control() => Key::Alt(c),
        (5, '_' | '-' | '/') => Key::Undo,
        (6, c) if c.is_ascii_alphabetic() => Key::CtrlShift(c.to_ascii_lowercase()),
        (5, c) if c.is_ascii_lowercase() => match decode_one(&[c as u8 - b'a' + 1]) {
            Decoded::Key(key, _) => key,
            _ => return None,
        },
        _ => return None,
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// How many bytes at the end of `bytes` could be the start of `marker`.
fn partial_suffix(bytes: &[u8], marker: &[u8]) -> usize {
    (1..marker.len())
        .rev()
        .find(|&n| bytes.len() >= n && bytes[bytes.len() - n..] == marker[..n])
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(chunks: &[&[u8]]) -> Vec<Key> {
        let mut decoder = KeyDecoder::new();
        chunks.iter().flat_map(|c| decoder.feed(c)).collect()
    }

    #[test]
    fn characters_controls_and_arrows() {
        assert_eq!(
            keys(&[b"a\xc3\xa9\r\x7f\x1b[A\x1b[D\x1bOC\x1b[3~\x03"]),
            [
                Key::Char('a'),
                Key::Char('é'),
                Key::Enter,
                Key::Backspace,
                Key::Up,
                Key::Left,
                Key::Right,
                Key::Delete,
                Key::Ctrl('c')
            ]
        );
    }

    #[test]
    fn sequences_split_across_reads() {
        assert_eq!(
            keys(&[b"\x1b[", b"B", b"\xe2\x82", b"\xac"]),
            [Key::Down, Key::Char('€')]
        );
    }

    #[test]
    fn escape_alt_enter_and_shift_enter() {
        assert_eq!(keys(&[b"\x1b"]), [Key::Esc]);
        assert_eq!(keys(&[b"\x1b\r"]), [Key::AltEnter]);
        assert_eq!(keys(&[b"\x1b[13;2u", b"\n"]), [Key::Newline, Key::Newline]);
        assert_eq!(keys(&[b"\x1b[27;2;13~"]), [Key::Newline]);
        // The kitty protocol's and modifyOtherKeys' Ctrl and Alt letters.
        assert_eq!(
            keys(&[b"\x1b[99;5u\x1b[100;3u\x1b[27;5;97~\x1b[97u\x1b[95;5u"]),
            [
                Key::Ctrl('c'),
                Key::Alt('d'),
                Key::Home,
                Key::Char('a'),
                Key::Undo
            ]
        );
        // Ctrl+Shift+P in both encodings (modifyOtherKeys sends the shifted
        // letter).
        assert_eq!(
            keys(&[b"\x1b[112;6u\x1b[27;6;80~"]),
            [Key::CtrlShift('p'), Key::CtrlShift('p')]
        );
        assert_eq!(
            keys(&[b"\x1bd\x1by\x1f"]),
            [Key::Alt('d'), Key::Alt('y'), Key::Undo]
        );
        // Redo: Ctrl+Shift+Z as the kitty protocol and modifyOtherKeys send
        // it, and Alt+Z.
        assert_eq!(
            keys(&[b"\x1b[122;6u\x1b[27;6;90~\x1bz\x1b[122;3u"]),
            [Key::Redo, Key::Redo, Key::Redo, Key::Redo]
        );
    }

    #[test]
    fn bracketed_paste_keeps_newlines_and_escapes_inside() {
        assert_eq!(
            keys(&[b"\x1b[200~line1\r\nli", b"ne2\x1b[A\x1b[20", b"1~x"]),
            [Key::Paste("line1\nline2\x1b[A".into()), Key::Char('x')]
        );
    }

    #[test]
    fn garbage_never_panics() {
        let mut decoder = KeyDecoder::new();
        let mut seed = 12345u64;
        for _ in 0..2000 {
            let mut chunk = Vec::new();
            for _ in 0..(seed % 17) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                chunk.push((seed >> 33) as u8);
            }
            decoder.feed(&chunk);
        }
        // Still usable afterwards: this ends any pending paste, sequence or
        // character, then presses Enter.
        assert!(decoder.feed(b"\x1b[201~~\r").contains(&Key::Enter));
    }
}
