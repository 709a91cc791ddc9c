//! What a conflict shows: the lines that differ between what focus last
//! recorded and what is on disk now (text files up to a size), or what kind
//! of change it is.

use super::blobs::BlobStore;
use super::node::Node;
use std::collections::HashSet;

/// Lines shown at most per conflict.
const MAX_LINES: usize = 12;
/// Larger files are described, not diffed.
const MAX_DIFFED: u64 = 256 * 1024;

/// A short description of how `found` differs from `recorded`.
pub fn describe(blobs: &BlobStore, recorded: &Option<Node>, found: &Option<Node>) -> String {
    match (recorded, found) {
        (None, Some(_)) => "focus recorded nothing here; something was created since".into(),
        (Some(_), None) => {
            "focus recorded it; it was removed (or replaced by a special file)".into()
        }
        (
            Some(Node::File {
                blob: a,
                size: sa,
                mode: ma,
            }),
            Some(Node::File {
                blob: b,
                size: sb,
                mode: mb,
            }),
        ) => {
            if a == b {
                return format!("mode changed: {ma:o} -> {mb:o}");
            }
            if *sa > MAX_DIFFED || *sb > MAX_DIFFED {
                return format!("content changed: {sa} -> {sb} bytes");
            }
            let (Ok(old), Ok(new)) = (blobs.read(a), blobs.read(b)) else {
                return format!("content changed: {sa} -> {sb} bytes");
            };
            match (String::from_utf8(old), String::from_utf8(new)) {
                (Ok(old), Ok(new)) => line_diff(&old, &new),
                _ => format!("binary content changed: {sa} -> {sb} bytes"),
            }
        }
        (Some(a), Some(b)) => format!("changed: {a:?} -> {b:?}"),
        (None, None) => String::new(),
    }
}

/// `-` for lines only in `old`, `+` for lines only in `new`, in order, capped.
fn line_diff(old: &str, new: &str) -> String {
    let old_set: HashSet<&str> = old.lines().collect();
    let new_set: HashSet<&str> = new.lines().collect();
    let mut out: Vec<String> = old
        .lines()
        .filter(|l| !new_set.contains(l))
        .map(|l| format!("- {}", visible(l)))
        .collect();
    out.extend(
        new.lines()
            .filter(|l| !old_set.contains(l))
            .map(|l| format!("+ {}", visible(l))),
    );
    let total = out.len();
    out.truncate(MAX_LINES);
    if total > MAX_LINES {
        out.push(format!("… {} more lines differ", total - MAX_LINES));
    }
    if out.is_empty() {
        out.push("the same lines, in another order or with other line ends".into());
    }
    out.join("\n")
}

/// `line` with control characters shown as `?` (the terminal never obeys a
/// file's escape sequences) and cut at 200 characters.
fn visible(line: &str) -> String {
    line.chars()
        .take(200)
        .map(|c| if c.is_control() && c != '\t' { '?' } else { c })
        .collect()
}
