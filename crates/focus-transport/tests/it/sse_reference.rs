//! The incremental decoder against a deliberately naive reference that follows
//! the WHATWG steps literally on the whole input (decode, split lines, process),
//! on thousands of random streams built from the tricky pieces, each fed at
//! random split points.

use focus_testkit::rng::Rng;
use focus_transport::sse::{SseDecoder, SseEvent};

/// The standard's algorithm, written for clarity with no concern for speed.
fn reference(input: &[u8]) -> Vec<SseEvent> {
    let text = String::from_utf8_lossy(input);
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    // Split into lines, remembering whether the last one was terminated.
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                lines.push(std::mem::take(&mut current));
            }
            '\n' => lines.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    // `current` is an unterminated last line: discarded at end of stream.
    let (mut data, mut event_type, mut last_id, mut retry) =
        (String::new(), String::new(), String::new(), None);
    let mut events = Vec::new();
    for line in lines {
        if line.is_empty() {
            if data.is_empty() {
                event_type.clear();
                continue;
            }
            data.pop();
            events.push(SseEvent {
                event: std::mem::take(&mut event_type),
                data: std::mem::take(&mut data),
                id: last_id.clone(),
                retry,
            });
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (name, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line.as_str(), ""),
        };
        match name {
            "data" => {
                data.push_str(value);
                data.push('\n');
            }
            "event" => event_type = value.to_string(),
            "id" if !value.contains('\0') => last_id = value.to_string(),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                retry = value.parse().ok();
            }
            _ => {}
        }
    }
    events
}

const PIECES: &[&[u8]] = &[
    b"data",
    b"data:",
    b"data: ",
    b"data:  two",
    b"data: x",
    b"event: e",
    b"event:",
    b"id: 7",
    b"id:",
    b"id: a\0b",
    b"retry: 15",
    b"retry: 1x",
    b"retry:",
    b": comment",
    b":",
    b" data: sp",
    b"\xEF\xBB\xBF",
    b"\xC3\xA9",
    b"\xF0\x9F\x98\x80",
    b"\xE2\x82",
    b"\xFF",
    b"x",
    b"\0",
    b"\n",
    b"\r",
    b"\r\n",
    b"\n\n",
    b"\r\r",
    b"\r\n\r\n",
];

#[test]
fn random_streams_match_the_reference_at_random_chunkings() {
    let mut rng = Rng::new(0xC0FF_EE00_D15E_A5E5);
    for _ in 0..3000 {
        let mut input = Vec::new();
        for _ in 0..rng.below(40) {
            input.extend_from_slice(PIECES[rng.below(PIECES.len())]);
        }
        let expected = reference(&input);
        for _ in 0..4 {
            let mut decoder = SseDecoder::new();
            let mut got = Vec::new();
            let mut at = 0;
            while at < input.len() {
                let end = (at + 1 + rng.below(6)).min(input.len());
                decoder.feed(&input[at..end], &mut got);
                at = end;
            }
            decoder.finish(&mut got);
            assert_eq!(got, expected, "input {:?}", String::from_utf8_lossy(&input));
        }
    }
}
