//! Real session files written by pi 0.73.1 (reference data outside the repo) load in
//! focus with every line intact: each entry re-serializes to the same JSON, key
//! order included.

use crate::support::json_equivalent;
use focus_core::json::{parse_str, ToJson};
use focus_harness::session::{convert_to_llm, SessionManager};
use std::path::PathBuf;

/// The pi samples, or `None` (a visible skip; a failure under `CI=true`).
fn samples_dir() -> Option<PathBuf> {
    focus_testkit::pi_samples_dir()
}

#[test]
fn pi_sessions_load_with_every_line_intact() {
    let Some(dir) = samples_dir() else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("pi-session-") && n.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 3,
        "expected pi session samples in {}",
        dir.display()
    );
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let session = SessionManager::open_read_only(&path).unwrap();
        assert!(session.load_problems().is_empty(), "{}", path.display());
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        assert_eq!(session.header().to_json().to_json_string(), header);
        let entries = session.tree().entries();
        assert_eq!(entries.len(), lines.clone().count());
        for (line, entry) in lines.zip(entries) {
            // Same keys in the same order with the same values; only the spelling of
            // integral floats may differ (pi's `0` cost is focus's `0.0`).
            let written = entry.to_json();
            assert!(
                json_equivalent(&written, &parse_str(line).unwrap()),
                "{}:\n{line}\n{}",
                path.display(),
                written.to_json_string()
            );
            let normalized = written
                .to_json_string()
                .replace(".0,", ",")
                .replace(".0}", "}");
            assert_eq!(normalized, line);
        }
        let context = session.context();
        assert_eq!(context.messages.len(), 4, "user, tool call, result, answer");
        assert_eq!(context.thinking_level, "off");
        assert_eq!(context.model.as_ref().unwrap().1, "tool2");
        assert_eq!(convert_to_llm(&context.messages), context.messages);
    }
}
