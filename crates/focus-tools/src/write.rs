//! `write`: create or overwrite a file, atomically.
//!
//! [`write_atomic`] is the one way focus changes a file (edit uses it too). It
//! writes the new bytes to a temporary file in the *same directory*, flushes them
//! to disk, copies the old file's permissions, then renames the temporary file
//! over the target, all inside the target's directory as it was checked: the
//! path is resolved and checked once and the directory reached from there with
//! no symbolic link followed ([`crate::beneath`]), so a link swapped in by
//! another program cannot send the write elsewhere. A rename within one file
//! system is atomic: a reader, or a
//! crash at any moment, sees either the whole old file or the whole new one,
//! never a half-written mix. (A temporary file elsewhere, such as /tmp, could be
//! on another file system, where rename is a copy.) Finally the directory is
//! synced so the rename itself survives a power cut.
//!
//! An existing file is replaced through [`commit`]: it must be as focus last
//! read or wrote it ([`crate::seen`]), and [`crate::replace::replace_existing`]
//! writes in place when the file has hard links or other writers, atomically
//! otherwise.

use std::collections::hash_map::RandomState;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use focus_sys::openat::{self, Open};

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

use crate::args;
use crate::path;
use crate::replace::{replace_existing, ReplaceError, Replaced};
use crate::sandbox::Sandbox;
use crate::schema;
use crate::seen::{self, Seen, SeenFiles};
use crate::state::ToolState;

/// The `write` tool.
pub struct WriteTool {
    cwd: PathBuf,
    state: ToolState,
}

impl WriteTool {
    /// A `write` tool resolving relative paths against `cwd`, within `state`'s
    /// sandbox, sharing its record of files seen.
    pub fn new(cwd: PathBuf, state: ToolState) -> WriteTool {
        WriteTool { cwd, state }
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
        schema::object(
            [
                ("path", schema::file_path()),
                (
                    "content",
                    schema::string("The complete new content of the file"),
                ),
            ],
            &["path", "content"],
        )
    }

    fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        run(&self.cwd, &self.state, args).unwrap_or_else(ToolOutput::error)
    }

    fn runs_alone(&self, _args: &Value) -> bool {
        true
    }
}

fn run(cwd: &Path, state: &ToolState, args: &Value) -> Result<ToolOutput, String> {
    let given = args::required_str(args, "path")?;
    let content = args::required_str(args, "content")?;
    let resolved = path::resolve(cwd, given)?;
    state.sandbox.check_write(&resolved)?;
    let shown = path::describe(given, &resolved);
    if resolved.is_dir() {
        return Err(format!(
            "{shown} is a directory; give the path of a file inside it."
        ));
    }
    match fs::metadata(&resolved) {
        // Renaming a regular file over /dev/null or a FIFO would replace it.
        Ok(m) if !m.is_file() => {
            return Err(format!(
                "{shown} is {}, not a regular file; write only creates or replaces regular files.",
                crate::open::kind_of(&m)
            ))
        }
        Ok(_) => return overwrite(state, given, &resolved, &shown, content),
        Err(_) => {}
    }
    if let Some(parent) = resolved.parent() {
        if parent.exists() && !parent.is_dir() {
            return Err(format!(
                "Cannot write {shown}: {} is a file, not a directory.",
                path::printable(&parent.display().to_string())
            ));
        }
    }
    write_atomic(&resolved, content.as_bytes(), &state.sandbox)
        .map_err(|e| path::io_error("write", given, &resolved, &e))?;
    remember_written(&state.seen, &resolved, content.as_bytes());
    Ok(ToolOutput::text(format!(
        "Created {}: wrote {} bytes.",
        path::printable(given),
        content.len()
    ))
    .with_details(
        json_object! { "path" => resolved.display().to_string(), "bytes" => content.len() },
    ))
}

