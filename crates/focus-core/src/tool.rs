//! What the model can call: the [`Tool`] trait, its [`ToolOutput`], and the
//! [`ToolGate`] every call passes before and after it runs; and the rule for a
//! tool name the model (or an MCP server) may use ([`valid_tool_name`]).

use crate::cancel::CancelToken;
use crate::json::Value;
use crate::message::{AssistantMessage, Content, Message, ToolCall};
use crate::provider::ToolSpec;

/// What a tool gives back: content for the model, details for the user interface.
///
/// Failures are outputs too (`is_error: true`, a message the model can act on):
/// a tool never aborts the run.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    /// Text and image blocks the model reads.
    pub content: Vec<Content>,
    /// Structured data for the user interface (a diff, an exit code…); `Null` if none.
    pub details: Value,
    /// Whether the call failed.
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful text result.
    pub fn text(text: impl Into<crate::message::SharedText>) -> ToolOutput {
        ToolOutput {
            content: vec![Content::text(text)],
            details: Value::Null,
            is_error: false,
        }
    }

    /// A failed result whose text tells the model what went wrong and what to do.
    pub fn error(text: impl Into<crate::message::SharedText>) -> ToolOutput {
        ToolOutput {
            content: vec![Content::text(text)],
            details: Value::Null,
            is_error: true,
        }
    }

    /// Attaches details for the user interface.
    pub fn with_details(mut self, details: Value) -> ToolOutput {
        self.details = details;
        self
    }

    /// All text blocks joined with newlines.
    pub fn text_content(&self) -> String {
        let parts: Vec<&str> = self.content.iter().filter_map(Content::as_text).collect();
        parts.join("\n")
    }
}

/// What a running tool may use besides its arguments.
pub struct ToolContext<'a> {
    /// The id of the call being executed.
    pub call_id: &'a str,
    /// Fires when the user aborts; long-running tools must stop promptly.
    pub cancel: &'a CancelToken,
    /// Reports partial output while the tool runs (streamed to the user interface).
    pub on_update: &'a (dyn Fn(ToolOutput) + Sync),
}

/// A tool the model can call.
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;

    /// What it does and when to use it, written for a model.
    fn description(&self) -> &str;

    /// JSON Schema of the arguments object. The loop validates arguments against it
    /// before `execute` is called.
    fn parameters(&self) -> Value;

    /// Runs the call. `args` has passed schema validation. Errors are returned as
    /// `ToolOutput::error`, never by panicking (a panic is caught and reported, but
    /// is a bug).
    fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput;

    /// Whether this call only reads (used by permission modes and to decide what
    /// may run in parallel). Default: `false`.
    fn is_read_only(&self, _args: &Value) -> bool {
        false
    }

    /// Whether this call must run alone rather than in parallel with the other calls
    /// of the same response. Default: `false`.
    fn runs_alone(&self, _args: &Value) -> bool {
        false
    }

    /// The tool as the model sees it.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: self.description().to_string(),
            parameters: self.parameters(),
        }
    }
}

/// The verdict of a gate on a call about to run.
#[derive(Clone, Debug, PartialEq)]
pub enum GateDecision {
    /// Run it.
    Allow,
    /// Do not run it; the reason becomes the error result the model reads.
    Block(String),
}

/// Checks every tool call: permissions, approvals and user hooks plug in here.
///
/// `before_call` runs after argument validation and may block (it may also wait, for
/// example for a user's approval; the loop is on its own thread). `after_call` may
/// replace or amend the output.
pub trait ToolGate: Send + Sync {
    /// Decides whether `call` may run. `tool` is the tool it resolved to.
    fn before_call(
        &self,
        call: &ToolCall,
        tool: &dyn Tool,
        message: &AssistantMessage,
    ) -> GateDecision;

    /// Sees (and may change) the output of a call that ran.
    fn after_call(&self, _call: &ToolCall, _tool: &dyn Tool, output: ToolOutput) -> ToolOutput {
        output
    }
}

/// Longest tool name accepted (the providers' own limits are 64 to 128).
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// What an invalid tool name is shown, stored and sent back as.
pub const INVALID_TOOL_NAME: &str = "invalid_tool_name";

/// Whether `name` may be a tool's name: 1 to [`MAX_TOOL_NAME_LEN`] bytes of
/// `A-Z a-z 0-9 _ . - :`. A model's tool call can carry any text as its name
/// (terminal escapes that clear the screen, 100 KB of noise); a name outside
/// this rule is never displayed, stored or sent back as it is.
pub fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_TOOL_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b':'))
}

/// `name` if it is [`valid_tool_name`], else the placeholder [`INVALID_TOOL_NAME`].
pub fn safe_tool_name(name: &str) -> &str {
    if valid_tool_name(name) {
        name
    } else {
        INVALID_TOOL_NAME
    }
}

/// Replaces every invalid tool name in `message` (an assistant's tool calls, a
/// tool result's name) by [`INVALID_TOOL_NAME`]; whether anything changed. Use
/// it before a message is stored or sent back to a provider.
pub fn sanitize_tool_names(message: &mut Message) -> bool {
    let mut changed = false;
    match message {
        Message::Assistant(assistant) => {
            for block in &mut assistant.content {
                if let Content::ToolCall(call) = block {
                    if !valid_tool_name(&call.name) {
                        call.name = INVALID_TOOL_NAME.into();
                        changed = true;
                    }
                }
            }
        }
        Message::ToolResult(result) if !valid_tool_name(&result.tool_name) => {
            result.tool_name = INVALID_TOOL_NAME.into();
            changed = true;
        }
        _ => {}
    }
    changed
}

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn tool_names_are_a_short_safe_charset() {
        for good in ["read", "mcp__server__tool", "a.b-c:d_9", &"x".repeat(128)] {
            assert!(valid_tool_name(good), "{good}");
            assert_eq!(safe_tool_name(good), good);
        }
        for bad in [
            "",
            "read\u{1b}]0;pwned\u{7}",
            "\u{1b}[2J",
            "a b",
            "naïve",
            "a/b",
            &"x".repeat(129),
            &"y".repeat(100_000),
        ] {
            assert!(!valid_tool_name(bad), "{bad:?}");
            assert_eq!(safe_tool_name(bad), INVALID_TOOL_NAME);
        }
        assert!(valid_tool_name(INVALID_TOOL_NAME));
    }
}
