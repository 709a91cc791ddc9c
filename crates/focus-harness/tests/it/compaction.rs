//! Compaction: the cut never separates a tool call from its result (property test
//! over random histories), summaries go through the Provider, earlier summaries are
//! updated, and a failed summary leaves the history whole.

use crate::support::{assistant, tool_result, user, Rng, Scratch, ScriptedProvider};
use focus_core::cancel::CancelToken;
use focus_core::json::{Object, Value};
use focus_core::json_object;
use focus_core::message::{CustomMessage, Message};
use focus_harness::compaction::{
    compact_session, find_cut_point, prepare_compaction, CompactionError, CompactionSettings,
};
use focus_harness::session::{convert_to_llm, Entry, EntryKind, SessionManager, SessionStore};
use std::collections::HashMap;
use std::path::Path;

fn entry(id: usize, kind: EntryKind) -> Entry {
    Entry {
        id: format!("{id:08x}").into(),
        parent_id: id.checked_sub(1).map(|p| format!("{p:08x}").into()),
        timestamp: "2026-01-01T00:00:00.000Z".into(),
        kind,
    }
}

fn bash_execution() -> Message {
    let mut raw = Object::new();
    raw.insert("role", "bashExecution");
    raw.insert("command", "ls");
    raw.insert("output", "x".repeat(40));
    Message::Custom(CustomMessage {
        role: "bashExecution".into(),
        raw: Value::Object(raw),
    })
}

/// A random history: turns of user messages and assistant messages with 0–3 tool
/// calls, their results, and now and then something wedged between a call and its
/// result (a steering message, a settings entry).
fn random_history(rng: &mut Rng) -> Vec<Entry> {
    let mut kinds = Vec::new();
    let turns = 1 + rng.below_u64(12);
    let mut call_number = 0;
    for _ in 0..turns {
        kinds.push(EntryKind::Message(user(
            &"u".repeat(rng.below_u64(400) as usize),
        )));
        for _ in 0..rng.below_u64(4) {
            let n_calls = rng.below_u64(4);
            let ids: Vec<String> = (0..n_calls)
                .map(|_| {
                    call_number += 1;
                    format!("call{call_number}")
                })
                .collect();
            let calls: Vec<(&str, &str, Value)> = ids
                .iter()
                .map(|id| (id.as_str(), "read", json_object! {"path" => "f"}))
                .collect();
            kinds.push(EntryKind::Message(assistant(
                &"a".repeat(rng.below_u64(300) as usize),
                &calls,
                0,
            )));
            for id in &ids {
                match rng.below_u64(10) {
                    0 => kinds.push(EntryKind::Message(bash_execution())),
                    1 => kinds.push(EntryKind::ThinkingLevelChange {
                        thinking_level: "low".into(),
                    }),
                    2 => kinds.push(EntryKind::CustomMessage {
                        custom_type: "steer".into(),
                        content: "steer".into(),
                        display: true,
                        details: Value::Null,
                    }),
                    _ => {}
                }
                kinds.push(EntryKind::Message(tool_result(
                    id,
                    &"r".repeat(rng.below_u64(2000) as usize),
                )));
            }
        }
        if rng.below_u64(3) == 0 {
            kinds.push(EntryKind::ModelChange {
                provider: "p".into(),
                model_id: "m".into(),
            });
        }
    }
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| entry(i, k))
        .collect()
}

#[test]
fn cut_never_separates_a_tool_call_from_its_result() {
    let mut rng = Rng::new(42);
    let mut split_turns = 0;
    for round in 0..2000 {
        let history = random_history(&mut rng);
        let refs: Vec<&Entry> = history.iter().collect();
        let keep = rng.below_u64(3000);
        let cut = find_cut_point(&refs, 0, refs.len(), keep);
        assert!(cut.first_kept < refs.len(), "round {round}");
        // Where each call and each result lives.
        let mut call_at = HashMap::new();
        for (i, e) in history.iter().enumerate() {
            if let Some(Message::Assistant(a)) = e.message() {
                for call in a.tool_calls() {
                    call_at.insert(call.id.clone(), i);
                }
            }
        }
        for (i, e) in history.iter().enumerate() {
            if let Some(Message::ToolResult(r)) = e.message() {
                let call = call_at[&r.tool_call_id];
                assert_eq!(
                    call < cut.first_kept,
                    i < cut.first_kept,
                    "round {round}: call at {call}, result at {i}, cut at {}",
                    cut.first_kept
                );
            }
        }
        assert!(
            !matches!(
                history[cut.first_kept].message(),
                Some(Message::ToolResult(_))
            ),
            "round {round}"
        );
        if let Some(start) = cut.turn_start {
            split_turns += 1;
            assert!(start < cut.first_kept);
            assert!(matches!(
                history[start].kind,
                EntryKind::Message(Message::User(_))
                    | EntryKind::Message(Message::Custom(_))
                    | EntryKind::CustomMessage { .. }
            ));
        }
    }
    assert!(split_turns > 100, "split turns exercised: {split_turns}");
}

