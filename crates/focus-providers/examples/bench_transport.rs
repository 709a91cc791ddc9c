//! `bench_transport`: the std transport beside curl, on the same loopback server.
//!
//! Rows:
//! * **one answer**: `HttpProvider` asks an OpenAI-compatible server one question
//!   (a 20-delta answer) over `StdHttpTransport` and over `CurlTransport`; the
//!   median wall time of 40 calls each (after 3 warm-up calls), and the ratio.
//!   Target: std ≤ 0.5× curl.
//! * **an 80,000-delta stream read to its end**, each reader a process of its own,
//!   timed from spawn to exit: this example re-run as a child that reads the body
//!   through `StdHttpTransport`, the same through `CurlTransport`, and the `curl`
//!   program alone (`curl -s -N -o /dev/null`); in interleaved rounds, the median of 11 each, with the
//!   peak RSS of each (the child's own `VmHWM`, read at its end; curl's polled
//!   from `/proc` while it runs). Target: std ≤ 1.2× the curl program.
//! * **the same stream decoded**: `HttpProvider` over each transport, in process.
//!
//! ```text
//! cargo run --release -p focus-providers --example bench_transport [-- --quick]
//! ```
//! (`--quick`: 8,000 deltas and fewer runs; `--serve`: only the server, its URL
//! printed, until killed; `--runs N`: N runs of the stream
//! rows, with every run's time printed.) Exits 2 when curl is missing.

use focus_core::cancel::CancelToken;
use focus_core::message::{AssistantMessage, Message, StopReason, UserMessage};
use focus_core::provider::{ModelInfo, ModelRequest, Provider, RequestOptions, StreamEvent};
use focus_providers::curl::CurlTransport;
use focus_providers::HttpProvider;
use focus_testkit::server::{ScriptedResponse, TestServer};
use focus_transport::{HttpRequest, StdHttpTransport, Transport};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(&args[1], &args[2]);
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let deltas = if quick { 8_000 } else { 80_000 };
    if args.iter().any(|a| a == "--serve") {
        // Only the server, until killed: to try a reader by hand.
        let server = TestServer::repeating(stream_of(deltas));
        println!("{}", server.url_for("/v1/chat/completions"));
        loop {
            std::thread::park();
        }
    }
    let curl = CurlTransport::with_program("curl");
    match curl.check() {
        Ok(version) => println!("{version}"),
        Err(e) => {
            eprintln!("bench_transport: {e}");
            std::process::exit(2);
        }
    }

    // One answer, in process.
    let small = TestServer::repeating(stream_of(20));
    let std_provider = provider(&small, Arc::new(StdHttpTransport::new()));
    let curl_provider = provider(&small, Arc::new(curl.clone()));
    let calls = if quick { 10 } else { 40 };
    let std_one = median(
        (0..3 + calls)
            .map(|_| ask_once(&std_provider))
            .skip(3)
            .collect(),
    );
    let curl_one = median(
        (0..3 + calls)
            .map(|_| ask_once(&curl_provider))
            .skip(3)
            .collect(),
    );
    println!();
    println!("| row | std | curl | std / curl | target |");
    println!("|---|---:|---:|---:|---|");
    println!(
        "| one answer (20 deltas), HttpProvider, median of {calls} (ms) | {:.2} | {:.2} | {:.2}× | ≤ 0.5× |",
        ms(std_one),
        ms(curl_one),
        ratio(std_one, curl_one)
    );

    // The long stream, one process per reader.
    let big = TestServer::repeating(stream_of(deltas));
    let url = big.url_for("/v1/chat/completions");
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(if quick { 3 } else { 11 });
    let me = std::env::current_exe().expect("own path");
    let mut std_runs = Vec::new();
    let mut curl_transport_runs = Vec::new();
    let mut curl_runs = Vec::new();
    for _ in 0..runs {
        std_runs.push(run_child(&me, "std", &url));
        curl_transport_runs.push(run_child(&me, "curl", &url));
        curl_runs.push(run_curl(&url));
    }
    if args.iter().any(|a| a == "--runs") {
        for (name, runs) in [
            ("std", &std_runs),
            ("CurlTransport", &curl_transport_runs),
            ("curl", &curl_runs),
        ] {
            let mut times: Vec<f64> = runs.iter().map(|(t, _)| ms(*t)).collect();
            times.sort_by(f64::total_cmp);
            println!("{name} runs (ms, sorted): {times:.0?}");
        }
    }
    let (std_time, std_rss) = summarize(&std_runs);
    let (ct_time, ct_rss) = summarize(&curl_transport_runs);
    let (curl_time, curl_rss) = summarize(&curl_runs);
    println!(
        "| {deltas}-delta stream read to its end, a process per reader, median of {runs} (ms) | {:.1} | {:.1} (`curl` program) | {:.2}× | ≤ 1.2× |",
        ms(std_time),
        ms(curl_time),
        ratio(std_time, curl_time)
    );
    println!(
        "| the same through CurlTransport (ms) | | {:.1} | {:.2}× | |",
        ms(ct_time),
        ratio(std_time, ct_time)
    );
    println!(
        "| peak RSS of the reading process (MiB) | {:.1} | {:.1} (`curl` program); CurlTransport: {:.1} + curl | | |",
        mib(std_rss),
        mib(curl_rss),
        mib(ct_rss)
    );

    // The long stream decoded, in process.
    let std_big = provider(&big, Arc::new(StdHttpTransport::new()));
    let curl_big = provider(&big, Arc::new(curl));
    let decode_std = median((0..runs).map(|_| ask_once(&std_big)).collect());
    let decode_curl = median((0..runs).map(|_| ask_once(&curl_big)).collect());
    println!(
        "| {deltas}-delta stream decoded by HttpProvider, in process, median of {runs} (ms) | {:.1} | {:.1} | {:.2}× | |",
        ms(decode_std),
        ms(decode_curl),
        ratio(decode_std, decode_curl)
    );
}

