//! [`Notice`]: what a conversation tells its front end besides the runs' own
//! events — the compactions it makes after a run, and warnings.

use focus_core::event::AgentEvent;
use focus_core::json::{ToJson, Value};
use focus_core::json_object;

/// One thing to tell the user outside a run's event stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Notice {
    /// A compaction after a run: `CompactionStart` or `CompactionEnd`, the same
    /// events a compaction inside a run sends.
    Compaction(Box<AgentEvent>),
    /// Something went wrong that the user must hear of, not an error of the run
    /// (a session write failed, a hook failed, an MCP server died). Its text may
    /// quote files or servers: sanitize it before it reaches a terminal.
    Warning(String),
}

impl ToJson for Notice {
    /// pi's `auto_compaction_start`/`auto_compaction_end` lines, or focus's
    /// `{"type":"warning","message":…}`.
    fn to_json(&self) -> Value {
        match self {
            Notice::Compaction(event) => event.to_json(),
            Notice::Warning(message) => {
                json_object! {"type" => "warning", "message" => message.as_str()}
            }
        }
    }
}
