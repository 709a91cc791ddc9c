//! MCP's stdio transport: one JSON-RPC message per line on standard input,
//! one per line on standard output, nothing else written there (the log goes
//! to standard error). Each `tools/call` runs on a thread of its own, so a
//! `notifications/cancelled` read meanwhile reaches it; the other messages
//! are answered in order. A line too long is read past, not held, and
//! answered with an error; so is one that is not JSON. When the input ends,
//! the calls still running finish and are answered, then the server exits (a
//! termination signal stops them at once: see [`super::serve`]).

use super::protocol::{Outbox, Unreadable, MAX_MESSAGE};
use super::service::Service;
use focus_core::json::{parse_str, Value};
use focus_core::sync::lock;
use focus_tools::mcp::jsonrpc::{LineRead, LineReader};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The most calls that run at once; one more is refused until one ends.
pub const MAX_CALLS_IN_FLIGHT: usize = 32;

/// Standard output, one whole line at a time.
struct Lines(Mutex<std::io::Stdout>);

impl Lines {
    fn send(&self, message: &Value) {
        let mut line = message.to_json_string().into_bytes();
        line.push(b'\n');
        let mut out = lock(&self.0);
        // A client that closed its end is gone: nothing to tell it.
        let _ = out.write_all(&line).and_then(|()| out.flush());
    }
}

impl Outbox for Lines {
    fn notify(&self, message: Value) {
        self.send(&message);
    }
}

/// Serves standard input and output until the input ends; the exit code.
pub fn serve(service: &Service) -> i32 {
    let out = Lines(Mutex::new(std::io::stdout()));
    let stdin = std::io::stdin();
    let mut lines = LineReader::new(stdin.lock(), MAX_MESSAGE);
    let running = AtomicUsize::new(0);
    let code = std::thread::scope(|scope| loop {
        let line = match lines.next_line() {
            Ok(LineRead::Line(line)) => line,
            Ok(LineRead::TooLong(bytes)) => {
                out.send(&Service::unreadable(Unreadable::TooLong(bytes)));
                continue;
            }
            // The input ended: the calls still running are answered (MCP's
            // stdio shutdown waits for the server to exit, then signals it).
            Ok(LineRead::End) => break 0,
            Err(error) => {
                errln!("focus mcp serve: reading standard input failed: {error}");
                service.cancel_all();
                break 1;
            }
        };
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        let message = match parse_str(text.trim()) {
            Ok(message) => message,
            Err(error) => {
                out.send(&Service::unreadable(Unreadable::NotJson(error.to_string())));
                continue;
            }
        };
        if message["method"].as_str() != Some("tools/call") || message["id"].is_null() {
            if let Some(answer) = service.handle(&message, "", &out) {
                out.send(&answer);
            }
            continue;
        }
        if running.fetch_add(1, Ordering::SeqCst) >= MAX_CALLS_IN_FLIGHT {
            running.fetch_sub(1, Ordering::SeqCst);
            let busy = focus_tools::mcp::jsonrpc::error(
                message["id"].clone(),
                focus_tools::mcp::jsonrpc::INTERNAL_ERROR,
                &format!("{MAX_CALLS_IN_FLIGHT} calls are running already; send it again when one has ended"),
            );
            out.send(&busy);
            continue;
        }
        let (out, running) = (&out, &running);
        scope.spawn(move || {
            if let Some(answer) = service.handle(&message, "", out) {
                out.send(&answer);
            }
            running.fetch_sub(1, Ordering::SeqCst);
        });
    });
    code
}
