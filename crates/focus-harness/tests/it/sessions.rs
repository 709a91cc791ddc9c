//! Sessions: creating, appending, reloading, branching, forking, labels, names,
//! listing, and the hand-written pi-format fixtures.

use crate::support::{assistant, tool_result, user, Scratch};
use focus_core::json::{parse_str, FromJson, ToJson};
use focus_core::json_object;
use focus_core::message::{now_ms, Message, UserMessage};
use focus_harness::session::{
    convert_to_llm, EntryKind, ProblemKind, SessionError, SessionManager, SessionStore,
};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/sessions")
        .join(name)
}

fn texts(messages: &[Message]) -> Vec<String> {
    convert_to_llm(messages)
        .iter()
        .map(|m| match m {
            Message::User(u) => format!("user:{}", u.content[0].as_text().unwrap_or("")),
            Message::Assistant(a) => format!("assistant:{}", a.text()),
            Message::ToolResult(r) => format!("tool:{}", r.tool_call_id),
            Message::Custom(c) => format!("custom:{}", c.role),
        })
        .collect()
}

#[test]
fn appended_entries_reload_identically_with_the_same_leaf_and_context() {
    let scratch = Scratch::new("reload");
    let store = SessionStore::new(scratch.path());
    let cwd = Path::new("/work/project");
    let mut session = SessionManager::create(&store, cwd).unwrap();
    assert!(session.path().unwrap().starts_with(store.dir_for(cwd)));
    assert!(
        !session.path().unwrap().exists(),
        "file appears with the first message"
    );
    session.append_model_change("scripted", "m1").unwrap();
    session.append_thinking_level_change("high").unwrap();
    assert!(
        !session.path().unwrap().exists(),
        "a session with no message yet leaves no file (as in pi)"
    );
    session.append_message(&user("list files")).unwrap();
    let call = json_object! { "command" => "ls" };
    session
        .append_message(&assistant("", &[("c1", "bash", call)], 100))
        .unwrap();
    session.append_message(&tool_result("c1", "a b")).unwrap();
    session
        .append_message(&assistant("done", &[], 120))
        .unwrap();
    let path = session.path().unwrap().to_path_buf();
    let before = session.context();
    let entries = session.tree().entries().to_vec();
    drop(session);

    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 7, "header + 6 entries");
    let header = parse_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["type"].as_str(), Some("session"));
    assert_eq!(header["version"].as_u64(), Some(3));
    assert_eq!(header["cwd"].as_str(), Some("/work/project"));

    let reopened = SessionManager::open(&path).unwrap();
    assert!(reopened.load_problems().is_empty());
    assert_eq!(reopened.tree().entries(), &entries[..]);
    assert_eq!(reopened.leaf_id(), Some(entries[5].id.as_str()));
    let after = reopened.context();
    assert_eq!(after, before);
    assert_eq!(
        reopened.model_and_thinking(),
        (after.model.clone(), after.thinking_level.clone())
    );
    assert_eq!(after.thinking_level, "high");
    assert_eq!(after.model, Some(("scripted".into(), "m1".into())));
    assert_eq!(after.messages.len(), 4);
    // Ids are 8 hex chars and chain.
    for pair in entries.windows(2) {
        assert_eq!(pair[1].parent_id.as_deref(), Some(pair[0].id.as_str()));
    }
    assert!(entries.iter().all(|e| e.id.len() == 8));
}

