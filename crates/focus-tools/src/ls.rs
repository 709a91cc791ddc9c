//! `ls`: the entries of one directory.
//!
//! Sorted alphabetically ignoring case, directories marked with a trailing
//! `/` (symbolic links to directories too), dotfiles included, limited. Unlike
//! find and grep, ls ignores `.gitignore`: asking for a directory's contents
//! means all of them.

use std::path::{Path, PathBuf};

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

use crate::args;
use crate::path;
use crate::schema;
use crate::state::ToolState;

/// Entries returned when the model gives no limit.
pub const DEFAULT_LIMIT: usize = 500;

/// The `ls` tool.
pub struct LsTool {
    cwd: PathBuf,
    state: ToolState,
}

impl LsTool {
    /// An `ls` tool resolving relative paths against `cwd`, within `state`'s
    /// sandbox.
    pub fn new(cwd: PathBuf, state: ToolState) -> LsTool {
        LsTool { cwd, state }
    }
}

impl Tool for LsTool {
    fn name(&self) -> &str {
        "ls"
    }

    fn description(&self) -> &str {
        "List the entries of a directory, sorted alphabetically, directories marked with a \
         trailing '/', dotfiles included. At most limit entries (default 500). For a recursive \
         search use find."
    }

    fn parameters(&self) -> Value {
        schema::object(
            [
                (
                    "path",
                    schema::string("Directory to list (default: the working directory)"),
                ),
                (
                    "limit",
                    schema::integer(1, "Maximum number of entries to return (default 500)"),
                ),
            ],
            &[],
        )
    }

    fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> ToolOutput {
        run(&self.cwd, &self.state, args).unwrap_or_else(ToolOutput::error)
    }

    fn is_read_only(&self, _args: &Value) -> bool {
        true
    }
}

fn run(cwd: &Path, state: &ToolState, args: &Value) -> Result<ToolOutput, String> {
    let given = args::optional_str(args, "path")?.unwrap_or(".");
    let limit = args::optional_u64(args, "limit")?
        .unwrap_or(DEFAULT_LIMIT as u64)
        .max(1) as usize;
    let resolved = path::resolve(cwd, given)?;
    state.sandbox.check_read(&resolved)?;
    let shown = path::describe(given, &resolved);
    let metadata =
        std::fs::metadata(&resolved).map_err(|e| path::io_error("list", given, &resolved, &e))?;
    if !metadata.is_dir() {
        return Err(format!(
            "{shown} is a file, not a directory. Use read to see its contents."
        ));
    }
    let reader =
        std::fs::read_dir(&resolved).map_err(|e| path::io_error("list", given, &resolved, &e))?;
    let mut entries: Vec<String> = reader
        .filter_map(Result::ok)
        .map(|entry| {
            // A name may hold a newline or an escape: quoted and escaped, it stays one
            // entry and cannot drive the terminal.
            let mut name = path::printable(&entry.file_name().to_string_lossy()).into_owned();
            // metadata() follows symbolic links, so a link to a directory is marked too.
            if std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()) {
                name.push('/');
            }
            name
        })
        .collect();
    if entries.is_empty() {
        return Ok(
            ToolOutput::text("(empty directory)").with_details(json_object! { "count" => 0 })
        );
    }
    entries.sort_by(|a, b| {
        a.to_lowercase()
            .cmp(&b.to_lowercase())
            .then_with(|| a.cmp(b))
    });
    let total = entries.len();
    let more = total > limit;
    entries.truncate(limit);
    let mut text = entries.join("\n");
    if more {
        text.push_str(&format!(
            "\n\n[{limit} entries limit reached ({total} in total). Use limit={} for more.]",
            (limit * 2).min(total)
        ));
    }
    Ok(ToolOutput::text(text)
        .with_details(json_object! { "count" => total, "limitReached" => more }))
}
