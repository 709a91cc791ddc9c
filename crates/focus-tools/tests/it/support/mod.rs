//! Helpers shared by the modules of this test binary: `common` (throw-away
//! directory trees, calling a tool in one line), `gates` (fake tools and a
//! recording approver for the gate tests), `kernel` (observers outside the
//! sandbox for the kernel's hostile tests, and running a test as another user) and `mcp` (the MCP test server and
//! calling an MCP tool).

pub mod common;
pub mod gates;
pub mod kernel;
pub mod mcp;
