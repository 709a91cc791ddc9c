//! How many columns text takes on a terminal.
//!
//! Counting characters is wrong twice over: a CJK ideograph, a kana, a Hangul
//! syllable, a full-width form or an emoji takes two columns, and a combining accent,
//! a zero-width joiner or a variation selector takes none. The editor's cursor, the
//! rows of the live area and word wrapping all count columns, so a line of Chinese
//! counted as characters put the cursor mid-text and left stray rows behind on
//! redraw.
//!
//! The tables are the ranges terminals themselves use (Unicode's East Asian Width
//! `W` and `F` classes, emoji shown as pictures, and the zero-width classes), kept to
//! the blocks that occur in practice; every other printable character is one column.

/// Code points that take two columns.
const WIDE: &[(u32, u32)] = &[
    (0x1100, 0x115F), // Hangul Jamo initial consonants
    (0x231A, 0x231B), // watch, hourglass
    (0x2329, 0x232A), // angle brackets
    (0x23E9, 0x23EC),
    (0x23F0, 0x23F0),
    (0x23F3, 0x23F3),
    (0x25FD, 0x25FE),
    (0x2614, 0x2615),
    (0x2648, 0x2653), // zodiac
    (0x267F, 0x267F),
    (0x2693, 0x2693),
    (0x26A1, 0x26A1),
    (0x26AA, 0x26AB),
    (0x26BD, 0x26BE),
    (0x26C4, 0x26C5),
    (0x26CE, 0x26CE),
    (0x26D4, 0x26D4),
    (0x26EA, 0x26EA),
    (0x26F2, 0x26F3),
    (0x26F5, 0x26F5),
    (0x26FA, 0x26FA),
    (0x26FD, 0x26FD),
    (0x2705, 0x2705), // check mark
    (0x270A, 0x270B),
    (0x2728, 0x2728),
    (0x274C, 0x274C), // cross mark
    (0x274E, 0x274E),
    (0x2753, 0x2755),
    (0x2757, 0x2757),
    (0x2795, 0x2797),
    (0x27B0, 0x27B0),
    (0x27BF, 0x27BF),
    (0x2B1B, 0x2B1C),
    (0x2B50, 0x2B50),
    (0x2B55, 0x2B55),
    (0x2E80, 0x3029), // CJK radicals, Kangxi, ideographic description, CJK punctuation
    (0x302E, 0x303E), // (the tone marks between are combining)
    (0x3041, 0x3098), // kana (the voicing marks after are combining)
    (0x309B, 0x33FF), // kana, Bopomofo, Hangul compatibility Jamo, CJK strokes, enclosed, compatibility
    (0x3400, 0x4DBF), // CJK extension A
    (0x4E00, 0x9FFF), // CJK unified ideographs
    (0xA000, 0xA4CF), // Yi
    (0xA960, 0xA97F), // Hangul Jamo extended A
    (0xAC00, 0xD7A3), // Hangul syllables
    (0xF900, 0xFAFF), // CJK compatibility ideographs
    (0xFE10, 0xFE19), // vertical forms
    (0xFE30, 0xFE6F), // CJK compatibility forms, small forms
    (0xFF00, 0xFF60), // full-width forms
    (0xFFE0, 0xFFE6),
    (0x16FE0, 0x16FE4),
    (0x17000, 0x18CFF), // Tangut, Khitan
    (0x1B000, 0x1B2FF), // kana supplements, Nushu
    (0x1F004, 0x1F004),
    (0x1F0CF, 0x1F0CF),
    (0x1F18E, 0x1F18E),
    (0x1F191, 0x1F19A),
    (0x1F200, 0x1F251), // enclosed ideographic supplement
    (0x1F300, 0x1F320), // pictographs shown as emoji
    (0x1F32D, 0x1F335),
    (0x1F337, 0x1F37C),
    (0x1F37E, 0x1F393),
    (0x1F3A0, 0x1F3CA),
    (0x1F3CF, 0x1F3D3),
    (0x1F3E0, 0x1F3F0),
    (0x1F3F4, 0x1F3F4),
    (0x1F3F8, 0x1F3FA), // (skin tone modifiers after: they join the emoji before)
    (0x1F400, 0x1F43E),
    (0x1F440, 0x1F440),
    (0x1F442, 0x1F4FC),
    (0x1F4FF, 0x1F53D),
    (0x1F54B, 0x1F54E),
    (0x1F550, 0x1F567),
    (0x1F57A, 0x1F57A),
    (0x1F595, 0x1F596),
    (0x1F5A4, 0x1F5A4),
    (0x1F5FB, 0x1F64F), // emoticons
    (0x1F680, 0x1F6C5), // transport
    (0x1F6CC, 0x1F6CC),
    (0x1F6D0, 0x1F6D2),
    (0x1F6D5, 0x1F6D7),
    (0x1F6DC, 0x1F6DF),
    (0x1F6EB, 0x1F6EC),
    (0x1F6F4, 0x1F6FC),
    (0x1F7E0, 0x1F7EB),
    (0x1F7F0, 0x1F7F0),
    (0x1F90C, 0x1F93A), // supplemental symbols and pictographs
    (0x1F93C, 0x1F945),
    (0x1F947, 0x1F9FF),
    (0x1FA70, 0x1FAFF), // symbols and pictographs extended A
    (0x20000, 0x2FFFD), // CJK extensions B to F
    (0x30000, 0x3FFFD), // CJK extensions G, H
];

