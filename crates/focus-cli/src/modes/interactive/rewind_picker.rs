//! `/rewind` (and Esc Esc on an empty input): back to before one of your
//! prompts, with the files, the conversation, or both.
//!
//! A full-screen view in two steps (drawn where the conversation is, as
//! `/tree` is). First your prompts on the current branch, newest last, each
//! with what its run changed: files, lines added and removed, paths
//! ([`prompt_changes`], the listing RPC `get_checkpoints` gives). Enter on one
//! asks what to restore: code and conversation, the conversation only, or the
//! code only, the `checkpoints.rewindDefault` setting's choice selected
//! ([`default_scope`]), under it the exact file operations a restore would do
//! and every conflict (a file changed outside focus since focus recorded it)
//! with the lines that differ: skipped unless `f` is pressed. `/tree` opens
//! the same question when the entry it moves to has other files than now
//! ([`Origin::Tree`]).
//!
//! The rewind itself is the harness's [`Conversation::rewind`], the one RPC
//! `rewind` calls ([`perform`]); the preview is its dry run. This file only
//! asks; it holds no rewind logic of its own.

use super::diff_view::{fit, one_line};
use crate::terminal::style::Style;
use crate::terminal::width::text_width;
use focus_harness::checkpoint::{prompt_changes, CheckpointSettings, PromptChanges, RewindReport};
use focus_harness::conversation::{Conversation, RewindScope};
use focus_harness::session::EntryKind;
use focus_tui::keys::Key;
use std::path::Path;

/// The view's keys: how docs/cli.md names them and what they do.
pub const REWIND_KEYS: &[(&str, &str)] = &[
    (
        "Up, Down, PageUp, PageDown, Home, End",
        "move (in the list of prompts)",
    ),
    ("Enter", "choose the prompt; then: do the selected restore"),
    (
        "1, 2, 3",
        "restore code and conversation, the conversation only, the code only",
    ),
    (
        "f",
        "overwrite the files changed outside focus too (else they are kept)",
    ),
    (
        "PageUp, PageDown",
        "(while choosing) scroll the file operations",
    ),
    ("Esc", "back to the list, else close"),
];

/// The three choices, in the order shown.
const SCOPES: [RewindScope; 3] = [
    RewindScope::Both,
    RewindScope::Conversation,
    RewindScope::Code,
];

/// Where the question comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// `/rewind` or Esc Esc: the harness rewinds the conversation too.
    Prompt,
    /// A move in `/tree`: the UI moves the conversation as `/tree` does
    /// (with a branch summary when `summarize`); only the files are restored
    /// here.
    Tree {
        /// The user asked for a summary of the branch left.
        summarize: bool,
    },
}

/// A rewind the user chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The entry to go to (`None`: the session's start).
    pub target: Option<String>,
    /// What to restore.
    pub scope: RewindScope,
    /// Overwrite files changed outside focus.
    pub force: bool,
    /// Text for the editor when the conversation moves (the prompt rewound).
    pub draft: Option<String>,
    /// What the prompt said, for the note.
    pub label: String,
    /// Where the question came from.
    pub origin: Origin,
}

/// How a preview line is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tone {
    Plain,
    Dim,
    Warn,
    Removed,
    Added,
}

/// The question "restore what?" about one entry.
#[derive(Debug)]
struct Choice {
    target: Option<String>,
    label: String,
    draft: Option<String>,
    origin: Origin,
    /// The dry run's operations and conflicts, ready to draw.
    preview: Vec<(Tone, String)>,
    /// Files changed outside focus (skipped unless `force`).
    conflicts: usize,
    /// Whether the files can be restored (checkpoints on, the dry run worked).
    code_ok: bool,
    /// The selected choice (an index of [`SCOPES`]).
    selected: usize,
    force: bool,
    /// The first preview line shown.
    scroll: usize,
}

/// What a key asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Done {
    /// Still open.
    Stay,
    /// Close, nothing done.
    Close,
    /// Close and rewind.
    Rewind(Request),
}

/// The open view.
#[derive(Debug)]
pub struct RewindView {
    prompts: Vec<PromptChanges>,
    selected: usize,
    top: usize,
    page: usize,
    choice: Option<Choice>,
    default: RewindScope,
    style: Style,
}

