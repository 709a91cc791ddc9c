//! A picker: a list of entries filtered by a fuzzy query ([`crate::fuzzy`]),
//! one of them selected, shown above the editor in a few rows. It knows nothing
//! of what its entries are: the program using it gives it labels, asks
//! it for its rows, and acts on what [`Picker::key`] says was chosen.
//!
//! Keys: Up and Down move by one (wrapping around), PageUp and PageDown by
//! the rows shown, Enter chooses, Tab completes (the UI decides what that
//! means), Esc closes. Everything shown is made printable: labels may be file
//! names or model ids, which can hold escape sequences.

use crate::fuzzy;
use crate::keys::Key;
use crate::printable::clip;
use crate::style::Style;
use crate::width::text_width;
use std::sync::Arc;

/// One entry: what is matched and shown, and a dim note after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Matched against the query and shown.
    pub label: String,
    /// Shown dim after the label (not matched).
    pub detail: String,
}

impl Item {
    /// An entry with a label and a detail.
    pub fn new(label: impl Into<String>, detail: impl Into<String>) -> Item {
        Item {
            label: label.into(),
            detail: detail.into(),
        }
    }
}

/// What a key did to the picker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The picker used the key (moved); it stays open.
    Moved,
    /// Enter on an entry: its index in the items.
    Chosen(usize),
    /// Tab on an entry: its index in the items.
    Completed(usize),
    /// Enter or Tab with nothing matching.
    NoMatch,
    /// Esc: close it.
    Cancelled,
    /// Not a picker key: the caller handles it (typing, editing).
    Other,
}

/// How many matches are ranked when the query changes: more than a picker
/// shows (12 rows at most, the title one of them).
const RANKED_FIRST: usize = 16;

/// A list filtered as you type.
#[derive(Debug)]
pub struct Picker {
    title: String,
    /// Shared: the `@` picker's 100,000 files are listed once, not copied
    /// each time it opens.
    items: Arc<Vec<Item>>,
    /// The labels, packed for the matcher (built once, or kept with a list
    /// shared by several pickers).
    labels: Arc<fuzzy::Packed>,
    query: String,
    /// Indices into `items` of every match, not ranked (the count, and what a
    /// longer query looks at again).
    matches: Vec<usize>,
    /// The best matches, best first: the first of the full ranking, as many
    /// as shown until the selection goes further (then all of them).
    ranked: Vec<usize>,
    /// Index into `ranked`.
    selected: usize,
    /// The first match shown.
    top: usize,
    /// How many entries the last [`Picker::rows`] showed (a page).
    page: usize,
}

impl Picker {
    /// A picker over `items`, everything matching.
    pub fn new(title: impl Into<String>, items: Vec<Item>) -> Picker {
        Picker::shared(title, Arc::new(items))
    }

    /// A picker over a list kept elsewhere too.
    pub fn shared(title: impl Into<String>, items: Arc<Vec<Item>>) -> Picker {
        let labels = Arc::new(Picker::pack(&items));
        Picker::packed(title, items, labels)
    }

    /// The labels of `items`, packed for the matcher: what
    /// [`Picker::packed`] takes (packing 100,000 labels takes a while: a list
    /// kept for several pickers is packed once, in the background).
    pub fn pack(items: &[Item]) -> fuzzy::Packed {
        fuzzy::Packed::new(items.iter().map(|i| i.label.as_str()))
    }

    /// A picker over a list kept elsewhere, its labels already packed (by
    /// [`Picker::pack`], from the same items).
    pub fn packed(
        title: impl Into<String>,
        items: Arc<Vec<Item>>,
        labels: Arc<fuzzy::Packed>,
    ) -> Picker {
        let mut picker = Picker {
            labels,
            title: title.into(),
            matches: Vec::new(),
            ranked: Vec::new(),
            items,
            query: String::new(),
            selected: 0,
            top: 0,
            page: 8,
        };
        picker.refilter();
        picker
    }

    /// The query.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// Filters by a new query (the selection goes back to the best match).
    pub fn set_query(&mut self, query: &str) {
        if query == self.query {
            return;
        }
        // A longer query matches a subset of what the shorter one matched:
        // only those are scored again.
        let narrowing = !self.query.is_empty() && query.starts_with(self.query.as_str());
        self.query = query.to_string();
        if narrowing {
            let previous = std::mem::take(&mut self.matches);
            self.filter(previous.into_iter());
        } else {
            self.refilter();
        }
    }

    /// Ranks the matches in `among` (the best [`RANKED_FIRST`] only), the
    /// selection back on the best.
    fn filter(&mut self, among: impl Iterator<Item = usize>) {
        let found = fuzzy::top(&self.query, &*self.labels, among, RANKED_FIRST);
        self.matches = found.matches;
        self.ranked = found.best;
        self.selected = 0;
        self.top = 0;
    }