/// Code points that take no column: combining marks, zero-width characters,
/// variation selectors, Hangul medial and final Jamo (they join the initial).
const ZERO: &[(u32, u32)] = &[
    (0x0300, 0x036F), // combining diacritical marks
    (0x0483, 0x0489),
    (0x0591, 0x05BD), // Hebrew points
    (0x05BF, 0x05BF),
    (0x05C1, 0x05C2),
    (0x05C4, 0x05C5),
    (0x05C7, 0x05C7),
    (0x0610, 0x061A), // Arabic marks
    (0x064B, 0x065F),
    (0x0670, 0x0670),
    (0x06D6, 0x06DC),
    (0x06DF, 0x06E4),
    (0x06E7, 0x06E8),
    (0x06EA, 0x06ED),
    (0x0900, 0x0902), // Devanagari signs
    (0x093A, 0x093A),
    (0x093C, 0x093C),
    (0x0941, 0x0948),
    (0x094D, 0x094D),
    (0x0951, 0x0957),
    (0x0962, 0x0963),
    (0x0E31, 0x0E31), // Thai
    (0x0E34, 0x0E3A),
    (0x0E47, 0x0E4E),
    (0x1160, 0x11FF), // Hangul Jamo medial vowels and final consonants
    (0x1AB0, 0x1AFF),
    (0x1DC0, 0x1DFF),
    (0x200B, 0x200F), // zero-width space, joiners, direction marks
    (0x202A, 0x202E), // direction embeddings and overrides
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0x20D0, 0x20FF), // combining marks for symbols
    (0x302A, 0x302D),
    (0x3099, 0x309A), // kana voicing marks
    (0xFE00, 0xFE0F), // variation selectors
    (0xFE20, 0xFE2F),
    (0xFEFF, 0xFEFF),   // zero-width no-break space
    (0x1F3FB, 0x1F3FF), // skin tone modifiers (they join the emoji before)
    (0xE0000, 0xE0FFF), // tags, variation selectors supplement
];

