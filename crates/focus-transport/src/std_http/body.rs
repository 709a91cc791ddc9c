//! [`Body`]: the response body as a `Read`, de-framed as it arrives — by
//! `Content-Length`, by `chunked` framing, or until the server closes.
//!
//! Bytes reach the caller as soon as a read brings them in: a chunk is never
//! collected whole first (a chunk may announce 2^64 − 1 bytes; nothing here
//! allocates by what the server announces). Once the body is complete, the
//! connection goes back to the pool if the answer allowed it — at once, even if
//! the caller never asks for the end, when the framing's end is already here.

use super::chunked::chunk_size;
use super::connection::{Connection, Wait};
use super::framing::Framing;
use super::head::parse_field_line;
use super::limits::Limits;
use super::pool::Pool;
use crate::error::TransportError;
use crate::protocol_error::ProtocolError;
use focus_core::cancel::{CancelRegistration, CancelToken};
use std::io::{self, Read};
use std::sync::Arc;

/// Where the reader is in the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// `Content-Length` bytes still to come (of `declared`).
    Length { remaining: u64, declared: u64 },
    /// Before a chunk-size line.
    ChunkSize,
    /// Inside a chunk of `size` bytes, `remaining` still to come.
    ChunkData { remaining: u64, size: u64 },
    /// After a chunk's data: its CRLF.
    ChunkEnd,
    /// After the last (zero) chunk: trailer lines up to a blank line.
    Trailers { count: usize },
    /// Until the server closes.
    UntilClose,
    /// The body is complete.
    Done,
}

/// A streaming response body; see the module documentation.
pub struct Body {
    connection: Option<Connection>,
    state: State,
    keep_alive: bool,
    pool: Arc<Pool>,
    cancel: CancelToken,
    /// Shuts the socket down on cancel while the body is read; dropped before the
    /// connection goes back to the pool.
    registration: Option<CancelRegistration>,
    wait: Wait,
    limits: Limits,
    outcome: Option<Result<(), TransportError>>,
    line: Vec<u8>,
}

