//! focus-providers: the provider adapters (Anthropic Messages, OpenAI Chat
//! Completions and compatibles, OpenAI Responses, Google Gemini), the model
//! registry, and [`curl::CurlTransport`], the transport that spawns `curl`.

pub mod curl;
