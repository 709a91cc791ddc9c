//! RPC mode's input: the stdin reader, which splits on `\n` only (JSON strings
//! may hold U+2028, which some line readers wrongly split on) and answers an
//! oversized line once it ends, and [`Input`], everything the server's loop
//! waits for.

use crate::approval::PendingApproval;
use std::io::Read;
use std::sync::mpsc::SyncSender;

/// Longest accepted command line; longer ones are answered with an error.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// What the loop waits for.
pub enum Input {
    /// One line from stdin.
    Line(String),
    /// A line that was too long (its length).
    Oversized(usize),
    /// stdin closed.
    Eof,
    /// A tool call waits for the client's `approve` command.
    Approval(PendingApproval),
}

/// Reads stdin on its own thread, splitting on `\n` only and dropping a
/// trailing `\r`.
pub fn spawn_stdin_reader(sender: SyncSender<Input>) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut pending: Vec<u8> = Vec::new();
        let mut buffer = [0u8; 64 * 1024];
        let mut skipping = false;
        loop {
            let n = match stdin.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let mut chunk = &buffer[..n];
            while let Some(pos) = chunk.iter().position(|&b| b == b'\n') {
                pending.extend_from_slice(&chunk[..pos]);
                chunk = &chunk[pos + 1..];
                let line = std::mem::take(&mut pending);
                let input = if skipping {
                    skipping = false;
                    Input::Oversized(MAX_LINE + line.len())
                } else {
                    Input::Line(decode_line(line))
                };
                if sender.send(input).is_err() {
                    return;
                }
            }
            pending.extend_from_slice(chunk);
            if pending.len() > MAX_LINE {
                // Drop the oversized line's bytes as they come; answer once it ends.
                pending.clear();
                skipping = true;
            }
        }
        if !pending.is_empty() && !skipping {
            let _ = sender.send(Input::Line(decode_line(pending)));
        }
        let _ = sender.send(Input::Eof);
    });
}

fn decode_line(mut bytes: Vec<u8>) -> String {
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_drop_carriage_returns_and_survive_bad_utf8() {
        assert_eq!(decode_line(b"{}\r".to_vec()), "{}");
        assert_eq!(decode_line(vec![b'a', 0xff]), "a\u{fffd}");
    }
}
