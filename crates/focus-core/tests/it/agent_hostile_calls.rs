//! Tool calls as a broken or hostile model might send them: duplicated and empty
//! ids, empty and unknown names, arguments that are not objects or not JSON,
//! names of a megabyte, hundreds of calls in one message, and a tool whose
//! schema is not an object. The run must end normally with one result per call and
//! both invariants holding.

use std::sync::Arc;

use focus_core::agent::{check_event_grammar, check_history, spawn_agent, AgentConfig};
use focus_core::event::AgentEvent;
use focus_core::message::{Message, UserMessage};
use focus_core::tool::{Tool, ToolOutput};
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};

fn run(reply: Reply, tools: Vec<Arc<dyn Tool>>) -> Vec<Message> {
    let provider = Arc::new(ScriptedProvider::new(vec![reply, Reply::text("done")]));
    let mut config = AgentConfig::new(provider.clone());
    config.tools = tools;
    let run = spawn_agent(
        config,
        Vec::new(),
        vec![Message::User(UserMessage::text("go", 1))],
    );
    let events: Vec<AgentEvent> = run.events.iter().collect();
    let history = run.join();
    check_event_grammar(&events).unwrap();
    check_history(&history).unwrap();
    assert!(
        provider.violations().is_empty(),
        "{:?}",
        provider.violations()
    );
    history
}

fn results(history: &[Message]) -> usize {
    history
        .iter()
        .filter(|m| matches!(m, Message::ToolResult(_)))
        .count()
}

#[test]
fn odd_calls_each_get_one_result() {
    let huge_name = "n".repeat(1 << 20);
    let reply = Reply::new()
        .call("dup", "echo", r#"{"text":"a"}"#)
        .call("dup", "echo", r#"{"text":"b"}"#)
        .call("", "echo", r#"{"text":"c"}"#)
        .call("x1", "", "{}")
        .call("x2", "nope", "{}")
        .call("x3", "echo", "[1,2]")
        .call("x4", "echo", "null")
        .call("x5", "echo", "not json")
        .call("x6", "echo", r#"{"text":18446744073709551616}"#)
        .call("x7", &huge_name, "{}")
        .call("x8", "odd", r#""a string""#);
    let odd: Arc<dyn Tool> = Arc::new(FnTool::new("odd", "[1]", |_, _| ToolOutput::text("ok")));
    let history = run(reply, vec![Arc::new(FnTool::echo()), odd]);
    assert_eq!(results(&history), 11);
    let ids: Vec<&str> = history
        .iter()
        .filter_map(Message::as_assistant)
        .flat_map(|a| a.tool_calls().map(|c| c.id.as_str()))
        .collect();
    let unique: std::collections::HashSet<&str> = ids.iter().copied().collect();
    assert!(unique.len() == 11 && !unique.contains(""), "{ids:?}");
    for message in &history {
        if let Message::ToolResult(r) = message {
            let text: String = r.content.iter().map(|c| format!("{c:?}")).collect();
            assert!(
                text.len() < 64 * 1024,
                "a result echoing the model's input stays small ({} bytes)",
                text.len()
            );
        }
    }
}

#[test]
fn hundreds_of_parallel_calls_all_get_results() {
    let mut reply = Reply::new();
    for i in 0..500 {
        reply = reply.call(&format!("c{i}"), "echo", r#"{"text":"x"}"#);
    }
    let history = run(reply, vec![Arc::new(FnTool::echo())]);
    assert_eq!(results(&history), 500);
}

#[test]
fn arguments_cut_mid_string_are_never_repaired_into_a_call() {
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = ran.clone();
    let bash: Arc<dyn Tool> = Arc::new(FnTool::new("bash", "{}", move |_, _| {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        ToolOutput::text("ran")
    }));
    // A stream cut mid-string: a lenient reading would give a shorter path to delete.
    let reply = Reply::new().call(
        "c1",
        "bash",
        r#"{"command": "rm -rf ./build-cache-of-the-pro"#,
    );
    let history = run(reply, vec![bash]);
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 0, "not run");
    let result = history
        .iter()
        .find_map(|m| match m {
            Message::ToolResult(r) => Some(r),
            _ => None,
        })
        .unwrap();
    assert!(result.is_error);
    let text: String = result
        .content
        .iter()
        .filter_map(focus_core::message::Content::as_text)
        .collect();
    assert!(text.contains("not valid JSON"), "{text}");
    assert!(text.contains("not executed"), "{text}");
}

#[test]
fn an_empty_prompt_is_refused_before_the_model_is_called() {
    use focus_core::event::EndReason;
    for blank in ["", "  \n\t "] {
        let provider = Arc::new(ScriptedProvider::new(vec![Reply::text(
            "should not be said",
        )]));
        let run = spawn_agent(
            AgentConfig::new(provider.clone()),
            Vec::new(),
            vec![Message::User(UserMessage::text(blank, 1))],
        );
        let events: Vec<AgentEvent> = run.events.iter().collect();
        let history = run.join();
        match events.last() {
            Some(AgentEvent::AgentEnd {
                reason: EndReason::Error(why),
                ..
            }) => assert!(why.contains("empty"), "{why}"),
            other => panic!("{blank:?}: {other:?}"),
        }
        assert!(history.is_empty(), "nothing was added: {history:?}");
        assert_eq!(provider.requests().len(), 0, "the model was not called");
    }
}
