//! Cancelling 100 in-flight requests (half waiting for the head, half in the
//! middle of a streamed body) leaves no curl process, no zombie, no temp file and
//! no extra thread and no open pipe behind; so does a request that completes.
//! It runs in a process of its own (`in_own_process`), so that the scan of the
//! process's children, threads and descriptors sees only it.

use crate::support::procs::children;
use focus_core::cancel::CancelToken;
use focus_providers::curl::CurlTransport;
use focus_testkit::alone::in_own_process;
use focus_testkit::server::{Gate, ScriptedResponse, TestServer};
use focus_transport::sse::EventReader;
use focus_transport::{HttpRequest, Transport, TransportError};
use std::time::{Duration, Instant};

const REQUESTS: usize = 100;

fn open_fd_count() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

fn leftover_temp_files() -> Vec<String> {
    let prefix = format!("focus-curl-{}-", std::process::id());
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.starts_with(&prefix))
        .collect()
}

#[test]
fn cancelling_100_requests_leaves_nothing_behind() {
    if !in_own_process(
        module_path!(),
        "cancelling_100_requests_leaves_nothing_behind",
    ) {
        return;
    }
    let threads_before = thread_count();
    let fds_before = open_fd_count();
    let never = Gate::new();
    let gate = never.clone();
    let server = TestServer::responder(move |request| {
        if request.path == "/head" {
            ScriptedResponse::json("{}").head_after_gate(&gate)
        } else {
            ScriptedResponse::sse(&["data: first\n\n"]).chunk_after_gate(&gate, "data: never\n\n")
        }
    });
    let mut tokens = Vec::new();
    let mut workers = Vec::new();
    for i in 0..REQUESTS {
        let cancel = CancelToken::new();
        tokens.push(cancel.clone());
        let path = if i % 2 == 0 { "/head" } else { "/body" };
        let request = HttpRequest {
            method: "POST".into(),
            url: server.url_for(path),
            headers: vec![("x-api-key".into(), "sk-cancel-test-key".into())],
            body: format!("{{\"n\":{i}}}").into_bytes(),
            connect_timeout: Some(Duration::from_secs(10)),
            total_timeout: Some(Duration::from_secs(60)),
        };
        workers.push(std::thread::spawn(move || -> Result<(), TransportError> {
            let response = CurlTransport::new().send(&request, &cancel)?;
            let mut events = EventReader::new(response.body);
            let first = events
                .next_event()
                .map_err(|e| TransportError::from_io(&e))?;
            assert_eq!(first.map(|e| e.data).as_deref(), Some("first"));
            match events.next_event() {
                Err(e) => Err(TransportError::from_io(&e)),
                Ok(event) => panic!("the gate is never opened, yet got {event:?}"),
            }
        }));
    }
    let arrived = server.wait_for_requests(REQUESTS, Duration::from_secs(30));
    assert_eq!(
        arrived.len(),
        REQUESTS,
        "not every request reached the server"
    );
    // Give the body readers time to get their first event and block on the next.
    std::thread::sleep(Duration::from_millis(200));
    assert!(!children().is_empty(), "the curls should be running now");

    let started = Instant::now();
    for token in &tokens {
        token.cancel();
    }
    for worker in workers {
        assert_eq!(worker.join().unwrap(), Err(TransportError::Cancelled));
    }
    // Liveness: every blocked read was woken by the kill, not by a timeout.
    assert!(started.elapsed() < Duration::from_secs(20));

    let left = children();
    let zombies = left.iter().filter(|p| p.state == 'Z').count();
    assert!(
        left.is_empty(),
        "processes left behind ({zombies} of them zombies): {left:?}"
    );
    assert_eq!(leftover_temp_files(), Vec::<String>::new());
    drop(server);
    // Threads: the workers and curl stderr readers are joined, the server stopped.
    let deadline = Instant::now() + Duration::from_secs(5);
    while thread_count() > threads_before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(thread_count(), threads_before, "threads left behind");
    // Every pipe to every curl (stdin, stdout, stderr) and every socket is closed.
    assert_eq!(open_fd_count(), fds_before, "file descriptors left open");
    never.open();
}
