//! HTML export: one self-contained file (inline CSS, no scripts, no network
//! fetches) of a conversation's current branch — user prompts, answers, thinking
//! (collapsed in `<details>`), tool calls with their arguments and results —
//! readable on a phone (viewport meta, fluid layout, wrapped code).
//!
//! Everything from the conversation is HTML-escaped; images are inlined as
//! `data:` URLs of their base64 data (only the four image types focus accepts).

use crate::export_files::TurnFiles;
use focus_core::json::Value;
use focus_core::message::{Content, Message};
use focus_harness::session::{EntryKind, SessionManager};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// What the page header shows.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// The page title (the session name or a default).
    pub title: String,
    /// `provider/model`.
    pub model: String,
    /// The session id.
    pub session_id: String,
    /// The working directory of the session.
    pub cwd: String,
    /// The system prompt (shown collapsed).
    pub system_prompt: String,
}

const CSS: &str = "
:root{--bg:#fdfdfc;--fg:#1d1d1f;--muted:#6b6b70;--user:#eef4ff;--tool:#f5f5f2;--err:#b00020;--border:#ddd}
@media (prefers-color-scheme:dark){:root{--bg:#161618;--fg:#e8e8ea;--muted:#9a9aa0;--user:#1d2a40;--tool:#222226;--err:#ff6b81;--border:#333}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 -apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,sans-serif}
main{max-width:52rem;margin:0 auto;padding:1rem}
header{border-bottom:1px solid var(--border);margin-bottom:1rem}
header h1{font-size:1.3rem;margin:.2rem 0}
.meta{color:var(--muted);font-size:.85rem;word-break:break-all}
.msg{margin:.8rem 0;padding:.6rem .8rem;border-radius:.5rem;overflow-wrap:anywhere}
.user{background:var(--user)}
.assistant{border-left:3px solid var(--border)}
.tool{background:var(--tool);font-size:.9rem}
.files{font-size:.9rem;border-left:3px solid var(--muted)}
.role{font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.error{color:var(--err)}
pre{white-space:pre-wrap;word-break:break-word;margin:.3rem 0;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
details{margin:.3rem 0}
summary{cursor:pointer;color:var(--muted)}
.thinking pre{color:var(--muted);font-style:italic}
img{max-width:100%;height:auto}
";

/// `--export SESSION.jsonl [OUT.html]`: renders the session's current branch (all
/// of it, also what compaction summarized) and writes it; returns the output path
/// (default `focus-session-<name>.html` in the working directory).
pub fn export_session_file(input: &Path, output: Option<&Path>) -> Result<PathBuf, String> {
    if !input.is_file() {
        return Err(format!(
            "cannot export {}: no such session file",
            input.display()
        ));
    }
    let session = SessionManager::open_read_only(input).map_err(|e| e.to_string())?;
    let turns = crate::export_files::turn_files(&session.tree().current_branch());
    let messages: Vec<Message> = session
        .tree()
        .current_branch()
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Message(m) => Some(m.clone()),
            _ => None,
        })
        .collect();
    let header = session.header();
    let model = messages
        .iter()
        .rev()
        .find_map(Message::as_assistant)
        .map(|m| focus_core::provider::model_label(&m.provider, &m.model))
        .unwrap_or_default();
    let meta = Meta {
        title: session.name().unwrap_or("focus session").to_string(),
        model,
        session_id: header.id.clone(),
        cwd: header.cwd.clone(),
        system_prompt: String::new(),
    };
    let path = match output {
        Some(path) => path.to_path_buf(),
        None => {
            let stem = input
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("session");
            PathBuf::from(format!("focus-session-{stem}.html"))
        }
    };
    focus_sys::private_files::write(&path, render_html_with_files(&meta, &messages, &turns))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// The whole HTML page for `messages` (one branch, in order).
pub fn render_html(meta: &Meta, messages: &[Message]) -> String {
    render_html_with_files(meta, messages, &[])
}

/// The whole HTML page for `messages`, with each turn's file changes
/// (`export_files.rs`) at the end of its turn.
pub fn render_html_with_files(meta: &Meta, messages: &[Message], turns: &[TurnFiles]) -> String {
    let mut page = String::with_capacity(8 * 1024);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(page, "<title>{}</title>", escape(&meta.title));
    let _ = writeln!(page, "<style>{CSS}</style>\n</head>\n<body>\n<main>");
    let _ = writeln!(page, "<header><h1>{}</h1>", escape(&meta.title));
    let _ = write!(page, "<div class=\"meta\">model {}", escape(&meta.model));
    if !meta.session_id.is_empty() {
        let _ = write!(page, " · session {}", escape(&meta.session_id));
    }
    if !meta.cwd.is_empty() {
        let _ = write!(page, " · {}", escape(&meta.cwd));
    }
    let _ = writeln!(page, " · {} messages</div>", messages.len());
    if !meta.system_prompt.is_empty() {
        let _ = writeln!(
            page,
            "<details><summary>System prompt</summary><pre>{}</pre></details>",
            escape(&meta.system_prompt)
        );
    }
    page.push_str("</header>\n");
    let prompts = messages
        .iter()
        .filter(|m| matches!(m, Message::User(_)))
        .count();
    // Turns whose prompt compaction summarized come first.
    for turn in turns.iter().filter(|t| t.prompts_after > prompts) {
        crate::export_files::render(&mut page, turn);
    }
    let mut left = prompts;
    for message in messages {
        if matches!(message, Message::User(_)) {
            for turn in turns.iter().filter(|t| t.prompts_after == left) {
                crate::export_files::render(&mut page, turn);
            }
            left -= 1;
        }
        render_message(&mut page, message);
    }
    for turn in turns.iter().filter(|t| t.prompts_after == 0) {
        crate::export_files::render(&mut page, turn);
    }
    page.push_str("</main>\n</body>\n</html>\n");
    page
}

fn render_message(page: &mut String, message: &Message) {
    match message {
        Message::User(m) => {
            page.push_str("<section class=\"msg user\"><div class=\"role\">user</div>");
            render_blocks(page, &m.content);
            page.push_str("</section>\n");
        }
        Message::Assistant(m) => {
            let _ = write!(
                page,
                "<section class=\"msg assistant\"><div class=\"role\">assistant · {}</div>",
                escape(&m.model)
            );
            render_blocks(page, &m.content);
            if let Some(error) = &m.error_message {
                let _ = write!(page, "<p class=\"error\">{}</p>", escape(error));
            }
            page.push_str("</section>\n");
        }
        Message::ToolResult(m) => {
            let class = if m.is_error {
                "msg tool error"
            } else {
                "msg tool"
            };
            let _ = write!(
                page,
                "<section class=\"{class}\"><details{}><summary>result of {}{}</summary>",
                if m.is_error { " open" } else { "" },
                escape(focus_core::tool::safe_tool_name(&m.tool_name)),
                if m.is_error { " (error)" } else { "" }
            );
            render_blocks(page, &m.content);
            page.push_str("</details>");
            // A subagent's own conversation, folded under its result.
            if let Some((title, messages)) = crate::subagents::child_conversation(m) {
                let _ = write!(
                    page,
                    "<details class=\"subagent\"><summary>{}</summary>",
                    escape(&title)
                );
                for message in &messages {
                    render_message(page, message);
                }
                page.push_str("</details>");
            }
            page.push_str("</section>\n");
        }
        Message::Custom(c) => {
            let _ = write!(
                page,
                "<section class=\"msg tool\"><details><summary>{}</summary><pre>{}</pre></details></section>",
                escape(&c.role),
                escape(&custom_text(&c.raw))
            );
        }
    }
}

fn render_blocks(page: &mut String, blocks: &[Content]) {
    for block in blocks {
        match block {
            Content::Text { text, .. } => {
                let _ = write!(page, "<pre>{}</pre>", escape(text));
            }
            Content::Thinking {
                thinking, redacted, ..
            } => {
                let shown = if *redacted {
                    "(redacted)"
                } else {
                    thinking.as_str()
                };
                let _ = write!(
                    page,
                    "<details class=\"thinking\"><summary>thinking</summary><pre>{}</pre></details>",
                    escape(shown)
                );
            }
            Content::Image { data, mime_type } => {
                let allowed = ["image/png", "image/jpeg", "image/gif", "image/webp"];
                let safe = data
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
                if allowed.contains(&mime_type.as_str()) && safe {
                    let _ = write!(
                        page,
                        "<img alt=\"attached image\" src=\"data:{mime_type};base64,{data}\">"
                    );
                } else {
                    page.push_str("<p class=\"meta\">[image omitted]</p>");
                }
            }
            Content::ToolCall(call) => {
                let _ = write!(
                    page,
                    "<div class=\"tool\"><strong>→ {}</strong><pre>{}</pre></div>",
                    escape(&call.name),
                    escape(&call.arguments.to_pretty_string())
                );
            }
        }
    }
}

/// A readable text for custom messages (compaction summaries, bash executions…).
fn custom_text(raw: &Value) -> String {
    for key in ["summary", "content", "output", "text"] {
        if let Some(s) = raw[key].as_str() {
            return s.to_string();
        }
    }
    raw.to_pretty_string()
}

/// Escapes the five characters that matter in HTML text and attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use focus_core::message::{AssistantMessage, ToolCall, ToolResultMessage, UserMessage};

    #[test]
    fn escapes_everything_from_the_conversation() {
        let messages = vec![
            Message::User(UserMessage::text("<script>alert(1)</script>", 0)),
            Message::Assistant(AssistantMessage {
                content: vec![
                    Content::Thinking {
                        thinking: "hmm & so".into(),
                        signature: None,
                        redacted: false,
                    },
                    Content::ToolCall(ToolCall {
                        id: "1".into(),
                        name: "bash".into(),
                        arguments: focus_core::json_object! {"command" => "echo \"<b>\""},
                        thought_signature: None,
                        invalid_arguments: None,
                    }),
                ],
                model: "m".into(),
                ..Default::default()
            }),
            Message::ToolResult(ToolResultMessage {
                tool_call_id: "1".into(),
                tool_name: "bash".into(),
                content: vec![Content::text("<b>")],
                details: Value::Null,
                is_error: false,
                timestamp: 0,
            }),
        ];
        let html = render_html(
            &Meta {
                title: "t<".into(),
                ..Meta::default()
            },
            &messages,
        );
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(html.contains(
            "<details class=\"thinking\"><summary>thinking</summary><pre>hmm &amp; so</pre>"
        ));
        assert!(html.contains("name=\"viewport\""));
        assert!(!html.contains("http://") && !html.contains("https://"));
        assert!(html.contains("<title>t&lt;</title>"));
    }
}
