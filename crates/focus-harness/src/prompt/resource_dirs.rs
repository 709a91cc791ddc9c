//! Where prompt templates and skills are looked for, in one place: the
//! project's `.focus/prompts/` (`.focus/skills/`), the config directory's
//! `prompts/` (`skills/`), then the directories pi's settings keys `prompts`
//! and `skills` name. An earlier directory wins a name found in two.
//!
//! The settings' entries are directories: `~` is the home directory, a relative
//! path is taken from the project directory. pi's glob patterns and its `!`,
//! `+` and `-` prefixes (package filters) are not read: such an entry is
//! skipped, and docs/settings.md says so.

use crate::session::paths::expand_tilde;
use std::path::{Path, PathBuf};

/// The directories to look in for `kind` (`"prompts"` or `"skills"`), in order.
pub fn resource_dirs(kind: &str, config_dir: &Path, cwd: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![cwd.join(".focus").join(kind), config_dir.join(kind)];
    // A settings file that does not load is reported at start; here it only
    // means no extra directories.
    if let Ok(loaded) = crate::settings::load_settings(config_dir, cwd) {
        let entries = loaded.settings.merged[kind].as_array().cloned();
        for entry in entries.unwrap_or_default() {
            let Some(text) = entry.as_str().map(str::trim) else {
                continue;
            };
            let pattern = text.contains(['*', '?', '[']) || text.starts_with(['!', '+', '-']);
            if text.is_empty() || pattern {
                continue;
            }
            let path = expand_tilde(Path::new(text));
            let path = if path.is_absolute() {
                path
            } else {
                cwd.join(path)
            };
            if !dirs.contains(&path) {
                dirs.push(path);
            }
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_paths_come_after_the_two_default_directories() {
        let root = std::env::temp_dir().join(format!("focus-resource-dirs-{}", std::process::id()));
        let (config, cwd) = (root.join("config"), root.join("project"));
        std::fs::create_dir_all(cwd.join(".focus")).unwrap();
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            config.join("settings.json"),
            r#"{"prompts":["/opt/team-prompts","shared/prompts","*.md","!old"]}"#,
        )
        .unwrap();
        let dirs = resource_dirs("prompts", &config, &cwd);
        assert_eq!(
            dirs,
            [
                cwd.join(".focus/prompts"),
                config.join("prompts"),
                PathBuf::from("/opt/team-prompts"),
                cwd.join("shared/prompts"),
            ]
        );
        assert_eq!(resource_dirs("skills", &config, &cwd).len(), 2);
        let _ = std::fs::remove_dir_all(root);
    }
}
