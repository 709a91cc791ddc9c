//! Compactions between runs on the screen: `/compact` asks the conversation,
//! which compacts on its own thread (as it does after a run that filled the
//! context, or overflowed it); meanwhile the screen lives — a spinner, "Esc
//! cancels", typing goes on — and the end shows the summary and what it saved.

use super::transcript::summary_block;
use super::ui::Ui;
use focus_harness::conversation::{CompactionEnded, CompactionReason};

impl Ui<'_> {
    /// Starts compacting (`/compact [instructions]`).
    pub fn start_compaction(&mut self, instructions: Option<String>) -> Result<(), String> {
        if self.engine.conversation.is_compacting() {
            return Err("already compacting (Esc cancels)".into());
        }
        self.engine.conversation.request_compaction(instructions)
    }

    /// Esc or Ctrl+C while compacting.
    pub(super) fn cancel_compaction(&mut self) {
        self.engine.conversation.abort();
        self.notice = Some("cancelling the compaction…".into());
    }

    /// A compaction between runs started.
    pub(super) fn compaction_started(&mut self) {
        self.busy = Some("compacting");
        self.notice = Some("compacting the history… · Esc cancels".into());
    }

    /// It ended: the summary and what it saved, or why it did not happen.
    pub(super) fn compaction_ended(&mut self, reason: CompactionReason, ended: &CompactionEnded) {
        self.busy = None;
        self.notice = None;
        let style = self.style;
        match (&ended.result, &ended.error_message) {
            (Some(done), _) => {
                let context = self.engine.conversation.session.lock().context_messages();
                self.blocks.extend(summary_block(&context));
                let note = match reason {
                    CompactionReason::Manual => format!(
                        "compacted: the context went from about {} to about {} tokens",
                        done.tokens_before, done.tokens_after
                    ),
                    _ => format!(
                        "compacted: about {} → {} tokens",
                        done.tokens_before, done.tokens_after
                    ),
                };
                self.note(style.dim(&note));
            }
            (None, error) => {
                let error = error.as_deref().unwrap_or("compaction failed");
                let text = focus_tools::output::sanitize(error).into_owned();
                self.note(style.yellow(&text));
            }
        }
    }
}
