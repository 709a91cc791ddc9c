//! [`event_stream`]: an event stream's body, read from the socket on a thread
//! of its own (the pump) once the stream outpaces its reader, so that the
//! socket is drained while the caller decodes what came before.
//!
//! Why: a model's stream is many small writes (one event each). Read on the
//! thread that also decodes, every event the server writes while the reader is
//! decoding waits in the socket, and every event written while it waits in
//! `recv` wakes it for that one event; on a busy machine the server, the
//! reading and the decoding then take turns instead of running side by side.
//! curl, which focus used for every URL before the std transport, is such a
//! reading stage in a process of its own; the pump is the same stage as a
//! thread. Measured on 20,000- and 80,000-delta streams in print mode:
//! docs/benchmarks.md ("print-mode streaming: the cause").
//!
//! Only when needed: a stream read as it arrives (a model writing a few
//! tokens a second) is read on the caller's thread, as any other body: a
//! second thread would cost a second wake-up for every piece. After
//! [`BEHIND_READS`] reads in a row that filled the caller's buffer (bytes
//! were already waiting), the rest goes through the pump.
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

/// How many reads in a row that filled the caller's buffer (more bytes were
/// already waiting: the stream outpaces its reader) start the pump.
pub const BEHIND_READS: usize = 3;

/// What the pump hands over: some bytes, the end, or the body's error.
enum Piece {
    Bytes(Vec<u8>),
    End,
    Failed(TransportError),
}

/// An event stream's body: read on the caller's thread while the caller
/// keeps up, by the pump once it falls behind.
pub struct EventStream {
    stage: Stage,
}

enum Stage {
    /// Read on the caller's thread; `full_reads` in a row filled its buffer.
    Direct {
        linked: Box<Linked>,
        stop: CancelToken,
        full_reads: usize,
    },
    /// Read by the pump.
    Pumped(Pumped),
    /// Between the two (only while switching).
    Switching,
}

/// The body of an event stream, built with its own token `stop`; `link`
/// cancels `stop` when the request is cancelled and lives as long as the body
/// is read.
pub fn event_stream(body: Body, stop: CancelToken, link: CancelRegistration) -> EventStream {
    EventStream {
        stage: Stage::Direct {
            linked: Box::new(Linked { body, _link: link }),
            stop,
            full_reads: 0,
        },
    }
}

impl Read for EventStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let behind = match &mut self.stage {
            Stage::Pumped(pumped) => return pumped.read(buf),
            Stage::Switching => {
                return Err(TransportError::Other(
                    "the response body was left between two readers".into(),
                )
                .into())
            }
            Stage::Direct {
                linked, full_reads, ..
            } => {
                let n = linked.body.read(buf)?;
                *full_reads = if n > 0 && n == buf.len() {
                    *full_reads + 1
                } else {
                    0
                };
                if *full_reads < BEHIND_READS {
                    return Ok(n);
                }
                n
            }
        };
        if let Stage::Direct { linked, stop, .. } =
            std::mem::replace(&mut self.stage, Stage::Switching)
        {
            self.stage = match start(linked, stop.clone()) {
                Ok(pumped) => Stage::Pumped(pumped),
                // No thread: go on reading here.
                Err(linked) => Stage::Direct {
                    linked,
                    stop,
                    full_reads: 0,
                },
            };
        }
        Ok(behind)
    }
}

/// The caller's side of a pumped body.
struct Pumped {
    pieces: Receiver<Piece>,
    current: Vec<u8>,
    at: usize,
    /// `Some(Ok)` after the end, `Some(Err)` after an error (repeated).
    outcome: Option<Result<(), TransportError>>,
    /// Cancelled when the caller drops the body early: stops the pump.
    stop: CancelToken,
}

/// Starts the pump on `linked` (its body built with `stop`); the body back
/// when no thread can be started.
fn start(linked: Box<Linked>, stop: CancelToken) -> Result<Pumped, Box<Linked>> {
    let (sender, pieces) = sync_channel(CHUNKS_AHEAD);
    // The body and its link go to the thread, or come back when none starts.
    let slot = Arc::new(Mutex::new(Some(linked)));
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
            return Err(linked);
        }
    }
    Ok(Pumped {
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