#[test]
fn cut_keeps_about_the_requested_recent_tokens() {
    // Ten turns of ~250 tokens each: keeping 1000 tokens keeps the last ~4 turns.
    let mut kinds = Vec::new();
    for _ in 0..10 {
        kinds.push(EntryKind::Message(user(&"u".repeat(500))));
        kinds.push(EntryKind::Message(assistant(&"a".repeat(500), &[], 0)));
    }
    let history: Vec<Entry> = kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| entry(i, k))
        .collect();
    let refs: Vec<&Entry> = history.iter().collect();
    let cut = find_cut_point(&refs, 0, refs.len(), 1000);
    assert_eq!(cut.first_kept, 12, "8 messages x 125 tokens = 1000");
    assert_eq!(cut.turn_start, None, "cut on a user message");
    let everything = find_cut_point(&refs, 0, refs.len(), 1_000_000);
    assert_eq!(everything.first_kept, 0);
}

fn long_session(store: &SessionStore) -> SessionManager {
    let mut session = SessionManager::create(store, Path::new("/p")).unwrap();
    for turn in 0..8 {
        session
            .append_message(&user(&format!("turn {turn}: {}", "please ".repeat(100))))
            .unwrap();
        let call = format!("c{turn}");
        let (name, path) = if turn % 2 == 0 {
            ("read", "src/lib.rs")
        } else {
            ("edit", "src/main.rs")
        };
        session
            .append_message(&assistant(
                "working",
                &[(call.as_str(), name, json_object! { "path" => path })],
                1000 * (turn + 1),
            ))
            .unwrap();
        session
            .append_message(&tool_result(&call, &"output ".repeat(200)))
            .unwrap();
        session
            .append_message(&assistant("done", &[], 1000 * (turn + 1) + 500))
            .unwrap();
    }
    session
}

fn small_keep() -> CompactionSettings {
    CompactionSettings {
        keep_recent_tokens: 600,
        ..CompactionSettings::default()
    }
}

