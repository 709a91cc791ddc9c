//! The session tree as rows for the `/tree` navigator ([`super::tree_view`]):
//! built once when it opens, then changed in place.
//!
//! Drawing follows pi: a chain of entries stays in one column, and only a
//! branch point (an entry with more than one child shown) indents its
//! children, each under a connector (`├─ `, the last `└─ `), with `│  ` in
//! the gutter while a sibling is still to come.
//!
//! What is shown is a *projection* of the tree: a filter ([`Filter`]) and a
//! search keep some entries, and each kept entry hangs under its nearest kept
//! ancestor. The projection is one pass over the entries in depth-first order
//! (no allocation per entry beyond the rows themselves); folding a subtree
//! removes its rows from the list and unfolding puts them back, without
//! touching the rest. A search that grows only looks again at the entries the
//! shorter one kept.
//!
//! Every text shown comes from the session file (the model's words, labels):
//! it is made printable once, when the rows are built ([`clip`]).

use crate::engine::entry_preview;
use crate::modes::print::clip;
use focus_core::message::Message;
use focus_harness::session::{EntryKind, SessionTree};
use std::collections::HashMap;

/// Which entries the navigator shows (pi's five, cycled in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// The conversation: messages, summaries, compactions (no bookkeeping
    /// entries such as labels or model changes).
    Default,
    /// The conversation without tool results.
    NoTools,
    /// Your messages only.
    User,
    /// Labelled entries only.
    Labelled,
    /// Every entry.
    All,
}

impl Filter {
    /// The next filter in the cycle.
    pub fn next(self) -> Filter {
        match self {
            Filter::Default => Filter::NoTools,
            Filter::NoTools => Filter::User,
            Filter::User => Filter::Labelled,
            Filter::Labelled => Filter::All,
            Filter::All => Filter::Default,
        }
    }

    /// Its name, as the title shows it.
    pub fn name(self) -> &'static str {
        match self {
            Filter::Default => "default",
            Filter::NoTools => "no tools",
            Filter::User => "user only",
            Filter::Labelled => "labelled only",
            Filter::All => "all",
        }
    }
}

/// What kind of entry a node is (for the filters and the row's look).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A tool result.
    ToolResult,
    /// A compaction, a branch summary or another message shown in the
    /// conversation.
    Conversation,
    /// A label, a model or thinking change, a name, extension data.
    Bookkeeping,
}

/// One entry of the session, as the navigator knows it.
#[derive(Clone, Debug)]
pub struct Node {
    /// The entry's id.
    pub id: String,
    /// Its kind.
    pub kind: NodeKind,
    /// The line shown: who, then a preview (printable, one line).
    pub text: String,
    /// Its label (printable), if it has one.
    pub label: Option<String>,
    /// The parent's position in the nodes, `None` for a root.
    parent: Option<u32>,
    /// Lower-cased text and label, for the search.
    search: String,
}

/// One row of the navigator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The node shown (a position in [`TreeRows::node`]).
    pub node: u32,
    /// The gutter and connector before the text (`│  ├─ `).
    pub prefix: String,
    /// Entries hidden under it by a fold (0: not folded).
    pub folded: u32,
    /// Whether entries are shown (or folded) under it.
    pub has_children: bool,
}

/// The session tree flattened into rows, with its filter, search and folds.
#[derive(Debug)]
pub struct TreeRows {
    nodes: Vec<Node>,
    /// Every node's children, flat: node `i`'s are
    /// `kids[kid_start[i]..kid_start[i + 1]]`, in file order.
    kids: Vec<u32>,
    kid_start: Vec<u32>,
    roots: Vec<u32>,
    /// Whether a node is on the path from the root to the leaf.
    on_path: Vec<bool>,
    leaf: Option<u32>,
    filter: Filter,
    query: String,
    /// Whether a node matches the search (all true without one).
    matched: Vec<bool>,
    /// Folded by the user (kept across filters and searches).
    folded: Vec<bool>,
    /// The projection: each shown node's shown children, flat as `kids`.
    shown_kids: Vec<u32>,
    shown_start: Vec<u32>,
    shown_roots: Vec<u32>,
    /// Each shown node's place in the projection's depth-first order and the
    /// size of its subtree there (itself included).
    order: Vec<u32>,
    size: Vec<u32>,
    rows: Vec<Row>,
}