    /// Makes sure the first `count` matches are ranked: past the first few,
    /// all of them are (once per query, when the selection or the view goes
    /// that far).
    fn rank_to(&mut self, count: usize) {
        if count > self.ranked.len() && self.ranked.len() < self.matches.len() {
            self.ranked =
                fuzzy::rank_among(&self.query, &*self.labels, self.matches.iter().copied());
        }
    }

    /// Selects the entry labelled `label`, if it matches (the view follows).
    pub fn select_label(&mut self, label: &str) {
        if !self.ranked.iter().any(|&i| self.items[i].label == label) {
            self.rank_to(self.matches.len());
        }
        if let Some(at) = self
            .ranked
            .iter()
            .position(|&i| self.items[i].label == label)
        {
            self.selected = at;
        }
    }

    /// Selects the entry at `index` of the items, if it matches.
    pub fn select_index(&mut self, index: usize) {
        if !self.ranked.contains(&index) {
            self.rank_to(self.matches.len());
        }
        if let Some(at) = self.ranked.iter().position(|&i| i == index) {
            self.selected = at;
        }
    }

    /// How many entries match.
    pub fn match_count(&self) -> usize {
        self.matches.len()
    }

    /// The selected entry.
    pub fn selected(&self) -> Option<&Item> {
        self.ranked.get(self.selected).map(|&i| &self.items[i])
    }

    fn refilter(&mut self) {
        self.filter(0..self.items.len());
    }

    /// Applies a navigation key; see [`Outcome`].
    pub fn key(&mut self, key: &Key) -> Outcome {
        let count = self.matches.len();
        let page = self.page.max(1);
        match key {
            Key::Up if count > 0 => self.selected = (self.selected + count - 1) % count,
            Key::Down if count > 0 => self.selected = (self.selected + 1) % count,
            Key::PageUp => self.selected = self.selected.saturating_sub(page),
            Key::PageDown if count > 0 => self.selected = (self.selected + page).min(count - 1),
            Key::Up | Key::Down | Key::PageDown => {}
            Key::Enter | Key::Tab => {
                return match self.ranked.get(self.selected) {
                    Some(&i) if *key == Key::Enter => Outcome::Chosen(i),
                    Some(&i) => Outcome::Completed(i),
                    None => Outcome::NoMatch,
                }
            }
            Key::Esc => return Outcome::Cancelled,
            _ => return Outcome::Other,
        }
        self.rank_to(self.selected + 1);
        Outcome::Moved
    }

    /// Edits the query with a typed key (for a picker with no input of its own
    /// to follow); whether the key was one.
    pub fn type_key(&mut self, key: &Key) -> bool {
        let mut query = self.query.clone();
        match key {
            Key::Char(c) => query.push(*c),
            Key::Paste(text) => query.extend(text.chars().filter(|c| !c.is_control())),
            Key::Backspace => {
                query.pop();
            }
            Key::Ctrl('u') => query.clear(),
            _ => return false,
        }
        self.set_query(&query);
        true
    }

