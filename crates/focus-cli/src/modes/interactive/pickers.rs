//! The pickers the UI opens ([`Picker`] does the filtering and drawing):
//!
//! - `/` on an empty input: the command menu, with each command's line, then
//!   the user's prompt templates and skills with theirs; the input after `/` is
//!   the query; Enter runs the command (one that needs an argument, a template
//!   or a skill is completed instead), Tab completes it;
//! - `@` at the start of the input or after a space: the project's files
//!   (`.gitignore` respected: focus-tools' walker, in the background:
//!   [`super::project_files`]), the input after `@` is the
//!   query; Enter or Tab put `@path ` in its place, and when the message is sent
//!   the file is attached as `focus @FILE` attaches it (text inline, images as
//!   images);
//! - `/model` without an argument: the models usable now (provider/id, context
//!   window, price), typed into the picker itself; Enter switches (recorded in
//!   the session, as `/model provider/id`);
//! - `/tree`, `/fork` and `/resume` without an argument: their entries, your
//!   messages, the recent sessions; Enter acts as `/tree N`, `/fork N`,
//!   `/resume N` do.
//!
//! Ctrl+P steps to the next model of the scope (`enabledModels`, `--models`;
//! else of the `/model` list), Shift+Ctrl+P to the one before, Shift+Tab to the
//! next thinking level (all recorded, as the commands do).
//!
//! A picker following the input closes when the input no longer has its `/` or
//! `@` before the cursor, or the query holds a space.

use super::commands::{self, COMMANDS};
use super::footer::human;
use super::popup::{Popup, Purpose};
use super::ui::Ui;
use focus_core::message::Content;
use focus_core::provider::ThinkingLevel;
use focus_tools::output::sanitize;
use focus_tui::keys::Key;
use focus_tui::picker::{Item, Outcome, Picker};
use std::path::Path;

/// The most rows a picker takes.
const MAX_ROWS: usize = 12;

