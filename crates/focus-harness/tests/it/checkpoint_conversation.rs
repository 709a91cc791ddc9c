//! Checkpoints through the conversation's own lifecycle: a scripted model
//! calls `write` and `bash`-like tools, the conversation records each call's
//! changes in `focus.checkpoint` entries, and `Conversation::rewind` brings
//! the files and the conversation back, then forward again.

use super::checkpoint_support::snapshot;
use super::support::Scratch;
use focus_core::json::Value;
use focus_core::message::{Message, UserMessage};
use focus_core::tool::{Tool, ToolOutput};
use focus_harness::checkpoint::{CheckpointStore, PlainWalker, Tracker, CHECKPOINT_TYPE};
use focus_harness::conversation::{Conversation, RewindScope, SessionRequest, Store};
use focus_harness::session::EntryKind;
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};
use std::path::Path;
use std::sync::{Arc, Mutex};

fn tools(root: &Path) -> Vec<Arc<dyn Tool>> {
    let (a, b) = (root.to_path_buf(), root.to_path_buf());
    vec![
        Arc::new(FnTool::new("write", "{}", move |args: &Value, _| {
            let path = args.get("path").and_then(Value::as_str).unwrap_or("x");
            let text = args.get("content").and_then(Value::as_str).unwrap_or("");
            std::fs::write(a.join(path), text).unwrap();
            ToolOutput::text("written")
        })),
        Arc::new(FnTool::new("bash", "{}", move |_: &Value, _| {
            // What `rm a.txt && mkdir out && echo hi > out/log` would do.
            let _ = std::fs::remove_file(b.join("a.txt"));
            let _ = std::fs::create_dir(b.join("out"));
            std::fs::write(b.join("out/log"), "hi\n").unwrap();
            ToolOutput::text("done")
        })),
    ]
}

#[test]
fn every_tool_call_is_checkpointed_and_rewind_restores_files_and_conversation() {
    let project = Scratch::new("conv-project");
    let sessions = Scratch::new("conv-sessions");
    let root = project.path();
    std::fs::write(root.join("a.txt"), "original\n").unwrap();
    let before = snapshot(root);
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("c1", "write", r#"{"path":"a.txt","content":"changed\n"}"#),
        Reply::tool_call("c2", "bash", r#"{"command":"rm a.txt; mkdir out"}"#),
        Reply::text("done"),
    ]));
    let mut config = focus_core::agent::AgentConfig::new(provider);
    config.tools = tools(root);
    let (store, history) = Store::open(&SessionRequest::New, root, Some(sessions.path())).unwrap();
    let mut conversation = Conversation::new(config, history, store);
    let tracker = Tracker::new(
        root,
        CheckpointStore::in_session_dir(sessions.path()),
        Arc::new(PlainWalker),
        1 << 20,
    )
    .unwrap();
    conversation.checkpoints = Some(Arc::new(Mutex::new(tracker)));
    let first = Message::User(UserMessage::text("go", 1));
    conversation.run_to_end(vec![first], &mut |_| {});
    let after = snapshot(root);
    assert_ne!(before, after);

    let (user_parent, checkpoints) = {
        let store = conversation.session.lock();
        let tree = store.manager().tree();
        let user = tree
            .entries()
            .iter()
            .find(|e| matches!(e.kind, EntryKind::Message(Message::User(_))))
            .unwrap();
        let calls: Vec<String> = tree
            .entries()
            .iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Custom { custom_type, data } if custom_type == CHECKPOINT_TYPE => data
                    .get("toolCallId")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                _ => None,
            })
            .collect();
        (user.parent_id.as_ref().map(|p| p.to_string()), calls)
    };
    assert_eq!(
        checkpoints,
        ["c1", "c2"],
        "one checkpoint per changing call"
    );
    let leaf = conversation
        .session
        .lock()
        .manager()
        .leaf_id()
        .map(str::to_string);

    let dry = conversation
        .rewind(user_parent.as_deref(), RewindScope::Both, false, true)
        .unwrap()
        .unwrap();
    assert!(dry.plan.describe().iter().any(|l| l == "remove folder out"));
    assert_eq!(snapshot(root), after, "a dry run changed files");

    conversation
        .rewind(user_parent.as_deref(), RewindScope::Both, false, false)
        .unwrap();
    assert_eq!(snapshot(root), before);
    assert!(
        conversation.history.is_empty(),
        "{:?}",
        conversation.history
    );

    conversation
        .rewind(leaf.as_deref(), RewindScope::Code, false, false)
        .unwrap();
    assert_eq!(snapshot(root), after);
}

/// A file changed outside focus after the run (by the user, an editor) is a
/// conflict for `Conversation::rewind` as for `focus rewind`: the dry run
/// names it with its diff, the rewind keeps it and restores the rest, and
/// only `force` overwrites it. (The conversation's rewind used to record the
/// change first, which made it focus's own and overwrote it unasked.)
#[test]
fn a_file_changed_outside_focus_is_kept_unless_forced() {
    let project = Scratch::new("conv-conflict-project");
    let sessions = Scratch::new("conv-conflict-sessions");
    let root = project.path();
    std::fs::write(root.join("a.txt"), "original\n").unwrap();
    std::fs::write(root.join("b.txt"), "b original\n").unwrap();
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("c1", "write", r#"{"path":"a.txt","content":"by focus\n"}"#),
        Reply::tool_call(
            "c2",
            "write",
            r#"{"path":"b.txt","content":"b by focus\n"}"#,
        ),
        Reply::text("done"),
    ]));
    let mut config = focus_core::agent::AgentConfig::new(provider);
    config.tools = tools(root);
    let (store, history) = Store::open(&SessionRequest::New, root, Some(sessions.path())).unwrap();
    let mut conversation = Conversation::new(config, history, store);
    let tracker = Tracker::new(
        root,
        CheckpointStore::in_session_dir(sessions.path()),
        Arc::new(PlainWalker),
        1 << 20,
    )
    .unwrap();
    conversation.checkpoints = Some(Arc::new(Mutex::new(tracker)));
    conversation.run_to_end(vec![Message::User(UserMessage::text("go", 1))], &mut |_| {});
    assert_eq!(
        std::fs::read_to_string(root.join("b.txt")).unwrap(),
        "b by focus\n"
    );
    std::fs::write(root.join("a.txt"), "the user's own\n").unwrap();
    let read = |name: &str| std::fs::read_to_string(root.join(name)).unwrap();

    let dry = conversation
        .rewind(None, RewindScope::Code, false, true)
        .unwrap()
        .unwrap();
    assert_eq!(dry.plan.conflicts.len(), 1, "{:?}", dry.plan.describe());
    assert!(dry.plan.conflicts[0].diff.contains("+ the user's own"));

    let kept = conversation
        .rewind(None, RewindScope::Code, false, false)
        .unwrap()
        .unwrap();
    assert_eq!(kept.plan.conflicts.len(), 1);
    assert_eq!(read("a.txt"), "the user's own\n", "overwritten unasked");
    assert_eq!(read("b.txt"), "b original\n", "the rest is restored");

    conversation
        .rewind(None, RewindScope::Code, true, false)
        .unwrap();
    assert_eq!(read("a.txt"), "original\n");
}
