//! A front end written the way any new one would be (a batch runner, a
//! subagent, an MCP server): a transcript and a loop that polls. It keeps no
//! history, writes no session, compacts and retries nothing — the
//! conversation does — and these tests drive runs, steering, abort, the
//! compaction after a run, a manual one and the overflow retry through it
//! over a scripted model.

use crate::support::Scratch;
use focus_core::agent::check_history;
use focus_core::event::AgentEvent;
use focus_core::message::{Message, UserMessage};
use focus_core::provider::StreamEvent;
use focus_core::tool::ToolOutput;
use focus_harness::compaction::CompactionSettings;
use focus_harness::conversation::{
    CompactionReason, Conversation, ConversationEvent, SessionRequest, Store,
};
use focus_harness::session::EntryKind;
use focus_testkit::scripted::{FnTool, Reply, ScriptedProvider};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The whole front end: what it saw, one line per event, and its loop.
struct TestFrontEnd {
    conversation: Conversation,
    transcript: Vec<String>,
    text: String,
}

impl TestFrontEnd {
    /// Sends `text`: a new run when idle, else steering for the running one.
    fn say(&mut self, text: &str) {
        let message = Message::User(UserMessage::text(text, 1));
        if let Err(message) = self.conversation.steer(message) {
            self.conversation.prompt(vec![*message]).expect("idle");
        }
    }

    /// Polls and renders until an event `wanted` shows (10 s at most).
    fn until(&mut self, wanted: impl Fn(&ConversationEvent) -> bool) {
        let give_up = Instant::now() + Duration::from_secs(10);
        loop {
            assert!(
                Instant::now() < give_up,
                "never came: {:?}",
                self.transcript
            );
            let events = self
                .conversation
                .poll(Instant::now() + Duration::from_millis(20));
            let mut found = false;
            for event in &events {
                self.render(event);
                found |= wanted(event);
            }
            if found {
                return;
            }
        }
    }

    fn render(&mut self, event: &ConversationEvent) {
        let line = match event {
            ConversationEvent::Agent(AgentEvent::MessageUpdate {
                event: StreamEvent::TextDelta { delta, .. },
                ..
            }) => return self.text.push_str(delta),
            ConversationEvent::Agent(agent) => agent.type_name().to_string(),
            ConversationEvent::CompactionStart(reason) => format!("compacting {reason:?}"),
            ConversationEvent::CompactionEnd(_, end) => match &end.error_message {
                Some(error) => format!("not compacted: {error}"),
                None => "compacted".into(),
            },
            ConversationEvent::RunEnded(reason) => format!("ended {reason:?}"),
            other => format!("{other:?}"),
        };
        self.transcript.push(line);
    }

    fn saw(&self, line: &str) -> bool {
        self.transcript.iter().any(|l| l == line)
    }
}

fn ended(event: &ConversationEvent) -> bool {
    matches!(event, ConversationEvent::RunEnded(_))
}

/// A front end on a fresh session, with `tools`, a model of `window` tokens
/// and compaction that keeps almost nothing and starts `reserve` tokens short
/// of the window.
fn front_end(
    scratch: &Scratch,
    provider: &Arc<ScriptedProvider>,
    tools: Vec<Arc<dyn focus_core::tool::Tool>>,
    reserve: u64,
) -> TestFrontEnd {
    let mut config = focus_core::agent::AgentConfig::new(provider.clone());
    config.tools = tools;
    let (store, history) =
        Store::open(&SessionRequest::New, scratch.path(), Some(scratch.path())).unwrap();
    let mut conversation = Conversation::new(config, history, store);
    conversation.compaction = CompactionSettings {
        enabled: true,
        reserve_tokens: reserve,
        keep_recent_tokens: 1,
    };
    TestFrontEnd {
        conversation,
        transcript: Vec::new(),
        text: String::new(),
    }
}

fn session_kinds(conversation: &Conversation) -> Vec<&'static str> {
    let store = conversation.session.lock();
    let branch = store.manager().tree().current_branch();
    branch
        .iter()
        .map(|e| match &e.kind {
            EntryKind::Compaction(_) => "compaction",
            EntryKind::Message(Message::User(_)) => "user",
            EntryKind::Message(Message::Assistant(_)) => "assistant",
            _ => "other",
        })
        .collect()
}

