//! HTTP answers: a whole one ([`send`]), with its length, or an event stream
//! ([`EventStream`]): `text/event-stream`, each JSON-RPC message one `message`
//! event, the connection closed after the last.

use crate::mcp_serve::protocol::Outbox;
use focus_core::json::Value;
use focus_core::sync::lock;
use std::io::{self, Write};
use std::sync::Mutex;

/// The reason phrase of a status focus sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

/// Writes a whole answer: status, `headers`, `Content-Length` and `body`.
pub fn send(
    out: &mut impl Write,
    status: u16,
    headers: &[(&str, &str)],
    body: &[u8],
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    out.write_all(head.as_bytes())?;
    out.write_all(body)?;
    out.flush()
}

/// Writes a JSON answer.
pub fn json(
    out: &mut impl Write,
    status: u16,
    headers: &[(&str, &str)],
    value: &Value,
) -> io::Result<()> {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    send(out, status, &all, value.to_json_string().as_bytes())
}

/// An answer sent as server-sent events, one JSON-RPC message each; the
/// connection ends with it.
pub struct EventStream<W: Write> {
    out: Mutex<W>,
}

impl<W: Write + Send> EventStream<W> {
    /// Writes the head of a `text/event-stream` answer.
    pub fn start(mut out: W) -> io::Result<EventStream<W>> {
        out.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        )?;
        out.flush()?;
        Ok(EventStream {
            out: Mutex::new(out),
        })
    }

    /// Sends one message as an event (a client that went away is not told).
    pub fn send(&self, message: &Value) {
        let event = format!("event: message\ndata: {}\n\n", message.to_json_string());
        let mut out = lock(&self.out);
        let _ = out.write_all(event.as_bytes()).and_then(|()| out.flush());
    }
}

impl<W: Write + Send> Outbox for EventStream<W> {
    fn notify(&self, message: Value) {
        self.send(&message);
    }
}
