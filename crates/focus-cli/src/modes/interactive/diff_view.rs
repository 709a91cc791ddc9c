//! `/diff`: every file the session changed, as one unified diff, in a
//! full-screen pager (drawn where the conversation is, as `/tree` is; the
//! transcript comes back when it closes).
//!
//! What is compared comes from the checkpoint store: each path any
//! checkpoint of the session touched, as it was before focus first changed it,
//! against the disk now ([`session_changes`]). Text files up to
//! [`MAX_DIFFED`] bytes are diffed line by line (focus-tools' Myers diff, 3
//! lines of context); other changes are described (created folder, mode,
//! symbolic link, binary content and sizes).
//!
//! Below [`SIDE_BY_SIDE_COLUMNS`] columns the diff is unified, each line with
//! its old and new number; from there on it is side by side, the old text on
//! the left, the new on the right, removed and added lines paired row by row.
//! Every line is shown printable: a file's escape sequences and invisible
//! characters are written out, never obeyed ([`one_line`]).
//!
//! Keys ([`DIFF_KEYS`]): Up/Down (or k/j) a row, PageUp/PageDown (or b/Space)
//! a page, Home/End (or g/G) the start and end, n/p the next or previous
//! file, Esc (or q) closes.

use crate::terminal::style::Style;
use crate::terminal::width::{clip_to, text_width};
use focus_core::sync::lock;
use focus_harness::checkpoint::blobs::BlobStore;
use focus_harness::checkpoint::session_diff::{session_changes, Now, SessionChange};
use focus_harness::checkpoint::Node;
use focus_harness::conversation::Conversation;
use focus_tui::keys::Key;
use focus_tui::printable::printable;
use focus_tui::reveal::reveal_hidden;

/// From this many columns on, the diff is side by side.
pub const SIDE_BY_SIDE_COLUMNS: usize = 160;
/// Larger files are described, not diffed.
pub const MAX_DIFFED: u64 = 1 << 20;
/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The pager's keys: how docs/cli.md names them and what they do.
pub const DIFF_KEYS: &[(&str, &str)] = &[
    ("Up, Down, k, j", "scroll by a row"),
    ("PageUp, PageDown, b, Space", "scroll by a page"),
    ("Home, End, g, G", "the start, the end"),
    ("n, p", "the next, the previous file"),
    ("Esc, q", "close"),
];

/// One line of the diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A file's heading: its path and what happened to it.
    File(String),
    /// A remark (binary content, a mode, a pruned checkpoint).
    Note(String),
    /// A hunk's `@@ -a,b +c,d @@` line.
    Hunk(String),
    /// A line on both sides: old number, new number, text.
    Same(usize, usize, String),
    /// A line removed: old number, text.
    Removed(usize, String),
    /// A line added: new number, text.
    Added(usize, String),
}

/// The open pager.
#[derive(Debug)]
pub struct DiffView {
    lines: Vec<Line>,
    files: usize,
    added: usize,
    removed: usize,
    /// The first row shown.
    top: usize,
    /// Rows in view at the last draw.
    page: usize,
    /// The rows laid out for a width: (width, rows, the row of each file).
    laid_out: Option<(usize, Vec<String>, Vec<usize>)>,
    style: Style,
}

/// What a key did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// Still open.
    Stay,
    /// Close it.
    Close,
}

/// `text` on one line and printable: tabs as four spaces, a line end's `\r`
/// dropped, escape sequences removed, other control and invisible format
/// characters written out (`\u{202e}`).
pub fn one_line(text: &str) -> String {
    let text = text.strip_suffix('\r').unwrap_or(text);
    let text = printable(text);
    reveal_hidden(&text.replace('\t', "    ").replace('\n', " "))
}

/// `text` in at most `columns` columns: whole when it fits, else cut with
/// `…` as the last column.
pub fn fit(text: &str, columns: usize) -> String {
    if text_width(text) <= columns {
        text.to_string()
    } else {
        clip_to(text, columns.saturating_sub(1))
    }
}

