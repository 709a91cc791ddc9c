//! [`ToolState`]: what the tools of one session share, owned by whoever built
//! them.
//!
//! Three things outlive a single call: the sandbox every process started for a
//! tool runs in (and whose path policy the file tools follow), the record of
//! what the file tools last read or wrote of each file (so `edit` can tell a
//! file changed behind its back, whichever tool object read it), and the
//! private directory bash output beyond the inline cap spills into. None of
//! them is kept for the whole process: the caller builds one `ToolState`, hands
//! clones of it to the tools it builds ([`crate::builtin_tools_with`]), to the
//! gate ([`crate::gates::Gatekeeper::with_sandbox`]) and to the MCP servers,
//! and when the last clone is dropped the spill directory and the sandbox's
//! temporary directory go with it. Two states in one process (two sessions, or
//! two tests) share nothing.

use std::sync::Arc;

use crate::bash::spill::SpillDir;
use crate::sandbox::Sandbox;
use crate::seen::SeenFiles;

/// What the tools of one session share (see the module's comment). Cloning
/// it shares the same three values.
#[derive(Clone, Debug)]
pub struct ToolState {
    /// The sandbox tool processes run in, and the file tools' path policy.
    pub sandbox: Arc<Sandbox>,
    /// What the file tools last read or wrote of each file.
    pub seen: Arc<SeenFiles>,
    /// Where bash output beyond the inline cap goes.
    pub spill: Arc<SpillDir>,
}

impl ToolState {
    /// A state whose tools run in `sandbox`, with nothing seen yet and no spill
    /// directory created yet.
    pub fn new(sandbox: Arc<Sandbox>) -> ToolState {
        ToolState {
            sandbox,
            seen: Arc::new(SeenFiles::new()),
            spill: Arc::new(SpillDir::new()),
        }
    }

    /// A state without confinement ([`Sandbox::off`]): what a library user
    /// who asks for nothing gets.
    pub fn unconfined() -> ToolState {
        ToolState::new(Arc::new(Sandbox::off()))
    }
}

impl Default for ToolState {
    fn default() -> ToolState {
        ToolState::unconfined()
    }
}
