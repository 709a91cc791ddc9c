//! An MCP server's resources and prompts, offered to the model as four tools per
//! server that has them: `<server>__list_resources`, `<server>__read_resource`
//! (`resources/list`, `resources/read`), `<server>__list_prompts` and
//! `<server>__get_prompt` (`prompts/list`, `prompts/get`). A server says in its
//! `initialize` answer whether it has either; one that does not gets none of them.
//!
//! What comes back is shown, never obeyed: texts as text, binary contents as a
//! note with their size and type. Lists are followed page by page (`nextCursor`,
//! at most 100 pages) and shown whole.

use super::rpc::RpcError;
use super::server::Server;
use focus_core::json::Value;
use focus_core::json_object;
use focus_core::tool::{Tool, ToolContext, ToolOutput};
use std::sync::Arc;

/// Which of the four it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// `resources/list`.
    ListResources,
    /// `resources/read {uri}`.
    ReadResource,
    /// `prompts/list`.
    ListPrompts,
    /// `prompts/get {name, arguments}`.
    GetPrompt,
}

impl Offer {
    /// The tools a server gets for what it offers.
    pub fn for_server(server: &Server) -> Vec<Offer> {
        let offers = server.offers();
        let mut out = Vec::new();
        if offers.resources {
            out.extend([Offer::ListResources, Offer::ReadResource]);
        }
        if offers.prompts {
            out.extend([Offer::ListPrompts, Offer::GetPrompt]);
        }
        out
    }

    /// The tool's name after `<server>__`.
    pub fn suffix(self) -> &'static str {
        match self {
            Offer::ListResources => "list_resources",
            Offer::ReadResource => "read_resource",
            Offer::ListPrompts => "list_prompts",
            Offer::GetPrompt => "get_prompt",
        }
    }

    fn method(self) -> &'static str {
        match self {
            Offer::ListResources => "resources/list",
            Offer::ReadResource => "resources/read",
            Offer::ListPrompts => "prompts/list",
            Offer::GetPrompt => "prompts/get",
        }
    }
}

/// One of the four tools of one server.
pub struct OfferTool {
    server: Arc<Server>,
    offer: Offer,
    name: String,
    description: String,
}

impl OfferTool {
    /// The `offer` tool of `server`, exposed as `name`.
    pub fn new(server: Arc<Server>, offer: Offer, name: String) -> OfferTool {
        let of = &server.config.name;
        let description = match offer {
            Offer::ListResources => format!(
                "List the resources (files, records, documents) the MCP server `{of}` offers: \
                 their URIs, names and descriptions. Read one with {of}__read_resource."
            ),
            Offer::ReadResource => format!(
                "Read one resource of the MCP server `{of}` by its URI (from {of}__list_resources)."
            ),
            Offer::ListPrompts => format!(
                "List the prompt templates the MCP server `{of}` offers, with their arguments."
            ),
            Offer::GetPrompt => format!(
                "Get one prompt template of the MCP server `{of}`, filled in with arguments \
                 (names from {of}__list_prompts)."
            ),
        };
        OfferTool {
            server,
            offer,
            name,
            description,
        }
    }
}

