//! Lines to screen rows: every row the renderer writes fits the window, so the
//! renderer, not the terminal, decides where a line wraps and always knows how
//! many rows it drew (a terminal that re-joins soft-wrapped rows when the window
//! widens cannot move anything under it).
//!
//! Lines may carry SGR styles (`ESC [ … m`); they are copied through, closed at
//! the end of a row that is cut and opened again on the next one.

use crate::width::{char_width, fit, text_width, visible_width};

/// The sequence that ends a hyperlink.
const LINK_END: &str = "\x1b]8;;\x1b\\";

/// Splits `line` into rows of at most `width` columns (a character that does not
/// fit starts the next row, so a wide character never straddles a row end). A tab
/// becomes spaces up to the next multiple of 4; other control characters are
/// dropped (callers sanitize model text, this is the last guard).
pub fn split_rows(line: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut used = 0;
    // The SGR sequences in force (since the last reset), to reopen after a cut.
    let mut open: Vec<String> = Vec::new();
    // The hyperlink open (its opening sequence), to close at a cut and reopen.
    let mut link: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                let mut sequence = String::from("\x1b[");
                chars.next();
                for d in chars.by_ref() {
                    sequence.push(d);
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
                if sequence.ends_with('m') {
                    if sequence == "\x1b[0m" || sequence == "\x1b[m" {
                        open.clear();
                    } else {
                        open.push(sequence.clone());
                    }
                    row.push_str(&sequence);
                }
                // Other sequences (cursor moves) are dropped: they would break
                // the count of rows.
            } else if matches!(chars.peek(), Some(']' | '_' | 'P' | '^' | 'X')) {
                // OSC, APC, DCS, PM, SOS: strings. A hyperlink is kept whole
                // (it takes no columns); the rest are dropped whole.
                let mut sequence = String::from("\x1b");
                for d in chars.by_ref() {
                    sequence.push(d);
                    if d == '\x07' || sequence.ends_with("\x1b\\") {
                        break;
                    }
                }
                // Only a hyperlink is kept (focus writes those itself), and
                // remembered to be closed and opened again across a cut.
                if let Some(target) = sequence.strip_prefix("\x1b]8;") {
                    let closes = target.starts_with(";\x07") || target.starts_with(";\x1b\\");
                    link = (!closes).then(|| sequence.clone());
                    row.push_str(&sequence);
                }
            } else {
                // A two-character escape (save or restore the cursor…).
                chars.next();
            }
            continue;
        }
        let (text, w): (String, usize) = if c == '\t' {
            let spaces = 4 - used % 4;
            (" ".repeat(spaces), spaces)
        } else if c.is_control() {
            continue;
        } else {
            (c.to_string(), char_width(c))
        };
        if used + w > width && used > 0 {
            if !open.is_empty() {
                row.push_str("\x1b[0m");
            }
            if link.is_some() {
                row.push_str(LINK_END);
            }
            rows.push(std::mem::take(&mut row));
            if let Some(link) = &link {
                row.push_str(link);
            }
            row.push_str(&open.concat());
            used = 0;
        }
        if c == '\t' {
            let room = width - used;
            let spaces = w.min(room);
            row.push_str(&text[..spaces]);
            used += spaces;
        } else {
            row.push_str(&text);
            used += w;
        }
    }
    rows.push(row);
    rows
}

/// The rows of `text` (lines split at `\n`, each split to `width`).
pub fn text_rows(text: &str, width: usize) -> Vec<String> {
    text.split('\n')
        .flat_map(|line| split_rows(line, width))
        .collect()
}

