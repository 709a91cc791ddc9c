//! The response head: the status line and the header lines up to the blank
//! line, read strictly (RFC 9112 §2–§5) and within caps.
//!
//! What a recipient must do with the odd cases, and what is done here:
//! * a header value folded onto the next line (`obs-fold`, a line starting with
//!   a space or tab) is joined to it with one space, as §5.2 tells a user agent;
//! * whitespace before the first header line is refused (§2.2);
//! * whitespace between a field name and its colon is refused (§5.1);
//! * CR or NUL inside a value is refused (RFC 9110 §5.5);
//! * repeated fields are all kept, in order (a list field's values add up);
//! * interim `1xx` answers (`100 Continue`, `103 Early Hints`) are skipped.

use super::connection::{Connection, Wait};
use super::limits::Limits;
use super::request::is_token_byte;
use crate::error::TransportError;
use crate::protocol_error::shown;
use crate::protocol_error::ProtocolError;
use focus_core::cancel::CancelToken;

/// How many interim (1xx) answers may come before the final one.
const MAX_INTERIM: usize = 8;

/// A parsed response head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The minor version: 1 for `HTTP/1.1`, 0 for `HTTP/1.0`.
    pub minor_version: u8,
    /// The status code.
    pub status: u16,
    /// Header names (as sent) and values, in order.
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// The values of every header named `name`, in order.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the list header `name` holds `token` (case-insensitive).
    pub fn has_token(&self, name: &str, token: &str) -> bool {
        self.values(name)
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    }
}

/// Reads the final response head from `connection`: the first line waits up to
/// `first_byte`, the lines after it up to `idle`.
///
/// # Errors
///
/// A timeout, a cut connection, or a protocol error for a head that is not HTTP/1.x (a bad status
/// line or field line, a head beyond its caps).
pub fn read_head(
    connection: &mut Connection,
    limits: &Limits,
    first_byte: Wait,
    idle: Wait,
    cancel: &CancelToken,
) -> Result<Head, TransportError> {
    for _ in 0..=MAX_INTERIM {
        let head = read_one_head(connection, limits, first_byte, idle, cancel)?;
        match head.status {
            101 => {
                return Err(TransportError::Protocol(ProtocolError::UnexpectedInterim(
                    "101 Switching Protocols, which focus never asks for".into(),
                )))
            }
            100..=199 => continue,
            _ => return Ok(head),
        }
    }
    Err(TransportError::Protocol(ProtocolError::UnexpectedInterim(
        format!("more than {MAX_INTERIM} 1xx answers"),
    )))
}

fn read_one_head(
    connection: &mut Connection,
    limits: &Limits,
    first_byte: Wait,
    idle: Wait,
    cancel: &CancelToken,
) -> Result<Head, TransportError> {
    let mut line = Vec::new();
    let too_long = ProtocolError::HeaderLineTooLong {
        limit: limits.max_header_line,
    };
    if !connection.read_line(
        &mut line,
        limits.max_header_line,
        too_long.clone(),
        first_byte,
        cancel,
    )? {
        return Err(TransportError::StreamCut(format!(
            "{} closed the connection without answering",
            connection.label
        )));
    }
    let (minor_version, status) = parse_status_line(&line)?;
    let mut head = Head {
        minor_version,
        status,
        headers: Vec::new(),
    };
    let mut total = line.len();
    loop {
        if !connection.read_line(
            &mut line,
            limits.max_header_line,
            too_long.clone(),
            idle,
            cancel,
        )? {
            return Err(TransportError::StreamCut(format!(
                "{} closed the connection in the middle of the response head",
                connection.label
            )));
        }
        if line.is_empty() {
            return Ok(head);
        }
        total += line.len() + 2;
        if total > limits.max_head_bytes {
            return Err(TransportError::Protocol(ProtocolError::HeadTooLarge {
                limit: limits.max_head_bytes,
            }));
        }
        if matches!(line[0], b' ' | b'\t') {
            let Some((_, value)) = head.headers.last_mut() else {
                return Err(TransportError::Protocol(
                    ProtocolError::WhitespaceBeforeFirstHeader,
                ));
            };
            // obs-fold: replaced by a space (RFC 9112 §5.2).
            let more = field_value(&line)?;
            if !more.is_empty() {
                if !value.is_empty() {
                    value.push(' ');
                }
                value.push_str(&more);
            }
            continue;
        }
        if head.headers.len() == limits.max_headers {
            return Err(TransportError::Protocol(ProtocolError::TooManyHeaders {
                limit: limits.max_headers,
            }));
        }
        head.headers.push(parse_field_line(&line)?);
    }
}

