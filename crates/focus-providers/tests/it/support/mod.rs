//! Helpers shared by the modules of this test binary: `ask` (one question to
//! a provider), `decode` (a body decoded in pieces, and the event protocol
//! every decode must keep) and `procs` (the processes `/proc` shows).

pub mod ask;
pub mod decode;
pub mod procs;
