//! `find`: list files and directories whose names match a glob.
//!
//! A pattern without `/` is matched against each entry's name (`*.rs` finds
//! Rust files at any depth); a pattern with `/` against its path relative to
//! the search directory (`src/**/*.rs`). The walk honours `.gitignore` and
//! `.ignore` like grep's; results are sorted and limited.

use std::path::{Path, PathBuf};

use focus_core::json::Value;
use focus_core::json_object;
use focus_core::tool::{Tool, ToolContext, ToolOutput};

use crate::args;
use crate::glob::Glob;
use crate::output::{self, MAX_BYTES};
use crate::path;
use crate::schema;
use crate::state::ToolState;
use crate::walk::{self, Flow};

/// Results returned when the model gives no limit.
pub const DEFAULT_LIMIT: usize = 1000;

/// The `find` tool.
pub struct FindTool {
    cwd: PathBuf,
    state: ToolState,
}

impl FindTool {
    /// A `find` tool resolving relative paths against `cwd`, within `state`'s
    /// sandbox.
    pub fn new(cwd: PathBuf, state: ToolState) -> FindTool {
        FindTool { cwd, state }
    }
}

impl Tool for FindTool {
    fn name(&self) -> &str {
        "find"
    }

    fn description(&self) -> &str {
        "Find files and directories by glob pattern, e.g. '*.rs', '**/*.json', 'src/**/test_*.py', \
         '*.{ts,tsx}'. A pattern without '/' matches names at any depth; with '/' it matches the \
         path relative to the search directory. Respects .gitignore. Returns sorted paths \
         (directories end with '/'), at most limit (default 1000)."
    }

    fn parameters(&self) -> Value {
        schema::object(
            [
                (
                    "pattern",
                    schema::string(
                        "Glob pattern: * ? [abc] {a,b} and ** (any number of directories)",
                    ),
                ),
                (
                    "path",
                    schema::string("Directory to search (default: the working directory)"),
                ),
                (
                    "limit",
                    schema::integer(1, "Maximum number of results (default 1000)"),
                ),
            ],
            &["pattern"],
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

fn run(
    cwd: &Path,
    state: &ToolState,
    args: &Value,
    cancelled: &dyn Fn() -> bool,
) -> Result<ToolOutput, String> {
    let pattern = args::required_str(args, "pattern")?;
    let given = args::optional_str(args, "path")?.unwrap_or(".");
    let limit = args::optional_u64(args, "limit")?
        .unwrap_or(DEFAULT_LIMIT as u64)
        .max(1) as usize;
    if pattern.is_empty() {
        return Err("The pattern is empty. Give a glob such as '*.rs' or '**/*.json'.".to_string());
    }
    let glob = Glob::new(pattern.trim_start_matches("./"))
        .map_err(|e| format!("Invalid pattern: {e}."))?;
    let resolved = path::resolve(cwd, given)?;
    state.sandbox.check_read(&resolved)?;
    let metadata =
        std::fs::metadata(&resolved).map_err(|e| path::io_error("search", given, &resolved, &e))?;
    if !metadata.is_dir() {
        return Err(format!(
            "{} is a file, not a directory. Give the directory to search in path.",
            path::describe(given, &resolved)
        ));
    }
    let mut found: Vec<String> = Vec::new();
    let mut more_available = false;
    walk::walk(&resolved, true, &mut |entry| {
        if cancelled() {
            return Flow::Stop;
        }
        let rel = if entry.is_dir {
            format!("{}/", entry.rel)
        } else {
            entry.rel.clone()
        };
        if glob.matches_path(&entry.rel) || (glob.has_slash() && glob.is_match(&rel)) {
            if found.len() == limit {
                more_available = true;
                return Flow::Stop;
            }
            let mut shown = path::relative_display(cwd, &entry.path);
            if entry.is_dir {
                shown.push('/');
            }
            found.push(path::printable(&shown).into_owned());
        }
        Flow::Continue
    });
    if cancelled() {
        return Err("The search was cancelled.".to_string());
    }
    if found.is_empty() {
        return Ok(ToolOutput::text("No files found matching pattern.")
            .with_details(json_object! { "count" => 0 }));
    }
    found.sort();
    let count = found.len();
    let cut = output::truncate_head(&found.join("\n"), usize::MAX, MAX_BYTES);
    let mut text = cut.content;
    let mut notes = Vec::new();
    if more_available {
        notes.push(format!(
            "{limit} results limit reached. Use limit={} for more, or refine the pattern",
            limit * 2
        ));
    }
    if cut.truncated {
        notes.push(format!(
            "{} limit reached; showing {} of {count} paths",
            output::format_size(MAX_BYTES),
            cut.kept_lines
        ));
    }
    if !notes.is_empty() {
        text.push_str(&format!("\n\n[{}]", notes.join(". ")));
    }
    Ok(ToolOutput::text(text)
        .with_details(json_object! { "count" => count, "limitReached" => more_available }))
}
