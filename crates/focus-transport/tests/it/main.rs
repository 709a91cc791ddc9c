//! Integration tests of focus-transport, in one binary (one link instead of many).
//!
//! Modules: `replay` (`ReplayTransport`), `secrets` (keys kept out of `Debug`),
//! `sse_conformance`, `sse_reference` and `sse_provider_streams` (the SSE decoder
//! against the shared cases, a naive reference and recorded streams), `sse_dump`
//! (the example as a user runs it), `std_http` and `std_http_hostile`
//! (`StdHttpTransport` against the scripted server and against hostile ones),
//! `std_http_pump` (an event stream read on a thread of its own) and
//! `test_server` (the scripted server on the wire).

mod replay;
mod secrets;
mod sse_conformance;
mod sse_dump;
mod sse_provider_streams;
mod sse_reference;
mod std_http;
mod std_http_hostile;
mod std_http_pump;
mod test_server;
