//! An MCP server's tool as a focus [`Tool`]: the loop cannot tell it from a
//! built-in one.
//!
//! `execute` sends `tools/call` and maps the result: `text` blocks to text, `image`
//! blocks to images, other kinds (audio, resources) to a short text note, and
//! `isError` to an error result. A server that is gone, slow past its timeout, or
//! answering with a JSON-RPC error gives an error result the model can read.

use super::rpc::RpcError;
use super::server::Server;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::message::Content;
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use std::sync::Arc;

/// One tool of one MCP server.
pub struct McpTool {
    server: Arc<Server>,
    remote_name: String,
    exposed_name: String,
    description: String,
    schema: Value,
    read_only_hint: bool,
}

impl McpTool {
    /// Wraps `remote_name` of `server`, exposed to the model as `exposed_name`.
    pub fn new(
        server: Arc<Server>,
        remote: &super::server::RemoteTool,
        exposed_name: String,
    ) -> McpTool {
        let description = if remote.description.trim().is_empty() {
            format!(
                "Tool `{}` of the MCP server `{}`.",
                remote.name, server.config.name
            )
        } else {
            remote.description.clone()
        };
        let schema = if remote.input_schema.as_object().is_some() {
            remote.input_schema.clone()
        } else {
            json_object! { "type" => "object", "properties" => json_object! {} }
        };
        McpTool {
            remote_name: remote.name.clone(),
            exposed_name,
            description,
            schema,
            read_only_hint: remote.read_only_hint,
            server,
        }
    }

    /// The server's name for this tool.
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The name of the server it belongs to.
    pub fn server_name(&self) -> &str {
        &self.server.config.name
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.exposed_name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.schema.clone()
    }

    /// Never trusted for permissions: a server's `readOnlyHint` is its own claim.
    fn is_read_only(&self, _args: &Value) -> bool {
        false
    }

    /// A tool that does not declare `readOnlyHint` may change things, so it does not
    /// run alongside other calls (the hint is good enough for scheduling).
    fn runs_alone(&self, _args: &Value) -> bool {
        !self.read_only_hint
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let server = &self.server.config.name;
        let tool = &self.remote_name;
        let details = json_object! { "mcpServer" => server.as_str(), "mcpTool" => tool.as_str() };
        match self.server.call_tool(tool, args, ctx.cancel) {
            Ok(result) => map_result(&result).with_details(details),
            Err(
                RpcError::Closed(reason)
                | RpcError::Unreachable(reason)
                | RpcError::SessionExpired(reason),
            ) => ToolOutput::error(format!(
                "The MCP server `{server}` is not running ({reason}), so `{tool}` cannot run. \
                 Do not retry it; continue without this tool."
            ))
            .with_details(details),
            Err(RpcError::Timeout(t)) => ToolOutput::error(format!(
                "The MCP server `{server}` did not answer `{tool}` within {}s; the call was cancelled.",
                t.as_secs_f64()
            ))
            .with_details(details),
            Err(RpcError::Cancelled) => ToolOutput::error("The call was cancelled.").with_details(details),
            Err(RpcError::Server { code, message }) => ToolOutput::error(format!(
                "The MCP server `{server}` rejected the call to `{tool}` (error {code}): {message}"
            ))
            .with_details(details),
        }
    }
}

/// Maps a `tools/call` result to a tool output.
pub fn map_result(result: &Value) -> ToolOutput {
    let mut content = Vec::new();
    for block in result["content"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        let kind = block["type"].as_str().unwrap_or("");
        match kind {
            "text" => content.push(Content::text(block["text"].as_str().unwrap_or(""))),
            "image" => match (block["data"].as_str(), block["mimeType"].as_str()) {
                (Some(data), Some(mime)) => content.push(Content::Image {
                    data: data.into(),
                    mime_type: mime.to_string(),
                }),
                _ => content.push(Content::text("[image without data or mimeType omitted]")),
            },
            "resource" => {
                let resource = &block["resource"];
                let uri = resource["uri"].as_str().unwrap_or("?");
                match resource["text"].as_str() {
                    Some(text) => content.push(Content::text(format!("[resource {uri}]\n{text}"))),
                    None => content.push(Content::text(format!("[binary resource {uri} omitted]"))),
                }
            }
            "resource_link" => content.push(Content::text(format!(
                "[resource link: {} {}]",
                block["uri"].as_str().unwrap_or("?"),
                block["name"].as_str().unwrap_or("")
            ))),
            "audio" => content.push(Content::text(format!(
                "[audio ({}) omitted]",
                block["mimeType"].as_str().unwrap_or("unknown type")
            ))),
            other => content.push(Content::text(format!(
                "[unsupported content type `{other}` omitted]"
            ))),
        }
    }
    cap_text(&mut content);
    if content.is_empty() {
        let structured = &result["structuredContent"];
        let text = if structured.is_null() {
            "(no output)".to_string()
        } else {
            structured.to_json_string()
        };
        content.push(Content::text(text));
    }
    ToolOutput {
        content,
        details: Value::Null,
        is_error: result["isError"].as_bool().unwrap_or(false),
    }
}

/// Keeps the text blocks within [`crate::output::MAX_BYTES`] in all, like every
/// built-in tool's output: a server may return megabytes, which would flood the
/// model's context and the session file. The cut says so.
fn cap_text(content: &mut [Content]) {
    let mut budget = crate::output::MAX_BYTES;
    let mut dropped = 0;
    for block in content.iter_mut() {
        if let Content::Text { text, .. } = block {
            if text.len() > budget {
                let cut = focus_core::char_boundary::floor(text, budget);
                dropped += text.len() - cut;
                *text = text[..cut].to_string().into();
            }
            budget -= text.len();
        }
    }
    if dropped > 0 {
        if let Some(Content::Text { text, .. }) = content
            .iter_mut()
            .rev()
            .find(|c| matches!(c, Content::Text { .. }))
        {
            *text = format!(
                "{text}\n\n[MCP output truncated: {} more not shown. Ask the tool for less.]",
                crate::output::format_size(dropped)
            )
            .into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::json::parse_str;

    #[test]
    fn maps_text_image_and_errors() {
        let result = parse_str(
            r#"{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AAAA","mimeType":"image/png"},
                {"type":"audio","data":"x","mimeType":"audio/wav"}],"isError":true}"#,
        )
        .unwrap();
        let out = map_result(&result);
        assert!(out.is_error);
        assert_eq!(out.content[0], Content::text("hi"));
        assert_eq!(
            out.content[1],
            Content::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into()
            }
        );
        assert!(out.content[2].as_text().unwrap().contains("audio"));
        let structured = parse_str(r#"{"content":[],"structuredContent":{"n":1}}"#).unwrap();
        assert_eq!(map_result(&structured).text_content(), r#"{"n":1}"#);
    }

    #[test]
    fn huge_text_is_capped_and_says_so() {
        let big = "é".repeat(crate::output::MAX_BYTES);
        let result = focus_core::json_object! {
            "content" => focus_core::json_array![
                focus_core::json_object! { "type" => "text", "text" => big.as_str() },
                focus_core::json_object! { "type" => "text", "text" => "second" },
            ],
        };
        let out = map_result(&result);
        let text = out.text_content();
        assert!(
            text.len() < crate::output::MAX_BYTES + 200,
            "{}",
            text.len()
        );
        assert!(text.contains("MCP output truncated"));
    }
}
