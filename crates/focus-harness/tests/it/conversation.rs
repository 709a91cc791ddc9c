//! A `Conversation` without any terminal: runs through `run_to_end`, the
//! session written by the loop's observer, and a compaction inside a run when a
//! tool-using run fills the context between two model calls.

use crate::support::{Scratch, ScriptedProvider};
use focus_core::agent::AgentConfig;
use focus_core::message::{AssistantMessage, Content, Message, StopReason, ToolCall, UserMessage};
use focus_core::tool::ToolOutput;
use focus_harness::compaction::CompactionSettings;
use focus_harness::conversation::{Conversation, ConversationEvent, SessionRequest, Store};
use focus_harness::session::EntryKind;
use focus_testkit::scripted::FnTool;
use std::sync::Arc;

fn prompt(text: &str) -> Vec<Message> {
    vec![Message::User(UserMessage::text(text, 1))]
}

fn tool_call_filling_the_context() -> AssistantMessage {
    let mut message = AssistantMessage {
        content: vec![Content::ToolCall(ToolCall {
            id: "c1".into(),
            name: "look".into(),
            arguments: focus_core::json::Value::Object(Default::default()),
            thought_signature: None,
            invalid_arguments: None,
        })],
        stop_reason: StopReason::ToolUse,
        ..AssistantMessage::default()
    };
    message.usage.input = 190_000; // of a 200,000-token window
    message
}

#[test]
fn a_run_that_fills_the_context_is_compacted_between_its_model_calls() {
    let scratch = Scratch::new("conversation-in-run");
    let provider = Arc::new(ScriptedProvider::new(vec![
        ScriptedProvider::text_answer(&"an early answer, long enough to summarize. ".repeat(50)),
        tool_call_filling_the_context(),
        ScriptedProvider::text_answer("## Goal\nIN-RUN-SUMMARY"),
        // The cut splits the current turn: its beginning is summarized apart.
        ScriptedProvider::text_answer("The user asked for two."),
        ScriptedProvider::text_answer("done"),
    ]));
    let mut config = AgentConfig::new(provider.clone());
    config.tools = vec![Arc::new(FnTool::new("look", "{}", |_, _| {
        ToolOutput::text("looked")
    }))];
    let (store, history) =
        Store::open(&SessionRequest::New, scratch.path(), Some(scratch.path())).unwrap();
    let mut conversation = Conversation::new(config, history, store);
    conversation.compaction = CompactionSettings {
        keep_recent_tokens: 1,
        ..CompactionSettings::default()
    };
    let (mut events, mut own) = (Vec::new(), Vec::new());
    for text in ["one", "two"] {
        let outcome = conversation.run_to_end(prompt(text), &mut |event| match event {
            ConversationEvent::Agent(event) => events.push(event.type_name()),
            other => own.push(other.clone()),
        });
        assert_eq!(outcome.reason, focus_core::event::EndReason::Completed);
    }
    // Nothing of the conversation's own but the two ends: no compaction after a run.
    assert!(
        own.iter()
            .all(|e| matches!(e, ConversationEvent::RunEnded(_))),
        "{own:?}"
    );
    assert_eq!(own.len(), 2);
    let start = events
        .iter()
        .position(|e| *e == "auto_compaction_start")
        .expect("compaction inside the run");
    assert_eq!(events[start + 1], "auto_compaction_end");
    assert!(events[..start].contains(&"tool_execution_end"));
    // The last call saw the summary instead of the early answer.
    let requests = provider.requests.lock().unwrap();
    let (_, last) = requests.last().unwrap();
    assert!(last.contains("IN-RUN-SUMMARY"), "{last}");
    assert!(!last.contains("an early answer"), "{last}");
    drop(requests);
    // The session holds the compaction entry before the answer, and the
    // conversation goes on from the compacted context.
    let store = conversation.session.lock();
    let kinds: Vec<&str> = store
        .manager()
        .tree()
        .current_branch()
        .iter()
        .map(|e| match &e.kind {
            EntryKind::Compaction(_) => "compaction",
            EntryKind::Message(Message::Assistant(a)) if a.text() == "done" => "done",
            _ => "other",
        })
        .filter(|k| *k != "other")
        .collect();
    assert_eq!(kinds, ["compaction", "done"]);
    drop(store);
    assert!(
        matches!(&conversation.history[0], Message::Custom(c) if c.role == "compactionSummary")
    );
    assert!(
        matches!(conversation.history.last(), Some(Message::Assistant(a)) if a.text() == "done")
    );
}
