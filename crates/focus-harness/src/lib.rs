//! focus-harness: everything that makes a run last beyond one prompt.
//!
//! - [`session`]: tree-shaped JSONL session files in pi's format — create, append,
//!   load, branch, fork, list — that survive a killed writer.
//! - [`compaction`]: when the context nears the model's window, summarize the old
//!   part and keep the recent part.
//! - [`prompt`]: the system prompt, rebuilt every turn from a base text, the tools,
//!   project guidance files (`AGENTS.md`, `CLAUDE.md`) and skills.
//! - [`settings`]: global and project `settings.json`, merged.
//! - [`trust`]: which folders' project settings may widen what runs.
//! - [`subagents`]: the `task` tool and agent definitions: child conversations
//!   with a fresh context.
//!
//! The crate depends on focus-core only: it does file input and output, but never
//! the network (a model is reached through the `Provider` trait).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod checkpoint;
pub mod compaction;
pub mod conversation;
pub mod files;
pub mod prompt;
pub mod session;
pub mod settings;
pub mod subagents;
pub mod trust;
