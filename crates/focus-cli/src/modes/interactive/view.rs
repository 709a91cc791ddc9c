//! How the UI shows things: each agent event as a change to the conversation's
//! blocks (a prompt, a streamed answer, thinking, a tool call and its result,
//! notes), and the chrome below them (the queue, the notice or the approval
//! dialog, the editor, the footer). [`Screen`](super::screen::Screen) draws both.

use super::blocks::{Block, Kind, Look, Streamed};
use super::footer::human;
use super::footer::layout::{layout, Item};
use super::images::ShownImage;
use super::screen::{visible_width, Chrome};
use super::tool_view::ToolBlock;
use super::transcript::summary_block;
use super::ui::Ui;
use crate::modes::print::{clip, compaction_note, end_reason_text};
use crate::terminal::reveal::reveal_hidden;
use crate::terminal::width::text_width;
use focus_core::event::{AgentEvent, EndReason};
use focus_core::message::{Content, Message, StopReason};
use focus_core::provider::StreamEvent;
use focus_tools::output::sanitize;

/// The spinner's frames.
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

impl Ui<'_> {
    /// Shows one agent event.
    pub(super) fn event(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::MessageStart {
                message: Message::User(u),
            } => {
                let text: Vec<&str> = u.content.iter().filter_map(Content::as_text).collect();
                let text = text.join("\n");
                let images = ShownImage::all(&u.content);
                // A queued message reached the model: it leaves the queue.
                if let Some(at) = self.queued.iter().position(|(_, q)| *q == text) {
                    self.queued.remove(at);
                }
                self.blocks.push(Block::done(Kind::User { text, images }));
            }
            AgentEvent::MessageUpdate { event, .. } => self.stream_event(event),
            AgentEvent::AutoRetryStart { .. } => {
                let line = crate::modes::print::retry_notice(event).unwrap_or_default();
                self.notice = Some(format!("{line} · Esc cancels"));
                self.busy = Some("retrying");
            }
            AgentEvent::AutoRetryEnd { .. } => {
                self.notice = None;
                self.busy = None;
            }
            // A compaction inside the run: Esc aborts the run, which cancels it.
            AgentEvent::CompactionStart { .. } => {
                let line = compaction_note(event).unwrap_or_default();
                self.notice = Some(format!("{line} · Esc cancels"));
                self.busy = Some("compacting");
            }
            AgentEvent::CompactionEnd { result, .. } => {
                self.notice = None;
                self.busy = None;
                if let Some(note) = compaction_note(event) {
                    self.note(self.style.dim(&note));
                }
                if result.is_some() {
                    let context = self.engine.conversation.session.lock().context_messages();
                    self.blocks.extend(summary_block(&context));
                }
            }
            AgentEvent::MessageEnd {
                message: Message::Assistant(m),
            } => {
                self.finish_streams();
                match m.stop_reason {
                    StopReason::Error => {
                        let error = m
                            .error_message
                            .as_deref()
                            .unwrap_or("the model call failed");
                        // The provider's message comes from the network.
                        self.note(self.style.red(&format!("error: {}", sanitize(error))));
                    }
                    StopReason::Aborted => self.note(self.style.dim("(aborted)")),
                    StopReason::Length => {
                        self.note(self.style.yellow("(the answer hit the output token limit)"))
                    }
                    _ => {}
                }
                self.waiting = true;
            }
            AgentEvent::ToolExecutionStart {
                call_id,
                tool_name,
                args,
            } => {
                self.finish_streams();
                let block = ToolBlock::new(call_id, tool_name, args);
                self.blocks.push(Block::live(Kind::Tool(Box::new(block))));
                self.waiting = true;
            }
            AgentEvent::ToolExecutionUpdate {
                call_id, partial, ..
            } => {
                if let Some(tool) = self.tool_block(call_id) {
                    tool.progress(partial.text_content());
                }
            }
            AgentEvent::ToolExecutionEnd {
                call_id, output, ..
            } => {
                let text = output.text_content();
                let (details, failed) = (output.details.clone(), output.is_error);
                if let Some(tool) = self.tool_block(call_id) {
                    tool.end(text, details, failed);
                    tool.show_images(ShownImage::all(&output.content));
                }
                if let Some(block) = self
                    .blocks
                    .iter_mut()
                    .rev()
                    .find(|b| matches!(&b.kind, Kind::Tool(t) if t.call_id == *call_id))
                {
                    block.finished = true;
                }
            }
            AgentEvent::AgentEnd { reason, .. } => {
                // Whatever is still live (a call the abort interrupted) is done.
                for block in self.blocks.iter_mut().filter(|b| !b.finished) {
                    if let Kind::Tool(tool) = &mut block.kind {
                        tool.end("(interrupted)".into(), Default::default(), true);
                    }
                    block.finished = true;
                }
                match reason {
                    EndReason::Completed | EndReason::Aborted => {}
                    EndReason::Error(_) => {} // shown with the failed message
                    other => self.note(self.style.yellow(&end_reason_text(other))),
                }
            }
            _ => {}
        }
    }

    /// The tool block of call `call_id`.
    pub(super) fn tool_block(&mut self, call_id: &str) -> Option<&mut ToolBlock> {
        self.blocks
            .iter_mut()
            .rev()
            .find_map(|b| match &mut b.kind {
                Kind::Tool(tool) if tool.call_id == call_id => Some(tool.as_mut()),
                _ => None,
            })
    }

    pub(super) fn stream_event(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextStart { .. } => {
                self.waiting = false;
                self.streaming(false);
            }
            StreamEvent::TextDelta { delta, .. } => {
                self.waiting = false;
                self.streaming(false).push(delta);
            }
            StreamEvent::ThinkingStart { .. } => {
                self.waiting = false;
                self.streaming(true);
            }
            StreamEvent::ThinkingDelta { delta, .. } => {
                self.waiting = false;
                self.streaming(true).push(delta);
            }
            StreamEvent::TextEnd { .. } | StreamEvent::ThinkingEnd { .. } => self.finish_streams(),
            StreamEvent::ToolCallStart { .. } => self.waiting = false,
            _ => {}
        }
    }

    /// The live answer (or thinking) block, started if there is none. It is
    /// found behind the notes said while it streams (they wait after it, in
    /// the live area: a note never splits a streaming answer).
    fn streaming(&mut self, thinking: bool) -> &mut Streamed {
        let from = self.screen.committed_parts().min(self.blocks.len());
        let open = self.blocks[from..].iter().rposition(|b| {
            !b.finished
                && match b.kind {
                    Kind::Answer(_) => !thinking,
                    Kind::Thinking(_) => thinking,
                    _ => false,
                }
        });
        let index = match open {
            Some(at) => from + at,
            None => {
                self.finish_streams();
                let text = Streamed::new("");
                self.blocks.push(Block::live(if thinking {
                    Kind::Thinking(text)
                } else {
                    Kind::Answer(text)
                }));
                self.blocks.len() - 1
            }
        };
        match &mut self.blocks[index].kind {
            Kind::Answer(text) | Kind::Thinking(text) => text,
            _ => unreachable!("the index is of a streamed block"),
        }
    }

    /// Finishes the streamed blocks (an answer or thinking ended).
    pub(super) fn finish_streams(&mut self) {
        let from = self.screen.committed_parts().min(self.blocks.len());
        for block in &mut self.blocks[from..] {
            if matches!(block.kind, Kind::Answer(_) | Kind::Thinking(_)) {
                block.finished = true;
            }
        }
    }

    /// Adds a finished note (already styled; sanitized by the caller).
    pub(super) fn note(&mut self, text: String) {
        self.blocks.push(Block::done(Kind::Note(text)));
    }

    /// The footer: spinner or idle mark, model, thinking, tokens, cost, context use
    /// (laid out by [`layout`]: shortened, then thinned, least important first).
    pub(super) fn footer(&self) -> String {
        let model = self.engine.conversation.config.provider.model();
        let totals = super::footer::session_totals(self.engine);
        let context = super::footer::context_tokens(&self.engine.conversation.history);
        let percent = if model.context_window > 0 {
            context as f64 * 100.0 / model.context_window as f64
        } else {
            0.0
        };
        let mark = if self.engine.conversation.is_running() {
            if self.waiting || self.busy.is_some() {
                SPINNER[self.frame % SPINNER.len()].to_string()
            } else {
                "●".to_string()
            }
        } else {
            "○".to_string()
        };
        let width = self.screen.size_now().0;
        let label = model.label();
        let id = label.rsplit('/').next().unwrap_or(&label).to_string();
        let thinking = self.engine.conversation.config.options.thinking.as_str();
        let tilde = if totals.estimated { "~" } else { "" };
        let (input, output) = (human(totals.input), human(totals.output));
        let assumed = if model.context_window_assumed {
            " (assumed)"
        } else {
            ""
        };
        let window = human(model.context_window);
        // Ranks: tokens and cost, the model, context, thinking, then the rest, hints
        // last (the model's label is shortened to its id before it goes).
        let mut items = vec![
            Item::new(9, &[label.clone(), id.clone(), clip(&id, 12)]),
            Item::new(
                7,
                &[format!("thinking {thinking}"), format!("th {thinking}")],
            ),
            Item::new(
                10,
                &[
                    format!("{tilde}↑{input} ↓{output} ${:.3}", totals.cost),
                    format!("{tilde}↑{input}↓{output} ${:.2}", totals.cost),
                ],
            ),
            Item::new(
                8,
                &[
                    format!("ctx {percent:.1}% of {window}{assumed}"),
                    format!("ctx {percent:.1}%"),
                    format!("{percent:.0}%"),
                ],
            ),
        ];
        if let Some(gate) = &self.engine.gatekeeper {
            items.push(Item::new(6, &[gate.mode().as_str().to_string()]));
        }
        if let Some(branch) = &self.git_branch {
            items.push(Item::new(
                5,
                &[format!("⎇ {branch}"), format!("⎇ {}", clip(branch, 12))],
            ));
        }
        if let Some(name) = self.engine.conversation.session.lock().name() {
            let name = reveal_hidden(&sanitize(name));
            items.push(Item::new(4, &[clip(&name, 30), clip(&name, 12)]));
        }
        if self.engine.conversation.is_running() {
            items.push(Item::new(3, &["Esc aborts".into(), "Esc".into()]));
        }
        layout(&mark, items, width.saturating_sub(1))
    }

    /// The rows above the editor: the approval dialog, queued messages, the notice.
    fn above_editor(&self) -> Vec<String> {
        let style = self.style;
        let width = self.screen.size_now().0.saturating_sub(1).max(10);
        let mut rows = Vec::new();
        rows.extend(self.dialog_rows(width));
        for (follow_up, text) in &self.queued {
            let what = if *follow_up { "follow-up" } else { "steering" };
            rows.push(style.dim(&format!(
                "  ⧗ {what} queued: {}",
                clip(text, width.saturating_sub(24).max(10))
            )));
        }
        if let Some(notice) = &self.notice {
            let spin = match self.busy {
                Some(_) => format!("{} ", SPINNER[self.frame % SPINNER.len()]),
                None => String::new(),
            };
            rows.push(style.yellow(&format!("{spin}{notice}")));
        }
        rows
    }

    pub(super) fn redraw(&mut self) {
        let (width, _) = self.screen.size_now();
        let footer = self.footer();
        let prompt = if self.denying { "reason› " } else { "› " };
        let text = if self.denying {
            self.reason.text()
        } else {
            self.editor.text()
        };
        let cursor = if self.denying {
            self.reason.cursor()
        } else {
            self.editor.cursor()
        };
        let before_cursor: String = text.chars().take(cursor).collect();
        let cursor_line = before_cursor.matches('\n').count();
        let cursor_col =
            visible_width(prompt) + before_cursor.rsplit('\n').next().map_or(0, text_width);
        let editor = text
            .split('\n')
            .enumerate()
            .map(|(i, line)| format!("{}{line}", if i == 0 { prompt } else { "  " }))
            .collect();
        let mut above = self.above_editor();
        // A picker sits right above the editor, in what the window has left.
        let (_, height) = self.screen.size_now();
        let mut editor_rows: Vec<String> = editor;
        let mut cursor = (cursor_line, cursor_col);
        let room = height.saturating_sub(above.len() + editor_rows.len() + 3);
        above.extend(self.picker_rows(width.saturating_sub(1), room));
        // `/tree` takes the whole window: its rows, its input line, the footer.
        if let Some(rows) = self.tree_rows(width.saturating_sub(1), height) {
            let (line, column) = self
                .tree
                .as_ref()
                .map(|t| t.input_line())
                .unwrap_or_default();
            above = rows;
            editor_rows = vec![line];
            cursor = (0, column);
        }
        // So do `/rewind` and `/diff`.
        if let Some((rows, line, column)) = self
            .panels
            .rows(width.saturating_sub(1), height.saturating_sub(2))
        {
            above = rows;
            editor_rows = vec![line];
            cursor = (0, column);
        }
        let chrome = Chrome {
            above,
            editor: editor_rows,
            cursor,
            below: vec![self.style.dim(&footer)],
        };
        let look = Look {
            width,
            style: self.style,
            show_thinking: self.show_thinking,
            hyperlinks: self.hyperlinks,
            graphics: self.graphics,
            host: self.host,
        };
        self.screen.draw(&mut self.blocks, &look, &chrome);
        self.screen.flush();
        self.approval_shown();
    }
}
