//! The footer line laid out for a width: every item has forms from longest to
//! shortest and a rank; while the line is too wide, the lowest-ranked item that
//! can still be shortened is, and only when none can is the lowest-ranked item
//! dropped. The ranks the interactive view gives: tokens and cost, then the model,
//! then context, then thinking, then the rest, hints last.

use crate::terminal::width::{clip_to, text_width};

/// One item of the footer.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// What it shows, longest first (at least one form).
    pub forms: Vec<String>,
    /// How much it matters: the lowest goes first.
    pub rank: u8,
}

impl Item {
    /// An item of `rank` with `forms`, longest first.
    pub fn new(rank: u8, forms: &[String]) -> Item {
        Item {
            forms: forms.to_vec(),
            rank,
        }
    }
}

/// `mark` followed by the items joined with ` · ` in `width` columns: forms
/// shortened, then items dropped, lowest rank first (what still does not fit
/// is clipped).
pub fn layout(mark: &str, mut items: Vec<Item>, width: usize) -> String {
    items.retain(|item| !item.forms.is_empty());
    let mut chosen = vec![0usize; items.len()];
    loop {
        let line = join(mark, &items, &chosen);
        if text_width(&line) <= width || items.is_empty() {
            return clip_to(&line, width);
        }
        let shorter = (0..items.len())
            .filter(|&i| chosen[i] + 1 < items[i].forms.len())
            .min_by_key(|&i| items[i].rank);
        match shorter {
            Some(i) => chosen[i] += 1,
            None => {
                let lowest = (0..items.len()).min_by_key(|&i| items[i].rank).unwrap_or(0);
                items.remove(lowest);
                chosen.remove(lowest);
            }
        }
    }
}

/// The line with each item in its chosen form.
fn join(mark: &str, items: &[Item], chosen: &[usize]) -> String {
    let parts: Vec<&str> = items
        .iter()
        .zip(chosen)
        .map(|(item, &c)| item.forms[c].as_str())
        .collect();
    if parts.is_empty() {
        mark.to_string()
    } else {
        format!("{mark} {}", parts.join(" · "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(rank: u8, forms: &[&str]) -> Item {
        let forms: Vec<String> = forms.iter().map(|f| f.to_string()).collect();
        Item::new(rank, &forms)
    }

    /// A footer as the view builds it (ranks as in `view.rs`).
    fn footer() -> Vec<Item> {
        vec![
            item(
                8,
                &[
                    "anthropic/claude-sonnet-4-5",
                    "claude-sonnet-4-5",
                    "claude-so…",
                ],
            ),
            item(7, &["thinking medium", "th medium"]),
            item(10, &["↑12.3k ↓4.5k $0.123", "↑12.3k↓4.5k $0.12"]),
            item(8, &["ctx 6.2% of 200.0k", "ctx 6.2%", "6%"]),
            item(6, &["ask"]),
            item(5, &["⎇ feature/footer-priorities", "⎇ feature/f…"]),
            item(3, &["Esc aborts", "Esc"]),
        ]
    }

    #[test]
    fn at_200_columns_everything_shows_whole() {
        assert_eq!(
            layout("●", footer(), 200),
            "● anthropic/claude-sonnet-4-5 · thinking medium · ↑12.3k ↓4.5k $0.123 · \
             ctx 6.2% of 200.0k · ask · ⎇ feature/footer-priorities · Esc aborts"
        );
    }

    #[test]
    fn at_80_columns_items_are_shortened_and_none_dropped() {
        let line = layout("●", footer(), 80);
        assert!(text_width(&line) <= 80, "{line}");
        assert_eq!(
            line,
            "● claude-so… · th medium · ↑12.3k ↓4.5k $0.123 · 6% · ask · ⎇ feature/f… · Esc"
        );
    }

    #[test]
    fn at_60_columns_numbers_stay_and_hints_go() {
        let line = layout("●", footer(), 60);
        assert!(text_width(&line) <= 60, "{line}");
        assert_eq!(
            line,
            "● claude-so… · th medium · ↑12.3k↓4.5k $0.12 · 6% · ask"
        );
    }

    #[test]
    fn at_40_columns_cost_tokens_and_context_stay() {
        let line = layout("●", footer(), 40);
        assert!(text_width(&line) <= 40, "{line}");
        assert_eq!(line, "● claude-so… · ↑12.3k↓4.5k $0.12 · 6%");
    }

    #[test]
    fn at_20_columns_cost_and_tokens_are_what_is_left() {
        let line = layout("●", footer(), 20);
        assert!(text_width(&line) <= 20, "{line}");
        assert_eq!(line, "● ↑12.3k↓4.5k $0.12");
    }

    #[test]
    fn nothing_is_dropped_while_something_can_be_shortened() {
        let items = vec![item(1, &["aaaa"]), item(9, &["bbbbbbbb", "b"])];
        assert_eq!(layout("●", items, 10), "● aaaa · b");
    }
}
