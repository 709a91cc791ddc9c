//! focus-tools: the hands of the agent (read, write, edit, bash, grep, find, ls),
//! the gates every call passes (permission modes, the shell read-only judge, user
//! hooks) and tools served by MCP servers.

pub mod gates;
pub mod mcp;
