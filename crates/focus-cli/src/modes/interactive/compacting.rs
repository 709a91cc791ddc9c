//! `/compact` in the background: the plan is made on the UI thread, the summary
//! (a model call) on a thread of its own, and the result recorded back on the UI
//! thread. Meanwhile the screen lives: a spinner, "Esc cancels", typing goes on.

use super::blocks::{Block, Kind};
use super::{Input, Ui};
use focus_core::cancel::CancelToken;
use focus_harness::compaction::run::{compact, prepare_compaction, CompactionError};
use focus_harness::compaction::tokens::estimate_context_tokens;

/// What the summarizing thread sends back.
pub struct Compacted {
    /// The compaction entry to record, or why there is none.
    pub result: Result<focus_harness::session::CompactionEntry, CompactionError>,
    /// The context's size before, as estimated when planning.
    pub tokens_before: u64,
}

impl Ui<'_> {
    /// Starts compacting (`/compact [instructions]`).
    pub fn start_compaction(&mut self, instructions: Option<String>) -> Result<(), String> {
        if self.compacting.is_some() {
            return Err("already compacting (Esc cancels)".into());
        }
        let plan = {
            let tree = self.engine.store.manager().tree();
            prepare_compaction(&tree.current_branch(), &self.engine.compaction)
        }
        .ok_or_else(|| CompactionError::NothingToCompact.to_string())?;
        let provider = self.engine.config.provider.clone();
        let settings = self.engine.compaction;
        let cancel = CancelToken::new();
        let token = cancel.clone();
        let sender = self.inputs.clone();
        std::thread::spawn(move || {
            let result = compact(
                provider.as_ref(),
                &plan,
                &settings,
                instructions.as_deref(),
                &token,
            );
            let _ = sender.send(Input::Compacted(Compacted {
                result,
                tokens_before: plan.tokens_before,
            }));
        });
        self.compacting = Some(cancel);
        self.busy = Some("compacting");
        self.notice = Some("compacting the history… · Esc cancels".into());
        Ok(())
    }

    /// Esc or Ctrl+C while compacting.
    pub(super) fn cancel_compaction(&mut self) {
        if let Some(cancel) = &self.compacting {
            cancel.cancel();
            self.notice = Some("cancelling the compaction…".into());
        }
    }

    /// The summary came back: record it and show it.
    pub(super) fn compacted(&mut self, done: Compacted) {
        self.compacting = None;
        self.busy = None;
        self.notice = None;
        let style = self.style;
        let recorded = done.result.and_then(|entry| {
            self.engine
                .store
                .manager_mut()
                .append_compaction(entry)
                .map_err(CompactionError::Session)
        });
        match recorded {
            Ok(_) => {
                self.engine.history = self.engine.store.context_messages();
                self.show_summary();
                let after = estimate_context_tokens(&self.engine.history);
                self.blocks.push(Block::done(Kind::Note(style.dim(&format!(
                    "compacted: the context went from about {} to about {} tokens",
                    done.tokens_before, after
                )))));
            }
            Err(error) => {
                let text = focus_tools::output::sanitize(&error.to_string()).into_owned();
                self.blocks
                    .push(Block::done(Kind::Note(style.yellow(&text))));
            }
        }
    }
}
