//! What a subagent leaves in its parent: the `task` tool's result carries, in
//! its `details.subagent`, the child's agent type, its session file, how it
//! ended, its model calls and its usage. From there the parent's session
//! links the child's file (a `custom` entry of type [`LINK_TYPE`] written
//! just before the result, which pi skips), and the child's tokens and cost
//! roll up into the parent's summary, budget and footer ([`child_usage`]).
//!
//! It stands below both the subagents and the conversation: it imports no
//! other file of the harness, so the conversation (its session writer,
//! summary and budget) reads a child's record without reaching into the code
//! that builds children ([`super::task`]), which builds them as conversations.

use focus_core::json::{FromJson, Value};
use focus_core::message::{Message, Usage};

/// The `task` tool's name, which marks the results that carry a child's
/// record.
pub const TASK_TOOL: &str = "task";

/// The `customType` of the entry that links a child's session file.
pub const LINK_TYPE: &str = "subagent";

/// The `details.subagent` object of a `task` result, if `tool_name` is the
/// `task` tool's and there is one.
pub fn subagent_details<'a>(tool_name: &str, details: &'a Value) -> Option<&'a Value> {
    if tool_name != TASK_TOOL {
        return None;
    }
    let record = &details["subagent"];
    record.as_object().map(|_| record)
}

/// The child's usage as a `task` result records it (`None` for any other
/// result).
pub fn child_usage(tool_name: &str, details: &Value) -> Option<Usage> {
    let record = subagent_details(tool_name, details)?;
    Usage::from_json(&record["usage"]).ok()
}

/// What the entry linking a child's session holds, for a finished message:
/// the `task` result's record with the call's id; `None` for other messages.
pub fn link_data(message: &Message) -> Option<Value> {
    let Message::ToolResult(result) = message else {
        return None;
    };
    let record = subagent_details(&result.tool_name, &result.details)?;
    let mut data = record.clone();
    if let Some(object) = data.as_object_mut() {
        object.insert("toolCallId", result.tool_call_id.as_str());
    }
    Some(data)
}

/// Adds `more` to `total`, the cost included; any estimate makes the total one.
pub fn add_usage(total: &mut Usage, more: &Usage) {
    total.input += more.input;
    total.output += more.output;
    total.cache_read += more.cache_read;
    total.cache_write += more.cache_write;
    total.total_tokens += more.total_tokens;
    total.cost.input += more.cost.input;
    total.cost.output += more.cost.output;
    total.cost.cache_read += more.cost.cache_read;
    total.cost.cache_write += more.cost.cache_write;
    total.cost.total += more.cost.total;
    total.estimated |= more.estimated;
}
