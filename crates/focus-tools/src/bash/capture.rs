//! The command's output while it runs ([`Captured`]): a rolling tail of what
//! arrived (the end of a build log is where the error is), counts of bytes and
//! lines, the spill file once it passed 50 KB; and the tail streamed to the user
//! interface as it grows ([`stream_update`]).

use std::sync::{Arc, Mutex};

use focus_core::sync::lock;
use focus_core::tool::{ToolContext, ToolOutput};

use crate::bash::spill::{SpillDir, SpillFile};
use crate::output::{self, MAX_BYTES, MAX_LINES};

/// Output captured so far, shared between the reader thread and the caller.
pub(super) struct Captured {
    /// Everything while small; afterwards the most recent bytes only.
    pub tail: Vec<u8>,
    /// Bytes seen.
    pub total_bytes: usize,
    /// Newlines seen.
    pub total_newlines: usize,
    /// Where the output goes (up to `spill_cap` bytes) once it passed 50 KB.
    pub spill: Option<SpillFile>,
    /// The directory `spill` is created in.
    spill_dir: Arc<SpillDir>,
    spill_cap: u64,
    /// New bytes since the last update.
    changed: bool,
}

impl Captured {
    /// Nothing captured yet; a spill file of at most `spill_cap` bytes will be
    /// made in `spill_dir` when needed.
    pub(super) fn new(spill_dir: Arc<SpillDir>, spill_cap: u64) -> Captured {
        Captured {
            tail: Vec::new(),
            total_bytes: 0,
            total_newlines: 0,
            spill: None,
            spill_dir,
            spill_cap,
            changed: false,
        }
    }

    /// Takes the next chunk of output.
    pub(super) fn push(&mut self, chunk: &[u8]) {
        self.total_bytes += chunk.len();
        self.total_newlines += chunk.iter().filter(|&&b| b == b'\n').count();
        self.changed = true;
        if self.spill.is_none() && self.total_bytes > MAX_BYTES {
            self.spill = self.spill_dir.new_file(self.spill_cap).map(|mut spill| {
                spill.write(&self.tail);
                spill
            });
        }
        if let Some(spill) = &mut self.spill {
            spill.write(chunk);
        }
        self.tail.extend_from_slice(chunk);
        // Keep a rolling tail of about twice what is shown, trimmed in bulk.
        if self.spill.is_some() && self.tail.len() > 4 * MAX_BYTES {
            let cut = self.tail.len() - 2 * MAX_BYTES;
            self.tail.drain(..cut);
        }
    }
}

/// Streams the output's tail through `on_update` if anything arrived since the
/// last time (redacted: partial output reaches JSON and RPC clients too).
pub(super) fn stream_update(captured: &Mutex<Captured>, ctx: &ToolContext<'_>) {
    let mut state = lock(captured);
    if !state.changed {
        return;
    }
    state.changed = false;
    let tail = String::from_utf8_lossy(&state.tail).into_owned();
    drop(state);
    let partial = output::truncate_tail(&output::sanitize(&tail), MAX_LINES, MAX_BYTES);
    let shown = crate::secret_env::redact(&partial.content).into_owned();
    (ctx.on_update)(ToolOutput::text(shown));
}
