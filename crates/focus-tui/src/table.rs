//! Markdown tables laid out for a width without losing a value: as a grid when
//! every column gets a fair share of the width (text wraps inside its cell), else
//! as one block per row of `header: value` pairs. No cell is ever cut short.

use crate::links::{Host, Resolve};
use crate::markdown::inline_linked;
use crate::rows::wrap_styled;
use crate::style::Style;
use crate::width::visible_width;

/// The fewest columns a grid column gets before the table turns into blocks
/// (a column narrower than its text and than this is not readable).
const MIN_COLUMN: usize = 6;

/// Lays out a table's lines in `width` columns: a grid with the header bold and
/// ruled off, cells wrapped inside their column when they must be; or, when
/// the columns cannot all get 6 columns (or their whole text), blocks of
/// `header: value` pairs, one block per row.
pub fn table(lines: &[&str], style: Style, width: usize, hyperlinks: bool) -> Vec<String> {
    table_linked(lines, style, width, hyperlinks.then_some(None))
}

/// [`table`] with links as [`inline_linked`] takes them: `Some` writes
/// hyperlinks (paths too, with a resolver).
pub fn table_linked(
    lines: &[&str],
    style: Style,
    width: usize,
    links: Option<Option<(Resolve, Host)>>,
) -> Vec<String> {
    let (rows, header_rows) = parse(lines, style, links);
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    if columns == 0 {
        return Vec::new();
    }
    let mut natural = vec![1usize; columns];
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            natural[i] = natural[i].max(visible_width(cell));
        }
    }
    let room = width.saturating_sub(3 * (columns - 1));
    let widths = fair_widths(&natural, room);
    let readable = widths
        .iter()
        .zip(&natural)
        .all(|(w, n)| *w >= (*n).min(MIN_COLUMN));
    if readable && widths.iter().sum::<usize>() <= room {
        grid(&rows, header_rows, &widths, style)
    } else {
        blocks(&rows, header_rows, style, width.max(2))
    }
}

/// The rows of styled cells and how many of them are header rows (those above
/// the `|---|` line; none without one).
fn parse(
    lines: &[&str],
    style: Style,
    links: Option<Option<(Resolve, Host)>>,
) -> (Vec<Vec<String>>, usize) {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header_rows = 0;
    for line in lines {
        let cells = split_cells(line);
        if cells.iter().all(|c| {
            let c = c.trim();
            !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' '))
        }) {
            header_rows = rows.len();
            continue;
        }
        rows.push(
            cells
                .iter()
                .map(|c| inline_linked(c.trim(), style, links))
                .collect(),
        );
    }
    (rows, header_rows)
}

/// Column widths that share `room` fairly: columns that need less than an even
/// share get what they need, the rest split what is left evenly.
fn fair_widths(natural: &[usize], room: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..natural.len()).collect();
    order.sort_by_key(|&i| natural[i]);
    let mut widths = vec![0; natural.len()];
    let mut left = room;
    for (done, &i) in order.iter().enumerate() {
        let share = left / (natural.len() - done);
        widths[i] = natural[i].min(share);
        left -= widths[i];
    }
    widths
}

/// The table as a grid: each cell wrapped to its column, a row as high as its
/// tallest cell.
fn grid(rows: &[Vec<String>], header_rows: usize, widths: &[usize], style: Style) -> Vec<String> {
    let separator = style.dim(" │ ");
    let mut out = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<Vec<String>> = widths
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let cell = row.get(i).map_or("", String::as_str);
                let cell = if r < header_rows {
                    style.bold(cell)
                } else {
                    cell.to_string()
                };
                wrap_styled(cell, *w, "")
            })
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for line in 0..height {
            let parts: Vec<String> = cells
                .iter()
                .zip(widths)
                .map(|(cell, w)| {
                    let text = cell.get(line).map_or("", String::as_str);
                    let pad = w.saturating_sub(visible_width(text));
                    format!("{text}{}", " ".repeat(pad))
                })
                .collect();
            out.push(parts.join(&separator).trim_end().to_string());
        }
        if r + 1 == header_rows {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push(style.dim(&rule.join("─┼─")));
        }
    }
    out
}

/// The table as blocks: one per body row, its `header: value` pairs packed on
/// rows of `width` (a pair longer than a row wraps, indented), a dim rule
/// between blocks. Without a header, the column's number is the key.
fn blocks(rows: &[Vec<String>], header_rows: usize, style: Style, width: usize) -> Vec<String> {
    let headers: Vec<String> = rows
        .get(..header_rows)
        .map_or(Vec::new(), |h| h.last().cloned().unwrap_or_default());
    let gap = style.dim(" · ");
    let mut out = Vec::new();
    for (r, row) in rows.iter().enumerate().skip(header_rows) {
        if r > header_rows {
            out.push(style.dim(&"─".repeat(width.min(20))));
        }
        let mut line = String::new();
        for (i, value) in row.iter().enumerate() {
            let key = match headers.get(i).filter(|h| !h.is_empty()) {
                Some(h) => h.clone(),
                None => (i + 1).to_string(),
            };
            let pair = format!("{}: {value}", style.bold(&key));
            let pair_width = visible_width(&pair);
            let line_width = visible_width(&line);
            if !line.is_empty() && line_width + 3 + pair_width <= width {
                line.push_str(&gap);
                line.push_str(&pair);
                continue;
            }
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
            }
            if pair_width <= width {
                line = pair;
            } else {
                out.extend(wrap_styled(pair, width, "  "));
            }
        }
        if !line.is_empty() {
            out.push(line);
        }
    }
    out
}

