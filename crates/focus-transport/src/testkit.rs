//! Support for tests across the workspace: a scripted HTTP/1.1 server
//! ([`server::TestServer`]). Where the conformance data is: `focus_testkit::conformance_dir`.

pub mod server;
