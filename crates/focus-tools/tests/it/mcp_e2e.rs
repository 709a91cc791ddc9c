//! The MCP client end to end against `examples/mcp_test_server.rs`: listing,
//! calling (text, image, isError), pagination, `tools/list_changed`, a server that
//! dies mid-call, one that hangs, one that never starts, cancellation, and cleanup.

use crate::support::mcp;

use focus_core::cancel::CancelToken;
use focus_core::json::{parse_str, Value};
use focus_core::message::Content;
use focus_core::tool::Tool;
use focus_tools::mcp::{McpManager, McpServerConfig, ServerState};
use mcp::{run, run_with, server_binary};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn config(name: &str, args: &[&str]) -> McpServerConfig {
    let binary = server_binary();
    let mut config = McpServerConfig::stdio(name, binary.to_str().unwrap(), args);
    config.request_timeout = Duration::from_secs(5);
    config.startup_timeout = Duration::from_secs(5);
    config
}

fn log_dir(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "focus-mcp-{tag}-{}-{}",
        std::process::id(),
        focus_core::message::now_ms()
    ))
}

fn tool(manager: &McpManager, name: &str) -> Arc<dyn Tool> {
    manager
        .tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

#[test]
fn lists_and_calls_tools() {
    let dir = log_dir("basic");
    let manager = McpManager::start(vec![config("test", &[])], &dir);
    let status = manager.status();
    assert_eq!(status[0].state, ServerState::Running);
    assert_eq!(status[0].server_info, "mcp_test_server 1.0");
    let names: Vec<String> = manager
        .tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(
        names,
        vec![
            "test__echo",
            "test__image",
            "test__fail",
            "test__die",
            "test__hang",
            "test__add_tool",
            "test__env"
        ]
    );
    assert_eq!(status[0].tools, names);

    let echo = tool(&manager, "test__echo");
    assert_eq!(echo.parameters()["required"][0].as_str(), Some("text"));
    assert_eq!(echo.description(), "test tool echo");
    assert!(
        !echo.is_read_only(&Value::Null),
        "MCP tools are never trusted as read-only"
    );
    let out = run(&*echo, r#"{"text":"héllo \"world\""}"#);
    assert!(!out.is_error);
    assert_eq!(out.text_content(), "héllo \"world\"");
    assert_eq!(out.details["mcpServer"].as_str(), Some("test"));

    let out = run(&*tool(&manager, "test__image"), "{}");
    assert_eq!(out.content[0], Content::text("a pixel:"));
    assert!(
        matches!(&out.content[1], Content::Image { mime_type, data } if mime_type == "image/png" && data.starts_with("iVBOR"))
    );

    let out = run(&*tool(&manager, "test__fail"), "{}");
    assert!(out.is_error);
    assert_eq!(out.text_content(), "it failed on purpose");
    assert!(manager.take_warnings().is_empty());
    drop(manager);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn follows_pagination() {
    let dir = log_dir("pages");
    let manager = McpManager::start(vec![config("paged", &["--page-size", "2"])], &dir);
    assert_eq!(manager.tools().len(), 7);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refreshes_on_list_changed() {
    let dir = log_dir("changed");
    let manager = McpManager::start(vec![config("test", &[])], &dir);
    let before = manager.tools_generation();
    assert!(!manager.tools().iter().any(|t| t.name() == "test__extra"));
    assert_eq!(
        run(&*tool(&manager, "test__add_tool"), "{}").text_content(),
        "added"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while !manager.tools().iter().any(|t| t.name() == "test__extra") {
        assert!(Instant::now() < deadline, "the tool list was not refreshed");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(manager.tools_generation() > before);
    assert_eq!(
        run(&*tool(&manager, "test__extra"), "{}").text_content(),
        "extra works"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn server_dying_mid_call_is_a_tool_error_and_others_go_on() {
    let dir = log_dir("die");
    let manager = McpManager::start(vec![config("doomed", &[]), config("healthy", &[])], &dir);
    let die = tool(&manager, "doomed__die");
    let echo_doomed = tool(&manager, "doomed__echo");
    let out = run(&*die, "{}");
    assert!(out.is_error);
    assert!(
        out.text_content().contains("not running"),
        "{}",
        out.text_content()
    );
    assert!(
        out.text_content().contains("Do not retry"),
        "{}",
        out.text_content()
    );

    // Reported once, with the exit status; the server's tools are gone.
    let warnings = manager.take_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("doomed") && warnings[0].contains("stopped"),
        "{}",
        warnings[0]
    );
    assert!(manager.take_warnings().is_empty());
    assert!(
        matches!(manager.status()[0].state, ServerState::Exited(ref r) if r.contains("exit status: 3"))
    );
    assert!(manager
        .tools()
        .iter()
        .all(|t| !t.name().starts_with("doomed__")));

    // A tool object kept from before fails fast; the other server still works.
    let started = Instant::now();
    assert!(run(&*echo_doomed, r#"{"text":"x"}"#).is_error);
    // Fast: well before the 5 s request timeout a hang would take.
    assert!(started.elapsed() < Duration::from_secs(4));
    assert_eq!(
        run(&*tool(&manager, "healthy__echo"), r#"{"text":"ok"}"#).text_content(),
        "ok"
    );
    // The server's stderr is in its log.
    let log = std::fs::read_to_string(dir.join("doomed.log")).unwrap();
    assert!(log.contains("dying mid-call"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hanging_call_is_bounded_by_the_request_timeout() {
    let dir = log_dir("hang");
    let mut slow = config("slow", &[]);
    slow.request_timeout = Duration::from_millis(500);
    let manager = McpManager::start(vec![slow], &dir);
    let started = Instant::now();
    let out = run(&*tool(&manager, "slow__hang"), "{}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a hanging server hung the call"
    );
    assert!(out.is_error);
    assert!(
        out.text_content().contains("did not answer"),
        "{}",
        out.text_content()
    );
    // The server was told, and still serves other calls.
    assert_eq!(
        run(&*tool(&manager, "slow__echo"), r#"{"text":"still here"}"#).text_content(),
        "still here"
    );
    let log_path = dir.join("slow.log");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !std::fs::read_to_string(&log_path)
        .unwrap_or_default()
        .contains("cancelled")
    {
        assert!(
            Instant::now() < deadline,
            "notifications/cancelled was not sent"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cancel_stops_waiting() {
    let dir = log_dir("cancel");
    let manager = McpManager::start(vec![config("test", &[])], &dir);
    let hang = tool(&manager, "test__hang");
    let cancel = CancelToken::new();
    let canceller = cancel.clone();
    let thread = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        canceller.cancel();
    });
    let started = Instant::now();
    let out = run_with(&*hang, "{}", &cancel);
    thread.join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "cancel did not stop the wait"
    );
    assert!(
        out.is_error && out.text_content().contains("cancelled"),
        "{}",
        out.text_content()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn servers_that_fail_to_start_are_reported_once_and_skipped() {
    let dir = log_dir("fail");
    let mut hangs = config("hangs", &["--hang-init"]);
    hangs.startup_timeout = Duration::from_millis(500);
    let missing = McpServerConfig::stdio("missing", "/nonexistent/mcp-server", &[]);
    let mut http = McpServerConfig::stdio("remote", "", &[]);
    http.url = Some("https://example.com/mcp".to_string());
    let started = Instant::now();
    let manager = McpManager::start(
        vec![
            missing,
            config("exits", &["--exit-at-start"]),
            hangs,
            http,
            config("good", &[]),
        ],
        &dir,
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a bad server blocked the start"
    );
    let status = manager.status();
    let state = |i: usize| match &status[i].state {
        ServerState::Failed(reason) => reason.clone(),
        other => panic!("{} should have failed, is {other:?}", status[i].name),
    };
    assert!(state(0).contains("cannot start"), "{}", state(0));
    assert!(state(1).contains("exit status: 1"), "{}", state(1));
    assert!(state(2).contains("initialize"), "{}", state(2));
    assert!(state(3).contains("HTTP transport"), "{}", state(3));
    assert_eq!(status[4].state, ServerState::Running);
    let warnings = manager.take_warnings();
    assert_eq!(warnings.len(), 4, "{warnings:?}");
    assert!(
        warnings.iter().all(|w| w.contains("failed to start")),
        "{warnings:?}"
    );
    assert!(
        manager.take_warnings().is_empty(),
        "warnings are reported once"
    );
    assert!(manager
        .tools()
        .iter()
        .all(|t| t.name().starts_with("good__")));
    assert!(std::fs::read_to_string(dir.join("exits.log"))
        .unwrap()
        .contains("exiting at start"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn garbage_on_stdout_is_logged_and_ignored() {
    let dir = log_dir("noise");
    let manager = McpManager::start(vec![config("noisy", &["--noise"])], &dir);
    assert_eq!(manager.status()[0].state, ServerState::Running);
    assert_eq!(
        run(&*tool(&manager, "noisy__echo"), r#"{"text":"x"}"#).text_content(),
        "x"
    );
    let log = std::fs::read_to_string(dir.join("noisy.log")).unwrap();
    assert!(log.contains("ignored a line that is not JSON"), "{log}");
    assert!(log.contains("mcp_test_server got:"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dropping_the_manager_stops_the_servers() {
    let dir = log_dir("drop");
    let marker = format!(
        "marker-{}-{}",
        std::process::id(),
        focus_core::message::now_ms()
    );
    let manager = McpManager::start(vec![config("a", &[&marker]), config("b", &[&marker])], &dir);
    assert_eq!(running_with(&marker), 2);
    drop(manager);
    assert_eq!(running_with(&marker), 0, "servers survived the manager");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Live (non-zombie) processes whose command line contains `marker`.
fn running_with(marker: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            !zombie && String::from_utf8_lossy(&cmdline).contains(marker)
        })
        .count()
}

/// Real MCP tools through the Gatekeeper: unknown to the permission gate, so they
/// ask in default mode, run when a rule allows them, and are blocked in plan mode.
#[test]
fn mcp_tools_pass_the_gates_like_any_tool() {
    use focus_core::message::{AssistantMessage, ToolCall};
    use focus_core::tool::{GateDecision, ToolGate};
    use focus_tools::gates::{Gatekeeper, Mode, NonInteractiveApprover};
    let dir = log_dir("gated");
    let manager = McpManager::start(vec![config("test", &[])], &dir);
    let echo = tool(&manager, "test__echo");
    let call = ToolCall {
        id: "c1".into(),
        name: "test__echo".into(),
        arguments: parse_str(r#"{"text":"hi"}"#).unwrap(),
        thought_signature: None,
        invalid_arguments: None,
    };
    let gate = |settings: &str| {
        Gatekeeper::from_settings(
            &parse_str(settings).unwrap(),
            Arc::new(NonInteractiveApprover),
            dir.clone(),
        )
        .unwrap()
    };
    let message = AssistantMessage::default();
    let gk = gate("{}");
    assert!(
        matches!(gk.before_call(&call, &*echo, &message), GateDecision::Block(r) if r.contains("Do not retry"))
    );
    let gk = gate(r#"{"permissions": {"allow": ["test__*"]}}"#);
    assert_eq!(gk.before_call(&call, &*echo, &message), GateDecision::Allow);
    gk.set_mode(Mode::Plan);
    assert!(
        matches!(gk.before_call(&call, &*echo, &message), GateDecision::Block(r) if r.contains("plan mode"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}
