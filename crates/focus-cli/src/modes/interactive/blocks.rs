//! The conversation as blocks: a prompt of the user, an answer, a piece of
//! thinking, a tool call with its result, a note of focus, a summary. A block is
//! *live* while it can still change (text streaming in, a tool running) and
//! *finished* afterwards; [`Screen`](super::screen::Screen) prints a finished
//! block to the scrollback once and redraws live ones in place.
//!
//! A block renders itself to rows for a width ([`Block::rows`]); its *stable*
//! rows ([`Block::stable_rows`]) are the leading ones that appending more stream
//! cannot change (the complete lines of an answer), which the screen may print
//! to the scrollback before the block is finished.

use super::images::ShownImage;
use super::tool_view::ToolBlock;
use crate::terminal::style::Style;
use focus_tools::output::sanitize;
use focus_tui::columns::note_rows;
use focus_tui::links::Resolve;
use focus_tui::markdown::{is_table_row, Markdown};
use focus_tui::rows::wrap_words;
use focus_tui::rows::{fit_rows, split_rows, text_rows, wrap_styled};
use focus_tui::table::table_linked;

/// How blocks are drawn now (the same for every block of one frame).
#[derive(Clone, Copy, Debug)]
pub struct Look {
    /// Columns of the window.
    pub width: usize,
    /// Colors and attributes.
    pub style: Style,
    /// Ctrl+T: thinking shown whole, or one line.
    pub show_thinking: bool,
    /// Links as OSC 8 hyperlinks (the terminal shows them).
    pub hyperlinks: bool,
    /// Images drawn inline with this protocol (else only named).
    pub graphics: Option<focus_tui::graphics::Protocol>,
    /// The host of `file://` links.
    pub host: focus_tui::links::Host,
}

/// What a block holds.
pub enum Kind {
    /// Text focus wrote (already styled; never model text unless sanitized).
    Note(String),
    /// A prompt of the user (sanitized when shown), with its image count.
    User {
        /// What the user typed.
        text: String,
        /// The images that came with it.
        images: Vec<ShownImage>,
    },
    /// An answer, as Markdown source.
    Answer(Streamed),
    /// Reasoning, as plain source.
    Thinking(Streamed),
    /// A tool call and its result.
    Tool(Box<ToolBlock>),
    /// A summary that replaced older history (compaction, a left branch).
    Summary {
        /// What it summarizes.
        label: String,
        /// The summary (model text: sanitized when shown).
        text: String,
    },
}

/// One block of the conversation.
pub struct Block {
    /// What it holds.
    pub kind: Kind,
    /// Whether it can still change.
    pub finished: bool,
    /// Ctrl+O: shown in full.
    pub expanded: bool,
}

/// The most bytes of a partial line a live block wraps at each frame.
pub const PREVIEW_BYTES: usize = 16 * 1024;

/// Streamed source text with the rows of its complete lines kept (rendered once
/// per width: a long answer is not styled again at every frame).
#[derive(Default)]
pub struct Streamed {
    source: String,
    /// Rows of the complete lines for `cache_width`, and the bytes of `source`
    /// they cover, with the Markdown state after them.
    cache: Vec<String>,
    cache_width: usize,
    cache_style: Option<Style>,
    covered: usize,
    markdown: Markdown,
    /// Ctrl+O: tables shown as their Markdown source, and what the cache holds.
    raw_tables: bool,
    cache_raw: bool,
}

impl Streamed {
    /// Streamed text starting with `text`.
    pub fn new(text: &str) -> Streamed {
        let mut streamed = Streamed::default();
        streamed.push(text);
        streamed
    }

    /// Appends a delta (sanitized: model text never drives the terminal).
    pub fn push(&mut self, delta: &str) {
        self.source.push_str(&sanitize(delta));
    }

    /// Whether the text holds a table (Ctrl+O can show its Markdown).
    pub fn has_table(&self) -> bool {
        self.source.lines().any(is_table_row)
    }

    /// Ctrl+O: shows tables as their Markdown source (`true`) or laid out.
    pub fn show_raw_tables(&mut self, raw: bool) {
        self.raw_tables = raw;
    }

    /// A table's rows: laid out, or (Ctrl+O) its source lines, dim, wrapped.
    fn table_rows(&self, lines: &[&str], look: &Look) -> Vec<String> {
        if self.raw_tables {
            let width = look.width.max(2);
            lines
                .iter()
                .flat_map(|line| split_rows(line, width))
                .map(|row| look.style.dim(&row))
                .collect()
        } else {
            let paths = Some((super::linkify::resolve_path as Resolve, look.host));
            table_linked(
                lines,
                look.style,
                look.width,
                look.hyperlinks.then_some(paths),
            )
        }
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.source
    }

