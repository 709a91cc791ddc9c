//! How the screen follows the conversation: a prompt starts a run, and at
//! every wake-up of the loop (at least every frame while something goes on)
//! the one call into the harness, `Conversation::poll`, hands over what
//! happened since — the run's events, a compaction between runs, the retry
//! after an overflow, warnings, the end — each turned into blocks and notices
//! here. The conversation records, compacts and retries itself; quitting
//! stops it and waits for its end.

use super::input::Input;
use super::ui::Ui;
use focus_core::message::Message;
use focus_harness::conversation::ConversationEvent;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// How long focus, quitting, waits for an aborted prompt to end.
const STOP_LIMIT: Duration = Duration::from_secs(5);

impl Ui<'_> {
    /// Starts a run with `prompts` (empty: continue).
    pub(super) fn start(&mut self, prompts: Vec<Message>) {
        if let Err(error) = self.engine.conversation.prompt(prompts) {
            self.note(self.style.red(&focus_tools::output::sanitize(&error)));
            return;
        }
        self.waiting = true;
        self.notice = None;
        self.ctrl_c_armed = false;
    }

    /// Starts the next prompt given on the command line, if any.
    pub(super) fn start_next_prompt(&mut self) {
        if let Some(prompt) = self.pending_prompts.pop_front() {
            self.start(vec![prompt]);
        }
    }

    /// Takes what the conversation reported since the last look and shows it.
    /// Whether anything came.
    pub(super) fn take_conversation_events(&mut self) -> bool {
        let events = self.engine.conversation.poll(Instant::now());
        for event in &events {
            self.conversation_event(event);
        }
        !events.is_empty()
    }

    fn conversation_event(&mut self, event: &ConversationEvent) {
        let style = self.style;
        match event {
            ConversationEvent::Agent(event) => self.event(event),
            ConversationEvent::CompactionStart(_) => self.compaction_started(),
            ConversationEvent::CompactionEnd(reason, ended) => {
                self.compaction_ended(*reason, ended)
            }
            ConversationEvent::RetryAfterOverflow => {
                self.note(style.dim("context was too long: compacted, retrying"));
                self.waiting = true;
            }
            ConversationEvent::RecoveryFailed(note) => {
                self.note(style.red(&focus_tools::output::sanitize(note)))
            }
            ConversationEvent::Warning(warning) => {
                self.note(style.yellow(&focus_tools::output::sanitize(warning)))
            }
            ConversationEvent::RunEnded(_) => self.show_run_end(),
        }
        // A manual compaction's end is the conversation's end too.
        if !self.engine.conversation.is_busy()
            && matches!(event, ConversationEvent::CompactionEnd(..))
        {
            self.start_next_prompt();
        }
    }

    /// The run (and what followed it) is over.
    fn show_run_end(&mut self) {
        self.finish_streams();
        self.walk_files_in_background();
        self.git_branch = super::footer::git_branch(&self.cwd);
        self.waiting = false;
        self.busy = None;
        self.queued.clear();
        if self.notice.as_deref() == Some("aborting…") {
            self.notice = None;
        }
        self.start_next_prompt();
    }

    /// Quitting (or stopped by a signal) while a prompt runs: aborts it and waits
    /// (at most [`STOP_LIMIT`]) for its end, so its tools' process groups are
    /// killed and every tool call is answered in the session. An approval still
    /// asked for, or asked meanwhile, is denied.
    pub(super) fn stop_conversation(&mut self, inputs: &Receiver<Input>) {
        if !self.engine.conversation.is_busy() {
            return;
        }
        let deny = |pending: crate::approval::PendingApproval| {
            pending.answer(crate::approval::ApprovalAnswer::Deny(
                "focus is quitting. Do not retry it.".into(),
            ))
        };
        if let Some(pending) = self.approval.take() {
            deny(pending);
        }
        let deadline = Instant::now() + STOP_LIMIT;
        self.engine.conversation.stop(deadline, &mut || {
            while let Ok(input) = inputs.recv_timeout(Duration::ZERO) {
                if let Input::Approval(pending) = input {
                    deny(pending);
                }
            }
        });
    }
}
