//! Text from outside made safe to draw: what the kit shows (a model's answer, a
//! file name, a key binding read from a file) may hold escape sequences that
//! would move the cursor, retitle the window or hide text. [`printable`]
//! removes them; [`clip`] also puts text on one line in a number of columns.
//!
//! The kit has its own sanitizer so it needs no tool crate: the rules are the
//! terminal's, not an agent's.

use std::borrow::Cow;
use std::iter::Peekable;
use std::str::Chars;

/// `text` without what would corrupt a terminal: escape sequences (CSI such as
/// colours, OSC such as window titles, DCS/SOS/PM/APC strings, two-character
/// escapes), C0 control characters other than `\n` and `\t`, DEL and C1
/// controls. `\r\n` becomes `\n`, and a lone `\r` (a progress bar redrawing
/// itself) becomes `\n` so each state stays readable. Borrowed when there is
/// nothing to remove, which a quick byte scan tells for most text.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !may_need_work(text.as_bytes()) || !text.chars().any(is_removed) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => out.push('\n'),
            '\u{1b}' => skip_sequence(&mut chars),
            c if is_removed(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` on one line in `max` columns, `…` added after them when cut: escape
/// sequences and controls removed ([`printable`]), line breaks shown as ` ⏎ `
/// and hidden format characters written out ([`reveal_hidden`](crate::reveal::reveal_hidden)).
pub fn clip(text: &str, max: usize) -> String {
    let one_line = printable(text).replace('\n', " ⏎ ");
    let shown = crate::reveal::reveal_hidden(&one_line);
    crate::width::clip_to(&shown, max)
}

/// Whether a character is dropped (or, for ESC and `\r`, handled apart).
fn is_removed(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Whether `bytes` hold a byte that may start something to remove: a C0
/// control other than `\n` and `\t`, DEL, or 0xC2 (the first byte of the C1
/// controls in UTF-8). Looked at 32 bytes at a time without an early exit
/// inside a block, which compilers turn into vector compares (this runs on
/// every streamed delta).
fn may_need_work(bytes: &[u8]) -> bool {
    let suspect = |b: u8| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f || b == 0xc2;
    bytes
        .chunks(32)
        .any(|block| block.iter().fold(false, |seen, &b| seen | suspect(b)))
}

/// Skips the rest of an escape sequence whose ESC was just read. A sequence
/// ends at a line break at the latest: a stray ESC (output cut mid-sequence, a
/// binary file) must not swallow the lines after it.
fn skip_sequence(chars: &mut Peekable<Chars<'_>>) {
    match chars.peek() {
        // CSI: parameters and intermediates, ended by one byte in `@..~`.
        Some('[') => {
            chars.next();
            while let Some(c) = chars.next_if(|&c| c != '\n') {
                if ('@'..='~').contains(&c) {
                    return;
                }
            }
        }
        // OSC, DCS, SOS, PM, APC: a string ended by BEL or ESC `\`.
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            while let Some(c) = chars.next_if(|&c| c != '\n') {
                if c == '\u{7}' {
                    return;
                }
                if c == '\u{1b}' {
                    chars.next_if_eq(&'\\');
                    return;
                }
            }
        }
        // A two-character escape such as ESC c (reset) or ESC 7.
        Some(&c) if c != '\n' => {
            chars.next();
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_untouched() {
        let text = "héllo\twörld\n日本 🎉";
        assert!(matches!(printable(text), Cow::Borrowed(t) if t == text));
    }

    #[test]
    fn escape_sequences_and_controls_go() {
        assert_eq!(printable("a\u{1b}[31mred\u{1b}[0m b"), "ared b");
        assert_eq!(printable("\u{1b}]0;title\u{7}x"), "x");
        assert_eq!(printable("\u{1b}]8;;http://e\u{1b}\\link"), "link");
        assert_eq!(printable("\u{1b}Pdcs\u{1b}\\y\u{1b}cz"), "yz");
        assert_eq!(printable("bell\u{7}del\u{7f}c1\u{9b}31m"), "belldelc131m");
    }

    #[test]
    fn carriage_returns_become_line_breaks() {
        assert_eq!(printable("a\r\nb"), "a\nb");
        assert_eq!(printable("10%\r20%"), "10%\n20%");
    }

    #[test]
    fn an_unterminated_sequence_stops_at_the_line_break() {
        assert_eq!(printable("\u{1b}[12;\nnext"), "\nnext");
        assert_eq!(printable("\u{1b}]0;never ended\nkept"), "\nkept");
        assert_eq!(printable("end\u{1b}"), "end");
    }

    #[test]
    fn clip_keeps_one_line_within_its_columns() {
        assert_eq!(clip("one\ntwo", 80), "one ⏎ two");
        assert_eq!(clip("\u{1b}[1mabcdefghij", 5), "abcde…");
        assert_eq!(clip("a\u{202e}b", 20), "a\\u{202e}b");
    }
}
