//! What the interactive mode takes from the settings files (the `theme`,
//! `hideThinkingBlock`, `keybindings.json`), read at start, and `/reload`:
//! everything read from files again, without leaving focus.
//!
//! `/reload` reads the settings (the UI's keys, compaction, retries, delivery
//! modes), `keybindings.json` and the theme; AGENTS.md files, skills and
//! prompt templates are read anew (the system prompt is rebuilt now, and again
//! before every model call), and models.json (which `/model` and Ctrl+P read
//! each time they are used). Permissions, hooks, MCP servers and the sandbox
//! are fixed for the session: a change to those needs a new start, and
//! `/reload` says so.

use super::ui::Ui;
use crate::terminal::theme::{self, Depth, Theme};
use focus_harness::session::focus_home;
use focus_harness::settings::{load_settings, Settings};
use focus_tui::keybindings::{self, Bindings};
use std::path::Path;

/// The interactive mode's part of the settings.
pub struct UiSettings {
    /// The colours.
    pub theme: &'static Theme,
    /// Thinking starts folded (`hideThinkingBlock`).
    pub hide_thinking: bool,
    /// `keybindings.json`.
    pub bindings: Bindings,
    /// What could not be used (an unknown theme, a key focus cannot read).
    pub warnings: Vec<String>,
}

impl UiSettings {
    /// Reads them from `settings` and `<FOCUS_HOME>/keybindings.json`.
    pub fn from_settings(settings: &Settings, cwd: &Path) -> UiSettings {
        let home = focus_home();
        let mut warnings = Vec::new();
        let theme = match settings.theme.as_deref() {
            None => &theme::DARK,
            Some(name) => theme::load(name, &home, cwd).unwrap_or_else(|e| {
                warnings.push(format!("{e}; using the dark theme"));
                &theme::DARK
            }),
        };
        let (bindings, binding_warnings) = keybindings::load(&home);
        warnings.extend(binding_warnings);
        UiSettings {
            theme,
            hide_thinking: settings.hide_thinking_block.unwrap_or(false),
            bindings,
            warnings,
        }
    }

    /// Reads the settings files, then [`UiSettings::from_settings`]; a settings
    /// file that cannot be read leaves the defaults and says why.
    pub fn load(cwd: &Path) -> UiSettings {
        match load_settings(&focus_home(), cwd) {
            Ok(loaded) => UiSettings::from_settings(&loaded.settings, cwd),
            Err(error) => {
                let mut ui = UiSettings::from_settings(&Settings::default(), cwd);
                ui.warnings.push(error.to_string());
                ui
            }
        }
    }
}

impl Ui<'_> {
    /// Puts `settings` in effect: theme, folded thinking, keys; the warnings
    /// are shown.
    pub(super) fn apply_ui_settings(&mut self, settings: UiSettings) {
        self.style = self.style.themed(settings.theme, Depth::from_env());
        self.show_thinking = !settings.hide_thinking;
        self.bindings = settings.bindings;
        for warning in settings.warnings {
            // Paths and names come from files.
            let text = focus_tools::output::sanitize(&warning).into_owned();
            self.say(&self.style.yellow(&text));
        }
    }

    /// The settings read again and put in effect (the UI's keys, compaction,
    /// retries, delivery modes, `enabledModels` unless `--models` was given,
    /// keybindings.json, the theme); returns the
    /// warnings. A file that cannot be read changes nothing.
    pub(super) fn reload_settings(&mut self) -> Result<Vec<String>, String> {
        let loaded = load_settings(&focus_home(), &self.cwd)
            .map_err(|e| format!("settings not reloaded (nothing changed):\n{e}"))?;
        let settings = loaded.settings;
        let engine = &mut *self.engine;
        engine.conversation.compaction = settings.compaction;
        engine.retry = crate::seams::retry_policy(&settings.retry);
        engine.conversation.config.steering_mode = settings.steering_mode.unwrap_or_default();
        engine.conversation.config.follow_up_mode = settings.follow_up_mode.unwrap_or_default();
        if !self.scope_from_flag {
            engine.model_scope = settings.enabled_models.clone().unwrap_or_default();
        }
        let mut notes = loaded.warnings;
        let mut ui = UiSettings::from_settings(&settings, &self.cwd);
        notes.append(&mut ui.warnings);
        self.apply_ui_settings(ui);
        self.screen.redraw_all();
        Ok(notes)
    }

    /// `/reload`.
    pub(super) fn reload(&mut self) -> Result<(), String> {
        let mut notes = self.reload_settings()?;
        let engine = &mut *self.engine;
        // The system prompt: AGENTS.md files and skills, read now.
        if let Some(source) = engine.prompt_source.clone() {
            let specs: Vec<_> = engine
                .conversation
                .config
                .tools
                .iter()
                .map(|t| t.spec())
                .collect();
            let (prompt, warnings) = source.build(&specs);
            engine.conversation.config.system_prompt = prompt;
            notes.extend(warnings);
        }
        let home = focus_home();
        let context_files =
            focus_harness::prompt::context_files::load_context_files(&home, &self.cwd).len();
        let (skills, skill_warnings) =
            focus_harness::prompt::skills::discover_skills(&home, &self.cwd);
        notes.extend(skill_warnings);
        let templates = focus_harness::prompt::commands::template_names(&home, &self.cwd).len();
        let models = match crate::seams::registry() {
            Ok(registry) => format!("{} models", registry.models().len()),
            Err(error) => {
                notes.push(format!("models.json: {error}"));
                "models.json not readable".to_string()
            }
        };
        for note in notes {
            let text = focus_tools::output::sanitize(&note).into_owned();
            self.say(&self.style.yellow(&text));
        }
        self.say(&self.style.dim(&format!(
            "reloaded: settings (theme {}), keybindings.json, {context_files} AGENTS.md files, {} skills, {templates} prompt templates, {models}; permissions, hooks, MCP servers and the sandbox change at the next start",
            self.style.theme.name,
            skills.len()
        )));
        Ok(())
    }
}