/// Marks a node not in the projection.
const NONE: u32 = u32::MAX;

impl TreeRows {
    /// The rows of `tree` (all unfolded, the default filter, no search).
    pub fn new(tree: &SessionTree) -> TreeRows {
        let (nodes, position) = tree_nodes(tree);
        let n = nodes.len();
        let (kids, kid_start, roots) = children(&nodes);
        let mut rows = TreeRows {
            kids,
            kid_start,
            roots,
            on_path: vec![false; n],
            leaf: None,
            filter: Filter::Default,
            query: String::new(),
            matched: vec![true; n],
            folded: vec![false; n],
            shown_kids: Vec::new(),
            shown_start: Vec::new(),
            shown_roots: Vec::new(),
            order: vec![NONE; n],
            size: vec![0; n],
            rows: Vec::new(),
            nodes,
        };
        let leaf = tree.leaf_id().and_then(|id| position.get(id).copied());
        rows.set_leaf(leaf);
        rows.rebuild();
        rows
    }

    /// Marks the path to `leaf` (a node) as the current one.
    fn set_leaf(&mut self, leaf: Option<u32>) {
        self.on_path.iter_mut().for_each(|p| *p = false);
        self.leaf = leaf;
        let mut at = leaf;
        while let Some(i) = at {
            self.on_path[i as usize] = true;
            at = self.nodes[i as usize].parent;
        }
    }

    /// The rows shown.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The node at a position.
    pub fn node(&self, node: u32) -> &Node {
        &self.nodes[node as usize]
    }

    /// How many entries the session has.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the session has no entries.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Whether a node is on the current path (root to leaf).
    pub fn on_path(&self, node: u32) -> bool {
        self.on_path[node as usize]
    }

    /// Whether a node is the current leaf.
    pub fn is_leaf(&self, node: u32) -> bool {
        self.leaf == Some(node)
    }

    /// The row of the current leaf, or of its nearest shown ancestor.
    pub fn leaf_row(&self) -> Option<usize> {
        self.leaf.and_then(|leaf| self.row_of_nearest(leaf))
    }

    /// The filter.
    pub fn filter(&self) -> Filter {
        self.filter
    }

    /// The search.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// Shows what `filter` keeps; returns the row the node of `selected`
    /// (a row) is now at, or its nearest shown ancestor's.
    pub fn set_filter(&mut self, filter: Filter, selected: usize) -> usize {
        let keep = self.rows.get(selected).map(|r| r.node);
        self.filter = filter;
        self.rebuild();
        self.reselect(keep)
    }

    /// Searches: the entries whose text or label holds every word of `query`
    /// (ignoring case) are shown; returns the new row of `selected` as
    /// [`TreeRows::set_filter`] does.
    pub fn set_query(&mut self, query: &str, selected: usize) -> usize {
        let keep = self.rows.get(selected).map(|r| r.node);
        let narrowing = query.starts_with(self.query.as_str());
        self.query = query.to_string();
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        for (node, matched) in self.nodes.iter().zip(self.matched.iter_mut()) {
            // A longer query only keeps what the shorter one kept.
            if narrowing && !*matched {
                continue;
            }
            *matched = words.iter().all(|w| node.search.contains(w.as_str()));
        }
        self.rebuild();
        self.reselect(keep)
    }

    /// Sets a node's label (printable; `None` clears it), as the session now
    /// has it.
    pub fn set_label(&mut self, node: u32, label: Option<&str>) {
        let entry = &mut self.nodes[node as usize];
        entry.label = label.map(|l| clip(l, 40));
        entry.search = entry.text.to_lowercase();
        if let Some(label) = &entry.label {
            entry.search.push(' ');
            entry.search.push_str(&label.to_lowercase());
        }
        if self.filter == Filter::Labelled || !self.query.is_empty() {
            let keep = self.rows.iter().position(|r| r.node == node);
            let query = std::mem::take(&mut self.query);
            self.matched.iter_mut().for_each(|m| *m = true);
            self.set_query(&query, keep.unwrap_or(0));
        }
    }

