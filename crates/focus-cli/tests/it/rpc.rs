//! RPC mode driven through stdin, as an editor would.

use crate::support::*;

#[test]
fn a_session_of_commands() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"r","steps":[
      {"reply":{"text":"I will run a command.","toolCalls":[{"name":"bash","arguments":{"command":"echo hi-from-tool"}}]}},
      {"reply":{"text":"Done."}},
      {"reply":{"text":"Second answer."}}]}"#,
    );
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);

    let state = rpc.call(1, r#"{"id":1,"type":"get_state"}"#);
    assert_eq!(state["success"].as_bool(), Some(true));
    assert_eq!(state["data"]["isStreaming"].as_bool(), Some(false));
    assert_eq!(state["data"]["messageCount"].as_u64(), Some(0));

    let ok = rpc.call(2, r#"{"id":2,"type":"prompt","message":"run it"}"#);
    assert_eq!(ok["command"].as_str(), Some("prompt"));
    let end = rpc.agent_end();
    assert_eq!(end["messages"].as_array().unwrap().len(), 4);
    assert!(rpc
        .seen
        .iter()
        .any(|v| v["type"].as_str() == Some("tool_execution_end")));

    let messages = rpc.call(3, r#"{"id":3,"type":"get_messages"}"#);
    assert_eq!(messages["data"]["messages"].as_array().unwrap().len(), 4);

    // Malformed lines and unknown commands get errors; the server keeps going.
    rpc.send_raw("this is not json");
    let parse = rpc.until("parse error", |v| v["command"].as_str() == Some("parse"));
    assert_eq!(parse["success"].as_bool(), Some(false));
    let unknown = rpc.call(4, r#"{"id":4,"type":"dance"}"#);
    assert!(unknown["error"]
        .as_str()
        .unwrap()
        .contains("Unknown command: dance"));
    let steer = rpc.call(5, r#"{"id":5,"type":"steer","message":"x"}"#);
    assert_eq!(steer["success"].as_bool(), Some(false));

    let level = rpc.call(
        6,
        r#"{"id":6,"type":"set_thinking_level","level":"medium"}"#,
    );
    assert_eq!(level["success"].as_bool(), Some(true));
    let bad_level = rpc.call(7, r#"{"id":7,"type":"set_thinking_level","level":"huge"}"#);
    assert_eq!(bad_level["success"].as_bool(), Some(false));
    let state = rpc.call(8, r#"{"id":8,"type":"get_state"}"#);
    assert_eq!(state["data"]["thinkingLevel"].as_str(), Some("medium"));
    let first_file = state["data"]["sessionFile"].as_str().unwrap().to_string();

    let tree = rpc.call(9, r#"{"id":9,"type":"get_session_tree"}"#);
    let entries = tree["data"]["entries"].as_array().unwrap().clone();
    let user = entries
        .iter()
        .find(|e| e["role"].as_str() == Some("user"))
        .unwrap();
    let user_id = user["id"].as_str().unwrap().to_string();
    assert!(tree["data"]["leafId"].as_str().is_some());

    let html = s.root.join("rpc.html");
    let export = rpc.call(
        10,
        &format!(
            r#"{{"id":10,"type":"export_html","outputPath":"{}"}}"#,
            html.display()
        ),
    );
    assert_eq!(export["data"]["path"].as_str(), html.to_str());
    assert!(file_contains(&html, "hi-from-tool"));

    let fork = rpc.call(
        11,
        &format!(r#"{{"id":11,"type":"fork","entryId":"{user_id}"}}"#),
    );
    assert_eq!(fork["data"]["text"].as_str(), Some("run it"));
    let state = rpc.call(12, r#"{"id":12,"type":"get_state"}"#);
    assert_eq!(state["data"]["messageCount"].as_u64(), Some(0));
    assert_ne!(
        state["data"]["sessionFile"].as_str(),
        Some(first_file.as_str())
    );

    let new = rpc.call(13, r#"{"id":13,"type":"new_session"}"#);
    assert_eq!(new["success"].as_bool(), Some(true));
    let switch = rpc.call(
        14,
        &format!(r#"{{"id":14,"type":"switch_session","sessionPath":"{first_file}"}}"#),
    );
    assert_eq!(
        switch["success"].as_bool(),
        Some(true),
        "{}",
        switch.to_json_string()
    );
    let state = rpc.call(15, r#"{"id":15,"type":"get_state"}"#);
    assert_eq!(state["data"]["messageCount"].as_u64(), Some(4));

    let model = rpc.call(
        16,
        r#"{"id":16,"type":"set_model","provider":"mock-anthropic","modelId":"m1"}"#,
    );
    assert_eq!(model["data"]["provider"].as_str(), Some("mock-anthropic"));
    let compact = rpc.call(17, r#"{"id":17,"type":"compact"}"#);
    assert!(compact["success"].as_bool().is_some());

    // The id is echoed whatever its type; commands without one get none.
    let string_id = rpc.call_raw_id(r#"{"id":"abc","type":"abort"}"#, "abc");
    assert_eq!(string_id["success"].as_bool(), Some(true));
    assert_eq!(rpc.close(), 0);
}

#[test]
fn prompt_then_eof_finishes_the_prompt_before_exiting() {
    let s = Sandbox::new();
    let out = s.run(
        &["--mode", "rpc", "--no-tools"],
        "{\"type\":\"prompt\",\"message\":\"hi\"}\n",
    );
    assert!(out.status.success());
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines[0]["type"].as_str(), Some("response"));
    assert_eq!(lines.last().unwrap()["type"].as_str(), Some("agent_end"));
}

#[test]
fn abort_stops_a_slow_answer() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"slow","steps":[{"reply":{"text":"a b c d e f g h i j k l m n o p q r s t u v w x y z","chunkDelayMs":400}}]}"#,
    );
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"talk slowly"}"#);
    rpc.until("first delta", |v| {
        v["type"].as_str() == Some("message_update")
    });
    let busy = rpc.call(2, r#"{"id":2,"type":"prompt","message":"again"}"#);
    assert!(busy["error"]
        .as_str()
        .unwrap()
        .contains("streamingBehavior"));
    let started = std::time::Instant::now();
    rpc.call(3, r#"{"id":3,"type":"abort"}"#);
    rpc.agent_end();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let messages = rpc.call(4, r#"{"id":4,"type":"get_messages"}"#);
    let last = messages["data"]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["stopReason"].as_str(), Some("aborted"));
    assert_eq!(rpc.close(), 0);
}

#[test]
fn approvals_go_through_the_approve_command() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"a","steps":[
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch first.txt"}}]}},
      {"reply":{"text":"denied, fine"}},
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch second.txt"}}]}},
      {"reply":{"text":"done"}}]}"#,
    );
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"make a file"}"#);
    let request = rpc.until("approval", |v| {
        v["type"].as_str() == Some("approval_request")
    });
    assert_eq!(request["toolName"].as_str(), Some("bash"));
    // The call's start went out before the request about it.
    let started = rpc.seen.iter().any(|v| {
        v["type"].as_str() == Some("tool_execution_start") && v["toolName"].as_str() == Some("bash")
    });
    assert!(started, "approval_request before its tool_execution_start");
    let id = request["requestId"].as_str().unwrap().to_string();
    let bad = rpc.call(
        2,
        r#"{"id":2,"type":"approve","requestId":"nope","decision":"allow"}"#,
    );
    assert_eq!(bad["success"].as_bool(), Some(false));
    rpc.call(3, &format!(r#"{{"id":3,"type":"approve","requestId":"{id}","decision":"deny","reason":"not today"}}"#));
    rpc.agent_end();
    assert!(!s.work.join("first.txt").exists());
    assert!(server.requests()[1].body_text().contains("not today"));

    rpc.call(4, r#"{"id":4,"type":"prompt","message":"another"}"#);
    let request = rpc.until("approval", |v| {
        v["type"].as_str() == Some("approval_request")
            && v["summary"].as_str().is_some_and(|s| s.contains("second"))
    });
    let id = request["requestId"].as_str().unwrap().to_string();
    rpc.call(
        5,
        &format!(r#"{{"id":5,"type":"approve","requestId":"{id}","decision":"allow"}}"#),
    );
    rpc.agent_end();
    assert!(s.work.join("second.txt").exists());
    assert_eq!(rpc.close(), 0);
}

#[test]
fn steer_and_follow_up_reach_the_running_prompt() {
    let s = Sandbox::new();
    let server = mock(&format!(
        r#"{{"name":"s","steps":[{WAIT_FOR_RELEASE},
      {{"reply":{{"text":"answer to the steer"}}}},
      {{"reply":{{"text":"answer to the follow-up"}}}}]}}"#
    ));
    s.write_models(&server.url());
    let args = ["--model", "mock-openai/m1", "--permission-mode", "auto"];
    let mut rpc = RpcClient::start(&s, &args);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"start"}"#);
    rpc.until("the waiting tool", |v| {
        v["type"].as_str() == Some("tool_execution_start")
    });
    let steer = rpc.call(2, r#"{"id":2,"type":"steer","message":"STEER-MSG"}"#);
    assert_eq!(steer["success"].as_bool(), Some(true));
    let follow = rpc.call(
        3,
        r#"{"id":3,"type":"prompt","message":"FOLLOW-MSG","streamingBehavior":"followUp"}"#,
    );
    assert_eq!(follow["success"].as_bool(), Some(true));
    std::fs::write(s.work.join("release"), "").unwrap();
    let end = rpc.agent_end();
    let texts: Vec<String> = end["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"][0]["text"].as_str().unwrap_or("").to_string())
        .collect();
    let steer_at = texts
        .iter()
        .position(|t| t == "STEER-MSG")
        .expect("steer delivered");
    let follow_at = texts
        .iter()
        .position(|t| t == "FOLLOW-MSG")
        .expect("follow-up delivered");
    assert!(steer_at < follow_at, "{texts:?}");
    assert_eq!(
        texts.last().map(String::as_str),
        Some("answer to the follow-up")
    );
    assert_eq!(rpc.close(), 0);
}

#[test]
fn session_name_stats_last_text_and_models() {
    let s = Sandbox::new();
    let server = mock(TOOL_THEN_ANSWER);
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    let none = rpc.call(1, r#"{"id":1,"type":"get_last_assistant_text"}"#);
    assert!(none["data"]["text"].is_null());
    rpc.call(2, r#"{"id":2,"type":"prompt","message":"go"}"#);
    rpc.agent_end();
    let text = rpc.call(3, r#"{"id":3,"type":"get_last_assistant_text"}"#);
    assert_eq!(
        text["data"]["text"].as_str(),
        Some("The command printed hi-from-tool. Done.")
    );
    let stats = rpc.call(4, r#"{"id":4,"type":"get_session_stats"}"#);
    let data = &stats["data"];
    assert_eq!(data["userMessages"].as_u64(), Some(1));
    assert_eq!(data["assistantMessages"].as_u64(), Some(2));
    assert_eq!(data["toolCalls"].as_u64(), Some(1));
    assert_eq!(data["toolResults"].as_u64(), Some(1));
    assert!(data["tokens"]["total"].as_u64().unwrap() > 0);
    let bad = rpc.call(5, r#"{"id":5,"type":"set_session_name","name":"  "}"#);
    assert_eq!(bad["success"].as_bool(), Some(false));
    rpc.call(
        6,
        r#"{"id":6,"type":"set_session_name","name":"pelican work"}"#,
    );
    let state = rpc.call(7, r#"{"id":7,"type":"get_state"}"#);
    assert_eq!(state["data"]["sessionName"].as_str(), Some("pelican work"));
    let models = rpc.call(8, r#"{"id":8,"type":"get_available_models"}"#);
    let ids: Vec<String> = models["data"]["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{}/{}",
                m["provider"].as_str().unwrap(),
                m["id"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        ids.contains(&"mock-openai/m1".to_string()) && ids.contains(&"demo/focus-demo".to_string()),
        "{ids:?}"
    );
    assert!(
        !ids.iter().any(|id| id.starts_with("anthropic/")),
        "no key, not available: {ids:?}"
    );
    assert_eq!(rpc.close(), 0);
}

/// A model or thinking change made over RPC is recorded in the session, so a
/// resume comes back to it (it used to come back to the level the session began with).
#[test]
fn model_and_thinking_changes_are_recorded_and_restored_on_resume() {
    let s = Sandbox::new();
    let server = mock(r#"{"name":"r","steps":[{"reply":{"text":"ok"}}]}"#);
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"hi"}"#);
    rpc.agent_end();
    let set = rpc.call(2, r#"{"id":2,"type":"set_thinking_level","level":"high"}"#);
    assert_eq!(set["success"].as_bool(), Some(true));
    let set = rpc.call(
        3,
        r#"{"id":3,"type":"set_model","provider":"mock-anthropic","modelId":"m1"}"#,
    );
    assert_eq!(set["success"].as_bool(), Some(true), "{set:?}");
    assert_eq!(rpc.close(), 0);
    let files = s.session_files();
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains(r#""thinkingLevel":"high""#), "{text}");
    assert!(text.contains(r#""provider":"mock-anthropic""#), "{text}");
    // Resumed: both come back.
    let session = files[0].to_string_lossy().to_string();
    let mut rpc = RpcClient::start(&s, &["--session", &session]);
    let state = rpc.call(1, r#"{"id":1,"type":"get_state"}"#);
    assert_eq!(
        state["data"]["thinkingLevel"].as_str(),
        Some("high"),
        "{state:?}"
    );
    assert_eq!(
        state["data"]["model"]["provider"].as_str(),
        Some("mock-anthropic"),
        "{state:?}"
    );
}

#[test]
fn abort_ends_the_run_while_an_approval_is_pending() {
    // Issue 19, item 2: the agent's thread waited on the approval forever, so
    // `abort` did not end the run.
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"a","steps":[
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch never.txt"}}]}},
      {"reply":{"text":"not reached"}}]}"#,
    );
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"make a file"}"#);
    rpc.until("approval", |v| {
        v["type"].as_str() == Some("approval_request")
    });
    let started = std::time::Instant::now();
    rpc.call(2, r#"{"id":2,"type":"abort"}"#);
    let end = rpc.agent_end();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        end["reason"].as_str(),
        Some("aborted"),
        "{}",
        end.to_json_string()
    );
    assert!(
        !s.work.join("never.txt").exists(),
        "the unapproved call never ran"
    );
    // The server is idle and serves the next command.
    let state = rpc.call(3, r#"{"id":3,"type":"get_state"}"#);
    assert_eq!(state["success"].as_bool(), Some(true));
    assert_eq!(rpc.close(), 0);
}

#[test]
fn end_of_input_with_an_approval_pending_exits() {
    // Closing stdin while an approval waited left focus running forever.
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"a","steps":[
      {"reply":{"toolCalls":[{"name":"bash","arguments":{"command":"touch never.txt"}}]}},
      {"reply":{"text":"the call was denied"}}]}"#,
    );
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"make a file"}"#);
    rpc.until("approval", |v| {
        v["type"].as_str() == Some("approval_request")
    });
    // `close` waits (15 s at most) for the exit.
    assert_eq!(rpc.close(), 0);
    assert!(!s.work.join("never.txt").exists());
}

#[test]
fn end_of_input_stops_an_endless_run_after_its_current_step() {
    // A model that calls a tool on every turn would keep the server alive
    // forever after stdin closed; it stops after the current step.
    let s = Sandbox::new();
    let mut steps = Vec::new();
    for i in 0..200 {
        steps.push(format!(
            r#"{{"reply":{{"toolCalls":[{{"name":"bash","arguments":{{"command":"echo step {i}"}}}}]}}}}"#
        ));
    }
    let server = mock(&format!(
        r#"{{"name":"endless","steps":[{}]}}"#,
        steps.join(",")
    ));
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(
        &s,
        &["--model", "mock-openai/m1", "--permission-mode", "auto"],
    );
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"loop"}"#);
    rpc.until("a first step", |v| v["type"].as_str() == Some("turn_end"));
    assert_eq!(rpc.close(), 0);
    assert!(
        server.requests().len() < 20,
        "stopped after the current step, not after {} requests",
        server.requests().len()
    );
}

/// The automatic compaction after a run comes before `agent_end` (the server is
/// idle once a client sees it), and while its summary streams `get_state` is
/// answered and `abort` cancels it.
#[test]
fn compaction_comes_before_agent_end_and_abort_cancels_it() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"c","steps":[
      {"reply":{"text":"The answer.","inputTokens":90000}},
      {"reply":{"text":"a summary that takes its time to arrive, word by word","chunkDelayMs":3000}}]}"#,
    );
    s.write_models(&server.url());
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"hi"}"#);
    rpc.until("the compaction starting", |v| {
        v["type"].as_str() == Some("auto_compaction_start")
    });
    let state = rpc.call(2, r#"{"id":2,"type":"get_state"}"#);
    assert_eq!(
        state["data"]["isCompacting"].as_bool(),
        Some(true),
        "{state:?}"
    );
    assert!(
        !rpc.seen
            .iter()
            .any(|v| v["type"].as_str() == Some("agent_end")),
        "agent_end came before the compaction ended"
    );
    let ok = rpc.call(3, r#"{"id":3,"type":"abort"}"#);
    assert_eq!(ok["success"].as_bool(), Some(true));
    let end = rpc.until("the compaction ending", |v| {
        v["type"].as_str() == Some("auto_compaction_end")
    });
    assert_eq!(end["aborted"].as_bool(), Some(true), "{end:?}");
    rpc.agent_end();
    let state = rpc.call(4, r#"{"id":4,"type":"get_state"}"#);
    assert_eq!(state["data"]["isCompacting"].as_bool(), Some(false));
    assert_eq!(rpc.close(), 0);
}

/// `compact` is answered when its summary is written; meanwhile only `abort`
/// is, and it cancels the compaction (the response says so, nothing is
/// recorded); the command after it is answered after it.
#[test]
fn compact_is_answered_at_its_end_and_abort_cancels_it() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"c","steps":[
      {"reply":{"text":"the first answer, long enough to be summarized later on"}},
      {"reply":{"text":"the second answer"}},
      {"reply":{"text":"a summary that never comes in time","chunkDelayMs":600000}}]}"#,
    );
    s.write_models(&server.url());
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"compaction":{"keepRecentTokens":1}}"#,
    )
    .unwrap();
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    for (id, text) in [(1, "one"), (2, "two")] {
        rpc.call(
            id,
            &format!(r#"{{"id":{id},"type":"prompt","message":"{text}"}}"#),
        );
        rpc.agent_end();
    }
    rpc.send_raw(r#"{"id":3,"type":"compact"}"#);
    rpc.send_raw(r#"{"id":4,"type":"get_messages"}"#);
    // Nothing is written while the summary streams: wait for its request.
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while server.requests().len() < 3 {
        assert!(std::time::Instant::now() < give_up, "no summary request");
        std::thread::yield_now();
    }
    let aborted = rpc.call(5, r#"{"id":5,"type":"abort"}"#);
    assert_eq!(aborted["success"].as_bool(), Some(true));
    let compact = rpc.until("the compact response", |v| v["id"].as_u64() == Some(3));
    assert_eq!(compact["success"].as_bool(), Some(false), "{compact:?}");
    let error = compact["error"].as_str().unwrap_or("");
    assert!(error.contains("cancelled"), "{error}");
    let messages = rpc.until("the waiting command", |v| v["id"].as_u64() == Some(4));
    assert_eq!(
        messages["data"]["messages"].as_array().map(Vec::len),
        Some(4)
    );
    assert!(!std::fs::read_to_string(&s.session_files()[0])
        .unwrap()
        .contains(r#""type":"compaction""#));
    assert_eq!(rpc.close(), 0);
}

/// A compaction inside a run is reported in order, `get_state` says it is
/// compacting, and `abort` cancels it and the run.
#[test]
fn a_compaction_inside_a_run_shows_in_get_state_and_abort_cancels_it() {
    let s = Sandbox::new();
    let server = context_filling_tool_call_then_a_slow_summary(&s);
    let mut rpc = RpcClient::start(&s, &["--model", "mock-anthropic/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"hi"}"#);
    rpc.until("the compaction starting", |v| {
        v["type"].as_str() == Some("auto_compaction_start")
    });
    assert!(
        rpc.seen
            .iter()
            .any(|v| v["type"].as_str() == Some("tool_execution_end")),
        "inside the run, after the tool"
    );
    let state = rpc.call(2, r#"{"id":2,"type":"get_state"}"#);
    assert_eq!(
        state["data"]["isCompacting"].as_bool(),
        Some(true),
        "{state:?}"
    );
    assert_eq!(
        state["data"]["isStreaming"].as_bool(),
        Some(true),
        "{state:?}"
    );
    rpc.call(3, r#"{"id":3,"type":"abort"}"#);
    let end = rpc.until("the compaction ending", |v| {
        v["type"].as_str() == Some("auto_compaction_end")
    });
    assert_eq!(end["aborted"].as_bool(), Some(true), "{end:?}");
    let agent_end = rpc.agent_end();
    assert_eq!(
        agent_end["reason"].as_str(),
        Some("aborted"),
        "{agent_end:?}"
    );
    let state = rpc.call(4, r#"{"id":4,"type":"get_state"}"#);
    assert_eq!(state["data"]["isCompacting"].as_bool(), Some(false));
    let calls = server
        .requests()
        .iter()
        .filter(|r| !r.body_text().contains("context summarization assistant"))
        .count();
    assert_eq!(calls, 1, "no model call after the abort");
    assert_eq!(rpc.close(), 0);
}

/// Branch summaries and labels are reachable over RPC: leaving a branch can
/// summarize it (a branch_summary entry the model then reads), and labels are
/// set, shown in the tree and cleared.
#[test]
fn navigate_tree_summarizes_the_branch_left_and_labels_come_and_go() {
    let s = Sandbox::new();
    let server = mock(
        r#"{"name":"b","steps":[
      {"reply":{"text":"First answer."}},
      {"reply":{"text":"Second answer."}},
      {"reply":{"text":"We tried the second idea; it failed."}},
      {"reply":{"text":"Back on the first branch."}}]}"#,
    );
    s.write_models(&server.url());
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"one"}"#);
    rpc.agent_end();
    rpc.call(2, r#"{"id":2,"type":"prompt","message":"two"}"#);
    rpc.agent_end();
    let tree = rpc.call(3, r#"{"id":3,"type":"get_session_tree"}"#);
    let entries = tree["data"]["entries"].as_array().unwrap().clone();
    let first_answer = entries
        .iter()
        .find(|e| {
            e["text"]
                .as_str()
                .is_some_and(|t| t.contains("First answer"))
        })
        .expect("the first answer is in the tree");
    let id = first_answer["id"].as_str().unwrap().to_string();

    let labelled = rpc.call(
        4,
        &format!(r#"{{"id":4,"type":"set_label","entryId":"{id}","label":"good point"}}"#),
    );
    assert_eq!(labelled["success"].as_bool(), Some(true), "{labelled:?}");
    let tree = rpc.call(5, r#"{"id":5,"type":"get_session_tree"}"#);
    let shown = tree["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["id"].as_str() == Some(&id) && e["label"].as_str() == Some("good point"));
    assert!(shown, "{tree:?}");

    let moved = rpc.call(
        6,
        &format!(r#"{{"id":6,"type":"navigate_tree","entryId":"{id}","summarize":true}}"#),
    );
    assert_eq!(moved["success"].as_bool(), Some(true), "{moved:?}");
    assert!(
        moved["data"]["summaryEntryId"].as_str().is_some(),
        "{moved:?}"
    );
    rpc.call(7, r#"{"id":7,"type":"prompt","message":"go on"}"#);
    rpc.agent_end();
    // The model reads the summary of the branch it came back from.
    let last = server.requests().last().unwrap().body_text();
    assert!(last.contains("We tried the second idea"), "{last}");

    rpc.call(
        8,
        &format!(r#"{{"id":8,"type":"set_label","entryId":"{id}"}}"#),
    );
    let tree = rpc.call(9, r#"{"id":9,"type":"get_session_tree"}"#);
    let cleared = tree["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["id"].as_str() == Some(&id) && e["label"].is_null());
    assert!(cleared, "{tree:?}");
    let session = std::fs::read_to_string(&s.session_files()[0]).unwrap();
    assert!(session.contains(r#""type":"branch_summary""#), "{session}");
}

/// pi's steeringMode and followUpMode settings are read (and shown by get_state).
#[test]
fn pi_queue_modes_are_read_from_settings() {
    let s = Sandbox::new();
    let server = mock(r#"{"name":"q","steps":[{"reply":{"text":"ok"}}]}"#);
    s.write_models(&server.url());
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"followUpMode":"one-at-a-time"}"#,
    )
    .unwrap();
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1"]);
    let state = rpc.call(1, r#"{"id":1,"type":"get_state"}"#);
    assert_eq!(
        state["data"]["followUpMode"].as_str(),
        Some("one-at-a-time")
    );
    assert_eq!(state["data"]["steeringMode"].as_str(), Some("all"));
    assert_eq!(rpc.close(), 0);
    std::fs::write(s.home.join("settings.json"), r#"{"steeringMode":"some"}"#).unwrap();
    let out = s.run(&["-p", "--model", "mock-openai/m1", "hi"], "");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(r#"steeringMode: expected "all" or "one-at-a-time""#),
        "{}",
        stderr(&out)
    );
}

/// pi's `get_commands`: the prompt templates and skills, with their lines.
#[test]
fn get_commands_lists_templates_and_skills() {
    let s = Sandbox::new();
    s.write_template("review", "Review $1 with care.\n");
    s.write_skill(
        "pdf",
        "---\nname: pdf\ndescription: Read PDF files\n---\nUse pdftotext.\n",
    );
    let mut rpc = RpcClient::start(&s, &[]);
    let response = rpc.call(1, r#"{"id":1,"type":"get_commands"}"#);
    let commands = response["data"]["commands"].as_array().unwrap().clone();
    let row = |i: usize, key: &str| commands[i][key].as_str().unwrap_or("").to_string();
    assert_eq!(commands.len(), 2, "{response:?}");
    assert_eq!(
        (row(0, "name"), row(0, "description"), row(0, "source")),
        (
            "review".into(),
            "Review $1 with care.".into(),
            "prompt".into()
        )
    );
    assert_eq!(
        (row(1, "name"), row(1, "description"), row(1, "source")),
        ("skill:pdf".into(), "Read PDF files".into(), "skill".into())
    );
    assert!(row(1, "path").ends_with("pdf/SKILL.md"));
    rpc.close();
}

#[test]
fn the_deadline_stops_an_rpc_prompt_and_refuses_the_next() {
    let s = Sandbox::new();
    // 26 words, 400 ms apart: ten seconds of answer, far past the deadline.
    let server = mock(
        r#"{"name":"slow","steps":[{"reply":{"text":"a b c d e f g h i j k l m n o p q r s t u v w x y z","chunkDelayMs":400}}]}"#,
    );
    s.write_models(&server.url());
    let started = std::time::Instant::now();
    let mut rpc = RpcClient::start(&s, &["--model", "mock-openai/m1", "--deadline", "1s"]);
    rpc.call(1, r#"{"id":1,"type":"prompt","message":"talk slowly"}"#);
    let end = rpc.agent_end();
    assert!(started.elapsed() < std::time::Duration::from_secs(8));
    let last = end["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["stopReason"].as_str(), Some("aborted"), "{end:?}");
    let warned = rpc.seen.iter().any(|v| {
        v["type"].as_str() == Some("warning")
            && v["message"].as_str().unwrap_or("").contains("deadline")
    });
    assert!(warned, "{:?}", rpc.seen);
    // Nothing starts after the deadline.
    let refused = rpc.call(2, r#"{"id":2,"type":"prompt","message":"again"}"#);
    assert_eq!(refused["success"].as_bool(), Some(false));
    assert!(
        refused["error"].as_str().unwrap_or("").contains("deadline"),
        "{refused:?}"
    );
    assert_eq!(rpc.close(), 0);
}
