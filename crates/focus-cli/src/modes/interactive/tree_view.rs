//! `/tree`: the full-screen navigator of the session tree (pi's signature
//! feature). The rows come from [`super::tree_rows`]; this file holds the keys
//! and the drawing (within the window, the selection kept in view); the moves
//! they ask for are [`super::tree_moves`]'s.
//!
//! Keys ([`TREE_KEYS`], shown in docs/cli.md): Up/Down, PageUp/PageDown,
//! Home/End move; Left folds (or goes to the parent), Right unfolds (or goes to
//! the first child), Space folds or unfolds; `/` searches as you type; Ctrl+O
//! or `f` cycles the filters; `l` sets the selected entry's label (empty
//! clears it); Enter moves there and shows the conversation again; Esc clears
//! the search, else closes.
//!
//! Moving away from the current branch asks "Summarize branch? [y/n]" (unless
//! the `branchSummary.skipPrompt` setting says not to ask): the summary is a
//! model call made on a thread of its own (the screen lives, Esc cancels), then
//! recorded where the conversation goes on, as pi does.

use super::tree_rows::{NodeKind, TreeRows};
use crate::terminal::style::Style;
use crate::terminal::width::{clip_to, text_width};
use focus_tui::keys::Key;

/// The navigator's keys: how docs/cli.md names them and what they do.
pub const TREE_KEYS: &[(&str, &str)] = &[
    ("Up, Down", "move by one entry"),
    ("PageUp, PageDown, Home, End", "move by a page, to the first or last entry"),
    ("Left", "fold the entry's subtree, or go to its parent"),
    ("Right", "unfold the entry's subtree, or go to its first child"),
    ("Space", "fold or unfold"),
    ("/", "search as you type (Enter keeps the search, Esc drops it)"),
    (
        "Ctrl+O, f",
        "next filter: default, no tools, user only, labelled only, all",
    ),
    ("l", "label the entry (an empty label clears it)"),
    (
        "Enter",
        "continue from the entry (your message returns to the editor); leaving a branch asks \"Summarize branch? [y/n]\"",
    ),
    ("Esc", "drop the search, else close"),
];

/// What the keys go to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Moving around.
    Browse,
    /// Typing the search.
    Search,
    /// Typing a label for the selected entry.
    Label(String),
    /// "Summarize branch? [y/n]" before moving to a node.
    Confirm(u32),
}

/// The open navigator.
#[derive(Debug)]
pub struct TreeView {
    pub(super) rows: TreeRows,
    pub(super) selected: usize,
    top: usize,
    page: usize,
    pub(super) mode: Mode,
}

/// What a key asked the UI to do.
pub(super) enum Done {
    /// Nothing more: redraw.
    Stay,
    /// Close the navigator.
    Close,
    /// Move to the node, summarizing the branch left or not.
    Move(u32, bool),
}

impl TreeView {
    /// The navigator over `rows`, the current leaf selected.
    pub fn new(rows: TreeRows) -> TreeView {
        let selected = rows.leaf_row().unwrap_or(0);
        TreeView {
            rows,
            selected,
            top: 0,
            page: 10,
            mode: Mode::Browse,
        }
    }

    /// The rows (for benchmarks and tests).
    pub fn tree(&self) -> &TreeRows {
        &self.rows
    }

    /// The selected row.
    pub fn selected(&self) -> usize {
        self.selected
    }

    pub(super) fn key(&mut self, key: &Key) -> Done {
        match self.mode.clone() {
            Mode::Search => self.search_key(key),
            Mode::Label(text) => self.label_key(key, text),
            Mode::Confirm(node) => match key {
                Key::Char('y' | 'Y') => Done::Move(node, true),
                Key::Char('n' | 'N') => Done::Move(node, false),
                Key::Esc | Key::Ctrl('c') => {
                    self.mode = Mode::Browse;
                    Done::Stay
                }
                _ => Done::Stay,
            },
            Mode::Browse => self.browse_key(key),
        }
    }

