//! `focus --mode json` prints events through `EventLines`; they must have pi's shape.
//! We replay the task of pi's recorded JSON events (a bash call, its output, an
//! answer) through the scripted provider and compare event order and field names
//! with /work/shared/reference/pi-samples/pi-json-events.jsonl.

use std::collections::BTreeSet;
use std::sync::Arc;

use focus_core::agent::{spawn_agent, AgentConfig};
use focus_core::event::{AgentEvent, EndReason};
use focus_core::event_lines::EventLines;
use focus_core::json::{parse_str, ToJson, Value};
use focus_core::message::{Message, UserMessage};
use focus_core::tool::ToolOutput;
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};

/// The pi sample, or None (with SKIPPED printed) when the shared data is absent.
fn pi_events() -> Option<Vec<Value>> {
    let path = focus_testkit::pi_samples_dir()?.join("pi-json-events.jsonl");
    let text = std::fs::read_to_string(&path).expect("the pi sample is readable");
    let lines = text.lines().filter(|l| !l.trim().is_empty());
    let values: Vec<Value> = lines
        .map(|l| parse_str(l).expect("pi sample line"))
        .collect();
    Some(
        values
            .into_iter()
            .filter(|v| v["type"].as_str() != Some("session"))
            .collect(),
    )
}

fn our_events() -> Vec<Value> {
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::new().say("I will run a command.").call(
            "call_mock_0_0",
            "bash",
            r#"{"command": "echo hi-from-tool"}"#,
        ),
        Reply::text("The command printed hi-from-tool. Done."),
    ]));
    let bash = FnTool::new("bash", "{}", |_, ctx| {
        (ctx.on_update)(ToolOutput::text("hi-from-tool\n"));
        ToolOutput::text("hi-from-tool\n")
    });
    let mut config = AgentConfig::new(provider);
    config.tools = vec![Arc::new(bash)];
    let prompt = Message::User(UserMessage::text("Run echo hi-from-tool for me", 1));
    let run = spawn_agent(config, Vec::new(), vec![prompt]);
    let events: Vec<AgentEvent> = run.events.iter().collect();
    run.join();
    // As `focus --mode json` prints them: through EventLines, which adds the
    // partial message to every update.
    let mut writer = EventLines::new();
    let mut out = Vec::new();
    for event in &events {
        writer.write(event, &mut out).unwrap();
    }
    let text = String::from_utf8(out).unwrap();
    text.lines().map(|l| parse_str(l).unwrap()).collect()
}

/// Event types in order, runs of updates collapsed to one.
fn shape(events: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in events {
        let name = e["type"].as_str().unwrap_or("?").to_string();
        let update = name.ends_with("_update");
        if !(update && out.last() == Some(&name)) {
            out.push(name);
        }
    }
    out
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().map(str::to_string).collect())
        .unwrap_or_default()
}

#[test]
fn events_follow_pi_order_and_field_names() {
    let Some(pi) = pi_events() else { return };
    let ours = our_events();
    assert_eq!(shape(&ours), shape(&pi));
    for theirs in &pi {
        let kind = theirs["type"].as_str().unwrap();
        let mine = ours
            .iter()
            .find(|e| e["type"].as_str() == Some(kind))
            .unwrap();
        let missing: Vec<_> = keys(theirs).difference(&keys(mine)).cloned().collect();
        assert!(missing.is_empty(), "{kind}: missing {missing:?}");
        if kind == "message_update" {
            let sub = theirs["assistantMessageEvent"]["type"].as_str().unwrap();
            let mine = ours
                .iter()
                .find(|e| e["assistantMessageEvent"]["type"].as_str() == Some(sub))
                .unwrap_or_else(|| panic!("no {sub} update"));
            let (a, b) = (
                &theirs["assistantMessageEvent"],
                &mine["assistantMessageEvent"],
            );
            assert_eq!(keys(a), keys(b), "assistantMessageEvent {sub}");
        }
    }
}

#[test]
fn values_match_pi_where_they_are_deterministic() {
    let ours = our_events();
    let find = |kind: &str| {
        ours.iter()
            .find(|e| e["type"].as_str() == Some(kind))
            .unwrap()
    };
    let start = find("tool_execution_start");
    assert_eq!(start["toolCallId"].as_str(), Some("call_mock_0_0"));
    assert_eq!(
        start["args"].to_json_string(),
        r#"{"command":"echo hi-from-tool"}"#
    );
    let end = find("tool_execution_end");
    assert_eq!(
        end["result"].to_json_string(),
        r#"{"content":[{"type":"text","text":"hi-from-tool\n"}]}"#
    );
    assert_eq!(end["isError"].as_bool(), Some(false));
    let text_end = ours
        .iter()
        .find(|e| e["assistantMessageEvent"]["type"].as_str() == Some("text_end"))
        .unwrap();
    assert_eq!(
        text_end["assistantMessageEvent"]["content"].as_str(),
        Some("I will run a command.")
    );
    let agent_end = find("agent_end");
    assert_eq!(agent_end["reason"].as_str(), Some("completed"));
    assert_eq!(agent_end["messages"].as_array().map(Vec::len), Some(4));
    let end = AgentEvent::AgentEnd {
        messages: vec![],
        reason: EndReason::TurnLimit(5),
    };
    assert_eq!(
        end.to_json().to_json_string(),
        r#"{"type":"agent_end","messages":[],"reason":"turnLimit","limit":5}"#
    );
}
