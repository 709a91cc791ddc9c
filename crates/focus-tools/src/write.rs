//! `write`: create or overwrite a file, atomically.
//!
//! [`write_atomic`] is the one way focus changes a file (edit uses it too). It
//! writes the new bytes to a temporary file in the *same directory*, flushes them
//! to disk, copies the old file's permissions, then renames the temporary file
//! over the target. A rename within one file system is atomic: a reader, or a
//! crash at any moment, sees either the whole old file or the whole new one,
//! never a half-written mix. (A temporary file elsewhere, such as /tmp, could be
//! on another file system, where rename is a copy.) Finally the directory is
//! synced so the rename itself survives a power cut.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use focus_core::json::Value;
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use focus_core::{json_array, json_object};

use crate::args;
use crate::path;

/// The `write` tool.
pub struct WriteTool {
    cwd: PathBuf,
}

impl WriteTool {
    /// A `write` tool resolving relative paths against `cwd`.
    pub fn new(cwd: PathBuf) -> WriteTool {
        WriteTool { cwd }
    }
}

impl Tool for WriteTool {
    fn name(&self) -> &str {
        "write"
    }

    fn description(&self) -> &str {
        "Write content to a file, creating it (and missing parent directories) or replacing it \
         entirely. Use it for new files or complete rewrites; to change part of an existing file, \
         use edit instead. The write is atomic and keeps the file's permissions."
    }

    fn parameters(&self) -> Value {
        json_object! {
            "type" => "object",
            "properties" => json_object! {
                "path" => json_object! {
                    "type" => "string",
                    "description" => "Path to the file, relative to the working directory or absolute",
                },
                "content" => json_object! {
                    "type" => "string",
                    "description" => "The complete new content of the file",
                },
            },
            "required" => json_array!["path", "content"],
        }
    }

    fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        match run(&self.cwd, args) {
            Ok(output) => output,
            Err(message) => ToolOutput::error(message),
        }
    }

    fn runs_alone(&self, _args: &Value) -> bool {
        true
    }
}

fn run(cwd: &Path, args: &Value) -> Result<ToolOutput, String> {
    let given = args::required_str(args, "path")?;
    let content = args::required_str(args, "content")?;
    let resolved = path::resolve(cwd, given)?;
    crate::sandbox::current().check_write(&resolved)?;
    let shown = path::describe(given, &resolved);
    if resolved.is_dir() {
        return Err(format!(
            "{shown} is a directory; give the path of a file inside it."
        ));
    }
    if fs::metadata(&resolved).is_ok_and(|m| !m.is_file()) {
        // Renaming a regular file over /dev/null or a FIFO would replace it.
        return Err(format!(
            "{shown} is not a regular file (a pipe, socket or device); write only creates or \
             replaces regular files."
        ));
    }
    if let Some(parent) = resolved.parent() {
        if parent.exists() && !parent.is_dir() {
            return Err(format!(
                "Cannot write {shown}: {} is a file, not a directory.",
                path::printable(&parent.display().to_string())
            ));
        }
        fs::create_dir_all(parent)
            .map_err(|e| path::io_error("create the parent directory of", given, &resolved, &e))?;
    }
    let existed = resolved.exists();
    write_atomic(&resolved, content.as_bytes())
        .map_err(|e| path::io_error("write", given, &resolved, &e))?;
    let verb = if existed { "Overwrote" } else { "Created" };
    Ok(ToolOutput::text(format!(
        "{verb} {}: wrote {} bytes.",
        path::printable(given),
        content.len()
    ))
    .with_details(
        json_object! { "path" => resolved.display().to_string(), "bytes" => content.len() },
    ))
}

/// Replaces `path` with `bytes` atomically (temp file in the same directory,
/// fsync, permissions of the old file, rename, directory fsync). A symlink is
/// written through: its target is replaced, the link stays a link.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let old_metadata = fs::metadata(&target).ok();
    let old_permissions = old_metadata.as_ref().map(|m| m.permissions());
    if old_metadata.is_some_and(|m| m.is_file()) {
        // The rename below needs only the directory to be writable, so it would
        // replace a file its owner made read-only. Refuse where a plain write
        // would be refused (opening for writing changes nothing by itself).
        OpenOptions::new().write(true).open(&target)?;
    }
    // The temporary file starts with no more access than the old file has, so a
    // private file's new content is never readable by others, even briefly.
    let mode = old_permissions.as_ref().map_or(0o666, |p| {
        use std::os::unix::fs::PermissionsExt;
        p.mode() & 0o777
    });
    let (temp_path, mut temp_file) = create_temp_beside(&dir, &target, mode)?;
    let result = (|| {
        temp_file.write_all(bytes)?;
        if let Some(permissions) = old_permissions {
            temp_file.set_permissions(permissions)?;
        }
        temp_file.sync_all()?;
        drop(temp_file);
        fs::rename(&temp_path, &target)?;
        // Persist the directory entry change; not every file system supports
        // syncing a directory, and the data is already safe, so failure is ignored.
        if let Ok(dir_handle) = File::open(&dir) {
            let _ = dir_handle.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp_path);
    }
    result
}

/// Creates a fresh, uniquely named hidden file next to `target`, with `mode`
/// (less the umask).
fn create_temp_beside(dir: &Path, target: &Path, mode: u32) -> std::io::Result<(PathBuf, File)> {
    use std::os::unix::fs::OpenOptionsExt;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // At most 200 bytes of the name, so the temporary name stays within the
    // 255 bytes a file name may have even when the target's name is that long.
    let name: String = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string())
        .chars()
        .scan(0, |len, c| {
            *len += c.len_utf8();
            (*len <= 200).then_some(c)
        })
        .collect();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp_path = dir.join(format!(".{name}.focus-{}-{n}.tmp", std::process::id()));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&temp_path)
        {
            Ok(file) => return Ok((temp_path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_temporary_file_starts_as_private_as_the_old_file() {
        // It was created 0644 and narrowed only after the new content was in it.
        let dir = std::env::temp_dir().join(format!("focus-write-mode-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (path, _file) = create_temp_beside(&dir, &dir.join("secret.env"), 0o600).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(mode, 0o600);
    }
}
