//! The seam between raw server-sent events and [`MessageBuilder`]: the
//! [`StreamDecoder`] trait each API implements, and [`decode_body`], which runs a
//! whole recorded body through the SSE framing and a decoder (used by the replay
//! example, the conformance tests and the benchmark).

use crate::builder::MessageBuilder;
use focus_core::json::{parse_str, Value};
use focus_core::message::AssistantMessage;
use focus_core::provider::StreamSink;
use focus_transport::sse::{SseDecoder, SseEvent};

/// A pure state machine turning one API's SSE events into builder calls.
pub trait StreamDecoder {
    /// Handles one dispatched SSE event.
    fn on_event(&mut self, event: &SseEvent, out: &mut MessageBuilder<'_, '_>);
    /// The body has ended. Decoders check here that the API's own end marker was
    /// seen, and report a stream cut short otherwise.
    fn on_end(&mut self, out: &mut MessageBuilder<'_, '_>);
    /// Whether the API's terminal event has been seen (`message_stop`, `[DONE]`,
    /// `response.completed`). Nothing after it belongs to the answer: the reader
    /// stops there, so data a server sends after it is not appended and a server
    /// that keeps the connection open does not hold focus. Gemini has no such
    /// event (its stream ends when the connection does), so the default is `false`.
    fn is_done(&self) -> bool {
        false
    }
}

/// The decoder for a wire API name, or `None` for an unknown one.
pub fn decoder_for(api: &str) -> Option<Box<dyn StreamDecoder + Send>> {
    Some(match api {
        crate::anthropic::API => Box::new(crate::anthropic::Decoder::default()),
        crate::openai_completions::API => Box::new(crate::openai_completions::Decoder::default()),
        crate::openai_responses::API => Box::new(crate::openai_responses::Decoder::default()),
        crate::google::API => Box::new(crate::google::Decoder::default()),
        _ => return None,
    })
}

/// The wire API names focus speaks.
pub const APIS: [&str; 4] = [
    crate::anthropic::API,
    crate::openai_completions::API,
    crate::openai_responses::API,
    crate::google::API,
];

/// Decodes a complete response body of `api`, fed to the SSE decoder in the given
/// `chunks` (split points), and returns the final message. `None` for an unknown API.
pub fn decode_body(
    api: &str,
    chunks: &[&[u8]],
    sink: &mut StreamSink<'_>,
) -> Option<AssistantMessage> {
    let mut decoder = decoder_for(api)?;
    let mut builder = MessageBuilder::new(api, "", "", sink);
    let mut sse = SseDecoder::new();
    let mut events = Vec::new();
    for chunk in chunks {
        sse.feed(chunk, &mut events);
        for event in events.drain(..) {
            if !decoder.is_done() {
                decoder.on_event(&event, &mut builder);
            }
        }
    }
    sse.finish(&mut events);
    for event in events.drain(..) {
        if !decoder.is_done() {
            decoder.on_event(&event, &mut builder);
        }
    }
    decoder.on_end(&mut builder);
    Some(builder.finish())
}

/// Parses an event's data as JSON. Data that is not JSON yields an error message
/// naming the event, so a broken server is reported rather than silently skipped.
pub(crate) fn event_json(event: &SseEvent) -> Result<Value, String> {
    parse_str(&event.data).map_err(|e| {
        let mut shown: String = event.data.chars().take(120).collect();
        if shown.len() < event.data.len() {
            shown.push('…');
        }
        format!("the server sent an event that is not JSON ({e}): {shown}")
    })
}

/// A JSON number field as `u64` (0 when absent or not a count).
pub(crate) fn count(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}