impl Ui<'_> {
    /// A key the open picker takes (moving, choosing, closing, or its own
    /// query's typing); `false` lets the key go on to the editor.
    pub(super) fn picker_key(&mut self, key: &Key) -> bool {
        let Some(popup) = &mut self.popup else {
            return false;
        };
        let purpose = popup.purpose;
        match popup.picker.key(key) {
            Outcome::Moved => true,
            Outcome::Cancelled => {
                self.popup = None;
                true
            }
            Outcome::Chosen(index) | Outcome::Completed(index) => {
                let label = popup.picker.selected().map(|i| i.label.clone());
                let anchor = popup.anchor;
                self.popup = None;
                if let Some(label) = label {
                    self.picked(purpose, anchor, (index, &label), *key == Key::Tab);
                }
                true
            }
            Outcome::NoMatch => {
                // A command no entry matches (`/exit`, a typo) is sent as
                // typed: the command runner names what is wrong.
                self.popup = None;
                purpose != Purpose::Command
            }
            Outcome::Other if popup.anchor.is_none() => {
                if *key == Key::Ctrl('c') {
                    self.popup = None;
                } else {
                    popup.picker.type_key(key);
                }
                true
            }
            Outcome::Other => false,
        }
    }

    /// After a key: the open picker follows the input (or closes), and a `/`
    /// or `@` just typed opens one.
    pub(super) fn after_key(&mut self, key: &Key) {
        let text: Vec<char> = self.editor.text().chars().collect();
        let cursor = self.editor.cursor().min(text.len());
        if let Some(popup) = &mut self.popup {
            let Some(anchor) = popup.anchor else {
                return;
            };
            let trigger = if popup.purpose == Purpose::Command {
                '/'
            } else {
                '@'
            };
            let query: String = text
                .get(anchor + 1..cursor)
                .map(|q| q.iter().collect())
                .unwrap_or_default();
            if cursor <= anchor
                || text.get(anchor) != Some(&trigger)
                || query.chars().any(char::is_whitespace)
            {
                self.popup = None;
            } else {
                popup.picker.set_query(&query);
                if popup.purpose == Purpose::Command {
                    popup.picker.select_label(&format!("/{query}"));
                }
            }
            return;
        }
        match key {
            Key::Char('/') if text == ['/'] => self.open_command_menu(),
            Key::Char('@')
                if cursor >= 1
                    && text[cursor - 1] == '@'
                    && (cursor == 1 || text[cursor - 2].is_whitespace()) =>
            {
                self.open_file_picker(cursor - 1)
            }
            _ => {}
        }
    }

    /// The open picker's rows, at most `room` of them (and [`MAX_ROWS`]).
    pub(super) fn picker_rows(&mut self, width: usize, room: usize) -> Vec<String> {
        let style = self.style;
        match &mut self.popup {
            Some(popup) => popup.picker.rows(width, room.min(MAX_ROWS), style),
            None => Vec::new(),
        }
    }

    fn open_command_menu(&mut self) {
        let user = commands::user_commands(&self.cwd);
        let items = COMMANDS
            .iter()
            .map(|(name, what)| Item::new(*name, *what))
            .chain(user.into_iter().map(|c| Item::new(c.name, c.description)))
            .collect();
        self.popup = Some(Popup {
            picker: Picker::new("commands", items),
            purpose: Purpose::Command,
            anchor: Some(0),
        });
    }

    fn open_file_picker(&mut self, anchor: usize) {
        // The last walk's files (or a walk on the spot), and a new walk for
        // next time.
        let items = self.file_index.files_now(&self.cwd);
        self.walk_files_in_background();
        if items.is_empty() {
            self.notice = Some("no files here to attach".into());
            return;
        }
        self.popup = Some(Popup {
            picker: items.picker("files"),
            purpose: Purpose::File,
            anchor: Some(anchor),
        });
    }

    /// `/model` without an argument: the picker over the models usable now,
    /// the current one selected.
    pub fn open_model_picker(&mut self) -> Result<(), String> {
        let items: Vec<Item> = crate::scope::usable_models()?
            .into_iter()
            .map(|m| {
                let mut detail = format!("ctx {}", human(m.context_window));
                if m.price.input > 0.0 || m.price.output > 0.0 {
                    detail.push_str(&format!(" · ${}/${} per M", m.price.input, m.price.output));
                }
                Item::new(format!("{}/{}", m.provider, m.id), detail)
            })
            .collect();
        if items.len() <= 1 {
            self.say(&self.style.dim(
                "no provider has an API key set; set one (e.g. ANTHROPIC_API_KEY) or add models.json",
            ));
        }
        let current = self.engine.conversation.config.provider.model();
        let current = format!("{}/{}", current.provider, current.id);
        let mut picker = Picker::new("models", items);
        picker.select_label(&current);
        self.popup = Some(Popup {
            picker,
            purpose: Purpose::Model,
            anchor: None,
        });
        Ok(())
    }

    /// A picker over a numbered command's list (`command N` runs entry N),
    /// entry `selected` selected.
    pub fn open_numbered(
        &mut self,
        title: &str,
        command: &'static str,
        items: Vec<Item>,
        selected: Option<usize>,
    ) {
        let mut picker = Picker::new(title, items);
        if let Some(index) = selected {
            picker.select_index(index);
        }
        self.popup = Some(Popup {
            picker,
            purpose: Purpose::Numbered(command),
            anchor: None,
        });
    }

    /// Shift+Tab: the next thinking level (after `xhigh`, `off`), recorded.
    pub(super) fn cycle_thinking(&mut self) {
        if self.engine.conversation.is_busy() {
            self.notice = Some("the thinking level changes when the agent is done".into());
            return;
        }
        let levels = ThinkingLevel::ALL;
        let now = self.engine.conversation.config.options.thinking;
        let at = levels.iter().position(|l| *l == now).unwrap_or(0);
        let next = levels[(at + 1) % levels.len()];
        self.engine.conversation.set_thinking(next);
        self.notice = Some(format!("thinking: {}", next.as_str()));
    }

    /// Ctrl+P (Shift+Ctrl+P: `backward`): the next (previous) model of the
    /// scope (`enabledModels`, `--models`), else of the `/model` picker's list,
    /// switched to and recorded ([`crate::scope::cycle`]).
    pub(super) fn cycle_model(&mut self, backward: bool) {
        if self.engine.conversation.is_busy() {
            self.notice = Some("the model changes when the agent is done".into());
            return;
        }
        match crate::scope::cycle(self.engine, backward) {
            // Model ids come from models.json or a local server: printable.
            Ok(Some(to)) => {
                let scoped = if to.scoped {
                    format!(" · thinking {} · scoped", to.thinking.as_str())
                } else {
                    String::new()
                };
                let line = format!("model: {}{scoped}", to.model.label());
                self.say(&sanitize(&line));
            }
            Ok(None) => self.notice = Some("no other model to switch to".into()),
            Err(error) => self.notice = Some(sanitize(&error).into_owned()),
        }
    }

    /// Acts on a choice, entry `index` labelled `label`: `tab` when it was Tab
    /// (complete) rather than Enter.
    fn picked(
        &mut self,
        purpose: Purpose,
        anchor: Option<usize>,
        (index, label): (usize, &str),
        tab: bool,
    ) {
        match purpose {
            Purpose::Command if tab || commands::needs_argument(label) => {
                self.editor.set_text(&format!("{label} "));
            }
            Purpose::Command => {
                self.editor.take();
                self.submit(label.to_string(), false);
            }
            Purpose::File if label.chars().any(char::is_control) => {
                // The input shows what it holds: a name with escape sequences
                // cannot go there (the picker showed it made printable).
                self.notice = Some(
                    "that file's name holds control characters: it cannot be put in the input; ask the model to read it".into(),
                );
            }
            Purpose::File => {
                let start = anchor.unwrap_or(0);
                let end = self.editor.cursor();
                self.editor.replace_range(start, end, &format!("@{label} "));
                self.attached.push(label.to_string());
            }
            Purpose::Model => commands::run(self, &format!("/model {label}")),
            Purpose::Numbered(command) => commands::run(self, &format!("{command} {}", index + 1)),
        }
    }

    /// The files picked with `@` that the text still names (`@path`), read as
    /// `focus @FILE` reads them; the list of picked files is emptied (kept
    /// when one cannot be read: the message returns to the editor).
    pub(super) fn take_attachments(&mut self, text: &str) -> Result<Vec<Content>, String> {
        let picked = std::mem::take(&mut self.attached);
        let mut content = Vec::new();
        let mut done: Vec<&str> = Vec::new();
        for path in &picked {
            if done.contains(&path.as_str()) || !text.contains(&format!("@{path}")) {
                continue;
            }
            done.push(path);
            // Relative, as `focus @src/x.rs` names it to the model (focus's
            // working directory is the process's).
            match crate::input::attach_file(Path::new(path)) {
                Ok(file) => content.push(file),
                Err(error) => {
                    // The message goes back to the editor: its picks stay.
                    self.attached = picked.clone();
                    return Err(sanitize(&error).into_owned());
                }
            }
        }
        Ok(content)
    }
}
