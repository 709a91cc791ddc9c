//! `sse_dump`: decodes a server-sent-events stream from stdin and prints each
//! dispatched event as one JSON line `{"event":…,"data":…,"id":…,"retry":…}`, with
//! the meanings of `../shared/conformance/sse/README.md` (`event` null when empty,
//! `id` the last event ID, `retry` the reconnection time in effect or null).
//!
//! `--chunk N` feeds the decoder N bytes at a time (default: the whole input at
//! once), to show that chunking never changes the output:
//!
//! ```text
//! cargo run -p focus-transport --example sse_dump -- --chunk 1 < stream.sse
//! ```

use focus_core::json::ToJson;
use focus_transport::sse::SseDecoder;
use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sse_dump: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let chunk_size = parse_args(std::env::args().skip(1))?;
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| format!("reading stdin: {e}"))?;
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    match chunk_size {
        Some(n) => input.chunks(n).for_each(|c| decoder.feed(c, &mut events)),
        None => decoder.feed(&input, &mut events),
    }
    decoder.finish(&mut events);
    let mut out = String::new();
    for event in &events {
        out.push_str(&event.to_json().to_json_string());
        out.push('\n');
    }
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| format!("writing stdout: {e}"))
}

/// The `--chunk N` size, or `None` for the whole input at once.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<usize>, String> {
    let mut chunk = None;
    while let Some(arg) = args.next() {
        let value = match arg.as_str() {
            "--chunk" => args.next().ok_or("--chunk needs a number of bytes")?,
            other => match other.strip_prefix("--chunk=") {
                Some(v) => v.to_string(),
                None => {
                    return Err(format!(
                        "unknown argument {other:?} (usage: sse_dump [--chunk N] < stream)"
                    ))
                }
            },
        };
        match value.parse::<usize>() {
            Ok(n) if n > 0 => chunk = Some(n),
            _ => {
                return Err(format!(
                    "--chunk wants a positive number of bytes, got {value:?}"
                ))
            }
        }
    }
    Ok(chunk)
}