    /// A key while typing the search: the rows follow each keystroke.
    fn search_key(&mut self, key: &Key) -> Done {
        let mut query = self.rows.query().to_string();
        match key {
            Key::Enter => {
                self.mode = Mode::Browse;
                return Done::Stay;
            }
            Key::Esc | Key::Ctrl('c') => {
                query.clear();
                self.mode = Mode::Browse;
            }
            Key::Char(c) => query.push(*c),
            Key::Paste(text) => query.extend(text.chars().filter(|c| !c.is_control())),
            Key::Backspace => {
                if query.pop().is_none() {
                    self.mode = Mode::Browse;
                }
            }
            Key::Ctrl('u') => query.clear(),
            other => return self.browse_key(other),
        }
        self.selected = self.rows.set_query(&query, self.selected);
        Done::Stay
    }

    /// A key while typing a label.
    fn label_key(&mut self, key: &Key, mut text: String) -> Done {
        match key {
            Key::Enter => {
                self.mode = Mode::Browse;
                return Done::Stay;
            }
            Key::Esc | Key::Ctrl('c') => {
                self.mode = Mode::Browse;
                return Done::Stay;
            }
            Key::Char(c) => text.push(*c),
            Key::Paste(p) => text.extend(p.chars().filter(|c| !c.is_control())),
            Key::Backspace => {
                text.pop();
            }
            Key::Ctrl('u') => text.clear(),
            _ => {}
        }
        self.mode = Mode::Label(text);
        Done::Stay
    }

    fn browse_key(&mut self, key: &Key) -> Done {
        let count = self.rows.rows().len();
        let last = count.saturating_sub(1);
        let page = self.page.max(1);
        match key {
            Key::Up => self.selected = self.selected.saturating_sub(1),
            Key::Down => self.selected = (self.selected + 1).min(last),
            Key::PageUp => self.selected = self.selected.saturating_sub(page),
            Key::PageDown => self.selected = (self.selected + page).min(last),
            Key::Home => self.selected = 0,
            Key::End => self.selected = last,
            Key::Left => self.left(),
            Key::Right => self.right(),
            Key::Char(' ') => self.toggle_fold(),
            Key::Char('/') => self.mode = Mode::Search,
            Key::Ctrl('o') | Key::Char('f') => {
                let next = self.rows.filter().next();
                self.selected = self.rows.set_filter(next, self.selected);
            }
            Key::Char('l') => {
                if let Some(row) = self.rows.rows().get(self.selected) {
                    let label = self.rows.node(row.node).label.clone();
                    self.mode = Mode::Label(label.unwrap_or_default());
                }
            }
            Key::Esc if !self.rows.query().is_empty() => {
                self.selected = self.rows.set_query("", self.selected);
            }
            Key::Esc | Key::Ctrl('c') => return Done::Close,
            Key::Enter => {
                if let Some(row) = self.rows.rows().get(self.selected) {
                    return Done::Move(row.node, false);
                }
            }
            _ => {}
        }
        Done::Stay
    }

    /// Left: folds the entry's subtree, else goes to its parent.
    fn left(&mut self) {
        if !self.rows.fold(self.selected) {
            if let Some(parent) = self.rows.parent_row(self.selected) {
                self.selected = parent;
            }
        }
    }

    /// Right: unfolds the entry's subtree, else goes to its first child.
    fn right(&mut self) {
        let has_children = self
            .rows
            .rows()
            .get(self.selected)
            .is_some_and(|r| r.has_children);
        if !self.rows.unfold(self.selected) && has_children {
            self.selected += 1;
        }
    }

    /// Space: folds or unfolds.
    fn toggle_fold(&mut self) {
        if !self.rows.unfold(self.selected) {
            self.rows.fold(self.selected);
        }
    }