/// The cells of `| a | b |` (a `\|` stays in its cell).
fn split_cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for c in t.chars() {
        match c {
            '|' if !escaped => cells.push(String::new()),
            '\\' if !escaped => escaped = true,
            _ => {
                if escaped && c != '|' {
                    cells.last_mut().unwrap_or(&mut String::new()).push('\\');
                }
                escaped = false;
                if let Some(cell) = cells.last_mut() {
                    cell.push(c);
                }
            }
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The visible text of rows, joined, without the layout's own marks.
    fn words(rows: &[String]) -> String {
        rows.join(" ")
    }

    #[test]
    fn a_table_that_fits_is_a_grid() {
        let lines = [
            "| name | size |",
            "|---|--:|",
            "| a | 1 |",
            "| longer **x** | 22 |",
        ];
        let out = table(&lines, Style::PLAIN, 80, false);
        assert_eq!(
            out,
            [
                "name     │ size",
                "─────────┼─────",
                "a        │ 1",
                "longer x │ 22"
            ]
        );
    }

    /// Paths and URLs in cells are links; a link's sequences take no room,
    /// so the grid is laid out as without them.
    #[test]
    fn cells_link_their_paths_and_urls() {
        fn resolve(path: &str) -> Option<std::path::PathBuf> {
            (path == "src/a.rs").then(|| "/w/src/a.rs".into())
        }
        let lines = [
            "| file | docs |",
            "|---|---|",
            "| src/a.rs:3 | https://e.com/x. |",
        ];
        let links = Some(Some((resolve as Resolve, Host::new("h"))));
        let out = table_linked(&lines, Style::PLAIN, 80, links);
        let plain = table(&lines, Style::PLAIN, 80, false);
        assert_eq!(
            out[2],
            "\x1b]8;;file://h/w/src/a.rs\x1b\\src/a.rs:3\x1b]8;;\x1b\\ │ \
             \x1b]8;;https://e.com/x\x1b\\https://e.com/x\x1b]8;;\x1b\\."
        );
        assert_eq!(plain[2], "src/a.rs:3 │ https://e.com/x.");
        assert_eq!(out[..2], plain[..2]);
    }

    #[test]
    fn long_cells_wrap_inside_their_column() {
        let lines = [
            "| key | text |",
            "|---|---|",
            "| k1 | a long sentence that cannot fit in one row here |",
        ];
        let out = table(&lines, Style::PLAIN, 30, false);
        for row in &out {
            assert!(visible_width(row) <= 30, "{row:?}");
        }
        // The second column starts at the same place on every row of the cell.
        assert!(out[2].starts_with("k1  │ a long"), "{out:?}");
        assert!(out[3].starts_with("    │ "), "{out:?}");
        let text: String = out[2..]
            .iter()
            .map(|r| &r[7..])
            .collect::<Vec<_>>()
            .join(" ");
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(text, "a long sentence that cannot fit in one row here");
        assert!(!words(&out).contains('…'));
    }

    #[test]
    fn columns_share_the_width_fairly() {
        assert_eq!(fair_widths(&[3, 50, 50], 43), [3, 20, 20]);
        assert_eq!(fair_widths(&[3, 4], 43), [3, 4]);
    }

    #[test]
    fn a_table_too_wide_becomes_header_value_blocks() {
        let header: Vec<String> = (1..=12).map(|i| format!("Column{i}")).collect();
        let cells: Vec<String> = (1..=12)
            .map(|i| {
                if i % 3 == 0 {
                    format!("数据{i}号")
                } else {
                    format!("value{i}")
                }
            })
            .collect();
        let lines = [
            format!("| {} |", header.join(" | ")),
            format!("|{}|", ["---"; 12].join("|")),
            format!("| {} |", cells.join(" | ")),
            format!("| {} |", cells.join(" | ")),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = table(&lines, Style::PLAIN, 80, false);
        for row in &out {
            assert!(visible_width(row) <= 80, "{row:?}");
        }
        let all = words(&out);
        assert!(!all.contains('…'), "{out:#?}");
        for (h, c) in header.iter().zip(&cells) {
            assert_eq!(all.matches(&format!("{h}: {c}")).count(), 2, "{out:#?}");
        }
    }

    #[test]
    fn wide_characters_never_overflow() {
        let lines = [
            "| 名前 | 説明 |",
            "|---|---|",
            "| 東京 | 日本の首都で人口が最も多い都市 |",
        ];
        for width in [12, 16, 20, 30] {
            let out = table(&lines, Style::PLAIN, width, false);
            for row in &out {
                assert!(visible_width(row) <= width, "{width}: {row:?}");
            }
            let all: String = words(&out).replace([' ', '│', '─', '┼', ':'], "");
            assert!(
                all.contains("日本の首都で人口が最も多い都市"),
                "{width}: {out:?}"
            );
        }
    }
}
