//! The summarizer's instructions, and the conversation turned into plain text.
//!
//! The conversation is given to the summarizing model as a *transcript* inside
//! `<conversation>` tags, not as real messages: a model handed real messages tends
//! to continue the conversation instead of describing it.

use crate::session::convert::convert_to_llm;
use focus_core::message::{Content, Message};

/// The system prompt of every summarization call.
pub const SUMMARIZER_SYSTEM_PROMPT: &str = "You are a context summarization assistant. You read a transcript of a conversation between a user and an AI coding assistant and write a structured summary that another instance of the assistant will use to continue the work. Do NOT continue the conversation and do NOT answer questions found in it; only output the summary.";

const SECTIONS: &str = "## Goal
[What the user is trying to accomplish; several items if the session covers several tasks.]

## Constraints & Preferences
- [Requirements and preferences the user stated, or \"(none)\"]

## Progress
### Done
- [x] [Completed work]

### In Progress
- [ ] [Current work]

### Blocked
- [Problems preventing progress, if any]

## Key Decisions
- **[Decision]**: [Short reason]

## Files
- Read: [files examined and what mattered in them]
- Modified: [files created or changed and how]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, error messages, names or references needed to continue, or \"(none)\"]

Keep every section short. Keep exact file paths, function names and error messages.";

/// The instructions for a first summary.
pub fn first_summary_instructions() -> String {
    format!("The transcript above is a conversation to summarize. Write a structured checkpoint summary in EXACTLY this format:\n\n{SECTIONS}")
}

/// The instructions for updating an earlier summary with newer messages.
pub fn update_summary_instructions() -> String {
    format!("The transcript above holds NEW messages that follow the earlier summary in <previous-summary>. Update that summary; do not start from scratch:\n- KEEP everything in the previous summary that still holds\n- ADD the new progress, decisions, files and context\n- MOVE items from \"In Progress\" to \"Done\" when they were completed\n- UPDATE \"Next Steps\" to match where the work now stands\n- you may drop what is clearly obsolete\n\nUse EXACTLY this format:\n\n{SECTIONS}")
}

/// The instructions for summarizing the first part of a turn too long to keep whole.
pub const TURN_PREFIX_INSTRUCTIONS: &str = "The transcript above is the FIRST PART of a turn that was too long to keep; the rest of the turn is kept verbatim. Summarize the first part so the kept part makes sense:\n\n## Original Request\n[What the user asked for in this turn]\n\n## Early Progress\n- [Decisions made and work done in this part]\n\n## Context for the Rest\n- [What is needed to understand the kept part]\n\nBe brief.";

/// Tool results longer than this are cut in the transcript (the summary needs their
/// gist, not their bulk).
pub const TOOL_RESULT_CHARS: usize = 2_000;

/// The user message sent to the summarizer.
pub fn summary_request(
    messages: &[Message],
    previous_summary: Option<&str>,
    instructions: &str,
) -> String {
    let mut text = format!(
        "<conversation>\n{}\n</conversation>\n\n",
        transcript(messages)
    );
    if let Some(previous) = previous_summary {
        text.push_str(&format!(
            "<previous-summary>\n{previous}\n</previous-summary>\n\n"
        ));
    }
    text.push_str(instructions);
    text
}

/// Renders messages as `[User]: …`, `[Assistant]: …`, `[Assistant tool calls]: …`,
/// `[Tool result]: …` lines (custom roles converted first).
pub fn transcript(messages: &[Message]) -> String {
    let mut parts = Vec::new();
    for message in convert_to_llm(messages) {
        match &message {
            Message::User(m) => {
                let text = texts(&m.content);
                if !text.is_empty() {
                    parts.push(format!("[User]: {text}"));
                }
            }
            Message::Assistant(m) => {
                let mut thinking = Vec::new();
                let mut said = Vec::new();
                let mut calls = Vec::new();
                for block in &m.content {
                    match block {
                        Content::Thinking { thinking: t, .. } => thinking.push(t.as_str()),
                        Content::Text { text, .. } => said.push(text.as_str()),
                        Content::ToolCall(call) => calls.push(format!(
                            "{}({})",
                            call.name,
                            call_arguments(&call.arguments)
                        )),
                        Content::Image { .. } => {}
                    }
                }
                if !thinking.is_empty() {
                    parts.push(format!("[Assistant thinking]: {}", thinking.join("\n")));
                }
                if !said.is_empty() {
                    parts.push(format!("[Assistant]: {}", said.join("\n")));
                }
                if !calls.is_empty() {
                    parts.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
                }
            }
            Message::ToolResult(m) => {
                let text = texts(&m.content);
                let count = text.chars().count();
                let shown = if count > TOOL_RESULT_CHARS {
                    let cut: String = text.chars().take(TOOL_RESULT_CHARS).collect();
                    format!(
                        "{cut}\n[... {} more characters truncated]",
                        count - TOOL_RESULT_CHARS
                    )
                } else {
                    text
                };
                parts.push(format!("[Tool result]: {shown}"));
            }
            Message::Custom(_) => {}
        }
    }
    parts.join("\n\n")
}

fn texts(content: &[Content]) -> String {
    let parts: Vec<&str> = content.iter().filter_map(Content::as_text).collect();
    parts.join("\n")
}

fn call_arguments(arguments: &focus_core::json::Value) -> String {
    match arguments.as_object() {
        Some(object) => object
            .iter()
            .map(|(k, v)| format!("{k}={}", v.to_json_string()))
            .collect::<Vec<_>>()
            .join(", "),
        None => arguments.to_json_string(),
    }
}