    /// Brings the rows of complete lines up to date for `look`. A table is
    /// laid out once a line after it shows it ended (its column widths depend on
    /// all its rows).
    fn update(&mut self, look: &Look, thinking: bool) {
        if self.cache_width != look.width
            || self.cache_style != Some(look.style)
            || self.cache_raw != self.raw_tables
        {
            self.cache_raw = self.raw_tables;
            self.cache.clear();
            self.covered = 0;
            self.markdown = Markdown::new();
            self.cache_width = look.width;
            self.cache_style = Some(look.style);
        }
        self.markdown.hyperlinks = look.hyperlinks;
        self.markdown.paths = Some((super::linkify::resolve_path, look.host));
        loop {
            let rest = &self.source[self.covered..];
            let Some(newline) = rest.find('\n') else {
                return;
            };
            let line = &rest[..newline];
            if !thinking && !self.markdown.in_code() && is_table_row(line) {
                let mut lines = vec![line];
                let mut end = newline + 1;
                loop {
                    let more = &rest[end..];
                    match more.find('\n') {
                        Some(n) if is_table_row(&more[..n]) => {
                            lines.push(&more[..n]);
                            end += n + 1;
                        }
                        Some(_) => break,
                        // The table may go on: wait for the next line.
                        None => return,
                    }
                }
                let rows = self.table_rows(&lines, look);
                self.cache.extend(fit_rows(rows, look.width));
                self.covered += end;
                continue;
            }
            let rows = style_line(&mut self.markdown, line, look, thinking);
            self.cache.extend(fit_rows(rows, look.width));
            self.covered += newline + 1;
        }
    }

    /// The rows of the complete lines, from row `skip` on.
    fn stable(&mut self, look: &Look, thinking: bool, skip: usize) -> Vec<String> {
        self.update(look, thinking);
        self.cache.get(skip..).unwrap_or_default().to_vec()
    }

    /// All rows: the complete lines and the rest after them (a table not yet
    /// ended, the partial line). For a `preview` (the live area, which shows a
    /// tail at most a window high) a rest longer than [`PREVIEW_BYTES`] is cut to
    /// its end: a line streamed without a newline is not wrapped whole again at
    /// every frame.
    fn all(&mut self, look: &Look, thinking: bool, skip: usize, preview: bool) -> Vec<String> {
        self.update(look, thinking);
        let mut rows = self.cache.get(skip..).unwrap_or_default().to_vec();
        let skip_more = skip.saturating_sub(self.cache.len());
        let mut rest = &self.source[self.covered..];
        let cut;
        if preview && rest.len() > PREVIEW_BYTES {
            let mut start = rest.len() - PREVIEW_BYTES;
            while !rest.is_char_boundary(start) {
                start += 1;
            }
            let tail = &rest[start..];
            let word = tail.find([' ', '\n']).map_or(0, |i| i + 1);
            cut = format!("… {}", &tail[word..]);
            rest = &cut;
        }
        if !rest.is_empty() {
            let mut markdown = self.markdown.clone();
            let lines: Vec<&str> = rest.split('\n').collect();
            let mut i = 0;
            while i < lines.len() {
                if !thinking && !markdown.in_code() && is_table_row(lines[i]) {
                    let start = i;
                    while i < lines.len() && is_table_row(lines[i]) {
                        i += 1;
                    }
                    rows.extend(self.table_rows(&lines[start..i], look));
                    continue;
                }
                if i + 1 < lines.len() || !lines[i].is_empty() {
                    rows.extend(style_line(&mut markdown, lines[i], look, thinking));
                }
                i += 1;
            }
        }
        let rows = fit_rows(rows, look.width);
        rows.into_iter().skip(skip_more).collect()
    }
}

/// Styles one line of an answer (Markdown) or of thinking (dim italic, marked
/// with `┊` so it stays apart from the answer without colors), wrapped to the
/// width by what shows.
fn style_line(markdown: &mut Markdown, line: &str, look: &Look, thinking: bool) -> Vec<String> {
    let style = look.style;
    let width = look.width.max(20);
    if thinking {
        let marker = format!("{} ", style.dim("┊"));
        let text = format!("{marker}{}", style.dim(&style.italic(line)));
        return wrap_styled(text, width, &marker);
    }
    markdown.rows(line, style, width)
}

impl Block {
    /// A finished block.
    pub fn done(kind: Kind) -> Block {
        Block {
            kind,
            finished: true,
            expanded: false,
        }
    }

    /// A live block.
    pub fn live(kind: Kind) -> Block {
        Block {
            kind,
            finished: false,
            expanded: false,
        }
    }

