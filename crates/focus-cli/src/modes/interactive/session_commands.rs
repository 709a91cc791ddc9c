//! Commands on the conversation itself: `/copy` (the last answer to the
//! clipboard), `/clone` (the session duplicated into a new file, which focus
//! then continues) and `/undo` (back to before your last message: the leaf
//! moves, the tree stays append-only, so `/tree` can come back).

use super::transcript::message_text;
use super::ui::Ui;
use focus_core::message::Message;
use focus_harness::session::EntryKind;

impl Ui<'_> {
    /// `/copy`: the last answer's text, by OSC 52 and by a clipboard program
    /// when one is found. Safe while a run goes on: it reads the session's
    /// current branch, which has every answer finished so far.
    pub(super) fn copy_last_answer(&mut self) -> Result<(), String> {
        let messages = self.engine.conversation.session.lock().context_messages();
        let text = messages
            .iter()
            .chain(self.engine.conversation.history.iter())
            .rev()
            .filter_map(Message::as_assistant)
            .map(|a| a.text())
            .find(|t| !t.trim().is_empty())
            .ok_or("no answer to copy yet")?;
        let osc = super::clipboard::osc52(&text);
        if let Some(sequence) = &osc {
            // Moves no cursor: safe between frames.
            out!("{sequence}");
        }
        let program = super::clipboard::copy_with_program(&text);
        let how = match (osc.is_some(), program) {
            (true, Some(name)) => format!("the terminal (OSC 52) and {name}"),
            (true, None) => "the terminal (OSC 52)".to_string(),
            (false, Some(name)) => name.to_string(),
            (false, None) => {
                return Err(format!(
                    "the answer is {} bytes, too long for OSC 52, and no clipboard program (wl-copy, xclip, xsel, pbcopy) was found",
                    text.len()
                ))
            }
        };
        let lines = text.lines().count().max(1);
        self.say(&self.style.dim(&format!(
            "copied the last answer ({lines} lines) to the clipboard through {how}"
        )));
        Ok(())
    }

    /// `/clone`: the current branch into a new session file, which becomes the
    /// session (the old file is left as it is).
    pub(super) fn clone_session(&mut self) -> Result<(), String> {
        let (path, history) = {
            let mut store = self.engine.conversation.session.lock();
            if store.manager().tree().entries().is_empty() {
                return Err("nothing to clone: the session is empty".into());
            }
            let (clone, history) = store.clone_branch()?;
            *store = clone;
            let path = store.path();
            (
                path.map_or("(in memory)".into(), |p| p.display().to_string()),
                history,
            )
        };
        self.engine.conversation.history = history;
        self.show_history();
        self.say(&self.style.dim(&format!("cloned into a new session {path}")));
        Ok(())
    }

    /// `/undo`: the leaf moves before the last user message of the current
    /// branch (one step each time), and its text returns to the editor.
    pub(super) fn undo_last_message(&mut self) -> Result<(), String> {
        let mut store = self.engine.conversation.session.lock();
        let tree = store.manager().tree();
        let last = tree
            .current_branch()
            .into_iter()
            .rev()
            .find(|e| matches!(e.kind, EntryKind::Message(Message::User(_))))
            .ok_or("nothing to undo: no message of yours on this branch")?;
        let parent = last.parent_id.as_deref().map(str::to_string);
        let text = match &last.kind {
            EntryKind::Message(m) => message_text(m),
            _ => String::new(),
        };
        store
            .manager_mut()
            .move_leaf(parent.as_deref())
            .map_err(|e| e.to_string())?;
        let history = store.context_messages();
        drop(store);
        self.engine.conversation.history = history;
        if self.editor.is_empty() {
            self.editor.set_text(&text);
        }
        self.show_history();
        self.say(&self.style.dim(
            "undone: back to before your last message (its text is in the editor; /tree shows the branch left)",
        ));
        Ok(())
    }
}
