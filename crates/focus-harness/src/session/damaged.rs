//! Damaged lines: what is kept of a line that could not be read, so that
//! skipping it never silently cuts the conversation.
//!
//! A line in the middle of a session can be damaged (an invalid UTF-8 byte, a
//! disk error, a hand edit). The reader skips it as an entry, but a skipped
//! entry is a missing link: the entry after it names it as its parent, and a
//! walk from the leaf to the root would stop there, dropping everything before
//! it from the resumed context. So for each damaged line the reader keeps a
//! [`DamagedLine`]: its number, its raw bytes (kept aside: written beside the
//! session file by [`keep_aside`], never into it) and, when they can still be
//! read, its `id` and `parentId` ([`salvage_ids`]). The tree uses those as a
//! bridge ([`super::SessionTree::set_bridges`]): a child of the damaged entry
//! continues to the damaged entry's parent. When the ids cannot be read, the
//! walk does stop there, and [`summary`] says so.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use focus_core::json::{self, Value};

/// A line skipped because it could not be read as an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedLine {
    /// 1-based line number.
    pub line: usize,
    /// The line's bytes, as they are in the file.
    pub bytes: Vec<u8>,
    /// Its entry's id, if it could be read.
    pub id: Option<String>,
    /// Its entry's parent id (`None` inside: a root), if it could be read.
    pub parent_id: Option<Option<String>>,
}

impl DamagedLine {
    /// A damaged line with whatever ids can be salvaged from `bytes`.
    pub fn new(line: usize, bytes: &[u8]) -> DamagedLine {
        let (id, parent_id) = salvage_ids(bytes);
        DamagedLine {
            line,
            bytes: bytes.to_vec(),
            id,
            parent_id,
        }
    }
}

/// The `id` and `parentId` of a damaged entry line. First the line is read as
/// JSON with invalid UTF-8 replaced (a bad byte inside a message leaves the
/// structure intact); failing that, the two fields are looked for as text near
/// the start of the line, where pi and focus write them.
pub fn salvage_ids(bytes: &[u8]) -> (Option<String>, Option<Option<String>>) {
    let lossy = String::from_utf8_lossy(bytes);
    if let Ok(value @ Value::Object(_)) = json::parse(lossy.as_bytes()) {
        let id = value["id"].as_str().filter(|i| plausible_id(i));
        let parent = match &value["parentId"] {
            Value::Null => Some(None),
            Value::String(p) if plausible_id(p) => Some(Some(p.to_string())),
            _ => None,
        };
        if let Some(id) = id {
            return (Some(id.to_string()), parent);
        }
    }
    let head: String = lossy.chars().take(400).collect();
    let id = field_text(&head, "\"id\":\"");
    let parent = if head.contains("\"parentId\":null") {
        Some(None)
    } else {
        field_text(&head, "\"parentId\":\"").map(Some)
    };
    (id, parent)
}

/// The string value after `key` (which ends with the opening quote), if it
/// looks like an id.
fn field_text(text: &str, key: &str) -> Option<String> {
    let start = text.find(key)? + key.len();
    let rest = &text[start..];
    let value = &rest[..rest.find('"')?];
    plausible_id(value).then(|| value.to_string())
}

/// Entry ids are short ASCII tokens (8 hex digits in pi, UUIDs in old files).
fn plausible_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The bridges of `damaged`: damaged entry id → its parent id, for those
/// whose ids could be read.
pub fn bridges(damaged: &[DamagedLine]) -> HashMap<String, Option<String>> {
    damaged
        .iter()
        .filter_map(|d| Some((d.id.clone()?, d.parent_id.clone()?)))
        .collect()
}

/// Where the damaged lines of `session` are kept aside: `<file>.damaged`.
pub fn aside_path(session: &Path) -> PathBuf {
    let mut name = session.as_os_str().to_owned();
    name.push(".damaged");
    PathBuf::from(name)
}

/// Writes the damaged lines, each as found, after a `# line N` marker, to
/// [`aside_path`], unless that file already exists (an earlier load kept them).
/// Returns where they are, or `None` if they could not be written.
pub fn keep_aside(session: &Path, damaged: &[DamagedLine]) -> Option<PathBuf> {
    use std::io::Write;
    let path = aside_path(session);
    if path.exists() {
        return Some(path);
    }
    let mut file = focus_sys::private_files::options()
        .write(true)
        .create_new(true)
        .open(&path)
        .ok()?;
    for line in damaged {
        let written = writeln!(file, "# line {}", line.line)
            .and_then(|()| file.write_all(&line.bytes))
            .and_then(|()| file.write_all(b"\n"));
        if written.is_err() {
            return None;
        }
    }
    Some(path)
}

/// The note for the user: how many lines were skipped and where, that the
/// session file was left untouched, where the lines were kept, and whether the
/// conversation could be joined across them. `None` when nothing was skipped.
pub fn summary(damaged: &[DamagedLine], aside: Option<&Path>) -> Option<String> {
    if damaged.is_empty() {
        return None;
    }
    let lines: Vec<String> = damaged.iter().map(|d| d.line.to_string()).collect();
    let count = damaged.len();
    let mut text = format!(
        "{count} damaged line{} skipped (line{} {}); the session file was left untouched",
        if count == 1 { "" } else { "s" },
        if count == 1 { "" } else { "s" },
        lines.join(", ")
    );
    match aside {
        Some(path) => text.push_str(&format!(
            "; {} content is kept in {}",
            if count == 1 { "its" } else { "their" },
            path.display()
        )),
        None => text.push_str("; the content could not be copied aside"),
    }
    let unjoined: Vec<String> = damaged
        .iter()
        .filter(|d| d.id.is_none() || d.parent_id.is_none())
        .map(|d| d.line.to_string())
        .collect();
    if unjoined.is_empty() {
        text.push_str("; the conversation continues across them (their ids were readable)");
    } else {
        text.push_str(&format!(
            "; the ids of line{} {} could not be read, so a conversation passing through \
             {} starts after {}: earlier messages on that branch are not in the context",
            if unjoined.len() == 1 { "" } else { "s" },
            unjoined.join(", "),
            if unjoined.len() == 1 { "it" } else { "them" },
            if unjoined.len() == 1 { "it" } else { "them" },
        ));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_salvaged_from_a_line_with_a_bad_byte_or_a_cut() {
        let bad_byte = b"{\"type\":\"message\",\"id\":\"a1b2c3d4\",\"parentId\":\"99887766\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9\"}}";
        assert_eq!(
            salvage_ids(bad_byte),
            (Some("a1b2c3d4".into()), Some(Some("99887766".into())))
        );
        let cut = b"{\"type\":\"message\",\"id\":\"a1b2c3d4\",\"parentId\":null,\"message\":{\"ro";
        assert_eq!(salvage_ids(cut), (Some("a1b2c3d4".into()), Some(None)));
        assert_eq!(salvage_ids(b"\xff\xfe garbage"), (None, None));
        let hostile = b"{\"id\":\"../../etc\",\"parentId\":\"x\"}";
        assert_eq!(salvage_ids(hostile).0, None);
    }
}
