//! Benchmark: how long decoding a recorded provider stream takes, per SSE event,
//! for each recorded stream type (SSE framing + JSON + decoder + MessageBuilder,
//! with a sink that receives every event and partial message).
//!
//! ```text
//! cargo run --release -p focus-providers --example bench_decode
//! ```
//!
//! A model streams tens of events per second, so anything in the low microseconds
//! per event is "far less than receiving it".

use focus_core::message::AssistantMessage;
use focus_core::provider::StreamEvent;
use focus_providers::decode_body;
use focus_testkit::streams::FOLDERS;
use focus_transport::sse::SseDecoder;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let Some(root) = focus_testkit::conformance_dir("providers") else {
        eprintln!("bench_decode: no recorded streams (set FOCUS_CONFORMANCE_DIR)");
        std::process::exit(1);
    };
    println!(
        "{:<22} {:>8} {:>8} {:>10} {:>12} {:>10}",
        "stream type", "files", "events", "bytes", "µs/event", "MB/s"
    );
    let synthetic = long_tool_call();
    let mut cases: Vec<(&str, &str, Vec<Vec<u8>>)> = Vec::new();
    for (folder, api) in FOLDERS {
        let mut bodies = Vec::new();
        for entry in std::fs::read_dir(root.join(folder)).expect("folder") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "sse") {
                bodies.push(std::fs::read(&path).expect("readable"));
            }
        }
        cases.push((folder, api, bodies));
    }
    cases.push((
        "synthetic-100KiB-tool",
        "anthropic-messages",
        vec![synthetic],
    ));
    for (folder, api, bodies) in cases {
        let events: usize = bodies.iter().map(|b| SseDecoder::decode_all(b).len()).sum();
        let bytes: usize = bodies.iter().map(Vec::len).sum();
        // Warm up, then run enough rounds for a stable figure (~0.5 s).
        let mut rounds = 1u32;
        loop {
            let started = Instant::now();
            for _ in 0..rounds {
                decode_all(api, &bodies);
            }
            let elapsed = started.elapsed();
            if elapsed.as_millis() >= 500 {
                let per_event = elapsed.as_secs_f64() * 1e6 / (rounds as f64 * events as f64);
                let mbps = bytes as f64 * rounds as f64 / elapsed.as_secs_f64() / 1e6;
                println!(
                    "{folder:<22} {:>8} {events:>8} {bytes:>10} {per_event:>12.3} {mbps:>10.1}",
                    bodies.len()
                );
                break;
            }
            rounds *= 2;
        }
    }
}

/// An Anthropic stream writing a 100 KiB file: 5000 `input_json_delta`s of ~20
/// bytes, the case where naive progressive parsing turns quadratic.
fn long_tool_call() -> Vec<u8> {
    let mut out = String::from("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n");
    out.push_str("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"write\",\"input\":{}}}\n\n");
    let mut args = String::from("{\"path\":\"a.txt\",\"content\":\"");
    while args.len() < 100 * 1024 {
        args.push_str("line of text here\\n");
    }
    args.push_str("\"}");
    let chars: Vec<char> = args.chars().collect();
    for piece in chars.chunks(20) {
        let piece: String = piece.iter().collect();
        let escaped = piece.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{escaped}\"}}}}\n\n"));
    }
    out.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    out.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}\n\n");
    out.into_bytes()
}

fn decode_all(api: &str, bodies: &[Vec<u8>]) {
    for body in bodies {
        let mut count = 0usize;
        let mut sink = |e: &StreamEvent, m: &AssistantMessage| {
            count += black_box(e).type_name().len() + black_box(m).content.len();
        };
        let message = decode_body(api, &[body], &mut sink).expect("known api");
        black_box((message, count));
    }
}