impl DiffView {
    /// The diff of every file `conversation`'s session changed.
    ///
    /// # Errors
    ///
    /// File checkpoints are off, or the project cannot be compared with them;
    /// the message says which.
    pub fn build(conversation: &Conversation, style: Style) -> Result<DiffView, String> {
        let tracker = conversation.checkpoints.clone().ok_or(
            "file checkpoints are off for this session: /diff has nothing to compare with",
        )?;
        let tracker = lock(&tracker);
        let store = conversation.session.lock();
        let (changes, missing) = session_changes(
            store.manager().tree(),
            &tracker.store,
            tracker.root(),
            tracker.max_file_bytes,
        )
        .map_err(|e| format!("cannot compare the project with its checkpoints: {e}"))?;
        Ok(DiffView::of(
            &changes,
            &missing,
            &tracker.store.blobs,
            style,
        ))
    }

    /// The diff of `changes`, contents read from `blobs`; `missing` names
    /// pruned checkpoints.
    pub fn of(
        changes: &[SessionChange],
        missing: &[String],
        blobs: &BlobStore,
        style: Style,
    ) -> DiffView {
        let mut lines = Vec::new();
        if !missing.is_empty() {
            lines.push(Line::Note(format!(
                "{} checkpoint(s) were pruned: the paths they changed are not listed",
                missing.len()
            )));
        }
        for change in changes {
            file_lines(change, blobs, &mut lines);
        }
        let count = |f: fn(&Line) -> bool| lines.iter().filter(|l| f(l)).count();
        DiffView {
            files: count(|l| matches!(l, Line::File(_))),
            added: count(|l| matches!(l, Line::Added(..))),
            removed: count(|l| matches!(l, Line::Removed(..))),
            lines,
            top: 0,
            page: 10,
            laid_out: None,
            style,
        }
    }

    /// Whether no file differs.
    pub fn is_empty(&self) -> bool {
        self.files == 0
    }

    /// The lines (for tests).
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }

    /// One line for the transcript: how many files, lines added and removed.
    pub fn summary(&self) -> String {
        format!(
            "{} file(s) changed in this session · +{} −{}",
            self.files, self.added, self.removed
        )
    }

    /// A key.
    pub fn key(&mut self, key: &Key) -> Done {
        let page = self.page.max(1);
        let file_rows = self
            .laid_out
            .as_ref()
            .map(|l| l.2.clone())
            .unwrap_or_default();
        match key {
            Key::Up | Key::Char('k') => self.top = self.top.saturating_sub(1),
            Key::Down | Key::Char('j') => self.top += 1,
            Key::PageUp | Key::Char('b') => self.top = self.top.saturating_sub(page),
            Key::PageDown | Key::Char(' ') => self.top += page,
            Key::Home | Key::Char('g') => self.top = 0,
            Key::End | Key::Char('G') => self.top = usize::MAX,
            Key::Char('n') => {
                if let Some(next) = file_rows.iter().find(|r| **r > self.top) {
                    self.top = *next;
                }
            }
            Key::Char('p') => {
                if let Some(before) = file_rows.iter().rev().find(|r| **r < self.top) {
                    self.top = *before;
                }
            }
            Key::Esc | Key::Char('q') | Key::Ctrl('c') => return Done::Close,
            _ => {}
        }
        Done::Stay
    }

    /// The pager's rows: a title, a line of keys, then the diff in view
    /// (`height` rows in all, at least three), each at most `width` columns.
    pub fn render(&mut self, width: usize, height: usize) -> Vec<String> {
        let width = width.max(20);
        let shown = height.max(3) - 2;
        self.page = shown;
        if self.laid_out.as_ref().map(|l| l.0) != Some(width) {
            let (rows, files) = self.lay_out(width);
            self.laid_out = Some((width, rows, files));
        }
        let style = self.style;
        let Some((_, rows, _)) = &self.laid_out else {
            return Vec::new();
        };
        self.top = self.top.min(rows.len().saturating_sub(shown));
        let end = (self.top + shown).min(rows.len());
        let how = if width >= SIDE_BY_SIDE_COLUMNS {
            "side by side".to_string()
        } else {
            format!("unified (side by side from {SIDE_BY_SIDE_COLUMNS} columns)")
        };
        let title = format!(
            "session diff · {} file(s) · +{} −{} · rows {}–{} of {} · {how}",
            self.files,
            self.added,
            self.removed,
            (self.top + 1).min(end),
            end,
            rows.len()
        );
        let help = "↑↓ PgUp PgDn Home End scroll · n/p next/previous file · Esc close";
        let mut out = vec![
            style.bold(&fit(&title, width - 1)),
            style.dim(&fit(help, width - 1)),
        ];
        out.extend(rows[self.top..end].iter().cloned());
        out
    }

    /// Every row of the diff at `width`, and the row each file starts at.
    fn lay_out(&self, width: usize) -> (Vec<String>, Vec<usize>) {
        if width >= SIDE_BY_SIDE_COLUMNS {
            side_by_side(&self.lines, width, self.style)
        } else {
            unified(&self.lines, width, self.style)
        }
    }
}