#[test]
fn compaction_summarizes_through_the_provider_and_rebuilds_the_context() {
    let scratch = Scratch::new("compact");
    let store = SessionStore::new(scratch.path());
    let mut session = long_session(&store);
    let before = session.context().messages.len();
    let provider = ScriptedProvider::new(vec![
        ScriptedProvider::text_answer("## Goal\nFirst summary."),
        ScriptedProvider::text_answer("## Original Request\nTurn prefix."),
        ScriptedProvider::text_answer("## Goal\nSecond summary."),
        ScriptedProvider::text_answer("## Original Request\nAnother prefix."),
    ]);
    let cancel = CancelToken::new();
    let outcome = compact_session(
        &mut session,
        &provider,
        &small_keep(),
        Some("the edits"),
        &cancel,
    )
    .unwrap();
    assert!(outcome.tokens_after < outcome.tokens_before, "{outcome:?}");
    let context = session.context();
    assert!(context.messages.len() < before);
    let llm = convert_to_llm(&context.messages);
    let Message::User(first) = &llm[0] else {
        panic!("summary first")
    };
    let summary = first.content[0].as_text().unwrap();
    assert!(summary.contains("First summary."));
    // The cut fell inside turn 6 (after its tool result): that turn's first part is
    // summarized on its own.
    assert!(summary.contains("**Turn Context (split turn):**\n\n## Original Request\nTurn prefix."));
    let first_requests = provider.requests.lock().unwrap().len();
    assert_eq!(first_requests, 2);
    assert!(summary.contains("<read-files>\nsrc/lib.rs\n</read-files>"));
    assert!(summary.contains("<modified-files>\nsrc/main.rs\n</modified-files>"));
    {
        let requests = provider.requests.lock().unwrap();
        let (system, text) = &requests[0];
        assert!(system.contains("Do NOT continue the conversation"));
        assert!(text.starts_with("<conversation>\n[User]: turn 0"));
        assert!(text.contains("[Assistant tool calls]: read(path=\"src/lib.rs\")"));
        assert!(text.contains("Additional focus: the edits"));
        assert!(!text.contains("<previous-summary>"));
    }
    let EntryKind::Compaction(entry) = &session.tree().leaf().unwrap().kind else {
        panic!("leaf is the compaction")
    };
    assert_eq!(
        entry.details["modifiedFiles"][0].as_str(),
        Some("src/main.rs")
    );

    // Reload gives the same compacted context.
    let path = session.path().unwrap().to_path_buf();
    let reloaded_context = SessionManager::open_read_only(&path).unwrap().context();
    assert_eq!(reloaded_context, context);

    // More work, then a second compaction updates the first summary.
    for turn in 8..12 {
        session
            .append_message(&user(&format!("turn {turn}: {}", "again ".repeat(100))))
            .unwrap();
        session
            .append_message(&assistant(&"answer ".repeat(100), &[], 0))
            .unwrap();
    }
    compact_session(&mut session, &provider, &small_keep(), None, &cancel).unwrap();
    let requests = provider.requests.lock().unwrap();
    let (_, text) = &requests[first_requests];
    assert!(text.contains("<previous-summary>\n## Goal\nFirst summary."));
    assert!(text.contains("Update that summary"));
    // Files from the first compaction are carried into the second.
    let EntryKind::Compaction(second) = &session.tree().leaf().unwrap().kind else {
        panic!()
    };
    assert_eq!(second.details["readFiles"][0].as_str(), Some("src/lib.rs"));
    // Kept messages of the first compaction were summarized, not dropped: the
    // second request's transcript starts where the first kept part began.
    let first_kept_turn = text.find("[User]: turn").map(|i| &text[i..i + 20]).unwrap();
    assert!(!first_kept_turn.contains("turn 0"), "{first_kept_turn}");
    assert!(
        text.contains("[User]: turn 7"),
        "kept by the first compaction, summarized now"
    );
}

