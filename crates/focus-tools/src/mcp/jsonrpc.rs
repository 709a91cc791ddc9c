//! JSON-RPC 2.0 as MCP uses it, for both ends: focus's client ([`super::rpc`],
//! [`super::http`]) and `focus mcp serve` (focus-cli) build and read their
//! messages here.
//!
//! - Builders: [`request`], [`notification`], [`result`], [`error`].
//! - Reading: [`classify`] sorts a parsed message into an [`Incoming`]
//!   (request, notification, response, or something that is none of them,
//!   with the reason).
//! - Framing: MCP's stdio transport is one message per line. [`LineReader`]
//!   reads lines up to a limit; a longer line is skipped as it streams past
//!   (never held whole), so a peer that sends 100 MB cannot make the reader
//!   hold 100 MB.

use focus_core::json::Value;
use focus_core::json_object;
use std::io::{self, BufRead};

/// The message is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON is not a valid JSON-RPC request.
pub const INVALID_REQUEST: i64 = -32600;
/// No such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The method's parameters are wrong (an unknown tool, invalid arguments).
pub const INVALID_PARAMS: i64 = -32602;
/// The server failed.
pub const INTERNAL_ERROR: i64 = -32603;

/// A request: `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`.
pub fn request(id: Value, method: &str, params: Value) -> Value {
    json_object! { "jsonrpc" => "2.0", "id" => id, "method" => method, "params" => params }
}

/// A notification (no `id`, no answer).
pub fn notification(method: &str, params: Value) -> Value {
    json_object! { "jsonrpc" => "2.0", "method" => method, "params" => params }
}

/// A successful response to the request `id`.
pub fn result(id: Value, result: Value) -> Value {
    json_object! { "jsonrpc" => "2.0", "id" => id, "result" => result }
}

/// An error response to the request `id` (`null` when the request's id could
/// not be read).
pub fn error(id: Value, code: i64, message: &str) -> Value {
    json_object! {
        "jsonrpc" => "2.0", "id" => id,
        "error" => json_object! { "code" => code, "message" => message },
    }
}

/// What a parsed message is.
#[derive(Debug, PartialEq)]
pub enum Incoming<'a> {
    /// A request: answer it.
    Request {
        /// Its id (a string or a number), to answer with.
        id: &'a Value,
        /// The method.
        method: &'a str,
        /// Its params (`null` when absent).
        params: &'a Value,
    },
    /// A notification: never answered.
    Notification {
        /// The method.
        method: &'a str,
        /// Its params (`null` when absent).
        params: &'a Value,
    },
    /// A response to a request of ours (its `result` or `error`).
    Response {
        /// The id of the request it answers.
        id: &'a Value,
    },
    /// Not a JSON-RPC 2.0 message; the reason, and the id to answer with
    /// (`null` when there is none to trust).
    Invalid {
        /// The id, when it could be read.
        id: Value,
        /// What is wrong, for the error message.
        reason: String,
    },
}

/// Sorts `message` by JSON-RPC 2.0's rules: an object with `"jsonrpc": "2.0"`;
/// a `method` string makes it a request (with an `id` that is a string or a
/// number) or a notification (without); no `method` and an `id` make it a
/// response (with a `result` or an `error`).
pub fn classify(message: &Value) -> Incoming<'_> {
    let invalid = |id: Value, reason: &str| Incoming::Invalid {
        id,
        reason: reason.to_string(),
    };
    if message.as_object().is_none() {
        let reason = if message.as_array().is_some() {
            "batches are not supported: send one JSON-RPC message at a time"
        } else {
            "a JSON-RPC message is a JSON object"
        };
        return invalid(Value::Null, reason);
    }
    let id = &message["id"];
    let id_ok = id.is_null() || id.as_str().is_some() || id.as_f64().is_some();
    let echo = if id_ok { id.clone() } else { Value::Null };
    if message["jsonrpc"].as_str() != Some("2.0") {
        return invalid(echo, "`jsonrpc` must be \"2.0\"");
    }
    if !id_ok {
        return invalid(Value::Null, "`id` must be a string or a number");
    }
    let params = &message["params"];
    if !params.is_null() && params.as_object().is_none() && params.as_array().is_none() {
        return invalid(echo, "`params` must be an object or an array");
    }
    match (&message["method"], id.is_null()) {
        (Value::String(method), true) => Incoming::Notification {
            method: method.as_str(),
            params,
        },
        (Value::String(method), false) => Incoming::Request {
            id,
            method: method.as_str(),
            params,
        },
        (Value::Null, false) => {
            if message["result"].is_null() && message["error"].is_null() {
                invalid(echo, "a response needs a `result` or an `error`")
            } else {
                Incoming::Response { id }
            }
        }
        (Value::Null, true) => invalid(Value::Null, "the message has neither `method` nor `id`"),
        _ => invalid(echo, "`method` must be a string"),
    }
}

