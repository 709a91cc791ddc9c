//! The approval dialog: a tool call waits for the user, shown above the editor
//! so it cannot be mistaken for the conversation, with keys of its own (y, a, n,
//! and Esc or Ctrl+C to abort the run). A denial's reason is typed in an editor
//! of its own: the draft in the main editor is kept apart.

use super::blocks::{Block, Kind};
use super::keys::Key;
use super::Ui;
use crate::approval::ApprovalAnswer;
use crate::modes::print::clip;
use crate::terminal::reveal::reveal_hidden;
use focus_tools::output::sanitize;

/// Lines of a command shown in the dialog; a longer command is printed whole
/// in the conversation too.
const DIALOG_LINES: usize = 8;

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
            if at > self.screen.committed_blocks() || self.screen.committed_rows() == 0 {
                self.blocks.insert(at, block);
            } else {
                self.blocks.push(block);
            }
        }
        self.approval = Some(pending);
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
            rows.push(
                style.yellow(&style.bold(&format!("? {} wants to run:", clip(&r.tool_name, 40)))),
            );
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
            if self.denying {
                rows.push(style.yellow(
                    "  denied: type why (the model reads it), Enter sends it, Esc aborts the run",
                ));
            } else {
                rows.push(style.yellow(&format!(
                    "  [y] allow once  [a] always allow {} this session  [n] deny  · Esc or Ctrl+C aborts the run",
                    clip(&r.always_rule, 40)
                )));
            }
        }
        rows
    }

    /// A key while an approval is asked: y, a, n (then a reason), Esc or Ctrl+C
    /// (abort the run). The editor's draft is not touched: a reason is typed in an
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
                self.approval = None;
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
            Key::Char('a') | Key::Char('A') => (
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
        self.approval = None;
        self.denying = false;
        self.note(self.style.dim(&note));
    }
}
