//! Integration tests of focus-tools, in one binary (one link instead of many).
//!
//! Modules: the tools on real files and processes (`read_write`, `edit`,
//! `edit_conflicts`, `search`, `bash`, `bash_spill`, `bash_secrets`,
//! `special_files`, `hostile_tools`, `hostile_engines`), the gates (`gates_*`:
//! modes, the read-only judge and its bypasses, hooks, hostile input), the
//! sandbox (`sandbox`, `sandbox_hostile`, `sandbox_installed`) and MCP (`mcp_*`:
//! stdio and HTTP servers, misbehaving ones, offers, secrets); their shared
//! helpers are in `support`.
//!
//! The tests that change what belongs to the whole process (environment
//! variables, thread counts) run in a process of their own
//! (`focus_testkit::alone`). The sandbox, the record of files seen and the
//! spill directory are not among them: they belong to a `ToolState`, and each
//! test builds its own.

mod bash;
mod bash_secrets;
mod bash_spill;
mod edit;
mod edit_conflicts;
mod gates_git;
mod gates_hooks;
mod gates_hostile;
mod gates_judge;
mod gates_judge_bypass;
mod gates_modes;
mod gates_protected;
mod hostile_engines;
mod hostile_tools;
mod mcp_e2e;
mod mcp_hostile;
mod mcp_http;
mod mcp_http_hostile;
mod mcp_http_sessions;
mod mcp_offers;
mod mcp_secrets;
mod read_write;
mod sandbox;
mod sandbox_hostile;
mod sandbox_installed;
mod sandbox_kernel;
mod sandbox_kernel_corpus;
mod search;
mod special_files;
mod support;
mod write_races;