/// One read of [`LineReader::next_line`].
#[derive(Debug, PartialEq)]
pub enum LineRead {
    /// A whole line, without its newline (and a `\r` before it).
    Line(Vec<u8>),
    /// A line longer than the limit: skipped to its end, never held whole.
    /// Its length in bytes.
    TooLong(u64),
    /// The input ended.
    End,
}

/// Reads newline-delimited messages, each at most `limit` bytes.
pub struct LineReader<R> {
    input: R,
    limit: usize,
}

impl<R: BufRead> LineReader<R> {
    /// Reads lines of at most `limit` bytes from `input`.
    pub fn new(input: R, limit: usize) -> LineReader<R> {
        LineReader { input, limit }
    }

    /// The next line; a line over the limit is read past in the input's own
    /// buffer-sized pieces and reported by its length.
    ///
    /// # Errors
    ///
    /// Reading the input failed.
    pub fn next_line(&mut self) -> io::Result<LineRead> {
        let mut line = Vec::new();
        let mut skipped: u64 = 0;
        loop {
            let buffer = match self.input.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                // The input ended: a last line without a newline still counts.
                return Ok(match (skipped, line.is_empty()) {
                    (0, true) => LineRead::End,
                    (0, false) => LineRead::Line(trim_cr(line)),
                    (n, _) => LineRead::TooLong(n),
                });
            }
            let (piece, ends) = match buffer.iter().position(|&b| b == b'\n') {
                Some(at) => (&buffer[..at], Some(at + 1)),
                None => (buffer, None),
            };
            if skipped == 0 && line.len() + piece.len() <= self.limit {
                line.extend_from_slice(piece);
            } else {
                // Over the limit: from here on only the count is kept.
                skipped += (line.len() + piece.len()) as u64;
                line = Vec::new();
            }
            let used = ends.unwrap_or(buffer.len());
            self.input.consume(used);
            if ends.is_some() {
                return Ok(if skipped > 0 {
                    LineRead::TooLong(skipped)
                } else {
                    LineRead::Line(trim_cr(line))
                });
            }
        }
    }
}

fn trim_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    fn kind(text: &str) -> String {
        let value = parse_str(text).unwrap();
        match classify(&value) {
            Incoming::Request { method, .. } => format!("request {method}"),
            Incoming::Notification { method, .. } => format!("notification {method}"),
            Incoming::Response { .. } => "response".into(),
            Incoming::Invalid { reason, .. } => format!("invalid: {reason}"),
        }
    }

    #[test]
    fn messages_are_sorted_by_the_json_rpc_rules() {
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            "request ping"
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":"a","method":"x","params":{}}"#),
            "request x"
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            "notification notifications/initialized"
        );
        assert_eq!(kind(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#), "response");
        for (text, why) in [
            (r#"{"id":1,"method":"ping"}"#, "jsonrpc"),
            (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, "jsonrpc"),
            (r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, "`id`"),
            (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, "`method`"),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#,
                "params",
            ),
            (r#"{"jsonrpc":"2.0"}"#, "neither"),
            (r#"[1,2]"#, "batches"),
            (r#""hello""#, "JSON object"),
            (r#"{"jsonrpc":"2.0","id":1}"#, "`result`"),
        ] {
            let got = kind(text);
            assert!(
                got.starts_with("invalid") && got.contains(why),
                "{text}: {got}"
            );
        }
    }

    #[test]
    fn builders_make_what_classify_reads() {
        let r = request(Value::from(7u64), "tools/list", json_object! {});
        assert!(matches!(
            classify(&r),
            Incoming::Request {
                method: "tools/list",
                ..
            }
        ));
        let n = notification("notifications/progress", json_object! {});
        assert!(matches!(classify(&n), Incoming::Notification { .. }));
        let ok = result(Value::from("x"), json_object! {});
        assert!(matches!(classify(&ok), Incoming::Response { .. }));
        let e = error(Value::Null, METHOD_NOT_FOUND, "no");
        assert_eq!(e["error"]["code"].as_i64(), Some(-32601));
    }

    #[test]
    fn long_lines_are_skipped_without_being_held() {
        let mut input = Vec::new();
        input.extend_from_slice(b"short\r\n");
        input.extend(std::iter::repeat(b'x').take(100_000));
        input.extend_from_slice(b"\nnext\nlast");
        // A small buffer: the long line arrives in many pieces.
        let reader = std::io::BufReader::with_capacity(64, &input[..]);
        let mut lines = LineReader::new(reader, 1_000);
        assert_eq!(
            lines.next_line().unwrap(),
            LineRead::Line(b"short".to_vec())
        );
        assert_eq!(lines.next_line().unwrap(), LineRead::TooLong(100_000));
        assert_eq!(lines.next_line().unwrap(), LineRead::Line(b"next".to_vec()));
        assert_eq!(lines.next_line().unwrap(), LineRead::Line(b"last".to_vec()));
        assert_eq!(lines.next_line().unwrap(), LineRead::End);
    }
}