#[test]
fn failed_summary_is_an_error_and_the_history_is_untouched() {
    let scratch = Scratch::new("compact-fail");
    let store = SessionStore::new(scratch.path());
    let mut session = long_session(&store);
    let entries_before = session.tree().entries().len();
    let context_before = session.context();
    let provider = ScriptedProvider::new(vec![ScriptedProvider::error_answer("overloaded")]);
    let err = compact_session(
        &mut session,
        &provider,
        &small_keep(),
        None,
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(matches!(err, CompactionError::Model(_)));
    assert_eq!(
        err.to_string(),
        "compaction failed, the history was kept in full: summarizing failed: overloaded"
    );
    assert_eq!(session.tree().entries().len(), entries_before);
    assert_eq!(session.context(), context_before);

    // Nothing to do on a short history.
    let mut short = SessionManager::in_memory(Path::new("/p"));
    short.append_message(&user("hi")).unwrap();
    assert!(prepare_compaction(&short.tree().current_branch(), &small_keep()).is_none());
    let err = compact_session(
        &mut short,
        &provider,
        &small_keep(),
        None,
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(matches!(err, CompactionError::NothingToCompact));
}

#[test]
fn leaving_a_branch_summarizes_it_where_the_user_lands() {
    use focus_harness::compaction::leave_branch_with_summary;
    let mut session = SessionManager::in_memory(Path::new("/p"));
    session.append_message(&user("q1")).unwrap();
    let a1 = session.append_message(&assistant("a1", &[], 10)).unwrap();
    session.append_message(&user("try approach X")).unwrap();
    let call = json_object! { "path" => "x.rs" };
    session
        .append_message(&assistant("editing", &[("c1", "edit", call)], 20))
        .unwrap();
    session
        .append_message(&tool_result("c1", "SECRET-TOOL-OUTPUT"))
        .unwrap();
    let old_leaf = session
        .append_message(&assistant("X failed", &[], 30))
        .unwrap();
    let provider =
        ScriptedProvider::new(vec![ScriptedProvider::text_answer("## What Was Tried\nX")]);
    let settings = CompactionSettings::default();
    let id = leave_branch_with_summary(
        &mut session,
        &provider,
        Some(&a1),
        &settings,
        &CancelToken::new(),
    )
    .unwrap()
    .unwrap();
    let entry = session.tree().get(&id).unwrap();
    assert_eq!(entry.parent_id.as_deref(), Some(a1.as_str()));
    let EntryKind::BranchSummary {
        from_id, summary, ..
    } = &entry.kind
    else {
        panic!()
    };
    assert_eq!(from_id, &old_leaf);
    assert!(summary.starts_with("The user explored a different conversation branch"));
    let request = &provider.requests.lock().unwrap()[0].1;
    assert!(request.contains("[User]: try approach X") && request.contains("X failed"));
    assert!(
        !request.contains("SECRET-TOOL-OUTPUT"),
        "tool results are left out"
    );
    assert!(
        !request.contains("[User]: q1"),
        "the shared part is not summarized"
    );
    let llm = convert_to_llm(&session.context().messages);
    assert_eq!(llm.len(), 3, "q1, a1, branch summary");

    // A failing summarizer leaves the leaf where it was.
    let failing = ScriptedProvider::new(vec![ScriptedProvider::error_answer("down")]);
    let before = session.leaf_id().map(str::to_string);
    session.move_leaf(Some(&old_leaf)).unwrap();
    assert!(leave_branch_with_summary(
        &mut session,
        &failing,
        Some(&a1),
        &settings,
        &CancelToken::new()
    )
    .is_err());
    assert_eq!(session.leaf_id(), Some(old_leaf.as_str()));
    assert_ne!(before.as_deref(), Some(old_leaf.as_str()));
}

#[test]
fn a_failed_answer_can_be_stepped_over_before_compacting_and_retrying() {
    let mut session = SessionManager::in_memory(Path::new("/p"));
    let q = session.append_message(&user("q")).unwrap();
    assert!(
        !session.skip_failed_answer(),
        "a user message is not a failed answer"
    );
    let mut failed = assistant("", &[], 0);
    if let Message::Assistant(a) = &mut failed {
        a.stop_reason = focus_core::message::StopReason::Error;
        a.error_message = Some("prompt is too long".into());
    }
    session.append_message(&failed).unwrap();
    assert!(session.skip_failed_answer());
    assert_eq!(session.leaf_id(), Some(q.as_str()));
    assert_eq!(session.context().messages.len(), 1);
    assert_eq!(
        session.tree().entries().len(),
        2,
        "the failed answer stays in the file"
    );
}

#[test]
fn compact_if_needed_waits_for_the_threshold() {
    use focus_harness::compaction::compact_if_needed;
    let scratch = Scratch::new("threshold");
    let store = SessionStore::new(scratch.path());
    let mut session = long_session(&store); // last reported usage: 8,500 tokens
    let provider = ScriptedProvider::new(vec![
        ScriptedProvider::text_answer("summary"),
        ScriptedProvider::text_answer("prefix"),
    ]);
    let roomy = CompactionSettings {
        reserve_tokens: 1_000,
        ..small_keep()
    };
    // Window 200,000: far from full.
    assert_eq!(
        compact_if_needed(&mut session, &provider, &roomy, &CancelToken::new()).unwrap(),
        None
    );
    assert!(provider.requests.lock().unwrap().is_empty());
    // Window 9,000 (reserve 1,000): 8,500 tokens pass the threshold of 8,000.
    let provider = ScriptedProvider::new(vec![
        ScriptedProvider::text_answer("summary"),
        ScriptedProvider::text_answer("prefix"),
    ])
    .with_window(9_000);
    let text_before = focus_harness::compaction::estimate_text_tokens(&session.context().messages);
    let outcome = compact_if_needed(&mut session, &provider, &roomy, &CancelToken::new())
        .unwrap()
        .expect("compacted");
    // The figures shown are counted alike before and after (from the texts)...
    assert_eq!(outcome.tokens_before, text_before);
    assert!(outcome.tokens_after < outcome.tokens_before, "{outcome:?}");
    // ...while the entry keeps pi's tokensBefore: the model's own count.
    let entry = session
        .tree()
        .entries()
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            focus_harness::session::entry::EntryKind::Compaction(c) => Some(c.tokens_before),
            _ => None,
        })
        .unwrap();
    assert_eq!(entry, 8_500);
}