/// The `checkpoints.rewindDefault` setting of `cwd` (`both` when unset or
/// unreadable). Read quietly: the settings' warnings were shown at start.
pub fn default_scope(cwd: &Path) -> RewindScope {
    let home = focus_harness::session::focus_home();
    focus_harness::settings::load_settings(&home, cwd)
        .ok()
        .and_then(|loaded| {
            let settings = CheckpointSettings::from_value(loaded.settings.raw("checkpoints"));
            RewindScope::parse(&settings.rewind_default)
        })
        .unwrap_or(RewindScope::Both)
}

/// The full text of the user message `entry_id` (for the editor).
fn prompt_text(conversation: &Conversation, entry_id: &str) -> Option<String> {
    let store = conversation.session.lock();
    match store.manager().tree().get(entry_id).map(|e| &e.kind) {
        Some(EntryKind::Message(focus_core::message::Message::User(user))) => Some(
            user.content
                .iter()
                .filter_map(focus_core::message::Content::as_text)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

impl RewindView {
    /// The list of `conversation`'s prompts (the newest selected), or, with
    /// `number` (`/rewind N`), the question about prompt N at once.
    ///
    /// # Errors
    ///
    /// There is no prompt yet, or no prompt `number`.
    pub fn open(
        conversation: &mut Conversation,
        number: Option<usize>,
        default: RewindScope,
        style: Style,
    ) -> Result<RewindView, String> {
        let prompts = prompt_changes(conversation.session.lock().manager().tree());
        if prompts.is_empty() {
            return Err("nothing to rewind: this branch has no prompt yet".into());
        }
        let mut view = RewindView {
            selected: prompts.len() - 1,
            prompts,
            top: 0,
            page: 10,
            choice: None,
            default,
            style,
        };
        if let Some(n) = number {
            if n == 0 || n > view.prompts.len() {
                return Err(format!("no prompt {n}; /rewind lists them"));
            }
            view.selected = n - 1;
            view.choose(conversation);
        }
        Ok(view)
    }

    /// The question alone, about entry `target` (a move in `/tree`).
    pub fn at_entry(
        conversation: &mut Conversation,
        target: Option<String>,
        label: String,
        draft: Option<String>,
        origin: Origin,
        (default, style): (RewindScope, Style),
    ) -> RewindView {
        let choice = Choice::new(conversation, target, label, draft, origin, default);
        RewindView {
            prompts: Vec::new(),
            selected: 0,
            top: 0,
            page: 10,
            choice: Some(choice),
            default,
            style,
        }
    }

    /// Enter on the selected prompt: the question about it.
    fn choose(&mut self, conversation: &mut Conversation) {
        let Some(prompt) = self.prompts.get(self.selected) else {
            return;
        };
        let draft = prompt_text(conversation, &prompt.entry_id);
        self.choice = Some(Choice::new(
            conversation,
            prompt.rewind_to.clone(),
            prompt.text.clone(),
            draft,
            Origin::Prompt,
            self.default,
        ));
    }

    /// A key; `conversation` gives the dry run when a prompt is chosen.
    pub fn key(&mut self, key: &Key, conversation: &mut Conversation) -> Done {
        if let Some(choice) = &mut self.choice {
            return match choice.key(key) {
                ChoiceKey::Stay => Done::Stay,
                ChoiceKey::Back if self.prompts.is_empty() => Done::Close,
                ChoiceKey::Back => {
                    self.choice = None;
                    Done::Stay
                }
                ChoiceKey::Close => Done::Close,
                ChoiceKey::Go(request) => Done::Rewind(request),
            };
        }
        let last = self.prompts.len().saturating_sub(1);
        let page = self.page.max(1);
        match key {
            Key::Up => self.selected = self.selected.saturating_sub(1),
            Key::Down => self.selected = (self.selected + 1).min(last),
            Key::PageUp => self.selected = self.selected.saturating_sub(page),
            Key::PageDown => self.selected = (self.selected + page).min(last),
            Key::Home => self.selected = 0,
            Key::End => self.selected = last,
            Key::Enter => self.choose(conversation),
            Key::Esc | Key::Ctrl('c') => return Done::Close,
            _ => {}
        }
        Done::Stay
    }

    /// The view's rows: a title, a line of keys, then the list or the
    /// question (`height` rows in all, at least three), each at most `width`
    /// columns.
    pub fn render(&mut self, width: usize, height: usize) -> Vec<String> {
        let width = width.max(20);
        let shown = height.max(3) - 2;
        let style = self.style;
        if let Some(choice) = &mut self.choice {
            return choice.render(width, height.max(3), style);
        }
        self.page = shown;
        let count = self.prompts.len();
        if self.selected < self.top {
            self.top = self.selected;
        }
        if self.selected >= self.top + shown {
            self.top = self.selected + 1 - shown;
        }
        let title = format!("rewind · your prompts on this branch, newest last · {count}");
        let help = "↑↓ move · Enter: choose what to restore · Esc close";
        let mut out = vec![
            style.bold(&fit(&title, width - 1)),
            style.dim(&fit(help, width - 1)),
        ];
        let labels: Vec<String> = self
            .prompts
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{:>3}. {}", i + 1, one_line(&p.text)))
            .collect();
        let column = labels
            .iter()
            .skip(self.top)
            .take(shown)
            .map(|l| text_width(&fit(l, width - 3)))
            .max()
            .unwrap_or(0)
            .min(width * 2 / 5);
        for (at, label) in labels.iter().enumerate().skip(self.top).take(shown) {
            let mark = if at == self.selected { "❯" } else { " " };
            let label = fit(label, column.max(8));
            let pad = column.saturating_sub(text_width(&label));
            let used = 2 + text_width(&label) + pad + 2;
            let detail = changes_text(&self.prompts[at]);
            let mut row = format!("{mark} {label}{}", " ".repeat(pad));
            if used + 4 < width {
                row.push_str("  ");
                row.push_str(&style.dim(&fit(&detail, width - used - 2)));
            }
            out.push(if at == self.selected {
                style.bold(&row)
            } else {
                row
            });
        }
        out
    }

    /// The line where the editor is while the view is open, and the cursor's
    /// column in it.
    pub fn input_line(&self) -> (String, usize) {
        let line = "rewind› ".to_string();
        let column = line.chars().count();
        (line, column)
    }
}

/// What a prompt's run changed, for the list: `2 files +5 −1 · a.rs, b.rs`.
fn changes_text(prompt: &PromptChanges) -> String {
    if prompt.files == 0 {
        return "no file changes".into();
    }
    let files = match prompt.files {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    let mut text = format!("{files} +{} −{}", prompt.lines_added, prompt.lines_removed);
    if !prompt.paths.is_empty() {
        let paths: Vec<String> = prompt.paths.iter().map(|p| one_line(p)).collect();
        text.push_str(&format!(" · {}", paths.join(", ")));
    }
    text
}

/// What a key did to the question.
enum ChoiceKey {
    Stay,
    Back,
    Close,
    Go(Request),
}

impl Choice {
    /// The question about `target`, its preview from the harness's dry run.
    fn new(
        conversation: &mut Conversation,
        target: Option<String>,
        label: String,
        draft: Option<String>,
        origin: Origin,
        default: RewindScope,
    ) -> Choice {
        let mut choice = Choice {
            target,
            label,
            draft,
            origin,
            preview: Vec::new(),
            conflicts: 0,
            code_ok: true,
            selected: SCOPES.iter().position(|s| *s == default).unwrap_or(0),
            force: false,
            scroll: 0,
        };
        match conversation.rewind(choice.target.as_deref(), RewindScope::Code, false, true) {
            Ok(Some(report)) => choice.preview_report(&report),
            Ok(None) => {}
            Err(error) => {
                choice.code_ok = false;
                choice.preview.push((
                    Tone::Warn,
                    format!("the files cannot be restored: {}", one_line(&error)),
                ));
            }
        }
        if !choice.code_ok {
            choice.selected = 1;
        }
        choice
    }

    /// The dry run's lines: the operations, then the conflicts with their diffs.
    fn preview_report(&mut self, report: &RewindReport) {
        let plan = &report.plan;
        if plan.ops.is_empty() && plan.conflicts.is_empty() {
            self.preview.push((
                Tone::Dim,
                "the files are as they were then: a restore of the code changes nothing".into(),
            ));
        } else if !plan.ops.is_empty() {
            self.preview
                .push((Tone::Dim, "a restore of the code does:".into()));
            for op in &plan.ops {
                self.preview
                    .push((Tone::Plain, format!("  {}", one_line(&op.describe()))));
            }
        }
        self.conflicts = plan.conflicts.len();
        if !plan.conflicts.is_empty() {
            self.preview.push((
                Tone::Warn,
                format!(
                    "{} file(s) changed outside focus since focus recorded them: kept unless you press f",
                    plan.conflicts.len()
                ),
            ));
            for conflict in &plan.conflicts {
                self.preview.push((
                    Tone::Warn,
                    format!("  {}", one_line(&conflict.path.to_string_lossy())),
                ));
                for line in conflict.diff.lines() {
                    let tone = if line.starts_with("- ") {
                        Tone::Removed
                    } else if line.starts_with("+ ") {
                        Tone::Added
                    } else {
                        Tone::Dim
                    };
                    self.preview.push((tone, format!("    {}", one_line(line))));
                }
            }
        }
        if !report.missing.is_empty() {
            self.preview.push((
                Tone::Warn,
                format!(
                    "{} checkpoint(s) were pruned: what they changed stays",
                    report.missing.len()
                ),
            ));
        }
    }

    fn key(&mut self, key: &Key) -> ChoiceKey {
        let go = |choice: &Choice, index: usize| {
            let scope = SCOPES[index];
            if scope != RewindScope::Conversation && !choice.code_ok {
                return ChoiceKey::Stay;
            }
            ChoiceKey::Go(Request {
                target: choice.target.clone(),
                scope,
                force: choice.force,
                draft: choice.draft.clone(),
                label: choice.label.clone(),
                origin: choice.origin,
            })
        };
        match key {
            Key::Up => {
                self.selected = self.selected.saturating_sub(1);
                if !self.code_ok {
                    self.selected = 1;
                }
            }
            Key::Down => {
                self.selected = (self.selected + 1).min(SCOPES.len() - 1);
                if !self.code_ok {
                    self.selected = 1;
                }
            }
            Key::Char(c @ '1'..='3') => {
                let index = (*c as usize) - ('1' as usize);
                return go(self, index);
            }
            Key::Enter => return go(self, self.selected),
            Key::Char('f' | 'F') if self.conflicts > 0 => self.force = !self.force,
            Key::PageDown => self.scroll = (self.scroll + 5).min(self.preview.len()),
            Key::PageUp => self.scroll = self.scroll.saturating_sub(5),
            Key::Esc => return ChoiceKey::Back,
            Key::Ctrl('c') => return ChoiceKey::Close,
            _ => {}
        }
        ChoiceKey::Stay
    }

    fn render(&mut self, width: usize, height: usize, style: Style) -> Vec<String> {
        let room = width - 1;
        let title = match self.origin {
            Origin::Prompt => format!("rewind to before “{}”", one_line(&self.label)),
            Origin::Tree { .. } => format!(
                "the files at “{}” differ from the files now",
                one_line(&self.label)
            ),
        };
        let help = if self.conflicts > 0 {
            "1 2 3 or ↑↓ Enter: do it · f: overwrite changed files · PgUp PgDn scroll · Esc back"
        } else {
            "1 2 3 or ↑↓ Enter: do it · PgUp PgDn scroll · Esc back"
        };
        let mut out = vec![style.bold(&fit(&title, room)), style.dim(&fit(help, room))];
        let names = [
            ("restore code and conversation", ""),
            ("conversation only", "the files stay as they are"),
            ("code only", "the conversation stays"),
        ];
        for (i, (name, note)) in names.iter().enumerate() {
            let mark = if i == self.selected { "❯" } else { " " };
            let mut note = note.to_string();
            if !self.code_ok && SCOPES[i] != RewindScope::Conversation {
                note = "unavailable".into();
            }
            let row = fit(&format!("{mark} {}. {name:<31} {note}", i + 1), room);
            out.push(if i == self.selected {
                style.bold(&row)
            } else if note == "unavailable" {
                style.dim(&row)
            } else {
                row
            });
        }
        if self.conflicts > 0 {
            let state = if self.force {
                "files changed outside focus: OVERWRITTEN (f: keep them)"
            } else {
                "files changed outside focus: kept (f: overwrite them)"
            };
            out.push(style.yellow(&fit(&format!("  f  {state}"), room)));
        }
        out.push(String::new());
        let left = height.saturating_sub(out.len());
        self.scroll = self
            .scroll
            .min(self.preview.len().saturating_sub(left.max(1)));
        let more = self.preview.len().saturating_sub(self.scroll + left);
        let take = if more > 0 {
            left.saturating_sub(1)
        } else {
            left
        };
        for (tone, text) in self.preview.iter().skip(self.scroll).take(take) {
            let text = fit(text, room);
            out.push(match tone {
                Tone::Plain => text,
                Tone::Dim => style.dim(&text),
                Tone::Warn => style.yellow(&text),
                Tone::Removed => style.red(&text),
                Tone::Added => style.green(&text),
            });
        }
        let hidden = self.preview.len().saturating_sub(self.scroll + take);
        if hidden > 0 {
            out.push(style.dim(&format!("  … {hidden} more lines (PgDn)")));
        }
        out
    }
}

/// What a rewind did, for the UI.
#[derive(Clone, Debug, Default)]
pub struct Performed {
    /// The conversation moved: the transcript is shown again.
    pub moved: bool,
    /// Text for the editor (the prompt rewound to before).
    pub draft: Option<String>,
    /// What was done, one line each.
    pub lines: Vec<String>,
    /// What was kept or failed, one line each.
    pub warnings: Vec<String>,
}

/// Does `request` with the harness's [`Conversation::rewind`]: the files
/// and the conversation for [`Origin::Prompt`]; only the files for
/// [`Origin::Tree`] (the UI moves the conversation as `/tree` does).
///
/// # Errors
///
/// The harness refused or failed (a run goes on, no checkpoints, the files
/// cannot be compared); its message.
pub fn perform(conversation: &mut Conversation, request: &Request) -> Result<Performed, String> {
    let tree = matches!(request.origin, Origin::Tree { .. });
    let scope = match (tree, request.scope) {
        (true, RewindScope::Conversation) => None,
        (true, _) => Some(RewindScope::Code),
        (false, scope) => Some(scope),
    };
    let report = match scope {
        Some(scope) => {
            conversation.rewind(request.target.as_deref(), scope, request.force, false)?
        }
        None => None,
    };
    let moved = !tree && request.scope != RewindScope::Code;
    let label = one_line(&request.label);
    let mut done = Performed {
        moved,
        draft: if moved { request.draft.clone() } else { None },
        ..Performed::default()
    };
    if tree && request.scope != RewindScope::Conversation {
        done.lines
            .push(format!("restored the files as they were at “{label}”"));
    }
    if !tree {
        done.lines.push(match request.scope {
            RewindScope::Both => format!("rewound code and conversation to before “{label}”"),
            RewindScope::Conversation => {
                format!("rewound the conversation to before “{label}”; the files stay as they are")
            }
            RewindScope::Code => {
                format!("rewound the code to before “{label}”; the conversation stays")
            }
        });
    }
    if let Some(report) = report {
        report_lines(&report, request.force, &mut done);
    }
    Ok(done)
}

/// A restore's outcome in a few lines.
fn report_lines(report: &RewindReport, force: bool, done: &mut Performed) {
    let plan = &report.plan;
    let paths: Vec<String> = plan
        .changes
        .iter()
        .map(|c| one_line(&c.path.to_string_lossy()))
        .collect();
    done.lines.push(if paths.is_empty() {
        "files: nothing to restore".to_string()
    } else {
        let shown: Vec<&str> = paths.iter().take(6).map(String::as_str).collect();
        let more = paths.len().saturating_sub(shown.len());
        format!(
            "files: {} restored ({}{})",
            paths.len(),
            shown.join(", "),
            if more > 0 {
                format!(", … {more} more")
            } else {
                String::new()
            }
        )
    });
    if !plan.conflicts.is_empty() {
        let names: Vec<String> = plan
            .conflicts
            .iter()
            .map(|c| one_line(&c.path.to_string_lossy()))
            .collect();
        done.warnings.push(if force {
            format!(
                "overwrote {} file(s) changed outside focus (their content is kept in the checkpoint store): {}",
                names.len(),
                names.join(", ")
            )
        } else {
            format!(
                "kept {} file(s) changed outside focus: {} (rewind again and press f to overwrite)",
                names.len(),
                names.join(", ")
            )
        });
    }
    for failure in &report.failures {
        done.warnings.push(format!("failed: {}", one_line(failure)));
    }
    if !report.missing.is_empty() {
        done.warnings.push(format!(
            "{} checkpoint(s) were pruned: what they changed stays",
            report.missing.len()
        ));
    }
}

/// The view's keys as docs/cli.md shows them (between its markers).
pub fn markdown_table() -> String {
    let mut table = String::from("| Key in /rewind | What it does |\n|---|---|\n");
    for (keys, what) in REWIND_KEYS {
        table.push_str(&format!("| {keys} | {what} |\n"));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(text: &str, files: u64, paths: &[&str]) -> PromptChanges {
        PromptChanges {
            entry_id: format!("id-{text}"),
            rewind_to: None,
            text: text.into(),
            files,
            lines_added: 5,
            lines_removed: 1,
            paths: paths.iter().map(|p| p.to_string()).collect(),
        }
    }

    fn choice(code_ok: bool, conflicts: usize) -> Choice {
        Choice {
            target: Some("abc".into()),
            label: "fix it".into(),
            draft: Some("fix it".into()),
            origin: Origin::Prompt,
            preview: (0..30).map(|i| (Tone::Plain, format!("op {i}"))).collect(),
            conflicts,
            code_ok,
            selected: if code_ok { 0 } else { 1 },
            force: false,
            scroll: 0,
        }
    }

    /// Each prompt shows what its run changed; a prompt's escape codes are
    /// written out, never drawn.
    #[test]
    fn the_list_shows_each_prompts_changes() {
        let mut view = RewindView {
            prompts: vec![
                prompt("first \u{1b}[31mred", 2, &["a.txt", "b.txt"]),
                prompt("second", 0, &[]),
            ],
            selected: 1,
            top: 0,
            page: 10,
            choice: None,
            default: RewindScope::Both,
            style: Style::PLAIN,
        };
        let rows = view.render(80, 10);
        assert!(rows[0].starts_with("rewind · your prompts"), "{rows:?}");
        assert!(
            rows[2].contains("1. first red") && rows[2].contains("2 files +5 −1 · a.txt, b.txt"),
            "{rows:?}"
        );
        assert!(rows[3].starts_with("❯   2. second") && rows[3].contains("no file changes"));
        assert!(rows.iter().all(|r| !r.contains('\u{1b}')), "{rows:?}");
        assert!(rows.iter().all(|r| text_width(r) < 80), "{rows:?}");
    }

    /// 1, 2, 3 and Enter choose; `f` only matters with conflicts; the code
    /// choices are refused when the files cannot be restored.
    #[test]
    fn the_question_answers_with_the_chosen_scope() {
        let mut c = choice(true, 1);
        match c.key(&Key::Char('3')) {
            ChoiceKey::Go(r) => assert_eq!((r.scope, r.force), (RewindScope::Code, false)),
            _ => panic!("3 chooses the code"),
        }
        c.key(&Key::Char('f'));
        c.key(&Key::Down);
        match c.key(&Key::Enter) {
            ChoiceKey::Go(r) => {
                assert_eq!((r.scope, r.force), (RewindScope::Conversation, true));
                assert_eq!(r.draft.as_deref(), Some("fix it"));
            }
            _ => panic!("Enter chooses the selection"),
        }
        assert!(matches!(c.key(&Key::Esc), ChoiceKey::Back));
        let mut off = choice(false, 0);
        assert!(matches!(off.key(&Key::Char('1')), ChoiceKey::Stay));
        off.key(&Key::Up);
        match off.key(&Key::Enter) {
            ChoiceKey::Go(r) => assert_eq!(r.scope, RewindScope::Conversation),
            _ => panic!("the conversation can always be rewound"),
        }
        let mut plain = choice(true, 0);
        plain.key(&Key::Char('f'));
        assert!(!plain.force, "nothing to overwrite");
    }

    /// The preview fits the window and says how much more there is.
    #[test]
    fn the_preview_scrolls_within_the_window() {
        let mut c = choice(true, 0);
        let rows = c.render(60, 12, Style::PLAIN);
        assert_eq!(rows.len(), 12, "{rows:?}");
        assert!(rows[2].starts_with("❯ 1. restore code and conversation"));
        assert!(rows[5].is_empty());
        assert!(
            rows[6] == "op 0" && rows[11].contains("more lines"),
            "{rows:?}"
        );
        c.key(&Key::PageDown);
        let rows = c.render(60, 12, Style::PLAIN);
        assert_eq!(rows[6], "op 5", "{rows:?}");
        assert!(rows.iter().all(|r| text_width(r) < 60));
    }

    /// docs/cli.md shows exactly this table.
    #[test]
    fn the_document_shows_the_rewind_keys() {
        let doc = include_str!("../../../../../docs/cli.md");
        assert!(
            doc.contains(&markdown_table()),
            "docs/cli.md must contain the /rewind keys table:\n{}",
            markdown_table()
        );
    }
}