    /// Folds the subtree under row `at` (its rows leave the list); whether
    /// anything was folded.
    pub fn fold(&mut self, at: usize) -> bool {
        let Some(row) = self.rows.get(at) else {
            return false;
        };
        let node = row.node;
        if row.folded > 0 || !row.has_children {
            return false;
        }
        let end = self.subtree_end(at);
        self.rows.drain(at + 1..end);
        self.folded[node as usize] = true;
        self.rows[at].folded = self.size[node as usize] - 1;
        true
    }

    /// Unfolds the subtree under row `at` (its rows come back, its own folds
    /// kept); whether anything was unfolded.
    pub fn unfold(&mut self, at: usize) -> bool {
        let Some(row) = self.rows.get(at) else {
            return false;
        };
        if row.folded == 0 {
            return false;
        }
        let node = row.node;
        self.folded[node as usize] = false;
        self.rows[at].folded = 0;
        let gutter = self.child_gutter(at);
        let mut new = Vec::new();
        self.push_children(node, &gutter, &mut new);
        self.rows.splice(at + 1..at + 1, new);
        true
    }

    /// The row of the parent (in the projection) of the node at row `at`.
    pub fn parent_row(&self, at: usize) -> Option<usize> {
        let node = self.rows.get(at)?.node;
        let order = self.order[node as usize];
        (0..at).rev().find(|&r| {
            let other = self.rows[r].node as usize;
            self.order[other] < order && order < self.order[other] + self.size[other]
        })
    }

    /// The rows after `at` that are under it, as an end index.
    fn subtree_end(&self, at: usize) -> usize {
        let node = self.rows[at].node as usize;
        let last = self.order[node] + self.size[node];
        let mut end = at + 1;
        while end < self.rows.len() && self.order[self.rows[end].node as usize] < last {
            end += 1;
        }
        end
    }

    /// The gutter the children of row `at` are drawn after: its own prefix with
    /// its connector turned into a gutter (`├─ ` → `│  `, `└─ ` → `   `).
    fn child_gutter(&self, at: usize) -> String {
        let prefix = &self.rows[at].prefix;
        if let Some(base) = prefix.strip_suffix("├─ ") {
            format!("{base}│  ")
        } else if let Some(base) = prefix.strip_suffix("└─ ") {
            format!("{base}   ")
        } else {
            prefix.clone()
        }
    }

    /// Whether a node passes the filter and the search.
    fn shown(&self, i: usize) -> bool {
        if !self.matched[i] {
            return false;
        }
        let node = &self.nodes[i];
        match self.filter {
            Filter::All => true,
            Filter::Default => node.kind != NodeKind::Bookkeeping,
            Filter::NoTools => !matches!(node.kind, NodeKind::Bookkeeping | NodeKind::ToolResult),
            Filter::User => node.kind == NodeKind::User,
            Filter::Labelled => node.label.is_some(),
        }
    }

