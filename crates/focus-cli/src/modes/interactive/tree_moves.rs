//! `/tree` on the UI: opening the navigator ([`TreeView`], which holds its
//! keys and drawing), a key's outcome (a label written, the navigator closed, a
//! move), and the move itself: asking "Summarize branch? [y/n]", summarizing
//! the branch left on a thread of its own, and showing the conversation again.

use super::input::{Input, Summarized};
use super::transcript::message_text;
use super::tree_rows::TreeRows;
use super::tree_view::{Done, Mode, TreeView};
use super::ui::Ui;
use focus_core::cancel::CancelToken;
use focus_harness::compaction::{branch_summary_request, record_branch_summary, summarize_branch};
use focus_harness::session::EntryKind;
use focus_tui::keys::Key;

impl Ui<'_> {
    /// `/tree` without an argument: opens the navigator.
    pub fn open_tree(&mut self) -> Result<(), String> {
        let rows = TreeRows::new(self.engine.conversation.session.lock().manager().tree());
        if rows.is_empty() {
            return Err("this session has no entries yet".into());
        }
        self.tree = Some(TreeView::new(rows));
        Ok(())
    }

    /// A key while the navigator is open; `false` when it is not.
    pub(super) fn tree_key(&mut self, key: &Key) -> bool {
        let Some(view) = &mut self.tree else {
            return false;
        };
        // A label typed and confirmed is written to the session at once.
        let labelling = match &view.mode {
            Mode::Label(text) if *key == Key::Enter => view
                .rows
                .rows()
                .get(view.selected)
                .map(|r| (r.node, text.trim().to_string())),
            _ => None,
        };
        let done = view.key(key);
        if let Some((node, label)) = labelling {
            self.set_tree_label(node, &label);
            return true;
        }
        match done {
            Done::Stay => {}
            Done::Close => self.tree = None,
            Done::Move(node, summarize) => self.tree_move(node, summarize),
        }
        true
    }

    fn set_tree_label(&mut self, node: u32, label: &str) {
        let Some(view) = &mut self.tree else {
            return;
        };
        let id = view.rows.node(node).id.clone();
        let label = (!label.is_empty()).then_some(label);
        match self.engine.conversation.set_label(&id, label) {
            Ok(()) => {
                view.rows.set_label(node, label);
                self.notice = Some(match label {
                    Some(_) => "label set".into(),
                    None => "label cleared".into(),
                });
            }
            Err(error) => self.notice = Some(crate::modes::print::clip(&error, 200)),
        }
    }

    /// Enter (or the answer to "Summarize branch?") on a node.
    fn tree_move(&mut self, node: u32, summarize: bool) {
        let skip_prompt = self.skip_summary_prompt();
        let Some(view) = &mut self.tree else {
            return;
        };
        let id = view.rows.node(node).id.clone();
        let asked = matches!(view.mode, Mode::Confirm(_));
        let store = self.engine.conversation.session.lock();
        let manager = store.manager();
        let entry = manager.tree().get(&id).cloned();
        // Your message: the leaf goes before it and its text back to the
        // editor (edit and send: a new branch). Anything else: the leaf goes there.
        let (target, draft) = match entry.map(|e| (e.parent_id, e.kind)) {
            Some((parent, EntryKind::Message(m @ focus_core::message::Message::User(_)))) => {
                (parent.map(|p| p.to_string()), Some(message_text(&m)))
            }
            _ => (Some(id), None),
        };
        if !asked && !skip_prompt {
            let window = self
                .engine
                .conversation
                .config
                .provider
                .model()
                .context_window;
            let leaves_something = target.as_deref() != manager.leaf_id()
                && branch_summary_request(
                    manager,
                    target.as_deref(),
                    window,
                    &self.engine.conversation.compaction,
                )
                .is_some();
            if leaves_something {
                view.mode = Mode::Confirm(node);
                return;
            }
        }
        drop(store);
        self.tree = None;
        if summarize {
            self.start_branch_summary(target, draft);
            return;
        }
        let moved = match &target {
            Some(target) => self.engine.conversation.go_to_entry(target),
            None => {
                let mut store = self.engine.conversation.session.lock();
                let moved = store
                    .manager_mut()
                    .move_leaf(None)
                    .map_err(|e| e.to_string());
                let history = store.context_messages();
                drop(store);
                moved.map(|_| self.engine.conversation.history = history)
            }
        };
        match moved {
            Ok(()) => self.moved_in_tree(draft),
            Err(error) => self.note(self.style.red(&crate::modes::print::clip(&error, 300))),
        }
    }

    /// The transcript shown again after a move, your message back in the editor.
    fn moved_in_tree(&mut self, draft: Option<String>) {
        self.show_history();
        match draft {
            Some(text) => {
                self.set_input(&text);
                self.say("moved before that message; edit it and press Enter to branch");
            }
            None => self.say("continuing from that entry"),
        }
    }

    /// Whether `branchSummary.skipPrompt` is set (pi's setting). Read quietly:
    /// the settings' warnings and notices were shown at start, and standard
    /// error must not write over the screen.
    fn skip_summary_prompt(&self) -> bool {
        let home = focus_harness::session::focus_home();
        focus_harness::settings::load_settings(&home, &self.cwd).is_ok_and(|loaded| {
            loaded.settings.raw("branchSummary")["skipPrompt"].as_bool() == Some(true)
        })
    }

    /// Summarizes the branch being left on a thread of its own; the move is
    /// made when the summary comes back ([`Ui::branch_summarized`]).
    fn start_branch_summary(&mut self, target: Option<String>, draft: Option<String>) {
        let store = self.engine.conversation.session.lock();
        let manager = store.manager();
        let window = self
            .engine
            .conversation
            .config
            .provider
            .model()
            .context_window;
        let Some(request) = branch_summary_request(
            manager,
            target.as_deref(),
            window,
            &self.engine.conversation.compaction,
        ) else {
            return;
        };
        let old_leaf = manager.leaf_id().unwrap_or("root").to_string();
        drop(store);
        let provider = self.engine.conversation.config.provider.clone();
        let cancel = CancelToken::new();
        let token = cancel.clone();
        let sender = self.inputs.clone();
        std::thread::spawn(move || {
            let result = summarize_branch(provider.as_ref(), &request, &token);
            let _ = sender.send(Input::BranchSummarized(Summarized {
                target,
                old_leaf,
                draft,
                result,
            }));
        });
        self.summarizing = Some(cancel);
        self.busy = Some("summarizing");
        self.notice = Some("summarizing the branch… · Esc cancels".into());
    }

    /// The branch summary came back: move and record it, or stay put.
    pub(super) fn branch_summarized(&mut self, done: Summarized) {
        self.summarizing = None;
        self.busy = None;
        self.notice = None;
        let recorded = done.result.and_then(|summary| {
            let mut store = self.engine.conversation.session.lock();
            record_branch_summary(
                store.manager_mut(),
                done.target.as_deref(),
                &done.old_leaf,
                &summary,
            )
            .map(|_| store.context_messages())
        });
        match recorded {
            Ok(history) => {
                self.engine.conversation.history = history;
                self.moved_in_tree(done.draft);
                self.say("the branch left behind is summarized here");
            }
            Err(error) => {
                let text = crate::modes::print::clip(&error.to_string(), 300);
                self.note(self.style.yellow(&format!("not moved: {text}")));
            }
        }
    }

    /// The navigator's rows over the whole window but the input line and the
    /// footer; `None` when it is closed.
    pub(super) fn tree_rows(&mut self, width: usize, height: usize) -> Option<Vec<String>> {
        let style = self.style;
        let view = self.tree.as_mut()?;
        let room = height.saturating_sub(2);
        let mut rows = view.render(width, room, style);
        // Blank rows below a short tree: the conversation does not show through.
        rows.resize(rows.len().max(room), String::new());
        Some(rows)
    }
}