/// `HTTP/1.x NNN [reason]` → (x, NNN).
fn parse_status_line(line: &[u8]) -> Result<(u8, u16), TransportError> {
    let bad = || TransportError::Protocol(ProtocolError::BadStatusLine(shown(line)));
    let rest = line.strip_prefix(b"HTTP/1.").ok_or_else(bad)?;
    let minor = match rest.first() {
        Some(b'0') => 0,
        Some(b'1') => 1,
        _ => return Err(bad()),
    };
    let rest = rest[1..].strip_prefix(b" ").ok_or_else(bad)?;
    let code = rest.get(..3).ok_or_else(bad)?;
    if !code.iter().all(u8::is_ascii_digit) || !matches!(rest.get(3), None | Some(b' ')) {
        return Err(bad());
    }
    let status = code.iter().fold(0u16, |n, d| n * 10 + u16::from(d - b'0'));
    if !(100..=599).contains(&status) {
        return Err(bad());
    }
    Ok((minor, status))
}

/// `name: value` → (name, value without surrounding whitespace).
///
/// # Errors
///
/// A protocol error for a line without a colon or a name that is no token.
pub fn parse_field_line(line: &[u8]) -> Result<(String, String), TransportError> {
    let bad = || TransportError::Protocol(ProtocolError::BadHeaderLine(shown(line)));
    let colon = line.iter().position(|&b| b == b':').ok_or_else(bad)?;
    let name = &line[..colon];
    if name.is_empty() || !name.iter().all(|&b| is_token_byte(b)) {
        return Err(bad());
    }
    let value = field_value(&line[colon + 1..])?;
    Ok((String::from_utf8_lossy(name).into_owned(), value))
}

/// A field value with its surrounding spaces and tabs removed; CR and NUL inside
/// are refused. Bytes beyond ASCII (obs-text) are read as UTF-8, lossily.
fn field_value(raw: &[u8]) -> Result<String, TransportError> {
    if raw.iter().any(|&b| b == b'\r' || b == 0) {
        return Err(TransportError::Protocol(ProtocolError::BadHeaderLine(
            shown(raw),
        )));
    }
    let is_ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = raw.iter().position(|b| !is_ows(b)).unwrap_or(raw.len());
    let end = raw
        .iter()
        .rposition(|b| !is_ows(b))
        .map_or(start, |i| i + 1);
    Ok(String::from_utf8_lossy(&raw[start..end]).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines() {
        assert_eq!(parse_status_line(b"HTTP/1.1 200 OK").unwrap(), (1, 200));
        assert_eq!(parse_status_line(b"HTTP/1.0 404").unwrap(), (0, 404));
        assert_eq!(parse_status_line(b"HTTP/1.1 204 ").unwrap(), (1, 204));
        for bad in [
            &b"HTTP/2 200 OK"[..],
            b"HTTP/1.1 20 OK",
            b"HTTP/1.1 2000 OK",
            b"HTTP/1.1 099 x",
            b"HTTP/1.1  200 OK",
            b"SSH-2.0-OpenSSH",
            b"",
        ] {
            assert!(parse_status_line(bad).is_err(), "{:?}", shown(bad));
        }
    }

    #[test]
    fn field_lines() {
        assert_eq!(
            parse_field_line(b"X-Key: \t v a l \t").unwrap(),
            ("X-Key".into(), "v a l".into())
        );
        assert_eq!(
            parse_field_line(b"Empty:").unwrap(),
            ("Empty".into(), "".into())
        );
        for bad in [
            &b"Name : v"[..],
            b": v",
            b"no colon",
            b"X: a\rb",
            b"X: a\0b",
            b"B@d: v",
        ] {
            assert!(parse_field_line(bad).is_err(), "{:?}", shown(bad));
        }
    }
}
