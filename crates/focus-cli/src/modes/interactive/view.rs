//! How the UI shows things: each agent event as permanent output (user prompts,
//! the streamed answer through [`Markdown`](super::markdown::Markdown), thinking,
//! tool headers and result previews), and the live area (the partial line, a
//! running tool's last output line, the footer and the editor).

use super::screen::visible_width;
use super::{human, Stream, Ui, SPINNER};
use crate::modes::print::{clip, end_reason_text, tool_summary};
use crate::terminal;
use crate::terminal::width::{fit, text_width};
use focus_core::event::{AgentEvent, EndReason};
use focus_core::message::{Content, Message, StopReason};
use focus_core::provider::StreamEvent;
use focus_tools::output::sanitize;

impl Ui<'_> {
    /// Shows one agent event.
    pub(super) fn event(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::MessageStart {
                message: Message::User(u),
            } => {
                let text: Vec<&str> = u.content.iter().filter_map(Content::as_text).collect();
                let images = u
                    .content
                    .iter()
                    .filter(|c| matches!(c, Content::Image { .. }))
                    .count();
                let mut shown = format!("› {}", sanitize(&text.join("\n  ")));
                if images > 0 {
                    shown.push_str(&format!(" [{images} image(s)]"));
                }
                self.screen
                    .permanent(&format!("\n{}", self.style.bold(&shown)));
            }
            AgentEvent::MessageStart {
                message: Message::Assistant(_),
            } => {
                self.markdown.reset();
            }
            AgentEvent::MessageUpdate { event, .. } => self.stream_event(event),
            AgentEvent::AutoRetryStart { .. } => {
                let line = crate::modes::print::retry_notice(event).unwrap_or_default();
                self.notice = Some(format!("{line} · Esc cancels"));
            }
            AgentEvent::AutoRetryEnd { .. } => self.notice = None,
            AgentEvent::MessageEnd {
                message: Message::Assistant(m),
            } => {
                self.flush_partial();
                match m.stop_reason {
                    StopReason::Error => {
                        let error = m
                            .error_message
                            .as_deref()
                            .unwrap_or("the model call failed");
                        // The provider's message comes from the network.
                        self.screen
                            .permanent(&self.style.red(&format!("error: {}", sanitize(error))));
                    }
                    StopReason::Aborted => self.screen.permanent(&self.style.dim("(aborted)")),
                    StopReason::Length => self
                        .screen
                        .permanent(&self.style.yellow("(the answer hit the output token limit)")),
                    _ => {}
                }
                self.waiting = true;
            }
            AgentEvent::ToolExecutionStart {
                tool_name, args, ..
            } => {
                self.flush_partial();
                self.screen.permanent(&format!(
                    "{} {}",
                    self.style.blue("●"),
                    self.style.bold(&tool_summary(tool_name, args))
                ));
                self.waiting = true;
            }
            AgentEvent::ToolExecutionUpdate { partial, .. } => {
                let text = partial.text_content();
                self.tool_progress = text
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .map(String::from);
            }
            AgentEvent::ToolExecutionEnd { output, .. } => {
                self.tool_progress = None;
                let text = output.text_content();
                let lines: Vec<&str> = text.lines().collect();
                let mut preview = String::new();
                for line in lines.iter().take(3) {
                    preview.push_str(&format!("  ⎿ {}\n", clip(line, 150)));
                }
                if lines.len() > 3 {
                    preview.push_str(&format!("  ⎿ … {} more lines\n", lines.len() - 3));
                }
                if lines.is_empty() {
                    preview.push_str("  ⎿ (no output)\n");
                }
                let styled = if output.is_error {
                    self.style.red(preview.trim_end())
                } else {
                    self.style.dim(preview.trim_end())
                };
                self.screen.permanent(&styled);
            }
            AgentEvent::AgentEnd { reason, .. } => match reason {
                EndReason::Completed | EndReason::Aborted => {}
                EndReason::Error(_) => {} // shown with the failed message
                other => self
                    .screen
                    .permanent(&self.style.yellow(&end_reason_text(other))),
            },
            _ => {}
        }
    }

    pub(super) fn stream_event(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextDelta { delta, .. } => {
                self.waiting = false;
                self.switch_stream(Stream::Text);
                self.push_stream(delta);
            }
            StreamEvent::ThinkingStart { .. } => {
                self.waiting = false;
                self.switch_stream(Stream::Thinking);
                self.thinking_chars = 0;
            }
            StreamEvent::ThinkingDelta { delta, .. } => {
                self.waiting = false;
                self.switch_stream(Stream::Thinking);
                self.thinking_chars += delta.chars().count();
                if self.show_thinking {
                    self.push_stream(delta);
                }
            }
            StreamEvent::ThinkingEnd { .. } => {
                self.flush_partial();
                if !self.show_thinking {
                    self.screen.permanent(&self.style.dim(&format!(
                        "∴ thought for {} characters (Ctrl+T shows thinking)",
                        self.thinking_chars
                    )));
                }
            }
            StreamEvent::TextEnd { .. } => self.flush_partial(),
            StreamEvent::ToolCallStart { .. } => self.waiting = false,
            _ => {}
        }
    }

    pub(super) fn switch_stream(&mut self, kind: Stream) {
        if self.stream != kind {
            self.flush_partial();
            self.stream = kind;
        }
    }

    /// Adds streamed text; each completed line becomes permanent, styled.
    pub(super) fn push_stream(&mut self, delta: &str) {
        // Model text must not drive the terminal (nor, with a bare `\r` or a
        // backspace, break the screen's count of the rows it drew).
        self.partial.push_str(&sanitize(delta));
        while let Some(newline) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=newline).collect();
            let line = line.trim_end_matches('\n');
            let styled = self.style_line(line);
            self.screen.permanent(&styled);
        }
    }

    /// Styles one complete line, wrapped at word boundaries to the terminal width
    /// (code blocks are left to the terminal, so copying them keeps their lines).
    pub(super) fn style_line(&mut self, line: &str) -> String {
        let width = terminal::width().saturating_sub(1).max(20);
        match self.stream {
            Stream::Thinking => wrap_words(line, width)
                .iter()
                .map(|piece| self.style.dim(&self.style.italic(piece)))
                .collect::<Vec<_>>()
                .join("\n"),
            _ if self.markdown.in_code() || line.trim_start().starts_with("```") => {
                self.markdown.line(line, self.style)
            }
            _ => {
                // Room for the bullet that replaces "- ": the same width.
                let pieces = wrap_words(line, width);
                let indent = " ".repeat(line.len() - line.trim_start().len() + 2);
                let mut out = Vec::with_capacity(pieces.len());
                for (i, piece) in pieces.iter().enumerate() {
                    if i == 0 {
                        out.push(self.markdown.line(piece, self.style));
                    } else {
                        let is_item = ["- ", "* ", "+ "]
                            .iter()
                            .any(|b| line.trim_start().starts_with(b));
                        let lead = if is_item { indent.as_str() } else { "" };
                        let styled = super::markdown::inline(piece, self.style);
                        out.push(format!("{lead}{styled}"));
                    }
                }
                out.join("\n")
            }
        }
    }

    /// Makes the partial line permanent.
    pub(super) fn flush_partial(&mut self) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            let styled = self.style_line(&line);
            self.screen.permanent(&styled);
        }
        self.stream = Stream::None;
    }

    /// The footer: spinner or idle mark, model, thinking, tokens, cost, context use.
    pub(super) fn footer(&self) -> String {
        let model = self.engine.config.provider.model();
        let (mut input, mut output, mut cost) = (0u64, 0u64, 0.0f64);
        let mut context = 0u64;
        for m in self.engine.history.iter().filter_map(Message::as_assistant) {
            // Token counts come from servers and session files: saturate.
            let u = &m.usage;
            input = input.saturating_add(u.input).saturating_add(u.cache_read);
            output = output.saturating_add(u.output);
            cost += u.cost.total;
            let used = [u.input, u.cache_read, u.cache_write, u.output]
                .into_iter()
                .fold(0u64, u64::saturating_add);
            if used > 0 {
                context = used;
            }
        }
        let percent = context
            .saturating_mul(100)
            .checked_div(model.context_window)
            .unwrap_or(0);
        let mark = if self.running.is_some() {
            if self.waiting {
                SPINNER[self.frame % SPINNER.len()].to_string()
            } else {
                "●".to_string()
            }
        } else {
            "○".to_string()
        };
        let mut text = format!(
            "{mark} {}/{} · thinking {} · ↑{} ↓{} · ${:.3} · ctx {}%",
            model.provider,
            model.id,
            self.engine.config.options.thinking.as_str(),
            human(input),
            human(output),
            cost,
            percent
        );
        if self.running.is_some() {
            text.push_str(" · Esc aborts");
        }
        if let Some(notice) = &self.notice {
            text.push_str(" · ");
            text.push_str(notice);
        }
        text
    }

    pub(super) fn redraw(&mut self) {
        let width = terminal::width();
        let mut lines = Vec::new();
        if !self.partial.is_empty() {
            let partial = match self.stream {
                Stream::Thinking => self.style.dim(&self.partial),
                _ => self.partial.clone(),
            };
            lines.push(partial);
        }
        if let Some(progress) = &self.tool_progress {
            let line = format!("  ⎿ {}", clip(progress, width.saturating_sub(6).max(10)));
            lines.push(self.style.dim(&line));
        }
        let footer = clip(&self.footer(), width.saturating_sub(1).max(10));
        lines.push(self.style.dim(&footer));
        let prompt = if self.approval.is_some() {
            "reason› "
        } else {
            "› "
        };
        let text = self.editor.text();
        let before_cursor: String = text.chars().take(self.editor.cursor()).collect();
        let cursor_line = before_cursor.matches('\n').count();
        let cursor_col =
            visible_width(prompt) + before_cursor.rsplit('\n').next().map_or(0, text_width);
        let first_editor_line = lines.len();
        for (i, line) in text.split('\n').enumerate() {
            let lead = if i == 0 { prompt } else { "  " };
            lines.push(format!("{lead}{line}"));
        }
        self.screen
            .draw_live(&lines, (first_editor_line + cursor_line, cursor_col), width);
        self.screen.flush();
    }
}

