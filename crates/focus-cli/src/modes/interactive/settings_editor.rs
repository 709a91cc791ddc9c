//! `/settings`: every setting focus reads ([`super::settings_keys`]), with the
//! picker: `/settings` lists the keys with their values and where each comes
//! from (the user's file, the project's, or the default), Enter on one lists its
//! values (or puts `/settings KEY ` in the editor for a value to type), Enter on
//! a value writes it. `/settings KEY VALUE` does the same typed.
//!
//! A value is checked before anything is written: one of the wrong kind (a
//! word for a number, a theme that is not there) is an error naming the key and
//! what it takes, and no file changes. It is written to the file that sets the
//! key already: the project's `.focus/settings.json` when it does, else the
//! user's `<FOCUS_HOME>/settings.json`. The file is read, the one key changed,
//! every other key kept as it was (in its order), and written whole through a
//! temporary file (a crash leaves the old file or the new one, never half of
//! one). A file that is not valid JSON is not touched. Then the settings are
//! reloaded (as `/reload` does); should they no longer load, the old file is
//! put back.

use super::settings_keys::{find, Setting, SETTINGS};
use super::ui::Ui;
use focus_core::json::{Object, Value};
use focus_harness::session::focus_home;
use focus_harness::settings::{global_settings_path, project_settings_path};
use focus_tui::picker::Item;
use std::path::{Path, PathBuf};

/// The value at dotted `path` in `json`.
fn at<'a>(json: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(json, |value, key| &value[key])
}

/// The JSON object in `path`, `{}` when there is no file; an error for a file
/// that is not a JSON object (it is left alone).
fn read_object(path: &Path) -> Result<Value, String> {
    match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Object(Object::new())),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        Ok(text) => match focus_core::json::parse_str(&text) {
            Ok(value @ Value::Object(_)) => Ok(value),
            Ok(_) => Err(format!(
                "{} is not a JSON object; not changed",
                path.display()
            )),
            Err(e) => Err(format!(
                "{} is not valid JSON ({e}); not changed",
                path.display()
            )),
        },
    }
}

/// Sets dotted `path` in object `json` to `value`, creating objects on the way
/// and keeping every other key.
pub fn set_path(json: &mut Value, path: &str, value: Value) {
    let (first, rest) = match path.split_once('.') {
        Some((first, rest)) => (first, Some(rest)),
        None => (path, None),
    };
    let Some(object) = json.as_object_mut() else {
        return;
    };
    match rest {
        None => {
            object.insert(first, value);
        }
        Some(rest) => {
            if !matches!(object.get_mut(first), Some(Value::Object(_))) {
                object.insert(first, Value::Object(Object::new()));
            }
            if let Some(inner) = object.get_mut(first) {
                set_path(inner, rest, value);
            }
        }
    }
}

