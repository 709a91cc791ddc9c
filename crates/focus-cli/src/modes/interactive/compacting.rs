//! `/compact` in the background: the plan is made on the UI thread, the summary
//! (a model call) on a thread of its own, and the result recorded back on the UI
//! thread. Meanwhile the screen lives: a spinner, "Esc cancels", typing goes on.

use super::blocks::{Block, Kind};
use super::{Input, Ui};
use focus_core::cancel::CancelToken;
use focus_harness::compaction::run::{compact, prepare_compaction, CompactionError};
use focus_harness::compaction::tokens::estimate_text_tokens;
use std::sync::atomic::Ordering;

/// What the summarizing thread sends back.
pub struct Compacted {
    /// The compaction entry to record, or why there is none.
    pub result: Result<focus_harness::session::CompactionEntry, CompactionError>,
    /// The context's size before, estimated from its texts.
    pub tokens_before: u64,
}

impl Ui<'_> {
    /// Starts the automatic compaction after a run (the context passed the
    /// threshold) in the background; whether it started. When it ends, the next
    /// queued prompt goes (see [`Ui::compacted`]).
    pub(super) fn start_auto_compaction(&mut self) -> bool {
        if let Some(gate) = &self.engine.gatekeeper {
            gate.pre_compact("auto", None);
        }
        match self.start_compaction(None) {
            Ok(()) => {
                self.auto_compacting = true;
                true
            }
            Err(_) => false,
        }
    }

    /// Starts compacting (`/compact [instructions]`).
    pub fn start_compaction(&mut self, instructions: Option<String>) -> Result<(), String> {
        if self.compacting.is_some() {
            return Err("already compacting (Esc cancels)".into());
        }
        let plan = {
            let store = self.engine.session.lock();
            let tree = store.manager().tree();
            prepare_compaction(&tree.current_branch(), &self.engine.compaction)
        }
        .ok_or_else(|| CompactionError::NothingToCompact.to_string())?;
        let provider = self.engine.config.provider.clone();
        let settings = self.engine.compaction;
        // Counted from the texts, as the figure after will be (see the harness's
        // `estimate_text_tokens`): the model's own count has no counterpart after.
        let tokens_before = estimate_text_tokens(&self.engine.history);
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
                tokens_before,
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
        let automatic = std::mem::take(&mut self.auto_compacting);
        // The automatic one counts toward the engine's stop after three failures.
        match &done.result {
            Ok(_) => self.engine.compaction_failures.store(0, Ordering::SeqCst),
            Err(CompactionError::Cancelled) => {}
            Err(_) if automatic => {
                self.engine
                    .compaction_failures
                    .fetch_add(1, Ordering::SeqCst);
            }
            Err(_) => {}
        }
        let style = self.style;
        let recorded = done.result.and_then(|entry| {
            self.engine
                .session
                .lock()
                .manager_mut()
                .append_compaction(entry)
                .map_err(CompactionError::Session)
        });
        match recorded {
            Ok(_) => {
                let history = self.engine.session.lock().context_messages();
                self.engine.history = history;
                self.show_summary();
                let after = estimate_text_tokens(&self.engine.history);
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
        if automatic {
            self.start_next_prompt();
        }
    }
}
