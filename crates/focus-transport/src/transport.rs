//! The seam itself: [`Transport`], with the [`HttpRequest`] it takes and the
//! [`HttpResponse`] it gives (re-exported at the crate's root).

use crate::error::TransportError;
use crate::retry_after;
use focus_core::cancel::CancelToken;
use std::io::Read;
use std::time::Duration;

/// An HTTP request. Header values may hold secrets: implementations must never put
/// them on a command line, in a log or in an error message (its `Debug` shows
/// header names only).
#[derive(Clone, Default)]
pub struct HttpRequest {
    /// `GET`, `POST`…
    pub method: String,
    /// The full URL.
    pub url: String,
    /// Header names and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body bytes (empty for none).
    pub body: Vec<u8>,
    /// Give up if no connection is made within this time.
    pub connect_timeout: Option<Duration>,
    /// Give up if the whole exchange takes longer than this.
    pub total_timeout: Option<Duration>,
}

/// Header values are left out: `x-api-key` and `authorization` carry the key, and a
/// `{:?}` in a log or a panic message must not print it.
impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<String> = self
            .headers
            .iter()
            .map(|(k, _)| format!("{k}: …"))
            .collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &headers)
            .field("body_bytes", &self.body.len())
            .field("connect_timeout", &self.connect_timeout)
            .field("total_timeout", &self.total_timeout)
            .finish()
    }
}

/// An HTTP response whose body arrives while it is read.
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Header names (as sent) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body; `read` returns bytes as they arrive and `Ok(0)` at the end. A body
    /// cut short returns an error of kind `UnexpectedEof` carrying a
    /// [`TransportError`] message.
    pub body: Box<dyn Read + Send>,
}

impl HttpResponse {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl HttpResponse {
    /// The largest error body [`HttpResponse::error_for_status`] reads.
    pub const MAX_ERROR_BODY: u64 = 256 * 1024;

    /// Passes a 2xx response through; turns any other status into
    /// [`TransportError::Status`] with the body (up to
    /// [`HttpResponse::MAX_ERROR_BODY`] bytes, as text) and the delay asked for by
    /// `Retry-After` / `retry-after-ms`.
    ///
    /// # Errors
    ///
    /// [`TransportError::Status`] for any status outside 200-299, with the status, the start of the
    /// body and the delay the server asked for.
    pub fn error_for_status(self) -> Result<HttpResponse, TransportError> {
        if (200..300).contains(&self.status) {
            return Ok(self);
        }
        let retry_after = retry_after::retry_after_from_headers(&self.headers);
        let mut body = Vec::new();
        // A body cut short still says something useful: keep what arrived.
        let _ = self.body.take(Self::MAX_ERROR_BODY).read_to_end(&mut body);
        Err(TransportError::Status {
            status: self.status,
            body: String::from_utf8_lossy(&body).into_owned(),
            retry_after,
        })
    }
}

impl std::fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .finish()
    }
}

/// Sends HTTP requests.
///
/// `send` returns once the status and headers are in; the body streams through
/// [`HttpResponse::body`]. A non-2xx status is *not* an error here: the caller reads
/// the error body and decides (providers turn it into [`TransportError::Status`]).
/// Cancelling `cancel` from another thread stops the request at once, including a
/// body read in progress.
pub trait Transport: Send + Sync {
    /// Starts `request` and waits for the response head.
    fn send(
        &self,
        request: &HttpRequest,
        cancel: &CancelToken,
    ) -> Result<HttpResponse, TransportError>;
}
