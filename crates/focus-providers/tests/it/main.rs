//! Integration tests of focus-providers, in one binary (one link instead of many).
//!
//! Modules: `both_transports` (the std transport and curl held to the same
//! behaviour from one table), `requests` (golden request bodies), `decoders`, `conformance`,
//! `hostile_streams` and `terminal_event` (the stream decoders on recorded,
//! hostile and cut streams), `provider` (`HttpProvider` over a scripted
//! transport), `curl_*` and `http_loopback` (the real curl path against the
//! loopback test server: cancellation, proxies, secrets), `hostile_config`
//! (`models.json` mutated) and `pi_compat` (pi's own sessions); their shared
//! helpers are in `support`.
//!
//! The tests that scan this process's children or change its environment run
//! in a process of their own (`focus_testkit::alone`).

mod both_transports;
mod conformance;
mod curl_cancel_many;
mod curl_proxy;
mod curl_secrets;
mod curl_transport;
mod curl_versions;
mod decoders;
mod hostile_config;
mod hostile_streams;
mod http_loopback;
mod pi_compat;
mod provider;
mod requests;
mod support;
mod terminal_event;
mod usage_estimate;
