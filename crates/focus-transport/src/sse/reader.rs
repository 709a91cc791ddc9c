//! [`EventReader`]: server-sent events pulled one at a time from any `Read`.

use super::{SseDecoder, SseEvent};
use std::collections::VecDeque;
use std::io::{self, Read};

/// How many bytes one `read` asks for.
const READ_SIZE: usize = 16 * 1024;

/// Reads a byte stream (an HTTP response body, a file) and yields its events.
///
/// Each [`EventReader::next_event`] returns as soon as an event is complete, so a
/// caller sees events while the stream is still arriving. At the end of the source,
/// the stream is finished as the standard says (an unterminated block is dropped)
/// and `Ok(None)` is returned. Read errors (such as a body cut short) are passed
/// through unchanged.
#[derive(Debug)]
pub struct EventReader<R> {
    source: R,
    decoder: SseDecoder,
    ready: VecDeque<SseEvent>,
    scratch: Vec<SseEvent>,
    buffer: Vec<u8>,
    ended: bool,
}

impl<R: Read> EventReader<R> {
    /// Reads events from `source`.
    pub fn new(source: R) -> EventReader<R> {
        EventReader {
            source,
            decoder: SseDecoder::new(),
            ready: VecDeque::new(),
            scratch: Vec::new(),
            buffer: vec![0; READ_SIZE],
            ended: false,
        }
    }

    /// The next event, `Ok(None)` at the end of the stream.
    ///
    /// # Errors
    ///
    /// What reading the underlying stream fails with (a cut connection, a timeout).
    pub fn next_event(&mut self) -> io::Result<Option<SseEvent>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            if self.ended {
                return Ok(None);
            }
            let n = match self.source.read(&mut self.buffer) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                self.ended = true;
                self.decoder.finish(&mut self.scratch);
            } else {
                self.decoder.feed(&self.buffer[..n], &mut self.scratch);
            }
            self.ready.extend(self.scratch.drain(..));
        }
    }

    /// The last event ID the stream set so far (`""` when none).
    pub fn last_event_id(&self) -> &str {
        self.decoder.last_event_id()
    }

    /// Gives the source back.
    pub fn into_inner(self) -> R {
        self.source
    }
}

impl<R: Read> Iterator for EventReader<R> {
    type Item = io::Result<SseEvent>;

    fn next(&mut self) -> Option<io::Result<SseEvent>> {
        self.next_event().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out its bytes a few at a time, then fails or ends.
    struct Trickle {
        bytes: Vec<u8>,
        at: usize,
        fail_at_end: bool,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.at == self.bytes.len() {
                return if self.fail_at_end {
                    Err(io::Error::new(io::ErrorKind::UnexpectedEof, "cut"))
                } else {
                    Ok(0)
                };
            }
            let n = 3.min(buf.len()).min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn yields_events_then_none() {
        let source = Trickle {
            bytes: b"event: a\ndata: 1\n\ndata: 2\n\ndata: dropped".to_vec(),
            at: 0,
            fail_at_end: false,
        };
        let events: Vec<SseEvent> = EventReader::new(source).map(Result::unwrap).collect();
        assert_eq!(events.len(), 2);
        assert_eq!(
            (events[0].event.as_str(), events[0].data.as_str()),
            ("a", "1")
        );
        assert_eq!(events[1].data, "2");
    }

    #[test]
    fn passes_read_errors_through_after_the_complete_events() {
        let source = Trickle {
            bytes: b"data: 1\n\ndata: 2".to_vec(),
            at: 0,
            fail_at_end: true,
        };
        let mut reader = EventReader::new(source);
        assert_eq!(reader.next_event().unwrap().unwrap().data, "1");
        let error = reader.next_event().unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }
}
