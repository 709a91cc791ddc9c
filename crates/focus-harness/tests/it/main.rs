//! Integration tests of focus-harness, in one binary (one link instead of many).
//!
//! Modules: `sessions` (tree, branching, fork, labels, listing, fixtures),
//! `pi_samples` (real pi session files), `crash` (killing the writer at random
//! moments), `lock` (two writers), `compaction` (cut points, summaries),
//! `conversation` (a `Conversation` driven without a terminal), `front_end`
//! (a front end of a few dozen lines: runs, steering, abort, compaction, overflow),
//! `subagents` (the `task` tool: children in parallel, abort, links, usage),
//! `agent_definitions` (agent definition files, malformed and hostile ones too).

mod agent_definitions;
mod checkpoint_conflict;
mod checkpoint_conversation;
mod checkpoint_gc;
mod checkpoint_listing;
mod checkpoint_random;
mod checkpoint_support;
mod checkpoint_watch;
mod compaction;
mod conversation;
mod crash;
mod damaged;
mod front_end;
mod hostile;
mod lock;
mod pi_samples;
mod sessions;
mod subagents;
mod support;
