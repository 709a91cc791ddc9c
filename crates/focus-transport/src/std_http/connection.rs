//! [`Connection`]: one TCP connection with a read buffer, read under a time
//! limit, line by line (the head, chunk sizes) or as raw bytes (the body).
//!
//! Every read waits at most the current phase's limit ([`Wait`]), cut shorter by
//! the request's overall deadline: the socket's read timeout is set before each
//! read. A cancel shuts the socket down from the cancelling thread (see
//! `std_http.rs`), which ends a blocked read at once; the error is then
//! [`TransportError::Cancelled`].

use crate::error::TransportError;
use crate::protocol_error::ProtocolError;
use focus_core::cancel::CancelToken;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The read buffer's size: what one `read` system call may bring in.
const BUFFER_SIZE: usize = 64 * 1024;

/// How long a read may wait, and what to call it when it runs out.
#[derive(Clone, Copy, Debug)]
pub struct Wait {
    /// The limit for this read; `None` waits as long as it takes (the caller's
    /// deadline, cancel or watchdog ends it).
    pub limit: Option<Duration>,
    /// The phase, for the message: "no response" or "no data".
    pub phase: Phase,
    /// The request's overall deadline, if it has one.
    pub deadline: Option<Instant>,
}

/// Which limit a read is under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for the first byte of the answer.
    FirstByte,
    /// Between two reads once the answer has started.
    Idle,
}

/// A connection to one server, with what was read and not yet consumed.
pub struct Connection {
    stream: TcpStream,
    /// `host:port`, for messages.
    pub label: String,
    buffer: Box<[u8]>,
    start: usize,
    end: usize,
    /// The read timeout last set (`Some(None)`: none), so that it is only
    /// changed when it must be.
    timeout_set: Option<Option<Duration>>,
    /// Bytes received on this connection so far (for "did the server answer at all").
    pub received: u64,
}

impl Connection {
    /// Wraps a connected stream.
    pub fn new(stream: TcpStream, label: String) -> Connection {
        let _ = stream.set_nodelay(true);
        Connection {
            stream,
            label,
            buffer: vec![0; BUFFER_SIZE].into_boxed_slice(),
            start: 0,
            end: 0,
            timeout_set: None,
            received: 0,
        }
    }

    /// A second handle to the socket, for shutting it down from a cancel callback.
    pub fn shutdown_handle(&self) -> Option<TcpStream> {
        self.stream.try_clone().ok()
    }

    /// Writes all of `bytes` (the request), waiting at most `limit` (if any).
    ///
    /// # Errors
    ///
    /// The socket's error (a reset or closed connection), or `TimedOut` when
    /// `limit` passed first.
    pub fn send(&mut self, bytes: &[u8], limit: Option<Duration>) -> io::Result<()> {
        self.stream
            .set_write_timeout(limit.map(|l| l.max(MIN_TIMEOUT)))?;
        self.stream.write_all(bytes)?;
        self.stream.flush()
    }

    /// The bytes read but not consumed.
    pub fn buffered(&self) -> &[u8] {
        &self.buffer[self.start..self.end]
    }

    /// Marks `n` buffered bytes as consumed.
    pub fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Reads more bytes into the buffer; `Ok(0)` when the server closed.
    ///
    /// # Errors
    ///
    /// [`TransportError::Timeout`] when nothing arrives in time, `Cancelled` when the call was
    /// cancelled, [`TransportError::StreamCut`] for a reset connection.
    pub fn fill(&mut self, wait: Wait, cancel: &CancelToken) -> Result<usize, TransportError> {
        if cancel.is_cancelled() {
            return Err(TransportError::Cancelled);
        }
        if self.start > 0 && self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        if self.end == self.buffer.len() {
            // Only a caller holding bytes it has not consumed gets here (a line
            // reader copies out first); move them to the front.
            self.buffer.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.end == self.buffer.len() {
                return Err(TransportError::Other(
                    "internal: the read buffer is full of unconsumed bytes".into(),
                ));
            }
        }
        // The phase's limit, or what is left of the deadline when that is shorter
        // (`total`: the deadline is what runs out).
        let left = wait
            .deadline
            .map(|deadline| deadline.saturating_duration_since(Instant::now()));
        if left.is_some_and(|l| l.is_zero()) {
            return Err(self.timed_out(wait, true));
        }
        let (limit, total) = match (wait.limit, left) {
            (Some(limit), Some(left)) if left < limit => (Some(left), true),
            (None, Some(left)) => (Some(left), true),
            (limit, _) => (limit, false),
        };
        let limit = limit.map(|l| l.max(MIN_TIMEOUT));
        if self.timeout_set != Some(limit) {
            self.stream
                .set_read_timeout(limit)
                .map_err(|e| TransportError::Other(format!("setting a read timeout: {e}")))?;
            self.timeout_set = Some(limit);
        }
        loop {
            let result = self.stream.read(&mut self.buffer[self.end..]);
            if cancel.is_cancelled() {
                return Err(TransportError::Cancelled);
            }
            match result {
                Ok(n) => {
                    self.end += n;
                    self.received += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(self.timed_out(wait, total))
                }
                Err(e) => {
                    return Err(TransportError::StreamCut(format!(
                        "reading from {}: {e}",
                        self.label
                    )))
                }
            }
        }
    }