/// Splits `line` into pieces of at most `width` columns at spaces, keeping the
/// first piece's indentation (a word longer than the room left is cut, never inside
/// a wide character; runs of spaces between words become one). Text without spaces
/// (Chinese, Japanese) is cut wherever the width runs out.
pub fn wrap_words(line: &str, width: usize) -> Vec<String> {
    let width = width.max(2);
    if text_width(line) <= width {
        return vec![line.to_string()];
    }
    let (indent, body) = line.split_at(line.len() - line.trim_start().len());
    let mut pieces = Vec::new();
    let mut current = indent.to_string();
    let mut current_len = text_width(indent);
    let mut has_word = false;
    for word in body.split(' ').filter(|w| !w.is_empty()) {
        let mut word = word;
        if has_word && current_len + 1 + text_width(word) > width {
            pieces.push(std::mem::take(&mut current));
            current_len = 0;
            has_word = false;
        }
        if has_word {
            current.push(' ');
            current_len += 1;
        }
        while current_len + text_width(word) > width {
            let (mut head, _) = fit(word, width.saturating_sub(current_len));
            if head.is_empty() && current_len == 0 {
                // Not even one character fits an empty row: take one anyway.
                head = word.chars().next().map_or("", |c| &word[..c.len_utf8()]);
            }
            current.push_str(head);
            pieces.push(std::mem::take(&mut current));
            current_len = 0;
            word = &word[head.len()..];
        }
        current.push_str(word);
        current_len += text_width(word);
        has_word = true;
    }
    if !current.is_empty() || pieces.is_empty() {
        pieces.push(current);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_wrap_at_spaces_and_long_words_are_cut() {
        assert_eq!(wrap_words("short", 10), ["short"]);
        assert_eq!(
            wrap_words("one two three four", 9),
            ["one two", "three", "four"]
        );
        assert_eq!(wrap_words("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
        assert_eq!(
            wrap_words("- item with words", 8),
            ["- item", "with", "words"]
        );
        for piece in wrap_words("the quick brown fox jumps over the lazy dog", 7) {
            assert!(text_width(&piece) <= 7, "{piece:?}");
        }
    }

    #[test]
    fn wide_characters_wrap_by_columns() {
        assert_eq!(wrap_words("你好世界你好", 5), ["你好", "世界", "你好"]);
        assert_eq!(wrap_words("看 README 文件", 8), ["看", "README", "文件"]);
        assert_eq!(wrap_words("ab 你好世界", 5), ["ab", "你好", "世界"]);
        for width in 2..12 {
            for piece in wrap_words("中文和 English 混排的一行文字，很长很长。", width)
            {
                assert!(text_width(&piece) <= width, "{width}: {piece:?}");
            }
        }
    }
}
