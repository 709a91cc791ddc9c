//! `execute_one`: a call made outside a model's turn (a client of `focus mcp
//! serve`) takes the path a model's call takes: unknown tools and invalid
//! arguments answered, the gate asked (and its refusal marked), partial
//! output passed on, a panic caught.

use focus_core::agent::execute::{execute_one, was_refused};
use focus_core::agent::AgentConfig;
use focus_core::cancel::CancelToken;
use focus_core::json::parse_str;
use focus_core::message::{AssistantMessage, ToolCall};
use focus_core::tool::{GateDecision, Tool, ToolGate, ToolOutput};
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};
use std::sync::{Arc, Mutex};

/// Refuses every call of `echo` whose text is "no".
struct RefuseNo;

impl ToolGate for RefuseNo {
    fn before_call(
        &self,
        call: &ToolCall,
        _: &dyn Tool,
        message: &AssistantMessage,
    ) -> GateDecision {
        assert_eq!(message.content.len(), 1, "the gate sees the call's message");
        match call.arguments["text"].as_str() {
            Some("no") => GateDecision::Block("refused by the test gate".into()),
            _ => GateDecision::Allow,
        }
    }
}

fn call(name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments: parse_str(args).unwrap(),
        thought_signature: None,
        invalid_arguments: None,
    }
}

#[test]
fn one_call_takes_the_loops_path() {
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::text("unused")]));
    let mut config = AgentConfig::new(provider);
    let streaming = FnTool::new("stream", "{}", |_, ctx| {
        (ctx.on_update)(ToolOutput::text("half"));
        ToolOutput::text("whole")
    });
    let crashing = FnTool::new("crash", "{}", |_, _| panic!("boom"));
    config.tools = vec![
        Arc::new(FnTool::echo()),
        Arc::new(streaming),
        Arc::new(crashing),
    ];
    config.gate = Some(Arc::new(RefuseNo));
    let cancel = CancelToken::new();
    let updates = Mutex::new(Vec::new());
    let on_update = |partial: ToolOutput| updates.lock().unwrap().push(partial.text_content());
    let run = |c: ToolCall| execute_one(&config, &c, &cancel, &on_update);

    let ok = run(call("echo", r#"{"text":"hi"}"#));
    assert_eq!((ok.is_error, ok.text_content().as_str()), (false, "hi"));
    let refused = run(call("echo", r#"{"text":"no"}"#));
    assert!(refused.is_error && was_refused(&refused), "{refused:?}");
    let invalid = run(call("echo", r#"{"text":3}"#));
    assert!(invalid.is_error && invalid.text_content().contains("Invalid arguments"));
    let unknown = run(call("nope", "{}"));
    assert!(unknown.is_error && unknown.text_content().contains("not found"));
    let streamed = run(call("stream", "{}"));
    assert_eq!(streamed.text_content(), "whole");
    assert_eq!(*updates.lock().unwrap(), ["half"]);
    let crashed = run(call("crash", "{}"));
    assert!(crashed.is_error && crashed.text_content().contains("boom"));
    cancel.cancel();
    let aborted = run(call("echo", r#"{"text":"late"}"#));
    assert!(aborted.is_error, "{aborted:?}");
}