    /// The rows that cannot change any more, from row `skip` on: all of a
    /// finished block, the complete lines of a streaming one, nothing of a
    /// running tool. Every row fits `look.width`.
    pub fn stable_rows(&mut self, look: &Look, skip: usize) -> Vec<String> {
        self.follow_expanded();
        if self.finished {
            return self.rows_from(look, skip);
        }
        match &mut self.kind {
            Kind::Answer(text) => text.stable(look, false, skip),
            Kind::Thinking(text) if look.show_thinking => {
                let mut rows = if skip == 0 {
                    vec![thinking_header(look)]
                } else {
                    Vec::new()
                };
                rows.extend(text.stable(look, true, skip.saturating_sub(1)));
                rows
            }
            _ => Vec::new(),
        }
    }

    /// The rows of the block from row `skip` on (a long answer is not copied
    /// whole at every frame); every row fits `look.width`.
    pub fn rows_from(&mut self, look: &Look, skip: usize) -> Vec<String> {
        self.follow_expanded();
        let preview = !self.finished;
        match &mut self.kind {
            Kind::Answer(text) => text.all(look, false, skip, preview),
            Kind::Thinking(text) if look.show_thinking => {
                let mut rows = if skip == 0 {
                    vec![thinking_header(look)]
                } else {
                    Vec::new()
                };
                rows.extend(text.all(look, true, skip.saturating_sub(1), preview));
                rows
            }
            _ => {
                let rows = fit_rows(self.rows(look), look.width);
                rows.into_iter().skip(skip).collect()
            }
        }
    }

    /// Whether Ctrl+O shows something more of this block: an answer's tables
    /// as their Markdown source.
    pub fn has_raw_view(&self) -> bool {
        matches!(&self.kind, Kind::Answer(text) if text.has_table())
    }

    /// An answer shows its tables' source while the block is expanded.
    fn follow_expanded(&mut self) {
        if let Kind::Answer(text) = &mut self.kind {
            text.show_raw_tables(self.expanded);
        }
    }

    /// Every row of the block at `look`.
    pub fn rows(&mut self, look: &Look) -> Vec<String> {
        self.follow_expanded();
        let style = look.style;
        let width = look.width.max(1);
        let expanded = self.expanded;
        let finished = self.finished;
        match &mut self.kind {
            Kind::Note(text) => note_rows(text, width),
            Kind::User { text, images } => {
                let shown = sanitize(text).replace('\n', "\n  ");
                let mut rows = vec![String::new()];
                for line in format!("› {shown}").split('\n') {
                    for piece in wrap_words(line, width) {
                        rows.push(style.bold(&piece));
                    }
                }
                let columns = width.saturating_sub(2).max(1);
                for image in images.iter() {
                    for row in image.rows(style, columns, look.graphics) {
                        rows.push(format!("  {row}"));
                    }
                }
                rows
            }
            Kind::Answer(text) => text.all(look, false, 0, false),
            Kind::Thinking(text) => {
                if look.show_thinking {
                    let mut rows = vec![thinking_header(look)];
                    rows.extend(text.all(look, true, 0, false));
                    rows
                } else {
                    let count = text.text().chars().count();
                    let verb = if finished { "thought" } else { "thinking" };
                    text_rows(
                        &style.dim(&format!(
                            "∴ {verb} for {count} characters (Ctrl+T shows thinking)"
                        )),
                        width,
                    )
                }
            }
            Kind::Tool(tool) => tool.rows(look, expanded),
            Kind::Summary { label, text } => {
                let mut rows = text_rows(&style.bold(&format!("≡ {label}")), width);
                let body = sanitize(text);
                let lines: Vec<&str> = body.lines().collect();
                let shown = if expanded {
                    lines.len()
                } else {
                    lines.len().min(4)
                };
                for line in &lines[..shown] {
                    for piece in wrap_words(line, width.saturating_sub(2).max(10)) {
                        rows.push(format!("{} {}", style.dim("│"), style.dim(&piece)));
                    }
                }
                if shown < lines.len() {
                    rows.push(style.dim(&format!(
                        "│ … {} more lines (Ctrl+O expands)",
                        lines.len() - shown
                    )));
                }
                rows
            }
        }
    }
}

