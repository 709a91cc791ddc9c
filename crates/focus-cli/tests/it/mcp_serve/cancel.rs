//! `notifications/cancelled` stops a call: a `bash` call's processes are
//! killed (none is left behind), an `agent` run is aborted with its tool's
//! processes and its session left whole; over stdio and over HTTP.

use super::*;
use crate::support::{mock, process_running};

/// Waits until `done` holds (at most [`ANSWER_LIMIT`]); whether it did.
fn wait_for(done: impl Fn() -> bool) -> bool {
    let give_up = Instant::now() + ANSWER_LIMIT;
    while Instant::now() < give_up {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// A bash command that starts two processes named after `marker`.
fn sleepers(marker: &str) -> String {
    format!(
        r#"{{"name":"bash","arguments":{{"command":"(exec -a {marker}-child sleep 300) & exec -a {marker}-main sleep 300"}},"_meta":{{"progressToken":"tick"}}}}"#
    )
}

#[test]
fn a_cancelled_bash_leaves_no_process_over_stdio() {
    let s = project();
    let marker = format!("focus-mcp-cancel-{}", std::process::id());
    let mut server = RawServer::start(&s, &["--permission-mode", "auto"]);
    server.send(&format!(
        r#"{{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{}}}"#,
        sleepers(&marker)
    ));
    // Both started: the shell forks the child first and only then execs the
    // main one, so a loaded machine may show one before the other.
    assert!(wait_for(|| process_running(&format!("{marker}-child"))
        && process_running(&format!("{marker}-main"))));
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"test"}}"#);
    let (_, answer) = server.until_id(r#""slow""#);
    assert_eq!(answer["error"]["code"].as_i64(), Some(-32800), "{answer}");
    assert!(wait_for(|| !process_running(&marker)), "a process is left");
    // The server goes on.
    let ping = server.request(1, "ping", "{}");
    assert!(ping["result"].as_object().is_some());
}

#[test]
fn a_cancelled_bash_leaves_no_process_over_http() {
    let s = project();
    let marker = format!("focus-mcp-http-cancel-{}", std::process::id());
    let server = HttpServer::start(&s, &["--permission-mode", "auto"]);
    let session = server.initialize();
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}}"#,
        sleepers(&marker)
    );
    std::thread::scope(|scope| {
        let waiting = scope.spawn(|| server.post(Some(&session), &call));
        assert!(wait_for(|| process_running(&format!("{marker}-child"))));
        let cancelled = server.post(
            Some(&session),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#,
        );
        assert_eq!(cancelled.status, 202);
        let reply = waiting.join().unwrap();
        // Asked with a progress token: an event stream, the answer last.
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        assert_eq!(
            reply.json()["error"]["code"].as_i64(),
            Some(-32800),
            "{}",
            reply.body
        );
    });
    assert!(wait_for(|| !process_running(&marker)), "a process is left");
}

#[test]
fn a_cancelled_agent_stops_its_run_and_its_tools_and_keeps_its_session() {
    let s = project();
    let marker = format!("focus-mcp-agent-cancel-{}", std::process::id());
    let model = mock(&format!(
        r#"{{"name":"m","steps":[
          {{"reply":{{"toolCalls":[{{"name":"bash","arguments":{{"command":"exec -a {marker} sleep 300"}}}}]}}}},
          {{"reply":{{"text":"never"}}}}]}}"#
    ));
    s.write_models(&model.url());
    let mut server = RawServer::start(
        &s,
        &["--permission-mode", "auto", "--model", "mock-anthropic/m1"],
    );
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agent","arguments":{"prompt":"sleep"}}}"#);
    assert!(wait_for(|| process_running(&marker)));
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    let (_, answer) = server.until_id("1");
    assert_eq!(answer["error"]["code"].as_i64(), Some(-32800), "{answer}");
    assert!(
        wait_for(|| !process_running(&marker)),
        "the agent's process is left"
    );
    // The session holds the run: every line JSON, the call answered.
    let files = s.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    for line in text.lines() {
        assert!(parse_str(line).is_ok(), "{line}");
    }
    assert!(text.contains("toolResult"), "{text}");
}
