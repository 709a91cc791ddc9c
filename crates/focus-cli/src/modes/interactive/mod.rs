//! Interactive mode (placeholder until the line editor lands).

use crate::args::Args;
use crate::choose::ModelChoice;
use crate::engine::Engine;
use focus_core::message::Message;
use std::path::Path;

/// Runs the interactive terminal UI; returns the exit code.
pub fn run(
    engine: &mut Engine,
    _choice: &ModelChoice,
    _args: &Args,
    _cwd: &Path,
    prompts: Vec<Message>,
) -> i32 {
    super::print::run(engine, prompts)
}
