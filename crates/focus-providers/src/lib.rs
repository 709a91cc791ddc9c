//! focus-providers: the provider adapters (Anthropic Messages, OpenAI Chat
//! Completions and compatibles, OpenAI Responses, Google Gemini), the model
//! registry, [`curl::CurlTransport`], the transport that spawns `curl`, and
//! [`transport_choice::ChosenTransport`], which sends each request through curl
//! or focus-transport's std transport (`https://` and proxies need curl).
//!
//! Reading order: [`builder`] (the partial message every decoder fills),
//! [`decode`] (the decoder seam), [`history`] and [`ids`] (making any history
//! sendable), then one module per API — [`anthropic`], [`openai_completions`]
//! (with its quirk table [`compat`]), [`openai_responses`], [`google`] — each a pure
//! request builder plus a pure stream decoder; [`http`] (the one `Provider` that
//! sends, retries and cancels, with a [`watchdog`] for stalled connections, and
//! never retries a context overflow: [`is_context_overflow`], from focus-core),
//! and [`registry`] (models, keys, `models.json`, with [`secret`]
//! keeping keys out of sight). docs/providers.md walks through each wire format and
//! its traps.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod anthropic;
pub mod builder;
pub mod compat;
pub mod curl;
pub mod decode;
pub mod google;
pub mod history;
pub mod http;
pub mod ids;
pub mod openai_completions;
pub mod openai_responses;
pub mod registry;
pub mod secret;
pub mod thinking;
pub mod transport_choice;
pub mod usage_estimate;
pub mod watchdog;

pub use decode::{decode_body, decoder_for, StreamDecoder, APIS};
pub use focus_core::overflow::is_context_overflow;
pub use http::{HttpProvider, RetryObserver, RetryPolicy};
pub use registry::Registry;
pub use secret::ApiKey;
