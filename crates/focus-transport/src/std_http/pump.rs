//! [`pump`]: an event stream's body read from the socket on a thread of its
//! own, so that the socket is drained while the caller decodes what came
//! before.
//!
//! Why: a model's stream is many small writes (one event each). Read on the
//! thread that also decodes, every event the server writes while the reader is
//! decoding waits in the socket, and every event written while it waits in
//! `recv` wakes it for that one event; on a busy machine the reading, the
//! decoding and the server then take turns instead of running side by side.
//! curl, which focus used for every URL before the std transport, is such a
//! reading stage in a process of its own; this is the same stage as a thread.
//! Measured on an 80,000-delta stream in print mode: docs/benchmarks.md
//! ("print-mode streaming: the cause").
//!
//! Bounded: at most [`CHUNKS_AHEAD`] reads of at most [`CHUNK`] bytes wait for
//! the caller; then the pump waits, and with it the socket and the server. The
//! bytes, their order and the body's errors reach the caller unchanged, and an
//! error is repeated by every later read, as [`super::body::Body`] does.
//!
//! A caller that drops the body before its end stops the pump: the body's
//! cancel token (its own, linked to the request's) is cancelled, which shuts
//! the socket down and ends a read blocked in the kernel. A body that ended
//! has already unregistered that shutdown and given its connection back to
//! the pool, so a late drop does not touch a connection in use elsewhere.

use super::body::Body;
use crate::error::TransportError;
use focus_core::cancel::{CancelRegistration, CancelToken};
use focus_core::sync::lock;
use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

/// The most bytes one read of the pump takes from the body.
pub const CHUNK: usize = 16 * 1024;

/// How many reads may wait for the caller before the pump waits.
pub const CHUNKS_AHEAD: usize = 16;

/// What the pump hands over: some bytes, the end, or the body's error.
enum Piece {
    Bytes(Vec<u8>),
    End,
    Failed(TransportError),
}

/// The caller's side of a pumped body.
pub struct Pumped {
    pieces: Receiver<Piece>,
    current: Vec<u8>,
    at: usize,
    /// `Some(Ok)` after the end, `Some(Err)` after an error (repeated).
    outcome: Option<Result<(), TransportError>>,
    /// Cancelled when the caller drops the body early: stops the pump.
    stop: CancelToken,
}

/// `body` read on a thread of its own (see the module's text). `stop` is the
/// token `body` was built with, `link` the registration that cancels it when
/// the request is cancelled (kept as long as the pump runs). Falls back to
/// reading `body` on the caller's thread when no thread can be started.
pub fn pump(body: Body, stop: CancelToken, link: CancelRegistration) -> Box<dyn Read + Send> {
    let (sender, pieces) = sync_channel(CHUNKS_AHEAD);
    // The body and its link go to the thread, or come back when none starts.
    let slot = Arc::new(Mutex::new(Some(Linked { body, _link: link })));
    let for_thread = slot.clone();
    let spawned = std::thread::Builder::new()
        .name("focus-http-read".into())
        .spawn(move || {
            let taken = lock(&for_thread).take();
            if let Some(linked) = taken {
                run(linked.body, &sender);
            }
        });
    if spawned.is_err() {
        if let Some(linked) = lock(&slot).take() {
            return Box::new(linked);
        }
    }
    Box::new(Pumped {
        pieces,
        current: Vec::new(),
        at: 0,
        outcome: None,
        stop,
    })
}

/// A body with the link that passes the request's cancel on to it.
struct Linked {
    body: Body,
    _link: CancelRegistration,
}

impl Read for Linked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.body.read(buf)
    }
}

/// The pump's thread: reads `body` to its end or first error, handing each
/// read over; stops early when the caller is gone.
fn run(mut body: Body, sender: &SyncSender<Piece>) {
    let mut buffer = vec![0u8; CHUNK];
    loop {
        let piece = match body.read(&mut buffer) {
            Ok(0) => Piece::End,
            Ok(n) => Piece::Bytes(buffer[..n].to_vec()),
            Err(error) => Piece::Failed(TransportError::from_io(&error)),
        };
        let last = !matches!(piece, Piece::Bytes(_));
        if sender.send(piece).is_err() || last {
            return;
        }
    }
}

impl Read for Pumped {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        while self.at == self.current.len() {
            match &self.outcome {
                Some(Ok(())) => return Ok(0),
                Some(Err(error)) => return Err(error.clone().into()),
                None => {}
            }
            self.outcome = match self.pieces.recv() {
                Ok(Piece::Bytes(bytes)) => {
                    self.current = bytes;
                    self.at = 0;
                    None
                }
                Ok(Piece::End) => Some(Ok(())),
                Ok(Piece::Failed(error)) => Some(Err(error)),
                // The pump's thread ended without saying how the body did.
                Err(_) => Some(Err(TransportError::Other(
                    "the thread reading the response body stopped".into(),
                ))),
            };
        }
        let n = (self.current.len() - self.at).min(buf.len());
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl Drop for Pumped {
    fn drop(&mut self) {
        if self.outcome.is_none() {
            self.stop.cancel();
        }
    }
}
