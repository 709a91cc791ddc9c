//! [`ProtocolError`]: the ways a server's answer can break HTTP/1.1 (RFC 9112),
//! each named, so that a hostile or broken server gets an error that says what was
//! wrong instead of a hang, a panic or an allocation without end.

use std::fmt;

/// One violation of the HTTP/1.1 message syntax or of focus's size caps, found
/// while reading a response ([`crate::TransportError::Protocol`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// The URL cannot be served by the plain-HTTP transport (the reason).
    BadUrl(String),
    /// The request itself cannot be written (a header with a line break…).
    BadRequest(String),
    /// The first line is not `HTTP/1.x NNN reason` (the line, shortened).
    BadStatusLine(String),
    /// A line of the head is longer than the cap.
    HeaderLineTooLong {
        /// The cap, in bytes.
        limit: usize,
    },
    /// The head has more header lines than the cap.
    TooManyHeaders {
        /// The cap.
        limit: usize,
    },
    /// The head as a whole is larger than the cap.
    HeadTooLarge {
        /// The cap, in bytes.
        limit: usize,
    },
    /// A header line is not `name: value` with a token for a name (the line,
    /// shortened).
    BadHeaderLine(String),
    /// A line starting with whitespace came before any header (RFC 9112 §2.2).
    WhitespaceBeforeFirstHeader,
    /// Two `Content-Length` values disagree (RFC 9112 §6.3, item 5).
    ConflictingContentLength {
        /// The first value.
        first: String,
        /// The value that disagrees with it.
        second: String,
    },
    /// A `Content-Length` that is not a decimal number of bytes (or overflows).
    BadContentLength(String),
    /// A transfer coding other than `chunked` (focus asks for none).
    UnsupportedTransferCoding(String),
    /// A chunk-size line that is not hexadecimal digits (negative, empty, `0x`…).
    BadChunkSize(String),
    /// A chunk size that does not fit in 64 bits (the digits, shortened).
    ChunkSizeTooLarge(String),
    /// A chunk-size line (with its extensions) longer than the cap.
    ChunkLineTooLong {
        /// The cap, in bytes.
        limit: usize,
    },
    /// A chunk's data was not followed by CRLF.
    MissingChunkTerminator,
    /// More trailer lines after the last chunk than the cap.
    TooManyTrailers {
        /// The cap.
        limit: usize,
    },
    /// More bytes arrived than `Content-Length` announced.
    BodyLongerThanContentLength {
        /// The announced length.
        declared: u64,
    },
    /// More interim (1xx) responses than the cap, or a `101` nobody asked for.
    UnexpectedInterim(String),
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::BadUrl(why) => write!(f, "bad URL: {why}"),
            ProtocolError::BadRequest(why) => write!(f, "cannot send the request: {why}"),
            ProtocolError::BadStatusLine(line) => {
                write!(f, "the status line {line:?} is not `HTTP/1.x NNN reason`")
            }
            ProtocolError::HeaderLineTooLong { limit } => {
                write!(f, "a header line is longer than {limit} bytes")
            }
            ProtocolError::TooManyHeaders { limit } => {
                write!(f, "more than {limit} header lines")
            }
            ProtocolError::HeadTooLarge { limit } => {
                write!(f, "the response head is larger than {limit} bytes")
            }
            ProtocolError::BadHeaderLine(line) => {
                write!(f, "the header line {line:?} is not `name: value`")
            }
            ProtocolError::WhitespaceBeforeFirstHeader => {
                f.write_str("a line starting with whitespace comes before the first header")
            }
            ProtocolError::ConflictingContentLength { first, second } => write!(
                f,
                "Content-Length is given twice with different values ({first} and {second})"
            ),
            ProtocolError::BadContentLength(value) => {
                write!(f, "Content-Length {value:?} is not a number of bytes")
            }
            ProtocolError::UnsupportedTransferCoding(coding) => write!(
                f,
                "Transfer-Encoding {coding:?} is not supported (only `chunked` is)"
            ),
            ProtocolError::BadChunkSize(line) => {
                write!(f, "the chunk size {line:?} is not a hexadecimal number")
            }
            ProtocolError::ChunkSizeTooLarge(digits) => {
                write!(f, "the chunk size {digits:?} does not fit in 64 bits")
            }
            ProtocolError::ChunkLineTooLong { limit } => {
                write!(f, "a chunk-size line is longer than {limit} bytes")
            }
            ProtocolError::MissingChunkTerminator => {
                f.write_str("a chunk's data is not followed by CRLF")
            }
            ProtocolError::TooManyTrailers { limit } => {
                write!(f, "more than {limit} trailer lines after the last chunk")
            }
            ProtocolError::BodyLongerThanContentLength { declared } => write!(
                f,
                "the body is longer than its Content-Length of {declared} bytes"
            ),
            ProtocolError::UnexpectedInterim(why) => {
                write!(f, "unexpected interim response: {why}")
            }
        }
    }
}

impl std::error::Error for ProtocolError {}

/// `bytes` as text for an error message: at most 60 characters, invalid UTF-8
/// replaced, with `…` when shortened.
pub(crate) fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text.chars().take(60).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}
