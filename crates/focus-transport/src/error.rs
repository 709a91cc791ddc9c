//! [`TransportError`]: everything that can go wrong between focus and a server.

pub use crate::protocol_error::ProtocolError;
use std::fmt;
use std::time::Duration;

/// A failed HTTP exchange, each kind with a message a user can act on.
#[derive(Clone, Debug, PartialEq)]
pub enum TransportError {
    /// The HTTP engine could not be started (curl missing or not executable).
    CannotStart(String),
    /// The host name did not resolve.
    Dns(String),
    /// No connection could be made (refused, unreachable).
    Connect(String),
    /// The TLS handshake or certificate check failed.
    Tls(String),
    /// A connect or total timeout ran out.
    Timeout(String),
    /// The server answered with a non-success status.
    Status {
        /// The HTTP status code.
        status: u16,
        /// The response body (an API's error JSON, usually).
        body: String,
        /// The `Retry-After` delay, when the server sent one.
        retry_after: Option<Duration>,
    },
    /// The connection closed before the response was complete.
    StreamCut(String),
    /// The server's answer broke HTTP/1.1's rules (a malformed head, bad framing,
    /// a size beyond the caps), or the request cannot be sent as asked (a bad URL,
    /// a header with a line break): what was wrong, typed.
    Protocol(ProtocolError),
    /// The request was cancelled.
    Cancelled,
    /// Anything else, with the engine's own words.
    Other(String),
}

impl TransportError {
    /// Whether retrying the same request may succeed (timeouts, connection trouble,
    /// 408/429/5xx/529). Cancellation and client errors are final.
    pub fn is_retryable(&self) -> bool {
        match self {
            TransportError::Connect(_)
            | TransportError::Timeout(_)
            | TransportError::StreamCut(_) => true,
            TransportError::Status { status, .. } => {
                matches!(status, 408 | 429 | 500 | 502 | 503 | 504 | 529)
            }
            _ => false,
        }
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::CannotStart(m) => write!(f, "cannot start the HTTP client: {m}"),
            TransportError::Dns(m) => write!(
                f,
                "could not resolve host (check the URL and your DNS or proxy settings): {m}"
            ),
            TransportError::Connect(m) => write!(
                f,
                "could not connect (is the server running and reachable?): {m}"
            ),
            TransportError::Tls(m) => write!(
                f,
                "TLS failed (check certificates, CA bundle or proxy): {m}"
            ),
            TransportError::Timeout(m) => write!(f, "timed out: {m}"),
            TransportError::Status { status, body, .. } => {
                let body = body.trim();
                if body.is_empty() {
                    write!(f, "HTTP {status}")
                } else {
                    write!(f, "HTTP {status}: {body}")
                }
            }
            TransportError::StreamCut(m) => write!(
                f,
                "the connection closed before the response was complete: {m}"
            ),
            TransportError::Protocol(
                e @ (ProtocolError::BadUrl(_) | ProtocolError::BadRequest(_)),
            ) => write!(f, "{e}"),
            TransportError::Protocol(e) => write!(f, "the server's response is malformed: {e}"),
            TransportError::Cancelled => f.write_str("request cancelled"),
            TransportError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for TransportError {}

/// Carrying a [`TransportError`] through `std::io::Read`, whose errors must be
/// `io::Error`: body readers wrap the typed error, callers unwrap it again.
impl From<TransportError> for std::io::Error {
    fn from(error: TransportError) -> std::io::Error {
        use std::io::ErrorKind;
        let kind = match &error {
            TransportError::StreamCut(_) => ErrorKind::UnexpectedEof,
            TransportError::Timeout(_) => ErrorKind::TimedOut,
            TransportError::Connect(_) => ErrorKind::ConnectionRefused,
            // Not `Interrupted`: std's read loops retry that kind forever.
            _ => ErrorKind::Other,
        };
        std::io::Error::new(kind, error)
    }
}

impl TransportError {
    /// The typed error behind an `io::Error` from a response body: the wrapped
    /// [`TransportError`] when there is one, otherwise a best guess from the kind
    /// (an unexpected end is a cut stream, a timeout a timeout, the rest `Other`).
    pub fn from_io(error: &std::io::Error) -> TransportError {
        if let Some(inner) = error
            .get_ref()
            .and_then(|e| e.downcast_ref::<TransportError>())
        {
            return inner.clone();
        }
        match error.kind() {
            std::io::ErrorKind::UnexpectedEof => TransportError::StreamCut(error.to_string()),
            std::io::ErrorKind::TimedOut => TransportError::Timeout(error.to_string()),
            _ => TransportError::Other(format!("reading the response body: {error}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_io_error() {
        let io: std::io::Error = TransportError::StreamCut("curl: (18) partial".into()).into();
        assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
        assert_eq!(
            TransportError::from_io(&io),
            TransportError::StreamCut("curl: (18) partial".into())
        );
        let io: std::io::Error = TransportError::Cancelled.into();
        assert_ne!(io.kind(), std::io::ErrorKind::Interrupted);
        assert_eq!(TransportError::from_io(&io), TransportError::Cancelled);
        let plain = std::io::Error::new(std::io::ErrorKind::TimedOut, "slow");
        assert!(matches!(
            TransportError::from_io(&plain),
            TransportError::Timeout(_)
        ));
    }

    #[test]
    fn protocol_errors_say_whose_fault() {
        let url = TransportError::Protocol(ProtocolError::BadUrl("no host".into())).to_string();
        assert_eq!(url, "bad URL: no host");
        let server =
            TransportError::Protocol(ProtocolError::BodyLongerThanContentLength { declared: 5 });
        assert_eq!(
            server.to_string(),
            "the server's response is malformed: the body is longer than its Content-Length of 5 bytes"
        );
        assert!(!server.is_retryable());
    }

    #[test]
    fn retryable_kinds() {
        assert!(TransportError::Timeout(String::new()).is_retryable());
        assert!(!TransportError::Cancelled.is_retryable());
        let status = |status| TransportError::Status {
            status,
            body: String::new(),
            retry_after: None,
        };
        assert!(status(429).is_retryable());
        assert!(!status(400).is_retryable());
    }
}
