//! A line the user sends: a built-in `/command`, a `/skill:` or template
//! expanded, a `!command`, or a message — steering or a follow-up while the
//! agent works, else a new prompt for the conversation.

use super::commands;
use super::transcript::message_text;
use super::ui::Ui;
use focus_core::message::{now_ms, Content, Message, UserMessage};
use focus_tui::editor;

impl Ui<'_> {
    pub(super) fn submit(&mut self, text: String, follow_up: bool) {
        editor::append_history(&self.history_file, &text);
        if self.summarizing.is_some() {
            self.notice = Some("wait: summarizing the branch… · Esc cancels".into());
            self.editor.set_text(&text);
            return;
        }
        if self.engine.conversation.is_compacting() && !self.engine.conversation.is_running() {
            self.notice = Some("wait: compacting the history… · Esc cancels".into());
            self.editor.set_text(&text);
            return;
        }
        // `/skill:name` and `/template args` are prompts, expanded before sending
        // (a built-in command of the same name wins).
        let word = text.split_whitespace().next().unwrap_or("");
        let builtin = commands::is_builtin(word);
        let expanded = if builtin {
            Ok(None)
        } else {
            crate::input::expand_typed_command(&text, &self.cwd)
        };
        let text = match expanded {
            Ok(Some(expanded)) => expanded,
            Ok(None) => text,
            Err(error) => {
                self.note(self.style.red(&error));
                self.editor.set_text(&text);
                return;
            }
        };
        if self.shell.is_some() {
            self.notice = Some("wait: a shell command is running · Esc cancels it".into());
            self.editor.set_text(&text);
            return;
        }
        if text.starts_with('!') {
            if let Err(error) = self.run_shell(&text) {
                self.note(self.style.red(&error));
            }
            return;
        }
        if text.trim_start().starts_with('/') && !text.trim_start().starts_with("//") {
            if self.engine.conversation.is_busy() && !commands::safe_while_running(text.trim()) {
                self.notice = Some(
                    "this command waits until the agent is done (Esc aborts); /session, /copy, /hotkeys, /export, /name and /help run now"
                        .into(),
                );
                self.editor.set_text(&text);
                return;
            }
            commands::run(self, text.trim());
            return;
        }
        let files = match self.take_attachments(&text) {
            Ok(files) => files,
            Err(error) => {
                self.note(self.style.red(&error));
                self.editor.set_text(&text);
                return;
            }
        };
        // Attached files come first, as with `focus @FILE message`.
        let mut content = files;
        content.extend(self.take_pasted_images(&text));
        content.push(Content::text(text.clone()));
        let message = Message::User(UserMessage {
            content,
            timestamp: now_ms(),
        });
        // The queue shows a message until it reaches the model, compared by
        // its text as the event has it.
        let text = message_text(&message);
        let conversation = &self.engine.conversation;
        let queued = match follow_up {
            true => conversation.follow_up(message),
            false => conversation.steer(message),
        };
        match queued {
            Ok(()) => self.queued.push((follow_up, text)),
            Err(message) => self.start(vec![*message]),
        }
    }
}
