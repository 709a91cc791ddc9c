//! Compaction: when a conversation nears the model's context window, replace its
//! older part with a structured summary and keep the recent part verbatim.
//! docs/compaction.md explains the algorithm.
//!
//! Reading order: [`tokens`] (how big is the context; when to compact), [`cut`]
//! (where to cut), [`prune`] (old tool output left out in small windows), [`file_ops`] (files read and modified), [`prompts`] (what the
//! summarizer is asked), [`run`] (plan, summarize, record), [`in_run`] (the same
//! between two model calls of a run, as the loop's `transform_context`),
//! [`overflow`] (recovering from a provider's context-overflow error), [`branch`]
//! (summarizing a branch the user leaves).

pub mod branch;
pub mod cut;
pub mod file_ops;
pub mod in_run;
pub mod overflow;
pub mod prompts;
pub mod prune;
pub mod run;
pub mod tokens;

pub use branch::{
    abandoned_messages, branch_summary_request, leave_branch_with_summary, record_branch_summary,
    summarize_branch,
};
pub use cut::{find_cut_point, last_exchange_cut, CutPoint};
pub use file_ops::FileOps;
pub use in_run::{compaction_transform, InRunCompaction, MAX_COMPACTION_FAILURES};
pub use overflow::{is_context_overflow, OverflowAction, OverflowRecovery};
pub use prune::{prune_target, prune_tool_outputs, PRUNE_BELOW_WINDOW};
pub use run::{
    compact, compact_if_needed, compact_session, prepare_compaction, record_compaction,
    CompactionError, CompactionOutcome, CompactionPlan,
};
pub use tokens::{
    estimate_context_tokens, estimate_message_tokens, estimate_text_tokens, should_compact,
    CompactionSettings,
};
