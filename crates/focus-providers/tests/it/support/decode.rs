//! A recorded or hostile body decoded in pieces, and the event protocol every
//! decode must keep, whatever the body: the conformance tests and the hostile
//! stream tests both check it.

use focus_core::message::AssistantMessage;
use focus_core::provider::StreamEvent;
use focus_providers::decode_body;

/// What one decode produced.
pub struct Decoded {
    /// The finished message.
    pub message: AssistantMessage,
    /// Every event, in order.
    pub events: Vec<StreamEvent>,
    /// How many content blocks the partial message had at the last event.
    pub last_partial_len: usize,
}

/// Decodes `body` as `api` sends it, split at `cuts` (sorted offsets).
pub fn decode_in_pieces(api: &str, body: &[u8], cuts: &[usize]) -> Decoded {
    let mut chunks = Vec::new();
    let mut start = 0;
    for &c in cuts {
        chunks.push(&body[start..c]);
        start = c;
    }
    chunks.push(&body[start..]);
    let mut events: Vec<StreamEvent> = Vec::new();
    let mut last_partial_len = 0;
    let mut sink = |e: &StreamEvent, m: &AssistantMessage| {
        last_partial_len = m.content.len();
        events.push(e.clone());
    };
    let message = decode_body(api, &chunks, &mut sink).unwrap();
    Decoded {
        message,
        events,
        last_partial_len,
    }
}

/// The event protocol: `Start` first; exactly one terminal event (`Done` or
/// `Error`), and last; every block of `message` started once, its deltas
/// inside, ended once. `what` names the case in a failure.
pub fn check_protocol(what: &str, events: &[StreamEvent], message: &AssistantMessage) {
    assert_eq!(
        events.first(),
        Some(&StreamEvent::Start),
        "{what}: Start first"
    );
    let terminal = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Done { .. } | StreamEvent::Error { .. }))
        .count();
    assert_eq!(terminal, 1, "{what}: exactly one terminal event");
    assert!(
        matches!(
            events.last(),
            Some(StreamEvent::Done { .. } | StreamEvent::Error { .. })
        ),
        "{what}: the terminal event comes last"
    );
    let mut open = vec![0u8; message.content.len()]; // 0 unseen, 1 open, 2 closed
    for e in events {
        let (index, phase) = match e {
            StreamEvent::TextStart { index }
            | StreamEvent::ThinkingStart { index }
            | StreamEvent::ToolCallStart { index } => (*index, 0),
            StreamEvent::TextDelta { index, .. }
            | StreamEvent::ThinkingDelta { index, .. }
            | StreamEvent::ToolCallDelta { index, .. } => (*index, 1),
            StreamEvent::TextEnd { index }
            | StreamEvent::ThinkingEnd { index }
            | StreamEvent::ToolCallEnd { index } => (*index, 2),
            _ => continue,
        };
        assert!(
            index < open.len(),
            "{what}: event for block {index} beyond the message"
        );
        match phase {
            0 => assert_eq!(
                std::mem::replace(&mut open[index], 1),
                0,
                "{what}: block {index} started twice"
            ),
            1 => assert_eq!(open[index], 1, "{what}: delta outside block {index}"),
            _ => assert_eq!(
                std::mem::replace(&mut open[index], 2),
                1,
                "{what}: block {index} ended while not open"
            ),
        }
    }
    assert!(
        open.iter().all(|&s| s == 2),
        "{what}: every block closed: {open:?}"
    );
}