/// The rows of an editor's lines at `width`, and the row and column of the cursor
/// put at `(line, visible column)`. A cursor just past a full row goes to the
/// start of a row of its own (an empty one is added), where typing continues.
pub fn editor_rows(
    lines: &[String],
    cursor: (usize, usize),
    width: usize,
) -> (Vec<String>, (usize, usize)) {
    let width = width.max(2);
    let mut rows = Vec::new();
    let mut at = (0, 0);
    for (index, line) in lines.iter().enumerate() {
        let mut row = String::new();
        let mut used = 0;
        let mut seen = 0;
        for c in line.chars() {
            let w = char_width(c);
            if used + w > width && used > 0 {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            if index == cursor.0 && seen == cursor.1 && w > 0 {
                at = (rows.len(), used);
            }
            row.push(c);
            used += w;
            seen += w;
        }
        if index == cursor.0 && seen <= cursor.1 {
            if used >= width {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            at = (rows.len(), used);
        }
        rows.push(row);
    }
    if rows.is_empty() {
        rows.push(String::new());
    }
    (rows, at)
}

/// Word-wraps `text` (which may carry SGR styles) to `width` display columns:
/// escape sequences take no room, rows break at spaces (a word longer than a row
/// is cut), and rows after the first start with `indent` (plain spaces or a
/// styled marker). Styles open at a break are closed and reopened. An owned
/// `text` that fits is returned as it is, not copied.
pub fn wrap_styled<T: AsRef<str> + Into<String>>(
    text: T,
    width: usize,
    indent: &str,
) -> Vec<String> {
    let width = width.max(2);
    if visible_width(text.as_ref()) <= width {
        // Fits as it is (most lines): no word splitting.
        return vec![text.into()];
    }
    let text = text.as_ref();
    let indent_width = visible_width(indent);
    let mut rows: Vec<String> = Vec::new();
    let body = text.trim_start_matches(' ');
    let lead = (text.len() - body.len()).min(width / 2);
    let mut row = " ".repeat(lead);
    let mut used = lead;
    let mut first = true;
    // Words with the run of spaces before each (kept inside a row: aligned
    // columns stay aligned; dropped at a break).
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut gap = 0;
    for word in body.split(' ') {
        if word.is_empty() {
            gap += 1;
        } else {
            words.push((gap + 1, word));
            gap = 0;
        }
    }
    for (spaces, word) in words {
        let w = visible_width(word);
        if !first && used + spaces + w > width {
            rows.push(std::mem::take(&mut row));
            row.push_str(indent);
            used = indent_width;
        } else if !first {
            row.push_str(&" ".repeat(spaces));
            used += spaces;
        }
        first = false;
        if used + w > width {
            // Too long for any row: cut it, what is left on rows of its own.
            if used > indent_width && width - used < 4 {
                rows.push(std::mem::take(&mut row));
                row.push_str(indent);
                used = indent_width;
            }
            let pieces = split_rows(word, width.saturating_sub(used).max(1));
            let rest = pieces[1..].concat();
            row.push_str(&pieces[0]);
            used += visible_width(&pieces[0]);
            if !rest.is_empty() {
                for piece in split_rows(&rest, width.saturating_sub(indent_width).max(1)) {
                    rows.push(std::mem::take(&mut row));
                    row.push_str(indent);
                    used = indent_width + visible_width(&piece);
                    row.push_str(&piece);
                }
            }
        } else {
            row.push_str(word);
            used += w;
        }
    }
    rows.push(row);
    carry_styles(rows)
}

/// Closes the SGR styles open at the end of each row and reopens them at the
/// start of the next (so a row can be drawn, erased or copied alone).
fn carry_styles(rows: Vec<String>) -> Vec<String> {
    if rows.len() < 2 || !rows.iter().any(|r| r.contains('\x1b')) {
        return rows;
    }
    let mut open: Vec<String> = Vec::new();
    // A hyperlink open at a row's end is closed there and opened again too.
    let mut link: Option<String> = None;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let mut fixed = link.clone().unwrap_or_default();
        fixed.push_str(&open.concat());
        fixed.push_str(&row);
        let mut chars = row.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\x1b' && chars.peek() == Some(&'[') {
                chars.next();
                let mut sequence = String::from("\x1b[");
                for d in chars.by_ref() {
                    sequence.push(d);
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
                if sequence == "\x1b[0m" || sequence == "\x1b[m" {
                    open.clear();
                } else if sequence.ends_with('m') {
                    open.push(sequence);
                }
            } else if c == '\x1b' && chars.peek() == Some(&']') {
                let mut sequence = String::from("\x1b");
                for d in chars.by_ref() {
                    sequence.push(d);
                    if d == '\x07' || sequence.ends_with("\x1b\\") {
                        break;
                    }
                }
                if let Some(target) = sequence.strip_prefix("\x1b]8;") {
                    let closes = target.starts_with(";\x07") || target.starts_with(";\x1b\\");
                    link = if closes { None } else { Some(sequence) };
                }
            }
        }
        if !open.is_empty() {
            fixed.push_str("\x1b[0m");
        }
        if link.is_some() {
            fixed.push_str("\x1b]8;;\x1b\\");
        }
        out.push(fixed);
    }
    out
}

/// Splits `line` into pieces of at most `width` columns at spaces, keeping the
/// first piece's indentation (a word longer than the room left is cut, never inside
/// a wide character; runs of spaces between words become one). Text without spaces
/// (Chinese, Japanese) is cut wherever the width runs out.
pub fn wrap_words(line: &str, width: usize) -> Vec<String> {
    let width = width.max(2);
    if text_width(line) <= width {
        return vec![line.to_string()];
    }
    let (indent, body) = line.split_at(line.len() - line.trim_start().len());
    let mut pieces = Vec::new();
    let mut current = indent.to_string();
    let mut current_len = text_width(indent);
    let mut has_word = false;
    for word in body.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word;
        if has_word && current_len + 1 + text_width(word) > width {
            pieces.push(std::mem::take(&mut current));
            current_len = 0;
            has_word = false;
        }
        if has_word {
            current.push(' ');
            current_len += 1;
        }
        while current_len + text_width(word) > width {
            let (mut head, _) = fit(word, width.saturating_sub(current_len));
            if head.is_empty() && current_len == 0 {
                // Not even one character fits an empty row: take one anyway.
                head = word.chars().next().map_or("", |c| &word[..c.len_utf8()]);
            }
            current.push_str(head);
            pieces.push(std::mem::take(&mut current));
            current_len = 0;
            word = &word[head.len()..];
        }
        current.push_str(word);
        current_len += text_width(word);
        has_word = true;
    }
    if !current.is_empty() || pieces.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// Rows cut to the width where they are wider (a guard: callers wrap their text, but
/// a clipped line may end with an ellipsis past it); rows that fit are given back
/// as they are.
pub fn fit_rows(rows: Vec<String>, width: usize) -> Vec<String> {
    if rows.iter().all(|r| visible_width(r) <= width) {
        return rows;
    }
    // Only the rows too wide are cut: one that fits keeps every sequence it
    // has (an image's, which `split_rows` would drop).
    rows.into_iter()
        .flat_map(|r| {
            if visible_width(&r) <= width {
                vec![r]
            } else {
                split_rows(&r, width)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styled_text_wraps_on_what_shows() {
        // "**bold**" styled takes 4 columns, not 8: it fits.
        let text = "a \x1b[1mbold\x1b[0m word";
        assert_eq!(wrap_styled(text, 11, ""), [text]);
        assert_eq!(
            wrap_styled("one two three four", 9, "  "),
            ["one two", "  three", "  four"]
        );
        // Runs of spaces inside a row stay (aligned columns); a break drops them.
        assert_eq!(
            wrap_styled("  /model     list the models", 22, ""),
            ["  /model     list the", "models"]
        );
        let rows = wrap_styled("\x1b[2mdim words go on\x1b[0m", 9, "");
        assert_eq!(rows, ["\x1b[2mdim words\x1b[0m", "\x1b[2mgo on\x1b[0m"]);
        for width in 4..20 {
            for row in wrap_styled("中文 and a verylongwordthatwillnotfit 🚀 x", width, " ") {
                assert!(visible_width(&row) <= width, "{width}: {row:?}");
            }
        }
    }

    #[test]
    fn a_link_broken_across_rows_is_closed_and_reopened() {
        let open = "\x1b]8;;https://e.com\x1b\\";
        let close = "\x1b]8;;\x1b\\";
        let rows = wrap_styled(format!("{open}two words{close} after"), 5, "");
        assert_eq!(
            rows,
            [
                format!("{open}two{close}"),
                format!("{open}words{close}"),
                "after".to_string()
            ]
        );
    }

    #[test]
    fn a_cut_closes_a_link_and_opens_it_again() {
        let open = "\x1b]8;;https://e.com\x1b\\";
        let rows = split_rows(&format!("{open}abcd{LINK_END}e"), 2);
        assert_eq!(
            rows,
            [
                format!("{open}ab{LINK_END}"),
                format!("{open}cd{LINK_END}"),
                "e".to_string()
            ]
        );
        // Other strings (an image, a title) are dropped whole, as are
        // two-character escapes.
        assert_eq!(
            split_rows("a\x1b_Gm=0;QUJD\x1b\\b\x1b7c\x1bP1q\x07d", 9),
            ["abcd"]
        );
    }

    /// A row that fits keeps its sequences (an image's) when another is cut.
    #[test]
    fn fit_rows_cuts_only_the_rows_too_wide() {
        let image = "\x1b7\x1b[1A\x1b_Gm=0;QUJD\x1b\\\x1b8".to_string();
        let rows = fit_rows(vec![image.clone(), "abcdef".into()], 3);
        assert_eq!(rows, [image, "abc".into(), "def".into()]);
    }

    #[test]
    fn rows_never_exceed_the_width() {
        assert_eq!(split_rows("abcdefg", 3), ["abc", "def", "g"]);
        assert_eq!(split_rows("", 3), [""]);
        assert_eq!(split_rows("a你好", 4), ["a你", "好"]);
        for width in 1..12 {
            for row in split_rows("中文 and 🚀 emoji\tx, long enough to wrap", width) {
                assert!(visible_width(&row) <= width.max(2), "{width}: {row:?}");
            }
        }
    }

    #[test]
    fn styles_are_closed_and_reopened_across_a_cut() {
        let rows = split_rows("\x1b[1mabcd\x1b[0me", 2);
        assert_eq!(rows, ["\x1b[1mab\x1b[0m", "\x1b[1mcd\x1b[0m", "e"]);
    }

    #[test]
    fn cursor_moves_are_dropped_and_tabs_expand() {
        assert_eq!(split_rows("a\x1b[2Ab\rc", 10), ["abc"]);
        assert_eq!(split_rows("a\tb", 10), ["a   b"]);
    }

    #[test]
    fn editor_rows_and_the_cursor() {
        let lines = ["› abcdef".to_string()];
        assert_eq!(
            editor_rows(&lines, (0, 8), 4),
            (vec!["› ab".into(), "cdef".into(), "".into()], (2, 0))
        );
        assert_eq!(editor_rows(&lines, (0, 5), 4).1, (1, 1));
        let two = ["› a".to_string(), "  b".to_string()];
        assert_eq!(editor_rows(&two, (1, 3), 10).1, (1, 3));
        // A wide character that does not fit starts the next row.
        let wide = [format!("› a{}", "字".repeat(5))];
        assert_eq!(editor_rows(&wide, (0, 13), 10).1, (1, 4));
    }

    #[test]
    fn words_wrap_at_spaces_and_long_words_are_cut() {
        assert_eq!(wrap_words("short", 10), ["short"]);
        assert_eq!(
            wrap_words("one two three four", 9),
            ["one two", "three", "four"]
        );
        assert_eq!(wrap_words("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
        assert_eq!(
            wrap_words("- item with words", 8),
            ["- item", "with", "words"]
        );
        for piece in wrap_words("the quick brown fox jumps over the lazy dog", 7) {
            assert!(text_width(&piece) <= 7, "{piece:?}");
        }
    }

    #[test]
    fn wide_characters_wrap_by_columns() {
        assert_eq!(wrap_words("你好世界你好", 5), ["你好", "世界", "你好"]);
        assert_eq!(wrap_words("看 README 文件", 8), ["看", "README", "文件"]);
        assert_eq!(wrap_words("ab 你好世界", 5), ["ab", "你好", "世界"]);
        for width in 2..12 {
            for piece in wrap_words("中文和 English 混排的一行文字，很长很长。", width)
            {
                assert!(text_width(&piece) <= width, "{width}: {piece:?}");
            }
        }
    }
}