fn in_table(table: &[(u32, u32)], c: u32) -> bool {
    table
        .binary_search_by(|&(low, high)| {
            if high < c {
                std::cmp::Ordering::Less
            } else if low > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The columns `c` takes: 0, 1 or 2. Control characters take 0 (the screen code
/// never prints them raw).
pub fn char_width(c: char) -> usize {
    let code = c as u32;
    if code < 0x7F {
        return usize::from(code >= 0x20);
    }
    if c.is_control() || in_table(ZERO, code) {
        0
    } else if in_table(WIDE, code) {
        2
    } else {
        1
    }
}

/// The columns `text` takes (no escape sequences in it).
pub fn text_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// The longest start of `text` that fits in `columns` columns, and whether that is
/// all of it. A wide character that would straddle the limit is left out whole.
pub fn fit(text: &str, columns: usize) -> (&str, bool) {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += char_width(c);
        if used > columns {
            return (&text[..at], false);
        }
    }
    (text, true)
}

/// `text` cut to at most `columns` columns, `…` (one more column) added when cut.
pub fn clip_to(text: &str, columns: usize) -> String {
    match fit(text, columns) {
        (all, true) => all.to_string(),
        (start, false) => format!("{start}…"),
    }
}

/// The number of columns `text` shows, skipping ANSI escape sequences (CJK and
/// emoji take two columns, combining marks none).
pub fn visible_width(text: &str) -> usize {
    // Byte by byte: ASCII (most of what is drawn) and escape sequences need no
    // decoding; other characters are decoded where they start.
    let bytes = text.as_bytes();
    let mut width = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == 0x1b {
            i += 1;
            match bytes.get(i) {
                Some(b'[') => {
                    i += 1;
                    while i < bytes.len() {
                        let d = bytes[i];
                        i += 1;
                        if (b'@'..=b'~').contains(&d) {
                            break;
                        }
                    }
                }
                // OSC (hyperlinks), and APC, DCS, PM, SOS (kitty's images):
                // strings ended by BEL or ESC `\`, taking no columns.
                Some(b']' | b'_' | b'P' | b'^' | b'X') => {
                    i += 1;
                    let mut last = b' ';
                    while i < bytes.len() {
                        let d = bytes[i];
                        i += 1;
                        if d == 0x07 || (last == 0x1b && d == b'\\') {
                            break;
                        }
                        last = d;
                    }
                }
                // Any other character after ESC is part of the escape.
                Some(_) => i += text[i..].chars().next().map_or(1, char::len_utf8),
                None => {}
            }
        } else if b < 0x80 {
            width += usize::from((0x20..0x7f).contains(&b));
            i += 1;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            width += char_width(c);
            i += c.len_utf8();
        }
    }
    width
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_cjk_emoji_and_combining_marks() {
        assert_eq!(text_width("focus"), 5);
        assert_eq!(
            text_width("你好，世界"),
            10,
            "ideographs and full-width comma"
        );
        assert_eq!(text_width("こんにちは"), 10);
        assert_eq!(text_width("한국어"), 6);
        assert_eq!(text_width("ＡＢ"), 4, "full-width Latin");
        assert_eq!(text_width("e\u{301}"), 1, "e with a combining acute");
        assert_eq!(text_width("🚀 ok"), 5);
        assert_eq!(text_width("👍🏽"), 2, "a skin tone joins the emoji");
        assert_eq!(text_width("a\u{200B}b"), 2, "zero-width space");
        assert_eq!(text_width("\t\x07"), 0, "controls");
        assert_eq!(text_width("é…→"), 3, "precomposed and narrow symbols");
    }

    #[test]
    fn the_tables_are_sorted_and_apart() {
        for table in [WIDE, ZERO] {
            for pair in table.windows(2) {
                assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:?}");
            }
        }
        for &(low, high) in WIDE {
            for &(zero_low, zero_high) in ZERO {
                assert!(
                    high < zero_low || low > zero_high,
                    "{low:x} overlaps {zero_low:x}"
                );
            }
        }
    }

    #[test]
    fn fitting_never_splits_a_wide_character() {
        assert_eq!(fit("你好世界", 5), ("你好", false));
        assert_eq!(fit("你好世界", 8), ("你好世界", true));
        assert_eq!(fit("ab你", 3), ("ab", false));
        assert_eq!(clip_to("hello world", 5), "hello…");
        assert_eq!(clip_to("中文标题很长", 6), "中文标…");
        assert_eq!(clip_to("short", 10), "short");
        for columns in 0..12 {
            let (start, _) = fit("a你b好c世", columns);
            assert!(text_width(start) <= columns);
        }
    }

    #[test]
    fn widths_skip_escapes() {
        assert_eq!(visible_width("\x1b[1mab\x1b[0mc"), 3);
        assert_eq!(visible_width("\x1b[2m你好\x1b[0m!"), 5);
        assert_eq!(visible_width("\x1b]8;;http://x\x07link\x1b]8;;\x07"), 4);
        // OSC ended by ESC \, a two-character escape, one before a non-ASCII
        // character, controls (no width), combining marks, a lone ESC at the end.
        assert_eq!(visible_width("\x1b]8;;u\x1b\\é中\x1b]8;;\x1b\\"), 3);
        assert_eq!(visible_width("\x1b7ab\x1b8"), 2);
        assert_eq!(visible_width("\x1béab"), 2);
        assert_eq!(visible_width("a\tb\x7f\u{85}e\u{301}\x1b"), 3);
    }
}
