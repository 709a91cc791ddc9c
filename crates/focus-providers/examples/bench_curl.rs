//! `bench_curl`: the overhead of one CurlTransport request, from spawning curl to
//! the last byte of a tiny body, against the loopback test server.
//!
//! 50 sequential POSTs (after 3 warm-up requests); prints min, median and p90.
//! For scale it also times bare `curl -q --version` runs: the cost of starting
//! curl at all (dynamic loading of libcurl, OpenSSL…), which no caller can avoid.
//!
//! ```text
//! cargo run --release -p focus-providers --example bench_curl
//! ```

use focus_core::cancel::CancelToken;
use focus_providers::curl::CurlTransport;
use focus_testkit::server::{ScriptedResponse, TestServer};
use focus_transport::{HttpRequest, Transport};
use std::io::Read;
use std::time::{Duration, Instant};

const RUNS: usize = 50;

fn main() {
    let server = TestServer::repeating(ScriptedResponse::json("{\"ok\":true}"));
    let transport = CurlTransport::new();
    match transport.check() {
        Ok(version) => println!("{version}"),
        Err(e) => {
            eprintln!("bench_curl: {e}");
            std::process::exit(2);
        }
    }
    let request = HttpRequest {
        method: "POST".into(),
        url: server.url_for("/v1/messages"),
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("x-api-key".into(), "sk-bench-key".into()),
        ],
        body: b"{\"model\":\"m\",\"messages\":[]}".to_vec(),
        connect_timeout: Some(Duration::from_secs(5)),
        total_timeout: Some(Duration::from_secs(10)),
    };
    let one = || {
        let started = Instant::now();
        let response = transport
            .send(&request, &CancelToken::new())
            .expect("request failed");
        let mut body = Vec::new();
        let mut reader = response.body;
        reader.read_to_end(&mut body).expect("body failed");
        assert_eq!(body, b"{\"ok\":true}");
        started.elapsed()
    };
    for _ in 0..3 {
        one();
    }
    let requests: Vec<Duration> = (0..RUNS).map(|_| one()).collect();
    report("CurlTransport request, spawn to last byte", requests);
    let bare: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let status = std::process::Command::new(transport.program())
                .args(["-q", "--version"])
                .stdout(std::process::Stdio::null())
                .status()
                .expect("curl --version");
            assert!(status.success());
            started.elapsed()
        })
        .collect();
    report("bare `curl -q --version` (start-up floor)", bare);
}

/// Prints min, median, p90 and max of `times`.
fn report(label: &str, mut times: Vec<Duration>) {
    times.sort();
    let n = times.len();
    println!(
        "{label}: min {:.2?}, median {:.2?}, p90 {:.2?}, max {:.2?} ({n} runs)",
        times[0],
        times[n / 2],
        times[n * 9 / 10],
        times[n - 1]
    );
}