#[test]
fn moving_the_leaf_branches_in_place_and_the_new_branch_survives_reload() {
    let scratch = Scratch::new("branch");
    let store = SessionStore::new(scratch.path());
    let mut session = SessionManager::create(&store, Path::new("/p")).unwrap();
    let q1 = session.append_message(&user("q1")).unwrap();
    let a1 = session.append_message(&assistant("a1", &[], 10)).unwrap();
    session.append_message(&user("q2")).unwrap();
    let a2 = session.append_message(&assistant("a2", &[], 20)).unwrap();
    session.move_leaf(Some(&a1)).unwrap();
    session.append_branch_summary(&a2, "tried q2").unwrap();
    session.append_message(&user("q2 again")).unwrap();
    session.append_message(&assistant("a2'", &[], 30)).unwrap();
    assert_eq!(
        texts(&session.context().messages)[..2],
        ["user:q1".to_string(), "assistant:a1".to_string()]
    );
    let expected = texts(&session.context().messages);
    assert!(expected[2].contains("<summary>\ntried q2</summary>"));
    assert_eq!(
        expected[3..],
        ["user:q2 again".to_string(), "assistant:a2'".to_string()]
    );

    let children: Vec<&str> = session
        .tree()
        .children(&a1)
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    assert_eq!(children.len(), 2, "two branches from a1");
    let roots = session.tree().nodes();
    assert_eq!(roots.len(), 1);
    assert_eq!(roots[0].entry.id, q1);
    assert_eq!(roots[0].children[0].children.len(), 2);

    let path = session.path().unwrap().to_path_buf();
    drop(session);
    let reopened = SessionManager::open_read_only(&path).unwrap();
    assert_eq!(texts(&reopened.context().messages), expected);

    let mut session = SessionManager::open(&path).unwrap();
    assert!(matches!(
        session.move_leaf(Some("nope")),
        Err(SessionError::NoSuchEntry(_))
    ));
    session.move_leaf(None).unwrap();
    assert!(session.context().messages.is_empty());
    let new_root = session.append_message(&user("fresh start")).unwrap();
    assert_eq!(session.tree().get(&new_root).unwrap().parent_id, None);
}

#[test]
fn labels_and_names_are_entries_and_fork_copies_the_branch() {
    let scratch = Scratch::new("fork");
    let store = SessionStore::new(scratch.path());
    let cwd = Path::new("/p");
    let mut session = SessionManager::create(&store, cwd).unwrap();
    let q1 = session.append_message(&user("q1")).unwrap();
    let a1 = session.append_message(&assistant("a1", &[], 10)).unwrap();
    session.set_label(&q1, Some("start")).unwrap();
    session.set_name("  my session ").unwrap();
    session.append_message(&user("q2")).unwrap();
    session.append_message(&assistant("a2", &[], 20)).unwrap();
    assert_eq!(session.tree().label(&q1), Some("start"));
    assert_eq!(session.name(), Some("my session"));
    assert!(matches!(
        session.set_label("missing", Some("x")),
        Err(SessionError::NoSuchEntry(_))
    ));

    let fork = session.fork(Some(&a1), &store, cwd).unwrap();
    let fork_path = fork.path().unwrap().to_path_buf();
    assert_ne!(fork.id(), session.id());
    assert_eq!(
        fork.header().parent_session.as_deref(),
        Some(session.path().unwrap().to_str().unwrap())
    );
    assert_eq!(texts(&fork.context().messages), ["user:q1", "assistant:a1"]);
    assert_eq!(fork.tree().label(&q1), Some("start"), "labels carried over");
    drop(fork);
    let reopened = SessionManager::open(&fork_path).unwrap();
    assert_eq!(reopened.tree().label(&q1), Some("start"));
    assert_eq!(
        texts(&reopened.context().messages),
        ["user:q1", "assistant:a1"]
    );

    // Clearing a label.
    session.set_label(&q1, None).unwrap();
    assert_eq!(session.tree().label(&q1), None);
    let path = session.path().unwrap().to_path_buf();
    drop(session);
    assert_eq!(
        SessionManager::open_read_only(&path)
            .unwrap()
            .tree()
            .label(&q1),
        None
    );
}

