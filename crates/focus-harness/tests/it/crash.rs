//! Killing the writer at random moments: a session file cut at 1,000 random byte
//! offsets (a seeded generator, so a failure reproduces) always loads, keeps every
//! complete entry, and takes the next append on a fresh line.

use crate::support::{assistant, tool_result, user, Rng, Scratch};
use focus_core::json::Value;
use focus_core::json_object;
use focus_harness::session::{Entry, SessionManager, SessionStore};
use std::path::Path;

/// Writes a session with a bit of everything and returns its bytes and entries.
fn sample_session(store: &SessionStore) -> (Vec<u8>, Vec<Entry>) {
    let mut session = SessionManager::create(store, Path::new("/p")).unwrap();
    session.append_model_change("scripted", "m1").unwrap();
    for turn in 0..4 {
        session
            .append_message(&user(&format!("question {turn} with ünïcödé ✓")))
            .unwrap();
        let call = format!("call{turn}");
        session
            .append_message(&assistant(
                "checking",
                &[(call.as_str(), "read", json_object! { "path" => "a.rs" })],
                100,
            ))
            .unwrap();
        session
            .append_message(&tool_result(&call, &"line\n".repeat(turn * 7)))
            .unwrap();
        session
            .append_message(&assistant("done", &[], 200))
            .unwrap();
    }
    let first = session.tree().entries()[1].id.clone();
    session.set_label(&first, Some("q0")).unwrap();
    session.append_custom("ext", Value::Null).unwrap();
    let bytes = std::fs::read(session.path().unwrap()).unwrap();
    (bytes, session.tree().entries().to_vec())
}

/// How many entries are complete in the first `len` bytes: whole lines after the
/// header, plus a final line that is complete JSON and only lacks its newline.
fn complete_entries(bytes: &[u8], len: usize) -> usize {
    let ends: Vec<usize> = bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .map(|(i, _)| i)
        .collect();
    let whole_lines = ends.iter().filter(|&&e| e < len).count();
    // A cut exactly before a newline leaves a complete line.
    let complete = whole_lines + usize::from(ends.contains(&len));
    complete.saturating_sub(1)
}

#[test]
fn a_file_cut_at_any_of_1000_random_offsets_loads_with_every_complete_entry() {
    let scratch = Scratch::new("crash");
    let store = SessionStore::new(scratch.path());
    let (bytes, entries) = sample_session(&store);
    assert!(bytes.len() > 2_000, "{}", bytes.len());
    let cut_path = scratch.path().join("cut.jsonl");
    let mut rng = Rng::new(0x5eed_f0c5);
    let mut torn_seen = 0;
    for round in 0..1000 {
        let len = rng.below(bytes.len() as u64 + 1) as usize;
        std::fs::write(&cut_path, &bytes[..len]).unwrap();
        let session = SessionManager::open_read_only(&cut_path)
            .unwrap_or_else(|e| panic!("round {round}, cut at {len}: {e}"));
        let expected = complete_entries(&bytes, len);
        assert_eq!(
            session.tree().entries(),
            &entries[..expected],
            "round {round}, cut at {len}"
        );
        let torn = len > 0 && bytes[len - 1] != b'\n' && !bytes[..len].ends_with(b"}");
        if torn {
            torn_seen += 1;
            assert_eq!(session.load_problems().len(), 1, "cut at {len}");
        }
        // Every 20th round: the next writer appends, and the file is clean again.
        if round % 20 == 0 {
            drop(session);
            let mut writer = SessionManager::open(&cut_path).unwrap();
            let id = writer.append_message(&user("after the crash")).unwrap();
            drop(writer);
            let reloaded = SessionManager::open_read_only(&cut_path).unwrap();
            assert!(
                reloaded.load_problems().is_empty(),
                "cut at {len}: {:?}",
                reloaded.load_problems()
            );
            let got = reloaded.tree().entries();
            assert_eq!(got.len(), expected + 1, "cut at {len}");
            assert_eq!(&got[..expected], &entries[..expected]);
            assert_eq!(got[expected].id, id);
            assert_eq!(
                got[expected].parent_id,
                entries[..expected].last().map(|e| e.id.clone())
            );
        }
    }
    assert!(torn_seen > 900, "most random cuts tear a line: {torn_seen}");
}
