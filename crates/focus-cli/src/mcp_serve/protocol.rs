//! What every file of the server shares about MCP's messages, below all of
//! them: the size limit, the protocol versions, where a request's
//! notifications go ([`Outbox`]), and a message that could not be read. It
//! imports no file of the server, so the transports ([`super::stdio`],
//! [`super::http`]), the calls ([`super::progress`]) and the
//! [`Service`](super::service::Service) all stand on it without reaching back
//! into `mod.rs` or into each other.

use focus_core::json::Value;

/// The longest message accepted, in bytes: a longer one is refused with a
/// JSON-RPC error, read past without being held.
pub const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// The protocol versions served, newest first: a client asking for one of
/// them gets it, any other client the newest (MCP's version negotiation).
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC's code for a request the client cancelled (LSP's, which MCP's
/// SDKs use too).
pub const REQUEST_CANCELLED: i64 = -32800;

/// Where a request's notifications go while it runs (progress): the stdio
/// writer, or the request's own event stream over HTTP.
pub trait Outbox: Sync {
    /// Sends one notification to the client that made the request.
    fn notify(&self, message: Value);
}

/// An outbox that drops everything (an HTTP request answered with plain JSON).
pub struct NoOutbox;

impl Outbox for NoOutbox {
    fn notify(&self, _message: Value) {}
}

/// A message that could not be read.
pub enum Unreadable {
    /// Not JSON; the parser's words.
    NotJson(String),
    /// Longer than [`MAX_MESSAGE`]; its length.
    TooLong(u64),
}
