//! The `checkpoints` settings (docs/settings.md): whether file checkpoints
//! are kept, whether the project is watched, the size cap per file, the storage caps, and what `/rewind` and
//! `/tree` restore by default.

use focus_core::json::Value;

/// `checkpoints.*`, defaults filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointSettings {
    /// `enabled` (default `true`).
    pub enabled: bool,
    /// `maxFileBytes`: larger files are not recorded (default 64 MiB).
    pub max_file_bytes: u64,
    /// `maxSessionBytes`: content one session may hold (default 1 GiB).
    pub max_session_bytes: u64,
    /// `maxTotalBytes`: content all sessions of a folder may hold (default 4 GiB).
    pub max_total_bytes: u64,
    /// `maxPaths`: a project with more tracked paths is not tracked (default 500,000).
    pub max_paths: usize,
    /// `rewindDefault`: `both`, `code` or `conversation` (default `both`).
    pub rewind_default: String,
    /// `watch`: list only the folders with file change events after a call
    /// (inotify, Linux) instead of walking the whole project (default `true`).
    pub watch: bool,
}

impl Default for CheckpointSettings {
    fn default() -> CheckpointSettings {
        CheckpointSettings {
            enabled: true,
            max_file_bytes: 64 << 20,
            max_session_bytes: 1 << 30,
            max_total_bytes: 4 << 30,
            max_paths: 500_000,
            rewind_default: "both".into(),
            watch: true,
        }
    }
}

impl CheckpointSettings {
    /// Reads the `checkpoints` object (`Null`: the defaults; a key of the wrong
    /// type keeps its default).
    pub fn from_value(value: &Value) -> CheckpointSettings {
        let mut out = CheckpointSettings::default();
        if let Some(enabled) = value.get("enabled").and_then(Value::as_bool) {
            out.enabled = enabled;
        }
        if let Some(watch) = value.get("watch").and_then(Value::as_bool) {
            out.watch = watch;
        }
        let number = |key: &str| value.get(key).and_then(Value::as_u64);
        if let Some(n) = number("maxFileBytes") {
            out.max_file_bytes = n;
        }
        if let Some(n) = number("maxSessionBytes") {
            out.max_session_bytes = n;
        }
        if let Some(n) = number("maxTotalBytes") {
            out.max_total_bytes = n;
        }
        if let Some(n) = number("maxPaths") {
            out.max_paths = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(scope) = value.get("rewindDefault").and_then(Value::as_str) {
            if matches!(scope, "both" | "code" | "conversation") {
                out.rewind_default = scope.into();
            }
        }
        out
    }
}
