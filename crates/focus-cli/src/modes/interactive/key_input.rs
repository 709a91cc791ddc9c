//! What the keys do: the reader thread that brings the terminal's bytes, the
//! decoding into keys, and each key's action outside an approval and a picker
//! (abort, quit, suspend, thinking, models, the queue, completion, the editor).

use super::blocks::Kind;
use super::input::Input;
use super::keymap::{self, Action};
use super::transcript::message_text;
use super::ui::Ui;
use super::{commands, external};
use focus_tui::editor::EditAction;
use focus_tui::keys::Key;
use focus_tui::keys::{KEYBOARD_OFF, KEYBOARD_ON};
use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender};
use std::time::Instant;

/// Reads raw bytes from the terminal on its own thread.
pub(super) fn spawn_key_reader(sender: SyncSender<Input>, resumed: Receiver<()>) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buffer = [0u8; 4096];
        loop {
            match stdin.read(&mut buffer) {
                Ok(0) | Err(_) => {
                    let _ = sender.send(Input::Eof);
                    return;
                }
                Ok(n) => {
                    let bytes = buffer[..n].to_vec();
                    let read_at = Instant::now();
                    if external::needs_pause(&bytes) {
                        // The UI may hand the terminal to another editor:
                        // read nothing until it says so.
                        if sender.send(Input::KeysThenWait(bytes, read_at)).is_err()
                            || resumed.recv().is_err()
                        {
                            return;
                        }
                    } else if sender.send(Input::Keys(bytes, read_at)).is_err() {
                        return;
                    }
                }
            }
        }
    });
}

