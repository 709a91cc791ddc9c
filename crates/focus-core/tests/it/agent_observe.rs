//! The two hooks a conversation uses to compact inside a run: the observer sees
//! every event on the loop's thread before the consumer does (so a session writer
//! is never behind), and `transform_context` may report what it does as events,
//! in order with the run's own.

use std::sync::{Arc, Mutex};

use focus_core::agent::{check_event_grammar, spawn_agent, AgentConfig};
use focus_core::event::{AgentEvent, Compacted};
use focus_core::message::{Message, UserMessage};
use focus_core::tool::ToolOutput;
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};

fn user(text: &str) -> Message {
    Message::User(UserMessage::text(text, 1))
}

#[test]
fn the_observer_has_seen_every_event_before_the_consumer_gets_it() {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("c1", "echo", r#"{"text":"x"}"#),
        Reply::text("done"),
    ]));
    let mut config = AgentConfig::new(provider);
    config.tools = vec![Arc::new(FnTool::echo())];
    let seen = Arc::new(Mutex::new(Vec::<&'static str>::new()));
    let observer_log = seen.clone();
    config.observe = Some(Arc::new(move |event: &AgentEvent| {
        observer_log.lock().unwrap().push(event.type_name());
    }));
    let run = spawn_agent(config, Vec::new(), vec![user("go")]);
    let mut received = Vec::new();
    for event in run.events.iter() {
        received.push(event.type_name());
        let observed = seen.lock().unwrap();
        assert_eq!(
            observed[..received.len()],
            received[..],
            "the observer saw each event first, in the same order"
        );
    }
    run.join();
    assert_eq!(*seen.lock().unwrap(), received);
    assert!(received.contains(&"tool_execution_end"));
}

#[test]
fn a_transform_reports_its_compaction_in_order_and_the_call_sees_its_view() {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("c1", "noop", "{}"),
        Reply::text("done"),
    ]));
    let mut config = AgentConfig::new(provider.clone());
    config.tools = vec![Arc::new(FnTool::new("noop", "{}", |_, _| {
        ToolOutput::text("ok")
    }))];
    // From the second call on, the view is a summary plus the last exchange.
    config.transform_context = Some(Arc::new(|view: Vec<Message>, _: &_, events: &_| {
        if view.len() < 3 {
            return view;
        }
        let reason = "threshold".to_string();
        events(AgentEvent::CompactionStart { reason });
        events(AgentEvent::CompactionEnd {
            result: Some(Compacted {
                entry_id: "e1".into(),
                tokens_before: 100,
                tokens_after: 10,
            }),
            aborted: false,
            will_retry: false,
            error_message: None,
        });
        let mut compacted = vec![user("SUMMARY")];
        compacted.extend_from_slice(&view[view.len() - 2..]);
        compacted
    }));
    let run = spawn_agent(config, Vec::new(), vec![user("go")]);
    let events: Vec<AgentEvent> = run.events.iter().collect();
    let history = run.join();
    check_event_grammar(&events).unwrap();
    let kinds: Vec<&str> = events.iter().map(AgentEvent::type_name).collect();
    let start = kinds
        .iter()
        .position(|k| *k == "auto_compaction_start")
        .unwrap();
    assert_eq!(kinds[start - 1], "turn_start", "{kinds:?}");
    assert_eq!(kinds[start + 1], "auto_compaction_end");
    assert_eq!(kinds[start + 2], "message_start");
    let requests = provider.requests();
    assert_eq!(requests[1].messages[0], user("SUMMARY"));
    assert_eq!(requests[1].messages.len(), 3);
    assert_eq!(history.len(), 4, "the loop's own history is whole");
}
