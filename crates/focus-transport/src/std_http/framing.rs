//! How long the body is (RFC 9112 §6.3), decided from the request method, the
//! status and the framing headers, in the RFC's order:
//!
//! 1. `HEAD`, `1xx`, `204` and `304` answers have no body.
//! 2. `Transfer-Encoding` wins over `Content-Length`. Only `chunked` is accepted
//!    (focus asks for no coding); with both headers present the message may be a
//!    smuggling attempt, so its connection is never reused.
//! 3. `Content-Length`: every value must be the same decimal number (`42, 42`
//!    counts as one, RFC 9110 §8.6); values that differ are an error.
//! 4. Otherwise the body runs until the server closes the connection.

use super::head::Head;
use crate::error::TransportError;
use crate::protocol_error::ProtocolError;

/// Where the body ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// There is no body.
    Empty,
    /// Exactly this many bytes.
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Until the server closes the connection.
    UntilClose,
}

/// The framing of the answer to a `method` request, and whether the connection
/// may carry another request once the body is read.
///
/// # Errors
///
/// A protocol error for a head that frames the body in two ways, or with a `Content-Length` or
/// `Transfer-Encoding` that cannot be read.
pub fn framing(method: &str, head: &Head) -> Result<(Framing, bool), TransportError> {
    let keep_alive = head.minor_version == 1 && !head.has_token("connection", "close");
    if method.eq_ignore_ascii_case("HEAD") || matches!(head.status, 100..=199 | 204 | 304) {
        return Ok((Framing::Empty, keep_alive));
    }
    let codings: Vec<String> = head
        .values("transfer-encoding")
        .flat_map(|v| v.split(','))
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty())
        .collect();
    if !codings.is_empty() {
        if codings.len() == 1 && codings[0] == "chunked" {
            let with_length = head.values("content-length").next().is_some();
            return Ok((Framing::Chunked, keep_alive && !with_length));
        }
        let unsupported = codings
            .iter()
            .find(|c| *c != "chunked")
            .cloned()
            .unwrap_or_else(|| codings.join(", "));
        return Err(TransportError::Protocol(
            ProtocolError::UnsupportedTransferCoding(unsupported),
        ));
    }
    let mut length: Option<(u64, &str)> = None;
    for value in head.values("content-length").flat_map(|v| v.split(',')) {
        let value = value.trim();
        let parsed = parse_length(value)?;
        match length {
            Some((first, first_text)) if first != parsed => {
                return Err(TransportError::Protocol(
                    ProtocolError::ConflictingContentLength {
                        first: first_text.to_string(),
                        second: value.to_string(),
                    },
                ))
            }
            Some(_) => {}
            None => length = Some((parsed, value)),
        }
    }
    Ok(match length {
        Some((0, _)) => (Framing::Empty, keep_alive),
        Some((n, _)) => (Framing::Length(n), keep_alive),
        None => (Framing::UntilClose, false),
    })
}

/// `1*DIGIT` as a byte count; anything else (a sign, spaces inside, overflow) is
/// an error.
fn parse_length(value: &str) -> Result<u64, TransportError> {
    let bad = || {
        let shown: String = value.chars().take(40).collect();
        TransportError::Protocol(ProtocolError::BadContentLength(shown))
    };
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    value.parse::<u64>().map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(minor: u8, status: u16, headers: &[(&str, &str)]) -> Head {
        Head {
            minor_version: minor,
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn follows_the_rfc_order() {
        let h = head(1, 200, &[("Content-Length", "5")]);
        assert_eq!(framing("GET", &h).unwrap(), (Framing::Length(5), true));
        assert_eq!(framing("HEAD", &h).unwrap(), (Framing::Empty, true));
        let h = head(1, 204, &[]);
        assert_eq!(framing("GET", &h).unwrap().0, Framing::Empty);
        let h = head(1, 200, &[("Transfer-Encoding", "Chunked")]);
        assert_eq!(framing("GET", &h).unwrap(), (Framing::Chunked, true));
        let h = head(
            1,
            200,
            &[("Transfer-Encoding", "chunked"), ("Content-Length", "3")],
        );
        assert_eq!(
            framing("GET", &h).unwrap(),
            (Framing::Chunked, false),
            "TE wins, no reuse"
        );
        let h = head(1, 200, &[]);
        assert_eq!(framing("GET", &h).unwrap(), (Framing::UntilClose, false));
        let h = head(0, 200, &[("Content-Length", "2")]);
        assert_eq!(framing("GET", &h).unwrap(), (Framing::Length(2), false));
        let h = head(
            1,
            200,
            &[("Content-Length", "2"), ("Connection", "keep-alive, Close")],
        );
        assert!(!framing("GET", &h).unwrap().1);
    }

    #[test]
    fn content_length_values() {
        let h = head(
            1,
            200,
            &[("Content-Length", "42, 42"), ("content-length", "42")],
        );
        assert_eq!(framing("GET", &h).unwrap().0, Framing::Length(42));
        let h = head(
            1,
            200,
            &[("Content-Length", "42"), ("Content-Length", "43")],
        );
        assert!(matches!(
            framing("GET", &h),
            Err(TransportError::Protocol(
                ProtocolError::ConflictingContentLength { .. }
            ))
        ));
        for bad in ["-1", "+5", "0x10", "", "1 2", "99999999999999999999999"] {
            let h = head(1, 200, &[("Content-Length", bad)]);
            assert!(
                matches!(
                    framing("GET", &h),
                    Err(TransportError::Protocol(ProtocolError::BadContentLength(_)))
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn codings_other_than_chunked_are_refused() {
        for te in ["gzip", "gzip, chunked", "chunked, chunked", "identity"] {
            let h = head(1, 200, &[("Transfer-Encoding", te)]);
            assert!(
                matches!(
                    framing("GET", &h),
                    Err(TransportError::Protocol(
                        ProtocolError::UnsupportedTransferCoding(_)
                    ))
                ),
                "{te}"
            );
        }
    }
}
