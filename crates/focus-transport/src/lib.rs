//! focus-transport: how bytes reach focus.
//!
//! [`Transport`] is the one seam between focus and the network: an [`HttpRequest`]
//! in, an [`HttpResponse`] with a streaming body out. Two implementations serve
//! it: [`StdHttpTransport`] here, HTTP/1.1 over a std TCP socket for `http://`
//! URLs ([`std_http`]), and the curl-backed one in focus-providers (a process per
//! request, for TLS and proxies). This crate also holds the typed
//! [`TransportError`] (with [`ProtocolError`] for malformed answers) and what sits
//! on raw bytes: the
//! server-sent-events decoder in [`sse`], the `Retry-After` reading in
//! [`retry_after`], and [`replay::ReplayTransport`] (recorded responses served
//! without a process). The scripted loopback HTTP server the tests talk to is
//! focus-testkit's.

#![forbid(unsafe_code)]

pub mod error;
pub mod protocol_error;
pub mod replay;
pub mod retry_after;
pub mod sse;
pub mod std_http;
pub mod transport;

pub use error::TransportError;
pub use protocol_error::ProtocolError;
pub use std_http::StdHttpTransport;
pub use transport::{HttpRequest, HttpResponse, Transport};
