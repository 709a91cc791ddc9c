//! The channel a run's events travel on: bounded, and waking its reader in
//! batches.
//!
//! A streamed answer is tens of thousands of small events, produced in bursts (one
//! read from the network decodes a hundred deltas). A plain channel wakes the
//! reading thread for every one of them, and on a busy machine those wake-ups cost
//! more than the work. Here the writer wakes the reader only for an event that
//! changes the run's shape (anything but a delta) or once [`WAKE_BATCH`] deltas
//! wait; a reader with nothing to do looks again after at most [`BATCH_WAIT`], so
//! a lone delta is seen within a few milliseconds. Order is never changed and
//! nothing is merged.
//!
//! Bounded: when the reader falls [`EVENT_QUEUE_CAPACITY`](super::EVENT_QUEUE_CAPACITY)
//! events behind, the writer waits, and with it the model's stream (in curl's buffer
//! and the socket), so memory stays flat whatever the stream's length. A reader
//! that went away is not waited for: the writer's events are then dropped.
//!
//! The queue carries any [`Batched`] item: a run's [`AgentEvent`]s, or what a
//! front end follows a whole conversation by (the harness's own event type,
//! which wraps them).

use std::collections::VecDeque;
use std::sync::mpsc::{RecvError, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::event::AgentEvent;

/// How many deltas wait before the writer wakes the reader.
pub const WAKE_BATCH: usize = 64;

/// The longest a waiting reader sleeps before it looks for deltas that did not
/// wake it.
pub const BATCH_WAIT: Duration = Duration::from_millis(4);

/// What the queue needs to know of an item: whether it is a streamed delta,
/// which may wait for others before the reader is woken.
pub trait Batched {
    /// Whether this item is a delta (anything else wakes the reader at once).
    fn is_delta(&self) -> bool;
}

impl Batched for AgentEvent {
    fn is_delta(&self) -> bool {
        AgentEvent::is_delta(self)
    }
}

/// A queue of events with room for `capacity` (at least 1).
pub fn event_queue<T: Batched>(capacity: usize) -> (EventSender<T>, EventReceiver<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            events: VecDeque::new(),
            senders: 1,
            receiver_alive: true,
            receiver_waiting: false,
            sender_waiting: false,
        }),
        not_empty: Condvar::new(),
        not_full: Condvar::new(),
        capacity: capacity.max(1),
    });
    (
        EventSender {
            shared: shared.clone(),
        },
        EventReceiver { shared },
    )
}

struct Shared<T> {
    state: Mutex<State<T>>,
    not_empty: Condvar,
    not_full: Condvar,
    capacity: usize,
}

struct State<T> {
    events: VecDeque<T>,
    senders: usize,
    receiver_alive: bool,
    receiver_waiting: bool,
    sender_waiting: bool,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // Every change under this lock is a single push, pop or flag write, so a
        // panic elsewhere cannot leave the state half-changed.
        crate::sync::lock(&self.state)
    }
}

/// The error of [`EventSender::send`]: the reading end was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReaderGone;

/// The writing end (cloneable: tool threads write too).
pub struct EventSender<T = AgentEvent> {
    shared: Arc<Shared<T>>,
}

/// The reading end.
pub struct EventReceiver<T = AgentEvent> {
    shared: Arc<Shared<T>>,
}

