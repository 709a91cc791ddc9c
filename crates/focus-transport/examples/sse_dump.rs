//! `sse_dump`: decodes a server-sent-events stream from stdin and prints each
//! dispatched event as one JSON line `{"event":…,"data":…,"id":…,"retry":…}`, with
//! the meanings of `../shared/conformance/sse/README.md` (`event` null when empty,
//! `id` the last event ID, `retry` the reconnection time in effect or null).
//!
//! Events are printed as soon as they are complete, so it also works at the end
//! of a pipe (`curl -N … | sse_dump`). `--chunk N` feeds the decoder exactly N
//! bytes at a time (default: whatever each read returns, up to 64 KiB), to show
//! that chunking never changes the output:
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
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let mut buffer = vec![0u8; chunk_size.unwrap_or(64 * 1024)];
    loop {
        let n = match chunk_size {
            Some(_) => fill(&mut stdin, &mut buffer)?,
            None => read_some(&mut stdin, &mut buffer)?,
        };
        if n == 0 {
            decoder.finish(&mut events);
        } else {
            decoder.feed(&buffer[..n], &mut events);
        }
        let mut out = String::new();
        for event in events.drain(..) {
            out.push_str(&event.to_json().to_json_string());
            out.push('\n');
        }
        stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("writing stdout: {e}"))?;
        if n == 0 {
            return Ok(());
        }
    }
}

/// One `read` (retrying interruptions); 0 at end of input.
fn read_some(input: &mut impl Read, buffer: &mut [u8]) -> Result<usize, String> {
    loop {
        match input.read(buffer) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other.map_err(|e| format!("reading stdin: {e}")),
        }
    }
}

/// Reads until `buffer` is full or the input ends; returns how much was read.
fn fill(input: &mut impl Read, buffer: &mut [u8]) -> Result<usize, String> {
    let mut filled = 0;
    while filled < buffer.len() {
        let n = read_some(input, &mut buffer[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(filled)
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
