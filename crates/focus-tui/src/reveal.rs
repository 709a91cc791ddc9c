//! Showing text the user must read exactly as it is: a command to approve, the
//! one-line summary of a tool call.
//!
//! A terminal obeys some characters instead of showing them. Control characters
//! (`\r`, escape sequences, backspace) can erase or rewrite what is on the line,
//! and invisible format characters can reorder or hide it: a right-to-left
//! override (U+202E) prints the rest of a line backwards ("Trojan Source"), a
//! zero-width space hides inside a word. A model, or a file it read, could use
//! either to make `rm -rf ~` look like something else. [`reveal_hidden`] writes
//! them out as `\u{…}` escapes (controls as Rust writes them: `\r`, `\t`).

/// Whether `c` is an invisible format character a terminal may act on or hide:
/// bidirectional marks, embeddings, overrides and isolates, zero-width spaces and
/// joiners, word joiners and invisible operators, the byte-order mark and the soft
/// hyphen.
pub fn is_hidden_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// `text` with every control character except `\n` and every hidden format
/// character written out as an escape, so what is shown is what is there.
pub fn reveal_hidden(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' {
            out.extend(c.escape_debug());
        } else if is_hidden_format(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_hidden_formats_are_shown_not_obeyed() {
        assert_eq!(
            reveal_hidden("rm -rf ~\r\u{1b}[2Kls\u{8}"),
            "rm -rf ~\\r\\u{1b}[2Kls\\u{8}"
        );
        assert_eq!(reveal_hidden("cargo test\n\tx"), "cargo test\n\\tx");
        // "echo safe" followed by an override that would print `~ fr- mr` as `rm -rf ~`.
        assert_eq!(
            reveal_hidden("echo safe \u{202E}~ fr- mr"),
            "echo safe \\u{202e}~ fr- mr"
        );
        assert_eq!(reveal_hidden("r\u{200B}m"), "r\\u{200b}m");
        assert_eq!(reveal_hidden("\u{2067}x\u{2069}"), "\\u{2067}x\\u{2069}");
    }

    #[test]
    fn ordinary_text_is_unchanged() {
        for text in [
            "ls -la",
            "grep 'é' 你好.txt",
            "emoji 👍🏽 and ZWJ-free text",
            "a\nb",
        ] {
            assert_eq!(reveal_hidden(text), text);
        }
    }
}