#[test]
fn listing_continue_recent_and_id_prefixes() {
    let scratch = Scratch::new("list");
    let store = SessionStore::new(scratch.path());
    let here = Path::new("/p/here");
    let there = Path::new("/p/there");
    let mut first = SessionManager::create(&store, here).unwrap();
    // Real timestamps: the list is ordered by the newest message.
    let now = |text: &str| Message::User(UserMessage::text(text, now_ms()));
    first.append_message(&now("first question")).unwrap();
    first.set_name("named").unwrap();
    let first_id = first.id().to_string();
    drop(first);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut second = SessionManager::create(&store, here).unwrap();
    second.append_message(&now("second question")).unwrap();
    second.append_message(&assistant("answer", &[], 5)).unwrap();
    let second_path = second.path().unwrap().to_path_buf();
    drop(second);
    let mut elsewhere = SessionManager::create(&store, there).unwrap();
    elsewhere.append_message(&user("other project")).unwrap();
    let elsewhere_id = elsewhere.id().to_string();
    drop(elsewhere);

    let listed = store.list(here);
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[1].name.as_deref(), Some("named"));
    assert_eq!(listed[1].first_message, "first question");
    assert_eq!(listed[0].message_count, 2);
    assert_eq!(store.list_all().len(), 3);

    let recent = SessionManager::continue_recent(&store, here).unwrap();
    assert_eq!(recent.path(), Some(second_path.as_path()));
    drop(recent);
    let by_path =
        SessionManager::open_path_or_id(&store, second_path.to_str().unwrap(), Path::new("/x"))
            .unwrap();
    assert_eq!(by_path.tree().entries().len(), 2);
    drop(by_path);
    let fresh = SessionManager::continue_recent(&store, Path::new("/nowhere")).unwrap();
    assert!(fresh.tree().entries().is_empty());

    // Session ids are UUIDv7: the first 8 chars are time, so use a unique tail part.
    let by_prefix = SessionManager::open_by_id_prefix(&store, &first_id, here).unwrap();
    assert_eq!(by_prefix.name(), Some("named"));
    drop(by_prefix);
    let other = SessionManager::open_path_or_id(&store, &elsewhere_id[..], here).unwrap();
    assert_eq!(other.header().cwd, "/p/there");
    drop(other);
    assert!(matches!(
        store.find_by_id_prefix("zzzz", here),
        Err(SessionError::NoSuchSession(_))
    ));
    let common = &first_id[..4]; // same millisecond era: all three share it
    match store.find_by_id_prefix(common, Path::new("/nowhere")) {
        Err(SessionError::AmbiguousPrefix { matches, .. }) => assert_eq!(matches.len(), 3),
        other => panic!("expected ambiguity, got {other:?}"),
    }
}

#[test]
fn in_memory_sessions_never_touch_the_disk() {
    let mut session = SessionManager::in_memory(Path::new("/p"));
    session.append_message(&user("hi")).unwrap();
    assert!(session.path().is_none() && !session.is_persisted());
    assert_eq!(session.context().messages.len(), 1);
    let store = SessionStore::new("/nonexistent-focus-home");
    let fork = session.fork(None, &store, Path::new("/p")).unwrap();
    assert!(fork.path().is_none());
}