impl<T: Batched> EventSender<T> {
    /// Queues `event`, waiting while the queue is full. Fails (dropping the event)
    /// when the reader is gone.
    ///
    /// # Errors
    ///
    /// [`ReaderGone`] when the receiving side was dropped; the event is dropped with it.
    pub fn send(&self, event: T) -> Result<(), ReaderGone> {
        let shared = &*self.shared;
        let mut state = shared.lock();
        while state.events.len() >= shared.capacity && state.receiver_alive {
            state.sender_waiting = true;
            state = shared
                .not_full
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        if !state.receiver_alive {
            return Err(ReaderGone);
        }
        let urgent = !event.is_delta();
        state.events.push_back(event);
        if state.receiver_waiting && (urgent || state.events.len() >= WAKE_BATCH) {
            shared.not_empty.notify_one();
        }
        Ok(())
    }
}

impl<T: Batched> EventSender<T> {
    /// Queues a few events at once, so that a reader sees all of them or none
    /// (the end of a run with what follows it); waits while the queue is full,
    /// then may pass its capacity by their number. Fails when the reader is gone.
    ///
    /// # Errors
    ///
    /// [`ReaderGone`] when the receiving side was dropped; the events are dropped with it.
    pub fn send_all(&self, events: impl IntoIterator<Item = T>) -> Result<(), ReaderGone> {
        let shared = &*self.shared;
        let mut state = shared.lock();
        while state.events.len() >= shared.capacity && state.receiver_alive {
            state.sender_waiting = true;
            state = shared
                .not_full
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        if !state.receiver_alive {
            return Err(ReaderGone);
        }
        state.events.extend(events);
        if state.receiver_waiting {
            shared.not_empty.notify_one();
        }
        Ok(())
    }
}

impl<T> Clone for EventSender<T> {
    fn clone(&self) -> EventSender<T> {
        self.shared.lock().senders += 1;
        EventSender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for EventSender<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.senders -= 1;
        if state.senders == 0 {
            self.shared.not_empty.notify_all();
        }
    }
}

impl<T> EventReceiver<T> {
    /// The next event, waiting for it; an error once every sender is gone and the
    /// queue is empty.
    ///
    /// # Errors
    ///
    /// `RecvError` once every sender is gone and nothing is left to read.
    pub fn recv(&self) -> Result<T, RecvError> {
        self.next(None).map_err(|_| RecvError)
    }

    /// The next event, waiting at most `timeout`.
    ///
    /// # Errors
    ///
    /// `Timeout` when nothing arrived within `timeout`; `Disconnected` once every sender is gone
    /// and the queue is empty.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        self.next(Some(Instant::now() + timeout))
    }

    /// The next event if one is queued.
    ///
    /// # Errors
    ///
    /// `Empty` when nothing is queued now; `Disconnected` once every sender is gone and the queue
    /// is empty.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        let mut state = self.shared.lock();
        match self.pop(&mut state) {
            Some(event) => Ok(event),
            None if state.senders == 0 => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }

    /// Takes every queued event at once, under one lock and without copying
    /// one: the queue's storage is handed over whole and `spare` (emptied)
    /// becomes the queue's. A reader that gives its spent buffers back here
    /// keeps a stream of any length in a few buffers (focus-harness's
    /// `Conversation::poll` does).
    pub fn take_all(&self, mut spare: VecDeque<T>) -> VecDeque<T> {
        spare.clear();
        let mut state = self.shared.lock();
        let taken = std::mem::replace(&mut state.events, spare);
        if !taken.is_empty() && state.sender_waiting {
            state.sender_waiting = false;
            self.shared.not_full.notify_all();
        }
        taken
    }

    /// The events queued now, without waiting.
    pub fn try_iter(&self) -> impl Iterator<Item = T> + '_ {
        std::iter::from_fn(|| self.try_recv().ok())
    }

    /// Every event until the senders are gone.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        std::iter::from_fn(|| self.recv().ok())
    }

    fn next(&self, deadline: Option<Instant>) -> Result<T, RecvTimeoutError> {
        let shared = &*self.shared;
        let mut state = shared.lock();
        loop {
            if let Some(event) = self.pop(&mut state) {
                return Ok(event);
            }
            if state.senders == 0 {
                return Err(RecvTimeoutError::Disconnected);
            }
            let now = Instant::now();
            let wait = match deadline {
                Some(deadline) if deadline <= now => return Err(RecvTimeoutError::Timeout),
                Some(deadline) => (deadline - now).min(BATCH_WAIT),
                None => BATCH_WAIT,
            };
            state.receiver_waiting = true;
            state = shared
                .not_empty
                .wait_timeout(state, wait)
                .map(|(state, _)| state)
                .unwrap_or_else(|e| e.into_inner().0);
            state.receiver_waiting = false;
        }
    }

    fn pop(&self, state: &mut State<T>) -> Option<T> {
        let event = state.events.pop_front()?;
        if state.sender_waiting {
            state.sender_waiting = false;
            self.shared.not_full.notify_all();
        }
        Some(event)
    }
}

