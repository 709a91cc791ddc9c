//! Server-sent events framing over raw bytes, following the WHATWG HTML standard,
//! "Interpreting an event stream", exactly.
//!
//! [`SseDecoder`] is incremental: bytes go in through [`SseDecoder::feed`] in any
//! chunking (a TCP read, one byte, a whole file) and complete events come out; the
//! result never depends on where the chunks were cut. [`SseDecoder::finish`] says
//! the stream ended. [`EventReader`] wraps any `Read` (such as an HTTP response
//! body) and yields one event at a time.
//!
//! The traps, and where each is handled:
//!
//! * Lines end in LF, CRLF or a lone CR; a CR ends its line at once (the event may
//!   be dispatched without waiting for more input) and an LF right after it — even
//!   in the next chunk — is skipped ([`SseDecoder::feed`], `after_cr`).
//! * A UTF-8 BOM is stripped only at the very start of the stream, even when its
//!   three bytes arrive in separate chunks ([`SseDecoder::feed`], `bom_matched`).
//! * Bytes are decoded as UTF-8 only once a line is whole, so a character split
//!   across chunks survives; invalid bytes become U+FFFD (`SseDecoder::dispatch`).
//! * A line starting with `:` is a comment; a line without a colon is a field with
//!   an empty value; exactly one space after the colon is dropped
//!   (`SseDecoder::process_line`).
//! * An `id` containing NUL is ignored; `retry` must be ASCII digits only.
//! * A blank line dispatches the event, unless no `data` field was seen; a block
//!   left open at end of stream is dropped ([`SseDecoder::finish`]).
//!
//! Cost: every byte is looked at a constant number of times. A line is only copied
//! when it spans two chunks; otherwise it is processed in place.

mod line_scan;
mod reader;

pub use reader::EventReader;

use line_scan::find_line_end;

/// The UTF-8 encoding of U+FEFF, the byte order mark.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The event type; empty when the stream gave none (a browser would say `message`).
    pub event: String,
    /// The data lines joined with `\n`.
    pub data: String,
    /// The last event ID in effect at dispatch (`""` when never set).
    pub id: String,
    /// The reconnection time in effect, in milliseconds, if any was set.
    pub retry: Option<u64>,
}

impl focus_core::json::ToJson for SseEvent {
    /// `{"event":…,"data":…,"id":…,"retry":…}` with the meanings of the SSE
    /// conformance files: `event` is null when empty (a browser says `message`),
    /// `id` is the last event ID, `retry` the reconnection time in effect or null.
    fn to_json(&self) -> focus_core::json::Value {
        use focus_core::json::Value;
        let event = if self.event.is_empty() {
            Value::Null
        } else {
            Value::from(self.event.as_str())
        };
        let retry = self.retry.map_or(Value::Null, Value::from);
        focus_core::json_object! {
            "event" => event,
            "data" => self.data.as_str(),
            "id" => self.id.as_str(),
            "retry" => retry,
        }
    }
}

/// An incremental decoder: feed bytes in any chunking, collect events.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The start of a line whose end has not arrived yet (only used when a line
    /// spans chunks).
    partial_line: Vec<u8>,
    /// The previous byte was a CR, so an LF now is the second half of a CRLF.
    after_cr: bool,
    /// How many bytes of a leading BOM have been matched (and held back) while the
    /// start of the stream is still undecided.
    bom_matched: usize,
    /// Whether the start of the stream has been decided (BOM stripped or absent).
    bom_checked: bool,
    /// The data buffer: every `data` value followed by LF, raw bytes.
    data: Vec<u8>,
    /// The event type buffer, raw bytes.
    event: Vec<u8>,
    /// The last event ID.
    last_id: String,
    /// The reconnection time, once a valid `retry` field was seen.
    retry: Option<u64>,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// Decodes a whole stream at once: feeds `bytes`, then ends the stream.
    pub fn decode_all(bytes: &[u8]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        decoder.feed(bytes, &mut events);
        decoder.finish(&mut events);
        events
    }

    /// Decodes `bytes`, appending every event they complete to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        let mut rest = self.skip_bom(bytes);
        while !rest.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if rest[0] == b'\n' {
                    rest = &rest[1..];
                    continue;
                }
            }
            let Some(end) = find_line_end(rest) else {
                self.partial_line.extend_from_slice(rest);
                return;
            };
            self.after_cr = rest[end] == b'\r';
            if self.partial_line.is_empty() {
                self.process_line(&rest[..end], out);
            } else {
                let mut line = std::mem::take(&mut self.partial_line);
                line.extend_from_slice(&rest[..end]);
                self.process_line(&line, out);
                // Hand the allocation back for the next line that spans chunks.
                line.clear();
                self.partial_line = line;
            }
            rest = &rest[end + 1..];
        }
    }

    /// Ends the stream. An event not closed by a blank line is discarded (and so is
    /// a final line without a terminator), as the standard says.
    ///
    /// The decoder is then ready for a new stream (a reconnection): the last event
    /// ID and the reconnection time are kept, as a browser keeps them.
    pub fn finish(&mut self, _out: &mut Vec<SseEvent>) {
        self.partial_line.clear();
        self.data.clear();
        self.event.clear();
        self.after_cr = false;
        self.bom_matched = 0;
        self.bom_checked = false;
    }

    /// The last event ID seen so far (`""` when none).
    pub fn last_event_id(&self) -> &str {
        &self.last_id
    }

    /// The reconnection time (ms) set by the stream, if any.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Consumes the bytes of a leading BOM at the start of the stream, however the
    /// stream is chunked. Returns the part of `bytes` still to be decoded.
    fn skip_bom<'a>(&mut self, bytes: &'a [u8]) -> &'a [u8] {
        if self.bom_checked {
            return bytes;
        }
        let mut matched = self.bom_matched;
        let mut taken = 0;
        while matched < BOM.len() && taken < bytes.len() && bytes[taken] == BOM[matched] {
            matched += 1;
            taken += 1;
        }
        if matched == BOM.len() {
            self.bom_checked = true;
            return &bytes[taken..];
        }
        if taken == bytes.len() {
            // Still a possible BOM prefix: hold it back and wait for more bytes.
            self.bom_matched = matched;
            return &[];
        }
        // Not a BOM after all: the bytes held back from earlier chunks are ordinary
        // line content (those from this chunk are still in `bytes`).
        self.bom_checked = true;
        self.partial_line.extend_from_slice(&BOM[..matched - taken]);
        bytes
    }

    /// Interprets one complete line (without its terminator).
    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return, // a comment
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match name {
            b"data" => {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => {
                self.event.clear();
                self.event.extend_from_slice(value);
            }
            // An id containing NUL is ignored, keeping the previous one.
            b"id" if !value.contains(&0) => self.last_id = utf8(value),
            // retry must be ASCII digits only; anything else is ignored.
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                self.retry = Some(parse_digits(value));
            }
            _ => {} // unknown fields are ignored
        }
    }

    /// Handles a blank line: dispatches the pending event if it has data, and
    /// resets the buffers either way.
    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if self.data.is_empty() {
            self.event.clear();
            return;
        }
        // The data buffer always ends in the LF added after its last line.
        self.data.pop();
        out.push(SseEvent {
            event: utf8(&self.event),
            data: take_utf8(&mut self.data),
            id: self.last_id.clone(),
            retry: self.retry,
        });
        self.event.clear();
    }
}

