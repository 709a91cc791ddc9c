//! `bench_sse`: SSE decoding throughput on a large recorded-style stream.
//!
//! The stream is the recorded provider streams of the conformance data, repeated
//! to about 64 MiB (or, without that data, a synthetic Anthropic-style stream). It
//! is fed in 16 KiB pieces, as a socket would deliver it. Prints MB/s (best of 5).
//!
//! ```text
//! cargo run --release -p focus-transport --example bench_sse
//! ```

use focus_transport::sse::SseDecoder;
use std::time::{Duration, Instant};

const TARGET_BYTES: usize = 64 << 20;
const PIECE: usize = 16 * 1024;

fn main() {
    let (sample, origin) = sample_stream();
    let mut stream = Vec::with_capacity(TARGET_BYTES + sample.len());
    while stream.len() < TARGET_BYTES {
        stream.extend_from_slice(&sample);
    }
    println!(
        "stream: {:.1} MiB ({origin})",
        stream.len() as f64 / (1 << 20) as f64
    );
    measure("16 KiB pieces", &stream, PIECE);
    // One 16 MiB data line in 1 KiB pieces: a decoder that rescans its buffer per
    // piece would be quadratic here.
    let mut long_line = b"data: ".to_vec();
    long_line.resize(16 << 20, b'x');
    long_line.extend_from_slice(b"\n\n");
    measure("one 16 MiB line, 1 KiB pieces", &long_line, 1024);
}

/// Decodes `stream` in `piece`-byte pieces five times and prints the best MB/s.
fn measure(label: &str, stream: &[u8], piece: usize) {
    let mut best = Duration::MAX;
    let mut events = 0;
    for _ in 0..5 {
        let started = Instant::now();
        events = decode(stream, piece);
        best = best.min(started.elapsed());
    }
    let mb_per_s = stream.len() as f64 / 1e6 / best.as_secs_f64();
    println!("{label}: {mb_per_s:.0} MB/s ({events} events, best of 5: {best:.2?})");
}

/// Decodes `stream` fed `piece` bytes at a time; returns the number of events.
fn decode(stream: &[u8], piece: usize) -> usize {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::with_capacity(64);
    let mut count = 0;
    for chunk in stream.chunks(piece.min(stream.len())) {
        decoder.feed(chunk, &mut events);
        count += events.len();
        // A consumer would handle each event here; the decoder's work is done.
        events.clear();
    }
    decoder.finish(&mut events);
    count + events.len()
}

/// The recorded provider streams joined, or a synthetic one.
fn sample_stream() -> (Vec<u8>, &'static str) {
    if let Some(dir) = focus_testkit::conformance_dir("providers") {
        let mut files = Vec::new();
        collect(&dir, &mut files);
        files.sort();
        let mut joined = Vec::new();
        for file in files {
            if let Ok(mut bytes) = std::fs::read(&file) {
                // Make sure one stream's open block does not swallow the next.
                bytes.extend_from_slice(b"\n\n");
                joined.extend_from_slice(&bytes);
            }
        }
        if !joined.is_empty() {
            return (joined, "recorded provider streams, repeated");
        }
    }
    let mut synthetic = Vec::new();
    for i in 0..1000 {
        synthetic.extend_from_slice(
            format!(
                "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"token {i} of the answer \"}}}}\n\n"
            )
            .as_bytes(),
        );
    }
    (synthetic, "synthetic Anthropic-style stream")
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "sse") {
            out.push(path);
        }
    }
}
