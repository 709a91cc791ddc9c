//! SIGTERM, SIGHUP and SIGQUIT abort a print-mode run as Ctrl+C does: the
//! partial answer is kept and the session file stays well formed.

use crate::support::*;

#[test]
fn termination_signals_abort_cleanly_and_keep_the_session_valid() {
    for (signal, number) in [("TERM", 15), ("HUP", 1), ("QUIT", 3)] {
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