    /// The navigator's rows: a title, a line of keys, then the entries in view
    /// (`height` rows in all, at least three), each at most `width` columns.
    pub fn render(&mut self, width: usize, height: usize, style: Style) -> Vec<String> {
        let width = width.max(20);
        let shown = height.max(3) - 2;
        self.page = shown;
        let count = self.rows.rows().len();
        self.selected = self.selected.min(count.saturating_sub(1));
        if self.selected < self.top {
            self.top = self.selected;
        }
        if self.selected >= self.top + shown {
            self.top = self.selected + 1 - shown;
        }
        self.top = self.top.min(count.saturating_sub(shown));
        let search = if self.rows.query().is_empty() {
            String::new()
        } else {
            format!(" · search “{}”", self.rows.query())
        };
        let title = format!(
            "session tree · {} · {} of {} entries{search}",
            self.rows.filter().name(),
            count,
            self.rows.len()
        );
        let help = "↑↓ move · ←→ Space fold · / search · f filter · l label · Enter go · Esc close";
        let mut out = vec![
            style.bold(&clip_to(&title, width - 1)),
            style.dim(&clip_to(help, width - 1)),
        ];
        if count == 0 {
            out.push(style.dim("  (nothing matches)"));
            return out;
        }
        let current = self.rows.leaf_row();
        for at in self.top..(self.top + shown).min(count) {
            out.push(self.row_text(at, current == Some(at), width, style));
        }
        out
    }

    /// One entry's row: selection mark, path mark (`●` the current entry, or
    /// the row standing for it when it is hidden; `•` on the current path),
    /// connectors, fold mark, label, text.
    fn row_text(&self, at: usize, current: bool, width: usize, style: Style) -> String {
        let row = &self.rows.rows()[at];
        let node = self.rows.node(row.node);
        let select = if at == self.selected { "❯" } else { " " };
        let path = if current {
            "●"
        } else if self.rows.on_path(row.node) {
            "•"
        } else {
            " "
        };
        // A deep gutter keeps its last columns (the connectors nearest the
        // entry) and leaves room for the text.
        let room = width.saturating_sub(4) / 2;
        let prefix_width = row.prefix.chars().count();
        let prefix = if prefix_width > room {
            let tail: String = row.prefix.chars().skip(prefix_width - room + 1).collect();
            format!("…{tail}")
        } else {
            row.prefix.clone()
        };
        let fold = if row.folded > 0 {
            format!("▸[+{}] ", row.folded)
        } else {
            String::new()
        };
        let label = node
            .label
            .as_ref()
            .map(|l| format!("[{l}] "))
            .unwrap_or_default();
        let head = format!("{select}{path} {prefix}{fold}");
        let used = text_width(&head);
        let rest = clip_to(
            &format!("{label}{}", node.text),
            width.saturating_sub(used + 2),
        );
        let text = if self.rows.on_path(row.node) {
            style.bold(&rest)
        } else if node.kind == NodeKind::Bookkeeping || node.kind == NodeKind::ToolResult {
            style.dim(&rest)
        } else {
            rest
        };
        let line = format!("{head}{text}");
        if at == self.selected {
            style.start("7") + &line + style.reset()
        } else {
            line
        }
    }

    /// The line where the editor is while the navigator is open, and the
    /// cursor's column in it.
    pub fn input_line(&self) -> (String, usize) {
        let (prompt, text) = match &self.mode {
            Mode::Browse => ("tree› ", String::new()),
            Mode::Search => ("search› ", self.rows.query().to_string()),
            Mode::Label(text) => ("label› ", text.clone()),
            Mode::Confirm(_) => ("Summarize branch? [y/n] ", "(Esc: stay)".to_string()),
        };
        let column = match self.mode {
            Mode::Confirm(_) => prompt.chars().count(),
            _ => prompt.chars().count() + text_width(&text),
        };
        (format!("{prompt}{text}"), column)
    }
}

