//! Bringing older session files up to version 3, in memory.
//!
//! - v1 was a flat list without ids: every entry gets a fresh id and the previous
//!   entry as parent (a chain), and a compaction's `firstKeptEntryIndex` (an index
//!   into the file's lines, header included) becomes `firstKeptEntryId`.
//! - v2 called extension messages `hookMessage`; v3 calls them `custom`.
//!
//! Reading never rewrites the file; opening it for writing does (see
//! `SessionManager::open`), so that appended entries are never migrated twice.

use super::ids::unique_short_id;
use focus_core::json::Value;
use std::collections::HashSet;

/// Migrates `entries` (the lines after the header, parsed) from `version` to
/// [`super::entry::CURRENT_VERSION`]. Returns whether anything changed.
pub fn migrate_to_current(version: u64, entries: &mut [Value]) -> bool {
    if version >= super::entry::CURRENT_VERSION {
        return false;
    }
    if version < 2 {
        migrate_v1_to_v2(entries);
    }
    migrate_v2_to_v3(entries);
    true
}

fn migrate_v1_to_v2(entries: &mut [Value]) {
    let mut taken: HashSet<String> = HashSet::new();
    let mut ids = Vec::with_capacity(entries.len());
    let mut previous: Option<String> = None;
    for entry in entries.iter_mut() {
        let id = unique_short_id(|candidate| taken.contains(candidate));
        taken.insert(id.clone());
        if let Some(object) = entry.as_object_mut() {
            object.insert("id", id.as_str());
            object.insert(
                "parentId",
                previous.clone().map_or(Value::Null, Value::from),
            );
        }
        ids.push(id.clone());
        previous = Some(id);
    }
    for entry in entries.iter_mut() {
        let Some(object) = entry.as_object_mut() else {
            continue;
        };
        if object.get("type").and_then(Value::as_str) != Some("compaction") {
            continue;
        }
        if let Some(index) = object
            .remove("firstKeptEntryIndex")
            .and_then(|v| v.as_u64())
        {
            // Index 0 was the header; entries start at 1.
            if let Some(id) = (index as usize).checked_sub(1).and_then(|i| ids.get(i)) {
                object.insert("firstKeptEntryId", id.as_str());
            }
        }
    }
}

fn migrate_v2_to_v3(entries: &mut [Value]) {
    for entry in entries.iter_mut() {
        let Some(message) = entry
            .as_object_mut()
            .and_then(|o| o.get_mut("message"))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        if message.get("role").and_then(Value::as_str) == Some("hookMessage") {
            message.insert("role", "custom");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    #[test]
    fn v1_becomes_a_chain_and_compaction_index_becomes_an_id() {
        let mut entries: Vec<Value> = [
            r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"a","timestamp":1}}"#,
            r#"{"type":"message","timestamp":"t","message":{"role":"hookMessage","customType":"x","content":"b","display":true,"timestamp":2}}"#,
            r#"{"type":"compaction","timestamp":"t","summary":"s","firstKeptEntryIndex":2,"tokensBefore":5}"#,
        ]
        .iter()
        .map(|l| parse_str(l).unwrap())
        .collect();
        assert!(migrate_to_current(1, &mut entries));
        assert!(entries[0]["parentId"].is_null());
        assert_eq!(entries[1]["parentId"], entries[0]["id"]);
        assert_eq!(entries[2]["parentId"], entries[1]["id"]);
        assert_eq!(entries[2]["firstKeptEntryId"], entries[1]["id"]);
        assert!(entries[2].get("firstKeptEntryIndex").is_none());
        assert_eq!(entries[1]["message"]["role"].as_str(), Some("custom"));
        assert!(!migrate_to_current(3, &mut entries));
    }
}