/// Writes `json` to `path` through a temporary file beside it.
fn write_atomically(path: &Path, json: &Value) -> Result<(), String> {
    // A folder focus makes is 0700 (an existing one is left as it is: a
    // project's `.focus` may be shared); the file is 0600.
    if let Some(dir) = path.parent().filter(|d| !d.exists()) {
        focus_sys::private_files::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let temp = path.with_extension(format!("json.tmp-{}", std::process::id()));
    let text = format!("{}\n", json.to_pretty_string());
    focus_sys::private_files::write(&temp, text)
        .and_then(|_| std::fs::rename(&temp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            format!("cannot write {}: {e}", path.display())
        })
}

/// The file a key is written to, and its name for the user: the project's
/// when it sets the key already, else the global one.
fn target_file(key: &str, cwd: &Path) -> (PathBuf, &'static str) {
    let project = project_settings_path(cwd);
    let sets = read_object(&project).is_ok_and(|json| !at(&json, key).is_null());
    if sets {
        (project, "project")
    } else {
        (global_settings_path(&focus_home()), "user")
    }
}

impl Ui<'_> {
    /// `/settings [KEY|N [VALUE|N]]`.
    pub(super) fn settings_command(&mut self, rest: &str) -> Result<(), String> {
        let mut words = rest.splitn(2, char::is_whitespace);
        let (first, value) = (words.next().unwrap_or(""), words.next().map(str::trim));
        if first.is_empty() {
            self.open_settings_keys();
            return Ok(());
        }
        let setting = match first.parse::<usize>() {
            Ok(n) => SETTINGS.get(n.wrapping_sub(1)),
            Err(_) => find(first),
        }
        .ok_or_else(|| {
            format!("no setting {first:?}; /settings lists them (docs/settings.md explains each)")
        })?;
        let themes = crate::terminal::theme::names(&focus_home(), &self.cwd);
        let values = setting.kind.values(&themes);
        match value.filter(|v| !v.is_empty()) {
            None if values.is_empty() => {
                // A value to type: the command waits in the editor.
                self.set_input(&format!("{} ", setting.command));
                self.notice = Some(format!(
                    "{}: type {} and press Enter",
                    setting.key,
                    setting.kind.expected(&themes)
                ));
                Ok(())
            }
            None => {
                self.open_settings_values(setting, &values);
                Ok(())
            }
            Some(value) => {
                let typed = match value.parse::<usize>() {
                    Ok(n) if !values.is_empty() => values
                        .get(n.wrapping_sub(1))
                        .map(|v| Value::String(v.clone()))
                        .ok_or_else(|| format!("no value {n} for {}", setting.key))
                        .and_then(|v| setting.kind.parse(v.as_str().unwrap_or(""), &themes)),
                    _ => setting.kind.parse(value, &themes),
                }
                .map_err(|error| format!("{}: {error}; nothing saved", setting.key))?;
                self.write_setting(setting.key, typed)
            }
        }
    }

    fn open_settings_keys(&mut self) {
        let project = read_object(&project_settings_path(&self.cwd)).unwrap_or(Value::Null);
        let user = read_object(&global_settings_path(&focus_home())).unwrap_or(Value::Null);
        let items = SETTINGS
            .iter()
            .map(|setting| {
                let (value, from) = match (at(&project, setting.key), at(&user, setting.key)) {
                    (Value::Null, Value::Null) => (setting.default.to_string(), "default"),
                    (Value::Null, v) => (show(v), "user"),
                    (v, _) => (show(v), "project"),
                };
                Item::new(
                    format!("{} = {value}", setting.key),
                    format!("{from} · {}", setting.what),
                )
            })
            .collect();
        self.open_numbered(
            "settings (Enter: choose or type a value; the source is user, project or default)",
            "/settings",
            items,
            None,
        );
    }

    fn open_settings_values(&mut self, setting: &Setting, values: &[String]) {
        let (file, which) = target_file(setting.key, &self.cwd);
        let current = read_object(&file)
            .map(|json| show(at(&json, setting.key)))
            .unwrap_or_default();
        let items = values.iter().map(|v| Item::new(v.clone(), "")).collect();
        let selected = values.iter().position(|v| *v == current);
        self.open_numbered(
            &format!(
                "{} → the {which} {} (Enter writes)",
                setting.key,
                file.display()
            ),
            setting.command,
            items,
            selected,
        );
    }

    /// Writes `key` = `value` (checked) into the right file, then reloads
    /// the settings; when they no longer load, the file is put back as it was.
    fn write_setting(&mut self, key: &str, value: Value) -> Result<(), String> {
        let (file, which) = target_file(key, &self.cwd);
        let before = std::fs::read(&file).ok();
        let mut json = read_object(&file)?;
        let shown = show(&value);
        set_path(&mut json, key, value);
        write_atomically(&file, &json)?;
        let notes = match self.reload_settings() {
            Ok(notes) => notes,
            Err(error) => {
                // Put the old file back: nothing saved.
                let _ = match &before {
                    Some(bytes) => focus_sys::private_files::write(&file, bytes),
                    None => std::fs::remove_file(&file),
                };
                let _ = self.reload_settings();
                return Err(format!("{key}: {error}; nothing saved"));
            }
        };
        if key == "permissionMode" {
            crate::seams::set_permission_mode(self.engine, &shown)?;
        }
        for note in notes {
            let text = focus_tools::output::sanitize(&note).into_owned();
            self.say(&self.style.yellow(&text));
        }
        let text = format!("{key} = {shown} written to the {which} {}", file.display());
        self.say(&self.style.dim(&focus_tools::output::sanitize(&text)));
        Ok(())
    }
}

/// A settings value as one short line.
fn show(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_json_string(),
    };
    crate::modes::print::clip(&text, 40)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_a_path_keeps_the_other_keys_in_order() {
        let mut json =
            focus_core::json::parse_str(r#"{"a":1,"compaction":{"reserveTokens":5},"z":"x"}"#)
                .unwrap();
        set_path(&mut json, "compaction.enabled", Value::Bool(false));
        set_path(&mut json, "theme", Value::String("light".into()));
        assert_eq!(
            json.to_json_string(),
            r#"{"a":1,"compaction":{"reserveTokens":5,"enabled":false},"z":"x","theme":"light"}"#
        );
    }
}