impl Body {
    /// The body of an answer framed as `framing`, read from `connection` with
    /// `wait` between reads.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        connection: Connection,
        framing: Framing,
        keep_alive: bool,
        pool: Arc<Pool>,
        cancel: CancelToken,
        registration: CancelRegistration,
        wait: Wait,
        limits: Limits,
    ) -> Body {
        let state = match framing {
            Framing::Empty => State::Done,
            Framing::Length(n) => State::Length {
                remaining: n,
                declared: n,
            },
            Framing::Chunked => State::ChunkSize,
            Framing::UntilClose => State::UntilClose,
        };
        let mut body = Body {
            connection: Some(connection),
            state,
            keep_alive,
            pool,
            cancel,
            registration: Some(registration),
            wait,
            limits,
            outcome: None,
            line: Vec::new(),
        };
        body.settle();
        body
    }

    /// Reads at most `buf.len()` body bytes; `Ok(0)` at the end. Waits only for
    /// the first bytes; then adds what is already buffered (the next chunks of a
    /// stream that arrived together), so a caller's read is one event or a
    /// thousand, not one HTTP chunk at a time.
    fn read_body(&mut self, buf: &mut [u8]) -> Result<usize, TransportError> {
        let mut filled = self.read_some(buf, true)?;
        while filled > 0 && filled < buf.len() {
            match self.read_some(&mut buf[filled..], false) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) => {
                    // Reported by the next read; these bytes are good.
                    self.fail(e);
                    break;
                }
            }
        }
        Ok(filled)
    }

    /// Reads some body bytes into `buf`: `Ok(0)` at the end, or — when it may
    /// not wait — when nothing more is buffered.
    fn read_some(&mut self, buf: &mut [u8], may_wait: bool) -> Result<usize, TransportError> {
        loop {
            let Some(connection) = self.connection.as_mut() else {
                return Ok(0);
            };
            let buffered = connection.buffered();
            let line_ready = buffered.contains(&b'\n');
            let data_ready = !buffered.is_empty();
            match self.state {
                State::Done => return Ok(0),
                State::Length { remaining: 0, .. } => return Ok(0),
                State::Length { .. } | State::ChunkData { .. } | State::UntilClose
                    if !may_wait && !data_ready =>
                {
                    return Ok(0)
                }
                State::ChunkSize | State::ChunkEnd | State::Trailers { .. }
                    if !may_wait && !line_ready =>
                {
                    return Ok(0)
                }
                State::Length {
                    remaining,
                    declared,
                } => {
                    let n = take(connection, buf, remaining, self.wait, &self.cancel)?;
                    if n == 0 {
                        return Err(TransportError::StreamCut(format!(
                            "{} closed the connection after {} of {declared} bytes",
                            connection.label,
                            declared - remaining
                        )));
                    }
                    self.state = State::Length {
                        remaining: remaining - n as u64,
                        declared,
                    };
                    return Ok(n);
                }
                State::ChunkData { remaining, size } => {
                    let n = take(connection, buf, remaining, self.wait, &self.cancel)?;
                    if n == 0 {
                        return Err(TransportError::StreamCut(format!(
                            "{} closed the connection {} bytes into a {size}-byte chunk",
                            connection.label,
                            size - remaining
                        )));
                    }
                    self.state = match remaining - n as u64 {
                        0 => State::ChunkEnd,
                        left => State::ChunkData {
                            remaining: left,
                            size,
                        },
                    };
                    return Ok(n);
                }
                State::UntilClose => {
                    let n = take(connection, buf, u64::MAX, self.wait, &self.cancel)?;
                    if n == 0 {
                        self.state = State::Done;
                        return Ok(0);
                    }
                    return Ok(n);
                }
                State::ChunkSize | State::ChunkEnd | State::Trailers { .. } => self.step_line()?,
            }
        }
    }

    /// Reads and handles one framing line (chunk size, chunk end, trailer).
    fn step_line(&mut self) -> Result<(), TransportError> {
        let Some(connection) = self.connection.as_mut() else {
            return Ok(());
        };
        let (cap, too_long) = match self.state {
            State::ChunkSize => (
                self.limits.max_chunk_line,
                ProtocolError::ChunkLineTooLong {
                    limit: self.limits.max_chunk_line,
                },
            ),
            State::ChunkEnd => (0, ProtocolError::MissingChunkTerminator),
            _ => (
                self.limits.max_header_line,
                ProtocolError::HeaderLineTooLong {
                    limit: self.limits.max_header_line,
                },
            ),
        };
        let got = connection.read_line(&mut self.line, cap, too_long, self.wait, &self.cancel)?;
        if !got {
            if let State::Trailers { .. } = self.state {
                // The data is all here; only the final blank line is missing.
                self.keep_alive = false;
                self.state = State::Done;
                return Ok(());
            }
            return Err(TransportError::StreamCut(format!(
                "{} closed the connection in the middle of a chunked body",
                connection.label
            )));
        }
        self.state = match self.state {
            State::ChunkSize => match chunk_size(&self.line).map_err(TransportError::Protocol)? {
                0 => State::Trailers { count: 0 },
                size => State::ChunkData {
                    remaining: size,
                    size,
                },
            },
            State::ChunkEnd if self.line.is_empty() => State::ChunkSize,
            State::ChunkEnd => {
                return Err(TransportError::Protocol(
                    ProtocolError::MissingChunkTerminator,
                ))
            }
            State::Trailers { .. } if self.line.is_empty() => State::Done,
            State::Trailers { count } => {
                if count == self.limits.max_headers {
                    return Err(TransportError::Protocol(ProtocolError::TooManyTrailers {
                        limit: self.limits.max_headers,
                    }));
                }
                parse_field_line(&self.line)?;
                State::Trailers { count: count + 1 }
            }
            other => other,
        };
        Ok(())
    }

    /// Handles the framing lines already buffered, without waiting, and
    /// finishes the body if its end is here.
    fn settle(&mut self) {
        while self.outcome.is_none() {
            let Some(connection) = self.connection.as_ref() else {
                return;
            };
            match self.state {
                State::Done | State::Length { remaining: 0, .. } => {
                    let result = self.finish();
                    self.outcome = Some(result);
                    return;
                }
                State::ChunkSize | State::ChunkEnd | State::Trailers { .. }
                    if connection.buffered().contains(&b'\n') =>
                {
                    if let Err(e) = self.step_line() {
                        self.fail(e);
                    }
                }
                _ => return,
            }
        }
    }

    /// The body is complete: check for bytes beyond it, and give the connection
    /// back to the pool when the answer allows reuse.
    fn finish(&mut self) -> Result<(), TransportError> {
        let Some(connection) = self.connection.take() else {
            return Ok(());
        };
        let extra = connection.has_unread_bytes();
        if let State::Length { declared, .. } = self.state {
            if extra {
                return Err(TransportError::Protocol(
                    ProtocolError::BodyLongerThanContentLength { declared },
                ));
            }
        }
        self.state = State::Done;
        // Unregister before pooling, so a late cancel cannot shut down a
        // connection another request is using.
        self.registration = None;
        if self.keep_alive && !extra && !self.cancel.is_cancelled() {
            self.pool.put(connection);
        }
        Ok(())
    }

    fn fail(&mut self, error: TransportError) {
        self.connection = None;
        self.registration = None;
        self.outcome = Some(Err(error));
    }
}

/// Copies up to `limit` body bytes into `buf`: buffered ones first, else one
/// read's worth. 0 means the server closed.
fn take(
    connection: &mut Connection,
    buf: &mut [u8],
    limit: u64,
    wait: Wait,
    cancel: &CancelToken,
) -> Result<usize, TransportError> {
    if connection.buffered().is_empty() && connection.fill(wait, cancel)? == 0 {
        return Ok(0);
    }
    let buffered = connection.buffered();
    let n = buffered
        .len()
        .min(buf.len())
        .min(usize::try_from(limit).unwrap_or(usize::MAX));
    buf[..n].copy_from_slice(&buffered[..n]);
    connection.consume(n);
    Ok(n)
}

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(outcome) = &self.outcome {
            return match outcome {
                Ok(()) => Ok(0),
                Err(e) => Err(e.clone().into()),
            };
        }
        if buf.is_empty() {
            return Ok(0);
        }
        if self.cancel.is_cancelled() {
            self.fail(TransportError::Cancelled);
            return Err(TransportError::Cancelled.into());
        }
        match self.read_body(buf) {
            Ok(n) => {
                self.settle();
                if n == 0 {
                    if let Some(Err(e)) = &self.outcome {
                        return Err(e.clone().into());
                    }
                }
                Ok(n)
            }
            Err(e) => {
                self.fail(e.clone());
                Err(e.into())
            }
        }
    }
}
