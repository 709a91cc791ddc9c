//! Ctrl+C (SIGINT), SIGTERM, SIGHUP and SIGQUIT abort a run cleanly: the
//! partial answer is kept, every tool call is answered, the session file stays
//! well formed, and focus exits with 128 + the signal's number.

use crate::support::*;

#[test]
fn termination_signals_abort_cleanly_and_keep_the_session_valid() {
    // Ctrl+C exits 130, like the shell's status for SIGINT (128 + 2).
    for (signal, number) in [("INT", 2), ("TERM", 15), ("HUP", 1), ("QUIT", 3)] {
        let s = Sandbox::new();
        let server = mock(
            r#"{"name":"slow","steps":[{"reply":{"text":"one two three four five six seven eight nine ten","chunkDelayMs":300}}]}"#,
        );
        s.write_models(&server.url());
        let mut cmd = s.cmd(&["-p", "--no-tools", "--model", "mock-openai/m1", "talk"]);
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        // Wait for the first streamed bytes: the handlers are installed by then.
        let mut first = [0u8; 1];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        let kill = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let deadline = std::time::Instant::now() + RUN_LIMIT;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "SIG{signal}: focus kept running"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        // Aborted by the handler, not killed by the signal: it exits with the
        // status a shell gives a program that signal killed (128 + its number).
        assert_eq!(status.code(), Some(128 + number), "SIG{signal}");
        let session = std::fs::read_to_string(&s.session_files()[0]).unwrap();
        assert!(
            session.contains("\"stopReason\":\"aborted\""),
            "SIG{signal}: {session}"
        );
    }
}

/// In RPC mode a termination signal while a tool runs ends the run cleanly: the
/// tool's process group is killed, the call gets its result in the session, and
/// focus exits with 128 + the signal's number.
#[test]
fn termination_signals_stop_the_rpc_server_cleanly() {
    for (signal, number) in [("TERM", 15), ("HUP", 1)] {
        let s = Sandbox::new();
        let marker = format!("rpc-signal-marker-{}-{signal}", std::process::id());
        let server = mock(&format!(
            r#"{{"name":"t","steps":[
          {{"reply":{{"toolCalls":[{{"name":"bash","arguments":{{"command":"exec -a {marker} sleep 60"}}}}]}}}},
          {{"reply":{{"text":"not reached"}}}}]}}"#
        ));
        s.write_models(&server.url());
        let mut rpc = RpcClient::start(
            &s,
            &["--model", "mock-openai/m1", "--permission-mode", "auto"],
        );
        rpc.call(1, r#"{"id":1,"type":"prompt","message":"wait"}"#);
        rpc.until("the tool running", |v| {
            v["type"].as_str() == Some("tool_execution_start")
        });
        // The sleep has started (its process carries the marker).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while !process_running(&marker) {
            assert!(
                std::time::Instant::now() < deadline,
                "the tool never started"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(rpc.signal(signal), Some(128 + number), "SIG{signal}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while process_running(&marker) {
            assert!(
                std::time::Instant::now() < deadline,
                "SIG{signal}: the tool's process was left running"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let session = std::fs::read_to_string(&s.session_files()[0]).unwrap();
        assert!(
            session.contains(r#""role":"toolResult""#),
            "SIG{signal}: the call was answered in the session: {session}"
        );
    }
}
