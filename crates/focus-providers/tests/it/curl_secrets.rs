//! While a request is in flight, no process's argument list (nor curl's
//! environment) holds the API key: it travels in curl's stdin config. It runs
//! in a process of its own (`in_own_process`), so that the `/proc` scan sees only
//! this test's curl.

use crate::support::procs::{children, processes};
use focus_core::cancel::CancelToken;
use focus_providers::curl::CurlTransport;
use focus_testkit::alone::in_own_process;
use focus_testkit::server::{Gate, ScriptedResponse, TestServer};
use focus_transport::{HttpRequest, Transport};
use std::io::Read;
use std::time::Duration;

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn api_key_is_in_no_command_line_while_in_flight() {
    if !in_own_process(
        module_path!(),
        "api_key_is_in_no_command_line_while_in_flight",
    ) {
        return;
    }
    let key = format!("sk-focus-secret-{}-{}", std::process::id(), line!());
    let url_key = format!("AIzaFocusUrlKey{}", std::process::id());
    let gate = Gate::new();
    let server =
        TestServer::repeating(ScriptedResponse::sse(&["data: 1\n\n"]).head_after_gate(&gate));
    let request = HttpRequest {
        method: "POST".into(),
        url: server.url_for(&format!(
            "/v1beta/models/x:streamGenerateContent?alt=sse&key={url_key}"
        )),
        headers: vec![
            ("authorization".into(), format!("Bearer {key}")),
            ("x-api-key".into(), key.clone()),
        ],
        body: format!("{{\"prompt\":\"{key}\"}}").into_bytes(),
        connect_timeout: Some(Duration::from_secs(5)),
        total_timeout: Some(Duration::from_secs(20)),
    };
    let cancel = CancelToken::new();
    let in_flight = {
        let request = request.clone();
        let cancel = cancel.clone();
        std::thread::spawn(move || CurlTransport::new().send(&request, &cancel))
    };
    // The server has the request and holds its answer: curl is running now.
    let received = server.wait_for_requests(1, Duration::from_secs(10));
    assert_eq!(received.len(), 1, "the request never arrived");
    assert_eq!(
        received[0].header("x-api-key"),
        Some(key.as_str()),
        "the key did reach the server"
    );

    let curls: Vec<u32> = children()
        .into_iter()
        .filter(|p| p.comm == "curl")
        .map(|p| p.pid)
        .collect();
    assert_eq!(curls.len(), 1, "expected exactly our one curl in flight");
    let curl_cmdline = std::fs::read(format!("/proc/{}/cmdline", curls[0])).unwrap();
    assert_eq!(curl_cmdline, b"curl\0-q\0--config\0-\0", "curl's arguments");
    let environ = std::fs::read(format!("/proc/{}/environ", curls[0])).unwrap_or_default();
    assert!(
        !contains(&environ, key.as_bytes()),
        "the key is in curl's environment"
    );

    let mut scanned = 0;
    for pid in processes().into_iter().map(|p| p.pid) {
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        scanned += 1;
        for secret in [key.as_bytes(), url_key.as_bytes()] {
            assert!(
                !contains(&cmdline, secret),
                "process {pid} shows a secret: {}",
                String::from_utf8_lossy(&cmdline)
            );
        }
    }
    assert!(scanned > 1);

    gate.open();
    let response = in_flight.join().unwrap().unwrap();
    assert_eq!(response.status, 200);
    let mut body = String::new();
    let mut reader = response.body;
    reader.read_to_string(&mut body).unwrap();
    assert_eq!(body, "data: 1\n\n");
}
