//! Helpers shared by the modules of this test binary: `ask` (one question to
//! a provider), `decode` (a body decoded in pieces, and the event protocol
//! every decode must keep), `limits` (a time limit small at first, raised
//! until a loaded machine brings the head through), `procs` (the processes `/proc` shows) and
//! `transports` (the std and curl transports, as one table for the tests both
//! must pass).

pub mod ask;
pub mod decode;
pub mod limits;
pub mod procs;
pub mod transports;
