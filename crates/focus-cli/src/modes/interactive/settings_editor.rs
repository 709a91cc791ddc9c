//! `/settings`: an editor for the settings focus reads that have a choice of
//! values, with the picker: `/settings` lists the keys with their values and
//! where each comes from, Enter on one lists its values, Enter on a value
//! writes it. `/settings KEY VALUE` does the same typed.
//!
//! A value is written to the file that sets the key already: the project's
//! `.focus/settings.json` when it does, else the global `<FOCUS_HOME>/settings.json`.
//! The file is read, the one key changed, every other key kept as it was (in
//! its order), and written whole through a temporary file (a crash leaves the
//! old file or the new one, never half of one). A file that is not valid JSON
//! is not touched. Then the settings are reloaded (as `/reload` does).

use super::Ui;
use focus_core::json::{Object, Value};
use focus_harness::session::focus_home;
use focus_harness::settings::{global_settings_path, project_settings_path};
use focus_tui::picker::Item;
use std::path::{Path, PathBuf};

/// The keys `/settings` edits: the key (a dotted path), the command its value
/// picker runs, its values (`None`: the themes there are) and what it does.
pub const EDITABLE: &[(&str, &str, Option<&[&str]>, &str)] = &[
    (
        "theme",
        "/settings theme",
        None,
        "colours of the interactive mode",
    ),
    (
        "hideThinkingBlock",
        "/settings hideThinkingBlock",
        Some(&["true", "false"]),
        "thinking starts folded (Ctrl+T shows it)",
    ),
    (
        "defaultThinkingLevel",
        "/settings defaultThinkingLevel",
        Some(&["off", "minimal", "low", "medium", "high", "xhigh"]),
        "thinking level of new sessions",
    ),
    (
        "permissionMode",
        "/settings permissionMode",
        Some(&["default", "accept-edits", "plan", "auto"]),
        "permission mode (applied now too)",
    ),
    (
        "steeringMode",
        "/settings steeringMode",
        Some(&["all", "one-at-a-time"]),
        "how queued steering messages are delivered",
    ),
    (
        "followUpMode",
        "/settings followUpMode",
        Some(&["all", "one-at-a-time"]),
        "how queued follow-ups are delivered",
    ),
    (
        "compaction.enabled",
        "/settings compaction.enabled",
        Some(&["true", "false"]),
        "compact the history automatically",
    ),
    (
        "retry.enabled",
        "/settings retry.enabled",
        Some(&["true", "false"]),
        "retry a model call that failed",
    ),
];

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
        (global_settings_path(&focus_home()), "global")
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
        let entry = match first.parse::<usize>() {
            Ok(n) => EDITABLE.get(n.wrapping_sub(1)),
            Err(_) => EDITABLE.iter().find(|e| e.0 == first),
        }
        .ok_or_else(|| {
            let keys: Vec<&str> = EDITABLE.iter().map(|e| e.0).collect();
            format!("/settings edits {}", keys.join(", "))
        })?;
        let values = self.values_of(entry.2);
        match value.filter(|v| !v.is_empty()) {
            None => {
                self.open_settings_values(entry, &values);
                Ok(())
            }
            Some(value) => {
                let value = match value.parse::<usize>() {
                    Ok(n) => values
                        .get(n.wrapping_sub(1))
                        .cloned()
                        .ok_or_else(|| format!("no value {n} for {}", entry.0))?,
                    Err(_) if values.iter().any(|v| v == value) => value.to_string(),
                    Err(_) => {
                        return Err(format!("{} takes {}", entry.0, values.join(", ")));
                    }
                };
                self.write_setting(entry.0, &value)
            }
        }
    }

    fn values_of(&self, values: Option<&[&str]>) -> Vec<String> {
        match values {
            Some(values) => values.iter().map(|v| v.to_string()).collect(),
            None => crate::terminal::theme::names(&focus_home(), &self.cwd),
        }
    }

    fn open_settings_keys(&mut self) {
        let project = read_object(&project_settings_path(&self.cwd)).unwrap_or(Value::Null);
        let global = read_object(&global_settings_path(&focus_home())).unwrap_or(Value::Null);
        let items = EDITABLE
            .iter()
            .map(|(key, _, _, what)| {
                let (value, from) = match (at(&project, key), at(&global, key)) {
                    (Value::Null, Value::Null) => ("(not set)".to_string(), "default"),
                    (Value::Null, v) => (show(v), "global"),
                    (v, _) => (show(v), "project"),
                };
                Item::new(format!("{key} = {value}"), format!("{from} · {what}"))
            })
            .collect();
        self.open_numbered("settings (Enter: choose a value)", "/settings", items, None);
    }

    fn open_settings_values(
        &mut self,
        entry: &(&str, &'static str, Option<&[&str]>, &str),
        values: &[String],
    ) {
        let (file, which) = target_file(entry.0, &self.cwd);
        let current = read_object(&file)
            .map(|json| show(at(&json, entry.0)))
            .unwrap_or_default();
        let items = values.iter().map(|v| Item::new(v.clone(), "")).collect();
        let selected = values.iter().position(|v| *v == current);
        self.open_numbered(
            &format!(
                "{} → the {which} {} (Enter writes)",
                entry.0,
                file.display()
            ),
            entry.1,
            items,
            selected,
        );
    }

    /// Writes `key` = `value` into the right file, then reloads the settings.
    fn write_setting(&mut self, key: &str, value: &str) -> Result<(), String> {
        let (file, which) = target_file(key, &self.cwd);
        let mut json = read_object(&file)?;
        let typed = match value {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            other => Value::String(other.to_string()),
        };
        set_path(&mut json, key, typed);
        write_atomically(&file, &json)?;
        if key == "permissionMode" {
            crate::seams::set_permission_mode(self.engine, value)?;
        }
        let notes = self.reload_settings()?;
        for note in notes {
            let text = focus_tools::output::sanitize(&note).into_owned();
            self.say(&self.style.yellow(&text));
        }
        let text = format!("{key} = {value} written to the {which} {}", file.display());
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