    fn timed_out(&self, wait: Wait, total: bool) -> TransportError {
        let seconds = |d: Option<Duration>| format!("{:.1} s", d.unwrap_or_default().as_secs_f64());
        TransportError::Timeout(if total {
            format!(
                "the request to {} ran past its total time limit",
                self.label
            )
        } else {
            match wait.phase {
                Phase::FirstByte => {
                    format!(
                        "no response from {} within {}",
                        self.label,
                        seconds(wait.limit)
                    )
                }
                Phase::Idle => format!("no data from {} for {}", self.label, seconds(wait.limit)),
            }
        })
    }

    /// Reads one line (up to LF; a CR before it is dropped) into `line`, which is
    /// cleared first. `Ok(false)` when the server closed before a line began.
    /// A line longer than `cap` is `too_long` — and stops being read, so a server
    /// sending an endless line costs at most `cap` bytes of memory.
    ///
    /// # Errors
    ///
    /// What [`Connection::fill`] fails with, a line longer than `cap` (`too_long`), or a server
    /// that closed in the middle of a line.
    pub fn read_line(
        &mut self,
        line: &mut Vec<u8>,
        cap: usize,
        too_long: ProtocolError,
        wait: Wait,
        cancel: &CancelToken,
    ) -> Result<bool, TransportError> {
        line.clear();
        loop {
            let buffered = self.buffered();
            let found = buffered.iter().position(|&b| b == b'\n');
            let take = found.map_or(buffered.len(), |i| i + 1);
            if line.len() + take > cap + 2 {
                return Err(TransportError::Protocol(too_long));
            }
            line.extend_from_slice(&buffered[..take]);
            self.consume(take);
            if found.is_some() {
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(true);
            }
            if self.fill(wait, cancel)? == 0 {
                if line.is_empty() {
                    return Ok(false);
                }
                return Err(TransportError::StreamCut(format!(
                    "{} closed the connection in the middle of a line",
                    self.label
                )));
            }
        }
    }

    /// Whether the idle connection is still usable: not closed by the server and
    /// with nothing unasked-for waiting to be read.
    pub fn is_reusable(&self) -> bool {
        if !self.buffered().is_empty() || self.stream.set_nonblocking(true).is_err() {
            return false;
        }
        let mut probe = [0u8; 1];
        let alive =
            matches!(self.stream.peek(&mut probe), Err(e) if e.kind() == io::ErrorKind::WouldBlock);
        alive && self.stream.set_nonblocking(false).is_ok()
    }

    /// Whether the server has sent more bytes than were asked for (a look that
    /// does not wait).
    pub fn has_unread_bytes(&self) -> bool {
        if !self.buffered().is_empty() {
            return true;
        }
        if self.stream.set_nonblocking(true).is_err() {
            return false;
        }
        let mut probe = [0u8; 1];
        let more = matches!(self.stream.peek(&mut probe), Ok(n) if n > 0);
        let _ = self.stream.set_nonblocking(false);
        more
    }
}

/// The shortest timeout ever set: std refuses a zero one.
const MIN_TIMEOUT: Duration = Duration::from_millis(1);
