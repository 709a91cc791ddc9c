//! A scripted mock LLM server for all four wire APIs, for end-to-end tests and
//! benchmarks that must not touch the internet.
//!
//! A [`Scenario`] (read from a JSON file in `fixtures/scenarios/`) lists what the
//! "model" does on each request: stream a reply (thinking, text, tool calls), fail
//! with an HTTP status, or cut the stream short. [`encode`] turns one reply into the
//! exact server-sent events each provider sends, so the real decoders of
//! focus-providers are exercised over the real curl path.
//!
//! The real `focus` binary never links it: the CLI's end-to-end and terminal
//! tests start it in the test process and point `focus` at its URL.

pub mod encode;
pub mod scenario;
pub mod server;

pub use encode::{encode_reply, Api};
pub use scenario::{Reply, Scenario, Step, ToolCallSpec};
pub use server::MockLlm;
