//! `read`: a text file by lines, or an image as image content.
//!
//! Text comes back capped ([`crate::output`]): at most 2,000 lines or 50 KB from
//! `offset`, lines over [`MAX_LINE_CHARS`] characters cut with a marker, and a
//! closing note that says exactly which `offset` reads the next part. A file
//! with a NUL byte in its first 8 KB is binary and refused with advice; PNG,
//! JPEG, GIF and WebP files (recognised by their magic bytes, not their names)
//! come back as base64 image content for models that take images.

mod image;
mod lines;
mod page;

pub use image::{base64_encode, image_mime_type, MAX_IMAGE_BYTES};
pub use lines::MAX_LINE_CHARS;

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

use focus_core::json::Value;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

use crate::args;
use crate::open::{self, OpenError};
use crate::output;
use crate::path;
use crate::sandbox::Sandbox;
use crate::schema;
use crate::seen::{self, Seen, SeenFiles};
use crate::state::ToolState;

/// How much of a file's start is checked for NUL bytes.
const BINARY_SNIFF_BYTES: usize = 8192;

/// The `read` tool.
pub struct ReadTool {
    cwd: PathBuf,
    state: ToolState,
}

impl ReadTool {
    /// A `read` tool resolving relative paths against `cwd`, within `state`'s
    /// sandbox, sharing its record of files seen.
    pub fn new(cwd: PathBuf, state: ToolState) -> ReadTool {
        ReadTool { cwd, state }
    }
}

impl Tool for ReadTool {
    fn name(&self) -> &str {
        "read"
    }

    fn description(&self) -> &str {
        "Read a file. Text comes back as-is (no line numbers), at most 2000 lines or 50KB per call; \
         lines over 2000 characters are cut. When more remains, a note at the end says which offset \
         to use next. Use offset (1-based line number) and limit (number of lines) to read part of a \
         large file. PNG, JPEG, GIF and WebP images come back as images. Binary files are refused."
    }

    fn parameters(&self) -> Value {
        schema::object(
            [
                ("path", schema::file_path()),
                (
                    "offset",
                    schema::integer(1, "Line number to start from (1-based)"),
                ),
                (
                    "limit",
                    schema::integer(1, "Maximum number of lines to read"),
                ),
            ],
            &["path"],
        )
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        run(&self.cwd, &self.state, args, &|| ctx.cancel.is_cancelled())
            .unwrap_or_else(ToolOutput::error)
    }

    fn is_read_only(&self, _args: &Value) -> bool {
        true
    }
}

/// One `read` call: the arguments checked, the file opened, its first bytes
/// looked at (an image comes back whole, a binary file is refused), then the
/// asked-for window of lines.
fn run(
    cwd: &Path,
    state: &ToolState,
    args: &Value,
    cancelled: &dyn Fn() -> bool,
) -> Result<ToolOutput, String> {
    let given = args::required_str(args, "path")?;
    let offset = args::optional_u64(args, "offset")?.unwrap_or(1).max(1) as usize;
    let limit = args::optional_u64(args, "limit")?.map(|n| n as usize);
    if limit == Some(0) {
        return Err("Argument \"limit\" must be at least 1.".to_string());
    }
    let resolved = path::resolve(cwd, given)?;
    state.sandbox.check_read(&resolved)?;
    let shown = path::describe(given, &resolved);
    let (mut file, metadata) = open_for_read(given, &resolved, &shown, &state.sandbox)?;
    let failed = |e: std::io::Error| {
        if open::would_block(&e) {
            open::would_block_text(&shown)
        } else {
            path::io_error("read", given, &resolved, &e)
        }
    };
    let mut head = vec![0; BINARY_SNIFF_BYTES];
    let head_len = read_up_to(&mut file, &mut head).map_err(failed)?;
    head.truncate(head_len);

    if let Some(mime_type) = image_mime_type(&head) {
        if metadata.len() > MAX_IMAGE_BYTES {
            return Err(image::too_large_text(&shown, mime_type, metadata.len()));
        }
        let mut bytes = head;
        file.read_to_end(&mut bytes).map_err(failed)?;
        remember(
            &state.seen,
            &resolved,
            &file,
            bytes.len() as u64,
            seen::hash_blocks(&bytes),
        );
        return Ok(image::image_output(&shown, mime_type, &bytes));
    }
    if head.contains(&0) {
        return Err(binary_text(&shown, &metadata));
    }
    let last_wanted = limit.map_or(usize::MAX, |l| offset.saturating_add(l - 1));
    let window = lines::read_window(head, &file, offset, last_wanted, cancelled, &failed)?;
    remember(&state.seen, &resolved, &file, window.read_len, window.hash);
    page::page(
        &shown,
        &window.lines,
        window.total_lines,
        offset,
        last_wanted,
    )
}

/// Opens the regular file at `resolved` within `sandbox`, or says why not.
fn open_for_read(
    given: &str,
    resolved: &Path,
    shown: &str,
    sandbox: &Sandbox,
) -> Result<(File, Metadata), String> {
    match open::open_regular_checked(resolved, sandbox) {
        Ok(opened) => Ok(opened),
        Err(OpenError::Io(e)) => Err(path::io_error("read", given, resolved, &e)),
        Err(OpenError::NotRegular(open::DIRECTORY)) => Err(format!(
            "{shown} is a directory, not a file. Use ls to list it or find to search it."
        )),
        Err(OpenError::NotRegular(kind)) => Err(open::not_regular_text(shown, kind)),
    }
}

/// The refusal of a binary file (a NUL byte in its first
/// [`BINARY_SNIFF_BYTES`]), with what to use instead.
fn binary_text(shown: &str, metadata: &Metadata) -> String {
    format!(
        "{shown} is a binary file ({}), not text. Inspect it with bash instead, \
         for example `file <path>` or `xxd <path> | head`.",
        output::format_size(metadata.len() as usize)
    )
}

/// Records what was read ([`crate::seen`]) so that `edit` and `write` notice
/// a later change by someone else.
fn remember(seen: &SeenFiles, path: &Path, file: &File, len: u64, hash: u64) {
    if let Ok(metadata) = file.metadata() {
        seen.record(path, Seen::new(&metadata, len, hash));
    }
}

/// Reads until `buf` is full or the file ends; returns the bytes read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
