//! Lines added and removed by a checkpoint's changes, for listings
//! (`/rewind`, `get_checkpoints`, the HTML export): each line of the new text
//! that the old one lacks counts as added, each line of the old text the new
//! one lacks as removed (multisets of lines, so moves cost nothing). Only
//! files up to [`MAX_COUNTED`] bytes that are text are counted.

use super::blobs::BlobStore;
use super::manifest::Change;
use super::node::Node;
use std::collections::HashMap;

/// Larger files are not counted.
pub const MAX_COUNTED: u64 = 1 << 20;

/// (added, removed) over `changes`.
pub fn count(blobs: &BlobStore, changes: &[Change]) -> (u64, u64) {
    let mut total = (0, 0);
    for change in changes {
        let (old, new) = (text(blobs, &change.before), text(blobs, &change.after));
        let (added, removed) = diff_counts(&old, &new);
        total.0 += added;
        total.1 += removed;
    }
    total
}

fn text(blobs: &BlobStore, node: &Option<Node>) -> String {
    match node {
        Some(Node::File { blob, size, .. }) if *size <= MAX_COUNTED => blobs
            .read(blob)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// Lines of `new` not in `old`, and of `old` not in `new`.
pub fn diff_counts(old: &str, new: &str) -> (u64, u64) {
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for line in old.lines() {
        *counts.entry(line).or_default() -= 1;
    }
    for line in new.lines() {
        *counts.entry(line).or_default() += 1;
    }
    counts.values().fold((0, 0), |(a, r), n| {
        if *n > 0 {
            (a + *n as u64, r)
        } else {
            (a, r + n.unsigned_abs())
        }
    })
}