/// Windows from 1k to 1M tokens: a session of exchanges with tool output, each
/// reported the way a model would (the text plus a fixed overhead for the system
/// prompt and tools), compacted after every exchange as the CLI does. Compaction
/// always finds a cut, never fails, keeps the context inside the window, and every
/// summary request fits the window with room for its answer.
#[test]
fn compaction_fits_every_window_from_1k_to_1m() {
    use focus_harness::compaction::{compact_if_needed, estimate_text_tokens};
    for window in [1_024u64, 2_048, 4_096, 8_192, 32_768, 131_072, 1_000_000] {
        let scratch = Scratch::new(&format!("window-{window}"));
        let store = SessionStore::new(scratch.path());
        let mut session = SessionManager::create(&store, Path::new("/p")).unwrap();
        let summaries = (0..40)
            .map(|i| ScriptedProvider::text_answer(&format!("## Goal\nsummary {i}")))
            .collect();
        let provider = ScriptedProvider::new(summaries).with_window(window);
        let settings = CompactionSettings::default();
        let fitted = settings.fitted(window);
        let threshold = window - fitted.reserve_tokens;
        let overhead = window / 8; // system prompt and tool definitions
        let output = "o".repeat((window / 2) as usize); // window/8 tokens of tool output
        let mut compactions = 0;
        for turn in 0..12 {
            let seen = |s: &SessionManager| estimate_text_tokens(&s.context().messages) + overhead;
            session
                .append_message(&user(&format!("turn {turn}: look again")))
                .unwrap();
            let call = format!("c{turn}");
            let total = seen(&session) + 10;
            session
                .append_message(&assistant(
                    "looking",
                    &[(call.as_str(), "read", json_object! { "path" => "f" })],
                    total,
                ))
                .unwrap();
            session
                .append_message(&tool_result(&call, &output))
                .unwrap();
            let total = seen(&session) + 10;
            session
                .append_message(&assistant("seen", &[], total))
                .unwrap();
            let outcome =
                compact_if_needed(&mut session, &provider, &settings, &CancelToken::new())
                    .unwrap_or_else(|e| panic!("window {window}, turn {turn}: {e}"));
            if outcome.is_some() {
                compactions += 1;
                let after = estimate_text_tokens(&session.context().messages) + overhead;
                assert!(
                    after <= threshold,
                    "window {window}, turn {turn}: {after} tokens after compacting"
                );
            }
            // Before each next model call the context fits the window.
            let context = estimate_text_tokens(&session.context().messages) + overhead;
            assert!(context <= window, "window {window}, turn {turn}: {context}");
        }
        // Twelve exchanges of an eighth of the window each overflow every window.
        assert!(
            compactions >= 1,
            "window {window}: {compactions} compactions"
        );
        let answer_room = (fitted.reserve_tokens.max(1_024.min(window / 4))) * 4 / 5;
        for (system, text) in provider.requests.lock().unwrap().iter() {
            let tokens = ((system.chars().count() + text.chars().count()) as u64).div_ceil(4);
            assert!(
                tokens + answer_room <= window,
                "window {window}: a summary request of {tokens} tokens leaves no room"
            );
        }
    }
}

/// A history smaller than the part to keep, but past the threshold (in a small
/// window the system prompt and tools fill most of it), can still be compacted
/// when it holds more than one exchange: the cut keeps the last exchange. A
/// single exchange is nothing to compact.
#[test]
fn more_than_one_exchange_always_has_a_cut() {
    let mut session = SessionManager::in_memory(Path::new("/p"));
    session.append_message(&user("first")).unwrap();
    session.append_message(&assistant("one", &[], 100)).unwrap();
    let roomy = CompactionSettings::default(); // keeps 20,000 tokens
    assert!(
        prepare_compaction(&session.tree().current_branch(), &roomy).is_none(),
        "one exchange"
    );
    session.append_message(&user("second")).unwrap();
    session
        .append_message(&assistant(
            "two",
            &[("c1", "read", json_object! {"path" => "f"})],
            200,
        ))
        .unwrap();
    session.append_message(&tool_result("c1", "text")).unwrap();
    session
        .append_message(&assistant("done", &[], 300))
        .unwrap();
    let branch = session.tree().current_branch();
    let plan = prepare_compaction(&branch, &roomy).expect("two exchanges have a cut");
    assert_eq!(plan.messages_to_summarize.len(), 2, "the first exchange");
    assert!(plan.turn_prefix.is_empty());
    let kept = branch
        .iter()
        .position(|e| e.id.as_ref() == plan.first_kept_entry_id)
        .unwrap();
    assert!(
        matches!(branch[kept].message(), Some(Message::User(_))),
        "the kept part starts with the second prompt"
    );
}
