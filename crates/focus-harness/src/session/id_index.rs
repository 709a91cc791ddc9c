//! [`IdIndex`]: where each entry id sits in a session's entry list, without a
//! copy of every id.
//!
//! A `HashMap<String, usize>` would copy each id into a key of its own: one
//! allocation per entry, ten thousand of them for a big session, on every load.
//! The ids already live in the entries, so this index keys each position by the
//! id's 64-bit hash instead and, on a lookup, checks the entry at that position
//! really has the id asked for.
//!
//! Two different ids can share a hash. The hash is keyed at random per index (as
//! `HashMap`'s own is), so no file can arrange that, but an index must still be
//! right when it happens by chance: the later id then goes into a small ordinary
//! map, `colliding`, which is consulted first and is empty in practice.

use super::entry::Entry;
use std::collections::hash_map::{Entry as Slot, RandomState};
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

pub(super) use std::collections::hash_map::RandomState as IdKeys;

/// Positions of entries by id; the entries themselves are passed to each call.
#[derive(Clone, Debug, Default)]
pub(super) struct IdIndex {
    /// Position by the id's hash (the first id seen with that hash).
    by_hash: HashMap<u64, usize, BuildHasherDefault<AlreadyHashed>>,
    /// Position by id, for ids whose hash belongs to another id in `by_hash`.
    colliding: HashMap<String, usize>,
    /// The random key of the id hash.
    keys: RandomState,
}

impl IdIndex {
    /// An empty index with room for `entries` ids.
    pub(super) fn with_capacity(entries: usize) -> IdIndex {
        IdIndex {
            by_hash: HashMap::with_capacity_and_hasher(entries, Default::default()),
            ..IdIndex::default()
        }
    }

    /// An empty index with room for `entries` ids, hashing them with `keys`.
    pub(super) fn with_keys(keys: RandomState, entries: usize) -> IdIndex {
        IdIndex {
            keys,
            ..IdIndex::with_capacity(entries)
        }
    }

    /// Records that the entry at `position` (the last of `entries`, which are the
    /// entries indexed so far) is where its id is; a later position for the same
    /// id replaces the earlier one. Returns whether the id was already indexed.
    pub(super) fn insert(&mut self, position: usize, entries: &[Entry]) -> bool {
        let hash = self.keys.hash_one(&entries[position].id);
        self.insert_hashed(hash, position, entries)
    }

    /// [`IdIndex::insert`] with the id's hash (by [`IdIndex::hash_with`] with this
    /// index's keys) already computed: the entry itself is then only read when
    /// the hash is taken, which for a file without duplicated ids is never.
    pub(super) fn insert_hashed(&mut self, hash: u64, position: usize, entries: &[Entry]) -> bool {
        match self.by_hash.entry(hash) {
            Slot::Vacant(slot) => {
                slot.insert(position);
                false
            }
            Slot::Occupied(mut slot) => {
                let id = &entries[position].id;
                if entries[*slot.get()].id == *id {
                    slot.insert(position);
                    true
                } else {
                    self.colliding.insert(id.to_string(), position).is_some()
                }
            }
        }
    }

    /// The hash of `id` under `keys`, as [`IdIndex::insert_hashed`] wants it.
    pub(super) fn hash_with(keys: &RandomState, id: &str) -> u64 {
        keys.hash_one(id)
    }

    /// The position of `id` among `entries`.
    pub(super) fn get(&self, id: &str, entries: &[Entry]) -> Option<usize> {
        if !self.colliding.is_empty() {
            if let Some(&position) = self.colliding.get(id) {
                return Some(position);
            }
        }
        let &position = self.by_hash.get(&self.keys.hash_one(id))?;
        (entries.get(position)?.id == id).then_some(position)
    }
}

/// The hasher of `by_hash`, whose keys are hashes already: it passes them on.
#[derive(Default)]
struct AlreadyHashed(u64);

impl Hasher for AlreadyHashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used (the keys are `u64`); fold anything else in.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::entry::EntryKind;

    fn entry(id: &str) -> Entry {
        Entry {
            id: id.into(),
            parent_id: None,
            timestamp: "t".into(),
            kind: EntryKind::SessionInfo { name: None },
        }
    }

    #[test]
    fn finds_ids_and_the_last_position_of_a_duplicate() {
        let entries: Vec<Entry> = ["a", "b", "a", "c"].into_iter().map(entry).collect();
        let mut index = IdIndex::with_capacity(4);
        let dup: Vec<bool> = (0..4).map(|i| index.insert(i, &entries[..=i])).collect();
        assert_eq!(dup, [false, false, true, false]);
        assert_eq!(index.get("a", &entries), Some(2));
        assert_eq!(index.get("b", &entries), Some(1));
        assert_eq!(index.get("c", &entries), Some(3));
        assert_eq!(index.get("d", &entries), None);
    }

    #[test]
    fn ids_sharing_a_hash_are_told_apart() {
        // Force every id onto one hash by indexing under a fixed key and then
        // planting the colliding case by hand: "y" claims "x"'s slot.
        let entries: Vec<Entry> = ["x", "y", "y", "x"].into_iter().map(entry).collect();
        let mut index = IdIndex::default();
        index.insert(0, &entries);
        let hash_of_y = index.keys.hash_one("y");
        index.by_hash.insert(hash_of_y, 0); // "y" now looks like it sits at "x"
        assert_eq!(index.get("y", &entries), None, "the entry check rejects it");
        assert!(!index.insert(1, &entries), "a new id, kept aside");
        assert!(index.insert(2, &entries), "the same id again");
        assert!(index.insert(3, &entries));
        assert_eq!(index.get("y", &entries), Some(2));
        assert_eq!(index.get("x", &entries), Some(3));
    }
}
