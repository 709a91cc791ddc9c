//! A line the user sends: a built-in `/command`, a `/skill:` or template
//! expanded, a `!command`, or a message — steering or a follow-up while the
//! agent works, else a new prompt for the conversation.

use super::commands;
use super::transcript::message_text;
use super::ui::Ui;
use focus_core::message::{now_ms, Content, Message, UserMessage};
use focus_tui::editor;

impl Ui<'_> {
    /// Sends a line: to the history file first, then, unless something must
    /// end first (the line goes back to the editor), as a `!command`, a
    /// `/command` or a message.
    pub(super) fn submit(&mut self, text: String, follow_up: bool) {
        editor::append_history(&self.history_file, &text);
        if let Some(wait) = self.busy_before_sending() {
            self.notice = Some(wait.into());
            self.editor.set_text(&text);
            return;
        }
        let Some(text) = self.expand_typed_command(text) else {
            return;
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
            self.run_slash_command(&text);
            return;
        }
        self.send_message(text, follow_up);
    }

    /// What keeps any line from being sent now (a branch being summarized, a
    /// compaction between runs), as the notice says it.
    fn busy_before_sending(&self) -> Option<&'static str> {
        if self.summarizing.is_some() {
            return Some("wait: summarizing the branch… · Esc cancels");
        }
        let conversation = &self.engine.conversation;
        if conversation.is_compacting() && !conversation.is_running() {
            return Some("wait: compacting the history… · Esc cancels");
        }
        None
    }

    /// `/skill:name` and `/template args` expanded into the prompt they stand
    /// for (a built-in command of the same name wins); any other line as it
    /// is. `None` when the expansion failed: the error is shown and the line
    /// is back in the editor.
    fn expand_typed_command(&mut self, text: String) -> Option<String> {
        let word = text.split_whitespace().next().unwrap_or("");
        if commands::is_builtin(word) {
            return Some(text);
        }
        match crate::input::expand_typed_command(&text, &self.cwd) {
            Ok(Some(expanded)) => Some(expanded),
            Ok(None) => Some(text),
            Err(error) => {
                self.note(self.style.red(&error));
                self.editor.set_text(&text);
                None
            }
        }
    }

    /// A `/command` run now, unless it must wait for the agent (then it goes
    /// back to the editor).
    fn run_slash_command(&mut self, text: &str) {
        if self.engine.conversation.is_busy() && !commands::safe_while_running(text.trim()) {
            self.notice = Some(
                "this command waits until the agent is done (Esc aborts); /session, /copy, /hotkeys, /export, /name and /help run now"
                    .into(),
            );
            self.editor.set_text(text);
            return;
        }
        commands::run(self, text.trim());
    }

    /// A message with its `@` files and pasted images: steering (or a
    /// follow-up) while the agent works, else a new prompt.
    fn send_message(&mut self, text: String, follow_up: bool) {
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
        content.push(Content::text(text));
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