/// A node as a heading says it.
fn what(node: &Option<Node>) -> String {
    match node {
        None => "nothing".into(),
        Some(Node::File { size, .. }) => format!("a file of {size} bytes"),
        Some(Node::Dir { .. }) => "a folder".into(),
        Some(Node::Symlink { target }) => {
            format!("a symbolic link to {}", one_line(&target.to_string_lossy()))
        }
    }
}

/// The text of a file node, if it is text and small enough to diff (`None`
/// for nothing: an empty text).
fn text_of(node: &Option<Node>, blobs: &BlobStore) -> Option<String> {
    match node {
        None => Some(String::new()),
        Some(Node::File { blob, size, .. }) if *size <= MAX_DIFFED => blobs
            .read(blob)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
        _ => None,
    }
}

/// The lines of one changed path.
fn file_lines(change: &SessionChange, blobs: &BlobStore, out: &mut Vec<Line>) {
    let path = one_line(&change.path.to_string_lossy());
    let now = match &change.now {
        Now::Is(node) => node.clone(),
        Now::Special => {
            out.push(Line::File(format!(
                "{path} · now a socket, FIFO or device (not read)"
            )));
            return;
        }
        Now::Oversized(size) => {
            out.push(Line::File(format!(
                "{path} · now {size} bytes, over the checkpoint size cap (not read)"
            )));
            return;
        }
    };
    let is_file = |n: &Option<Node>| matches!(n, None | Some(Node::File { .. }));
    if !is_file(&change.first) || !is_file(&now) {
        out.push(Line::File(format!(
            "{path} · was {}, now {}",
            what(&change.first),
            what(&now)
        )));
        if let (Some(Node::Dir { mode: a }), Some(Node::Dir { mode: b })) = (&change.first, &now) {
            out.push(Line::Note(format!("mode {a:o} → {b:o}")));
        }
        return;
    }
    let heading = match (&change.first, &now) {
        (None, _) => "created",
        (_, None) => "deleted",
        _ => "modified",
    };
    out.push(Line::File(format!("{path} · {heading}")));
    if let (Some(Node::File { mode: a, .. }), Some(Node::File { mode: b, .. })) =
        (&change.first, &now)
    {
        if a != b {
            out.push(Line::Note(format!("mode {a:o} → {b:o}")));
        }
    }
    match (text_of(&change.first, blobs), text_of(&now, blobs)) {
        (Some(old), Some(new)) => {
            let diff = focus_tools::edit::diff::unified_diff("x", &old, &new, CONTEXT);
            parse_unified(&diff, out);
        }
        _ => {
            let size = |n: &Option<Node>| match n {
                Some(Node::File { size, .. }) => *size,
                _ => 0,
            };
            out.push(Line::Note(format!(
                "binary or over {} KiB: {} → {} bytes (not diffed)",
                MAX_DIFFED / 1024,
                size(&change.first),
                size(&now)
            )));
        }
    }
}

/// A unified diff's hunks as lines, numbered.
fn parse_unified(diff: &str, out: &mut Vec<Line>) {
    let (mut old, mut new) = (0usize, 0usize);
    for line in diff.lines() {
        if line.starts_with("--- ") || line.starts_with("+++ ") {
            continue;
        }
        if line.starts_with("@@") {
            let mut parts = line.trim_start_matches('@').split_whitespace();
            old = number(parts.next());
            new = number(parts.next());
            out.push(Line::Hunk(line.to_string()));
            continue;
        }
        let (sign, text) = line.split_at(line.len().min(1));
        let text = one_line(text);
        match sign {
            "-" => {
                out.push(Line::Removed(old, text));
                old += 1;
            }
            "+" => {
                out.push(Line::Added(new, text));
                new += 1;
            }
            _ => {
                out.push(Line::Same(old, new, text));
                old += 1;
                new += 1;
            }
        }
    }
}

