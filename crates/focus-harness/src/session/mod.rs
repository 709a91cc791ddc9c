//! Sessions: append-only JSONL files holding a tree of entries, in pi's format
//! (version 3), so a pi session opens in focus and the other way round.
//! docs/sessions.md explains the format.
//!
//! Reading order: [`entry`] (what a line is), [`reader`] (bytes to entries, damage
//! included, [`damaged`] what is kept of a skipped line; `source.rs` reads a file through small windows on every core,
//! `direct.rs` is the fast path for message lines), [`migrate`] (older
//! versions), [`tree`] (ids to a tree with a leaf), [`context`] (the leaf's branch to
//! messages), [`convert`] (custom roles to user messages), [`writer`] and [`lock`]
//! (appending safely), [`manager`] and [`fork`] (the API the CLI uses), [`paths`] and
//! [`list`] (where files live and how to find them), [`ids`] and [`time`] (small
//! helpers).

pub mod arena;
pub mod context;
pub mod convert;
pub mod damaged;
mod direct;
pub mod entry;
pub mod error;
pub mod fork;
mod id_index;
pub mod ids;
pub mod list;
pub mod lock;
pub mod manager;
pub mod migrate;
pub mod paths;
pub mod reader;
mod source;
pub mod time;
pub mod tree;
pub mod writer;

pub use context::{build_context, model_and_thinking, SessionContext};
pub use convert::{convert_to_llm, convert_to_llm_hook};
pub use entry::{CompactionEntry, Entry, EntryKind, SessionHeader, CURRENT_VERSION};
pub use error::SessionError;
pub use list::SessionInfo;
pub use manager::SessionManager;
pub use paths::{focus_home, SessionStore};
pub use reader::{LoadProblem, ProblemKind};
pub use tree::SessionTree;
pub use writer::Durability;
