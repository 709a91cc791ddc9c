//! An answer's body turned into the message ([`EventStream`]): bytes through
//! the SSE decoder, events through the API's [`StreamDecoder`] into the
//! [`MessageBuilder`], noticing on the way what an attempt must act on: model
//! output (the watchdog's second clock), the API's terminal event, an event that
//! never completes, and a body that was no event stream at all.

use crate::builder::MessageBuilder;
use crate::decode::StreamDecoder;
use crate::watchdog::Watchdog;
use focus_transport::sse::{SseDecoder, SseEvent};

/// The largest single server-sent event accepted (an inline image is a few MiB).
pub const MAX_EVENT_BYTES: usize = 64 << 20;

/// How much of the body's start is kept, to quote a body that was no event
/// stream.
const HEAD_BYTES: usize = 2048;

/// The state of reading one body.
pub(super) struct EventStream {
    sse: SseDecoder,
    events: Vec<SseEvent>,
    /// The start of the body and whether any event came out of it: a server
    /// that answers 200 with plain JSON (a misconfigured proxy, an error page)
    /// is reported with what it said.
    head: Vec<u8>,
    any_event: bool,
    /// Bytes read since the last complete event: the SSE decoder buffers an
    /// unfinished event, so a server streaming one endless line would otherwise
    /// grow memory until the process dies.
    since_event: usize,
    /// Events the message got so far: more means model output.
    emitted: usize,
}

/// What one piece of the body led to.
pub(super) enum Fed {
    /// Read on.
    More,
    /// The API's terminal event came: stop reading (dropping the body ends
    /// curl) whatever the server does next.
    Done,
    /// More than [`MAX_EVENT_BYTES`] arrived without completing an event; the
    /// message says so.
    Overlong(String),
}

impl EventStream {
    /// Nothing read yet.
    pub(super) fn new() -> EventStream {
        EventStream {
            sse: SseDecoder::new(),
            events: Vec::new(),
            head: Vec::new(),
            any_event: false,
            since_event: 0,
            emitted: 0,
        }
    }

    /// Feeds `bytes`, the next piece of the body: its events go to `decoder`
    /// (until it is done), which builds the message in `builder`; new model
    /// output restarts `watchdog`'s output clock.
    pub(super) fn feed(
        &mut self,
        bytes: &[u8],
        decoder: &mut dyn StreamDecoder,
        builder: &mut MessageBuilder<'_, '_>,
        watchdog: &Watchdog,
    ) -> Fed {
        if self.head.len() < HEAD_BYTES {
            self.head
                .extend_from_slice(&bytes[..bytes.len().min(HEAD_BYTES - self.head.len())]);
        }
        self.sse.feed(bytes, &mut self.events);
        self.any_event |= !self.events.is_empty();
        self.since_event = if self.events.is_empty() {
            self.since_event + bytes.len()
        } else {
            0
        };
        self.dispatch(decoder, builder);
        if builder.events_emitted() > self.emitted {
            self.emitted = builder.events_emitted();
            watchdog.output();
        }
        if decoder.is_done() {
            return Fed::Done;
        }
        if self.since_event > MAX_EVENT_BYTES {
            return Fed::Overlong(format!(
                "the server sent more than {} MiB without completing an event",
                MAX_EVENT_BYTES >> 20
            ));
        }
        Fed::More
    }

    /// The body has ended: an event it left unfinished goes to `decoder` too
    /// (unless the decoder is done already).
    pub(super) fn flush(
        &mut self,
        decoder: &mut dyn StreamDecoder,
        builder: &mut MessageBuilder<'_, '_>,
    ) {
        if !decoder.is_done() {
            self.sse.finish(&mut self.events);
        }
        self.any_event |= !self.events.is_empty();
        self.dispatch(decoder, builder);
    }

    /// When the body held no event but some text: that text, to quote.
    pub(super) fn not_an_event_stream(&self) -> Option<&[u8]> {
        (!self.any_event && !self.head.iter().all(u8::is_ascii_whitespace)).then_some(&self.head)
    }

    /// Hands the events decoded so far to `decoder`, while it is not done.
    fn dispatch(&mut self, decoder: &mut dyn StreamDecoder, builder: &mut MessageBuilder<'_, '_>) {
        for event in self.events.drain(..) {
            if !decoder.is_done() {
                decoder.on_event(&event, builder);
            }
        }
    }
}