    /// Projects the tree through the filter and search, then flattens it.
    fn rebuild(&mut self) {
        let n = self.nodes.len();
        // Depth-first over the real tree, carrying the nearest shown ancestor.
        let mut shown_parent = vec![NONE; n];
        let mut count = vec![0u32; n + 1];
        self.shown_roots.clear();
        let mut stack: Vec<(u32, u32)> = self.roots.iter().rev().map(|&r| (r, NONE)).collect();
        let mut preorder = Vec::with_capacity(n);
        while let Some((i, above)) = stack.pop() {
            let shown = self.shown(i as usize);
            let next_above = if shown { i } else { above };
            if shown {
                preorder.push(i);
                shown_parent[i as usize] = above;
                if above == NONE {
                    self.shown_roots.push(i);
                } else {
                    count[above as usize + 1] += 1;
                }
            }
            let (start, end) = (
                self.kid_start[i as usize] as usize,
                self.kid_start[i as usize + 1] as usize,
            );
            for &kid in self.kids[start..end].iter().rev() {
                stack.push((kid, next_above));
            }
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        self.shown_kids.clear();
        self.shown_kids.resize(count[n] as usize, 0);
        for &i in &preorder {
            let p = shown_parent[i as usize];
            if p != NONE {
                self.shown_kids[fill[p as usize] as usize] = i;
                fill[p as usize] += 1;
            }
        }
        self.shown_start = count;
        // Depth-first order and subtree sizes of the projection: the preorder
        // above is that order (children come in the same order).
        self.order.iter_mut().for_each(|o| *o = NONE);
        for (at, &i) in preorder.iter().enumerate() {
            self.order[i as usize] = at as u32;
            self.size[i as usize] = 1;
        }
        for &i in preorder.iter().rev() {
            let p = shown_parent[i as usize];
            if p != NONE {
                self.size[p as usize] += self.size[i as usize];
            }
        }
        let mut rows = Vec::with_capacity(preorder.len());
        let roots = std::mem::take(&mut self.shown_roots);
        self.push_siblings(&roots, "", &mut rows);
        self.shown_roots = roots;
        self.rows = rows;
    }

    fn shown_children(&self, node: u32) -> &[u32] {
        let (start, end) = (
            self.shown_start[node as usize] as usize,
            self.shown_start[node as usize + 1] as usize,
        );
        &self.shown_kids[start..end]
    }

    /// The rows under `node` (not itself), after `gutter`.
    fn push_children(&self, node: u32, gutter: &str, out: &mut Vec<Row>) {
        let kids = self.shown_children(node).to_vec();
        self.push_siblings(&kids, gutter, out);
    }

    /// The rows of `siblings` and what is under them (unless folded), after
    /// `gutter`: one sibling continues the chain, several get connectors.
    /// Iterative: a chain of 10,000 entries would overflow the call stack.
    fn push_siblings(&self, siblings: &[u32], gutter: &str, out: &mut Vec<Row>) {
        // (node, its prefix, the gutter of what is under it)
        let mut stack: Vec<(u32, String, String)> = Vec::new();
        let push_group = |stack: &mut Vec<(u32, String, String)>, group: &[u32], gutter: &str| {
            let many = group.len() > 1;
            for (k, &node) in group.iter().enumerate().rev() {
                let last = k + 1 == group.len();
                let (prefix, below) = match (many, last) {
                    (false, _) => (gutter.to_string(), gutter.to_string()),
                    (true, false) => (format!("{gutter}├─ "), format!("{gutter}│  ")),
                    (true, true) => (format!("{gutter}└─ "), format!("{gutter}   ")),
                };
                stack.push((node, prefix, below));
            }
        };
        push_group(&mut stack, siblings, gutter);
        while let Some((node, prefix, below)) = stack.pop() {
            let kids = self.shown_children(node);
            let folded = self.folded[node as usize] && !kids.is_empty();
            out.push(Row {
                node,
                prefix,
                folded: if folded {
                    self.size[node as usize] - 1
                } else {
                    0
                },
                has_children: !kids.is_empty(),
            });
            if !folded {
                push_group(&mut stack, kids, &below);
            }
        }
    }

    /// The row a node is on, or its nearest shown ancestor's.
    fn row_of_nearest(&self, node: u32) -> Option<usize> {
        let mut at = Some(node);
        while let Some(i) = at {
            if self.order[i as usize] != NONE {
                // Shown, but perhaps inside a fold: the fold's row then.
                let order = self.order[i as usize];
                return self.rows.iter().position(|r| r.node == i).or_else(|| {
                    self.rows.iter().position(|r| {
                        let o = self.order[r.node as usize];
                        o < order && order < o + self.size[r.node as usize] && r.folded > 0
                    })
                });
            }
            at = self.nodes[i as usize].parent;
        }
        None
    }

    /// The row of `keep` (or its nearest shown ancestor) after a rebuild, else
    /// the first.
    fn reselect(&self, keep: Option<u32>) -> usize {
        keep.and_then(|n| self.row_of_nearest(n)).unwrap_or(0)
    }
}

/// An entry's kind and who the row names.
fn node_kind(kind: &EntryKind) -> (NodeKind, &'static str) {
    match kind {
        EntryKind::Message(Message::User(_)) => (NodeKind::User, "you"),
        EntryKind::Message(Message::Assistant(_)) => (NodeKind::Assistant, "ai"),
        EntryKind::Message(Message::ToolResult(_)) => (NodeKind::ToolResult, "tool"),
        EntryKind::Message(Message::Custom(_)) | EntryKind::CustomMessage { .. } => {
            (NodeKind::Conversation, "note")
        }
        EntryKind::Compaction(_) => (NodeKind::Conversation, "compaction"),
        // A subagent's conversation, folded into one line (its own file).
        EntryKind::Custom { custom_type, .. }
            if custom_type == focus_harness::subagents::record::LINK_TYPE =>
        {
            (NodeKind::Conversation, "subagent")
        }
        EntryKind::BranchSummary { .. } => (NodeKind::Conversation, "branch summary"),
        _ => (NodeKind::Bookkeeping, "·"),
    }
}

/// The entries of `tree` as nodes, in file order, and each entry's position
/// (the first of an id written twice).
fn tree_nodes(tree: &SessionTree) -> (Vec<Node>, HashMap<&str, u32>) {
    let entries = tree.entries();
    let mut position: HashMap<&str, u32> = HashMap::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        position.entry(entry.id.as_str()).or_insert(i as u32);
    }
    let mut nodes = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        // A parent written after its child (a damaged file) would make a
        // cycle possible: such an entry is a root.
        let parent = entry
            .parent_id
            .as_deref()
            .and_then(|p| position.get(p).copied())
            .filter(|&p| (p as usize) < i);
        let (kind, who) = node_kind(&entry.kind);
        let preview = match &entry.kind {
            EntryKind::BranchSummary { summary, .. } => clip(summary.trim(), 100),
            other => entry_preview(other),
        };
        let text = format!("{who}: {preview}");
        let label = tree.label(entry.id.as_str()).map(|l| clip(l, 40));
        let mut search = text.to_lowercase();
        if let Some(label) = &label {
            search.push(' ');
            search.push_str(&label.to_lowercase());
        }
        nodes.push(Node {
            id: entry.id.to_string(),
            kind,
            text,
            label,
            parent,
            search,
        });
    }
    (nodes, position)
}

