//! Server-sent events framing (WHATWG "Interpreting an event stream") over raw bytes.
//!
//! PROVISIONAL: a first working version; the full conformance-checked decoder
//! replaces it (issue 3).

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

/// An incremental decoder: feed bytes in any chunking, collect events.
#[derive(Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: String,
    event: String,
    last_id: String,
    retry: Option<u64>,
    has_data: bool,
    after_cr: bool,
    started: bool,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// Decodes `bytes`, appending every event they complete to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        for &b in bytes {
            if self.after_cr && b == b'\n' {
                self.after_cr = false;
                continue;
            }
            self.after_cr = false;
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.process_line(&line, out);
                }
                _ => self.line.push(b),
            }
        }
    }

    /// Ends the stream. An event not closed by a blank line is discarded, as the
    /// standard says.
    pub fn finish(&mut self, _out: &mut Vec<SseEvent>) {
        self.line.clear();
        self.data.clear();
        self.event.clear();
        self.has_data = false;
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        let mut line = line;
        if !self.started {
            self.started = true;
            if line.starts_with(&[0xEF, 0xBB, 0xBF]) {
                line = &line[3..];
            }
        }
        if line.is_empty() {
            if self.has_data {
                let mut data = std::mem::take(&mut self.data);
                if data.ends_with('\n') {
                    data.pop();
                }
                out.push(SseEvent {
                    event: std::mem::take(&mut self.event),
                    data,
                    id: self.last_id.clone(),
                    retry: self.retry,
                });
            }
            self.event.clear();
            self.data.clear();
            self.has_data = false;
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &[][..]),
        };
        let value = String::from_utf8_lossy(value);
        match name {
            b"event" => self.event = value.into_owned(),
            b"data" => {
                self.data.push_str(&value);
                self.data.push('\n');
                self.has_data = true;
            }
            b"id" if !value.contains('\0') => self.last_id = value.into_owned(),
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok();
            }
            _ => {}
        }
    }
}
