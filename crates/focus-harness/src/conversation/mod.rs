//! A conversation, apart from any terminal: [`Conversation`] holds the agent's
//! configuration, the history and the session, and owns every run ([`driver`]):
//! it starts it, follows it on a thread of its own, compacts inside a run,
//! after one and after an overflow, and retries once ([`lifecycle`]); a front
//! end renders the one closed type it reports, [`ConversationEvent`]
//! ([`event`]), taken with [`Conversation::poll`] from the front end's own loop
//! or with the blocking [`Conversation::run_to_end`]. [`navigate`] moves in the
//! sessions (new, resume, fork, tree); [`store`] opens the session a front end
//! asks for (one lookup rule); [`summary`] sums the runs up (the exit code and
//! result record of a headless run) and [`changed_files`] finds what `bash`
//! changed for it; [`hooks`] is what a front end plugs in (session
//! hooks, tools that change).
//!
//! The CLI's four modes (print, JSON, RPC, interactive) each make one of those
//! two calls and render what comes back; none of them keeps history, writes
//! the session, compacts or retries itself.

pub mod budget;
pub mod changed_files;
pub mod checkpoints;
pub mod driver;
pub mod event;
pub mod hooks;
pub mod lifecycle;
pub mod navigate;
pub mod output_schema;
pub mod store;
pub mod summary;

pub use checkpoints::{RewindScope, SharedTracker};
pub use driver::{Conversation, InterruptCounter, PromptBuilder, RunOutcome, SharedStore};
pub use event::{CompactionEnded, CompactionReason, ConversationEvent, Events};
pub use hooks::{ConversationHooks, ToolSource};
pub use store::{recent_sessions, SessionRequest, Store};
pub use summary::{DeniedCall, Outcome, RunSummary};