/// The navigator's keys as docs/cli.md shows them (between its markers).
pub fn markdown_table() -> String {
    let mut table = String::from("| Key in /tree | What it does |\n|---|---|\n");
    for (keys, what) in TREE_KEYS {
        table.push_str(&format!("| {keys} | {what} |\n"));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::message::{Message, UserMessage};
    use focus_harness::session::SessionManager;

    /// A view over one → two → (three a, three b), the leaf on three b.
    fn view() -> TreeView {
        let mut s = SessionManager::in_memory(std::path::Path::new("/tmp"));
        let say = |s: &mut SessionManager, text: &str| {
            s.append_message(&Message::User(UserMessage::text(text, 0)))
                .unwrap()
        };
        say(&mut s, "one");
        let two = say(&mut s, "two");
        say(&mut s, "three a");
        s.move_leaf(Some(&two)).unwrap();
        say(&mut s, "three b");
        TreeView::new(TreeRows::new(s.tree()))
    }

    /// Each key of the table does what it says.
    #[test]
    fn the_keys_do_what_the_table_says() {
        let mut v = view();
        assert_eq!(v.selected, 3, "the leaf is selected");
        v.key(&Key::Up);
        assert_eq!(v.selected, 2);
        v.key(&Key::Down);
        v.key(&Key::Home);
        assert_eq!(v.selected, 0);
        v.key(&Key::End);
        assert_eq!(v.selected, 3);
        v.key(&Key::PageUp);
        assert_eq!(v.selected, 0);
        v.key(&Key::PageDown);
        assert_eq!(v.selected, 3);
        // Left goes to the parent, then folds it; Right unfolds, then steps in.
        v.key(&Key::Left);
        assert_eq!(v.selected, 1);
        v.key(&Key::Left);
        assert_eq!(v.rows.rows().len(), 2);
        v.key(&Key::Right);
        assert_eq!((v.rows.rows().len(), v.selected), (4, 1));
        v.key(&Key::Right);
        assert_eq!(v.selected, 2);
        v.key(&Key::Home);
        v.key(&Key::Char(' '));
        assert_eq!(v.rows.rows().len(), 1);
        v.key(&Key::Char(' '));
        assert_eq!(v.rows.rows().len(), 4);
        // Search, kept with Enter, dropped with Esc.
        v.key(&Key::Char('/'));
        for c in "a".chars() {
            v.key(&Key::Char(c));
        }
        assert_eq!(v.rows.query(), "a");
        v.key(&Key::Enter);
        assert_eq!(v.mode, Mode::Browse);
        assert!(matches!(v.key(&Key::Esc), Done::Stay));
        assert_eq!(v.rows.query(), "");
        // Filters: Ctrl+O and f.
        v.key(&Key::Ctrl('o'));
        assert_eq!(v.rows.filter(), super::super::tree_rows::Filter::NoTools);
        v.key(&Key::Char('f'));
        assert_eq!(v.rows.filter(), super::super::tree_rows::Filter::User);
        // `l` asks for a label; Enter on an entry moves there; Esc closes.
        v.key(&Key::Char('l'));
        assert_eq!(v.mode, Mode::Label(String::new()));
        v.key(&Key::Esc);
        assert!(matches!(v.key(&Key::Enter), Done::Move(_, false)));
        assert!(matches!(v.key(&Key::Esc), Done::Close));
        // Every row drawn fits, the selection marked.
        let rows = v.render(30, 6, Style::PLAIN);
        assert!(rows.iter().all(|r| text_width(r) <= 30), "{rows:?}");
        assert!(rows.iter().any(|r| r.starts_with('❯')), "{rows:?}");
    }

    /// docs/cli.md shows exactly this table.
    #[test]
    fn the_document_shows_the_tree_keys() {
        let doc = include_str!("../../../../../docs/cli.md");
        assert!(
            doc.contains(&markdown_table()),
            "docs/cli.md must contain the /tree keys table:\n{}",
            markdown_table()
        );
    }
}
