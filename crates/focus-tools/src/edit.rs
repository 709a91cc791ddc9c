//! `edit`: exact text replacements in one file, all or nothing.
//!
//! The model sends `edits: [{oldText, newText}, …]`. Each `oldText` must occur
//! exactly once in the file as it was before the call; the replacements must
//! not overlap; if any edit fails, none is applied and the file is untouched.
//!
//! How matching works ([`locate`]):
//! 1. The file is read as UTF-8; a BOM is set aside, and CRLF line endings are
//!    turned into LF (and the model's text likewise), so a model that never saw
//!    a `\r` can still match. Both are restored when the file is written.
//! 2. Exact search. One occurrence: done. Several: an error listing the line of
//!    each, asking for more surrounding context.
//! 3. No exact occurrence: the whitespace-tolerant matcher
//!    ([`fuzzy::find_whitespace_tolerant`]) compares whole lines ignoring
//!    indentation and spacing; it is used only if it finds exactly one place.
//! 4. Still nothing: the error shows the most similar region of the file with
//!    line numbers ([`fuzzy::closest_region`]), and its first differing line,
//!    so the model can correct its `oldText` in one step. Failed edits are the
//!    most common complaint about coding agents; a bare "not found" makes the
//!    model re-read the whole file and guess again.
//!
//! Before anything is written, the file must be as focus last read or wrote it
//! ([`crate::seen`]); it is written by [`crate::replace::replace_existing`] (in
//! place when it has hard links or other writers, by atomic rename otherwise)
//! and the result shows a small unified diff ([`diff::unified_diff`]).

pub mod diff;
pub mod fuzzy;
mod line_endings;
mod locate;
mod plan;
mod report;
mod request;

pub use line_endings::uses_crlf;
pub use locate::{locate, Located};
pub use request::{parse_edits, Replacement};

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

use crate::args;
use crate::open::{self, OpenError};
use crate::path;
use crate::replace::ReplaceError;
use crate::schema;
use crate::seen::{self, Seen};
use crate::state::ToolState;
use crate::write::commit;
use line_endings::NormalisedFile;

/// The `edit` tool.
pub struct EditTool {
    cwd: PathBuf,
    state: ToolState,
}

impl EditTool {
    /// An `edit` tool resolving relative paths against `cwd`, within `state`'s
    /// sandbox, sharing its record of files seen.
    pub fn new(cwd: PathBuf, state: ToolState) -> EditTool {
        EditTool { cwd, state }
    }
}

impl Tool for EditTool {
    fn name(&self) -> &str {
        "edit"
    }

    fn description(&self) -> &str {
        "Edit a file by replacing exact text. Give one or more {oldText, newText} pairs in edits. \
         Each oldText must appear exactly once in the current file: copy it from the file \
         character for character, including indentation and line breaks, with enough surrounding \
         lines to be unique. Edits are matched against the file before any of them is applied, must \
         not overlap, and are applied all together or not at all. On failure, the error shows the \
         closest matching lines or the lines of every match; fix oldText and retry. To create a \
         file or rewrite it entirely, use write."
    }

    fn parameters(&self) -> Value {
        let edit = schema::object(
            [
                (
                    "oldText",
                    schema::string("Exact text to replace; must occur exactly once in the file"),
                ),
                ("newText", schema::string("Text to put in its place")),
            ],
            &["oldText", "newText"],
        );
        let edits = json_object! {
            "type" => "array",
            "items" => edit,
            "minItems" => 1,
            "description" => "Replacements, each matched against the original file",
        };
        schema::object(
            [("path", schema::file_path()), ("edits", edits)],
            &["path", "edits"],
        )
    }

    fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        run(&self.cwd, &self.state, args).unwrap_or_else(ToolOutput::error)
    }

    fn runs_alone(&self, _args: &Value) -> bool {
        true
    }
}

/// One `edit` call: the file read as focus last saw it, every edit placed
/// against its text, the new file written over it, the diff shown.
fn run(cwd: &Path, state: &ToolState, args: &Value) -> Result<ToolOutput, String> {
    let given = args::required_str(args, "path")?;
    let edits = parse_edits(args)?;
    let resolved = path::resolve(cwd, given)?;
    state.sandbox.check_write(&resolved)?;
    let shown = path::describe(given, &resolved);
    let (file, metadata, bytes) = read_as_seen(state, given, &resolved, &shown)?;
    let read_len = bytes.len() as u64;
    let original = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{shown} is not valid UTF-8 text (invalid byte at offset {}); edit only changes text files.",
            e.utf8_error().valid_up_to()
        )
    })?;
    let normalised = NormalisedFile::new(&original);
    let text = normalised.text();
    let planned = plan::plan(text, &edits, &shown)?;
    let updated = plan::apply(text, &planned);
    if updated == text {
        return Err(format!(
            "No changes made to {shown}: every newText equals the text it replaces."
        ));
    }
    let file_text = normalised.rebuild(&planned);
    let how = commit(
        state,
        &resolved,
        &file,
        &metadata,
        read_len,
        file_text.as_bytes(),
    )
    .map_err(|e| match e {
        ReplaceError::Changed(why) => format!(
            "{shown} was not edited: {why}. Read it again and redo the edit against its \
                 current content."
        ),
        ReplaceError::Io(e) => path::io_error("write", given, &resolved, &e),
    })?;
    Ok(report::edited(given, text, &updated, &planned, how))
}

/// Opens the file at `resolved` (a regular file, within the sandbox) and reads
/// it whole, checking that it is as focus last read or wrote it
/// ([`crate::seen`]): the open file, its metadata and its bytes.
fn read_as_seen(
    state: &ToolState,
    given: &str,
    resolved: &Path,
    shown: &str,
) -> Result<(File, Metadata, Vec<u8>), String> {
    let (file, metadata) = match open::open_regular_checked(resolved, &state.sandbox) {
        Ok(opened) => opened,
        Err(OpenError::Io(e)) => {
            let mut message = path::io_error("edit", given, resolved, &e);
            if e.kind() == std::io::ErrorKind::NotFound {
                message.push_str(" To create a new file, use write.");
            }
            return Err(message);
        }
        Err(OpenError::NotRegular(open::DIRECTORY)) => {
            return Err(format!("{shown} is a directory, not a file."))
        }
        Err(OpenError::NotRegular(kind)) => return Err(open::not_regular_text(shown, kind)),
    };
    let mut bytes = Vec::new();
    (&file).read_to_end(&mut bytes).map_err(|e| {
        if open::would_block(&e) {
            open::would_block_text(shown)
        } else {
            path::io_error("read", given, resolved, &e)
        }
    })?;
    state.seen.check(
        resolved,
        Seen::new(&metadata, bytes.len() as u64, seen::hash_blocks(&bytes)),
        shown,
    )?;
    Ok((file, metadata, bytes))
}
