//! `sandbox.limits`: what one tool process (and everything it starts) may use.
//!
//! ```json
//! "sandbox": {"limits": {"processes": 1024, "fileSizeMb": 4096, "memoryMb": 8192,
//!                        "cpuSeconds": 7200, "tempDirMb": 1024, "maxTimeoutSeconds": 7200}}
//! ```
//!
//! | key | default | enforced by |
//! |---|---|---|
//! | `processes` | 1024 | `RLIMIT_NPROC` in the tool's user namespace; as root a `pids` control group for the session (`RLIMIT_NPROC` never applies to uid 0) |
//! | `fileSizeMb` | 4096 | `RLIMIT_FSIZE`: a larger file cannot be written |
//! | `memoryMb` | 8192 | `RLIMIT_DATA` per process |
//! | `cpuSeconds` | 7200 | `RLIMIT_CPU` per process |
//! | `tempDirMb` | 1024 | checked, not trusted: focus measures the private temporary directory (blocks in use) every half second while a command runs and after it; past the cap the command is killed and the directory emptied |
//! | `maxTimeoutSeconds` | 7200 | the bash tool clamps a larger `timeout` and says so |
//!
//! `0` turns a limit off (not `maxTimeoutSeconds`, which must be positive).

use focus_core::json::Value;
use std::path::Path;

/// The limits of tool processes (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolLimits {
    /// Processes at once (`None`: unlimited).
    pub processes: Option<u64>,
    /// Largest file, in bytes.
    pub file_size: Option<u64>,
    /// Private memory per process, in bytes.
    pub memory: Option<u64>,
    /// CPU seconds per process.
    pub cpu_seconds: Option<u64>,
    /// Size of the private temporary directory, in bytes.
    pub temp_dir: Option<u64>,
    /// Longest bash timeout, in seconds.
    pub max_timeout_secs: u64,
}

const MB: u64 = 1024 * 1024;

impl Default for ToolLimits {
    fn default() -> Self {
        ToolLimits {
            processes: Some(1024),
            file_size: Some(4096 * MB),
            memory: Some(8192 * MB),
            cpu_seconds: Some(7200),
            temp_dir: Some(1024 * MB),
            max_timeout_secs: 7200,
        }
    }
}

impl ToolLimits {
    /// Reads `sandbox.limits` (absent keys keep their defaults); errors name
    /// the key.
    ///
    /// # Errors
    ///
    /// `sandbox.limits` is not an object, or one of its keys has a value of the wrong type or
    /// range; the message names the key.
    pub fn from_json(value: &Value) -> Result<ToolLimits, String> {
        let mut out = ToolLimits::default();
        let object = match value {
            Value::Null => return Ok(out),
            Value::Object(object) => object,
            _ => return Err("`sandbox.limits` must be an object".to_string()),
        };
        for (key, value) in object.iter() {
            let number = value
                .as_f64()
                .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n < 1e15)
                .map(|n| n as u64)
                .ok_or_else(|| format!("`sandbox.limits.{key}` must be a whole number ≥ 0"))?;
            let limit = (number > 0).then_some(number);
            match key {
                "processes" => out.processes = limit,
                "fileSizeMb" => out.file_size = limit.map(|n| n * MB),
                "memoryMb" => out.memory = limit.map(|n| n * MB),
                "cpuSeconds" => out.cpu_seconds = limit,
                "tempDirMb" => out.temp_dir = limit.map(|n| n * MB),
                "maxTimeoutSeconds" => {
                    out.max_timeout_secs = limit.ok_or(
                        "`sandbox.limits.maxTimeoutSeconds` must be at least 1".to_string(),
                    )?
                }
                other => {
                    return Err(format!(
                        "unknown key `sandbox.limits.{other}` (expected processes, fileSizeMb, \
                         memoryMb, cpuSeconds, tempDirMb or maxTimeoutSeconds)"
                    ))
                }
            }
        }
        Ok(out)
    }

    /// The kernel's share of the limits (`setrlimit`).
    #[cfg(target_os = "linux")]
    pub fn rlimits(&self) -> focus_sys::rlimits::Limits {
        focus_sys::rlimits::Limits {
            processes: self.processes,
            file_size: self.file_size,
            data: self.memory,
            cpu_seconds: self.cpu_seconds,
        }
    }
}

/// Bytes in use beneath `dir` (blocks allocated, so a sparse file counts what
/// it occupies), not following symbolic links, stopping once past `stop_at`.
pub fn disk_usage(dir: &Path, stop_at: u64) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut total = 0u64;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            total += meta.blocks() * 512;
            if meta.is_dir() {
                stack.push(entry.path());
            }
            if total > stop_at {
                return total;
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str as parse;

    #[test]
    fn reads_limits_and_names_bad_keys() {
        let l = ToolLimits::from_json(
            &parse(r#"{"processes":64,"tempDirMb":2,"cpuSeconds":0,"maxTimeoutSeconds":60}"#)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(l.processes, Some(64));
        assert_eq!(l.temp_dir, Some(2 * MB));
        assert_eq!(l.cpu_seconds, None);
        assert_eq!(l.max_timeout_secs, 60);
        assert_eq!(
            ToolLimits::from_json(&Value::Null).unwrap(),
            ToolLimits::default()
        );
        for (bad, says) in [
            (r#"{"processes":-1}"#, "sandbox.limits.processes"),
            (r#"{"procs":1}"#, "sandbox.limits.procs"),
            (r#"{"maxTimeoutSeconds":0}"#, "at least 1"),
            (r#"[]"#, "must be an object"),
        ] {
            let err = ToolLimits::from_json(&parse(bad).unwrap()).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
