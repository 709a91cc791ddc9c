//! Issue 19, item 12: one invalid UTF-8 byte on line 21 of a 40-entry session
//! dropped everything before it from the resumed context (42 → 23 messages).
//! A damaged line is skipped with its content kept aside, the context crosses
//! it by the ids it still holds, and the user is told how many lines were
//! skipped, where, and that the file was left untouched.

use crate::support::{user, Scratch};
use focus_harness::session::damaged::aside_path;
use focus_harness::session::{SessionManager, SessionStore};
use std::path::{Path, PathBuf};

/// A session of 40 user messages; its path.
fn forty_messages(scratch: &Scratch) -> PathBuf {
    let store = SessionStore::new(scratch.path());
    let mut session = SessionManager::create(&store, Path::new("/p")).unwrap();
    for i in 1..=40 {
        session
            .append_message(&user(&format!("message number {i}")))
            .unwrap();
    }
    session.path().unwrap().to_path_buf()
}

/// Replaces line `number` (1-based; line 1 is the header) with `make(line)`.
fn damage_line(path: &Path, number: usize, make: impl Fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    lines[number - 1] = make(&lines[number - 1]);
    let damaged = lines.join(&b'\n');
    std::fs::write(path, &damaged).unwrap();
    damaged
}

#[test]
fn an_invalid_byte_on_line_21_loses_only_that_entry_and_says_so() {
    let scratch = Scratch::new("damaged-utf8");
    let path = forty_messages(&scratch);
    // Line 21 is message 20: an invalid UTF-8 byte inside its text.
    let damaged = damage_line(&path, 21, |line| {
        let text = String::from_utf8_lossy(line).replace("message number 20", "message \u{1}");
        text.into_bytes()
            .into_iter()
            .map(|b| if b == 1 { 0xFF } else { b })
            .collect()
    });
    let session = SessionManager::open(&path).unwrap();
    let messages = session.context().messages;
    assert_eq!(messages.len(), 39, "every message but the damaged one");
    let note = session.damage_note().expect("the user is told");
    assert!(note.contains("1 damaged line skipped (line 21)"), "{note}");
    assert!(note.contains("left untouched"), "{note}");
    assert!(note.contains("continues across"), "{note}");
    assert!(
        note.contains(&aside_path(&path).display().to_string()),
        "{note}"
    );
    drop(session);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        damaged,
        "the file is untouched"
    );
    let aside = std::fs::read(aside_path(&path)).unwrap();
    assert!(aside.starts_with(b"# line 21\n"));
    assert!(
        aside.windows(9).any(|w| w == b"message \xFF"),
        "kept as found"
    );
}

#[test]
fn a_line_whose_ids_are_unreadable_is_reported_as_cutting_the_context() {
    let scratch = Scratch::new("damaged-garbage");
    let path = forty_messages(&scratch);
    damage_line(&path, 21, |_| b"\xff\xfe not json at all".to_vec());
    let session = SessionManager::open(&path).unwrap();
    // No id to follow: the context starts after the damaged line, and the note
    // says so instead of dropping the earlier messages silently.
    assert_eq!(session.context().messages.len(), 20);
    let note = session.damage_note().unwrap();
    assert!(note.contains("line 21"), "{note}");
    assert!(note.contains("could not be read"), "{note}");
    assert!(note.contains("not in the context"), "{note}");
}

#[test]
fn two_damaged_lines_in_a_row_are_crossed_too() {
    let scratch = Scratch::new("damaged-two");
    let path = forty_messages(&scratch);
    for number in [11, 12] {
        damage_line(&path, number, |line| {
            let mut cut = line[..line.len() - 10].to_vec();
            cut.extend_from_slice(b"\xc3(");
            cut
        });
    }
    let session = SessionManager::open(&path).unwrap();
    assert_eq!(session.context().messages.len(), 38);
    assert!(session
        .damage_note()
        .unwrap()
        .contains("2 damaged lines skipped (lines 11, 12)"));
}
