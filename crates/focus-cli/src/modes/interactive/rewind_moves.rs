//! `/rewind`, `/diff` and `/tree`'s question about files, on the UI: opening
//! the views ([`RewindView`], [`DiffView`], held by the [`Ui`]'s panels), and
//! doing the rewind a view asked for ([`rewind_picker::perform`]: the
//! harness's `Conversation::rewind`), then showing what it did.

use super::diff_view::DiffView;
use super::panels::Panel;
use super::rewind_picker::{self, Origin, Request, RewindView};
use super::ui::Ui;
use focus_core::sync::lock;
use focus_harness::checkpoint::differs_from_recorded;
use focus_harness::conversation::RewindScope;

impl Ui<'_> {
    /// Opens `/rewind` (Esc Esc too): the list of prompts, or with `number`
    /// the question about that prompt.
    ///
    /// # Errors
    ///
    /// No prompt yet, or no prompt `number`.
    pub(super) fn open_rewind(&mut self, number: Option<usize>) -> Result<(), String> {
        let default = rewind_picker::default_scope(&self.cwd);
        let view = RewindView::open(&mut self.engine.conversation, number, default, self.style)?;
        self.panels.open = Some(Panel::Rewind(view));
        Ok(())
    }

    /// A `/tree` move to `target` (`label`: the entry; `draft`: your message
    /// for the editor): when the files there differ from what focus last
    /// recorded, opens `/rewind`'s question about it and returns `true` (the
    /// move waits for the answer).
    pub(super) fn offer_file_rewind(
        &mut self,
        target: &Option<String>,
        label: &str,
        draft: &Option<String>,
        origin: Origin,
    ) -> bool {
        let conversation = &mut self.engine.conversation;
        let differs = conversation.checkpoints.clone().is_some_and(|tracker| {
            let store = lock(&tracker).store.clone();
            let session = conversation.session.lock();
            differs_from_recorded(
                session.manager().tree(),
                &store.manifests,
                target.as_deref(),
            )
        });
        if !differs {
            return false;
        }
        let look = (rewind_picker::default_scope(&self.cwd), self.style);
        let view = RewindView::at_entry(
            &mut self.engine.conversation,
            target.clone(),
            label.to_string(),
            draft.clone(),
            origin,
            look,
        );
        self.panels.open = Some(Panel::Rewind(view));
        true
    }

    /// Does the rewind the view asked for, then shows what it did; a `/tree`
    /// move goes on as `/tree` does.
    pub(super) fn rewind_chosen(&mut self, request: Request) {
        match rewind_picker::perform(&mut self.engine.conversation, &request) {
            Ok(done) => {
                if done.moved {
                    self.show_history();
                }
                if let Some(draft) = &done.draft {
                    self.set_input(draft);
                }
                for line in &done.lines {
                    self.say(&self.style.dim(line));
                }
                for line in &done.warnings {
                    self.say(&self.style.yellow(line));
                }
                if let Origin::Tree { summarize } = request.origin {
                    if request.scope != RewindScope::Code {
                        self.move_in_tree(request.target, request.draft, summarize);
                    }
                }
            }
            Err(error) => {
                let text = focus_tools::output::sanitize(&error).into_owned();
                self.say(&self.style.red(&text));
            }
        }
    }

    /// `/diff`: the pager over every file this session changed (a note
    /// instead when none differs).
    ///
    /// # Errors
    ///
    /// File checkpoints are off, or the project cannot be compared with them.
    pub(super) fn open_diff(&mut self) -> Result<(), String> {
        let view = DiffView::build(&self.engine.conversation, self.style)?;
        if view.is_empty() {
            self.say(
                &self.style.dim(
                    "this session changed no file (or every file it changed is back as it was)",
                ),
            );
            return Ok(());
        }
        self.say(&self.style.dim(&view.summary()));
        self.panels.open = Some(Panel::Diff(view));
        Ok(())
    }
}
