//! `--output-diff FILE` (print and JSON modes): the run's changes as a patch,
//! the way evaluation harnesses (SWE-bench's predictions, mini-swe-agent)
//! take them. The starting tree is recorded before the engine is built and
//! the patch written after the run, before the result record
//! ([`super::outcome::finish`]), both by focus-tools' [`git_tree`]
//! (a temporary index, the repository's configuration held in check).
//!
//! [`git_tree`]: focus_tools::git_tree

use crate::setup::SetupError;
use focus_tools::git_tree::{self, TreeSnapshot};
use std::path::Path;

/// Records the starting tree of the repository `cwd` is in.
///
/// # Errors
///
/// No repository, one whose configuration names a program git would run, or
/// git failing: a configuration error (exit 2), nothing has run.
pub fn start(cwd: &Path) -> Result<TreeSnapshot, SetupError> {
    git_tree::snapshot(cwd).map_err(|why| SetupError {
        message: format!("--output-diff: {why}"),
        usage: true,
    })
}

/// Writes the patch from `start` to the tree now into `path`; returns the
/// run's exit code, made a failure when the patch could not be made or written
/// (a run that failed keeps its own code).
pub fn finish(path: &Path, start: &TreeSnapshot, code: i32) -> i32 {
    let written = git_tree::diff(start).and_then(|patch| {
        std::fs::write(path, patch).map_err(|e| format!("cannot write {}: {e}", path.display()))
    });
    match written {
        Ok(()) => code,
        Err(why) => {
            errln!("focus: --output-diff: {why}");
            if code == super::outcome::EXIT_FINISHED {
                super::outcome::EXIT_FAILED
            } else {
                code
            }
        }
    }
}
