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
        let len = rng.below_u64(bytes.len() as u64 + 1) as usize;
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

/// Not a test on its own: the writer process that `killing_a_real_writer_…` starts
/// (this same test binary, re-run with `FOCUS_CRASH_CHILD_FILE` set) and kills.
#[test]
fn crash_child_writer() {
    let Some(path) = std::env::var_os("FOCUS_CRASH_CHILD_FILE") else {
        return;
    };
    let mut session = SessionManager::open(Path::new(&path)).unwrap();
    let started = std::time::Instant::now();
    let mut n = 0u64;
    // Bounded, in case the parent dies first.
    while started.elapsed() < std::time::Duration::from_secs(10) {
        let size = (n * 7919) % 60_000;
        session
            .append_message(&user(&"x".repeat(size as usize)))
            .unwrap();
        n += 1;
    }
}

#[test]
fn killing_a_real_writer_process_never_loses_a_complete_entry() {
    let scratch = Scratch::new("kill");
    let exe = std::env::current_exe().unwrap();
    let mut rng = Rng::new(7);
    for round in 0..5 {
        let path = scratch.path().join(format!("killed-{round}.jsonl"));
        let mut child = std::process::Command::new(&exe)
            .args([
                "--exact",
                "crash::crash_child_writer",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("FOCUS_CRASH_CHILD_FILE", &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Wait until it has written something, then a little more, then kill -9.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::fs::metadata(&path).map_or(0, |m| m.len()) == 0 {
            assert!(std::time::Instant::now() < deadline, "child never wrote");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        std::thread::sleep(std::time::Duration::from_millis(rng.below_u64(40)));
        child.kill().unwrap();
        child.wait().unwrap();

        let loaded = SessionManager::open_read_only(&path).unwrap();
        assert!(
            loaded.load_problems().len() <= 1,
            "{:?}",
            loaded.load_problems()
        );
        let entries = loaded.tree().entries();
        assert!(!entries.is_empty());
        for pair in entries.windows(2) {
            assert_eq!(pair[1].parent_id.as_deref(), Some(pair[0].id.as_str()));
        }
        let count = entries.len();
        drop(loaded);
        // The dead writer's lock is stale: a new writer takes over and appends cleanly.
        let mut writer = SessionManager::open(&path).unwrap();
        writer.append_message(&user("next")).unwrap();
        drop(writer);
        let reloaded = SessionManager::open_read_only(&path).unwrap();
        assert!(reloaded.load_problems().is_empty());
        assert_eq!(reloaded.tree().entries().len(), count + 1);
    }
}

#[test]
fn damaged_links_and_random_byte_damage_never_panic() {
    // Cycles, self-parents and orphans: the tree and the context still come out.
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#;
    let line = |id: &str, parent: &str, text: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"t","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
        )
    };
    let text = [
        header.to_string(),
        line("a", r#""b""#, "cycle a"),
        line("b", r#""a""#, "cycle b"),
        line("c", r#""c""#, "self"),
        line("d", r#""missing""#, "orphan"),
        line("e", r#""d""#, "child of orphan"),
    ]
    .join("\n");
    let scratch = Scratch::new("damage");
    let path = scratch.path().join("d.jsonl");
    std::fs::write(&path, &text).unwrap();
    let mut session = SessionManager::open_read_only(&path).unwrap();
    assert_eq!(session.context().messages.len(), 2, "orphan and its child");
    session.move_leaf(Some("a")).unwrap();
    assert_eq!(
        session.context().messages.len(),
        2,
        "a cycle is walked once"
    );
    session.move_leaf(Some("c")).unwrap();
    assert_eq!(session.context().messages.len(), 1);
    let roots = session.tree().nodes();
    assert_eq!(roots.len(), 2, "c and d are roots; the a-b cycle has none");

    // Random byte damage to a real session: loading either works or refuses
    // cleanly, and building the context and the tree never panics.
    let store = SessionStore::new(scratch.path());
    let (bytes, _) = sample_session(&store);
    let mut rng = Rng::new(99);
    for _ in 0..300 {
        let mut damaged = bytes.clone();
        for _ in 0..1 + rng.below_u64(8) {
            let at = rng.below_u64(damaged.len() as u64) as usize;
            match rng.below_u64(3) {
                0 => damaged[at] = rng.below_u64(256) as u8,
                1 => damaged.insert(at, b'\n'),
                _ => {
                    damaged.remove(at);
                }
            }
        }
        std::fs::write(&path, &damaged).unwrap();
        if let Ok(session) = SessionManager::open_read_only(&path) {
            let _ = session.context();
            let _ = session.tree().nodes();
        }
    }
}
