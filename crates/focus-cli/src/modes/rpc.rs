//! RPC mode (placeholder).

use crate::args::Args;
use crate::choose::ModelChoice;
use crate::engine::Engine;
use std::path::Path;

/// Serves JSON-lines commands on stdin; returns the exit code.
pub fn run(_engine: &mut Engine, _choice: &ModelChoice, _args: &Args, _cwd: &Path) -> i32 {
    0
}