    /// The picker's rows for a window `width` columns wide, at most `max_rows`
    /// (at least two: the title and one entry): a title with the query and the
    /// count, then the entries in view, the selected one marked `❯`.
    pub fn rows(&mut self, width: usize, max_rows: usize, style: Style) -> Vec<String> {
        let shown = max_rows.max(2) - 1;
        self.page = shown;
        if self.selected < self.top {
            self.top = self.selected;
        }
        if self.selected >= self.top + shown {
            self.top = self.selected + 1 - shown;
        }
        self.rank_to(self.top + shown);
        let width = width.max(12);
        let count = if self.matches.len() == self.items.len() {
            format!("{}", self.items.len())
        } else {
            format!("{} of {}", self.matches.len(), self.items.len())
        };
        let query = if self.query.is_empty() {
            String::new()
        } else {
            format!(" “{}”", self.query)
        };
        let title = format!(
            "{}{query} · {count} · ↑↓ PgUp PgDn · Enter · Tab · Esc",
            self.title
        );
        // (`clip` adds its `…` after the columns it is given.)
        let mut rows = vec![style.bold(&clip(&title, width - 1))];
        if self.matches.is_empty() {
            rows.push(style.dim("  (nothing matches)"));
            return rows;
        }
        // Details start in one column: after the widest label in view, at most
        // two fifths of the width in.
        let in_view = || self.ranked.iter().skip(self.top).take(shown);
        let label_column = in_view()
            .map(|&i| text_width(&clip(&self.items[i].label, width - 3)))
            .max()
            .unwrap_or(0)
            .min(width * 2 / 5);
        for (at, &i) in self.ranked.iter().enumerate().skip(self.top).take(shown) {
            let item = &self.items[i];
            let mark = if at == self.selected { "❯ " } else { "  " };
            let label = clip(&item.label, width - 3);
            let pad = label_column.saturating_sub(text_width(&label));
            let used = 2 + text_width(&label) + pad;
            let mut row = format!("{mark}{label}");
            if !item.detail.is_empty() && used + 4 < width {
                let detail = clip(&item.detail, width - used - 3);
                row = format!("{row}{}  {}", " ".repeat(pad), style.dim(&detail));
            }
            rows.push(if at == self.selected {
                style.bold(&row)
            } else {
                row
            });
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picker(n: usize) -> Picker {
        let items = (0..n)
            .map(|i| Item::new(format!("item-{i:02}"), format!("#{i}")))
            .collect();
        Picker::new("things", items)
    }

    #[test]
    fn typing_filters_and_the_best_match_comes_first() {
        let mut p = Picker::new(
            "files",
            vec![
                Item::new("src/main.rs", ""),
                Item::new("docs/manual.md", ""),
                Item::new("Makefile", ""),
            ],
        );
        assert_eq!(p.match_count(), 3);
        p.set_query("man");
        assert_eq!(p.match_count(), 2);
        assert_eq!(p.selected().unwrap().label, "docs/manual.md");
        // "man." : the run "n." of "main.rs" outweighs the longer run of "manual".
        assert!(p.type_key(&Key::Char('.')));
        assert_eq!(p.query(), "man.");
        assert_eq!(p.selected().unwrap().label, "src/main.rs");
        assert!(p.type_key(&Key::Backspace));
        assert!(p.type_key(&Key::Char('z')));
        assert_eq!(p.match_count(), 0);
        assert_eq!(p.key(&Key::Enter), Outcome::NoMatch);
        assert!(!p.type_key(&Key::Up));
    }

    #[test]
    fn narrowing_a_query_finds_what_a_fresh_filter_finds() {
        let items: Vec<Item> = [
            "src/main.rs",
            "src/mod.rs",
            "docs/model.md",
            "Makefile",
            "m",
        ]
        .iter()
        .map(|l| Item::new(*l, ""))
        .collect();
        let mut typed = Picker::new("files", items.clone());
        for query in ["m", "mo", "mod", "mod."] {
            typed.set_query(query);
            let mut fresh = Picker::new("files", items.clone());
            fresh.set_query(query);
            assert_eq!(typed.ranked, fresh.ranked, "{query}");
            assert_eq!(typed.match_count(), fresh.match_count(), "{query}");
        }
        assert_eq!(typed.match_count(), 2);
    }

    #[test]
    fn arrows_wrap_and_pages_stop_at_the_ends() {
        let mut p = picker(30);
        let style = Style::PLAIN;
        p.rows(80, 6, style); // 5 entries a page
        assert_eq!(p.key(&Key::Up), Outcome::Moved);
        assert_eq!(p.selected().unwrap().label, "item-29");
        assert_eq!(p.key(&Key::Down), Outcome::Moved);
        assert_eq!(p.selected().unwrap().label, "item-00");
        p.key(&Key::PageDown);
        assert_eq!(p.selected().unwrap().label, "item-05");
        for _ in 0..10 {
            p.key(&Key::PageDown);
        }
        assert_eq!(p.selected().unwrap().label, "item-29");
        p.key(&Key::PageUp);
        assert_eq!(p.selected().unwrap().label, "item-24");
        assert_eq!(p.key(&Key::Enter), Outcome::Chosen(24));
        assert_eq!(p.key(&Key::Tab), Outcome::Completed(24));
        assert_eq!(p.key(&Key::Esc), Outcome::Cancelled);
        assert_eq!(p.key(&Key::Char('x')), Outcome::Other);
        p.select_index(3);
        assert_eq!(p.selected().unwrap().label, "item-03");
    }

    #[test]
    fn rows_fit_and_keep_the_selection_in_view() {
        let mut p = picker(30);
        let style = Style::PLAIN;
        for _ in 0..12 {
            p.key(&Key::Down);
        }
        let rows = p.rows(40, 5, style);
        assert_eq!(rows.len(), 5);
        assert!(rows[0].starts_with("things · 30"), "{rows:?}");
        assert!(rows.iter().any(|r| r.starts_with("❯ item-12")), "{rows:?}");
        for row in &rows {
            assert!(text_width(row) <= 40, "{row:?}");
        }
        // At most two rows even when asked for fewer.
        assert_eq!(p.rows(40, 0, style).len(), 2);
    }

    #[test]
    fn details_start_in_one_column() {
        let items = vec![
            Item::new("/new", "start a new session"),
            Item::new("/hotkeys", "the keys and what they do"),
            Item::new("/q", ""),
        ];
        let mut p = Picker::new("commands", items);
        let rows = p.rows(60, 5, Style::PLAIN);
        assert_eq!(rows[1], "❯ /new      start a new session");
        assert_eq!(rows[2], "  /hotkeys  the keys and what they do");
        assert_eq!(rows[3], "  /q");
    }

    #[test]
    fn labels_are_shown_printable() {
        let mut p = Picker::new(
            "files",
            vec![Item::new("evil\x1b[2Jname\x07", "\x1b]0;t\x07")],
        );
        let rows = p.rows(60, 4, Style::PLAIN);
        for row in &rows {
            assert!(!row.contains('\x1b') && !row.contains('\x07'), "{row:?}");
        }
        assert!(rows[1].contains("evil"), "{rows:?}");
    }
}
