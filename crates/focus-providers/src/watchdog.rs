//! [`Watchdog`]: notices a stalled connection. A server that stops sending in the
//! middle of a stream (a dead proxy, a half-open TCP connection) would otherwise
//! leave a blocking read waiting forever. The watchdog runs beside one HTTP
//! attempt; the attempt calls [`Watchdog::progress`] whenever bytes arrive, and if
//! none arrive for the idle limit the watchdog cancels the attempt's own token
//! (which the transport obeys, killing the request) and remembers that it did, so
//! the attempt can report a stall rather than a user abort.
//!
//! A second clock watches for **model output**: a server (or a proxy in front of
//! it) that keeps the connection alive with keepalive bytes, SSE comments or
//! `ping` events but never sends the model's text would pass the idle check
//! forever. The attempt calls [`Watchdog::output`] whenever the stream produced
//! something for the message (text, thinking, a tool call); if nothing did for
//! the stall limit, the attempt is cancelled the same way, and
//! [`Watchdog::stall`] says which limit ran out.

use focus_core::cancel::{CancelRegistration, CancelToken};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Watches one attempt; dropping it stops the watching thread.
pub struct Watchdog {
    /// The token to hand to the transport: cancelled by the user's token or by a stall.
    token: CancelToken,
    started: Instant,
    /// Milliseconds since `started` at the last byte.
    last: Arc<AtomicU64>,
    /// Milliseconds since `started` at the last model output.
    last_output: Arc<AtomicU64>,
    /// Which limit ran out: 0 none, 1 no bytes, 2 no model output.
    stalled: Arc<AtomicU8>,
    /// Dropping it wakes and ends the thread.
    _stop: Sender<()>,
    _link: CancelRegistration,
}

impl Watchdog {
    /// Starts watching, with `parent` (the user's token) passed through: no
    /// byte for `idle`, or no model output for `stall`, cancels the attempt.
    pub fn start(parent: &CancelToken, idle: Duration, stall: Duration) -> Watchdog {
        let token = CancelToken::new();
        let linked = token.clone();
        let link = parent.on_cancel(move || linked.cancel());
        let started = Instant::now();
        let last = Arc::new(AtomicU64::new(0));
        let last_output = Arc::new(AtomicU64::new(0));
        let stalled = Arc::new(AtomicU8::new(0));
        let (stop, stopped) = channel::<()>();
        let (t_last, t_output, t_stalled, t_token) = (
            last.clone(),
            last_output.clone(),
            stalled.clone(),
            token.clone(),
        );
        let tick = (idle.min(stall) / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
        std::thread::spawn(move || loop {
            match stopped.recv_timeout(tick) {
                Err(RecvTimeoutError::Timeout) => {}
                _ => return, // the attempt ended
            }
            let now = started.elapsed().as_millis() as u64;
            let silent = now.saturating_sub(t_last.load(Ordering::SeqCst));
            let wordless = now.saturating_sub(t_output.load(Ordering::SeqCst));
            let ran_out = if silent >= idle.as_millis() as u64 {
                1
            } else if wordless >= stall.as_millis() as u64 {
                2
            } else {
                0
            };
            if ran_out != 0 {
                t_stalled.store(ran_out, Ordering::SeqCst);
                t_token.cancel();
                return;
            }
        });
        Watchdog {
            token,
            started,
            last,
            last_output,
            stalled,
            _stop: stop,
            _link: link,
        }
    }

    /// The token for the transport.
    pub fn token(&self) -> &CancelToken {
        &self.token
    }

    /// Bytes arrived: the idle clock restarts.
    pub fn progress(&self) {
        self.last
            .store(self.started.elapsed().as_millis() as u64, Ordering::SeqCst);
    }

    /// The stream produced model output (text, thinking, a tool call): the
    /// stall clock restarts. Keepalives are bytes, not output.
    pub fn output(&self) {
        self.last_output
            .store(self.started.elapsed().as_millis() as u64, Ordering::SeqCst);
    }

    /// Whether the watchdog cancelled the attempt (either limit).
    pub fn stalled(&self) -> bool {
        self.stall().is_some()
    }

    /// Which limit ran out, if the watchdog cancelled the attempt.
    pub fn stall(&self) -> Option<Stall> {
        match self.stalled.load(Ordering::SeqCst) {
            1 => Some(Stall::NoBytes),
            2 => Some(Stall::NoOutput),
            _ => None,
        }
    }
}

/// Why the watchdog ended an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stall {
    /// No byte arrived for the idle limit.
    NoBytes,
    /// Bytes arrived (keepalives) but no model output for the stall limit.
    NoOutput,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A watchdog started by `start` and fed by `feed` every 20 ms, six
    /// times. A verdict needs every gap between two feeds well under
    /// `limit`; a loaded machine that slept longer than that gives none, so
    /// the round is started again (up to 50 rounds).
    fn kept_alive(
        start: impl Fn() -> Watchdog,
        limit: Duration,
        feed: impl Fn(&Watchdog),
    ) -> Watchdog {
        for _ in 0..50 {
            let mut last = Instant::now();
            let dog = start();
            let mut widest = Duration::ZERO;
            for _ in 0..6 {
                std::thread::sleep(Duration::from_millis(20));
                let now = Instant::now();
                widest = widest.max(now - last);
                last = now;
                feed(&dog);
            }
            if widest < limit * 3 / 4 {
                return dog;
            }
        }
        panic!("the machine never slept 20 ms in under {limit:?} in 50 rounds");
    }

    #[test]
    fn silence_cancels_and_progress_or_the_parent_behave() {
        let parent = CancelToken::new();
        let long = Duration::from_secs(600);
        let idle = Duration::from_millis(60);
        let dog = kept_alive(
            || Watchdog::start(&parent, idle, long),
            idle,
            |dog| dog.progress(),
        );
        assert!(!dog.token().is_cancelled(), "progress keeps it alive");
        let deadline = Instant::now() + Duration::from_secs(5);
        while !dog.token().is_cancelled() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(dog.token().is_cancelled());
        assert_eq!(dog.stall(), Some(Stall::NoBytes));
        assert!(
            !parent.is_cancelled(),
            "a stall does not cancel the user's token"
        );

        let dog = Watchdog::start(&parent, Duration::from_secs(60), long);
        parent.cancel();
        assert!(dog.token().is_cancelled() && !dog.stalled());
    }

    #[test]
    fn bytes_without_output_run_out_the_stall_limit_and_output_resets_it() {
        let parent = CancelToken::new();
        let stall = Duration::from_millis(80);
        let start = || Watchdog::start(&parent, Duration::from_secs(600), stall);
        let dog = kept_alive(start, stall, |dog| {
            dog.progress();
            dog.output();
        });
        assert!(!dog.token().is_cancelled(), "output keeps it alive");
        let deadline = Instant::now() + Duration::from_secs(5);
        while !dog.token().is_cancelled() && Instant::now() < deadline {
            // Keepalive bytes only.
            dog.progress();
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(dog.stall(), Some(Stall::NoOutput));
        assert!(!parent.is_cancelled());
    }
}