/// The first row of shown thinking.
fn thinking_header(look: &Look) -> String {
    look.style.dim(&look.style.italic("∴ thinking"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look(width: usize) -> Look {
        Look {
            width,
            style: Style::PLAIN,
            show_thinking: true,
            hyperlinks: false,
            graphics: None,
            host: Default::default(),
        }
    }

    #[test]
    fn stable_rows_are_the_complete_lines() {
        let mut block = Block::live(Kind::Answer(Streamed::new("# Title\nsome **bold** te")));
        assert_eq!(block.stable_rows(&look(40), 0), ["Title"]);
        assert_eq!(block.rows(&look(40)), ["Title", "some bold te"]);
        if let Kind::Answer(text) = &mut block.kind {
            text.push("xt\nmore");
        }
        assert_eq!(block.stable_rows(&look(40), 0), ["Title", "some bold text"]);
    }

    #[test]
    fn a_table_is_laid_out_once_it_ends() {
        let mut block = Block::live(Kind::Answer(Streamed::new(
            "| a | b |\n|---|---|\n| 1 | 22 |\n",
        )));
        assert!(block.stable_rows(&look(40), 0).is_empty());
        assert_eq!(block.rows(&look(40)), ["a │ b", "──┼───", "1 │ 22"]);
        if let Kind::Answer(text) = &mut block.kind {
            text.push("| 333 | 4 |\nafter\n");
        }
        assert_eq!(
            block.stable_rows(&look(40), 0),
            ["a   │ b", "────┼───", "1   │ 22", "333 │ 4", "after"]
        );
    }

    #[test]
    fn ctrl_o_shows_a_tables_markdown() {
        let mut block = Block::done(Kind::Answer(Streamed::new(
            "| a | b |\n|---|---|\n| 1 | 22 |\nafter\n",
        )));
        assert!(block.has_raw_view());
        assert_eq!(block.rows(&look(40))[0], "a │ b");
        block.expanded = true;
        assert_eq!(
            block.rows_from(&look(40), 0),
            ["| a | b |", "|---|---|", "| 1 | 22 |", "after"]
        );
        block.expanded = false;
        assert_eq!(block.stable_rows(&look(40), 0)[0], "a │ b");
        assert!(!Block::done(Kind::Answer(Streamed::new("no table\n"))).has_raw_view());
    }

    #[test]
    fn a_huge_partial_line_is_previewed_by_its_end() {
        let text = "word ".repeat(20_000);
        let mut block = Block::live(Kind::Answer(Streamed::new(&text)));
        let rows = block.rows_from(&look(80), 0);
        assert!(rows.len() < 300, "{}", rows.len());
        assert!(rows[0].starts_with("… word"));
        block.finished = true;
        assert!(block.rows_from(&look(80), 0).len() > 1000);
    }

    /// Model text in every kind of block reaches the screen without a single
    /// escape or control character of its own.
    #[test]
    fn hostile_model_text_is_shown_not_obeyed() {
        let evil =
            "a\x1b[2Jb\x1b]52;c;ZXZpbA==\x07c\x1b]0;title\x07d\re\x08f\x1bPq\x1b\\g\u{9b}31m";
        let args = focus_core::json_object! {"command" => evil, "content" => evil};
        let mut tool = ToolBlock::new("id", evil, &args);
        tool.progress(evil.to_string());
        let mut blocks = vec![
            Block::done(Kind::User {
                text: evil.into(),
                images: Vec::new(),
            }),
            Block::done(Kind::Answer(Streamed::new(&format!(
                "{evil}\n| {evil} | x |\n```\n{evil}\n```"
            )))),
            Block::done(Kind::Thinking(Streamed::new(evil))),
            Block::live(Kind::Tool(Box::new(tool))),
            Block::done(Kind::Summary {
                label: "summary".into(),
                text: evil.into(),
            }),
        ];
        let mut ended = ToolBlock::new("id2", "edit", &args);
        let details = focus_core::json_object! {"diff" => format!("@@ -1 +1 @@\n-{evil}\n+{evil}")};
        ended.end(evil.into(), details, false);
        blocks.push(Block::done(Kind::Tool(Box::new(ended))));
        for block in &mut blocks {
            for row in block.rows_from(&look(40), 0) {
                assert!(
                    !row.chars()
                        .any(|c| c.is_control() || ('\u{80}'..='\u{9f}').contains(&c)),
                    "{row:?}"
                );
            }
        }
    }

    #[test]
    fn a_long_line_wraps_to_the_width_and_escapes_are_removed() {
        let mut block = Block::done(Kind::Answer(Streamed::new(&"word \x1b[2J".repeat(40))));
        for row in block.rows(&look(30)) {
            assert!(row.chars().count() <= 30, "{row:?}");
            assert!(!row.contains('\x1b'));
        }
    }

    #[test]
    fn thinking_is_marked_without_colors() {
        let mut block = Block::done(Kind::Thinking(Streamed::new("hmm, let me see")));
        assert_eq!(block.rows(&look(40)), ["∴ thinking", "┊ hmm, let me see"]);
        let hidden = Look {
            show_thinking: false,
            ..look(80)
        };
        assert_eq!(
            block.rows(&hidden),
            ["∴ thought for 15 characters (Ctrl+T shows thinking)"]
        );
    }
}
