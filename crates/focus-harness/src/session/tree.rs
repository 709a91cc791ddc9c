//! [`SessionTree`]: the entries of one session, indexed by id, with the current leaf.
//!
//! The file is a flat list; the tree lives in the `parentId` links. The *leaf* is
//! where the conversation currently stands: a new entry becomes its child and then
//! the new leaf. Moving the leaf to an earlier entry (branching in place) leaves
//! every existing entry untouched; the next append simply starts a second child.
//! On load the leaf is the last entry in the file, as in pi.

use super::entry::{Entry, EntryKind};
use super::id_index::{IdIndex, IdKeys};
use std::collections::HashMap;

/// A session's entries as a tree.
#[derive(Clone, Debug, Default)]
pub struct SessionTree {
    entries: Vec<Entry>,
    index: IdIndex,
    labels: HashMap<String, String>,
    leaf: Option<usize>,
    /// Whether some id was indexed twice (a damaged file); see [`Self::parent_of`].
    has_duplicate_ids: bool,
    /// Entries skipped as damaged whose ids could be read: id → parent id
    /// ([`super::damaged`]). A walk to the root crosses them.
    bridges: HashMap<String, Option<String>>,
}

/// Records (or clears) the label an entry sets, if it is a label entry.
fn note_label(labels: &mut HashMap<String, String>, entry: &Entry) {
    if let EntryKind::Label { target_id, label } = &entry.kind {
        match label.as_deref().filter(|l| !l.is_empty()) {
            Some(label) => labels.insert(target_id.clone(), label.to_string()),
            None => labels.remove(target_id),
        };
    }
}

/// A node of [`SessionTree::nodes`]: an entry and its children, oldest first.
#[derive(Clone, Debug)]
pub struct TreeNode<'a> {
    /// The entry.
    pub entry: &'a Entry,
    /// Its label, if one is set.
    pub label: Option<&'a str>,
    /// Its children, in file order (which is creation order).
    pub children: Vec<TreeNode<'a>>,
}

impl SessionTree {
    /// A tree of `entries` (file order) with the leaf on the last one.
    pub fn new(entries: Vec<Entry>) -> SessionTree {
        // As if each entry were pushed in turn, but the vector is kept as it is
        // rather than moved entry by entry into a new one.
        let mut tree = SessionTree {
            index: IdIndex::with_capacity(entries.len()),
            leaf: entries.len().checked_sub(1),
            entries,
            ..SessionTree::default()
        };
        for position in 0..tree.entries.len() {
            tree.index_entry(position);
        }
        tree
    }

    /// [`SessionTree::new`] with the work of indexing partly done while decoding:
    /// `hashes[i]` is entry `i`'s id hashed with `keys` ([`IdIndex::hash_with`]),
    /// and `labels` the positions of the label entries. Indexing then reads no
    /// entry that sets no label and shares no id hash, so a big tree is indexed
    /// without going through its entries' memory again.
    pub(super) fn from_hashed(
        entries: Vec<Entry>,
        keys: IdKeys,
        hashes: &[u64],
        labels: &[usize],
    ) -> SessionTree {
        if hashes.len() != entries.len() {
            return SessionTree::new(entries); // not expected; stay correct anyway
        }
        let mut tree = SessionTree {
            index: IdIndex::with_keys(keys, entries.len()),
            leaf: entries.len().checked_sub(1),
            entries,
            ..SessionTree::default()
        };
        for (position, &hash) in hashes.iter().enumerate() {
            if tree
                .index
                .insert_hashed(hash, position, &tree.entries[..=position])
            {
                tree.has_duplicate_ids = true;
            }
        }
        for &position in labels {
            if let Some(entry) = tree.entries.get(position) {
                note_label(&mut tree.labels, entry);
            }
        }
        tree
    }

    /// Adds an entry (its parent should be the current leaf) and makes it the leaf.
    /// A duplicated id shadows the earlier entry, as in pi.
    pub fn push(&mut self, entry: Entry) {
        let position = self.entries.len();
        self.entries.push(entry);
        self.index_entry(position);
        self.leaf = Some(position);
    }

