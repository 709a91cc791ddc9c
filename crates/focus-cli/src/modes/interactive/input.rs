//! What the interactive loop waits for: keys, approvals, and the work that
//! ran in the background (a `!command`, the project walk, a branch summary)
//! coming back, each as one [`Input`] on the loop's channel.

use super::project_files::Walked;
use focus_core::event::AgentEvent;
use focus_core::tool::ToolOutput;
use focus_harness::compaction::CompactionError;
use std::time::Instant;

/// What the loop waits for.
pub enum Input {
    /// Bytes typed (or pasted), and when they were read.
    Keys(Vec<u8>, Instant),
    /// Bytes that may hold a Ctrl+G: the reader waits for a word on its resume
    /// channel before reading again ([`external`](super::external)); and when they were read.
    KeysThenWait(Vec<u8>, Instant),
    /// stdin closed.
    Eof,
    /// A `!command`'s output so far (shown as the model's bash calls are).
    ShellOutput(AgentEvent),
    /// A tool call waits for the user's decision.
    Approval(crate::approval::PendingApproval),
    /// The project's files, walked (and packed for the matcher) in the
    /// background (for `@`).
    FilesWalked(Walked),
    /// The summary of a branch left in `/tree` came back.
    BranchSummarized(Summarized),
    /// A `!command` ended.
    Shell(ShellDone),
    /// Ctrl+V: the clipboard's image, or why there is none.
    PastedImage(Result<Vec<u8>, String>),
}

/// A finished `!command`.
pub struct ShellDone {
    /// The id its block is shown under.
    pub(super) call_id: String,
    /// The command line.
    pub(super) command: String,
    /// `!!`: kept out of the model's context.
    pub(super) exclude: bool,
    /// The bash tool's output.
    pub(super) output: ToolOutput,
}

/// What the summarizing thread sends back.
pub struct Summarized {
    /// Where the leaf goes (`None`: before the first entry).
    pub(super) target: Option<String>,
    /// The leaf the branch ended at.
    pub(super) old_leaf: String,
    /// A message of yours to put back in the editor.
    pub(super) draft: Option<String>,
    /// The summary, or why there is none.
    pub(super) result: Result<String, CompactionError>,
}
