//! A conversation, apart from any terminal: [`Conversation`] holds the agent's
//! configuration, the history and the session, starts runs and compacts (inside
//! a run, after one, after an overflow; [`driver`]); [`store`] opens the session a front end
//! asks for (one lookup rule); [`hooks`] is what a front end plugs in (session
//! hooks, tools that change); [`notice`] is what it reports besides the runs'
//! events.
//!
//! The CLI's four modes (print, JSON, RPC, interactive) each drive a
//! `Conversation` and render what it reports; none of them keeps history or
//! writes the session itself.

pub mod driver;
pub mod hooks;
pub mod notice;
pub mod store;

pub use driver::{
    AfterRun, CompactionWatch, Conversation, InterruptCounter, PromptBuilder, RunOutcome,
    SharedStore,
};
pub use hooks::{ConversationHooks, ToolSource};
pub use notice::Notice;
pub use store::{recent_sessions, SessionRequest, Store};
