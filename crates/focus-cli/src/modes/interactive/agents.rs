//! The interactive mode's part of subagents (docs/subagents.md): `/agents`,
//! which lists the agent definitions the `task` tool offers (with where each
//! comes from and the files left out), and the approval dialog's title, which
//! says which subagent asks. A running child's status line is its `task`
//! call's partial output, shown under the call like any tool's progress.

use super::ui::Ui;
use crate::approval::ApprovalRequest;
use crate::modes::print::clip;
use focus_harness::subagents::load_definitions;
use focus_tools::output::sanitize;

impl Ui<'_> {
    /// `/agents`: the agents, read again from their folders.
    pub(super) fn show_agents(&mut self) {
        let found = load_definitions(self.cwd(), &focus_harness::session::focus_home());
        let style = self.style();
        let mut text = String::from("Agents (the task tool's subagent_type):");
        for agent in &found.agents {
            let source = match &agent.source {
                Some(path) => path.display().to_string(),
                None => "built in".to_string(),
            };
            let mode = agent
                .permission_mode
                .as_deref()
                .unwrap_or("the parent's mode");
            let tools = match &agent.tools {
                Some(tools) => tools.join(", "),
                None => "every tool".to_string(),
            };
            text.push_str(&format!(
                "\n  {} — {}\n    {}",
                style.bold(&clean(&agent.name, 64)),
                clean(&agent.description.replace('\n', " "), 200),
                style.dim(&clean(&format!("{tools}; {mode}; {source}"), 200)),
            ));
        }
        for error in &found.errors {
            text.push_str(&format!(
                "\n  {}",
                style.red(&format!("left out: {}", clean(&error.to_string(), 300)))
            ));
        }
        self.say(&text);
    }
}

/// The dialog's first line: the tool that wants to run, and the subagent
/// whose call it is.
pub(super) fn dialog_title(request: &ApprovalRequest) -> String {
    let tool = clip(&request.tool_name, 40);
    match &request.subagent {
        Some(who) => format!("? subagent {} — {tool} wants to run:", clean(who, 80)),
        None => format!("? {tool} wants to run:"),
    }
}

/// Text from a file or a model, cut and with control characters shown.
fn clean(text: &str, max: usize) -> String {
    clip(&sanitize(text), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialog_names_the_subagent_that_asks() {
        let mut request = ApprovalRequest {
            call_id: "c".into(),
            tool_name: "bash".into(),
            arguments: focus_core::json::Value::Null,
            summary: "rm x".into(),
            reason: "writes".into(),
            always_rule: String::new(),
            subagent: None,
        };
        assert_eq!(dialog_title(&request), "? bash wants to run:");
        request.subagent = Some("explore: find \u{1b}[2Jit".into());
        let title = dialog_title(&request);
        assert!(title.starts_with("? subagent explore: find"), "{title}");
        assert!(title.ends_with("— bash wants to run:"), "{title}");
        assert!(!title.contains('\u{1b}'), "{title:?}");
    }
}