#[test]
fn own_pi_format_fixture_loads_every_entry_and_builds_both_branches() {
    let path = fixture("pi-v3-all-entry-types.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let session = SessionManager::open_read_only(&path).unwrap();
    assert!(
        session.load_problems().is_empty(),
        "{:?}",
        session.load_problems()
    );
    let entries = session.tree().entries();
    assert_eq!(entries.len(), text.lines().count() - 1);
    // Every message in the file is intact: same JSON meaning after going through focus.
    for (line, entry) in text.lines().skip(1).zip(entries) {
        let raw = parse_str(line).unwrap();
        if let EntryKind::Message(m) = &entry.kind {
            let reread = Message::from_json(&m.to_json()).unwrap();
            assert_eq!(&reread, m);
            assert_eq!(&Message::from_json(&raw["message"]).unwrap(), m);
        }
        assert_eq!(raw["type"].as_str(), Some(entry.kind.type_name()));
    }
    assert_eq!(session.name(), Some("word counter work"));
    assert_eq!(session.tree().label("e1000003"), Some("start"));

    // Leaf = last entry: the branch that went through the branch summary.
    let context = session.context();
    assert_eq!(context.model, Some(("openai".into(), "gpt-5".into())));
    assert_eq!(context.thinking_level, "medium");
    assert_eq!(
        session.model_and_thinking(),
        (context.model.clone(), context.thinking_level.clone())
    );
    let got = texts(&context.messages);
    assert_eq!(got.len(), 7);
    assert_eq!(
        got[0],
        "user:Read README.md and tell me what the project does"
    );
    assert!(got[4].contains("Added a --lines flag"));
    assert_eq!(got[6], "assistant:Sure, adding --chars.");

    // The other branch: compaction summary, kept entries from e1000009, then the rest.
    let mut other = SessionManager::open_read_only(&path).unwrap();
    other.move_leaf(Some("e1000010")).unwrap();
    let got = texts(&other.context().messages);
    assert!(got[0].starts_with(
        "user:The conversation history before this point was compacted into the following summary:"
    ));
    assert_eq!(
        got[1..],
        [
            "user:Add a --lines flag to src/main.rs".to_string(),
            "assistant:".into(),
            "tool:toolu_02".into(),
            "user:Remember to run the tests.".into(),
            "user:Ran `cargo test`\n```\ntest result: ok. 3 passed\n```".into(),
            "assistant:The tests pass.".into(),
        ]
    );
}

#[test]
fn version_1_fixture_is_migrated_in_memory() {
    let path = fixture("pi-v1-linear.jsonl");
    let before = std::fs::read(&path).unwrap();
    let session = SessionManager::open_read_only(&path).unwrap();
    assert!(matches!(
        session.load_problems()[0].kind,
        ProblemKind::Migrated { from: 1 }
    ));
    assert_eq!(session.header().version, 3);
    assert_eq!(session.tree().entries().len(), 7);
    let got = texts(&session.context().messages);
    assert!(got[0].contains("User greeted; asked arithmetic."));
    assert_eq!(
        got[1..],
        ["user:what is 2+2?", "assistant:4", "user:and 3+3?"]
    );
    let hook = &session.tree().entries()[2];
    assert_eq!(
        hook.message().unwrap().role(),
        "custom",
        "hookMessage renamed"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before, "file left untouched");
}

#[test]
fn newer_version_and_foreign_files_are_refused_clearly() {
    let scratch = Scratch::new("refuse");
    let newer = scratch.path().join("newer.jsonl");
    std::fs::write(
        &newer,
        "{\"type\":\"session\",\"version\":9,\"id\":\"x\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n",
    )
    .unwrap();
    let err = SessionManager::open(&newer).unwrap_err().to_string();
    assert!(err.contains("session format version 9 is newer"), "{err}");
    let foreign = scratch.path().join("foreign.jsonl");
    std::fs::write(&foreign, "{\"type\":\"event\",\"n\":1}\n").unwrap();
    let err = SessionManager::open(&foreign).unwrap_err().to_string();
    assert!(err.contains("is not a session file"), "{err}");
}

#[test]
fn corrupt_middle_line_is_reported_with_its_number_and_appends_continue() {
    let scratch = Scratch::new("corrupt");
    let store = SessionStore::new(scratch.path());
    let mut session = SessionManager::create(&store, Path::new("/p")).unwrap();
    session.append_message(&user("q1")).unwrap();
    let a1 = session.append_message(&assistant("a1", &[], 1)).unwrap();
    let path = session.path().unwrap().to_path_buf();
    drop(session);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"type\":\"message\",\"id\":\"zz\"\u{0}garbage\n");
    std::fs::write(&path, &text).unwrap();
    let mut session = SessionManager::open(&path).unwrap();
    let problems: Vec<String> = session
        .load_problems()
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("line 4: skipped corrupt line"),
        "{problems:?}"
    );
    let q2 = session.append_message(&user("q2")).unwrap();
    assert_eq!(
        session.tree().get(&q2).unwrap().parent_id.as_deref(),
        Some(a1.as_str())
    );
    drop(session);
    let reopened = SessionManager::open_read_only(&path).unwrap();
    assert_eq!(reopened.tree().entries().len(), 3);
}

#[test]
fn agent_events_are_recorded_on_message_end_only() {
    use focus_core::event::AgentEvent;
    use focus_core::message::CustomMessage;
    let mut session = SessionManager::in_memory(Path::new("/p"));
    let start = AgentEvent::MessageStart {
        message: user("hi"),
    };
    assert_eq!(session.record_event(&start).unwrap(), None);
    let end = AgentEvent::MessageEnd {
        message: user("hi"),
    };
    assert!(session.record_event(&end).unwrap().is_some());
    let note = Message::Custom(CustomMessage {
        role: "custom".into(),
        raw: json_object! {
            "role" => "custom", "customType" => "note", "content" => "remember", "display" => false, "timestamp" => 5
        },
    });
    let id = session
        .record_event(&AgentEvent::MessageEnd { message: note })
        .unwrap()
        .unwrap();
    assert!(matches!(
        &session.tree().get(&id).unwrap().kind,
        EntryKind::CustomMessage { custom_type, display: false, .. } if custom_type == "note"
    ));
    assert_eq!(
        texts(&session.context().messages),
        ["user:hi", "user:remember"]
    );
}

