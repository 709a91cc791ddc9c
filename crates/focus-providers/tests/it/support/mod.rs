//! Helpers shared by the modules of this test binary: `ask` (one question to
//! a provider), `decode` (a body decoded in pieces, and the event protocol
//! every decode must keep), `procs` (the processes `/proc` shows) and
//! `transports` (the std and curl transports, as one table for the tests both
//! must pass).

pub mod ask;
pub mod decode;
pub mod procs;
pub mod transports;
