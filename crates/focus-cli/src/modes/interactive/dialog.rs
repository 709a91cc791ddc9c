//! The approval dialog: a tool call waits for the user, shown above the editor
//! so it cannot be mistaken for the conversation, with keys of its own (y, n,
//! Shift+Tab, and Esc or Ctrl+C to abort the run). A denial's reason is typed in
//! an editor of its own: the draft in the main editor is kept apart.
//!
//! A dialog cannot be typed into by accident: a key read before the dialog was
//! drawn, or within [`ANSWER_DELAY`] after, is not an answer — it goes to the
//! editor as typing (the clock starts when the dialog is drawn, and each key
//! carries the time it was read). "Always allow" is Shift+Tab, a key no word
//! contains, and the dialog says so; a request that cannot be allowed always (a
//! protected file) offers no such key.

use super::blocks::{Block, Kind};
use super::ui::Ui;
use crate::approval::ApprovalAnswer;
use crate::modes::print::clip;
use crate::terminal::reveal::reveal_hidden;
use focus_tools::output::sanitize;
use focus_tui::keys::Key;

/// Lines of a command shown in the dialog; a longer command is printed whole
/// in the conversation too.
const DIALOG_LINES: usize = 8;

/// How long after the dialog is drawn a key starts to count as an answer.
pub const ANSWER_DELAY: std::time::Duration = std::time::Duration::from_millis(400);

impl Ui<'_> {
    /// An approval is asked: the dialog opens; a command too long for it is
    /// printed whole in the conversation first (nothing to approve is hidden).
    pub(super) fn approval_asked(&mut self, pending: crate::approval::PendingApproval) {
        let summary = sanitize(&pending.request.summary).into_owned();
        if summary.lines().count() > DIALOG_LINES {
            let tool = clip(&pending.request.tool_name, 40);
            let mut text = self.style.yellow(&format!("? {tool} wants to run:"));
            for line in summary.lines() {
                text.push_str(&format!("\n  {}", reveal_hidden(line)));
            }
            // Before the call's own (live) block, so it reaches the scrollback
            // now, whole, instead of waiting below it in the live area.
            let at = self
                .blocks
                .iter()
                .position(|b| !b.finished)
                .unwrap_or(self.blocks.len());
            let block = Block::done(Kind::Note(text));
            if at > self.screen.committed_parts() || self.screen.committed_rows() == 0 {
                self.blocks.insert(at, block);
            } else {
                self.blocks.push(block);
            }
        }
        if let Some(tool) = self.tool_block(&pending.request.call_id) {
            tool.waits_for_user();
        }
        self.approval = Some(pending);
        self.approval_drawn = None;
    }

    /// The open approval is answered (or dropped): its call's clock goes on.
    fn approval_closed(&mut self) {
        if let Some(pending) = self.approval.take() {
            if let Some(tool) = self.tool_block(&pending.request.call_id) {
                tool.answered();
            }
        }
    }

    /// Notes that the frame just drawn showed the dialog (the first such frame
    /// starts the [`ANSWER_DELAY`] clock).
    pub(super) fn approval_shown(&mut self) {
        if self.approval.is_some() && self.approval_drawn.is_none() {
            self.approval_drawn = Some(std::time::Instant::now());
        }
    }

    /// Whether a key read at `read_at` may answer the open dialog: it was read
    /// at least [`ANSWER_DELAY`] after the dialog was first drawn.
    pub(super) fn approval_answerable(&self, read_at: std::time::Instant) -> bool {
        self.approval_drawn
            .is_some_and(|drawn| read_at >= drawn + ANSWER_DELAY)
    }

    /// The approval dialog's rows (none when no approval is asked): the tool,
    /// the command (wrapped; a longer one's first lines, the whole of it being
    /// printed in the conversation: [`Ui::approval_asked`]), why it is asked,
    /// the keys, and the rule "always" would add.
    pub(super) fn dialog_rows(&self, width: usize) -> Vec<String> {
        let style = self.style;
        let mut rows = Vec::new();
        if let Some(pending) = &self.approval {
            let r = &pending.request;
            rows.push(style.yellow(&style.bold(&super::agents::dialog_title(r))));
            let summary = sanitize(&r.summary);
            let lines: Vec<&str> = summary.lines().collect();
            for line in lines.iter().take(DIALOG_LINES) {
                rows.push(format!("  {}", reveal_hidden(line)));
            }
            if lines.len() > DIALOG_LINES {
                rows.push(style.yellow(&format!(
                    "  … {} more lines: the whole command is printed above",
                    lines.len() - DIALOG_LINES
                )));
            }
            rows.push(style.dim(&format!("  ({})", clip(&r.reason, width))));
            if !self.approval_answerable(std::time::Instant::now()) {
                // Until keys count as answers the key line says so; what is
                // typed meanwhile goes to the editor.
                rows.push(style.dim("  (a moment: keys typed now go to the editor)"));
            } else if self.denying {
                rows.push(style.yellow(
                    "  denied: type why (the model reads it), Enter sends it, Esc aborts the run",
                ));
            } else {
                rows.push(
                    style.yellow("  [y] allow once  [n] deny  · Esc or Ctrl+C aborts the run"),
                );
                if !r.always_rule.is_empty() {
                    rows.push(style.yellow(&format!(
                        "  [Shift+Tab] always allow {} this session",
                        clip(&r.always_rule, width.saturating_sub(40).max(20))
                    )));
                }
            }
        }
        rows
    }

    /// A key while an approval is asked: y, Shift+Tab (always), n (then a
    /// reason), Esc or Ctrl+C (abort the run). The editor's draft is not touched: a reason is typed in an
    /// editor of its own.
    pub(super) fn approval_key(&mut self, key: Key) {
        let Some(request) = &self.approval else {
            return;
        };
        // The tool's name comes from the model: shown printable.
        let tool = clip(&request.request.tool_name, 40);
        let (answer, note) = match key {
            Key::Esc | Key::Ctrl('c') => {
                request.answer(ApprovalAnswer::Deny(
                    "The user aborted the run instead of answering. Do not retry.".into(),
                ));
                self.engine.conversation.abort();
                self.approval_closed();
                self.denying = false;
                self.reason.take();
                self.note(self.style.red(&format!("✗ {tool}: not run (you aborted)")));
                self.notice = Some("aborting…".into());
                return;
            }
            _ if self.denying => {
                if key == Key::Enter {
                    let reason = self.reason.take();
                    let shown = clip(&reason, 60);
                    (
                        ApprovalAnswer::Deny(reason),
                        format!("✗ {tool}: denied ({shown})"),
                    )
                } else {
                    self.reason.handle(&key);
                    return;
                }
            }
            Key::Char('y') | Key::Char('Y') => {
                (ApprovalAnswer::AllowOnce, format!("✓ {tool}: allowed once"))
            }
            Key::BackTab if !request.request.always_rule.is_empty() => (
                ApprovalAnswer::AllowAlways,
                format!(
                    "✓ {tool}: always allowed this session ({})",
                    clip(&request.request.always_rule, 60)
                ),
            ),
            Key::Char('n') | Key::Char('N') => {
                self.denying = true;
                return;
            }
            _ => return,
        };
        request.answer(answer);
        self.approval_closed();
        self.denying = false;
        self.note(self.style.dim(&note));
    }
}
