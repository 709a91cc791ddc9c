//! MCP servers that misbehave, played by tiny `sh` scripts: odd tool lists
//! (wrong types, duplicates, empty and non-ASCII names, schemas that are not
//! objects), odd call results, and a flood of `tools/list_changed`
//! notifications. focus must keep working, never panic, and not pile up
//! threads. (The flood test runs in a process of its own, `in_own_process`, so
//! that the thread count is not disturbed by other tests.)

use crate::support::mcp;
use focus_testkit::alone::in_own_process;
use focus_tools::mcp::{McpManager, McpServerConfig, ServerState};
use std::time::{Duration, Instant};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":7,"version":[]}}}"#;

fn sh_server(name: &str, script: &str) -> McpServerConfig {
    let mut config = McpServerConfig::stdio(name, "/bin/sh", &["-c", script]);
    config.request_timeout = Duration::from_secs(3);
    config.startup_timeout = Duration::from_secs(5);
    config
}

fn log_dir(tag: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("focus-mcp-hostile-{tag}-{}", std::process::id()))
}

/// This process's thread count (Linux); `None` elsewhere.
fn threads() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
}

#[test]
fn odd_tool_lists_and_results_are_survived() {
    let tools = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"ok","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}},{"name":5},{"name":""},{"name":"ok"},{"name":"é/ü","inputSchema":[]},{"name":"deep","inputSchema":"nope","annotations":7},{}],"nextCursor":""}}"#;
    let result = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":5},{"type":"image"},{"type":"resource","resource":7},{},7,"x",{"type":"audio","mimeType":[]}],"isError":"yes"}}"#;
    let script = format!(
        "read l; echo '{INIT}'; read l; read l; echo '{tools}'; read l; echo '{result}'; \
         echo '{{\"jsonrpc\":\"2.0\",\"id\":\"3\",\"result\":1}}'; echo 'not json'; \
         echo '{{\"jsonrpc\":\"2.0\",\"id\":99,\"error\":\"boom\"}}'; sleep 5"
    );
    let manager = McpManager::start(vec![sh_server("odd", &script)], &log_dir("odd"));
    let status = manager.status();
    assert_eq!(
        status[0].state,
        ServerState::Running,
        "{:?}",
        manager.take_warnings()
    );
    let tools = manager.tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert!(names.contains(&"odd__ok"), "{names:?}");
    assert_eq!(
        names.iter().filter(|n| **n == "odd__ok").count(),
        1,
        "duplicate skipped"
    );
    for tool in &tools {
        assert!(
            tool.parameters().as_object().is_some(),
            "schema is always an object"
        );
    }
    let ok = tools.iter().find(|t| t.name() == "odd__ok").unwrap();
    let output = mcp::run(ok.as_ref(), r#"{"n":1}"#);
    assert!(!output.content.is_empty());
}

#[test]
fn a_flood_of_list_changed_notifications_does_not_pile_up_threads() {
    if !in_own_process(
        module_path!(),
        "a_flood_of_list_changed_notifications_does_not_pile_up_threads",
    ) {
        return;
    }
    let Some(before) = threads() else { return };
    let tools = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t"}]}}"#;
    // After the handshake: 300 notifications, then silence (each refresh would
    // wait its whole request timeout for an answer that never comes).
    let script = format!(
        "read l; echo '{INIT}'; read l; read l; echo '{tools}'; i=0; \
         while [ $i -lt 300 ]; do echo '{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}}'; i=$((i+1)); done; \
         sleep 10"
    );
    let manager = McpManager::start(vec![sh_server("flood", &script)], &log_dir("flood"));
    assert_eq!(manager.status()[0].state, ServerState::Running);
    let deadline = Instant::now() + Duration::from_millis(700);
    let mut most = 0;
    while Instant::now() < deadline {
        most = most.max(threads().unwrap_or(0));
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(manager);
    assert!(
        most < before + 20,
        "{most} threads while refreshing ({before} before): one refresh at a time is enough"
    );
}

#[test]
fn a_server_that_stops_reading_cannot_block_a_call_past_its_timeout() {
    let tools = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t"}]}}"#;
    // After the handshake the server never reads its stdin again, so a large
    // request fills the pipe.
    let script = format!("read l; echo '{INIT}'; read l; read l; echo '{tools}'; sleep 20");
    let mut config = sh_server("deaf", &script);
    config.request_timeout = Duration::from_secs(1);
    let manager = McpManager::start(vec![config], &log_dir("deaf"));
    let tool = manager.tools().into_iter().next().expect("one tool");
    let big = format!(r#"{{"text":"{}"}}"#, "x".repeat(1 << 20));
    let started = Instant::now();
    let output = mcp::run(tool.as_ref(), &big);
    let took = started.elapsed();
    assert!(output.is_error);
    assert!(
        took < Duration::from_secs(5),
        "the 1 s request timeout held ({took:?})"
    );
}
