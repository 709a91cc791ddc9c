//! One attempt at an answer ([`Attempt::run`]): the request sent with a
//! [`Watchdog`] beside it, the status checked, the body read into the message
//! ([`EventStream`]), and every way it can go wrong sorted into a finished
//! message (something was shown: it is kept, with the error) or a [`Failure`]
//! before anything was shown, which the provider's retry loop may try again.

use crate::builder::MessageBuilder;
use crate::decode::StreamDecoder;
use crate::http::event_stream::{EventStream, Fed};
use crate::http::{error_text, retryable_status};
use crate::watchdog::{Stall, Watchdog};
use focus_core::cancel::CancelToken;
use focus_core::message::{AssistantMessage, StopReason};
use focus_core::overflow::is_context_overflow;
use focus_core::provider::{ModelInfo, StreamSink};
use focus_transport::retry_after::retry_after_from_headers;
use focus_transport::{HttpRequest, HttpResponse, Transport, TransportError};
use std::io::Read;
use std::time::Duration;

/// How much of an error status's body is read for its message.
const ERROR_BODY_BYTES: u64 = 256 * 1024;

/// A failed attempt: what to report, and whether trying again may help.
pub(super) struct Failure {
    /// What went wrong (may hold the API key: the provider redacts it).
    pub message: String,
    /// Whether the same request may succeed later.
    pub retryable: bool,
    /// How long the server asked to wait (`Retry-After`).
    pub retry_after: Option<Duration>,
}

/// What one attempt needs from the provider.
pub(super) struct Attempt<'a> {
    /// The model asked.
    pub model: &'a ModelInfo,
    /// The API key, to keep out of the message's texts.
    pub api_key: Option<&'a str>,
    /// How the request is sent.
    pub transport: &'a dyn Transport,
    /// No byte for this long is a stall.
    pub idle_timeout: Duration,
    /// No model output for this long (keepalives only) is a stall.
    pub stall_timeout: Duration,
}

impl Attempt<'_> {
    /// Sends `http` and reads the answer into a message, through `sink`.
    ///
    /// # Errors
    ///
    /// `Ok` is a finished message (success, an error after something was shown,
    /// or aborted); `Err` is a failure before anything was shown.
    pub(super) fn run(
        &self,
        http: &HttpRequest,
        cancel: &CancelToken,
        sink: &mut StreamSink<'_>,
        decoder: &mut dyn StreamDecoder,
    ) -> Result<AssistantMessage, Failure> {
        let watchdog = Watchdog::start(cancel, self.idle_timeout, self.stall_timeout);
        let response = self.send(http, cancel, &watchdog)?;
        let status = response.status;
        let mut body = response.body;
        let mut builder =
            MessageBuilder::new(&self.model.api, &self.model.provider, &self.model.id, sink)
                .with_price(&self.model.price)
                .with_secret(self.api_key);
        let mut stream = EventStream::new();
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            if cancel.is_cancelled() {
                return Ok(builder.abort());
            }
            match body.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    watchdog.progress();
                    match stream.feed(&buffer[..n], decoder, &mut builder, &watchdog) {
                        Fed::More => {}
                        Fed::Done => break,
                        Fed::Overlong(message) => return cut_short(builder, message, false),
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    if cancel.is_cancelled() {
                        return Ok(builder.abort());
                    }
                    let message = if watchdog.stalled() {
                        self.stall_message(&watchdog)
                    } else {
                        TransportError::from_io(&e).to_string()
                    };
                    let retryable =
                        watchdog.stalled() || TransportError::from_io(&e).is_retryable();
                    return cut_short(builder, message, retryable);
                }
            }
        }
        // The watchdog cut the stream (the transport may end it as a plain
        // end of body): a stall, retried like a dropped connection when
        // nothing was shown yet.
        if watchdog.stalled() && !cancel.is_cancelled() && !decoder.is_done() {
            return cut_short(builder, self.stall_message(&watchdog), true);
        }
        stream.flush(decoder, &mut builder);
        if cancel.is_cancelled() {
            return Ok(builder.abort());
        }
        if let Some(head) = stream.not_an_event_stream() {
            let said = error_text(status, head);
            builder.set_error(format!("the server did not send an event stream ({said})"));
        }
        decoder.on_end(&mut builder);
        if let Some(failure) = retryable_in_band(&builder) {
            return Err(failure);
        }
        Ok(builder.finish())
    }

    /// Sends the request and checks the status: a response with a 2xx status
    /// and its body still to read.
    fn send(
        &self,
        http: &HttpRequest,
        cancel: &CancelToken,
        watchdog: &Watchdog,
    ) -> Result<HttpResponse, Failure> {
        let response = match self.transport.send(http, watchdog.token()) {
            Ok(r) => r,
            Err(_) if watchdog.stalled() && !cancel.is_cancelled() => {
                return Err(Failure {
                    retryable: true,
                    message: self.stall_message(watchdog),
                    retry_after: None,
                })
            }
            Err(e) => {
                return Err(Failure {
                    retryable: e.is_retryable(),
                    message: e.to_string(),
                    retry_after: None,
                })
            }
        };
        watchdog.progress();
        if (200..300).contains(&response.status) {
            return Ok(response);
        }
        let retry_after = retry_after_from_headers(&response.headers);
        let mut body = Vec::new();
        let _ = response.body.take(ERROR_BODY_BYTES).read_to_end(&mut body);
        let message = error_text(response.status, &body);
        Err(Failure {
            retryable: retryable_status(response.status, &message),
            message,
            retry_after,
        })
    }

    /// What a stall is called, by which of the watchdog's limits ran out.
    fn stall_message(&self, watchdog: &Watchdog) -> String {
        match watchdog.stall() {
            Some(Stall::NoOutput) => format!(
                "no model output from the server for {} s (only keepalives); the stream looks stalled",
                self.stall_timeout.as_secs_f64()
            ),
            _ => format!(
                "no data from the server for {} s; the connection looks stalled",
                self.idle_timeout.as_secs_f64()
            ),
        }
    }
}

/// The attempt ends early with `message`: a [`Failure`] (retried when
/// `retryable`) if nothing was shown yet, else the message so far, with the
/// error.
fn cut_short(
    mut builder: MessageBuilder<'_, '_>,
    message: String,
    retryable: bool,
) -> Result<AssistantMessage, Failure> {
    if builder.events_emitted() == 0 {
        return Err(Failure {
            message,
            retryable,
            retry_after: None,
        });
    }
    builder.set_error(message);
    Ok(builder.finish())
}

/// An in-band failure before anything was shown that is worth another attempt
/// (Anthropic's `overloaded_error` right after `message_start`, a rate limit),
/// unless it says the context overflowed.
fn retryable_in_band(builder: &MessageBuilder<'_, '_>) -> Option<Failure> {
    let m = builder.message();
    if builder.events_emitted() != 0 || m.stop_reason != StopReason::Error {
        return None;
    }
    let message = m.error_message.clone().unwrap_or_default();
    let lower = message.to_ascii_lowercase();
    ((lower.contains("overloaded") || lower.contains("rate limit")) && !is_context_overflow(m, 0))
        .then_some(Failure {
            message,
            retryable: true,
            retry_after: None,
        })
}