/// An OpenAI Chat Completions stream of `n` text deltas of 4 characters, one
/// HTTP chunk (one write) per event, as a model server sends them.
fn stream_of(n: usize) -> ScriptedResponse {
    let mut events = Vec::with_capacity(n + 2);
    for i in 0..n {
        events.push(format!(
            "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"w{:03} \"}}}}]}}\n\n",
            i % 1000
        ));
    }
    events.push("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7}}\n\n".into());
    events.push("data: [DONE]\n\n".into());
    ScriptedResponse::sse(&events)
}

fn provider(server: &TestServer, transport: Arc<dyn Transport>) -> HttpProvider {
    let model = ModelInfo {
        id: "bench".into(),
        name: "bench".into(),
        api: "openai-completions".into(),
        provider: "bench".into(),
        base_url: format!("{}/v1", server.url()),
        context_window: 32_768,
        max_tokens: 1024,
        ..ModelInfo::default()
    };
    HttpProvider::new(model, None, transport)
}

/// One question; the wall time of the whole answer.
fn ask_once(provider: &HttpProvider) -> Duration {
    let messages = vec![Message::User(UserMessage::text("hi", 0))];
    let options = RequestOptions::default();
    let cancel = CancelToken::new();
    let request = ModelRequest {
        system_prompt: "",
        messages: &messages,
        tools: &[],
        options: &options,
        cancel: &cancel,
    };
    let mut ignore = |_: &StreamEvent, _: &AssistantMessage| {};
    let started = Instant::now();
    let message = provider.stream(&request, &mut ignore);
    let took = started.elapsed();
    assert_eq!(
        message.stop_reason,
        StopReason::Stop,
        "{:?}",
        message.error_message
    );
    took
}

/// The child: reads the stream at `url` through `which` transport to its end,
/// then prints the byte count and its own peak RSS in KiB.
fn child(which: &str, url: &str) {
    let transport: Box<dyn Transport> = match which {
        "std" => Box::new(StdHttpTransport::new()),
        _ => Box::new(CurlTransport::with_program("curl")),
    };
    let request = HttpRequest {
        method: "GET".into(),
        url: url.into(),
        ..HttpRequest::default()
    };
    let response = transport
        .send(&request, &CancelToken::new())
        .expect("request");
    let mut body = response.body;
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0usize;
    loop {
        match body.read(&mut buf).expect("body") {
            0 => break,
            n => total += n,
        }
    }
    println!("{total} {}", own_peak_rss_kib().unwrap_or(0));
}

/// Runs this example as a child reading with `which`; (wall time, peak RSS KiB).
fn run_child(me: &std::path::Path, which: &str, url: &str) -> (Duration, u64) {
    let started = Instant::now();
    let output = Command::new(me)
        .args(["--child", which, url])
        .stderr(Stdio::inherit())
        .output()
        .expect("child");
    let took = started.elapsed();
    assert!(output.status.success(), "the {which} child failed");
    let text = String::from_utf8_lossy(&output.stdout);
    let mut fields = text.split_whitespace();
    let bytes: usize = fields.next().and_then(|b| b.parse().ok()).unwrap_or(0);
    assert!(bytes > 0, "the {which} child read nothing");
    let rss = fields.next().and_then(|r| r.parse().ok()).unwrap_or(0);
    (took, rss)
}

/// Runs `curl -s -N -o /dev/null URL`; (wall time, peak RSS KiB polled from /proc).
fn run_curl(url: &str) -> (Duration, u64) {
    let started = Instant::now();
    let mut child = Command::new("curl")
        .args(["-q", "-s", "-N", "-o", "/dev/null", url])
        .spawn()
        .expect("curl");
    let mut rss = 0;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            assert!(status.success(), "curl failed");
            break;
        }
        if let Some(kib) = peak_rss_kib(&format!("/proc/{}/status", child.id())) {
            rss = rss.max(kib);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    (started.elapsed(), rss)
}

fn own_peak_rss_kib() -> Option<u64> {
    peak_rss_kib("/proc/self/status")
}

fn peak_rss_kib(path: &str) -> Option<u64> {
    std::fs::read_to_string(path)
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn summarize(runs: &[(Duration, u64)]) -> (Duration, u64) {
    let time = median(runs.iter().map(|(t, _)| *t).collect());
    let rss = runs.iter().map(|(_, r)| *r).max().unwrap_or(0);
    (time, rss)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}