    /// Records the entry at `position` in the id index, and its label if it sets one.
    /// The entries after it are not indexed yet.
    fn index_entry(&mut self, position: usize) {
        let indexed = &self.entries[..=position];
        note_label(&mut self.labels, &indexed[position]);
        if self.index.insert(position, indexed) {
            self.has_duplicate_ids = true;
        }
    }

    /// The position of the parent of the entry at `position`, if it is known.
    ///
    /// Almost always the parent is the entry just before (a conversation appends
    /// child after child), so that is checked first: comparing two short ids is
    /// much cheaper than hashing one and probing the index, and a 10,000-entry
    /// branch does it 10,000 times. The shortcut is exact only while every id is
    /// unique (with a duplicated id the index points at the *last* entry holding
    /// it, not necessarily the one just before), so then the index alone answers.
    fn parent_of(&self, position: usize) -> Option<usize> {
        let entry = &self.entries[position];
        let parent = entry.parent_id.as_deref().filter(|p| *p != entry.id)?;
        if !self.has_duplicate_ids {
            if let Some(before) = position.checked_sub(1) {
                if self.entries[before].id == parent {
                    return Some(before);
                }
            }
        }
        self.index
            .get(parent, &self.entries)
            .or_else(|| self.across_bridges(parent))
    }

    /// The entry reached from the unknown id `missing` through damaged entries
    /// whose ids were salvaged: each bridge leads to its own parent, until a
    /// known entry (at most one step per bridge, so a loop of bridges ends).
    fn across_bridges(&self, missing: &str) -> Option<usize> {
        let mut id = missing;
        for _ in 0..self.bridges.len() {
            id = self.bridges.get(id)?.as_deref()?;
            if let Some(found) = self.index.get(id, &self.entries) {
                return Some(found);
            }
        }
        None
    }

    /// Sets the bridges over damaged entries (damaged id → its parent id) that
    /// walks to the root may cross ([`super::damaged`]).
    pub fn set_bridges(&mut self, bridges: HashMap<String, Option<String>>) {
        self.bridges = bridges;
    }

