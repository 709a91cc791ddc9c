//! Checkpoints: every change the agent made to the project's files, undoable
//! from the session tree (docs/sessions.md, "Checkpoints and rewind").
//!
//! | file | job |
//! |---|---|
//! | `node.rs`, `relpath.rs` | what a path holds ([`Node`]), its stat [`Stamp`], paths in JSON |
//! | `blobs.rs`, `store.rs` | content stored once by SHA-256; where the store is |
//! | `manifest.rs`, `lines.rs` | one checkpoint's changes; lines added and removed |
//! | `walk.rs`, `observe.rs`, `tracker.rs` | what focus last saw, and recording a change |
//! | `watch.rs`, `tracker/watched.rs` | inotify: listing only the folders that changed |
//! | `history.rs` | a session's checkpoint entries to file states per entry |
//! | `listing.rs` | prompts with what each changed; whether an entry's files differ |
//! | `session_diff.rs` | every path the session changed: first state and now (`/diff`) |
//! | `plan.rs`, `conflict_diff.rs` | the operations of a restore; conflicts |
//! | `apply.rs`, `journal.rs` | doing them, whole, and finishing after a crash |
//! | `rewind.rs` | the rewind as a whole, and appending records to the session |
//! | `prune.rs` | bounded storage: pruning and `focus sessions gc` |
//! | `settings.rs` | the `checkpoints` settings |

pub mod apply;
pub mod blobs;
pub mod conflict_diff;
pub mod history;
pub mod journal;
pub mod lines;
pub mod listing;
pub mod manifest;
pub mod node;
pub mod observe;
pub mod plan;
pub mod prune;
pub mod relpath;
pub mod rewind;
pub mod session_diff;
pub mod settings;
pub mod store;
pub mod tracker;
pub mod walk;
pub mod watch;

pub use history::{FileHistory, CHECKPOINT_TYPE, RESTORE_TYPE};
pub use listing::{differs_from_recorded, prompt_changes, PromptChanges};
pub use manifest::{Change, Manifest};
pub use node::{Node, Stamp};
pub use plan::{Conflict, Op, Plan};
pub use rewind::{finish_records, record, rewind_files, RewindReport, RewindRequest};
pub use settings::CheckpointSettings;
pub use store::CheckpointStore;
pub use tracker::Tracker;
pub use walk::{PlainWalker, ProjectWalker};
