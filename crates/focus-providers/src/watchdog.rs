//! [`Watchdog`]: notices a stalled connection. A server that stops sending in the
//! middle of a stream (a dead proxy, a half-open TCP connection) would otherwise
//! leave a blocking read waiting forever. The watchdog runs beside one HTTP
//! attempt; the attempt calls [`Watchdog::progress`] whenever bytes arrive, and if
//! none arrive for the idle limit the watchdog cancels the attempt's own token
//! (which the transport obeys, killing the request) and remembers that it did, so
//! the attempt can report a stall rather than a user abort.

use focus_core::cancel::{CancelRegistration, CancelToken};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Watches one attempt; dropping it stops the watching thread.
pub struct Watchdog {
    /// The token to hand to the transport: cancelled by the user's token or by a stall.
    token: CancelToken,
    started: Instant,
    /// Milliseconds since `started` at the last progress.
    last: Arc<AtomicU64>,
    stalled: Arc<AtomicBool>,
    /// Dropping it wakes and ends the thread.
    _stop: Sender<()>,
    _link: CancelRegistration,
}

impl Watchdog {
    /// Starts watching, with `parent` (the user's token) passed through.
    pub fn start(parent: &CancelToken, idle: Duration) -> Watchdog {
        let token = CancelToken::new();
        let linked = token.clone();
        let link = parent.on_cancel(move || linked.cancel());
        let started = Instant::now();
        let last = Arc::new(AtomicU64::new(0));
        let stalled = Arc::new(AtomicBool::new(false));
        let (stop, stopped) = channel::<()>();
        let (t_last, t_stalled, t_token) = (last.clone(), stalled.clone(), token.clone());
        let tick = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
        std::thread::spawn(move || loop {
            match stopped.recv_timeout(tick) {
                Err(RecvTimeoutError::Timeout) => {}
                _ => return, // the attempt ended
            }
            let now = started.elapsed().as_millis() as u64;
            if now.saturating_sub(t_last.load(Ordering::SeqCst)) >= idle.as_millis() as u64 {
                t_stalled.store(true, Ordering::SeqCst);
                t_token.cancel();
                return;
            }
        });
        Watchdog {
            token,
            started,
            last,
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

    /// Whether the watchdog cancelled the attempt because nothing arrived.
    pub fn stalled(&self) -> bool {
        self.stalled.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_cancels_and_progress_or_the_parent_behave() {
        let parent = CancelToken::new();
        let dog = Watchdog::start(&parent, Duration::from_millis(60));
        for _ in 0..5 {
            std::thread::sleep(Duration::from_millis(20));
            dog.progress();
        }
        assert!(!dog.token().is_cancelled(), "progress keeps it alive");
        let deadline = Instant::now() + Duration::from_secs(5);
        while !dog.token().is_cancelled() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(dog.stalled() && dog.token().is_cancelled());
        assert!(
            !parent.is_cancelled(),
            "a stall does not cancel the user's token"
        );

        let dog = Watchdog::start(&parent, Duration::from_secs(60));
        parent.cancel();
        assert!(dog.token().is_cancelled() && !dog.stalled());
    }
}