impl Tool for OfferTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        let string = |what: &str| json_object! { "type" => "string", "description" => what };
        match self.offer {
            Offer::ListResources | Offer::ListPrompts => {
                json_object! { "type" => "object", "properties" => json_object! {} }
            }
            Offer::ReadResource => json_object! {
                "type" => "object",
                "properties" => json_object! { "uri" => string("The resource's URI") },
                "required" => focus_core::json_array!["uri"],
            },
            Offer::GetPrompt => json_object! {
                "type" => "object",
                "properties" => json_object! {
                    "name" => string("The prompt's name"),
                    "arguments" => json_object! {
                        "type" => "object",
                        "description" => "Its arguments, by name (strings)",
                    },
                },
                "required" => focus_core::json_array!["name"],
            },
        }
    }

    /// Like any MCP tool, never trusted as read-only for permissions.
    fn is_read_only(&self, _args: &Value) -> bool {
        false
    }

    /// Listing and reading change nothing: they may run alongside other calls.
    fn runs_alone(&self, _args: &Value) -> bool {
        false
    }

    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        let server = &self.server.config.name;
        let params = match self.offer {
            Offer::ListResources | Offer::ListPrompts => json_object! {},
            Offer::ReadResource => json_object! { "uri" => args["uri"].clone() },
            Offer::GetPrompt => {
                let mut params = json_object! { "name" => args["name"].clone() };
                if let (Some(p), Some(a)) = (params.as_object_mut(), args["arguments"].as_object())
                {
                    p.insert("arguments", Value::Object(a.clone()));
                }
                params
            }
        };
        let answer = match self.offer {
            Offer::ListResources => list_all(&self.server, "resources/list", "resources", ctx),
            Offer::ListPrompts => list_all(&self.server, "prompts/list", "prompts", ctx),
            _ => self.server.request(self.offer.method(), params, ctx.cancel),
        };
        match answer {
            Ok(result) => shown(self.offer, &result),
            Err(RpcError::Server { code, message }) => ToolOutput::error(format!(
                "The MCP server `{server}` refused {} (error {code}): {message}",
                self.offer.method()
            )),
            Err(other) => ToolOutput::error(format!(
                "The MCP server `{server}` did not answer {}: {other}",
                self.offer.method()
            )),
        }
    }
}

/// Most pages of a list followed (a server whose cursors never end must not
/// keep focus listing).
const MAX_PAGES: usize = 100;

/// A whole list: `method` page by page, following `nextCursor`, the `key`
/// arrays of every page joined into one answer.
fn list_all(
    server: &Server,
    method: &str,
    key: &str,
    ctx: &ToolContext<'_>,
) -> Result<Value, RpcError> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json_object! { "cursor" => c.as_str() },
            None => json_object! {},
        };
        let page = server.request(method, params, ctx.cancel)?;
        items.extend(page[key].as_array().cloned().unwrap_or_default());
        match page["nextCursor"].as_str() {
            Some(next) if !next.is_empty() && cursor.as_deref() != Some(next) => {
                cursor = Some(next.to_string())
            }
            _ => break,
        }
    }
    let mut answer = json_object! {};
    if let Some(object) = answer.as_object_mut() {
        object.insert(key, Value::Array(items));
    }
    Ok(answer)
}

/// What the model reads of an answer.
fn shown(offer: Offer, result: &Value) -> ToolOutput {
    let list = |key: &str| result[key].as_array().cloned().unwrap_or_default();
    let text = match offer {
        Offer::ListResources => lines(&list("resources"), |r| {
            format!(
                "{} — {}{}",
                r["uri"].as_str().unwrap_or("?"),
                r["name"].as_str().unwrap_or(""),
                r["description"]
                    .as_str()
                    .map_or(String::new(), |d| format!(": {d}"))
            )
        }),
        Offer::ListPrompts => lines(&list("prompts"), |p| {
            let arguments: Vec<String> = p["arguments"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .map(|a| a["name"].as_str().unwrap_or("?").to_string())
                .collect();
            format!(
                "{}({}){}",
                p["name"].as_str().unwrap_or("?"),
                arguments.join(", "),
                p["description"]
                    .as_str()
                    .map_or(String::new(), |d| format!(": {d}"))
            )
        }),
        Offer::ReadResource => lines(&list("contents"), |c| {
            let uri = c["uri"].as_str().unwrap_or("?");
            match (c["text"].as_str(), c["blob"].as_str()) {
                (Some(text), _) => format!("[{uri}]\n{text}"),
                (None, Some(blob)) => format!(
                    "[{uri}: {} of base64 {} not shown]",
                    blob.len(),
                    c["mimeType"].as_str().unwrap_or("data")
                ),
                _ => format!("[{uri}: empty]"),
            }
        }),
        Offer::GetPrompt => lines(&list("messages"), |m| {
            let role = m["role"].as_str().unwrap_or("?");
            match m["content"]["text"].as_str() {
                Some(text) => format!("{role}: {text}"),
                None => format!("{role}: [non-text content not shown]"),
            }
        }),
    };
    if text.is_empty() {
        ToolOutput::text("(nothing)")
    } else {
        ToolOutput::text(text)
    }
}

fn lines(items: &[Value], line: impl Fn(&Value) -> String) -> String {
    items.iter().map(line).collect::<Vec<_>>().join("\n")
}