#[test]
fn appending_to_an_old_version_file_rewrites_it_in_version_3_first() {
    let scratch = Scratch::new("upgrade");
    let path = scratch.path().join("old.jsonl");
    std::fs::copy(fixture("pi-v1-linear.jsonl"), &path).unwrap();
    let mut session = SessionManager::open(&path).unwrap();
    let ids: Vec<String> = session
        .tree()
        .entries()
        .iter()
        .map(|e| e.id.to_string())
        .collect();
    session.append_message(&user("and 4+4?")).unwrap();
    drop(session);
    let backup = scratch.path().join("old.jsonl.v1.bak");
    assert_eq!(
        std::fs::read(&backup).unwrap(),
        std::fs::read(fixture("pi-v1-linear.jsonl")).unwrap()
    );
    let reopened = SessionManager::open_read_only(&path).unwrap();
    assert!(
        reopened.load_problems().is_empty(),
        "{:?}",
        reopened.load_problems()
    );
    let again: Vec<String> = reopened
        .tree()
        .entries()
        .iter()
        .map(|e| e.id.to_string())
        .collect();
    assert_eq!(
        again[..ids.len()],
        ids[..],
        "ids are stable after the rewrite"
    );
    assert_eq!(
        texts(&reopened.context().messages)[1..],
        [
            "user:what is 2+2?",
            "assistant:4",
            "user:and 3+3?",
            "user:and 4+4?"
        ]
    );
}

#[test]
fn the_converter_plugs_into_the_agent_config() {
    use focus_core::agent::AgentConfig;
    use focus_harness::session::convert_to_llm_hook;
    use std::sync::Arc;
    let provider = Arc::new(crate::support::ScriptedProvider::new(Vec::new()));
    let mut config = AgentConfig::new(provider);
    config.convert_to_llm = Some(convert_to_llm_hook());
    let summary = Message::from_json(
        &parse_str(r#"{"role":"compactionSummary","summary":"S","tokensBefore":1,"timestamp":1}"#)
            .unwrap(),
    )
    .unwrap();
    let converted = (config.convert_to_llm.as_ref().unwrap())(&[summary]);
    assert!(matches!(&converted[..], [Message::User(_)]));
}

#[test]
fn directories_whose_pi_names_collide_never_continue_each_other() {
    // Issue 19, item 10: pi's folder for /x/a-b and /x/a/b is the same
    // (`--x-a-b--`); `-c` in one continued the other's conversation.
    let scratch = Scratch::new("cwd-collide");
    let store = SessionStore::new(scratch.path());
    let (dashed, nested) = (Path::new("/x/a-b"), Path::new("/x/a/b"));
    assert_ne!(store.dir_for(dashed), store.dir_for(nested));
    assert_eq!(store.legacy_dir_for(dashed), store.legacy_dir_for(nested));

    // A session pi left for /x/a-b in the shared folder is still found there…
    let legacy = store.legacy_dir_for(dashed);
    std::fs::create_dir_all(&legacy).unwrap();
    let pi_file = legacy.join("2026-01-01T00-00-00-000Z_pi-session.jsonl");
    std::fs::write(
        &pi_file,
        "{\"type\":\"session\",\"version\":3,\"id\":\"pi-session\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/x/a-b\"}\n",
    )
    .unwrap();
    assert_eq!(
        store.most_recent(dashed).as_deref(),
        Some(pi_file.as_path())
    );
    assert_eq!(store.list(dashed).len(), 1);
    // …but never by the other directory.
    assert_eq!(store.most_recent(nested), None);
    assert!(store.list(nested).is_empty());
    let mut fresh = SessionManager::continue_recent(&store, nested).unwrap();
    assert!(
        fresh.tree().entries().is_empty(),
        "a new session, not /x/a-b's"
    );
    fresh.append_message(&user("nested")).unwrap();
    assert!(fresh.path().unwrap().starts_with(store.dir_for(nested)));
    drop(fresh);

    // New sessions of /x/a-b go to its own folder; -c picks the newest of both.
    let mut own = SessionManager::create(&store, dashed).unwrap();
    own.append_message(&user("dashed")).unwrap();
    let own_path = own.path().unwrap().to_path_buf();
    drop(own);
    assert!(own_path.starts_with(store.dir_for(dashed)));
    let newest = store.most_recent(dashed).unwrap();
    assert!(newest == own_path || newest == pi_file);
    assert_eq!(store.list(dashed).len(), 2);
    let continued = SessionManager::continue_recent(&store, nested).unwrap();
    assert_eq!(continued.header().cwd, "/x/a/b");

    // A session file moved into the wrong folder is not continued either.
    let stray = store
        .dir_for(nested)
        .join("2026-01-02T00-00-00-000Z_stray.jsonl");
    std::fs::write(
        &stray,
        "{\"type\":\"session\",\"version\":3,\"id\":\"stray\",\"timestamp\":\"2026-01-02T00:00:00.000Z\",\"cwd\":\"/elsewhere\"}\n",
    )
    .unwrap();
    assert_ne!(store.most_recent(nested).as_deref(), Some(stray.as_path()));
}
