//! What front ends show before and around a rewind, on a real conversation:
//! the prompts with what each changed (`prompt_changes`), whether an entry's
//! files differ from what focus last recorded (`differs_from_recorded`,
//! `/tree`'s question), and every path the session changed against the disk
//! (`session_changes`, `/diff`), before and after a rewind of the code.

use super::support::Scratch;
use focus_core::json::Value;
use focus_core::message::{Message, UserMessage};
use focus_core::sync::lock;
use focus_core::tool::{Tool, ToolOutput};
use focus_harness::checkpoint::session_diff::{session_changes, Now};
use focus_harness::checkpoint::{
    differs_from_recorded, prompt_changes, CheckpointStore, Node, PlainWalker, Tracker,
};
use focus_harness::conversation::{Conversation, RewindScope, SessionRequest, Store};
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};
use std::sync::{Arc, Mutex};

#[test]
fn listings_follow_the_files_through_a_rewind() {
    let project = Scratch::new("listing-project");
    let sessions = Scratch::new("listing-sessions");
    let root = project.path().to_path_buf();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    let dir = root.clone();
    let write: Arc<dyn Tool> = Arc::new(FnTool::new("write", "{}", move |args: &Value, _| {
        let path = args.get("path").and_then(Value::as_str).unwrap_or("x");
        let text = args.get("content").and_then(Value::as_str).unwrap_or("");
        std::fs::write(dir.join(path), text).unwrap();
        ToolOutput::text("written")
    }));
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call(
            "c1",
            "write",
            r#"{"path":"a.txt","content":"one\n2\nthree\n"}"#,
        ),
        Reply::tool_call("c2", "write", r#"{"path":"b.txt","content":"new\n"}"#),
        Reply::text("done"),
        Reply::text("nothing to change"),
    ]));
    let mut config = focus_core::agent::AgentConfig::new(provider);
    config.tools = vec![write];
    let (store, history) = Store::open(&SessionRequest::New, &root, Some(sessions.path())).unwrap();
    let mut conversation = Conversation::new(config, history, store);
    let tracker = Tracker::new(
        &root,
        CheckpointStore::in_session_dir(sessions.path()),
        Arc::new(PlainWalker),
        1 << 20,
    )
    .unwrap();
    let tracker = Arc::new(Mutex::new(tracker));
    conversation.checkpoints = Some(tracker.clone());
    for text in ["change things", "look only"] {
        conversation.run_to_end(vec![Message::User(UserMessage::text(text, 1))], &mut |_| {});
    }
    let store = lock(&tracker).store.clone();

    // The prompts: the first changed two files (a.txt: +2 −1, b.txt: +1).
    let prompts = prompt_changes(conversation.session.lock().manager().tree());
    assert_eq!(prompts.len(), 2);
    assert_eq!(prompts[0].text, "change things");
    assert_eq!(prompts[0].paths, ["a.txt", "b.txt"]);
    assert_eq!(
        (
            prompts[0].files,
            prompts[0].lines_added,
            prompts[0].lines_removed
        ),
        (2, 3, 1)
    );
    assert_eq!((prompts[1].files, prompts[1].paths.len()), (0, 0));
    let before_first = prompts[0].rewind_to.clone();
    let before_second = prompts[1].rewind_to.clone();

    let differs = |conversation: &Conversation, at: &Option<String>| {
        differs_from_recorded(
            conversation.session.lock().manager().tree(),
            &store.manifests,
            at.as_deref(),
        )
    };
    assert!(differs(&conversation, &before_first), "before the writes");
    assert!(
        !differs(&conversation, &before_second),
        "after them: as now"
    );

    // /diff: both files, from their first state to now.
    let diff = |conversation: &Conversation| {
        let (changes, missing) = session_changes(
            conversation.session.lock().manager().tree(),
            &store,
            &root,
            1 << 20,
        )
        .unwrap();
        assert!(missing.is_empty());
        changes
    };
    let changes = diff(&conversation);
    let paths: Vec<_> = changes.iter().map(|c| c.path.clone()).collect();
    assert_eq!(paths, [std::path::PathBuf::from("a.txt"), "b.txt".into()]);
    assert!(matches!(changes[0].first, Some(Node::File { size: 8, .. })));
    assert!(matches!(
        changes[0].now,
        Now::Is(Some(Node::File { size: 12, .. }))
    ));
    assert_eq!(changes[1].first, None);

    // The code rewound to before the first prompt: nothing differs from the
    // start any more, and the entry after the writes now has other files.
    conversation
        .rewind(before_first.as_deref(), RewindScope::Code, false, false)
        .unwrap();
    assert!(diff(&conversation).is_empty(), "{:?}", diff(&conversation));
    assert!(!differs(&conversation, &before_first));
    assert!(differs(&conversation, &before_second));
}