#[test]
fn a_run_streams_every_delta_in_order_and_the_history_comes_back_whole() {
    let scratch = Scratch::new("front-end-run");
    let answer = "word ".repeat(2_000);
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::text(&answer)]));
    let mut ui = front_end(&scratch, &provider, Vec::new(), 1_000);
    ui.say("go");
    assert!(ui.conversation.is_busy());
    ui.until(ended);
    assert_eq!(ui.text, answer);
    assert_eq!(
        ui.transcript.first().map(String::as_str),
        Some("agent_start")
    );
    assert_eq!(
        ui.transcript.last().map(String::as_str),
        Some("ended Completed")
    );
    assert!(!ui.conversation.is_busy());
    assert_eq!(ui.conversation.history.len(), 2);
    assert_eq!(session_kinds(&ui.conversation), ["user", "assistant"]);
    // Idle, a poll has nothing and does not wait.
    let started = Instant::now();
    assert!(ui
        .conversation
        .poll(Instant::now() + Duration::from_secs(60))
        .is_empty());
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn steering_reaches_the_model_after_the_tool_batch() {
    let scratch = Scratch::new("front-end-steer");
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::tool_call("c1", "wait", "{}"),
        Reply::text("done"),
    ]));
    let released = Arc::new(AtomicBool::new(false));
    let gate = released.clone();
    let tool = FnTool::new("wait", "{}", move |_, _| {
        while !gate.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(1));
        }
        ToolOutput::text("waited")
    });
    let mut ui = front_end(&scratch, &provider, vec![Arc::new(tool)], 1_000);
    ui.say("start");
    ui.until(|e| {
        matches!(
            e,
            ConversationEvent::Agent(AgentEvent::ToolExecutionStart { .. })
        )
    });
    assert!(ui.conversation.is_running());
    ui.say("and also this");
    released.store(true, Ordering::SeqCst);
    ui.until(ended);
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    let last = &requests[1].messages;
    assert!(
        matches!(last.last(), Some(Message::User(u)) if u.content[0].as_text() == Some("and also this")),
        "{last:?}"
    );
    assert!(check_history(&ui.conversation.history).is_ok());
}

#[test]
fn an_abort_ends_the_run_with_every_call_answered() {
    let scratch = Scratch::new("front-end-abort");
    let provider = Arc::new(ScriptedProvider::new(vec![Reply::text("partial").hang()]));
    let mut ui = front_end(&scratch, &provider, Vec::new(), 1_000);
    ui.say("go");
    ui.until(|e| {
        matches!(
            e,
            ConversationEvent::Agent(AgentEvent::MessageUpdate { .. })
        )
    });
    assert!(ui.conversation.abort());
    ui.until(ended);
    assert!(ui.saw("ended Aborted"), "{:?}", ui.transcript);
    assert!(!ui.conversation.is_busy());
    assert!(check_history(&ui.conversation.history).is_ok());
    assert!(!ui.conversation.abort(), "nothing left to abort");
}

#[test]
fn a_full_context_is_compacted_after_the_run() {
    let scratch = Scratch::new("front-end-compact");
    // The second answer reports 190,000 tokens of a 200,000-token window: past
    // the threshold (the window less the 16,384 reserved) once it is in.
    let mut full = crate::support::ScriptedProvider::text_answer("the second answer");
    full.usage.input = 190_000;
    let provider = Arc::new(crate::support::ScriptedProvider::new(vec![
        crate::support::ScriptedProvider::text_answer(&"an early answer. ".repeat(40)),
        full,
        crate::support::ScriptedProvider::text_answer("## Goal\nTHE-SUMMARY"),
        crate::support::ScriptedProvider::text_answer("the turn's beginning"),
    ]));
    let config = focus_core::agent::AgentConfig::new(provider);
    let (store, history) =
        Store::open(&SessionRequest::New, scratch.path(), Some(scratch.path())).unwrap();
    let mut ui = TestFrontEnd {
        conversation: Conversation::new(config, history, store),
        transcript: Vec::new(),
        text: String::new(),
    };
    ui.conversation.compaction.keep_recent_tokens = 1;
    ui.say("one");
    ui.until(ended);
    assert!(!ui.saw("compacting Threshold"), "{:?}", ui.transcript);
    ui.transcript.clear();
    ui.say("two");
    ui.until(ended);
    let at = |line: &str| ui.transcript.iter().position(|l| l == line);
    let order = [at("agent_end"), at("compacting Threshold"), at("compacted")];
    assert!(order.iter().all(Option::is_some), "{:?}", ui.transcript);
    assert!(order.is_sorted(), "{:?}", ui.transcript);
    assert_eq!(
        ui.transcript.last().map(String::as_str),
        Some("ended Completed")
    );
    assert!(
        matches!(&ui.conversation.history[0], Message::Custom(c) if c.role == "compactionSummary")
    );
    assert!(session_kinds(&ui.conversation).contains(&"compaction"));
}