    /// All entries in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry with this id.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.index.get(id, &self.entries).map(|i| &self.entries[i])
    }

    /// Whether an entry has this id.
    pub fn contains(&self, id: &str) -> bool {
        self.index.get(id, &self.entries).is_some()
    }

    /// The current leaf, or `None` before the first entry.
    pub fn leaf(&self) -> Option<&Entry> {
        self.leaf.map(|i| &self.entries[i])
    }

    /// The current leaf's id.
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf().map(|e| e.id.as_str())
    }

    /// Moves the leaf to `id` (`None`: before the first entry, so the next entry is a
    /// new root). Returns false if there is no such entry.
    pub fn set_leaf(&mut self, id: Option<&str>) -> bool {
        match id {
            None => {
                self.leaf = None;
                true
            }
            Some(id) => match self.index.get(id, &self.entries) {
                Some(i) => {
                    self.leaf = Some(i);
                    true
                }
                None => false,
            },
        }
    }

    /// The label on an entry.
    pub fn label(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(String::as_str)
    }

    /// The path from the root to `id` (inclusive), root first. Broken links end the
    /// walk (the entry is then treated as a root); cycles are cut after one lap.
    pub fn branch(&self, id: Option<&str>) -> Vec<&Entry> {
        let mut path = Vec::new();
        let mut visited = vec![false; self.entries.len()];
        let mut current = id.and_then(|id| self.index.get(id, &self.entries));
        while let Some(i) = current {
            if std::mem::replace(&mut visited[i], true) {
                break; // a cycle in a damaged file: each entry once
            }
            path.push(&self.entries[i]);
            current = self.parent_of(i);
        }
        path.reverse();
        path
    }

    /// The path from the root to the current leaf.
    pub fn current_branch(&self) -> Vec<&Entry> {
        self.branch(self.leaf_id())
    }

    /// The ids of an entry's direct children, in file order.
    pub fn children(&self, id: &str) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|e| e.parent_id.as_deref() == Some(id))
            .collect()
    }

    /// Each entry's children (positions, in file order) by the parent's id, and the
    /// roots: the entries without a known parent.
    fn children_and_roots(&self) -> (HashMap<&str, Vec<usize>>, Vec<usize>) {
        let mut children_of: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut roots = Vec::new();
        for (i, entry) in self.entries.iter().enumerate() {
            match entry.parent_id.as_deref() {
                Some(parent) if parent != entry.id && self.contains(parent) => {
                    children_of.entry(parent).or_default().push(i)
                }
                _ => roots.push(i),
            }
        }
        (children_of, roots)
    }

    /// The tree as a list to show: every entry once, depth first with children in
    /// file order, each with its indent, the number of branch points above it. A
    /// conversation that never branched is one column; where an entry has several
    /// children, each child's subtree is shown in turn one step further in. Linear
    /// in the number of entries, however long the chains.
    pub fn outline(&self) -> Vec<(&Entry, usize)> {
        let (children_of, roots) = self.children_and_roots();
        let mut shown = vec![false; self.entries.len()];
        let mut out = Vec::with_capacity(self.entries.len());
        let root_indent = usize::from(roots.len() > 1);
        let mut stack: Vec<(usize, usize)> =
            roots.iter().rev().map(|&r| (r, root_indent)).collect();
        while let Some((i, indent)) = stack.pop() {
            // Each entry once: duplicated ids in a damaged file can link a cycle.
            if std::mem::replace(&mut shown[i], true) {
                continue;
            }
            let entry = &self.entries[i];
            out.push((entry, indent));
            let kids = children_of
                .get(entry.id.as_str())
                .map_or(&[][..], Vec::as_slice);
            let inner = if kids.len() > 1 { indent + 1 } else { indent };
            stack.extend(kids.iter().rev().map(|&k| (k, inner)));
        }
        out
    }

    /// The whole tree: roots (entries without a known parent) and their descendants.
    pub fn nodes(&self) -> Vec<TreeNode<'_>> {
        let (children_of, roots) = self.children_and_roots();
        // Built bottom-up with an explicit stack: a 10,000-entry chain would
        // overflow the call stack with recursion.
        let mut built: HashMap<usize, TreeNode<'_>> = HashMap::new();
        // Each entry is expanded once: a damaged file with duplicated ids can link
        // a cycle under a root, which would otherwise be walked forever.
        let mut expanded_once = vec![false; self.entries.len()];
        let mut stack: Vec<(usize, bool)> = roots.iter().rev().map(|&r| (r, false)).collect();
        while let Some((i, expanded)) = stack.pop() {
            let entry = &self.entries[i];
            let kids = children_of.get(entry.id.as_str());
            if !expanded {
                if std::mem::replace(&mut expanded_once[i], true) {
                    continue;
                }
                stack.push((i, true));
                for &k in kids.into_iter().flatten() {
                    if !expanded_once[k] {
                        stack.push((k, false));
                    }
                }
                continue;
            }
            let children = kids
                .into_iter()
                .flatten()
                .filter_map(|k| built.remove(k))
                .collect();
            built.insert(
                i,
                TreeNode {
                    entry,
                    label: self.label(&entry.id),
                    children,
                },
            );
        }
        roots.iter().filter_map(|r| built.remove(r)).collect()
    }

    /// The latest display name set by a `session_info` entry.
    pub fn name(&self) -> Option<&str> {
        self.entries.iter().rev().find_map(|e| match &e.kind {
            EntryKind::SessionInfo { name: Some(name) } if !name.trim().is_empty() => {
                Some(name.trim())
            }
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry named `name` (in a `session_info`, to tell equal ids apart).
    fn entry(id: &str, parent: Option<&str>, name: &str) -> Entry {
        Entry {
            id: id.into(),
            parent_id: parent.map(focus_core::shared_text::SharedText::from),
            timestamp: "t".into(),
            kind: EntryKind::SessionInfo {
                name: Some(name.into()),
            },
        }
    }

    fn names(branch: &[&Entry]) -> Vec<String> {
        branch
            .iter()
            .map(|e| match &e.kind {
                EntryKind::SessionInfo { name } => name.clone().unwrap_or_default(),
                _ => String::new(),
            })
            .collect()
    }

    /// 1 ← 2 ← 3 ← 5, and 4 ← 6 branching from 2; an orphan 7 (unknown parent)
    /// is a second root.
    #[test]
    fn the_outline_indents_at_branch_points_only() {
        let tree = SessionTree::new(vec![
            entry("1", None, "one"),
            entry("2", Some("1"), "two"),
            entry("3", Some("2"), "three"),
            entry("4", Some("2"), "four"),
            entry("5", Some("3"), "five"),
            entry("6", Some("4"), "six"),
            entry("7", Some("gone"), "seven"),
        ]);
        let outline: Vec<(String, usize)> = tree
            .outline()
            .into_iter()
            .map(|(e, indent)| (names(&[e]).remove(0), indent))
            .collect();
        let expect = [
            ("one", 1),
            ("two", 1),
            ("three", 2),
            ("five", 2),
            ("four", 2),
            ("six", 2),
            ("seven", 1),
        ];
        let expect: Vec<(String, usize)> =
            expect.iter().map(|(n, i)| (n.to_string(), *i)).collect();
        assert_eq!(outline, expect);

        // A 10,000-entry chain is one column, listed in order.
        let chain: Vec<Entry> = (0..10_000)
            .map(|i| {
                let parent = (i > 0).then(|| (i - 1).to_string());
                entry(&i.to_string(), parent.as_deref(), "x")
            })
            .collect();
        let tree = SessionTree::new(chain);
        let outline = tree.outline();
        assert_eq!(outline.len(), 10_000);
        assert!(outline.iter().all(|&(_, indent)| indent == 0));
        assert_eq!(outline[9_999].0.id, "9999");
    }

    #[test]
    fn branch_follows_parents_next_door_and_far_away() {
        // 1 <- 2 <- 3, then 4 branches from 1 (its parent is not the entry before).
        let tree = SessionTree::new(vec![
            entry("1", None, "one"),
            entry("2", Some("1"), "two"),
            entry("3", Some("2"), "three"),
            entry("4", Some("1"), "four"),
        ]);
        assert_eq!(names(&tree.branch(Some("3"))), ["one", "two", "three"]);
        assert_eq!(names(&tree.current_branch()), ["one", "four"]);
    }

    #[test]
    fn a_duplicated_id_names_its_last_entry_even_right_after_the_first() {
        // "c" follows the first "a", but the id "a" means the last entry holding it,
        // so the entry just before must not be taken for the parent.
        let mut tree = SessionTree::new(vec![
            entry("a", None, "first a"),
            entry("c", Some("a"), "c"),
        ]);
        assert_eq!(names(&tree.branch(Some("c"))), ["first a", "c"]);
        tree.push(entry("a", None, "second a"));
        assert_eq!(names(&tree.branch(Some("c"))), ["second a", "c"]);
        let loaded = SessionTree::new(tree.entries().to_vec());
        assert_eq!(names(&loaded.branch(Some("c"))), ["second a", "c"]);
    }

    #[test]
    fn indexing_from_hashes_matches_indexing_entry_by_entry() {
        let mut entries = vec![
            entry("a", None, "first a"),
            entry("c", Some("a"), "c"),
            entry("a", None, "second a"),
            entry("d", Some("c"), "d"),
        ];
        entries.push(Entry {
            id: "l".into(),
            parent_id: Some("d".into()),
            timestamp: "t".into(),
            kind: EntryKind::Label {
                target_id: "c".into(),
                label: Some("mark".into()),
            },
        });
        let keys = IdKeys::new();
        let hashes: Vec<u64> = entries
            .iter()
            .map(|e| IdIndex::hash_with(&keys, &e.id))
            .collect();
        let hinted = SessionTree::from_hashed(entries.clone(), keys, &hashes, &[4]);
        let plain = SessionTree::new(entries);
        for tree in [&hinted, &plain] {
            assert_eq!(names(&tree.branch(Some("d"))), ["second a", "c", "d"]);
            assert_eq!(tree.label("c"), Some("mark"));
            assert!(tree.has_duplicate_ids && tree.contains("l") && !tree.contains("x"));
        }
    }
}