/// The start of `-12,3` or `+4`: 12, 4.
fn number(part: Option<&str>) -> usize {
    part.unwrap_or("")
        .trim_start_matches(['-', '+'])
        .split(',')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// `text` cut to `width` columns and padded to exactly `width`.
fn cell(text: &str, width: usize) -> String {
    let cut = fit(text, width);
    let pad = width.saturating_sub(text_width(&cut));
    format!("{cut}{}", " ".repeat(pad))
}

/// The unified layout: `old new ±text` rows.
fn unified(lines: &[Line], width: usize, style: Style) -> (Vec<String>, Vec<usize>) {
    let mut rows = Vec::new();
    let mut files = Vec::new();
    let room = width - 1;
    for line in lines {
        let row = match line {
            Line::File(text) => {
                files.push(rows.len());
                style.bold(&fit(&format!("━━ {text}"), room))
            }
            Line::Note(text) => style.dim(&fit(&format!("   {text}"), room)),
            Line::Hunk(text) => style.cyan(&fit(text, room)),
            Line::Same(o, n, text) => fit(&format!("{o:>5} {n:>5}  {text}"), room),
            Line::Removed(o, text) => style.red(&fit(&format!("{o:>5} {:>5} -{text}", ""), room)),
            Line::Added(n, text) => style.green(&fit(&format!("{:>5} {n:>5} +{text}", ""), room)),
        };
        rows.push(row);
    }
    (rows, files)
}

/// The side-by-side layout: the old text left, the new right; a run of
/// removed lines and the added lines after it are paired row by row.
fn side_by_side(lines: &[Line], width: usize, style: Style) -> (Vec<String>, Vec<usize>) {
    let mut rows = Vec::new();
    let mut files = Vec::new();
    let room = width - 1;
    let half = (room - 3) / 2;
    let right = room - 3 - half;
    let mut at = 0;
    while at < lines.len() {
        match &lines[at] {
            Line::File(text) => {
                files.push(rows.len());
                rows.push(style.bold(&fit(&format!("━━ {text}"), room)));
            }
            Line::Note(text) => rows.push(style.dim(&fit(&format!("   {text}"), room))),
            Line::Hunk(text) => rows.push(style.cyan(&fit(text, room))),
            Line::Same(o, n, text) => rows.push(format!(
                "{} │ {}",
                cell(&format!("{o:>5}  {text}"), half),
                cell(&format!("{n:>5}  {text}"), right)
            )),
            Line::Removed(..) | Line::Added(..) => {
                let mut removed = Vec::new();
                let mut added = Vec::new();
                while let Some(Line::Removed(o, text)) = lines.get(at) {
                    removed.push(format!("{o:>5} -{text}"));
                    at += 1;
                }
                while let Some(Line::Added(n, text)) = lines.get(at) {
                    added.push(format!("{n:>5} +{text}"));
                    at += 1;
                }
                for i in 0..removed.len().max(added.len()) {
                    let left = removed
                        .get(i)
                        .map_or_else(|| cell("", half), |t| style.red(&cell(t, half)));
                    let new = added
                        .get(i)
                        .map_or_else(|| cell("", right), |t| style.green(&cell(t, right)));
                    rows.push(format!("{left} │ {new}"));
                }
                continue;
            }
        }
        at += 1;
    }
    (rows, files)
}

/// The pager's keys as docs/cli.md shows them (between its markers).
pub fn markdown_table() -> String {
    let mut table = String::from("| Key in /diff | What it does |\n|---|---|\n");
    for (keys, what) in DIFF_KEYS {
        table.push_str(&format!("| {keys} | {what} |\n"));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terminal::width::visible_width;
    use std::path::PathBuf;

    /// A blob store in a fresh temporary folder (removed on drop).
    struct TempStore(PathBuf, BlobStore);
    impl Drop for TempStore {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    fn store() -> TempStore {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "focus-diff-view-{}-{}",
            std::process::id(),
            N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let blobs = BlobStore::new(&dir);
        TempStore(dir, blobs)
    }
    fn file(blobs: &BlobStore, text: &str, mode: u32) -> Option<Node> {
        let stored = blobs.put(text.as_bytes()).unwrap();
        Some(Node::File {
            mode,
            blob: stored.id,
            size: stored.size,
        })
    }

    fn view(t: &TempStore) -> DiffView {
        let blobs = &t.1;
        let changes = vec![
            SessionChange {
                path: "a.txt".into(),
                first: file(blobs, "one\ntwo\nthree\n", 0o644),
                now: Now::Is(file(blobs, "one\nTWO\nthree\nfour\n", 0o755)),
            },
            SessionChange {
                path: "evil\u{1b}[31m.txt".into(),
                first: None,
                now: Now::Is(file(blobs, "\u{1b}]0;title\u{7}hi\u{202e}x\n", 0o644)),
            },
            SessionChange {
                path: "gone".into(),
                first: file(blobs, "bye\n", 0o644),
                now: Now::Is(None),
            },
            SessionChange {
                path: "out".into(),
                first: None,
                now: Now::Is(Some(Node::Dir { mode: 0o755 })),
            },
        ];
        DiffView::of(&changes, &[], blobs, Style::PLAIN)
    }

    /// Every file is headed, its lines numbered on both sides; a mode change
    /// and a folder are described; nothing of a file's escapes survives.
    #[test]
    fn every_change_is_shown_numbered_and_printable() {
        let t = store();
        let v = view(&t);
        assert_eq!(v.summary(), "4 file(s) changed in this session · +3 −2");
        let lines = v.lines();
        assert_eq!(lines[0], Line::File("a.txt · modified".into()));
        assert_eq!(lines[1], Line::Note("mode 644 → 755".into()));
        assert!(lines.contains(&Line::Removed(2, "two".into())), "{lines:?}");
        assert!(lines.contains(&Line::Added(2, "TWO".into())), "{lines:?}");
        assert!(lines.contains(&Line::Added(4, "four".into())), "{lines:?}");
        assert!(lines.contains(&Line::Same(1, 1, "one".into())), "{lines:?}");
        assert!(lines.contains(&Line::File("gone · deleted".into())));
        assert!(lines.contains(&Line::File("out · was nothing, now a folder".into())));
        let all = format!("{lines:?}");
        assert!(
            !all.contains('\u{1b}') && !all.contains('\u{202e}'),
            "{all}"
        );
        assert!(
            all.contains("\\u{202e}"),
            "the override is written out: {all}"
        );
    }

    /// Below 160 columns: one column of text, numbers first; from 160: two
    /// halves, the removed line beside the added one. Every row fits.
    #[test]
    fn unified_below_160_columns_side_by_side_from_there() {
        let t = store();
        let mut v = view(&t);
        let narrow = v.render(80, 40);
        assert!(narrow[0].contains("unified"), "{narrow:?}");
        assert!(narrow.iter().any(|r| r == "    2       -two"), "{narrow:?}");
        assert!(narrow.iter().any(|r| r == "          2 +TWO"), "{narrow:?}");
        assert!(narrow.iter().all(|r| visible_width(r) < 80), "{narrow:?}");
        let wide = v.render(170, 40);
        assert!(wide[0].contains("side by side"), "{wide:?}");
        let paired = wide
            .iter()
            .find(|r| r.contains("-two"))
            .expect("the removed line");
        let (left, right) = paired.split_once(" │ ").unwrap();
        assert!(left.trim_end().ends_with("-two"), "{paired}");
        assert!(right.trim_start().starts_with("2 +TWO"), "{paired}");
        assert!(wide.iter().all(|r| visible_width(r) < 170), "{wide:?}");
    }

    /// The keys scroll within the diff and jump between files.
    #[test]
    fn keys_scroll_and_jump_between_files() {
        let t = store();
        let mut v = view(&t);
        let first = v.render(80, 6);
        assert!(first[2].starts_with("━━ a.txt"), "{first:?}");
        assert_eq!(v.key(&Key::Char('n')), Done::Stay);
        let next = v.render(80, 6);
        assert!(next[2].starts_with("━━ evil"), "{next:?}");
        v.key(&Key::Char('p'));
        assert!(v.render(80, 6)[2].starts_with("━━ a.txt"));
        v.key(&Key::End);
        let end = v.render(80, 6);
        assert!(end.last().unwrap().contains("out · was nothing"), "{end:?}");
        v.key(&Key::Home);
        v.key(&Key::Down);
        assert!(v.render(80, 6)[2].contains("mode 644"));
        assert_eq!(v.key(&Key::Esc), Done::Close);
        assert_eq!(v.key(&Key::Char('q')), Done::Close);
    }

    /// docs/cli.md shows exactly this table.
    #[test]
    fn the_document_shows_the_diff_keys() {
        let doc = include_str!("../../../../../docs/cli.md");
        assert!(
            doc.contains(&markdown_table()),
            "docs/cli.md must contain the /diff keys table:\n{}",
            markdown_table()
        );
    }
}