impl Ui<'_> {
    pub(super) fn handle(&mut self, input: Input) {
        match input {
            Input::Keys(bytes, read_at) => {
                let keys = self.decoder.feed(&bytes);
                for key in keys {
                    self.key(key, read_at);
                    if self.quit {
                        return;
                    }
                }
            }
            Input::KeysThenWait(bytes, read_at) => {
                self.handle(Input::Keys(bytes, read_at));
                let _ = self.resume.send(());
            }
            Input::Eof => self.quit = true,
            Input::ShellOutput(event) => self.event(&event),
            Input::Approval(pending) => {
                // The call's own events (queued before the gate asked) first: its
                // block is on screen when the dialog about it opens.
                self.take_conversation_events();
                self.approval_asked(pending);
            }
            Input::BranchSummarized(done) => self.branch_summarized(done),
            Input::FilesWalked(files) => self.file_index.walked(files),
            Input::PastedImage(result) => self.pasted_image(result),
            Input::Shell(done) => self.shell_done(done),
        }
    }

    /// Ctrl+Z: clears the live area, gives the terminal back as it was and stops
    /// focus; after `fg` it takes the terminal again and the next redraw shows the
    /// live area. A running prompt waits meanwhile (the whole process is stopped).
    fn suspend(&mut self) {
        self.screen.finish();
        self.screen.flush();
        out!("{KEYBOARD_OFF}");
        crate::terminal::raw::with_original_mode(crate::terminal::signals::stop_self);
        out!("{KEYBOARD_ON}");
    }

    /// One key, read at `read_at`. While an approval is asked, a key that could
    /// not have been a reply to it (read before the dialog was drawn, or within
    /// [`super::dialog::ANSWER_DELAY`] after) is typing, and goes to the editor;
    /// Esc and Ctrl+C always reach the dialog (they abort, the safe way).
    fn key(&mut self, key: Key, read_at: Instant) {
        if self.approval.is_some()
            && (self.approval_answerable(read_at) || matches!(key, Key::Esc | Key::Ctrl('c')))
        {
            self.approval_key(key);
            return;
        }
        // keybindings.json: a bound key stands for its action's default key.
        let Some(key) = self.bindings.translate(key) else {
            return;
        };
        if key != Key::Ctrl('c') {
            self.ctrl_c_armed = false;
        }
        if self.tree_key(&key) || self.picker_key(&key) {
            return;
        }
        self.key_action(&key);
        self.after_key(&key);
    }

    /// What a key does outside an approval and a picker.
    fn key_action(&mut self, key: &Key) {
        let key = key.clone();
        let conversation = &self.engine.conversation;
        if conversation.is_busy()
            && !conversation.is_running()
            && matches!(keymap::action(&key), Action::Abort | Action::ClearAbortQuit)
        {
            self.cancel_compaction();
            return;
        }
        if let Some(cancel) = &self.summarizing {
            if matches!(keymap::action(&key), Action::Abort | Action::ClearAbortQuit) {
                cancel.cancel();
                self.notice = Some("cancelling the branch summary…".into());
                return;
            }
        }
        // A `!command` running: Esc cancels it, and Ctrl+C does once the
        // input is empty.
        let cancels = match keymap::action(&key) {
            Action::Abort => true,
            Action::ClearAbortQuit => self.editor.is_empty(),
            _ => false,
        };
        if cancels && self.cancel_shell() {
            return;
        }
        match keymap::action(&key) {
            Action::Abort => {
                if self.engine.conversation.is_running() {
                    self.engine.conversation.abort();
                    // Queued messages go back to the editor rather than being lost.
                    let queued: Vec<String> = self
                        .engine
                        .conversation
                        .take_queued()
                        .iter()
                        .map(message_text)
                        .collect();
                    if !queued.is_empty() {
                        let mut text = queued.join("\n");
                        if !self.editor.is_empty() {
                            text = format!("{}\n{}", text, self.editor.text());
                        }
                        self.editor.set_text(&text);
                    }
                    self.queued.clear();
                    self.notice = Some("aborting…".into());
                }
            }
            Action::ClearAbortQuit => {
                if !self.editor.is_empty() {
                    self.editor.take();
                } else if self.engine.conversation.is_running() {
                    self.engine.conversation.abort();
                } else if self.ctrl_c_armed {
                    self.quit = true;
                } else {
                    self.ctrl_c_armed = true;
                    self.notice = Some("press Ctrl+C again to quit".into());
                }
            }
            Action::Quit if self.editor.is_empty() && !self.engine.conversation.is_busy() => {
                self.quit = true
            }
            Action::Suspend => self.suspend(),
            Action::ToggleThinking => {
                self.show_thinking = !self.show_thinking;
                self.screen.redraw_all();
                self.notice = Some(if self.show_thinking {
                    "thinking shown".into()
                } else {
                    "thinking collapsed".into()
                });
            }
            Action::SelectModel => {
                self.screen.redraw_all();
                if !self.engine.conversation.is_busy() {
                    if let Err(error) = self.open_model_picker() {
                        self.notice = Some(focus_tools::output::sanitize(&error).into_owned());
                    }
                }
            }
            Action::ExternalEditor => self.edit_externally(),
            Action::Unqueue => self.unqueue(),
            Action::Expand => self.toggle_expanded(),
            Action::Complete => self.complete(),
            Action::CycleThinking => self.cycle_thinking(),
            Action::CycleModel => self.cycle_model(false),
            Action::CycleModelBackward => self.cycle_model(true),
            Action::PasteImage => self.paste_image(),
            _ => match self.editor.handle(&key) {
                EditAction::None => {}
                EditAction::Submit(text) => self.submit(text, false),
                EditAction::FollowUp(text) => self.submit(text, true),
            },
        }
    }

    /// Alt+Up: the queued steering and follow-up messages leave the queue and
    /// go back to the editor (before its draft), to edit or drop.
    fn unqueue(&mut self) {
        if !self.engine.conversation.is_running() {
            return;
        }
        let queued: Vec<String> = self
            .engine
            .conversation
            .take_queued()
            .iter()
            .map(message_text)
            .collect();
        self.queued.clear();
        if queued.is_empty() {
            self.notice = Some("nothing queued".into());
            return;
        }
        let mut text = queued.join("\n");
        if !self.editor.is_empty() {
            text = format!("{}\n{}", text, self.editor.text());
        }
        self.editor.set_text(&text);
        self.notice = Some("queued messages back in the editor (not sent)".into());
    }

    fn complete(&mut self) {
        let text = self.editor.text();
        match commands::complete(&text, &commands::user_commands(&self.cwd)) {
            commands::Completion::One(done) => self.editor.set_text(&done),
            commands::Completion::Many(prefix, names) => {
                self.editor.set_text(&prefix);
                self.notice = Some(names.join("  "));
            }
            commands::Completion::None => {}
        }
    }

    /// Ctrl+O: shows the last tool call or summary in full (an answer's tables
    /// as Markdown), or collapses it again (everything is drawn again: the
    /// block may be in the scrollback).
    fn toggle_expanded(&mut self) {
        let last =
            self.blocks.iter_mut().rev().find(|b| {
                matches!(b.kind, Kind::Tool(_) | Kind::Summary { .. }) || b.has_raw_view()
            });
        if let Some(block) = last {
            block.expanded = !block.expanded;
            self.screen.redraw_all();
        }
    }
}