/// Decodes UTF-8, replacing invalid sequences with U+FFFD.
///
/// Decoding complete lines is the same as decoding the whole stream: CR, LF and the
/// LF joining data lines are ASCII, so they never sit inside a multi-byte character.
fn utf8(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Moves the bytes of `buffer` into a `String` without copying them (when they
/// are valid UTF-8), leaving `buffer` empty with room for a similar event (but
/// not for a giant one: one huge event must not pin its size for the stream).
fn take_utf8(buffer: &mut Vec<u8>) -> String {
    let capacity = buffer.len().min(4096);
    let bytes = std::mem::replace(buffer, Vec::with_capacity(capacity));
    String::from_utf8(bytes)
        .unwrap_or_else(|invalid| String::from_utf8_lossy(invalid.as_bytes()).into_owned())
}

/// The value of a non-empty run of ASCII digits, saturating at `u64::MAX`.
fn parse_digits(digits: &[u8]) -> u64 {
    digits.iter().fold(0u64, |n, &d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        for chunk in chunks {
            decoder.feed(chunk, &mut events);
        }
        decoder.finish(&mut events);
        events
    }

    #[test]
    fn cr_at_chunk_end_dispatches_without_waiting_and_skips_the_next_lf() {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        decoder.feed(b"data: a\r\r", &mut events);
        assert_eq!(events.len(), 1, "the CR must end the blank line at once");
        decoder.feed(b"\ndata: b\n\n", &mut events);
        assert_eq!(events.len(), 2);
        assert_eq!(events[1].data, "b");
    }

    #[test]
    fn bom_split_across_chunks_is_stripped_once() {
        let events = decode_chunks(&[b"\xEF", b"\xBB", b"\xBFdata: x\n\n\xEF\xBB\xBFdata: y\n\n"]);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "x");
    }

    #[test]
    fn partial_bom_is_ordinary_content() {
        // EF BB followed by 'd' is not a BOM: those bytes start the first line, whose
        // name is then unknown.
        let events = decode_chunks(&[b"\xEF\xBB", b"data: x\n\ndata: y\n\n"]);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "y");
    }

    #[test]
    fn multibyte_character_split_across_chunks() {
        let text = "data: h\u{e9}\u{1F600}\n\n".as_bytes();
        let chunks: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(decode_chunks(&chunks)[0].data, "h\u{e9}\u{1F600}");
    }

    #[test]
    fn invalid_utf8_becomes_replacement_character() {
        assert_eq!(
            SseDecoder::decode_all(b"data: a\xFFb\n\n")[0].data,
            "a\u{FFFD}b"
        );
    }

    #[test]
    fn huge_retry_saturates() {
        let events = SseDecoder::decode_all(b"retry: 99999999999999999999999\ndata: x\n\n");
        assert_eq!(events[0].retry, Some(u64::MAX));
    }

    #[test]
    fn open_block_and_unterminated_line_are_dropped_at_finish() {
        assert!(SseDecoder::decode_all(b"data: x\n").is_empty());
        assert!(SseDecoder::decode_all(b"data: x").is_empty());
    }

    #[test]
    fn finish_keeps_last_id_for_a_reconnection() {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        decoder.feed(b"id: 7\ndata: x\n\ndata: lost", &mut events);
        decoder.finish(&mut events);
        decoder.feed(b"\xEF\xBB\xBFdata: y\n\n", &mut events);
        assert_eq!(events.len(), 2);
        assert_eq!(
            events[1].data, "y",
            "a new stream may start with a BOM again"
        );
        assert_eq!(events[1].id, "7");
        assert_eq!(decoder.last_event_id(), "7");
    }
}