/// `write` over an existing regular file: checked against what focus last saw
/// of it, then replaced by [`commit`].
fn overwrite(
    state: &ToolState,
    given: &str,
    resolved: &Path,
    shown: &str,
    content: &str,
) -> Result<ToolOutput, String> {
    use std::io::Read;
    let (file, metadata) = match crate::open::open_regular_checked(resolved, &state.sandbox) {
        Ok(opened) => opened,
        // A write-only file cannot be read to check it: it is replaced as before.
        Err(crate::open::OpenError::Io(e)) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            write_atomic(resolved, content.as_bytes(), &state.sandbox)
                .map_err(|e| path::io_error("write", given, resolved, &e))?;
            return Ok(ToolOutput::text(format!(
                "Overwrote {}: wrote {} bytes.",
                path::printable(given),
                content.len()
            )));
        }
        Err(crate::open::OpenError::Io(e)) => {
            return Err(path::io_error("write", given, resolved, &e))
        }
        Err(crate::open::OpenError::NotRegular(kind)) => {
            return Err(crate::open::not_regular_text(shown, kind))
        }
    };
    let mut old = Vec::new();
    (&file).read_to_end(&mut old).map_err(|e| {
        if crate::open::would_block(&e) {
            crate::open::would_block_text(shown)
        } else {
            path::io_error("read", given, resolved, &e)
        }
    })?;
    let read_len = old.len() as u64;
    state.seen.check(
        resolved,
        Seen::new(&metadata, read_len, seen::hash_blocks(&old)),
        shown,
    )?;
    let how = commit(
        state,
        resolved,
        &file,
        &metadata,
        read_len,
        content.as_bytes(),
    )
    .map_err(|e| match e {
        ReplaceError::Changed(why) => format!(
            "{shown} was not written: {why}. Read it again and decide whether to overwrite it."
        ),
        ReplaceError::Io(e) => path::io_error("write", given, resolved, &e),
    })?;
    let mut text = format!(
        "Overwrote {}: wrote {} bytes.",
        path::printable(given),
        content.len()
    );
    text.push_str(&replaced_note(how));
    Ok(ToolOutput::text(text).with_details(json_object! {
        "path" => resolved.display().to_string(),
        "bytes" => content.len(),
        "written" => written_label(how),
    }))
}

/// Replaces the existing file at `path` (read through `file`, whose metadata
/// was `read` and of which `read_len` bytes were read) with `bytes`
/// ([`replace_existing`], within `state`'s sandbox), and records what was
/// written in `state`'s record of files seen ([`crate::seen`]).
///
/// # Errors
///
/// As [`replace_existing`]: the file changed since it was read, or it cannot be written.
pub fn commit(
    state: &ToolState,
    path: &Path,
    file: &File,
    read: &fs::Metadata,
    read_len: u64,
    bytes: &[u8],
) -> Result<Replaced, ReplaceError> {
    let how = replace_existing(path, file, read, read_len, bytes, &state.sandbox)?;
    remember_written(&state.seen, path, bytes);
    Ok(how)
}

/// Records that focus wrote `bytes` to `path` (so a later change by someone
/// else is noticed).
pub fn remember_written(seen: &SeenFiles, path: &Path, bytes: &[u8]) {
    if let Ok(meta) = fs::metadata(path) {
        seen.record(
            path,
            Seen::new(&meta, bytes.len() as u64, seen::hash_blocks(bytes)),
        );
    }
}

/// What the result adds about a replacement: bytes another program appended
/// meanwhile that were kept, and a writer still holding the old file.
pub fn replaced_note(how: Replaced) -> String {
    let Replaced::Renamed {
        salvaged,
        writer_left,
    } = how
    else {
        return String::new();
    };
    let mut note = String::new();
    if salvaged > 0 {
        note.push_str(&format!(
            " {salvaged} bytes another program appended to the old file during the change were \
             kept at its end."
        ));
    }
    if let Some(pid) = writer_left {
        note.push_str(&format!(
            " Warning: process {pid} still has the old file open for writing; what it writes \
             from now on does not reach this file (restart it or make it reopen the file)."
        ));
    }
    note
}

/// How a replacement was written, for a result's details.
pub fn written_label(how: Replaced) -> &'static str {
    match how {
        Replaced::InPlace => "in place",
        Replaced::Renamed { .. } => "atomically",
    }
}