/// Each node's children, flat and in file order, by counting: `kids` holds
/// node `i`'s children at `kid_start[i]..kid_start[i + 1]`; and the roots.
fn children(nodes: &[Node]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = nodes.len();
    let mut kid_start = vec![0u32; n + 1];
    let mut roots = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        match node.parent {
            Some(p) => kid_start[p as usize + 1] += 1,
            None => roots.push(i as u32),
        }
    }
    for i in 0..n {
        kid_start[i + 1] += kid_start[i];
    }
    let mut fill = kid_start.clone();
    let mut kids = vec![0u32; kid_start[n] as usize];
    for (i, node) in nodes.iter().enumerate() {
        if let Some(p) = node.parent {
            kids[fill[p as usize] as usize] = i as u32;
            fill[p as usize] += 1;
        }
    }
    (kids, kid_start, roots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::message::UserMessage;
    use focus_harness::session::SessionManager;

    fn say(session: &mut SessionManager, text: &str) -> String {
        let message = Message::User(UserMessage::text(text, 0));
        session.append_message(&message).unwrap()
    }

    /// u1 → u2 → (u3a → u4, u3b), a model change before u3b.
    fn branched() -> (SessionManager, Vec<String>) {
        let mut s = SessionManager::in_memory(std::path::Path::new("/tmp"));
        let u1 = say(&mut s, "one");
        let u2 = say(&mut s, "two");
        let u3a = say(&mut s, "three a");
        let u4 = say(&mut s, "four");
        s.move_leaf(Some(&u2)).unwrap();
        let change = s.append_model_change("p", "m").unwrap();
        let u3b = say(&mut s, "three b \x1b[31mred");
        (s, vec![u1, u2, u3a, u4, change, u3b])
    }

    fn drawn(rows: &TreeRows) -> Vec<String> {
        rows.rows()
            .iter()
            .map(|r| format!("{}{}", r.prefix, rows.node(r.node).text))
            .collect()
    }

    #[test]
    fn chains_stay_in_one_column_and_branch_points_get_connectors() {
        let (s, _) = branched();
        let rows = TreeRows::new(s.tree());
        assert_eq!(
            drawn(&rows),
            [
                "you: one",
                "you: two",
                "├─ you: three a",
                "│  you: four",
                "└─ you: three b red",
            ]
        );
        // The current path: the second branch; the leaf its last entry.
        let last = rows.rows()[4].node;
        assert!(rows.is_leaf(last) && rows.on_path(rows.rows()[1].node));
        assert!(!rows.on_path(rows.rows()[2].node));
        assert_eq!(rows.leaf_row(), Some(4));
        // Every filter shows the model change only under "all".
        let mut rows = rows;
        rows.set_filter(Filter::All, 0);
        assert_eq!(rows.rows().len(), 6);
        assert_eq!(drawn(&rows)[4], "└─ ·: model p/m");
        assert_eq!(drawn(&rows)[5], "   you: three b red");
    }

    #[test]
    fn folding_hides_a_subtree_and_unfolding_brings_it_back() {
        let (s, _) = branched();
        let mut rows = TreeRows::new(s.tree());
        let before = drawn(&rows);
        assert!(rows.fold(1));
        assert_eq!(drawn(&rows), ["you: one", "you: two"]);
        assert_eq!(rows.rows()[1].folded, 3);
        assert!(!rows.fold(1), "already folded");
        // The leaf inside a fold: the fold's row stands for it.
        assert_eq!(rows.leaf_row(), Some(1));
        assert!(rows.fold(0));
        assert!(rows.unfold(0));
        // The inner fold is kept.
        assert_eq!(drawn(&rows), ["you: one", "you: two"]);
        assert!(rows.unfold(1));
        assert_eq!(drawn(&rows), before);
        assert_eq!(rows.parent_row(3), Some(2));
        assert_eq!(rows.parent_row(4), Some(1));
        assert!(!rows.fold(3), "a leaf has nothing to fold");
    }

    #[test]
    fn filters_and_search_hang_entries_under_their_nearest_kept_ancestor() {
        let (mut s, ids) = branched();
        s.set_label(&ids[3], Some("keep\x1b[2J")).unwrap();
        s.set_label(&ids[0], Some("start")).unwrap();
        let mut rows = TreeRows::new(s.tree());
        assert_eq!(rows.set_filter(Filter::Labelled, 3), 1);
        assert_eq!(drawn(&rows), ["you: one", "you: four"]);
        assert_eq!(
            rows.node(rows.rows()[1].node).label.as_deref(),
            Some("keep")
        );
        rows.set_filter(Filter::Default, 0);
        rows.set_query("three", 0);
        assert_eq!(drawn(&rows), ["├─ you: three a", "└─ you: three b red"]);
        // Narrowing finds what a fresh search finds; words match anywhere.
        rows.set_query("three b", 0);
        assert_eq!(drawn(&rows), ["you: three b red"]);
        rows.set_query("", 0);
        rows.set_query("keep", 0);
        assert_eq!(drawn(&rows), ["you: four"]);
        rows.set_label(rows.rows()[0].node, None);
        assert!(rows.rows().is_empty());
    }

    #[test]
    fn a_long_chain_is_flattened_without_recursion() {
        let mut s = SessionManager::in_memory(std::path::Path::new("/tmp"));
        for i in 0..20_000 {
            say(&mut s, &format!("message {i}"));
        }
        let mut rows = TreeRows::new(s.tree());
        assert_eq!(rows.rows().len(), 20_000);
        assert!(rows.rows().iter().all(|r| r.prefix.is_empty()));
        assert!(rows.fold(0));
        assert_eq!(rows.rows().len(), 1);
        assert!(rows.unfold(0));
        assert_eq!(rows.set_query("message 19999", 5), 0);
    }
}