#[test]
fn an_overflow_is_compacted_and_the_run_retried_once() {
    let scratch = Scratch::new("front-end-overflow");
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::text(&"an early answer to summarize. ".repeat(20)),
        Reply::new().fail("prompt is too long: 210000 tokens > 200000 maximum"),
        Reply::text("## Goal\nTHE-SUMMARY"),
        Reply::text("the answer after all"),
    ]));
    let mut ui = front_end(&scratch, &provider, Vec::new(), 1_000);
    ui.say("one");
    ui.until(ended);
    ui.transcript.clear();
    ui.say("two");
    ui.until(ended);
    let expected = [
        "compacting Overflow",
        "compacted",
        "RetryAfterOverflow",
        "agent_start",
    ];
    let at = ui.transcript.iter().position(|l| l == expected[0]);
    let at = at.unwrap_or_else(|| panic!("{:?}", ui.transcript));
    assert_eq!(ui.transcript[at..at + 4], expected, "{:?}", ui.transcript);
    assert!(ui.saw("ended Completed"), "{:?}", ui.transcript);
    let last = ui
        .conversation
        .history
        .last()
        .and_then(Message::as_assistant);
    assert_eq!(
        last.map(|a| a.text()).as_deref(),
        Some("the answer after all")
    );
    // The failed answer stays in the session file, not in the history sent on.
    assert!(check_history(&ui.conversation.history).is_ok());
}

#[test]
fn a_manual_compaction_reports_its_end_refuses_prompts_meanwhile_and_an_abort_cancels_it() {
    let scratch = Scratch::new("front-end-manual");
    let provider = Arc::new(ScriptedProvider::new(vec![
        Reply::text(&"an early answer to summarize. ".repeat(20)),
        Reply::text("the second answer"),
        // The cut splits a turn: its beginning is summarized apart.
        Reply::text("## Goal\nMANUAL-SUMMARY").piece_delay(Duration::from_millis(2)),
        Reply::text("the turn's beginning"),
        Reply::text("the third answer"),
        Reply::text("a summary that never ends").hang(),
    ]));
    let mut ui = front_end(&scratch, &provider, Vec::new(), 1_000);
    for text in ["one", "two"] {
        ui.say(text);
        ui.until(ended);
    }
    let manual = |e: &ConversationEvent| {
        matches!(
            e,
            ConversationEvent::CompactionEnd(CompactionReason::Manual, _)
        )
    };
    ui.conversation
        .request_compaction(Some("keep the goal".into()))
        .unwrap();
    let message = Message::User(UserMessage::text("too early", 1));
    assert!(ui.conversation.prompt(vec![message]).is_err());
    ui.until(manual);
    assert!(ui.saw("compacted"), "{:?}", ui.transcript);
    assert!(!ui.conversation.is_busy());
    assert!(
        matches!(&ui.conversation.history[0], Message::Custom(c) if c.role == "compactionSummary")
    );
    // The next one hangs: the abort stops it and the history stays as it was.
    ui.say("three");
    ui.until(ended);
    let before = ui.conversation.history.clone();
    ui.conversation.request_compaction(None).unwrap();
    ui.until(|e| matches!(e, ConversationEvent::CompactionStart(_)));
    assert!(ui.conversation.is_compacting());
    assert!(ui.conversation.abort());
    ui.until(manual);
    let last = ui.transcript.last().unwrap();
    assert!(last.contains("compaction cancelled"), "{last}");
    assert!(!ui.conversation.is_busy());
    assert_eq!(ui.conversation.history, before);
}
