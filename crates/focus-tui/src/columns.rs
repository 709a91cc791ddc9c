//! Two aligned columns (a key and what it does, a command and its
//! description) laid out for a width: the second column starts at the same
//! place on every row and its text wraps within it, never back to column 0.
//!
//! A note marks such rows with [`COLUMN`] between the two cells: the note is
//! laid out again at every width (a resize keeps the table aligned).

use crate::rows::wrap_styled;
use crate::width::visible_width;

/// Between the two cells of a row of a note that is a two-column table (a
/// control character: text from outside is sanitized of it before it becomes
/// a note, so only focus's own tables carry it).
pub const COLUMN: char = '\u{1f}';

/// The fewest columns the second column gets beside the first; narrower, each
/// description goes under its key instead.
const MIN_SECOND: usize = 16;

/// The rows of a note `text` at `width`: runs of lines holding [`COLUMN`] as
/// two aligned columns, other lines wrapped as they are.
pub fn note_rows(text: &str, width: usize) -> Vec<String> {
    let mut rows = Vec::new();
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for line in text.split('\n') {
        match line.split_once(COLUMN) {
            Some(pair) => pairs.push(pair),
            None => {
                rows.extend(two_columns(&std::mem::take(&mut pairs), width));
                rows.extend(wrap_styled(line, width, ""));
            }
        }
    }
    rows.extend(two_columns(&pairs, width));
    rows
}

/// `pairs` as two aligned columns in `width` (the first as wide as its widest
/// cell, at most two fifths of the width; a cell wider wraps in its column),
/// two spaces apart. When the second column would get fewer than 16 columns,
/// each second cell goes on its own rows under the first, indented.
pub fn two_columns(pairs: &[(&str, &str)], width: usize) -> Vec<String> {
    let width = width.max(4);
    let first = pairs
        .iter()
        .map(|(a, _)| visible_width(a))
        .max()
        .unwrap_or(0)
        .min(width * 2 / 5)
        .max(1);
    let second = width.saturating_sub(first + 2);
    let mut rows = Vec::new();
    for (a, b) in pairs {
        if second < MIN_SECOND {
            rows.extend(wrap_styled(*a, width, "  "));
            rows.extend(wrap_styled(format!("      {b}"), width, "      "));
            continue;
        }
        let left = wrap_styled(*a, first, "");
        let right = wrap_styled(*b, second, "");
        for i in 0..left.len().max(right.len()) {
            let l = left.get(i).map_or("", String::as_str);
            let r = right.get(i).map_or("", String::as_str);
            let pad = first.saturating_sub(visible_width(l));
            rows.push(
                format!("{l}{}  {r}", " ".repeat(pad))
                    .trim_end()
                    .to_string(),
            );
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_wrap_within_their_column() {
        let pairs = [
            ("  Ctrl+C", "clear the editor; twice in a row quits focus"),
            ("  Esc", "abort"),
        ];
        let rows = two_columns(&pairs, 30);
        assert_eq!(
            rows,
            [
                "  Ctrl+C  clear the editor;",
                "          twice in a row quits",
                "          focus",
                "  Esc     abort",
            ]
        );
        for width in [20, 40, 80] {
            for row in two_columns(&pairs, width) {
                assert!(visible_width(&row) <= width, "{width}: {row:?}");
            }
        }
    }

    #[test]
    fn too_narrow_a_second_column_goes_under_the_first() {
        let rows = two_columns(&[("  Ctrl+Shift+P", "cycle the models backwards")], 20);
        assert_eq!(
            rows,
            [
                "  Ctrl+Shift+P",
                "      cycle the",
                "      models",
                "      backwards"
            ]
        );
    }

    #[test]
    fn a_note_lays_out_its_marked_lines_only() {
        let text = format!("Keys:\n  a{COLUMN}one\n  bb{COLUMN}two\nafter");
        assert_eq!(
            note_rows(&text, 40),
            ["Keys:", "  a   one", "  bb  two", "after"]
        );
    }
}