impl<T> Drop for EventReceiver<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.receiver_alive = false;
        state.events.clear();
        self.shared.not_full.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::StreamEvent;

    fn delta(i: usize) -> AgentEvent {
        AgentEvent::MessageUpdate {
            event: StreamEvent::TextDelta {
                index: 0,
                delta: i.to_string(),
            },
            block: None,
        }
    }

    #[test]
    fn events_arrive_in_order_and_the_end_is_seen() {
        let (tx, rx) = event_queue(8);
        let writer = std::thread::spawn(move || {
            for i in 0..1000 {
                tx.send(delta(i)).unwrap();
            }
            tx.send(AgentEvent::TurnStart).unwrap();
        });
        let got: Vec<AgentEvent> = rx.iter().collect();
        writer.join().unwrap();
        assert_eq!(got.len(), 1001);
        for (i, event) in got.iter().take(1000).enumerate() {
            assert_eq!(event, &delta(i));
        }
        assert_eq!(got[1000], AgentEvent::TurnStart);
    }

    #[test]
    fn all_events_are_taken_at_once_in_order_and_free_a_waiting_writer() {
        let (tx, rx) = event_queue(4);
        let writer = std::thread::spawn(move || {
            for i in 0..100 {
                tx.send(delta(i)).unwrap();
            }
        });
        let mut got = Vec::new();
        let mut spare = VecDeque::with_capacity(8);
        while got.len() < 100 {
            let mut taken = rx.take_all(spare);
            // The writer waits on a full queue of 4: no batch is larger.
            assert!(taken.len() <= 4, "{}", taken.len());
            if taken.is_empty() {
                std::thread::yield_now();
            }
            got.extend(taken.drain(..));
            spare = taken;
        }
        writer.join().unwrap();
        assert_eq!(got, (0..100).map(delta).collect::<Vec<_>>());
        assert!(rx.take_all(spare).is_empty());
    }

    #[test]
    fn the_spare_buffer_becomes_the_queue() {
        let (tx, rx) = event_queue(16);
        tx.send(delta(1)).unwrap();
        let mut spare = VecDeque::with_capacity(64);
        spare.push_back(delta(0));
        let taken = rx.take_all(spare);
        assert_eq!(taken, [delta(1)]);
        tx.send(delta(2)).unwrap();
        // The spare was emptied before it became the queue, and kept its room.
        let next = rx.take_all(VecDeque::new());
        assert_eq!(next, [delta(2)]);
        assert!(next.capacity() >= 64);
    }

    #[test]
    fn events_sent_together_are_taken_together() {
        let (tx, rx) = event_queue(2);
        tx.send(delta(0)).unwrap();
        tx.send_all([delta(1), AgentEvent::TurnStart, delta(2)])
            .unwrap();
        let taken = rx.take_all(VecDeque::new());
        assert_eq!(taken, [delta(0), delta(1), AgentEvent::TurnStart, delta(2)]);
        drop(rx);
        assert_eq!(tx.send_all([delta(3)]), Err(ReaderGone));
    }

    #[test]
    fn a_full_queue_holds_the_writer_back() {
        let (tx, rx) = event_queue(4);
        let writer = std::thread::spawn(move || {
            for i in 0..100 {
                tx.send(delta(i)).unwrap();
            }
        });
        // The writer can be at most 4 events ahead however long we wait.
        let mut seen = 0;
        while seen < 100 {
            {
                let state = rx.shared.lock();
                assert!(state.events.len() <= 4);
            }
            if rx.recv().is_ok() {
                seen += 1;
            }
        }
        writer.join().unwrap();
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    }

    #[test]
    fn a_lone_delta_is_seen_without_a_wake_up_and_a_gone_reader_is_not_waited_for() {
        let (tx, rx) = event_queue(2);
        tx.send(delta(1)).unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(delta(1)));
        assert_eq!(
            rx.recv_timeout(Duration::from_millis(1)),
            Err(RecvTimeoutError::Timeout)
        );
        drop(rx);
        for i in 0..10 {
            assert!(tx.send(delta(i)).is_err(), "the writer never blocks");
        }
    }
}
