//! One `tools/call` of a built-in tool: run down the loop's own path for a
//! call (`focus_core::agent::execute::execute_one`: schema, permission gate,
//! tool, after-call hooks and the scrubbing of keys), and its output made
//! MCP's `CallToolResult`. A refusal (the mode, a rule, an approval nobody
//! can give) is a result with `isError`, worded as the model would read it.

use super::progress::Progress;
use focus_core::agent::AgentConfig;
use focus_core::cancel::CancelToken;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::{Content, ToolCall};
use focus_core::tool::ToolOutput;

/// Runs the built-in tool `name` with `arguments` (checked already) as the
/// call `call_id` (hooks see it) until it ends or `cancel` fires (bash's
/// processes are then killed).
pub fn run(
    config: &AgentConfig,
    call_id: String,
    name: &str,
    arguments: Value,
    cancel: &CancelToken,
    progress: &Progress<'_>,
) -> Value {
    let call = ToolCall {
        id: call_id.into(),
        name: name.into(),
        arguments,
        thought_signature: None,
        invalid_arguments: None,
    };
    let on_update = |partial: ToolOutput| {
        let text = partial.text_content();
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        progress.report(&focus_tools::output::sanitize(last));
    };
    let output = progress.while_running(|| {
        focus_core::agent::execute::execute_one(config, &call, cancel, &on_update)
    });
    result(output)
}

/// A tool's output as MCP's `CallToolResult`: text and image blocks, and
/// `isError`.
pub fn result(output: ToolOutput) -> Value {
    let content: Vec<Value> = output
        .content
        .iter()
        .filter_map(|block| match block {
            Content::Text { text, .. } => {
                Some(json_object! { "type" => "text", "text" => &**text })
            }
            Content::Image { data, mime_type } => Some(json_object! {
                "type" => "image", "data" => &**data, "mimeType" => mime_type.as_str(),
            }),
            _ => None,
        })
        .collect();
    json_object! { "content" => Value::Array(content), "isError" => output.is_error }
}