/// Replaces `path` with `bytes` atomically (temp file in the same directory,
/// fsync, permissions and owner of the old file, rename, directory fsync). A
/// symlink is written through: its target is replaced, the link stays a link.
/// The path is resolved and checked once, and the directory is reached from
/// there with no symbolic link followed ([`crate::beneath`]): the temporary
/// file is created, and renamed over the target, inside that directory's
/// descriptor, so what was checked is what is written. Missing parent
/// directories are created the same way.
///
/// # Errors
///
/// The system's error when the directory cannot be reached without a symbolic
/// link, or the temporary file cannot be created, written or synced, or the
/// rename fails; `path` is unchanged then.
pub fn write_atomic(path: &Path, bytes: &[u8], sandbox: &Sandbox) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let placed = crate::beneath::place_for_write(path, true, sandbox)?;
    let old_metadata = match placed.open(Open {
        path_only: true,
        ..Open::default()
    }) {
        Ok(file) => Some(file.metadata()?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(old) = &old_metadata {
        if !old.is_file() {
            // Renaming a regular file over /dev/null or a FIFO would replace it.
            return Err(std::io::Error::other(format!(
                "{} is {}, not a regular file",
                placed.target.display(),
                crate::open::kind_of(old)
            )));
        }
        // The rename below needs only the directory to be writable, so it would
        // replace a file its owner made read-only. Refuse where a plain write
        // would be refused (opening for writing changes nothing by itself).
        placed.open(Open {
            write: true,
            nonblock: true,
            ..Open::default()
        })?;
    }
    let old_permissions = old_metadata.as_ref().map(|m| m.permissions());
    // The temporary file starts with no more access than the old file has, so a
    // private file's new content is never readable by others, even briefly.
    let mode = old_metadata.as_ref().map_or(0o666, |m| m.mode() & 0o777);
    let (temp_name, mut temp_file) = create_temp_in(&placed.dir, &placed.name, mode)?;
    let result = (|| {
        temp_file.write_all(bytes)?;
        if let Some(permissions) = old_permissions {
            temp_file.set_permissions(permissions)?;
        }
        if let Some(old) = &old_metadata {
            // Only root may give a file away; otherwise it stays ours, as before.
            let _ = std::os::unix::fs::fchown(&temp_file, Some(old.uid()), Some(old.gid()));
        }
        temp_file.sync_all()?;
        drop(temp_file);
        openat::rename_at(&placed.dir, &temp_name, &placed.name)?;
        // Persist the directory entry change; not every file system supports
        // syncing a directory, and the data is already safe, so failure is ignored.
        let _ = placed.dir.sync_all();
        Ok(())
    })();
    if result.is_err() {
        let _ = openat::unlink_at(&placed.dir, &temp_name);
    }
    result
}

/// Creates a fresh, uniquely named hidden file beside `name` in the open
/// directory `dir`, with `mode` (less the umask); returns its name and handle.
fn create_temp_in(dir: &File, name: &OsStr, mode: u32) -> std::io::Result<(OsString, File)> {
    // At most 200 bytes of the name, so the temporary name stays within the
    // 255 bytes a file name may have even when the target's name is that long.
    let name: String = name
        .to_string_lossy()
        .chars()
        .scan(0, |len, c| {
            *len += c.len_utf8();
            (*len <= 200).then_some(c)
        })
        .collect();
    loop {
        // A fresh `RandomState` has fresh keys: a new number each time, with
        // no counter kept for the whole process (`create_new` refuses a clash).
        let n = RandomState::new().build_hasher().finish();
        let temp_name = OsString::from(format!(".{name}.focus-{}-{n:x}.tmp", std::process::id()));
        let how = Open {
            write: true,
            create_new: Some(mode),
            ..Open::default()
        };
        match openat::open_beneath(dir, Path::new(&temp_name), how) {
            Ok(file) => return Ok((temp_name, file)),
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
        let handle = File::open(&dir).unwrap();
        let (name, _file) = create_temp_in(&handle, OsStr::new("secret.env"), 0o600).unwrap();
        let mode = fs::metadata(dir.join(name)).unwrap().permissions().mode() & 0o777;
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(mode, 0o600);
    }
}
