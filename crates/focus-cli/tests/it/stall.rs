//! A provider that keeps its stream alive with keepalives but never sends the
//! model's text: `streamStallSeconds` ends each attempt, the stall is retried
//! like a dropped connection, and the user is told what happened.

use crate::support::*;
use focus_testkit::server::{ScriptedResponse, TestServer};
use std::time::{Duration, Instant};

#[test]
fn keepalives_without_text_stall_after_the_settings_limit_and_are_retried() {
    let s = Sandbox::new();
    let mut response = ScriptedResponse::new(200)
        .header("content-type", "text/event-stream")
        .chunked()
        .chunk("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":4}}}\n\n");
    // A keepalive byte (or comment, or ping) every 200 ms, for a minute.
    let keepalives = [
        "\n",
        ": keepalive\n\n",
        "event: ping\ndata: {\"type\":\"ping\"}\n\n",
    ];
    for i in 0..300 {
        response = response.chunk_after(Duration::from_millis(200), keepalives[i % 3]);
    }
    let server = TestServer::repeating(response);
    s.write_models(&server.url());
    std::fs::write(
        s.home.join("settings.json"),
        r#"{"streamStallSeconds":1,"retry":{"maxRetries":1,"baseDelayMs":10}}"#,
    )
    .unwrap();
    let started = Instant::now();
    let out = s.run(&["--model", "mock-anthropic/m1", "-p", "hello"], "");
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("no model output from the server for 1 s"),
        "{err}"
    );
    assert!(err.contains("after 2 attempts"), "{err}");
    assert_eq!(server.requests().len(), 2, "the stall was retried once");
    assert!(started.elapsed() < Duration::from_secs(15));
}
